"""The judge's interface: a Verdict, the Judge protocol, and the error for an unusable model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from core.errors import AgentMemoryError


@dataclass(frozen=True, slots=True)
class Verdict:
    """One judgement: whether it holds, a 0..1 confidence that it holds, and why."""

    holds: bool
    score: float
    reason: str


class JudgeUnavailable(AgentMemoryError):
    """The NLI judge model cannot be loaded (or run)."""

    def __init__(self, model: str, why: str) -> None:
        self.model = model
        self.why = why
        super().__init__(
            f"cannot use the NLI judge model {model!r}: {why}. Without network access only "
            "models already in the local Hugging Face cache or local folders load; "
            'judge.kind = "offline" works without any download'
        )


class Judge(ABC):
    """Decides entailment (quote -> statement) and contradiction (statement <-> statement)."""

    name: str

    @abstractmethod
    def entails(self, premise: str, hypothesis: str) -> Verdict:
        """Does ``premise`` (a verbatim quote) entail ``hypothesis`` (a stored statement)?"""

    @abstractmethod
    def contradicts(self, a: str, b: str) -> Verdict:
        """Do ``a`` and ``b`` contradict each other? Symmetric."""

"""The judge's interface: a Verdict, the Judge protocol, and the error for an unusable model."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

from agent_memory.core.errors import AgentMemoryError


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
    def entails(self, premise: str, hypothesis: str, *, context: str | None = None) -> Verdict:
        """Does ``premise`` (a verbatim quote) entail ``hypothesis`` (a stored statement)?

        ``context`` is the full text of the transcript turn the quote was found in: a judge
        reads the quote's whole sentences there and refuses a quote that its turn negates,
        hedges, reports, frames as fiction or takes back (core.judge.context)."""

    @abstractmethod
    def contradicts(self, a: str, b: str) -> Verdict:
        """Do ``a`` and ``b`` contradict each other? Symmetric."""

    def warm(self) -> None:  # noqa: B027 - a deliberate no-op default, not an abstract method
        """Load now what the judge would load on first use (``Memory.warm`` calls this at a
        host's startup, so that no write pays for it). Nothing by default."""

"""The NLI judge: a natural-language-inference cross-encoder through transformers.

For machines that can load one (``judge.kind = "nli"``, ``judge.nli_model``). Nothing loads at
import or construction; the model loads on first use, once, under a lock. Given the quote's
turn, the premise is the quote's whole sentences there, and the turn's own refusals (fiction,
quoted text, a later retraction: core.judge.context) apply before the model is asked.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

from agent_memory.core.errors import ConfigError
from agent_memory.core.hf import apply_torch_threads, quiet_transformers
from agent_memory.core.judge.base import Judge, JudgeUnavailable, Verdict
from agent_memory.core.judge.context import read


class NLIJudge(Judge):
    """An NLI cross-encoder (for example cross-encoder/nli-deberta-v3-base) via transformers.

    Loaded lazily on the first call (never at import or construction), once, under a lock.
    ``entails`` holds when P(entailment) >= ``entail_threshold``; ``contradicts`` when the
    larger of P(contradiction | a, b) and P(contradiction | b, a) reaches
    ``contradiction_threshold``.
    """

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        entail_threshold: float = 0.8,
        contradiction_threshold: float = 0.8,
        max_length: int = 512,
    ) -> None:
        for label, value in (
            ("entail_threshold", entail_threshold),
            ("contradiction_threshold", contradiction_threshold),
        ):
            if not 0.0 <= value <= 1.0 or math.isnan(value):
                raise ConfigError(f"{label} must be between 0 and 1, got {value!r}")
        self.model = model
        self.name = f"nli:{model}"
        self.device = device
        self.entail_threshold = entail_threshold
        self.contradiction_threshold = contradiction_threshold
        self.max_length = max_length
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None
        self._labels: dict[str, int] = {}

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the model now (it is otherwise loaded by the first call)."""
        with self._lock:
            if self._model is not None:
                return
            source = self._source()
            try:
                import torch  # noqa: F401
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as exc:  # pragma: no cover - both are dependencies
                raise JudgeUnavailable(self.model, f"transformers/torch missing: {exc}") from exc
            apply_torch_threads()
            try:
                with quiet_transformers():
                    tokenizer = AutoTokenizer.from_pretrained(source)
                    model = AutoModelForSequenceClassification.from_pretrained(source)
                model.to(self.device)
                model.eval()
            except Exception as exc:
                raise JudgeUnavailable(self.model, f"{type(exc).__name__}: {exc}") from exc
            self._labels = _label_indices(self.model, getattr(model.config, "id2label", None))
            self._tokenizer = tokenizer
            self._model = model

    def _source(self) -> str:
        path = Path(self.model).expanduser()
        if path.is_dir():
            return str(path)
        looks_local = path.is_absolute() or self.model.startswith((".", "~")) or path.exists()
        if looks_local:
            if path.exists():
                raise JudgeUnavailable(self.model, f"{path} is a file, not a model folder")
            raise JudgeUnavailable(self.model, f"the folder {path} does not exist")
        return self.model

    def _probabilities(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        self.load()
        import torch

        try:
            limit = self.max_length
            model_limit = getattr(self._tokenizer, "model_max_length", None)
            if isinstance(model_limit, int) and 0 < model_limit < limit:
                limit = model_limit
            with torch.inference_mode():
                encoded = self._tokenizer(
                    [p for p, _ in pairs],
                    [h for _, h in pairs],
                    padding=True,
                    truncation=True,
                    max_length=limit,
                    return_tensors="pt",
                )
                encoded = {k: v.to(self.device) for k, v in encoded.items()}
                logits = self._model(**encoded).logits
                probabilities = torch.softmax(logits.float(), dim=-1).cpu().tolist()
        except Exception as exc:
            raise JudgeUnavailable(self.model, f"inference failed: {exc}") from exc
        return [list(map(float, row)) for row in probabilities]

    def entails(self, premise: str, hypothesis: str, *, context: str | None = None) -> Verdict:
        if not premise.strip() or not hypothesis.strip():
            return Verdict(False, 0.0, "the quote or the statement is empty")
        # The model reads the quote's whole sentences, so a cut quote cannot win here either.
        reading = read(premise, context, hypothesis)
        if reading.refusal is not None:
            return Verdict(False, 0.0, reading.refusal)
        [row] = self._probabilities([(reading.premise, hypothesis)])
        p = row[self._labels["entailment"]]
        holds = p >= self.entail_threshold
        sign = ">=" if holds else "<"
        return Verdict(holds, p, f"P(entailment) = {p:.2f} {sign} {self.entail_threshold:.2f}")

    def contradicts(self, a: str, b: str) -> Verdict:
        if not a.strip() or not b.strip():
            return Verdict(False, 0.0, "a statement is empty")
        first, second = sorted((a, b))  # the same batch either way round: exactly symmetric
        rows = self._probabilities([(first, second), (second, first)])
        p = max(row[self._labels["contradiction"]] for row in rows)
        holds = p >= self.contradiction_threshold
        sign = ">=" if holds else "<"
        return Verdict(
            holds,
            p,
            f"P(contradiction), the larger of both orders, = {p:.2f} {sign} "
            f"{self.contradiction_threshold:.2f}",
        )


def _label_indices(model: str, id2label: Any) -> dict[str, int]:
    """Map entailment/neutral/contradiction (any case) to output indices, or refuse."""
    labels: dict[str, int] = {}
    shown: list[str] = []
    for index, label in dict(id2label or {}).items():
        name = str(label).strip().casefold()
        shown.append(str(label))
        if name in ("entailment", "neutral", "contradiction"):
            labels[name] = int(index)
    if "entailment" not in labels or "contradiction" not in labels:
        raise JudgeUnavailable(
            model,
            f"its labels {sorted(shown)} are unknown: an NLI model must name its outputs "
            "'entailment', 'neutral' and 'contradiction' in config.id2label (generic "
            "LABEL_0.. names cannot be mapped safely)",
        )
    return labels

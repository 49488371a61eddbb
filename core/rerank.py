"""The optional reranker: a cross-encoder that rescores the gate's survivors (design §7).

Built, measured, and off by default (``reranker.enabled``). ``FlagRerankerBackend`` uses
FlagEmbedding's ``FlagReranker`` with ``BAAI/bge-reranker-v2-m3`` (``reranker.model``), loaded on
first use. No trained reranker can be downloaded on an offline machine: pointed at a model
folder without a trained classification head, FlagReranker loads but scores at random, so the
offline tests exercise the code path (loading, ordering, the stage timeout), not its quality.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from core.errors import AgentMemoryError
from core.hf import quiet_transformers


class RerankerUnavailable(AgentMemoryError):
    """The reranker model could not be loaded."""


class Reranker(ABC):
    """Scores (query, text) pairs; higher is more relevant, in [0, 1]."""

    name: str

    @abstractmethod
    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, in order."""


class FlagRerankerBackend(Reranker):
    """FlagEmbedding's FlagReranker (a cross-encoder), loaded lazily, once, under a lock."""

    def __init__(self, model: str, *, device: str = "cpu") -> None:
        self.name = f"flag-reranker:{model}"
        self._model_name = model
        self._device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from FlagEmbedding import FlagReranker

                    with quiet_transformers():
                        self._model = FlagReranker(
                            self._model_name, use_fp16=False, devices=self._device
                        )
                except Exception as exc:
                    raise RerankerUnavailable(
                        f"could not load reranker {self._model_name!r}: {exc}; it needs "
                        "local weights (reranker.model may be a folder)"
                    ) from exc
            return self._model

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        model = self._load()
        scores = model.compute_score([[query, t] for t in texts], normalize=True)
        if isinstance(scores, float):
            scores = [scores]
        return [float(s) for s in scores]

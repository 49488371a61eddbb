"""The optional reranker: a cross-encoder that rescores the gate's survivors (design §7).

Built, measured, and off by default (``reranker.enabled``). ``FlagRerankerBackend`` uses
FlagEmbedding's ``FlagReranker`` with ``BAAI/bge-reranker-v2-m3`` (``reranker.model``), loaded on
first use. No trained reranker can be downloaded on an offline machine: pointed at a model
folder without a trained classification head, FlagReranker loads but scores at random, so the
offline tests exercise the code path (loading, ordering, the stage timeout), not its quality.

Scoring runs in small batches and checks the stage deadline between them. The retriever stops
waiting when ``reranker.timeout_ms`` passes; the deadline makes the worker thread stop too,
after at most one more batch, so slow reranks cannot pile up in the stage pool.
``rerank`` is the retriever's stage.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_memory.core.errors import AgentMemoryError
from agent_memory.core.hf import apply_torch_threads, quiet_transformers
from agent_memory.core.logging import get_logger

if TYPE_CHECKING:
    from agent_memory.core.config import RerankerConfig
    from agent_memory.core.search.ranking import Candidate

log = get_logger("agent_memory")

# The stage's own pool, so a rewrite still running past its timeout never delays a rerank.
_RERANK_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-memory-rerank")


class RerankerUnavailable(AgentMemoryError):
    """The reranker model could not be loaded."""


class RerankDeadlineExceeded(AgentMemoryError):
    """The stage deadline passed between batches; the remaining texts were not scored."""


class Reranker(ABC):
    """Scores (query, text) pairs; higher is more relevant, in [0, 1].

    Subclasses implement ``score_batch``; ``score`` feeds it ``batch_size`` texts at a time and
    gives up between batches once ``deadline`` (a ``time.monotonic()`` value) has passed.
    """

    name: str
    batch_size: int = 8

    @abstractmethod
    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance score per text, in order."""

    def score(
        self, query: str, texts: Sequence[str], *, deadline: float | None = None
    ) -> list[float]:
        """One relevance score per text, in order; raises RerankDeadlineExceeded when late."""
        scores: list[float] = []
        for start in range(0, len(texts), self.batch_size):
            if deadline is not None and time.monotonic() >= deadline:
                raise RerankDeadlineExceeded(f"deadline passed after {start} of {len(texts)} texts")
            scores.extend(self.score_batch(query, texts[start : start + self.batch_size]))
        return scores


class FlagRerankerBackend(Reranker):
    """FlagEmbedding's FlagReranker (a cross-encoder), loaded lazily, once, under a lock.

    The loaded FlagReranker's tokenizer and model are called directly rather than through
    ``compute_score``: that method first runs a probe batch to find a batch size that fits GPU
    memory, which on a CPU repeats the first batch's work (every candidate, for 30 of them), and
    it cannot stop part way. The pair is encoded as (query, passage) truncated to ``max_length``
    and squashed with a sigmoid (its ``normalize=True``): the same scores whenever the pair fits
    ``max_length`` (a test compares them). Past it, FlagReranker first cuts the query to 3/4 of
    ``max_length``; here the longer of the two is cut first.
    """

    def __init__(self, model: str, *, device: str = "cpu", batch_size: int = 8) -> None:
        self.name = f"flag-reranker:{model}"
        self.batch_size = batch_size
        self._model_name = model
        self._device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                try:
                    from FlagEmbedding import FlagReranker

                    apply_torch_threads()
                    with quiet_transformers():
                        model = FlagReranker(self._model_name, use_fp16=False, devices=self._device)
                    model.model.to(self._device).eval()
                    self._model = model
                except Exception as exc:
                    raise RerankerUnavailable(
                        f"could not load reranker {self._model_name!r}: {exc}; it needs "
                        "local weights (reranker.model may be a folder)"
                    ) from exc
            return self._model

    def score_batch(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        import torch

        reranker = self._load()
        inputs = reranker.tokenizer(
            [query] * len(texts),
            list(texts),
            padding=True,
            truncation="longest_first",
            max_length=reranker.max_length,
            return_tensors="pt",
        ).to(self._device)
        with torch.inference_mode():
            logits = reranker.model(**inputs, return_dict=True).logits.float()
        if logits.shape[-1] != 1:
            raise RerankerUnavailable(
                f"{self._model_name!r} has {logits.shape[-1]} output labels; a reranker "
                "scores with one (a cross-encoder such as BAAI/bge-reranker-v2-m3)"
            )
        logits = logits.view(-1)
        return [float(s) for s in torch.sigmoid(logits).tolist()]


def rerank(
    reranker: Reranker | None,
    settings: RerankerConfig,
    query: str,
    kept: list[Candidate],
    text: Callable[[Candidate], str],
) -> tuple[list[Candidate], dict[str, Any]]:
    """The gate's survivors ``kept`` in the reranker's order (``text``: a candidate as the
    model reads it), and what the stage did. With mode replace_floors, those below
    ``reranker.score_floor`` are dropped. A reranker that is off, fails or times out leaves
    the fused order (the log says which)."""
    if not settings.enabled or not kept:
        return kept, {
            "applied": False,
            "status": "disabled" if not settings.enabled else "nothing to rerank",
        }
    if reranker is None:
        return kept, {"applied": False, "status": "no reranker configured"}
    texts = [text(c) for c in kept]
    timeout = settings.timeout_ms / 1000
    # The deadline lets the scoring thread stop between batches once nobody waits for it.
    future = _RERANK_POOL.submit(reranker.score, query, texts, deadline=time.monotonic() + timeout)
    try:
        scores = [float(s) for s in future.result(timeout=timeout)]
        if len(scores) != len(kept):
            raise ValueError(f"{len(scores)} scores for {len(kept)} candidates")
    except (FutureTimeout, RerankDeadlineExceeded):
        return kept, {"applied": False, "status": "timeout; fused order kept"}
    except Exception as exc:  # a failing reranker must never fail the search
        log.warning("rerank.failed", error=str(exc))
        return kept, {
            "applied": False,
            "status": f"failed ({type(exc).__name__}); fused order kept",
        }
    before = [c.record_id for c in kept]
    scored = sorted(zip(kept, scores, strict=True), key=lambda p: -p[1])
    if settings.mode == "replace_floors":
        scored = [(c, s) for c, s in scored if s >= settings.score_floor]
    reranked = [c for c, _ in scored]
    return reranked, {
        "applied": True,
        "status": "reranked",
        "model": settings.model,
        "mode": settings.mode,
        "before": before,
        "order": [c.record_id for c in reranked],
        "scores": {c.record_id: round(s, 6) for c, s in scored},
    }


def untrained_cross_encoder(base: str | Path, out: Path) -> Path:
    """Save a one-label cross-encoder built on ``base``'s encoder, with an untrained head.

    The offline stand-in for tests and benchmarks, never a default: no trained reranker can
    be downloaded here, and a cross-encoder's cost is its encoder's, so this measures real
    compute and exercises the real loading and scoring code, while its scores are random.
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    with quiet_transformers():
        model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1)
        model.save_pretrained(out)
        AutoTokenizer.from_pretrained(base).save_pretrained(out)
    return out

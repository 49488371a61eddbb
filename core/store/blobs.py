"""How vectors are stored: the byte layouts of the embeddings table's ``vector`` and
``passages`` columns (core.store.vectors reads them; core.passages says what passages are)."""

from __future__ import annotations

import numpy as np


def vector_blob(vector: np.ndarray) -> bytes:
    """A vector as the embeddings table stores it: contiguous float32 bytes."""
    return np.ascontiguousarray(vector, dtype=np.float32).tobytes()


def passages_blob(passages: np.ndarray | None) -> bytes | None:
    """A record's passage vectors (core.passages) as the embeddings table stores them: its
    rows' float32 bytes, one after another; None (NULL) when it has none."""
    if passages is None or len(passages) == 0:
        return None
    return np.ascontiguousarray(passages, dtype=np.float32).tobytes()


def passage_matrix(blob: bytes, dims: int) -> np.ndarray:
    """The stored passage vectors of one record, one row each."""
    return np.frombuffer(blob, np.float32).reshape(-1, dims)

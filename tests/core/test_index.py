"""The vector index: exact cosine top-k over an allowed set, kept in sync with the store."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import Memory
from core.index import VectorIndex
from tests.conftest import NOW


def unit(rng: np.random.Generator, n: int, dims: int) -> np.ndarray:
    m = rng.standard_normal((n, dims)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def brute_force(
    matrix: np.ndarray, rowids: list[int], query: np.ndarray, k: int, allowed: set[int] | None
) -> list[int]:
    scored = [
        (float(matrix[i] @ query), r)
        for i, r in enumerate(rowids)
        if allowed is None or r in allowed
    ]
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [r for _, r in scored[:k]]


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 300),
    k=st.integers(0, 40),
    seed=st.integers(0, 2**32 - 1),
    removed_share=st.floats(0, 0.9),
    allowed_share=st.one_of(st.none(), st.floats(0, 1)),
)
def test_search_equals_brute_force(
    n: int, k: int, seed: int, removed_share: float, allowed_share: float | None
) -> None:
    """After any upserts and removals, search returns exactly the brute-force top-k."""
    rng = np.random.default_rng(seed)
    dims = 8
    index = VectorIndex(dims)
    rowids = [int(r) for r in rng.choice(10_000, size=n, replace=False) + 1]
    vectors = unit(rng, n, dims)
    for rowid, vector in zip(rowids, vectors, strict=True):
        index.upsert(rowid, vector)
    removed = (
        set(rng.choice(rowids, size=int(n * removed_share), replace=False).tolist()) if n else set()
    )
    for rowid in removed:
        assert index.remove(rowid)
    kept = [(r, v) for r, v in zip(rowids, vectors, strict=True) if r not in removed]
    assert len(index) == len(kept)
    allowed = None
    if allowed_share is not None:
        allowed = {r for r in rowids if rng.random() < allowed_share} | {999_999}
    query = unit(rng, 1, dims)[0]
    got = index.search(
        query, k, allowed=None if allowed is None else np.array(sorted(allowed), dtype=np.int64)
    )
    matrix = np.array([v for _, v in kept]).reshape(len(kept), dims)
    expected = brute_force(matrix, [r for r, _ in kept], query, k, allowed)
    assert [h.rowid for h in got] == expected
    assert all(
        abs(h.score - float(matrix[[r for r, _ in kept].index(h.rowid)] @ query)) < 1e-5
        for h in got
    )


def test_upsert_replaces_and_remove_forgets() -> None:
    """Upserting a rowid twice keeps one row; removing it makes it unfindable."""
    index = VectorIndex(3)
    index.upsert(7, np.array([1, 0, 0], np.float32))
    index.upsert(7, np.array([0, 1, 0], np.float32))
    assert len(index) == 1 and 7 in index
    [hit] = index.search(np.array([0, 1, 0], np.float32), 5)
    assert (hit.rowid, round(hit.score, 5)) == (7, 1.0)
    assert index.remove(7) and not index.remove(7)
    assert index.search(np.array([0, 1, 0], np.float32), 5) == []


def test_the_index_grows_past_its_initial_capacity() -> None:
    """Thousands of upserts grow the matrix without losing rows."""
    rng = np.random.default_rng(1)
    index = VectorIndex(4)
    vectors = unit(rng, 5000, 4)
    for i, v in enumerate(vectors, start=1):
        index.upsert(i, v)
    assert len(index) == 5000
    assert index.search(vectors[4321], 1)[0].rowid == 4322


def test_wrong_dimensions_are_refused() -> None:
    """A vector of the wrong size is a programming error, caught at the door."""
    index = VectorIndex(3)
    with pytest.raises(ValueError, match="dims"):
        index.upsert(1, np.ones(4, np.float32))


def test_an_empty_allowed_set_finds_nothing(fast_memory: Memory) -> None:
    """Restricting to no rowids returns nothing rather than everything."""
    fast_memory.import_records([{"content": "something"}], scope="user:u1", now=NOW)
    query = fast_memory.embedder.embed_one("something")
    assert fast_memory.index().search(query, 5, allowed=np.array([], np.int64)) == []
    assert len(fast_memory.index().search(query, 5)) == 1


def test_sync_applies_writes_and_forgets_made_through_another_handle(memory: Memory) -> None:
    """A second Memory on the same file sees new records and forgets via records_version."""
    other = Memory.open(memory.path, embedder=memory.embedder, now=NOW)
    try:
        index = other.index()
        assert len(index) == 0
        [rid] = memory.import_records(
            [{"content": "The staging database is apollo-stg-1.", "type": "episodic"}],
            scope="project:apollo",
            now=NOW,
        )
        query = other.embedder.embed_one("Which database is used for staging?")
        hits = other.index().search(query, 3)
        assert len(hits) == 1 and hits[0].score > 0.4
        assert other.index().version == memory.store.records_version
        memory.forget(rid, now=NOW)
        assert other.index().search(query, 3) == []
        assert len(other.index()) == 0
    finally:
        other.close()


def test_rebuild_matches_incremental_sync(fast_memory: Memory) -> None:
    """An index built from scratch equals one kept up to date by deltas."""
    live = fast_memory.index()
    ids = fast_memory.import_records(
        [{"content": f"note number {i}"} for i in range(40)], scope="user:u1", now=NOW
    )
    for rid in ids[::3]:
        fast_memory.forget(rid, now=NOW)
    live = fast_memory.index()
    fresh = VectorIndex.build(fast_memory.store, fast_memory.embedder.dims)
    query = fast_memory.embedder.embed_one("note number 7")
    assert len(live) == len(fresh) == 40 - len(ids[::3])
    assert live.search(query, 10) == fresh.search(query, 10)

"""The vector index: exact cosine top-k over an allowed set, kept in sync with the store."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.filters import RecordFilter
from agent_memory.core.index import VectorIndex
from agent_memory.core.models import MemoryType, Status
from tests.support.clock import NOW


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


SCOPES = ["user:u1", "user:u2", "project:p", "org:o"]
# expires_at values the mixed store draws from; a filter's now is drawn from them too, so the
# boundary (expires_at == now: lapsed) is exercised.
EXPIRIES = [f"2026-{m:02d}-15T12:00:00.000000Z" for m in (1, 4, 7, 10)] + [
    "2027-02-01T00:00:00.123456Z"
]


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory: pytest.TempPathFactory):
    """60 records over four scopes, three types, four statuses, spread event times, an
    expires_at on about two thirds of them (of any status: the predicate must check status),
    and the assistant's words (said_by) among the episodic ones."""
    import random

    from agent_memory.core.store.records import bump_records_version

    rng = random.Random(7)
    mem = Memory.open(
        tmp_path_factory.mktemp("mixed") / "m.db", embedder=HashingEmbedder(), now=NOW
    )
    for i in range(60):
        item = {
            "content": f"record {i} about {rng.choice(['tea', 'deploys', 'Berlin'])}",
            "type": rng.choice(["semantic", "episodic", "procedural"]),
        }
        if rng.random() < 0.7:
            item["event_at"] = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        if item["type"] == "episodic" and i % 3 == 0:
            item["said_by"] = "assistant"
        if item["type"] == "procedural" or not SCOPES[i % 4].startswith("user"):
            item["about"] = [{"kind": "other", "name": "thing"}]
        mem.import_records([item], scope=SCOPES[i % 4], now=NOW)
    mem.index()  # built now, so the status changes below reach it through sync
    with mem.store.transaction() as conn:
        rows = conn.execute("SELECT rowid FROM records").fetchall()
        for (rowid,) in rows:
            status = rng.choice(["provisional", "confirmed", "superseded", "expired"])
            expires = rng.choice([None, *EXPIRIES])
            conn.execute(
                "UPDATE records SET status = ?, expires_at = ? WHERE rowid = ?",
                (status, expires, rowid),
            )
        bump_records_version(conn, [r[0] for r in rows])
    yield mem
    mem.close()


def _descending(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


@settings(max_examples=80, deadline=None)
@given(
    scopes=st.lists(st.sampled_from([*SCOPES, "user:nobody"]), max_size=4, unique=True),
    statuses=st.sets(st.sampled_from(list(Status)[:4]), min_size=0),
    types=st.one_of(st.none(), st.sets(st.sampled_from(list(MemoryType)))),
    since=st.one_of(st.none(), st.dates(date(2025, 12, 1), date(2026, 12, 31))),
    until=st.one_of(st.none(), st.dates(date(2025, 12, 1), date(2026, 12, 31))),
    now=st.one_of(
        st.none(),
        st.sampled_from(EXPIRIES),
        st.dates(date(2025, 12, 1), date(2027, 3, 1)).map(lambda d: f"{d}T00:00:00.000000Z"),
    ),
    assistant_words=st.booleans(),
)
def test_the_index_mask_and_the_sql_filter_agree(
    mixed_store, scopes, statuses, types, since, until, now, assistant_words
) -> None:
    """For any hard filter, the dense generator's mask admits exactly the records SQL does,
    whether the index was kept current by deltas or built from a snapshot, and both agree
    with Record.status_at (a provisional record past expires_at at now reads as expired)
    and Record.said_by (the assistant's words pass only a filter that reads them)."""
    where = RecordFilter(
        scopes=tuple(scopes),
        statuses=frozenset(statuses),
        types=None if types is None else frozenset(types),
        since=None if since is None else f"{since.isoformat()}T00:00:00.000000Z",
        until=None if until is None else f"{until.isoformat()}T00:00:00.000000Z",
        now=now,
        assistant_words=assistant_words,
    )
    condition, params = where.sql()
    by_sql = {
        r["rowid"]
        for r in mixed_store.store.query(
            f"SELECT rowid FROM records AS r WHERE {condition}", params
        )
    }
    index = mixed_store.index()
    query = mixed_store.embedder.embed_one("record about tea")
    by_mask = {h.rowid for h in index.search(query, 1000, where=where)}
    assert by_mask == by_sql
    fresh = VectorIndex.build(mixed_store.store, mixed_store.embedder.dims)
    assert {h.rowid for h in fresh.search(query, 1000, where=where)} == by_sql
    every = [r["rowid"] for r in mixed_store.store.query("SELECT rowid FROM records")]
    by_status = {
        rowid
        for rowid, record in mixed_store.store.records_by_rowid(every).items()
        if record.scope in scopes
        and record.status_at(now) in statuses
        and (types is None or record.type in types)
        and (where.since is None or (record.event_at or record.created_at) >= where.since)
        and (where.until is None or (record.event_at or record.created_at) <= where.until)
        and (assistant_words or record.said_by is None)
    }
    assert by_status == by_sql
    records = mixed_store.store.records_by_rowid(every)
    assert {rowid for rowid, r in records.items() if where.rejects(r) is None} == by_sql
    # The entity generator's order: weight (links matched), then latest event time, then
    # highest rowid, over the linked records that pass; SQL orders the same way.
    linked = [*every[::2], 10_000]  # a rowid the index has never seen passes nothing
    weights = [1 + r % 3 for r in linked]
    expected = sorted(
        (
            (-w, records[r].event_at or records[r].created_at, r)
            for r, w in zip(linked, weights, strict=True)
            if r in by_sql
        ),
        key=lambda key: (key[0], _descending(key[1]), -key[2]),
    )
    top, passed = index.latest(np.array(linked), np.array(weights), 7, where=where)
    assert passed == len(expected)
    assert top == [(r, -w) for w, _, r in expected[:7]]


def test_a_record_scores_by_its_best_passage_less_the_discount() -> None:
    """With a passage discount, a record whose passage is close outranks one whose whole
    vector is a little closer; its hit keeps the whole cosine. Without one, or once the
    record is removed, its passages count for nothing."""
    index = VectorIndex(3)
    query = np.array([1, 0, 0], np.float32)
    index.upsert(1, np.array([0.6, 0.8, 0], np.float32))  # whole cosine 0.6, no passages
    passages = np.array([[1, 0, 0], [0, 0, 1]], np.float32)  # best passage: cosine 1.0
    index.upsert(2, np.array([0.5, 0, np.sqrt(0.75)], np.float32), passages=passages)
    assert [h.rowid for h in index.search(query, 2)] == [1, 2]
    first, second = index.search(query, 2, passage_discount=0.1, shortlist=10)
    assert first.rowid == 2 and round(first.score, 4) == round(
        1.0 - 0.1 * np.sqrt(2 * np.log(3)), 4
    )
    assert round(first.whole or 0, 4) == 0.5 and second.whole is None
    # Outside the shortlist (at least k: here the best one on the whole vector) no passage is
    # read.
    assert [h.rowid for h in index.search(query, 1, passage_discount=0.1, shortlist=1)] == [1]
    index.upsert(2, np.array([0.5, 0, np.sqrt(0.75)], np.float32))  # rewritten: no passages
    assert index.search(query, 1, passage_discount=0.1, shortlist=10)[0].rowid == 1
    index.upsert(2, np.array([0.5, 0, np.sqrt(0.75)], np.float32), passages=passages)
    assert index.remove(2)
    assert [h.rowid for h in index.search(query, 2, passage_discount=0.1, shortlist=10)] == [1]


def test_passages_of_the_wrong_size_are_refused() -> None:
    index = VectorIndex(3)
    with pytest.raises(ValueError, match="passages"):
        index.upsert(1, np.ones(3, np.float32), passages=np.ones((2, 4), np.float32))

"""The lexical generator ranks with the filter inside (few readable records) or first and
filters after (most records readable): either way its candidates are exactly the filtered
BM25 top k."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core import Config, HashingEmbedder, Memory
from core.filters import LIVE_STATUSES, RecordFilter
from tests.conftest import NOW

DEPTH = 3  # candidates per generator; the rank-then-filter pass looks 3x deeper


def open_store(path: Path, alice: list[dict[str, Any]], bob: list[dict[str, Any]]) -> Memory:
    config = Config(retrieval={"candidates_per_generator": DEPTH})
    mem = Memory.open(path, config, embedder=HashingEmbedder(), now=NOW)
    mem.grant("reader", "user:alice", now=NOW)
    mem.import_records(alice, scope="user:alice", now=NOW)
    mem.import_records(bob, scope="user:bob", now=NOW)
    return mem


def lexical_candidates(mem: Memory, query: str, **args: Any) -> list[tuple[str, float]]:
    session = mem.session(agent_id="reader", user_id="alice", session_id="s", now=NOW)
    result = session.call("memory_search", {"query": query, **args}, now=NOW)
    row = mem.store.query("SELECT payload FROM search_log WHERE id = ?", (result["search_id"],))
    return [(c["id"], c["score"]) for c in json.loads(row[0]["payload"])["candidates"]["lexical"]]


def filtered_bm25(mem: Memory, query: str, types: tuple[str, ...] | None = None) -> list[Any]:
    """The reference: BM25 over the records that pass the filter, best k, ties by rowid."""
    where = RecordFilter(scopes=("user:alice",), statuses=LIVE_STATUSES, types=None)
    condition, params = where.sql("r")
    if types:
        condition += f" AND r.type IN ({','.join('?' * len(types))})"
        params = [*params, *types]
    rows = mem.store.query(
        f"""
        SELECT r.id AS id, -bm25(records_fts, 1.0, 0.5, 0.5, 0.3) AS score
          FROM records_fts JOIN records AS r ON r.rowid = records_fts.rowid
         WHERE records_fts MATCH ? AND {condition}
         ORDER BY score DESC, r.rowid LIMIT ?
        """,
        [f'"{query}"', *params, DEPTH],
    )
    return [(r["id"], round(float(r["score"]), 6)) for r in rows]


def note(words: str, kind: str = "semantic") -> dict[str, Any]:
    return {"content": words, "type": kind}


@pytest.mark.parametrize(
    ("alice", "bob", "why"),
    [
        # Alice's records are most of the store: rank first, drop Bob's, enough remain.
        (
            [note(f"tea note {i} " + "filler " * i) for i in range(12)],
            [note("tea tea tea")] * 2,
            "most readable, a few better matches unreadable",
        ),
        # Most of the store, but Bob's ten records outrank all of Alice's: the deeper look
        # finds too few readable ones and the filtered query runs instead.
        (
            [note(f"tea note {i} " + "filler " * 20) for i in range(30)],
            [note("tea tea tea")] * 10,
            "most readable, the top matches all unreadable",
        ),
        # Few readable records: the filter goes inside the query.
        (
            [note("tea note " + "filler " * i) for i in range(4)],
            [note(f"tea {i}") for i in range(30)],
            "few readable",
        ),
    ],
)
def test_lexical_candidates_are_the_filtered_bm25_top_k(
    tmp_path: Path, alice: list[dict[str, Any]], bob: list[dict[str, Any]], why: str
) -> None:
    mem = open_store(tmp_path / "m.db", alice, bob)
    expected = filtered_bm25(mem, "tea")
    assert len(expected) == DEPTH, why
    assert lexical_candidates(mem, "tea") == expected, why
    mem.close()


def test_a_type_filter_is_applied_after_ranking_too(tmp_path: Path) -> None:
    """Semantic notes are most of the store, so a search for them ranks first and filters
    after; the better-matching episodic notes ahead of them are dropped, not returned."""
    alice = [note("tea tea " + "x " * i, "episodic") for i in range(6)] + [
        note("tea " + "filler " * i) for i in range(14)
    ]
    mem = open_store(tmp_path / "m.db", alice, [])
    expected = filtered_bm25(mem, "tea", types=("semantic",))
    assert len(expected) == DEPTH
    assert lexical_candidates(mem, "tea", types=["semantic"]) == expected
    mem.close()

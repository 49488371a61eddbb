"""The lexical generator's candidates are exactly the filtered BM25 top k, whether BM25 is
computed in memory (core.search.bm25, the default) or by FTS5. FTS5 ranks with the filter inside
(few readable records) or first and filters after (most records readable). Query words in half the
store or more, which BM25 gives no weight, are left out of FTS5's query without changing that
ranking (beyond score differences of ~2e-6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.filters import LIVE_STATUSES, RecordFilter
from agent_memory.core.search.lexical import FTS_TOKENIZE, TermStats, fts_match, query_tokens
from tests.support.clock import NOW

DEPTH = 3  # candidates per generator; the rank-then-filter pass looks 3x deeper


def open_store(
    path: Path,
    alice: list[dict[str, Any]],
    bob: list[dict[str, Any]],
    *,
    scoring: str = "fts5",
) -> Memory:
    config = Config(retrieval={"candidates_per_generator": DEPTH, "lexical_scoring": scoring})
    mem = Memory.open(path, config, embedder=HashingEmbedder(), now=NOW)
    mem.grant("reader", "user:alice", now=NOW)
    mem.import_records(alice, scope="user:alice", now=NOW)
    mem.import_records(bob, scope="user:bob", now=NOW)
    return mem


def search_payload(mem: Memory, query: str, **args: Any) -> dict[str, Any]:
    session = mem.session(agent_id="reader", user_id="alice", session_id="s", now=NOW)
    result = session.call("memory_search", {"query": query, **args}, now=NOW)
    row = mem.store.query("SELECT payload FROM search_log WHERE id = ?", (result["search_id"],))
    payload: dict[str, Any] = json.loads(row[0]["payload"])
    return payload


def lexical_candidates(mem: Memory, query: str, **args: Any) -> list[tuple[str, float]]:
    payload = search_payload(mem, query, **args)
    return [(c["id"], c["score"]) for c in payload["candidates"]["lexical"]]


def filtered_bm25(mem: Memory, query: str, types: tuple[str, ...] | None = None) -> list[Any]:
    """The reference: BM25 over the records that pass the filter, best k, ties by rowid.
    ``query`` is one word or an FTS5 expression of quoted words."""
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
        [query if '"' in query else f'"{query}"', *params, DEPTH],
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
@pytest.mark.parametrize("scoring", ["fts5", "memory"])
def test_lexical_candidates_are_the_filtered_bm25_top_k(
    tmp_path: Path, alice: list[dict[str, Any]], bob: list[dict[str, Any]], why: str, scoring: str
) -> None:
    mem = open_store(tmp_path / "m.db", alice, bob, scoring=scoring)
    expected = filtered_bm25(mem, "tea")
    assert len(expected) == DEPTH, why
    assert lexical_candidates(mem, "tea") == expected, why
    mem.close()


@pytest.mark.parametrize("scoring", ["fts5", "memory"])
def test_a_type_filter_is_applied_after_ranking_too(tmp_path: Path, scoring: str) -> None:
    """Semantic notes are most of the store, so a search for them ranks first and filters
    after; the better-matching episodic notes ahead of them are dropped, not returned."""
    alice = [note("tea tea " + "x " * i, "episodic") for i in range(6)] + [
        note("tea " + "filler " * i) for i in range(14)
    ]
    mem = open_store(tmp_path / "m.db", alice, [], scoring=scoring)
    expected = filtered_bm25(mem, "tea", types=("semantic",))
    assert len(expected) == DEPTH
    assert lexical_candidates(mem, "tea", types=["semantic"]) == expected
    mem.close()


def test_the_word_statistics_use_the_full_text_tables_tokenizer(tmp_path: Path) -> None:
    mem = open_store(tmp_path / "m.db", [], [])
    (sql,) = mem.store.query("SELECT sql FROM sqlite_master WHERE name = 'records_fts'")
    mem.close()
    assert f"tokenize = '{FTS_TOKENIZE}'" in sql[0]


TEA_NOTES = [note(f"tea note {i} running " + "filler " * i) for i in range(6)]


@pytest.mark.parametrize(
    ("others", "types", "query", "why"),
    [
        # Alice's semantic notes are the whole store: rank first, filter after. The query
        # says "runs", the same porter stem as the records' "running".
        ([note(f"coffee {i} running") for i in range(8)], None, "tea runs", "rank then filter"),
        # Episodic notes are most of the store and the search asks for semantic ones: the
        # filter goes inside the FTS query.
        (
            [note(f"coffee {i} running", "episodic") for i in range(30)],
            ("semantic",),
            "tea running",
            "filter inside",
        ),
    ],
)
def test_a_word_in_half_the_store_is_left_out_and_the_ranking_is_unchanged(
    tmp_path: Path,
    others: list[dict[str, Any]],
    types: tuple[str, ...] | None,
    query: str,
    why: str,
) -> None:
    """Every record says "running" (as every turn's context holds its session's date): BM25
    gives it an IDF of 1e-6, so the query leaves it out and the ranking is the full query's,
    scores equal to 1e-5, in either placement of the filter."""
    mem = open_store(tmp_path / "m.db", TEA_NOTES + others, [])
    payload = search_payload(mem, query, **({"types": list(types)} if types else {}))
    tea, common = query.split()
    expected = filtered_bm25(mem, f'"{tea}" OR "{common}"', types=types)
    got = [(c["id"], c["score"]) for c in payload["candidates"]["lexical"]]
    mem.close()
    assert payload["lexical_scored_by"] == "fts5", why
    assert payload["lexical_words_ignored"] == [common], why
    assert [i for i, _ in got] == [i for i, _ in expected], why
    assert all(abs(a - b) <= 1e-5 for (_, a), (_, b) in zip(got, expected, strict=True)), why


@pytest.mark.parametrize(("bobs", "scored_by"), [(5, "memory"), (0, "fts5")])
def test_fts5_scoring_runs_only_for_an_agent_that_reads_the_whole_store(
    tmp_path: Path, bobs: int, scored_by: str
) -> None:
    """FTS5's bm25() counts the whole table, so with lexical_scoring "fts5" it ranks only a
    search whose agent may read every record; any other is scored in memory over the
    readable scopes' statistics (the scores a store of Alice's records alone would give)."""
    alice = [note("tea note"), note("coffee note"), note("filler")]
    mem = open_store(tmp_path / "m.db", alice, [note("tea")] * bobs)
    payload = search_payload(mem, "tea note")
    mem.close()
    assert payload["lexical_scored_by"] == scored_by
    if scored_by == "memory":
        alone = open_store(tmp_path / "alone.db", alice, [], scoring="memory")
        expected = [c["score"] for c in search_payload(alone, "tea note")["candidates"]["lexical"]]
        alone.close()
        assert [c["score"] for c in payload["candidates"]["lexical"]] == expected


def test_too_few_matches_without_the_common_word_run_the_full_query(tmp_path: Path) -> None:
    """Only one record says "tea": without "running" the query would return one candidate
    where the full query fills all three, so the full query runs."""
    alice = [note("tea running")] + [note(f"coffee {i} running") for i in range(6)]
    mem = open_store(tmp_path / "m.db", alice, [])
    payload = search_payload(mem, "tea running")
    expected = filtered_bm25(mem, '"tea" OR "running"')
    got = [(c["id"], c["score"]) for c in payload["candidates"]["lexical"]]
    mem.close()
    assert payload["lexical_words_ignored"] == []
    assert got == expected
    assert len(got) == DEPTH


def test_a_word_becomes_common_when_the_store_changes(tmp_path: Path) -> None:
    """Word counts are cached for one records_version: a write that makes a word common is
    seen by the next search."""
    alice = [note(f"tea note {i}") for i in range(6)] + [note("tea running")]
    mem = open_store(tmp_path / "m.db", alice, [])
    before = search_payload(mem, "tea running")["lexical_words_ignored"]
    mem.import_records([note(f"running {i}") for i in range(10)], scope="user:alice", now=NOW)
    after = search_payload(mem, "tea running")["lexical_words_ignored"]
    mem.close()
    assert before == []
    assert after == ["running"]


class CountingReader:
    """A store reader for TermStats with counts the test sets, recording each read."""

    def __init__(self, rows: int, documents: dict[str, int]) -> None:
        self.epoch, self.version, self.rows, self.documents = "e1", 100, rows, documents
        self.reads: list[list[str]] = []

    def __call__(self, terms: Any) -> tuple[str, int, int, dict[str, int]]:
        self.reads.append(list(terms))
        docs = {t: self.documents.get(t, 0) for t in terms}
        return self.epoch, self.version, self.rows, docs


def test_cached_word_counts_decide_until_writes_could_cross_half() -> None:
    """A count read at one version still decides at a later one while the changes since
    (each moving a count and the row count by at most one) cannot cross the half-way line;
    a word near the line, or a new epoch, is read again."""
    reader = CountingReader(rows=1000, documents={"date": 900, "tea": 3, "even": 498})
    stats = TermStats(reader)
    assert stats.weightless(["date", "tea", "even"], epoch="e1", version=100) == {"date"}
    assert reader.reads == [["date", "even", "tea"]]
    # 50 changes later "date" (900 of 1000) and "tea" (3) cannot have crossed; "even" can.
    reader.version, reader.documents["even"] = 150, 520
    assert stats.weightless(["date", "tea", "even"], epoch="e1", version=150) == {"date", "even"}
    assert reader.reads[1:] == [["even"]]
    # A restore starts a new epoch: nothing cached is trusted.
    reader.epoch, reader.version, reader.documents["date"] = "e2", 10, 100
    assert stats.weightless(["date", "tea"], epoch="e2", version=10) == set()
    assert reader.reads[2:] == [["date", "tea"]]


def test_a_word_the_tokenizer_splits_is_never_weightless() -> None:
    """ "well_known" is one query word but two FTS5 terms, so FTS5 matches it as a phrase
    whose frequency the vocabulary does not give: it is never left out."""
    reader = CountingReader(rows=10, documents={"well": 9, "known": 9, "tea": 9})
    stats = TermStats(reader)
    assert stats.weightless(["well_known", "tea"], epoch="e1", version=100) == {"tea"}


def test_clearing_full_caches_keeps_every_word_of_the_query() -> None:
    """The caches are emptied when full, before the words of the current query are looked
    up, so a word cached a moment ago is stemmed and counted again instead of missing."""
    reader = CountingReader(rows=10, documents={"milk": 9, "corn": 1, "tea": 1})
    stats = TermStats(reader, cache_size=3)
    assert stats.weightless(["milk", "corn"], epoch="e1", version=100) == {"milk"}
    assert stats.weightless(["tea"], epoch="e1", version=100) == set()
    assert stats.weightless(["milk", "rice"], epoch="e1", version=100) == {"milk"}
    assert stats.weightless(["milk"], epoch="e1", version=100) == {"milk"}


def test_the_store_counts_words_as_fts5_holds_them_after_a_forget(tmp_path: Path) -> None:
    mem = open_store(tmp_path / "m.db", [note("tea runs"), note("tea"), note("milk")], [])
    ids = [r["id"] for r in mem.store.query("SELECT id FROM records ORDER BY rowid")]
    before = mem.store.term_documents(["tea", "run", "milk"])
    mem.forget(ids[0], now=NOW)
    after = mem.store.term_documents(["tea", "run", "milk"])
    mem.close()
    assert before[2:] == (3, {"tea": 2, "run": 1, "milk": 1})
    assert after[1] > before[1]  # the forget changed a record: the version moved
    assert after[2:] == (2, {"tea": 1, "run": 0, "milk": 1})


@pytest.mark.parametrize(
    ("scoring", "query", "scored_by"),
    [
        ("memory", "tea", "memory"),
        ("memory", "well_known tea", "memory"),  # a phrase to FTS5, scored in memory too
        ("fts5", "tea", "fts5"),
    ],
)
def test_the_log_says_which_bm25_ranked(
    tmp_path: Path, scoring: str, query: str, scored_by: str
) -> None:
    notes = [note("tea well known"), note("tea"), note("coffee")]
    mem = open_store(tmp_path / "m.db", notes, [], scoring=scoring)
    payload = search_payload(mem, query)
    expected = filtered_bm25(mem, fts_match(query_tokens(query)) or "")
    mem.close()
    assert payload["lexical_scored_by"] == scored_by
    assert [(c["id"], c["score"]) for c in payload["candidates"]["lexical"]] == expected


def test_in_memory_bm25_keeps_every_word_of_the_query(tmp_path: Path) -> None:
    """Computed in memory, BM25 scores every query word, the ones in half the store too, so
    the candidates are the full FTS5 query's exactly: same records, same scores (a store
    the agent reads whole: FTS5 counts every scope, the search only the readable ones)."""
    alice = TEA_NOTES + [note(f"coffee {i} running") for i in range(8)] + [note("tea runs")] * 4
    mem = open_store(tmp_path / "m.db", alice, [], scoring="memory")
    payload = search_payload(mem, "teas runs coffee")
    expected = filtered_bm25(mem, '"teas" OR "runs" OR "coffee"')
    mem.close()
    assert payload["lexical_words_ignored"] == []
    assert [(c["id"], c["score"]) for c in payload["candidates"]["lexical"]] == expected

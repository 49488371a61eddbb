"""core.search.bm25 computes FTS5's bm25() in memory: for any store and any query of words, the rows
it scores and their scores are FTS5's own, and they stay so while records are written,
revised, merged, forgotten and restored, by this process or another."""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.search.bm25 import BM25Index
from agent_memory.core.search.lexical import fts_match
from agent_memory.core.store.fulltext import _varint_sum
from tests.support.clock import NOW

WEIGHTS = (1.0, 0.5, 0.5, 0.3)
# Stems shared between forms ("runs", "running"), a word the tokenizer folds ("Café"), digits,
# a name, words that occur everywhere or nowhere, and words the tokenizer splits into several
# terms (a phrase to FTS5: "well_known", "e-mail", "node.js", "o'brien", "ça_va", "tea_tea"),
# beside their parts alone and in other orders.
VOCABULARY = [
    "tea", "teas", "running", "runs", "ran", "coffee", "Café", "cafe", "caroline", "2023",
    "photo", "photos", "x", "pottery", "melanie", "share", "shared", "the",
    "well", "known", "well_known", "e-mail", "mail", "node.js", "o'brien", "x2", "ça_va",
    "tea_tea",
]  # fmt: skip


def fts5_scores(mem: Memory, words: list[str], weights: tuple[float, ...] = WEIGHTS) -> dict:
    """The reference: every row FTS5 matches for the words' OR query, with -bm25()."""
    match = fts_match(words)
    rows = mem.store.query(
        "SELECT rowid, -bm25(records_fts, ?, ?, ?, ?) AS score FROM records_fts "
        "WHERE records_fts MATCH ?",
        [*weights, match],
    )
    return {r["rowid"]: r["score"] for r in rows}


def memory_scores(index: BM25Index, words: list[str]) -> dict:
    scored = index.scores(words)
    assert scored is not None
    rowids, scores = scored
    return dict(zip(rowids.tolist(), scores.tolist(), strict=True))


def assert_same(index: BM25Index, mem: Memory, queries: list[list[str]]) -> None:
    for words in queries:
        expected, got = fts5_scores(mem, words), memory_scores(index, words)
        assert got.keys() == expected.keys(), words
        for rowid, score in expected.items():
            assert got[rowid] == pytest.approx(score, rel=1e-12, abs=1e-12), (words, rowid)


def person(name: str) -> dict[str, str]:
    return {"kind": "person", "name": name}


def open_memory(path: Path) -> Memory:
    return Memory.open(path, Config(), embedder=HashingEmbedder(), now=NOW)


words = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12).map(" ".join)
record = st.fixed_dictionaries(
    {"content": words},
    optional={
        "context": words,
        "about": st.lists(
            st.fixed_dictionaries(
                {"kind": st.just("person"), "name": st.sampled_from(["Caroline", "Melanie Tea"])}
            ),
            max_size=2,
            unique_by=lambda a: a["name"],
        ),
    },
)
query = st.lists(
    st.sampled_from([*VOCABULARY, "absent", "running", "known_well", "teas_running", "_"]),
    min_size=1,
    max_size=5,
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(record, min_size=1, max_size=20),
    queries=st.lists(query, min_size=1, max_size=6),
    long_record=st.booleans(),
)
def test_scores_are_fts5s_for_any_store_and_query(
    records: list[dict[str, Any]], queries: list[list[str]], long_record: bool
) -> None:
    if long_record:  # a column of >127 tokens: its docsize count takes a two-byte varint
        records = [*records, {"content": " ".join(["tea", "x"] * 150), "context": "runs"}]
    with tempfile.TemporaryDirectory() as folder:
        mem = open_memory(Path(folder) / "m.db")
        mem.import_records(records, scope="user:alice", now=NOW)
        index = BM25Index(mem.store, weights=WEIGHTS)
        try:
            # Twice: the first reads each term's postings from FTS5, the second uses the cache.
            assert_same(index, mem, queries)
            assert_same(index, mem, queries)
        finally:
            index.close()
            mem.close()


def test_column_weights_are_fts5s(tmp_path: Path) -> None:
    mem = open_memory(tmp_path / "m.db")
    mem.import_records(
        [
            {"content": "tea tea", "context": "coffee tea"},
            {"content": "coffee", "context": "tea tea tea", "about": [person("Tea")]},
        ],
        scope="user:alice",
        now=NOW,
    )
    weights = (2.0, 0.25, 1.5, 0.7)
    index = BM25Index(mem.store, weights=weights)
    expected = fts5_scores(mem, ["tea", "coffee"], weights)
    got = memory_scores(index, ["tea", "coffee"])
    index.close()
    mem.close()
    assert got == pytest.approx(expected, rel=1e-12)


def test_a_word_the_tokenizer_splits_is_scored_as_fts5s_phrase(tmp_path: Path) -> None:
    """ "well_known" is two FTS5 terms, a phrase: it matches where they are adjacent in one
    column, each place counts (overlapping ones too: "tea_tea" twice in "tea tea tea"), and
    it is scored in memory like any word."""
    mem = open_memory(tmp_path / "m.db")
    mem.import_records(
        [
            {"content": "well known tea"},
            {"content": "known well", "context": "well"},  # the terms, not the phrase
            {"content": "well", "context": "known tea tea tea"},  # not across columns
            {"content": "tea tea tea well known well known"},
        ],
        scope="user:alice",
        now=NOW,
    )
    index = BM25Index(mem.store, weights=WEIGHTS)
    try:
        assert memory_scores(index, ["well_known"]).keys() == {1, 4}
        assert_same(index, mem, [["well_known", "tea"], ["tea_tea"], ["known_well", "well"]])
        assert memory_scores(index, ["tea", "_"]).keys() == {1, 3, 4}  # "_": no terms, no match
    finally:
        index.close()
        mem.close()


def test_the_index_follows_every_change_by_any_process(tmp_path: Path) -> None:
    """Postings cached before a change are patched with it: writes and forgets by another
    Memory on the same file, an entity merge that rewrites alias text, a correction, and a
    restore (a new epoch) that replaces everything."""
    path = tmp_path / "m.db"
    mem, other = open_memory(path), open_memory(path)
    mem.grant("assistant", "user:alice", now=NOW)
    first = mem.import_records(
        [
            {"content": "Caroline shared a photo of tea", "about": [person("Caroline")]},
            {"content": "Melanie runs pottery classes", "about": [person("Mel")]},
            {"content": "coffee and tea in 2023", "context": "photo"},
            {"content": "a well-known photo", "context": "well known tea"},
            # Caroline outlives the forget below (an entity only a forgotten record used goes)
            {"content": "Caroline visited in May", "about": [person("Caroline")]},
        ],
        scope="user:alice",
        now=NOW,
    )
    snapshot = mem.snapshot(tmp_path / "before.db")
    index = BM25Index(mem.store, weights=WEIGHTS)
    queries = [
        ["tea", "photo"],
        ["caroline", "pottery"],
        ["mel", "melanie", "running"],
        ["well_known", "known_photo", "tea"],  # phrases: read again after every change
    ]
    assert_same(index, mem, queries)  # every term cached now

    other.import_records(
        [{"content": f"tea {i} photo well known"} for i in range(5)], scope="user:alice", now=NOW
    )
    assert_same(index, mem, queries)
    other.forget(first[0], now=NOW)
    assert_same(index, mem, queries)

    session = mem.session(agent_id="assistant", user_id="alice", session_id="s", now=NOW)
    entities = {
        r["name"]: r["id"]
        for r in mem.store.query(
            "SELECT e.id AS id, a.alias AS name FROM entities AS e "
            "JOIN entity_aliases AS a ON a.entity_id = e.id"
        )
    }
    merged = session.call(
        "memory_revise",
        {"id": entities["Mel"], "action": "merge_entities", "into_entity": entities["Caroline"]},
        now=NOW,
    )
    assert "error" not in merged, merged
    assert_same(index, mem, queries)

    # A correction: a new version, the old one superseded (its text stays searchable history).
    session.add_turn("user", "Actually I drink coffee, not tea.", at=NOW)
    old = session.call(
        "memory_write",
        {"type": "semantic", "content": "The user drinks tea daily.",
         "source_kind": "agent_inference", "attribute": "drink"},
        now=NOW,
    )  # fmt: skip
    fixed = session.call(
        "memory_revise",
        {"id": old["id"], "action": "correct", "content": "The user drinks coffee daily.",
         "source_kind": "user_statement", "evidence": "I drink coffee"},
        now=NOW,
    )  # fmt: skip
    assert fixed.get("supersedes_id") == old["id"], fixed
    assert_same(index, mem, [*queries, ["drinks", "coffee", "tea"]])

    other.restore(snapshot, now=NOW)
    assert_same(index, mem, queries)
    assert index.epoch == mem.store.index_version()[0]
    index.close()
    mem.close()
    other.close()


def test_the_postings_cache_keeps_to_its_cap_and_stays_exact(tmp_path: Path) -> None:
    mem = open_memory(tmp_path / "m.db")
    mem.import_records(
        [{"content": f"tea coffee photo {i}"} for i in range(10)], scope="user:alice", now=NOW
    )
    index = BM25Index(mem.store, weights=WEIGHTS, postings_kept=15)
    queries = [["tea"], ["coffee"], ["photo"], ["tea", "photo"]]
    assert_same(index, mem, queries)
    assert_same(index, mem, queries)
    held = index.held
    index.close()
    mem.close()
    assert held <= 20  # one 10-row term over the cap may stay while its query runs


def test_a_large_delta_rebuilds(tmp_path: Path) -> None:
    """Past ``delta_at_most`` changed rows the index starts afresh rather than tokenizing them
    one by one, and is as exact."""
    mem = open_memory(tmp_path / "m.db")
    mem.import_records([{"content": "tea"}], scope="user:alice", now=NOW)
    index = BM25Index(mem.store, weights=WEIGHTS, delta_at_most=3)
    assert_same(index, mem, [["tea"]])
    mem.import_records([{"content": f"tea {i}"} for i in range(2)], scope="user:alice", now=NOW)
    index.sync()
    assert index.held == 1  # still cached; the two new rows are patched in when next used
    assert_same(index, mem, [["tea"]])
    assert index.held == 3
    mem.import_records(
        [{"content": f"tea again {i}"} for i in range(5)], scope="user:alice", now=NOW
    )
    index.sync()
    assert index.held == 0  # rebuilt: the cached postings went with it
    assert_same(index, mem, [["tea"], ["tea", "3"]])
    index.close()
    mem.close()


def test_the_change_log_keeps_what_cached_terms_need(tmp_path: Path) -> None:
    """Past ``delta_at_most`` logged rows the log first sheds what every cached term has
    applied; a term still needing older changes than it keeps is dropped (read again when
    next used), never patched from a partial log."""
    mem = open_memory(tmp_path / "m.db")
    mem.import_records([{"content": "tea coffee"}], scope="user:alice", now=NOW)
    index = BM25Index(mem.store, weights=WEIGHTS, delta_at_most=3)
    assert_same(index, mem, [["tea"], ["coffee"]])  # both cached
    for i in range(3):  # one row at a time; "tea" is patched after each, "coffee" never
        mem.import_records([{"content": f"tea coffee {i}"}], scope="user:alice", now=NOW)
        assert_same(index, mem, [["tea"]])
    assert index.held == 5  # tea in 4 rows, coffee (stale) in 1: the log holds 3 rows
    mem.import_records([{"content": "tea coffee 3"}], scope="user:alice", now=NOW)
    index.sync()  # 4 rows logged: coffee would need all of them, so it goes
    assert index.held == 4
    assert_same(index, mem, [["tea"], ["coffee"], ["tea", "coffee"]])
    index.close()
    mem.close()


class WriteBeforeReading:
    """The store, but another Memory writes just before the index reads postings, so the
    postings come from a newer version than the index has synced to."""

    def __init__(self, mem: Memory, other: Memory) -> None:
        self.mem, self.other, self.writes = mem, other, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.mem.store, name)

    def postings(self, terms: Any, **options: Any) -> Any:
        self.writes += 1
        self.other.import_records(
            [{"content": f"tea {self.writes} photo tea"}], scope="user:alice", now=NOW
        )
        ids = [
            r["id"] for r in self.mem.store.query("SELECT id FROM records WHERE content = 'tea'")
        ]
        if ids:
            self.other.forget(ids[0], now=NOW)  # a row holding the term goes, too
        return self.mem.store.postings(terms, **options)


def test_postings_read_at_a_newer_version_are_brought_level(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, other = open_memory(path), open_memory(path)
    mem.import_records([{"content": "tea"}, {"content": "photo tea"}], scope="user:alice", now=NOW)
    store = WriteBeforeReading(mem, other)
    index = BM25Index(store, weights=WEIGHTS)  # type: ignore[arg-type]
    index.sync()
    got = memory_scores(index, ["tea", "photo"])  # reading the postings writes first
    assert store.writes == 1
    assert got == pytest.approx(fts5_scores(mem, ["tea", "photo"]), rel=1e-12)
    assert_same(index, mem, [["tea", "photo"]])  # cached now: no more writes
    assert store.writes == 1
    assert index.version == mem.store.index_version()[1]
    index.close()
    mem.close()
    other.close()


def test_a_phrase_read_at_a_newer_version_is_read_until_current(tmp_path: Path) -> None:
    """A phrase's postings are not patched: read at a newer version than the index's, or
    older than a later write, they are read again, so they always match the row lengths."""
    path = tmp_path / "m.db"
    mem, other = open_memory(path), open_memory(path)
    mem.import_records([{"content": "tea"}, {"content": "photo tea"}], scope="user:alice", now=NOW)
    store = WriteBeforeReading(mem, other)
    index = BM25Index(store, weights=WEIGHTS)  # type: ignore[arg-type]
    index.sync()

    def same_after_reading(words: list[str]) -> None:  # the reads write: FTS5 is asked last
        got = memory_scores(index, words)
        assert got == pytest.approx(fts5_scores(mem, words), rel=1e-12)

    same_after_reading(["photo_tea", "tea"])
    assert store.writes == 2  # the term "tea", then the phrase, each read once
    same_after_reading(["photo_tea"])  # current: not read again
    assert store.writes == 2
    other.import_records([{"content": "photo tea photo tea"}], scope="user:alice", now=NOW)
    same_after_reading(["photo_tea", "tea"])
    assert store.writes == 3  # the phrase again; the term was patched
    index.close()
    mem.close()
    other.close()


def test_rowids_beyond_the_first_arrays(tmp_path: Path) -> None:
    """The per-row arrays grow when a synced change names a rowid past their end."""
    mem = open_memory(tmp_path / "m.db")
    mem.import_records([{"content": "tea"}], scope="user:alice", now=NOW)
    index = BM25Index(mem.store, weights=WEIGHTS, delta_at_most=5_000)
    assert_same(index, mem, [["tea"]])
    mem.import_records(
        [{"content": f"tea {i}" if i % 7 else "coffee"} for i in range(2_100)],
        scope="user:alice",
        now=NOW,
    )
    assert_same(index, mem, [["tea"], ["coffee", "1999"]])
    index.close()
    mem.close()


def test_searches_in_threads_while_another_process_writes(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    mem, other = open_memory(path), open_memory(path)
    mem.import_records([{"content": f"tea {i}"} for i in range(20)], scope="user:alice", now=NOW)
    index = BM25Index(mem.store, weights=WEIGHTS)
    errors: list[BaseException] = []
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            try:
                assert index.scores(["tea", "photo", f"{len(errors)}"]) is not None
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)
                return

    threads = [threading.Thread(target=search) for _ in range(3)]
    for thread in threads:
        thread.start()
    for i in range(30):
        other.import_records([{"content": f"tea photo {i}"}], scope="user:alice", now=NOW)
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
    assert_same(index, mem, [["tea", "photo"], ["29"]])
    index.close()
    mem.close()
    other.close()


@pytest.mark.parametrize(
    ("blob", "total"),
    [
        (bytes([12, 0, 1, 3]), 16),
        (bytes([0x81, 0x00, 5]), 128 + 5),  # two bytes: 1 << 7 | 0
        (bytes([0x81, 0x80, 0x00]), 1 << 14),  # three bytes
        (bytes([0x81] + [0x80] * 7 + [0x01]), (1 << 57) + 1),  # nine bytes: the last has 8 bits
    ],
)
def test_docsize_varints(blob: bytes, total: int) -> None:
    assert _varint_sum(blob) == total

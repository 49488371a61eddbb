"""Nothing of a forgotten record's text survives (issue 16, item 3): a long random marker is in
no byte of the store file or its WAL after forget, after the session's extraction, after a
concurrent reader held a snapshot (the purge then stays pending until the worker's sweep), and
after the store is reopened; side tables keep ids, not words."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.stores import granted_memory
from tests.workers.test_pipeline import CONFIG, Scripted, attach, candidate, records_of

MARKER = "qx" + secrets.token_hex(16)  # no tokenizer splits it; nothing else contains it
CONTENT = f"The user's locker code word is {MARKER}."
EVIDENCE = f"locker code word is {MARKER}"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db", CONFIG) as memory:
        yield memory


def holding(path: Path) -> list[str]:
    """The store's files (main, -wal, -shm) that contain the marker anywhere."""
    return [
        f.name
        for f in path.parent.iterdir()
        if f.name.startswith(path.name) and MARKER.encode() in f.read_bytes()
    ]


def said(mem: Memory) -> Session:
    """A session in which the user gave the marker, the agent wrote it, searched for it (the
    search log keeps query and explanation) and an extraction ran over an earlier session."""
    s = mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    s.add_turn("user", f"My locker code word is {MARKER} and nobody knows it.", at=NOW)
    s.add_turn("user", "I like hiking in the Alps.", at=NOW + timedelta(seconds=1))
    return s


def write_marker(s: Session) -> str:
    written = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": CONTENT,
            "source_kind": "user_statement",
            "evidence": EVIDENCE,
            "about": [{"kind": "other", "name": f"Locker {MARKER}"}],
        },
        now=NOW,
    )
    found = s.call("memory_search", {"query": f"locker code word {MARKER}"}, now=NOW)
    assert written["id"] in [r["id"] for r in found["results"]]
    return str(written["id"])


def test_the_marker_is_in_no_byte_after_forget_extraction_and_reopening(mem: Memory) -> None:
    """An earlier session's extraction had stored it too (its job stages and summary quote
    it): forget erases the record, names the earlier one as similar (the caller forgets it as
    well), erases the summary that quoted it, and the session's own extraction adds nothing."""
    backend = Scripted(
        candidates=[candidate(CONTENT, EVIDENCE)],
        summary=f"They talked. Remembered: {CONTENT}",
    )
    attach(mem, backend)
    earlier = mem.session(agent_id="assistant", user_id="alice", session_id="s0", now=NOW)
    earlier.add_turn("user", f"Remember: my locker code word is {MARKER}.", at=NOW)
    earlier.end(now=NOW + timedelta(minutes=1))
    assert holding(mem.path)  # the marker is stored in many places
    [summary] = [r for r in records_of(mem, "s0") if "session-summary" in r.tags]
    s = said(mem)
    record_id = write_marker(s)
    forgot = s.call("memory_forget", {"id": record_id, "reason": "user asked"}, now=NOW)
    assert forgot["status"] == "deleted" and "purge_pending" not in forgot
    assert forgot["erased"] == [record_id, summary.id]
    for similar in forgot["similar"]:
        s.call("memory_forget", {"id": similar}, now=NOW)
    assert holding(mem.path) == []
    s.end(now=NOW + timedelta(minutes=5))
    assert holding(mem.path) == []
    path = mem.path
    mem.close()
    with Memory.open(path, CONFIG, embedder=HashingEmbedder(), now=NOW) as reopened:
        assert reopened.stats()["records"] is not None
    assert holding(path) == []


def test_a_readers_snapshot_leaves_the_purge_pending_until_the_sweep(mem: Memory) -> None:
    """While another connection holds a read snapshot the WAL cannot be checkpointed: forget
    says so (purge_pending), the mark survives a reopen, and the sweep finishes the purge."""
    app = attach(mem)
    s = said(mem)
    record_id = write_marker(s)
    reader = sqlite3.connect(mem.path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM records").fetchone()  # the snapshot is held
    try:
        forgot = s.call("memory_forget", {"id": record_id}, now=NOW)
        assert forgot["status"] == "deleted" and forgot["purge_pending"] is True
        assert mem.store.purge_pending
        report = app.sweep(now=NOW)
        assert report is not None and report["purge_finished"] is False
    finally:
        reader.rollback()
        reader.close()
    report = app.sweep(now=NOW)
    assert report is not None and report["purge_finished"] is True
    assert not mem.store.purge_pending and holding(mem.path) == []
    again = s.call("memory_forget", {"id": record_id}, now=NOW)
    assert again == {"id": record_id, "status": "deleted", "erased": []}


def rows_with(mem: Memory, table: str) -> list[dict[str, Any]]:
    return [dict(r) for r in mem.store.query(f"SELECT * FROM {table}")]


def test_side_tables_keep_ids_and_decisions_not_words(mem: Memory) -> None:
    """The search log keeps the search (its id, result ids, timings); the entity the record
    alone named is gone; the event holds no words."""
    s = said(mem)
    record_id = write_marker(s)
    [logged] = rows_with(mem, "search_log")
    [named] = [e for e in rows_with(mem, "entities") if MARKER in e["canonical_name"]]
    s.call("memory_forget", {"id": record_id}, now=NOW)
    [kept] = rows_with(mem, "search_log")
    assert kept["id"] == logged["id"] and kept["result_ids"] == logged["result_ids"]
    assert kept["query"] == "[forgotten]"
    assert named["id"] not in [e["id"] for e in rows_with(mem, "entities")]
    assert [a for a in rows_with(mem, "entity_aliases") if MARKER.lower() in a["alias_norm"]] == []
    [traced] = mem.store.query("SELECT payload FROM events WHERE kind = 'record.traces_erased'")
    assert MARKER not in traced["payload"]

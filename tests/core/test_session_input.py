"""Sessions refuse what would change an ended session, store nothing for a deferred session
whose call fails, and keep their structured errors short."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.errors import InvalidArgument, PermissionDenied
from agent_memory.core.session import MAX_ECHO, Session
from tests.support.clock import NOW


def _rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in ("sessions", "turns", "events", "records", "jobs")
        }


def test_reopening_an_ended_session_never_changes_its_write_targets(
    fast_memory: Memory, store_path: Path
) -> None:
    """Opened again without targets, an ended session keeps its stored ones; other targets
    are an InvalidArgument, and the stored row is unchanged."""
    targets = {"personal": "user:u1", "team": "project:apollo"}
    for scope in targets.values():
        fast_memory.grant("a", scope, now=NOW)
    session = fast_memory.session(
        agent_id="a", user_id="u1", session_id="s1", write_targets=targets, now=NOW
    )
    session.add_turn("user", "hello", at=NOW)
    session.end(now=NOW)
    before = _rows(store_path)

    again = fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    assert again.write_targets == targets
    with pytest.raises(InvalidArgument, match="write targets cannot change") as info:
        fast_memory.session(
            agent_id="a",
            user_id="u1",
            session_id="s1",
            write_targets={"personal": "project:evil"},
            now=NOW,
        )
    assert info.value.field == "write_targets"
    assert _rows(store_path) == before


def test_an_open_session_still_takes_new_write_targets(fast_memory: Memory) -> None:
    """Resuming a session that has not ended keeps its targets current, as before."""
    fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    fast_memory.session(
        agent_id="a", user_id="u1", session_id="s1", write_targets={"p": "user:u1"}, now=NOW
    )
    stored = fast_memory.store.query("SELECT write_targets FROM sessions")[0][0]
    assert stored == '{"p": "user:u1"}'


def test_a_deferred_session_stores_nothing_until_a_call_succeeds(
    fast_memory: Memory, store_path: Path
) -> None:
    """A refused call on a deferred session leaves the store as it was; a successful one
    stores the session and its turns with the call's own writes."""
    fast_memory.grant("a", "user:u1")
    before = _rows(store_path)
    session = Session(
        fast_memory.engine, agent_id="a", user_id="u1", session_id="s1", deferred=True
    )
    assert session.add_turn("user", "I like green tea.", at=NOW) == 1
    assert [t.content for t in session.transcript()] == ["I like green tea."]
    refused = session.call(
        "memory_write",
        {"type": "semantic", "content": "", "source_kind": "user_statement"},
        now=NOW,
    )
    assert refused["error"]["field"] == "content"
    refused = session.call("memory_forget", {"id": "mem_missing"}, now=NOW)
    assert refused["error"]["code"] == "not_found"
    assert _rows(store_path) == before

    written = session.call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user likes green tea.",
            "source_kind": "user_statement",
            "evidence": "I like green tea",
        },
        now=NOW,
    )
    assert written["status"] == "confirmed"  # the pending turn was the evidence
    after = _rows(store_path)
    assert [row[0] for row in after["sessions"]] == ["s1"]
    assert [(row[1], row[3]) for row in after["turns"]] == [(1, "I like green tea.")]
    assert len(after["records"]) == 1
    assert session.add_turn("assistant", "Noted.", at=NOW) == 2  # an ordinary session now


def test_a_deferred_session_checks_the_stored_one_without_writing(
    fast_memory: Memory, store_path: Path
) -> None:
    """Opening a deferred session checks its principal and ended state, and reads its stored
    transcript; ``last`` counts the pending turns."""
    fast_memory.grant("a", "user:u1", now=NOW)
    stored = fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    stored.add_turn("user", "one", at=NOW)
    before = _rows(store_path)
    session = Session(
        fast_memory.engine, agent_id="a", user_id="u1", session_id="s1", deferred=True
    )
    assert session.add_turn("user", "two", at=NOW) == 2
    assert [(t.seq, t.content) for t in session.transcript()] == [(1, "one"), (2, "two")]
    assert [t.content for t in session.transcript(last=1)] == ["two"]
    assert session.transcript(last=0) == []
    assert _rows(store_path) == before
    stored.end(now=NOW)
    with pytest.raises(InvalidArgument, match="transcript is closed"):
        session.add_turn("user", "three", at=NOW)


def test_a_long_unknown_argument_name_is_cut(fast_memory: Memory) -> None:
    """A 100 KB argument name comes back cut to MAX_ECHO characters, in message and field."""
    session = fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    error = session.call("memory_search", {"query": "tea", "k" * 100_000: 1}, now=NOW)["error"]
    assert error["code"] == "invalid_argument"
    assert len(error["field"]) == MAX_ECHO and error["field"].endswith("\u2026")
    assert len(error["message"]) < 2 * MAX_ECHO
    error = session.call("x" * 100_000, {}, now=NOW)["error"]
    assert error["code"] == "unknown_tool" and len(error["message"]) < 4 * MAX_ECHO


def test_search_refuses_an_empty_list_of_types(fast_memory: Memory) -> None:
    """types: [] is an error, not "every type"."""
    fast_memory.grant("a", "user:u1")
    session = fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    error = session.call("memory_search", {"query": "tea", "types": []}, now=NOW)["error"]
    assert error["code"] == "invalid_argument" and error["field"] == "types"
    ok = session.call("memory_search", {"query": "tea", "types": ["semantic"]}, now=NOW)
    assert "error" not in ok


def test_ending_a_session_with_a_target_the_agent_cannot_write_is_refused(
    fast_memory: Memory,
) -> None:
    """end() refuses, with a structured error naming the target, while a write target has
    no write grant: no job, the session still open; once granted, end() goes through."""
    session = fast_memory.session(
        agent_id="a",
        user_id="u1",
        session_id="s1",
        write_targets={"personal": "user:u1", "team": "project:apollo"},
        now=NOW,
    )
    session.add_turn("user", "We picked SQLite for the store.", at=NOW)
    fast_memory.grant("a", "user:u1", now=NOW)
    fast_memory.grant("a", "project:apollo", access="read", now=NOW)
    with pytest.raises(PermissionDenied, match=r"team \(project:apollo\)") as info:
        session.end(now=NOW)
    assert info.value.as_tool_error()["error"]["field"] == "write_targets"
    assert fast_memory.jobs.list() == [] and not session.ended
    session.add_turn("user", "And Huey for the queue.", at=NOW)  # still open
    fast_memory.grant("a", "project:apollo", access="write", now=NOW)
    job_id = session.end(now=NOW)
    assert fast_memory.jobs.status(job_id)["status"] == "queued"


def test_a_deeply_nested_tool_name_is_an_unknown_tool(fast_memory: Memory) -> None:
    """A tool name that is a list nested 5,000 deep is refused by its type: its repr raised
    RecursionError out of Session.call."""
    session = fast_memory.session(agent_id="a", user_id="u1", session_id="s1", now=NOW)
    nested: list[Any] = []
    for _ in range(5_000):
        nested = [nested]
    error = session.call(nested, {}, now=NOW)["error"]  # type: ignore[arg-type]
    assert error["code"] == "unknown_tool" and "(a list)" in error["message"]

"""Retention (issue 16, item 5): with retention.*_days set, the worker's sweep deletes older
search and write log rows and the transcripts of finished sessions; by default it keeps all."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from agent_memory.core import Config, HashingEmbedder, Memory, retention
from agent_memory.core.config import MAX_RETENTION_DAYS
from tests.support.clock import NOW
from tests.workers.test_pipeline import attach

KEEP_A_WEEK = Config(
    worker={"retry_delay_seconds": 0},
    retention={"search_log_days": 7, "write_log_days": 7, "transcript_days": 7},
)


def fill(mem: Memory) -> None:
    """Two finished sessions with a write and a search each: one now, one two weeks ago."""
    mem.grant("assistant", "user:alice", now=NOW)
    for session_id, at in (("old", NOW - timedelta(days=14)), ("new", NOW)):
        s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=at)
        s.add_turn("user", f"I like the colour of session {session_id}.", at=at)
        s.call(
            "memory_write",
            {"type": "semantic", "content": f"Session {session_id}.", "source_kind": "system"},
            now=at,
        )
        s.call("memory_search", {"query": "colour"}, now=at)
        s.end(now=at)


def counts(mem: Memory) -> dict[str, int]:
    return {
        table: mem.store.query(f"SELECT count(*) AS n FROM {table}")[0]["n"]
        for table in ("search_log", "write_log", "turns")
    }


def test_the_sweep_deletes_what_is_past_its_retention(tmp_path: Path) -> None:
    with Memory.open(tmp_path / "m.db", KEEP_A_WEEK, embedder=HashingEmbedder(), now=NOW) as mem:
        app = attach(mem, config=KEEP_A_WEEK)
        fill(mem)
        before = counts(mem)
        report = app.sweep(now=NOW)
        assert report is not None
        # the old session's memory_write row; its extraction ran (and logged) today
        assert report["retention_deleted"] == {"search_log": 1, "write_log": 1, "turns": 1}
        after = counts(mem)
        assert after["turns"] == 1 and after["search_log"] == before["search_log"] - 1
        turns = mem.store.query("SELECT session_id FROM turns")
        assert [t["session_id"] for t in turns] == ["new"]
        assert "retention_deleted" not in (app.sweep(now=NOW) or {})


def test_by_default_nothing_is_deleted(tmp_path: Path) -> None:
    config = Config(worker={"retry_delay_seconds": 0})
    with Memory.open(tmp_path / "m.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        app = attach(mem, config=config)
        fill(mem)
        before = counts(mem)
        report = app.sweep(now=NOW + timedelta(days=3650))
        assert report is not None and "retention_deleted" not in report
        assert counts(mem) == before


def test_a_transcript_waiting_for_its_job_is_kept(tmp_path: Path) -> None:
    """No worker ran: the old session's job is queued, so its transcript stays."""
    with Memory.open(tmp_path / "m.db", KEEP_A_WEEK, embedder=HashingEmbedder(), now=NOW) as mem:
        fill(mem)
        deleted = retention.apply(mem.store, mem.config.retention, now=NOW)
        assert "turns" not in deleted and counts(mem)["turns"] == 2


def test_the_longest_retention_allowed_sweeps_without_deleting(tmp_path: Path) -> None:
    """The largest value the settings accept is a cut-off the sweep can compute."""
    days = MAX_RETENTION_DAYS
    config = Config(
        worker={"retry_delay_seconds": 0},
        retention={"search_log_days": days, "write_log_days": days, "transcript_days": days},
    )
    with Memory.open(tmp_path / "m.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        app = attach(mem, config=config)
        fill(mem)
        before = counts(mem)
        report = app.sweep(now=NOW)
        assert report is not None and "retention_deleted" not in report
        assert counts(mem) == before


def test_the_transcript_of_a_session_closed_without_extraction_expires_too(
    tmp_path: Path,
) -> None:
    """A one-off session (an `agent-memory write --said` command's) is closed without a job:
    nothing will ever read its turns, so they follow transcript_days like any other."""
    with Memory.open(tmp_path / "m.db", KEEP_A_WEEK, embedder=HashingEmbedder(), now=NOW) as mem:
        app = attach(mem, config=KEEP_A_WEEK)
        mem.grant("assistant", "user:alice", now=NOW)
        old = NOW - timedelta(days=14)
        s = mem.session(agent_id="assistant", user_id="alice", session_id="cli-1", now=old)
        s.add_turn("user", "My locker code is 4711.", at=old)
        s.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user's locker code is 4711.",
                "source_kind": "user_statement",
                "evidence": "My locker code is 4711",
            },
            now=old,
        )
        s.close_unused(now=old)
        assert mem.store.query("SELECT count(*) AS n FROM jobs")[0]["n"] == 0
        report = app.sweep(now=NOW)
        assert report is not None and report["retention_deleted"]["turns"] == 1
        assert mem.store.query("SELECT count(*) AS n FROM turns")[0]["n"] == 0

"""Sessions that never end are still extracted; one-off CLI sessions leave nothing open."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from agent_memory.api.cli import main
from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.models import utcnow
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW

CONFIG = Config(worker={"session_idle_seconds": 3600})


def test_the_sweep_ends_an_idle_session_and_extracts_it(tmp_path: Path) -> None:
    """A session with turns and no activity for worker.session_idle_seconds is ended by the
    sweep (reason idle) and extracted; a recent one, an empty one and one whose target has no
    grant stay open (the last logged); mem.sessions(open=True) lists what is open."""
    with Memory.open(tmp_path / "m.db", CONFIG, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("assistant", "user:alice", now=NOW)
        app = WorkerApp(mem.path, CONFIG, immediate=True, backend=OfflineBackend())
        app.attach(mem)
        for session_id in ("forgotten", "ungranted"):
            targets = {"personal": "user:alice"}
            if session_id == "ungranted":
                targets["team"] = "project:apollo"
            s = mem.session(
                agent_id="assistant",
                user_id="alice",
                session_id=session_id,
                write_targets=targets,
                now=NOW,
            )
            s.add_turn("user", "I'm vegetarian. My favourite colour is blue.", at=NOW)
        mem.session(agent_id="assistant", user_id="alice", session_id="empty", now=NOW)
        assert [s["session_id"] for s in mem.sessions(open=True)] == [
            "ungranted",
            "forgotten",
            "empty",
        ]
        assert app.sweep(now=utcnow() + timedelta(minutes=30))["idle_ended"] == []
        report = app.sweep(now=utcnow() + timedelta(hours=2))
        [job_id] = report["idle_ended"]
        status = mem.jobs.status(job_id)
        [ended] = mem.sessions(open=False)
        events = mem.store.query("SELECT payload FROM events WHERE kind = 'session.ended'")
        still_open = sorted(s["session_id"] for s in mem.sessions(open=True))
    assert status["status"] == "done" and status["session_id"] == "forgotten"
    assert status["records"]
    assert (ended["session_id"], ended["end_reason"], ended["job_id"]) == (
        "forgotten",
        "idle",
        job_id,
    )
    assert json.loads(events[0]["payload"])["reason"] == "idle"
    assert still_open == ["empty", "ungranted"]


def test_sessions_open_on_the_command_line_and_one_off_commands_leave_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`agent-memory search` and `write` without --session leave no open session behind
    (write --said keeps its turn, the record's evidence, in a closed session);
    `sessions --open` lists the sessions a host left open."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    store = str(tmp_path / "m.db")
    who = ["--agent", "assistant", "--user", "alice", "--store", store]
    assert main(["grant", "assistant", "user:alice", "--store", store]) == 0
    assert main(["search", "tea", *who]) == 0
    said = "I drink green tea every morning."
    write = ["write", "--type", "semantic", "--content", "The user drinks green tea."]
    write += ["--source-kind", "user_statement", "--said", said, "--evidence", said, *who]
    assert main(write) == 0
    capsys.readouterr()
    assert main(["sessions", "--open", "--store", store]) == 0
    assert capsys.readouterr().out.strip() == "no open sessions"
    with Memory.open(store, embedder=HashingEmbedder()) as mem:
        mem.session(agent_id="assistant", user_id="alice", session_id="chat-7").add_turn(
            "user", "hello"
        )
        closed = mem.sessions(open=False)
    assert [(s["end_reason"], s["turns"], s["job_id"]) for s in closed] == [("cli", 1, None)]
    assert main(["sessions", "--open", "--store", store, "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert (listed["session_id"], listed["turns"], listed["ended_at"]) == ("chat-7", 1, None)

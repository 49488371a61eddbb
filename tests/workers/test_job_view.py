"""`agent-memory jobs` tells the truth about a worker that died inside a stage."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from agent_memory.api.cli import main
from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.extraction import Pipeline
from agent_memory.core.extraction.offline import OfflineBackend
from tests.support.clock import NOW

CONFIG = Config(worker={"lease_seconds": 60})


class Killed:
    """Hooks that stop the worker dead after the validate stage's first write: a SystemExit
    is no failure the stage could report, so its claim stays, as after a SIGKILL."""

    def at(self, stage: str, point: str) -> None:
        if (stage, point) == ("validate", "written"):
            raise SystemExit("killed")


def test_a_lapsed_lease_shows_as_expired_with_the_records_already_committed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store, CONFIG, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("assistant", "user:alice", now=NOW)
        s = mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        s.add_turn("user", "I'm vegetarian. My favourite colour is blue.", at=NOW)
        job_id = s.end(now=NOW)
        plain = Pipeline(mem.engine, OfflineBackend(), worker="host/1/w", clock=lambda: NOW)
        assert plain.run(job_id, "extract").ran and plain.run(job_id, "review").ran
        doomed = Pipeline(
            mem.engine, OfflineBackend(), worker="host/2/w", hooks=Killed(), clock=lambda: NOW
        )
        with pytest.raises(SystemExit):
            doomed.run(job_id, "validate")
        alive = mem.jobs.status(job_id, now=NOW + timedelta(seconds=30))
        lapsed = mem.jobs.status(job_id, now=NOW + timedelta(seconds=61))
        [listed] = mem.jobs.list(now=NOW + timedelta(seconds=61))
    assert not alive["lease_expired"] and alive["status"] == "running"
    assert lapsed["lease_expired"] and lapsed["stages"][2]["lease_expired"]
    assert listed["lease_expired"]
    assert len(lapsed["records"]) == 1  # the write committed before the worker died
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    assert main(["jobs", "--store", str(store)]) == 0
    listing = capsys.readouterr().out
    assert "lease expired, will be reclaimed" in listing
    assert main(["jobs", job_id, "--store", str(store)]) == 0
    shown = capsys.readouterr().out
    assert "lease expired, will be reclaimed" in shown and "host/2/w (gone?)" in shown
    assert f"records   1 committed: {lapsed['records'][0]}" in shown
    assert main(["jobs", job_id, "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lease_expired"] is True

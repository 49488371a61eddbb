"""Failed jobs started again (mem.jobs.retry, `agent-memory jobs retry`) and the back-off
between attempts, through the worker app in Huey's immediate mode and through the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.extraction import ExtractionOutput
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import SessionView
from agent_memory.core.models import parse_time, utcnow
from agent_memory.workers.app import WorkerApp
from tests.support.cli import run
from tests.support.clock import NOW
from tests.support.stores import granted_memory


class Outage(OfflineBackend):
    """The offline backend behind a provider that is down until ``up`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.up = False
        self.calls = 0

    def extract(self, session: SessionView) -> ExtractionOutput:
        self.calls += 1
        if not self.up:
            raise ConnectionError("the model provider is overloaded (529)")
        return super().extract(session)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    config = Config(worker={"retry_delay_seconds": 0, "max_attempts": 2})
    with granted_memory(tmp_path / "m.db", config) as memory:
        yield memory


def ended(mem: Memory, session_id: str = "s1") -> str:
    s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=NOW)
    s.add_turn("user", "I'm vegetarian. My favourite colour is blue.", at=NOW)
    return s.end(now=NOW)


def test_a_job_failed_during_an_outage_is_retried_to_the_end(mem: Memory) -> None:
    """The job spends its attempts while the provider is down; once it is back, retry runs
    it from the failed stage to done, and the history tells the whole story."""
    backend = Outage()
    WorkerApp(mem.path, mem.config, immediate=True, backend=backend).attach(mem)
    job_id = ended(mem)
    assert mem.jobs.status(job_id)["status"] == "failed" and backend.calls == 2
    backend.up = True
    assert mem.jobs.retry(job_id) == [job_id]
    status = mem.jobs.status(job_id)
    assert status["status"] == "done" and status["records"]
    assert [h["event"] for h in status["history"]] == [
        "created",
        "attempt_failed",
        "attempt_failed",
        "failed",
        "retried",
        "done",
    ]
    assert "529" in status["history"][1]["error"]


def test_the_worker_waits_the_back_off_before_the_next_attempt(tmp_path: Path) -> None:
    """A failed stage is not sent again at once: Huey holds it until the back-off the store
    chose (the retry time in the job's history), jittered below the configured delay."""
    config = Config(worker={"retry_delay_seconds": 30, "retry_jitter": 0.25})
    with Memory.open(tmp_path / "m.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("assistant", "user:alice", now=NOW)
        backend = Outage()
        app = WorkerApp(mem.path, config, immediate=True, backend=backend)
        app.attach(mem)
        job_id = ended(mem)
        [parked] = app.huey.scheduled()
        [failed] = [h for h in mem.jobs.status(job_id)["history"] if h.get("retry_at")]
    wait = (parked.eta - utcnow().replace(tzinfo=None)).total_seconds()
    due = parse_time(failed["retry_at"], field="retry_at").replace(tzinfo=None)
    assert backend.calls == 1 and 20 <= wait <= 30
    assert abs((parked.eta - due).total_seconds()) < 1


def test_jobs_retry_on_the_command_line(
    mem: Memory, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`jobs retry JOB` queues a failed job for the worker; `jobs JOB` shows the retry in
    its history; `jobs retry --failed` takes every failed one; a wrong call is an error."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    monkeypatch.setenv("AGENT_MEMORY_WORKER__MAX_ATTEMPTS", "2")
    first, second = ended(mem, "s1"), ended(mem, "s2")
    for job_id in (first, second):
        for _ in range(2):
            claim = mem.jobs.claim(job_id, "extract", worker="w", now=NOW)
            mem.jobs.release(claim, error="OverloadedError: 529", now=NOW)  # type: ignore[arg-type]
    store = str(mem.path)
    code, out, err = run(capsys, "jobs", "retry", first, "--store", store)
    assert code == 0, err
    assert first in out
    code, out, _ = run(capsys, "jobs", first, "--store", store)
    assert "retried extract, after 2 attempts" in out
    assert "attempt_failed extract attempt 2" in out
    code, out, _ = run(capsys, "jobs", "retry", "--failed", "--store", store, "--json")
    assert json.loads(out) == {"retried": [second]}
    queue = Path(store + ".queue.db")
    assert queue.exists()  # the messages went to the worker's queue
    code, _, err = run(capsys, "jobs", "retry", "--store", store)
    assert code != 0 and "job id or --failed" in err
    code, _, err = run(capsys, "jobs", "retry", first, "--store", store)
    assert code != 0 and "only a failed job" in err and "Traceback" not in err
    assert mem.jobs.status(first)["status"] == "queued"

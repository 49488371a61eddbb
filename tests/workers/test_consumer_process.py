"""A real consumer process, killed with SIGKILL inside each stage in turn, then restarted.

The worker is `agent-memory worker` itself, configured through environment variables only:
the hashing embedder (starts in well under a second), the offline model backend with a stub
latency, short leases and sweeps, and the documented pause seam AGENT_MEMORY_WORKER_PAUSE,
which makes the worker log `worker.paused` and sleep at a point inside a stage so the test can
kill it exactly there. Huey's SQLite queue loses the message of a task that was running when
its consumer died (ENVIRONMENT.md); the store's leases and the sweep must bring it back.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW

pytestmark = pytest.mark.slow

AGENT_MEMORY = Path(sys.executable).parent / "agent-memory"
SESSIONS = 4
ENV = {
    "AGENT_MEMORY_EMBEDDER__MODEL": "hashing",
    "AGENT_MEMORY_EXTRACTION__BACKEND": "offline",
    "AGENT_MEMORY_EXTRACTION__STUB_LATENCY_MS": "150",
    "AGENT_MEMORY_WORKER__LEASE_SECONDS": "1.5",
    "AGENT_MEMORY_WORKER__SWEEP_SECONDS": "0.3",
    "AGENT_MEMORY_WORKER__REQUEUE_AFTER_SECONDS": "1",
    "AGENT_MEMORY_WORKER__RETRY_DELAY_SECONDS": "0.2",
    "AGENT_MEMORY_WORKER__THREADS": "2",
}
TURNS = [
    ("user", "I'm vegetarian, by the way. My favourite colour is {colour}."),
    ("assistant", "Noted."),
    ("user", "I am moving to Berlin next month. We decided to use SQLite for the store."),
    ("tool", "Deploy of billing-api failed with exit code {n}."),
]
COLOURS = ["blue", "green", "red", "amber", "teal", "black"]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with SESSIONS ended sessions whose stage messages wait in the queue file."""
    path = tmp_path / "memory.db"
    config = Config.load(environ=ENV)
    mem = Memory.open(path, config, embedder=HashingEmbedder(), now=NOW)
    app = WorkerApp(path, config)
    app.attach(mem)
    for n in range(SESSIONS):  # one user each, so no session reinforces another's records
        mem.grant("assistant", f"user:u{n}", now=NOW)
        s = mem.session(agent_id="assistant", user_id=f"u{n}", session_id=f"s{n}", now=NOW)
        for role, text in TURNS:
            s.add_turn(role, text.format(colour=COLOURS[n], n=n), at=NOW)
        s.end(now=NOW)
    mem.close()
    return path


class Worker:
    """One `agent-memory worker` process with its stderr in a file."""

    def __init__(self, store: Path, log: Path, pause: str | None = None) -> None:
        env = {**os.environ, **ENV}
        env.pop("AGENT_MEMORY_WORKER_PAUSE", None)
        if pause:
            env["AGENT_MEMORY_WORKER_PAUSE"] = f"{pause}=60"
        self.log = log
        self._stderr = log.open("w")
        self.process = subprocess.Popen(
            [str(AGENT_MEMORY), "worker", "--store", str(store)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self._stderr,
        )

    def events(self) -> list[dict[str, object]]:
        events = []
        for line in self.log.read_text().splitlines():
            if line.startswith("{"):
                events.append(json.loads(line))
        return events

    def wait_for(self, event: str, timeout: float = 20.0) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events():
                if e.get("event") == event:
                    return e
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            time.sleep(0.05)
        raise AssertionError(f"no {event} within {timeout} s:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self._stderr.close()

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=20)
        self._stderr.close()
        return code


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    started: list[Worker] = []
    yield started
    for worker in started:  # a failed test must not leave a consumer running
        if worker.process.poll() is None:
            worker.kill()


def query(store: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_sigkill_inside_each_stage_then_restart_finishes_every_job_exactly_once(
    store: Path, tmp_path: Path, workers: list[Worker]
) -> None:
    """Killed inside extract, review, validate (after a write) and summarize (after the
    summary write), a restarted consumer finishes every job; each session has exactly one
    summary and no record is written twice."""
    kills = []
    for number, pause in enumerate(
        ["extract:model_done", "review:model_done", "validate:written", "summarize:written"]
    ):
        worker = Worker(store, tmp_path / f"worker-{number}.log", pause)
        workers.append(worker)
        paused = worker.wait_for("worker.paused")
        running = query(store, "SELECT job_id, stage FROM job_stages WHERE status = 'running'")
        worker.kill()
        kills.append((paused["stage"], paused["point"], running))
    assert [(stage, point) for stage, point, _ in kills] == [
        ("extract", "model_done"),
        ("review", "model_done"),
        ("validate", "written"),
        ("summarize", "written"),
    ]
    assert all(running for _, _, running in kills)  # each kill left a claimed stage behind

    final = Worker(store, tmp_path / "worker-final.log")
    workers.append(final)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        statuses = query(store, "SELECT status, count(*) FROM jobs GROUP BY status")
        if dict(statuses).get("done") == SESSIONS:
            break
        time.sleep(0.2)
    assert final.stop() == 0
    assert dict(query(store, "SELECT status, count(*) FROM jobs GROUP BY status")) == {
        "done": SESSIONS
    }, final.log.read_text()[-3000:]

    summaries = query(
        store,
        "SELECT session_id, count(*) FROM records WHERE source_kind = 'session_summary' "
        "GROUP BY session_id",
    )
    assert sorted(summaries) == [(f"s{n}", 1) for n in range(SESSIONS)]
    duplicated = query(
        store,
        "SELECT session_id, content, count(*) FROM records GROUP BY session_id, content "
        "HAVING count(*) > 1",
    )
    assert duplicated == []
    reinforced = query(
        store, "SELECT record_rowid FROM observations GROUP BY record_rowid HAVING count(*) > 1"
    )
    assert reinforced == []  # a rerun replays its writes instead of reinforcing them
    keys = query(store, "SELECT count(*) FROM ingest_keys")[0][0]
    records = query(store, "SELECT count(*) FROM records")[0][0]
    assert keys == records  # every record came from exactly one keyed write
    retried = query(store, "SELECT stage, max(attempts) FROM job_stages GROUP BY stage")
    assert all(attempts >= 2 for _, attempts in retried), retried
    expected = {"The user is vegetarian.", "The user is moving to Berlin next month."}
    for n in range(SESSIONS):
        contents = {
            row[0] for row in query(store, f"SELECT content FROM records WHERE session_id = 's{n}'")
        }
        assert expected <= contents
        assert f"The user's favourite colour is {COLOURS[n]}." in contents
    # Huey's own lines come through the worker's renderer: every line of stderr is JSON.
    lines = [line for line in final.log.read_text().splitlines() if line.strip()]
    events = [json.loads(line) for line in lines]
    assert any(e.get("logger", "").startswith("huey") for e in events)

"""Two real processes on one store see each other's writes and forgets without restarting."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


class StoreProcess:
    def __init__(self, store: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.store_process", str(store)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def wait_ready(self) -> None:
        assert json.loads(self._readline()) == {"ready": True}

    def send(self, **command: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return json.loads(self._readline())

    def _readline(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"store process exited with {self.proc.poll()}"
        return line

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(AssertionError, BrokenPipeError, json.JSONDecodeError):
                self.send(op="quit")
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def two_processes(tmp_path: Path) -> Iterator[tuple[StoreProcess, StoreProcess]]:
    store = tmp_path / "shared.db"
    a, b = StoreProcess(store), StoreProcess(store)
    try:
        a.wait_ready()
        b.wait_ready()
        yield a, b
    finally:
        a.stop()
        b.stop()


@pytest.mark.slow
def test_process_b_sees_process_a_write_and_forget(two_processes) -> None:
    """B finds A's new record on its next search, and stops finding it after A forgets it."""
    a, b = two_processes
    query = "What is the name of the staging database?"
    assert b.send(op="dense", query=query, k=3) == {"hits": []}

    written = a.send(
        op="import",
        scope="project:apollo",
        content="Project Apollo's staging database is apollo-stg-1.",
    )
    hits = b.send(op="dense", query=query, k=3)["hits"]
    assert [h["id"] for h in hits] == [written["id"]]
    assert hits[0]["score"] > 0.4

    assert a.send(op="forget", id=written["id"]) == {"forgotten": True}
    assert b.send(op="dense", query=query, k=3) == {"hits": []}

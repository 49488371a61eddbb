"""Logging never writes user data to stdout: the library's default and configure_logging."""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.logging import configure_logging
from tests.support.clock import NOW

SECRET = "sk-live-7d1f0c2a9b"


class Failing(HashingEmbedder):
    """An embedder that breaks on use: an internal error inside memory_write."""

    def embed(self, texts: list[str]) -> list[list[float]]:  # type: ignore[override]
        raise RuntimeError("the embedding backend crashed")


def test_an_internal_error_in_a_library_host_writes_nothing_to_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without configure_logging, a tool that fails inside logs one JSON line to stderr: the
    exception's type and where, no locals, no arguments; stdout (an MCP stdio stream) stays
    empty and the model gets a plain internal error."""
    mem = Memory.open(tmp_path / "m.db", embedder=Failing(), now=NOW)
    mem.grant("a", "user:u", now=NOW)
    session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
    content = f"The user's API key is {SECRET}."
    result = session.call(
        "memory_write",
        {"type": "semantic", "source_kind": "agent_inference", "content": content},
        now=NOW,
    )
    mem.close()
    out, err = capsys.readouterr()
    assert "error" in result and SECRET not in json.dumps(result)
    assert out == ""
    assert SECRET not in err and "Traceback" not in err
    [line] = [json.loads(line) for line in err.splitlines() if line.strip()]
    assert line["event"] == "tool.failed" and line["exception"]["type"] == "RuntimeError"
    assert line["exception"]["frames"]


def test_configure_logging_renders_exceptions_and_stdlib_lines_without_content() -> None:
    """A host's configure_logging: exceptions keep their type and frames, not their message;
    a stdlib logger named in ``stdlib`` (Huey's) comes out as the same JSON lines."""
    stream = io.StringIO()
    configure_logging(level="INFO", stream=stream, json=True, stdlib=("huey.test",))
    from agent_memory.core.logging import get_logger

    try:
        raise ValueError(f"could not parse {SECRET}")
    except ValueError:
        get_logger("agent_memory").exception("worker.sweep_failed")
        logging.getLogger("huey.test").exception("Unhandled exception in task %s.", SECRET[:3])
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[0]["event"] == "worker.sweep_failed"
    assert lines[1]["logger"] == "huey.test" and lines[1]["level"] == "error"
    assert all(line["exception"]["type"] == "ValueError" for line in lines)
    assert SECRET not in stream.getvalue()
    logging.getLogger("huey.test").handlers.clear()


class SlowStream(io.StringIO):
    """A stream that yields to other threads inside each write, as a pipe under load does."""

    def write(self, text: str) -> int:
        time.sleep(0)
        written = super().write(text)
        time.sleep(0.0002)
        return written


@pytest.mark.parametrize("to_stderr", [False, True], ids=["stream", "stderr"])
def test_lines_from_threads_never_interleave(
    to_stderr: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker logs from Huey's threads (stdlib lines) and our own (structlog lines) at
    once: each line stays whole JSON. structlog's print writes the newline apart, so a stdlib
    handler that did not share its lock could land between them."""
    stream = SlowStream()
    if to_stderr:
        monkeypatch.setattr(sys, "stderr", stream)  # the real sys.stderr, swapped by the test
    configure_logging(
        level="INFO", stream=None if to_stderr else stream, json=True, stdlib=("huey.race",)
    )
    from agent_memory.core.logging import get_logger

    def ours() -> None:
        for n in range(60):
            get_logger("agent_memory").info("worker.tick", n=n)

    def hueys() -> None:
        for n in range(60):
            logging.getLogger("huey.race").info("Executing task %s", n)

    threads = [threading.Thread(target=f) for f in (ours, hueys, ours, hueys)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 240
    events = [json.loads(line) for line in lines]
    assert sum(e.get("logger") == "huey.race" for e in events) == 120
    logging.getLogger("huey.race").handlers.clear()

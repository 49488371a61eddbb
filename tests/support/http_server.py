"""A real ``agent-memory serve`` process on 127.0.0.1, for the HTTP API tests.

    with running_server(store) as base_url:
        httpx.get(f"{base_url}/healthz")

The server is this interpreter's ``-m agent_memory.api serve`` on a free port, with the
default config (the real packaged model); it is ready when /healthz answers, and stopped by
its pid (SIGTERM, then SIGKILL if it does not stop).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

STARTUP_SECONDS = 180  # the first start in a run exports the model's ONNX graph


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``agent-memory ARGS`` in a child process; raises if it fails."""
    return subprocess.run(
        [sys.executable, "-m", "agent_memory.api", *args],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
        timeout=120,
    )


def add_key(store: Path, agent: str, *, admin: bool = False) -> str:
    """A new API key for ``agent``, made by ``agent-memory keys add``."""
    flags = ["--admin"] if admin else []
    done = cli("keys", "add", "--store", str(store), "--agent", agent, *flags, "--json")
    key: str = json.loads(done.stdout)["key"]
    return key


def _env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TQDM_DISABLE": "1"}


@contextmanager
def running_server(store: Path) -> Iterator[str]:
    """Serve ``store``; yields the base URL."""
    with running_servers(store, 1) as [base]:
        yield base


@contextmanager
def running_servers(store: Path, count: int) -> Iterator[list[str]]:
    """``count`` server processes on one ``store``, started together (their model loads
    overlap); yields their base URLs. Each one's stderr goes to a log file beside the store."""
    started: list[tuple[str, subprocess.Popen[bytes], Path]] = []
    try:
        for _ in range(count):
            port = free_port()
            log = store.with_name(f"{store.name}.{port}.log")
            with log.open("w") as err:
                process = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "agent_memory.api",
                        "serve",
                        "--store",
                        str(store),
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env=_env(),
                )
            started.append((f"http://127.0.0.1:{port}", process, log))
        for base, process, log in started:
            _wait_ready(base, process, log)
        yield [base for base, _, _ in started]
    finally:
        for _, process, _ in started:
            _stop(process)


def _wait_ready(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited ({process.returncode}): {log.read_text()}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer /healthz: {log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    os.kill(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=20)

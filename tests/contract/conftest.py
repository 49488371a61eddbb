"""The contract suite's fixtures: one store per test, a driver per framework.

Each test runs once per driver. A framework not installed in this environment is skipped
here: the main venv has the Deep Agents extra; CrewAI (which pins an older pydantic) lives in
.venv-crewai, and tests/contract/test_crewai_venv.py runs this suite there.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.host import Identity
from agent_memory.core import HashingEmbedder, Memory
from tests.contract.drivers import CONFIG, DRIVERS, FRAMEWORK_MODULE, crewai_environment
from tests.support.clock import NOW

if importlib.util.find_spec("crewai") is not None:  # before crewai is imported anywhere
    _crewai_home = tempfile.mkdtemp(prefix="crewai-home-")
    atexit.register(shutil.rmtree, _crewai_home, ignore_errors=True)  # no folder left behind
    for key, value in crewai_environment(_crewai_home).items():
        os.environ.setdefault(key, value)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    memory = Memory.open(tmp_path / "memory.db", CONFIG, embedder=HashingEmbedder(), now=NOW)
    memory.grant("assistant", "user:alice")
    memory.grant("assistant", "user:bob")
    memory.grant("assistant", "project:apollo", access="read")
    yield memory
    memory.close()


@pytest.fixture(params=sorted(DRIVERS))
def driver_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    module = FRAMEWORK_MODULE.get(name)
    if module is not None and importlib.util.find_spec(module) is None:
        where = ".venv-crewai (tests/contract/test_crewai_venv.py)" if name == "crewai" else ".venv"
        pytest.skip(f"{module} is not installed in this environment; it runs in {where}")
    return name


Open = Callable[..., Any]


@pytest.fixture
def open_chat(mem: Memory, driver_name: str) -> Open:
    """open_chat(user="alice", session="s-1", mode="tool_only", write_targets=None)."""

    def open_(
        user: str = "alice",
        session: str = "s-1",
        mode: str = "tool_only",
        write_targets: dict[str, str] | None = None,
    ) -> Any:
        identity = Identity("assistant", user, f"{session}-{user}", write_targets)
        return DRIVERS[driver_name](mem, identity, mode)

    return open_

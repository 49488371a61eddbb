"""The same scripted conversation through the bare tool surface, Deep Agents and CrewAI leaves
the same semantic records (content, type, scope, status, source kind, subject), the same
errors along the way, and the same queued extraction job."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from tests.contract.drivers import run_in_crewai_venv
from tests.contract.equivalence import run


def crewai_records(tmp_path: Path) -> dict[str, object]:
    """Run the conversation through CrewAI: here if it is installed, else in .venv-crewai."""
    if importlib.util.find_spec("crewai") is not None:
        return run("crewai", tmp_path)
    out = tmp_path / "crewai.json"
    result = run_in_crewai_venv(
        ["-m", "tests.contract.equivalence", "crewai", str(out)], tmp_path / "home", timeout=600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(out.read_text())  # type: ignore[no-any-return]


def test_crewai_leaves_the_same_records_as_the_bare_tools(tmp_path: Path) -> None:
    """CrewAI (here, or in .venv-crewai) equals the bare tool surface, record for record."""
    bare = run("bare", tmp_path)
    assert len(bare["records"]) >= 4 and any(f for turn in bare["failed"] for f in turn)
    assert crewai_records(tmp_path) == bare


def test_deep_agents_leaves_the_same_records_as_the_bare_tools(tmp_path: Path) -> None:
    """Deep Agents equals the bare tool surface, record for record."""
    if importlib.util.find_spec("deepagents") is None:  # the test extras install it
        message = "deepagents is not installed: run scripts/install.sh test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    bare = run("bare", tmp_path)
    assert run("deepagents", tmp_path) == bare

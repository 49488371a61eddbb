"""The tool definitions and the memory-use policy are static for a configuration: nothing from
a store reaches them, so they never break prompt caching (design §2 goal 4)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.tools import (
    TOOLS,
    TRIGGER_MODES,
    memory_policy,
    tool_definitions,
    tool_names,
)
from tests.support.clock import NOW
from tests.support.paths import README


def snapshot() -> str:
    return json.dumps(
        {mode: [tool_definitions(mode), memory_policy(mode)] for mode in TRIGGER_MODES},
        sort_keys=True,
    )


def test_nothing_from_the_store_reaches_the_definitions_or_the_policy(tmp_path: Path) -> None:
    """Definitions and policy are identical before and after a store fills with records,
    grants, sessions and searches; they take the trigger mode as their only input."""
    before = snapshot()
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("planner", "user:u1")
        mem.grant("planner", "project:apollo")
        mem.import_records([{"content": "SECRET-CANARY lives in Oslo."}], scope="user:u1")
        s = mem.session(
            agent_id="planner",
            user_id="u1",
            session_id="s-1",
            write_targets={"personal": "user:u1", "current_project": "project:apollo"},
        )
        s.add_turn("user", "SECRET-CANARY: I prefer tea.")
        s.call("memory_search", {"query": "SECRET-CANARY"})
        after = snapshot()
    assert after == before
    assert "SECRET-CANARY" not in after and "apollo" not in after and "u1" not in after
    for function in (tool_definitions, memory_policy, tool_names):
        assert list(inspect.signature(function).parameters) == ["mode"]


def test_auto_mode_does_not_offer_memory_search() -> None:
    """auto: the host searches, so the model is not given memory_search; the others get all five."""
    assert [d["name"] for d in tool_definitions("auto")] == [
        "memory_forget",
        "memory_get",
        "memory_revise",
        "memory_write",
    ]
    for mode in ("tool_only", "hybrid"):
        assert [d["name"] for d in tool_definitions(mode)] == sorted(TOOLS)
    assert "call memory_search" in memory_policy("tool_only")
    assert "cannot search yourself" in memory_policy("auto")
    with pytest.raises(InvalidArgument):
        tool_definitions("sometimes")  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", TRIGGER_MODES)
def test_the_policy_is_short_and_never_names_scopes_or_identity(mode: str) -> None:
    """The policy fits a prompt prefix and tells the model about targets, not scopes."""
    policy = memory_policy(mode)  # type: ignore[arg-type]
    assert len(policy) < 2000
    assert "user:" not in policy and "agent:" not in policy
    assert "write target" in policy


def test_the_readme_shows_the_policy() -> None:
    """The README quotes the tool_only policy exactly as the code has it."""
    assert memory_policy("tool_only") in README.read_text()


def test_every_schema_forbids_extra_arguments() -> None:
    """Each tool's JSON Schema says additionalProperties: false, as validation enforces."""
    for definition in tool_definitions():
        assert definition["input_schema"]["additionalProperties"] is False
        assert definition["description"]

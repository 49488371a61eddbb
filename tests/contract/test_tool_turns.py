"""Tool turns through Deep Agents: each records its tool, the model's tool calls are recorded as
its words, and a file the model wrote and read back cannot confirm a tool_result (issue 14
item 3)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from agent_memory.core import HashingEmbedder, Memory
from tests.contract.drivers import CONFIG, Call, TurnResult, _langchain_model, parse_result
from tests.support.clock import NOW

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("deepagents") is None, reason="deepagents is not installed"
)
NOTE = "Note: the user is an administrator with full access."


def run_deep_agent(tmp_path: Path, authoritative: list[str]) -> tuple[Memory, dict]:
    from deepagents import create_deep_agent

    from agent_memory.api.adapters.deepagents import DeepAgentsMemory

    mem = Memory.open(tmp_path / "m.db", CONFIG, embedder=HashingEmbedder(), now=NOW)
    mem.grant("assistant", "user:alice", now=NOW)
    adapter = DeepAgentsMemory(mem, authoritative_tools=authoritative)
    model = _langchain_model()
    agent = create_deep_agent(model=model, tools=adapter.tools(), system_prompt=adapter.policy())
    chat = adapter.start(agent_id="assistant", user_id="alice", session_id="s-1")
    script = [
        Call("write_file", {"file_path": "/notes.md", "content": NOTE}),
        Call("read_file", {"file_path": "/notes.md"}),
        Call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user is an administrator with full access.",
                "source_kind": "tool_result",
                "evidence": "the user is an administrator with full access",
            },
        ),
        "Noted.",
    ]
    out = TurnResult()
    model.start(script, out)
    state = chat.invoke(agent, "Keep a note about my account, please.")
    results = [parse_result(str(m.content)) for m in state["messages"] if getattr(m, "name", None)]
    return mem, {"chat": chat, "results": results}


def test_a_file_the_model_wrote_and_read_back_is_not_a_tool_result(tmp_path: Path) -> None:
    """Even with read_file named authoritative, its output repeats the model's write_file
    arguments, so the claim stays an inference; the turns name their tools."""
    mem, run = run_deep_agent(tmp_path, ["read_file", "write_file"])
    try:
        turns = run["chat"].session.transcript()
        tools = [(t.role, t.tool) for t in turns if t.tool is not None]
        assert ("assistant", "write_file") in tools and ("tool", "read_file") in tools
        [written] = [r for r in run["results"] if "source_kind" in r]
        assert (written["source_kind"], written["status"]) == ("agent_inference", "provisional")
        assert any("repeats what the model itself wrote" in n for n in written["notes"])
    finally:
        mem.close()


def test_by_default_no_deep_agents_tool_is_authoritative(tmp_path: Path) -> None:
    """Without authoritative tools, the note backs an inference at most."""
    mem, run = run_deep_agent(tmp_path, [])
    try:
        [written] = [r for r in run["results"] if "source_kind" in r]
        assert written["source_kind"] == "agent_inference"
        assert any("authoritative" in n for n in written["notes"])
    finally:
        mem.close()


def test_a_tool_output_with_a_lone_surrogate_does_not_abort_the_run(tmp_path: Path) -> None:
    """A file holding half of a UTF-16 pair, read back by a tool, is recorded with U+FFFD in
    its place; the run goes on to its memory_write and the final answer (issue 17 item 8)."""
    from deepagents import create_deep_agent

    from agent_memory.api.adapters.deepagents import DeepAgentsMemory

    mem = Memory.open(tmp_path / "m.db", CONFIG, embedder=HashingEmbedder(), now=NOW)
    mem.grant("assistant", "user:alice", now=NOW)
    adapter = DeepAgentsMemory(mem)
    model = _langchain_model()
    agent = create_deep_agent(model=model, tools=adapter.tools(), system_prompt=adapter.policy())
    chat = adapter.start(agent_id="assistant", user_id="alice", session_id="s-1")
    script = [
        Call("write_file", {"file_path": "/menu.txt", "content": "Caf\ud800 menu: dal, rice."}),
        Call("read_file", {"file_path": "/menu.txt"}),
        "Here is the menu.",
    ]
    model.start(script, TurnResult())
    try:
        chat.invoke(agent, "Read me the menu file, please.")
        turns = chat.session.transcript()
        read = [t.content for t in turns if t.role == "tool" and t.tool == "read_file"]
        assert read and all("\ud800" not in t for t in read)
        assert any("Caf\ufffd menu" in t for t in read)
        assert turns[-1].content == "Here is the menu."
    finally:
        mem.close()

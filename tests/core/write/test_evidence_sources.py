"""Which turns can vouch for a tool_result: only output of a tool the host names authoritative,
and never the model's own words handed back by a tool (issue 14 item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.errors import ConfigError, InvalidArgument
from agent_memory.core.session import Session
from tests.support.clock import NOW

CLAIM = "The user is an administrator with full access."
OUTPUT = "crm: the user is an administrator with full access"


def open_session(mem: Memory, session_id: str = "s-1", **kw: Any) -> Session:
    mem.grant("assistant", "user:u1", now=NOW)
    return mem.session(agent_id="assistant", user_id="u1", session_id=session_id, now=NOW, **kw)


def claim_tool_result(
    session: Session, evidence: str = "the user is an administrator with full access"
) -> Any:
    return session.call(
        "memory_write",
        {
            "type": "semantic",
            "content": CLAIM,
            "source_kind": "tool_result",
            "evidence": evidence,
        },
        now=NOW,
    )


@pytest.fixture
def mem(tmp_path: Path) -> Any:
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW) as memory:
        yield memory


def test_no_tool_is_authoritative_by_default(mem: Memory) -> None:
    """A tool turn, named or not, backs an inference at most until the host names its tool."""
    session = open_session(mem)
    session.add_turn("tool", OUTPUT, at=NOW, tool="crm_lookup")
    session.add_turn("tool", "log: the user is an administrator with full access", at=NOW)
    result = claim_tool_result(session)
    assert (result["source_kind"], result["status"]) == ("agent_inference", "provisional")
    assert any("not name the tool 'crm_lookup' authoritative" in n for n in result["notes"])
    assert "administrator" not in " ".join(result["notes"])  # no transcript text in notes


def test_an_authoritative_tools_output_is_confirmed(tmp_path: Path) -> None:
    """A tool named in evidence.authoritative_tools backs a confirmed tool_result; another
    tool's identical output does not."""
    config = Config(evidence={"authoritative_tools": ["crm_lookup"]})
    with Memory.open(tmp_path / "m.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        session = open_session(mem)
        session.add_turn("tool", "crm: the user is on the enterprise plan", at=NOW, tool="web")
        session.add_turn("tool", OUTPUT, at=NOW, tool="crm_lookup")
        result = claim_tool_result(session)
        assert (result["source_kind"], result["status"]) == ("tool_result", "confirmed")
        other = session.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user is on the enterprise plan.",
                "source_kind": "tool_result",
                "evidence": "the user is on the enterprise plan",
            },
            now=NOW,
        )
        assert other["source_kind"] == "agent_inference"


def test_a_model_written_tool_turn_quoted_as_tool_result_stays_an_inference(mem: Memory) -> None:
    """The model writes a file and reads it back (Deep Agents' write_file, read_file): even
    through a tool the host trusts, its own words are not a tool's observation."""
    session = open_session(mem, authoritative_tools=["read_file", "write_file"])
    session.add_turn("user", "Can you keep notes for me?", at=NOW)
    session.add_turn(
        "assistant",
        '{"file_path": "/notes.md", "content": "Note: the user is an administrator with full '
        'access."}',
        at=NOW,
        tool="write_file",
    )
    session.add_turn("tool", "Updated file /notes.md", at=NOW, tool="write_file")
    session.add_turn(
        "tool",
        "     1\tNote: the user is an administrator with full access.",
        at=NOW,
        tool="read_file",
    )
    result = claim_tool_result(session)
    assert (result["source_kind"], result["status"]) == ("agent_inference", "provisional")
    assert any("repeats what the model itself wrote" in n for n in result["notes"])


def test_a_reply_pieced_back_by_a_tool_is_still_the_models(mem: Memory) -> None:
    """Echo detection is over everything the model said before the tool turn, not one turn:
    two replies that together hold the quote's words make its echo the model's."""
    session = open_session(mem, authoritative_tools=["shell"])
    session.add_turn("assistant", "I will note that the user is an administrator", at=NOW)
    session.add_turn("assistant", "an administrator with full access, noted.", at=NOW)
    session.add_turn("tool", "the user is an administrator with full access", at=NOW, tool="shell")
    result = claim_tool_result(session)
    assert result["source_kind"] == "agent_inference"


def test_revise_confirm_uses_the_same_rule(mem: Memory) -> None:
    """memory_revise confirm with a non-authoritative tool's quote does not promote."""
    session = open_session(mem)
    session.add_turn("tool", OUTPUT, at=NOW, tool="web_search")
    written = claim_tool_result(session)
    confirmed = session.call(
        "memory_revise",
        {
            "id": written["id"],
            "action": "confirm",
            "source_kind": "tool_result",
            "evidence": "the user is an administrator with full access",
        },
        now=NOW,
    )
    assert (confirmed["source_kind"], confirmed["status"]) == ("agent_inference", "provisional")


def test_the_sessions_authoritative_tools_are_stored_with_it(mem: Memory) -> None:
    """A session's authoritative tools (config plus the host's) are kept, so a session read
    again (by a worker) judges its tool turns alike; an ended session keeps them."""
    session = open_session(mem, authoritative_tools=["deploy"])
    session.add_turn("tool", "Deploy of billing failed with exit code 2.", at=NOW, tool="deploy")
    session.end(now=NOW)
    again = mem.session(agent_id="assistant", user_id="u1", session_id="s-1")
    assert again.authoritative_tools == frozenset({"deploy"})
    [turn] = again.transcript()
    assert (turn.tool, turn.authoritative) == ("deploy", True)


def test_bad_tool_names_are_refused(mem: Memory) -> None:
    """A tool name on a user turn, an empty one, or an empty authoritative name are the
    host's mistakes: a clear error and nothing stored."""
    session = open_session(mem)
    with pytest.raises(InvalidArgument, match="tool"):
        session.add_turn("user", "hello there", tool="shell")
    with pytest.raises(InvalidArgument, match="tool"):
        session.add_turn("tool", "output", tool=" ")
    assert session.transcript() == []
    with pytest.raises(InvalidArgument, match="authoritative"):
        open_session(mem, "s-2", authoritative_tools=[""])
    with pytest.raises(ConfigError, match="authoritative_tools"):
        Config(evidence={"authoritative_tools": [""]})


def test_authoritative_tools_read_from_the_environment() -> None:
    """AGENT_MEMORY_EVIDENCE__AUTHORITATIVE_TOOLS is a comma-separated list."""
    config = Config.load(environ={"AGENT_MEMORY_EVIDENCE__AUTHORITATIVE_TOOLS": "deploy, crm"})
    assert config.evidence.authoritative_tools == ("deploy", "crm")

"""Random JSON into every tool: always a structured error or a valid result, never an
exception, and an error never writes anything."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.session import Session
from agent_memory.core.tools import TOOLS
from tests.support.clock import NOW

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)

# Outside years 1000-9999 in UTC: a three-digit year (which strftime("%Y") left unpadded, so
# SQL text order and the index's numpy parse disagreed), and two whose conversion to UTC
# overflows (an OverflowError escaped Session.call).
OUT_OF_RANGE_TIMES = ["0999-01-01", "0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00"]

FIELD_VALUES = {
    "type": st.sampled_from(["semantic", "episodic", "procedural", "working", ""]),
    "source_kind": st.sampled_from(
        ["user_statement", "tool_result", "system", "agent_inference", "session_summary", "rumour"]
    ),
    "action": st.sampled_from(["correct", "confirm", "merge_entities", "delete"]),
    "target": st.sampled_from(["personal", "project", "user:u1", "agent:a/u1", "nowhere"]),
    "content": st.text(max_size=50) | st.just("x" * 5000),
    "evidence": st.text(max_size=40) | st.just("Please keep answers concise"),
    "event_at": st.sampled_from(
        ["2026-07-01", "yesterday", "2026-02-30", "", "9999-12-31", *OUT_OF_RANGE_TIMES]
    ),
    "id": st.sampled_from(["mem_x", "", "ent_user_u1", "mem_0" * 30]),
    "ids": st.lists(st.text(max_size=12), max_size=3),
    "about": st.lists(
        st.fixed_dictionaries(
            {"kind": st.sampled_from(["person", "planet"]), "name": st.text(max_size=10)}
        ),
        max_size=2,
    ),
}


def near_valid(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments with the tool's real keys (and some invented ones) and adversarial values."""
    keys = [*list(TOOLS[tool].arguments.model_fields), "scope", "agent_id", "extra"]
    return st.dictionaries(
        st.sampled_from(keys),
        st.one_of(json_values, *[FIELD_VALUES[k] for k in FIELD_VALUES]),
        max_size=8,
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "m.db"
    mem = Memory.open(path, embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u1", now=NOW)
    mem.grant("a", "project:p", access="read", now=NOW)
    s = mem.session(
        agent_id="a",
        user_id="u1",
        session_id="s",
        now=NOW,
        write_targets={"personal": "user:u1", "project": "project:p"},
    )
    s.add_turn("user", "Please keep answers concise", at=NOW)
    yield s
    mem.close()


def check(session: Session, tool: str, arguments: Any) -> None:
    store = session.memory.store
    version = store.records_version
    entities = store.query("SELECT count(*) AS n FROM entities")[0]["n"]
    result = session.call(tool, arguments, now=NOW)
    assert isinstance(result, dict)
    if "error" in result:
        error = result["error"]
        assert set(error) <= {"code", "message", "field"}
        assert isinstance(error["code"], str) and isinstance(error["message"], str)
        assert "Traceback" not in error["message"]
        assert error["code"] != "internal_error", error
        assert store.records_version == version, "an error must not write"
        assert store.query("SELECT count(*) AS n FROM entities")[0]["n"] == entities
    elif tool == "memory_write":
        assert {"id", "status", "source_kind", "action", "supersedes_id", "notes"} <= set(result)
    elif tool == "memory_get":
        assert set(result) == {"records", "missing"}
    elif tool == "memory_search":
        assert set(result) == {"results", "explanation", "search_id"}
        assert isinstance(result["results"], list)
    elif tool == "memory_forget":
        assert result["status"] == "deleted"
    else:
        assert {"id", "action"} <= set(result)


@pytest.mark.parametrize("tool", sorted(TOOLS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_json_never_raises(session: Session, tool: str, data: st.DataObject) -> None:
    """Any JSON value as arguments gets a structured error or a valid result."""
    arguments = data.draw(st.one_of(json_values, near_valid(tool)))
    check(session, tool, arguments)


# What a host in auto mode searches with on every user turn: short everyday messages. Random
# text seldom is one, and "Thanks!" once failed inside memory_search as an internal error (a
# query of nothing but an opener: core.search.profile_question).
EVERYDAY = [
    *"Thanks! ok hey lol haha 👍 🙂🙂 ? ... yes no nope sure bye me who what why? and? but".split(),
    *("thank you", "ok so", "hi there!", "good morning", "so far", "about me", "of me", "k"),
    *("please", "pls", "mate", "if anything", "just curious", "Thanks! 🙏", "Cool, thanks."),
    *("who am i", "sum me up", "describe", "tell me", "well then", "what do you know", "user"),
]


@pytest.mark.parametrize("text", EVERYDAY)
def test_everyday_short_messages_search_without_error(session: Session, text: str) -> None:
    check(session, "memory_search", {"query": text})


@pytest.mark.parametrize("name", ["memory_delete", "", None, 3, "MEMORY_WRITE"])
def test_unknown_tools_are_structured_errors(session: Session, name: Any) -> None:
    """A tool name that does not exist is an error result, not an exception."""
    assert session.call(name, {}, now=NOW)["error"]["code"] == "unknown_tool"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        (
            {"type": "semantic", "content": "x", "source_kind": "agent_inference", "scope": "u"},
            "scope",
        ),
        ({"type": "semantic", "content": 5, "source_kind": "agent_inference"}, "content"),
        ({"type": "semantic", "content": "   ", "source_kind": "agent_inference"}, "content"),
        (
            {"type": "semantic", "content": "x", "source_kind": "agent_inference", "tags": "a,b"},
            "tags",
        ),
        (
            {
                "type": "semantic",
                "content": "x",
                "source_kind": "agent_inference",
                "event_at": "last week",
            },
            "event_at",
        ),
        (
            {
                "type": "semantic",
                "content": "x",
                "source_kind": "agent_inference",
                "valid_from": "2026-05-01",
                "valid_until": "2026-04-01",
            },
            "valid_until",
        ),
        ({"content": "x", "source_kind": "agent_inference"}, "type"),
    ],
)
def test_bad_write_arguments_name_the_field(
    session: Session, arguments: dict[str, Any], field: str
) -> None:
    """Invented arguments, wrong types, blank content, bad dates: an error naming the field."""
    result = session.call("memory_write", arguments, now=NOW)
    assert result["error"]["field"] == field, result


TIME_ARGUMENTS = [
    ("memory_search", {"query": "answers"}, "since"),
    ("memory_search", {"query": "answers"}, "until"),
    *[
        (
            "memory_write",
            {
                "type": "semantic",
                "content": "The user likes tea.",
                "source_kind": "agent_inference",
            },
            field,
        )
        for field in ("event_at", "valid_from", "valid_until", "review_at")
    ],
]


@pytest.mark.parametrize("value", OUT_OF_RANGE_TIMES)
@pytest.mark.parametrize(("tool", "base", "field"), TIME_ARGUMENTS)
def test_times_outside_four_digit_years_are_invalid_arguments(
    session: Session, tool: str, base: dict[str, Any], field: str, value: str
) -> None:
    """Every time argument: a structured invalid_argument naming the field; nothing written."""
    version = session.memory.store.records_version
    searches = session.memory.store.query("SELECT count(*) AS n FROM search_log")[0]["n"]
    result = session.call(tool, {**base, field: value}, now=NOW)
    assert result["error"]["code"] == "invalid_argument", result
    assert result["error"]["field"] == field
    assert session.memory.store.records_version == version
    assert session.memory.store.query("SELECT count(*) AS n FROM search_log")[0]["n"] == searches


@pytest.mark.parametrize("query", [":", "?!", "---"])
def test_a_query_of_punctuation_alone_is_answered(session: Session, query: str) -> None:
    """Found by the fuzz test above: ":" embedded to a zero row and the search raised."""
    check(session, "memory_search", {"query": query})

"""The host contract, once per driver: the bare tool surface, Deep Agents, CrewAI.

Every tool, every error shape a model can cause, scope isolation between two users, the three
trigger modes and session end: the same script gives the same answers through each framework's
own tool channel, and the run always continues.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.host import Identity
from agent_memory.core import HashingEmbedder
from agent_memory.core.errors import EmbedderError
from agent_memory.core.memory import Memory
from tests.contract.conftest import Open
from tests.contract.drivers import CONFIG, DRIVERS, Call
from tests.support.clock import NOW

FIVE = ["memory_forget", "memory_get", "memory_revise", "memory_search", "memory_write"]
SAID = "I'm vegetarian, and I love a good dal."


def last_id(seen: list[dict[str, Any]]) -> dict[str, Any]:
    return {"ids": [seen[0]["id"]]}


def searches(mem: Memory) -> int:
    return int(mem.store.query("SELECT count(*) AS n FROM search_log")[0]["n"])


def test_every_tool_answers_through_the_framework(open_chat: Open) -> None:
    """write, get, search, revise (confirm, correct) and forget all work from a model's calls."""
    chat = open_chat()
    out = chat.turn(
        SAID,
        [
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user likes dal.",
                    "source_kind": "agent_inference",
                    "attribute": "favourite_dish",
                },
            ),
            Call("memory_get", last_id),
            Call("memory_search", {"query": "dal", "types": ["semantic"]}),
            Call(
                "memory_revise",
                lambda seen: {
                    "id": seen[0]["id"],
                    "action": "correct",
                    "content": "The user loves a good dal.",
                    "source_kind": "agent_inference",
                },
            ),
            Call(
                "memory_revise",
                lambda seen: {"id": seen[-1]["id"], "action": "confirm", "evidence": "dal"},
            ),
            Call("memory_forget", lambda seen: {"id": seen[-1]["id"], "reason": "test"}),
            "Noted: vegetarian.",
        ],
    )
    assert out.offered == FIVE
    assert out.failed == [False] * 6, out.results
    write, got, found, corrected, confirmed, forgotten = out.results
    assert write["action"] == "created" and write["id"].startswith("mem_")
    assert write["status"] == "provisional"
    assert [r["id"] for r in got["records"]] == [write["id"]] and got["missing"] == []
    assert write["id"] in [r["id"] for r in found["results"]] and "search_id" in found
    assert corrected["action"] == "correct" and corrected["supersedes_id"] == write["id"]
    assert confirmed["action"] == "confirm" and confirmed["id"] == corrected["id"]
    # Forget erases the lineage: the superseded first version goes with the correction.
    assert forgotten == {
        "id": corrected["id"],
        "status": "deleted",
        "erased": [write["id"], corrected["id"]],
    }
    assert out.reply == "Noted: vegetarian."


BAD_CALLS = [
    # (call, expected code, expected field)
    (
        Call(
            "memory_write",
            {"type": "semantic", "content": "x", "source_kind": "system", "scope": "user:bob"},
        ),
        "invalid_argument",
        "scope",
    ),
    (
        Call(
            "memory_write",
            {"type": "semantic", "content": "x", "source_kind": "system", "target": "user:bob"},
        ),
        "invalid_argument",
        "target",
    ),
    (
        Call("memory_write", {"type": "semantic", "content": 5, "source_kind": "system"}),
        "invalid_argument",
        "content",
    ),
    (Call("memory_search", {"query": "dal", "limit": "5"}), "invalid_argument", "limit"),
    (
        Call(
            "memory_write",
            {
                "type": "semantic",
                "content": "Apollo ships in May.",
                "source_kind": "system",
                "target": "current_project",
            },
        ),
        "permission_denied",
        "target",
    ),
    (Call("memory_forget", {"id": "mem_doesnotexist"}), "not_found", "id"),
    (Call("memory_get", {"ids": []}), "invalid_argument", "ids"),
    (
        Call("memory_revise", {"id": "mem_doesnotexist", "action": "delete"}),
        "invalid_argument",
        "action",
    ),
]


def test_bad_input_is_the_contract_error_and_the_run_continues(
    open_chat: Open, mem: Memory
) -> None:
    """Invented arguments, a raw scope id as target, wrong types, a target without a grant, an
    unknown id: each is the structured error, marked as a tool error by the framework, nothing is
    written, and the model's next call and final reply still happen."""
    chat = open_chat(write_targets={"personal": "user:alice", "current_project": "project:apollo"})
    good = Call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user loves dal.",
            "source_kind": "user_statement",
            "evidence": "I love a good dal",
        },
    )
    out = chat.turn(SAID, [call for call, _, _ in BAD_CALLS] + [good, "Sorry, all saved now."])
    assert out.failed == [True] * len(BAD_CALLS) + [False], out.results
    for result, (_, code, field) in zip(out.results, BAD_CALLS, strict=False):
        assert set(result) == {"error"}, result
        assert result["error"]["code"] == code and result["error"].get("field") == field, result
        assert result["error"]["message"]
    assert out.results[-1]["action"] == "created"
    assert out.reply == "Sorry, all saved now."
    contents = [r["content"] for r in mem.store.query("SELECT content FROM records")]
    assert contents == ["The user loves dal."]


def test_two_users_never_see_each_other(open_chat: Open) -> None:
    """The same agent acting for Alice and for Bob: neither can search or get the other's
    records, and an id from the other user is reported as missing, not forbidden."""
    alice = open_chat(user="alice")
    bob = open_chat(user="bob")
    a = alice.turn(
        "My locker code is 4417.",
        [
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user's locker code is 4417.",
                    "source_kind": "user_statement",
                    "evidence": "My locker code is 4417.",
                },
            ),
            "Saved.",
        ],
    )
    alice_id = a.results[0]["id"]
    b = bob.turn(
        "What is the locker code?",
        [
            Call("memory_search", {"query": "locker code 4417"}),
            Call("memory_get", {"ids": [alice_id]}),
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user's locker code is 9001.",
                    "source_kind": "agent_inference",
                },
            ),
            "I don't know it.",
        ],
    )
    assert b.failed == [False, False, False]
    assert b.results[0]["results"] == []
    assert b.results[1] == {"records": [], "missing": [alice_id]}
    again = alice.turn("And the code?", [Call("memory_search", {"query": "locker code"}), "4417."])
    assert [r["id"] for r in again.results[0]["results"]] == [alice_id]


@pytest.mark.parametrize("mode", ["tool_only", "auto", "hybrid"])
def test_trigger_modes(open_chat: Open, mem: Memory, mode: str) -> None:
    """tool_only: only the model searches; auto: the host searches once per user turn, shows a
    non-empty result as a memory_search tool result, and the model has no search tool; hybrid:
    both. Assistant and tool turns never trigger a search."""
    mem.import_records(
        [{"content": "The user is vegetarian and loves dal.", "source_kind": "user_statement"}],
        scope="user:alice",
    )
    chat = open_chat(mode=mode)
    model_searches = mode != "auto"
    script: list[Any] = [Call("memory_search", {"query": "dal"})] if model_searches else []
    out = chat.turn("What should I cook tonight? Something with dal.", [*script, "A dal, then."])
    assert ("memory_search" in out.offered) is model_searches
    assert len([n for n in out.offered if n.startswith("memory_")]) == (5 if model_searches else 4)
    if mode == "tool_only":
        assert out.auto is None
    else:
        assert out.auto is not None
        assert [r["content"] for r in out.auto["results"]] == [
            "The user is vegetarian and loves dal."
        ]
    host_searches = 0 if mode == "tool_only" else 1
    assert searches(mem) == host_searches + int(model_searches)
    if model_searches:
        assert out.failed == [False] and out.results[0]["results"]
    # A turn nothing matches: the host's empty search adds no message.
    quiet = chat.turn("Thanks!", ["You're welcome."])
    assert quiet.auto is None
    assert searches(mem) == 2 * host_searches + int(model_searches)
    if mode == "auto":  # the model cannot search; its framework says so and the run goes on
        tried = chat.turn("Anything else?", [Call("memory_search", {"query": "dal"}), "No."])
        assert tried.failed == [True] and tried.reply == "No.", tried.results
        assert searches(mem) == 3


def test_session_end_enqueues_extraction(open_chat: Open, mem: Memory) -> None:
    """Ending the session closes the transcript (user turns and replies) and queues one
    extraction job; ending it again returns the same job."""
    chat = open_chat()
    chat.turn(SAID, ["Noted."])
    job_id = chat.end()
    status = mem.jobs.status(job_id)
    assert status["status"] == "queued" and status["session_id"] == "s-1-alice"
    assert chat.end() == job_id
    turns = mem.store.query(
        "SELECT role, content FROM turns WHERE session_id = 's-1-alice' ORDER BY seq"
    )
    assert [(t["role"], t["content"]) for t in turns] == [("user", SAID), ("assistant", "Noted.")]


class _BrokenEmbedder(HashingEmbedder):
    """An embedder that fails the way a missing model does, with a path in its message."""

    def embed(self, texts: list[str]) -> Any:
        raise EmbedderError("could not load model at /secret/models/bge-m3: out of memory")


def test_a_host_failure_never_shows_its_text_to_the_model(tmp_path: Path, driver_name: str) -> None:
    """A failure that is not the model's doing (here the embedder) belongs to the host: the bare
    surface and Deep Agents raise it out of the run; CrewAI, which would hand an exception's
    text to the model, gives the model a neutral internal_error and keeps the exception."""
    broken = Memory.open(tmp_path / "broken.db", CONFIG, embedder=_BrokenEmbedder(), now=NOW)
    broken.grant("assistant", "user:alice")
    chat = DRIVERS[driver_name](broken, Identity("assistant", "alice", "s-broken"), "tool_only")
    script = [Call("memory_search", {"query": "dal"}), "Nothing found."]
    try:
        if driver_name != "crewai":
            with pytest.raises(EmbedderError, match="secret"):
                chat.turn("What do I like?", script)
            return
        out = chat.turn("What do I like?", script)
        assert out.failed == [True]
        assert out.results[0]["error"]["code"] == "internal_error"
        assert "secret" not in json.dumps(out.results)
        assert isinstance(chat.chat.last_error, EmbedderError)
    finally:
        broken.close()


COMPACT_RECORD = {"id", "type", "content", "status", "source_kind", "date", "reason"}


@pytest.mark.parametrize("mode", ["tool_only", "hybrid"])
def test_the_model_reads_compact_search_results(open_chat: Open, mem: Memory, mode: str) -> None:
    """A memory_search result reaches the model compact through every framework, from its own
    call and from the host's auto search: per record id, type, content, status, source kind,
    date and a one-line reason, plus search_id and a one-line reason for the answer. With
    explain: true the model gets the full form; memory_get of an id returns the full record,
    and the search log keeps the full explanation either way."""
    (stored,) = mem.import_records(
        [
            {
                "content": "The user is vegetarian and loves dal.",
                "source_kind": "user_statement",
                "source_ref": "turn-7",
                "event_at": "2026-11-02T10:00:00Z",
            }
        ],
        scope="user:alice",
    )
    chat = open_chat(mode=mode)
    out = chat.turn(
        "What should I cook tonight? Something with dal.",
        [
            Call("memory_search", {"query": "dal"}),
            Call("memory_search", {"query": "dal", "explain": True}),
            Call("memory_get", {"ids": [stored]}),
            "A dal, then.",
        ],
    )
    assert out.failed == [False, False, False], out.results
    compact, full, got = out.results
    shown = [compact] + ([out.auto] if mode == "hybrid" else [])
    for answer in shown:
        assert set(answer) == {"results", "search_id", "reason"}
        assert answer["reason"] == "1 result"
        (record,) = answer["results"]
        assert set(record) == COMPACT_RECORD
        assert record["id"] == stored and record["date"] == "2026-11-02"
        assert record["content"] == "The user is vegetarian and loves dal."
        assert (record["status"], record["source_kind"]) == ("confirmed", "user_statement")
        assert re.fullmatch(
            r"dense #1, lexical #1; over the (dense|lexical) floor", record["reason"]
        )
    (explained,) = full["results"]
    assert explained["source_ref"] == "turn-7" and "generators" in explained["explanation"]
    assert "gate" in full["explanation"]
    assert got["records"][0]["source_ref"] == "turn-7"
    logged = mem.store.query("SELECT id, payload FROM search_log")
    for row in logged:
        assert stored in json.loads(row["payload"])["result_explanations"]
    assert compact["search_id"] in {row["id"] for row in logged}

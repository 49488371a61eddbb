"""A record's life on the write path: promotion needs evidence, supersession follows when a
statement was made, contradictions are found without an attribute, and a write-only grant
reveals nothing (issue 14, items 4-7)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.models import format_time
from agent_memory.core.session import Session
from tests.support.clock import NOW

MONDAY = NOW - timedelta(days=2)
TUESDAY = NOW - timedelta(days=1)


def session(memory: Memory, session_id: str, agent: str = "assistant") -> Session:
    memory.grant(agent, "user:u1", access="readwrite", now=NOW)
    return memory.session(agent_id=agent, user_id="u1", session_id=session_id, now=NOW)


def said(s: Session, text: str, at: datetime = NOW) -> str:
    s.add_turn("user", text, at=at)
    return text


def write(s: Session, content: str, evidence: str | None = None, **args: Any) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "type": "semantic",
        "content": content,
        "source_kind": "user_statement" if evidence else "agent_inference",
        **args,
    }
    if evidence:
        arguments["evidence"] = evidence
    return s.call("memory_write", arguments, now=NOW)


def get(s: Session, *ids: str, history: bool = False) -> dict[str, dict[str, Any]]:
    found = s.call("memory_get", {"ids": list(ids), "include_history": history}, now=NOW)
    return {r["id"]: r for r in found["records"]}


# -- 4. a guess does not become a fact by repetition ------------------------------------------


def test_confirm_without_evidence_in_another_session_does_not_promote(memory: Memory) -> None:
    """memory_revise confirm with no quote, from a second session, only reinforces."""
    first, second = session(memory, "s-1"), session(memory, "s-2")
    guess = write(first, "The user is pregnant.")
    confirmed = second.call(
        "memory_revise", {"id": guess["id"], "action": "confirm"}, now=NOW + timedelta(days=1)
    )
    assert confirmed["status"] == "provisional"
    [record] = get(second, guess["id"]).values()
    assert record["status"] == "provisional" and record["expires_at"] is not None


# -- 5. supersession follows when a statement was made ----------------------------------------


def test_a_statement_extracted_late_is_history_not_current(memory: Memory) -> None:
    """Monday's "I live in Paris", written after Tuesday's "I live in Berlin", is stored as
    superseded history before it, in the same lineage; Berlin stays current."""
    monday, tuesday = session(memory, "s-mon"), session(memory, "s-tue")
    paris = said(monday, "I live in Paris.", at=MONDAY)
    berlin = said(tuesday, "I live in Berlin.", at=TUESDAY)
    current = write(tuesday, "The user lives in Berlin.", berlin, attribute="home_city")
    late = write(monday, "The user lives in Paris.", paris, attribute="home_city")
    assert late["action"] == "history" and late["status"] == "superseded"
    assert late["superseded_by"] == current["id"]
    assert get(monday, late["id"]) == {}  # not current
    records = get(monday, late["id"], current["id"], history=True)
    old, new = records[late["id"]], records[current["id"]]
    assert new["status"] == "confirmed" and new["supersedes_id"] == late["id"]
    assert (old["version"], new["version"]) == (1, 2)
    assert old["stated_at"] == format_time(MONDAY) and new["stated_at"] == format_time(TUESDAY)
    hits = monday.call(
        "memory_search", {"query": "where does the user live", "include_history": True}, now=NOW
    )
    assert {h["id"] for h in hits["results"]} >= {late["id"], current["id"]}


def test_extracting_the_earlier_sentence_does_not_undo_a_self_correction(memory: Memory) -> None:
    """Within one session: the correction, written first, stays current when the sentence
    it corrected is written afterwards; with equal times the later write wins."""
    s = session(memory, "s-1")
    lisbon = said(s, "I live in Lisbon.", at=MONDAY)
    porto = said(s, "Sorry, I moved to Porto in May.", at=MONDAY + timedelta(minutes=1))
    moved = write(s, "The user moved to Porto.", "I moved to Porto")
    assert moved["source_kind"] == "user_statement", moved["notes"]
    earlier = write(s, "The user lives in Lisbon.", lisbon)
    assert earlier["action"] == "history" and earlier["superseded_by"] == moved["id"]
    assert list(get(s, moved["id"], earlier["id"])) == [moved["id"]]
    assert porto  # both sentences are in the transcript


# -- 6. contradictions are found without an attribute -----------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (("I am vegetarian.", "The user is vegetarian."), ("I am not vegetarian", None)),
        (("I have 3 kids.", "The user has 3 kids."), ("I have 4 kids", None)),
        (("I live in Lisbon.", "The user lives in Lisbon."), ("I moved to Porto", None)),
        (
            ("I am on a keto diet.", "The user is on a keto diet."),
            ("I am not doing keto anymore", None),
        ),
        (("I use VS Code.", "The user uses VS Code."), ("I switched from VS Code to Neovim", None)),
    ],
)
def test_a_newer_user_statement_supersedes_what_it_contradicts(
    memory: Memory, before: tuple[str, str], after: tuple[str, str | None]
) -> None:
    """No attribute on either record: the contradiction check among the subject's dense and
    lexical neighbours finds the older record, and the newer statement supersedes it."""
    s = session(memory, "s-1")
    old_quote, old_content = before
    said(s, old_quote, at=MONDAY)
    old = write(s, old_content, old_quote)
    new_quote = after[0]
    said(s, f"Actually, {new_quote}.", at=TUESDAY)
    content = "The user " + new_quote.removeprefix("I ").replace("am ", "is ", 1)
    content = content.replace(" have ", " has ").replace("use ", "uses ") + "."
    new = write(s, content, new_quote)
    assert new["source_kind"] == "user_statement", new["notes"]
    assert new["action"] == "superseded" and new["supersedes_id"] == old["id"], new
    assert list(get(s, old["id"], new["id"])) == [new["id"]]


def test_a_lower_ranked_contradiction_is_a_conflict_and_never_reinforces(memory: Memory) -> None:
    """An agent's guess that contradicts the user's words is stored beside them as a
    conflict; repeating the user's fact reinforces it, never the contradicting guess."""
    s = session(memory, "s-1")
    quote = said(s, "I am vegetarian.", at=MONDAY)
    stated = write(s, "The user is vegetarian.", quote)
    guess = write(s, "The user is not vegetarian.")
    assert guess["action"] == "conflict" and guess["conflicts_with"] == [stated["id"]]
    assert get(s, stated["id"])[stated["id"]]["status"] == "confirmed"


# -- 7. a write-only grant reveals nothing ----------------------------------------------------


def test_a_write_only_grant_learns_nothing_about_hidden_records(memory: Memory) -> None:
    """An agent that may write user:u1 but not read it neither reinforces, contradicts nor
    supersedes the records there, and nothing it gets back names one."""
    owner = session(memory, "s-owner")
    quote = said(owner, "I live in Lisbon.", at=MONDAY)
    hidden = [
        write(owner, "The user lives in Lisbon.", quote, attribute="home_city")["id"],
        write(owner, "The user is pregnant.")["id"],
    ]
    memory.grant("scribe", "user:u1", access="write", now=NOW)
    scribe = memory.session(agent_id="scribe", user_id="u1", session_id="s-scribe", now=NOW)
    results = [
        write(scribe, "The user is pregnant."),  # a duplicate of a hidden record
        write(scribe, "The user lives in Porto.", attribute="home_city"),  # its subject
        write(scribe, "The user moved to Porto."),  # contradicts it
    ]
    for result in results:
        assert result["action"] == "created", result
        assert not any(record_id in json.dumps(result) for record_id in hidden)
    records = get(owner, *hidden)
    assert [records[i]["status"] for i in hidden] == ["confirmed", "provisional"]
    assert records[hidden[1]]["confidence"] == 0.5  # not reinforced

"""A question about the user as a whole ("What do you know about me?") is answered with the
user's own records in profile order (core.search.profile): never another user's, a project's,
a forgotten or retired record, a session summary or an imported turn; and a question with a
topic is searched as before."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.search import profile
from agent_memory.core.search.explain import for_model
from agent_memory.core.search.ranking import replay
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory

ASKED = NOW + timedelta(days=30)


@pytest.mark.parametrize(
    "query",
    [
        "What do you know about me?",
        "what do u know about me so far",
        "hey! what do you remember about me? 😊",
        "Tell me everything you know about me.",
        "What have you learned about me over our chats?",
        "what info u got on me",
        "Who am I?",
        "who do you think I am, based on everything",
        "Tell me about myself",
        "describe me",
        "sum me up",
        "What do we know about the user?",
        "everything known about this user",
        "user profile",
        "What facts have been recorded about the user?",
        "about me",
    ],
)
def test_a_question_about_the_user_as_a_whole_is_read(query: str) -> None:
    assert profile.asks(query)


@pytest.mark.parametrize(
    "query",
    [
        "What's my name?",
        "What do you know about my job?",
        "what do you know about me and running?",
        "What do you remember about my trip to Rome?",
        "what do you know about me from the email thread with HR",
        "Tell me about yourself",
        "What do you know?",
        "What do you know about Python?",
        "what do you know about the user table schema",
        "What do you know about Priya?",
        "who am i meeting tomorrow?",
        "What do I know about taxes?",
        "forget everything you know about me",
        "Write a short bio about me",
        "tell me a joke about me",
        "what did you tell me yesterday?",
        "what's my profile picture?",
        "what about me?",
        "What are my hobbies?",
    ],
)
def test_a_question_with_a_topic_is_not(query: str) -> None:
    assert not profile.asks(query)


def said(session: Session, sentence: str, content: str, *, kind: str, minutes: int) -> str:
    """Alice says ``sentence``; the agent writes ``content`` as her statement of it."""
    at = NOW + timedelta(minutes=minutes)
    session.add_turn("user", sentence, at=at)
    written = session.call(
        "memory_write",
        {"type": kind, "content": content, "source_kind": "user_statement", "evidence": sentence},
        now=at,
    )
    assert written["status"] == "confirmed", written
    return str(written["id"])


def ask(memory: Memory, query: str, user: str = "alice", **arguments: Any) -> dict[str, Any]:
    """``query`` asked for ``user``; the answer replays from its log row."""
    session = memory.session(agent_id="assistant", user_id=user, session_id="q", now=ASKED)
    result = session.call("memory_search", {"query": query, **arguments}, now=ASKED)
    assert "error" not in result
    [row] = memory.store.query(
        "SELECT payload FROM search_log WHERE id = ?", (result["search_id"],)
    )
    assert replay(json.loads(row["payload"])) == [r["id"] for r in result["results"]]
    return result


@pytest.fixture
def store(store_path: Path, real_embedder: FlagEmbedder) -> Any:
    """Alice's facts, an event, a guess, a fact forgotten and one corrected, an imported
    conversation of hers; Bob's fact; a project's note. Yields (memory, alice's ids)."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        for scope in ("user:alice", "user:bob", "project:apollo"):
            memory.grant("assistant", scope, now=NOW)
        alice = memory.session(
            agent_id="assistant",
            user_id="alice",
            session_id="s1",
            now=NOW,
            write_targets={"personal": "user:alice", "project": "project:apollo"},
        )
        ids = {
            "home": said(
                alice, "I live in Lisbon.", "The user lives in Lisbon.", kind="semantic", minutes=1
            ),
            "work": said(
                alice,
                "I'm a nurse at Santa Maria.",
                "The user is a nurse at Santa Maria.",
                kind="semantic",
                minutes=2,
            ),
            "race": said(
                alice,
                "I ran a half marathon on Sunday.",
                "I ran a half marathon on Sunday.",
                kind="episodic",
                minutes=3,
            ),
            "allergy": said(
                alice,
                "I'm allergic to peanuts.",
                "The user is allergic to peanuts.",
                kind="semantic",
                minutes=4,
            ),
        }
        gone = said(
            alice,
            "My locker code is 4471.",
            "The user's locker code is 4471.",
            kind="semantic",
            minutes=5,
        )
        assert (
            alice.call("memory_forget", {"id": gone, "reason": "user asked"})["status"] == "deleted"
        )
        guess = alice.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user probably likes hiking.",
                "source_kind": "agent_inference",
            },
            now=NOW + timedelta(minutes=6),
        )
        assert guess["status"] == "provisional", guess
        ids["guess"] = guess["id"]
        alice.add_turn("user", "Sorry, I live in Porto, not Lisbon.", at=NOW + timedelta(minutes=7))
        corrected = alice.call(
            "memory_revise",
            {
                "id": ids["home"],
                "action": "correct",
                "content": "The user lives in Porto.",
                "evidence": "Sorry, I live in Porto, not Lisbon.",
                "source_kind": "user_statement",
            },
            now=NOW + timedelta(minutes=7),
        )
        assert "error" not in corrected, corrected
        ids["home"] = corrected["id"]
        note = alice.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "Apollo ships on Friday.",
                "source_kind": "system",
                "target": "project",
                "about": [{"kind": "project", "name": "Apollo"}],
            },
            now=NOW,
        )
        assert "error" not in note, note
        memory.import_conversation(
            [{"id": "t1", "role": "user", "text": "I have two cats, Miso and Tofu.", "at": NOW}],
            scope="user:alice",
            session_id="chat",
        )
        bob = memory.session(agent_id="assistant", user_id="bob", session_id="s2", now=NOW)
        bob.add_turn("user", "I live in Oslo.", at=NOW)
        bob.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user lives in Oslo.",
                "source_kind": "user_statement",
                "evidence": "I live in Oslo.",
            },
            now=NOW,
        )
        yield memory, ids


def test_what_do_you_know_about_me_returns_the_users_own_records_in_profile_order(
    store: Any,
) -> None:
    """Her confirmed facts (newest statement first), then her event, then the agent's guess:
    not the forgotten code, the corrected home, the imported turn, Bob's home or the project's
    note. Each result says it passed as one of her records."""
    memory, ids = store
    result = ask(memory, "What do you know about me?")
    assert [r["id"] for r in result["results"]] == [
        ids["home"],
        ids["allergy"],
        ids["work"],
        ids["race"],
        ids["guess"],
    ]
    compact = for_model("memory_search", {"query": "What do you know about me?"}, result)
    assert [r["reason"] for r in compact["results"]] == [
        f"profile #{k}; one of the user's own records" for k in range(1, 6)
    ]
    assert result["explanation"]["gate"]["profile"] == 5


def test_the_profile_keeps_to_the_limit_in_profile_order(store: Any) -> None:
    memory, ids = store
    result = ask(memory, "who am i?", limit=2)
    assert [r["id"] for r in result["results"]] == [ids["home"], ids["allergy"]]


def test_another_users_profile_is_their_own(store: Any) -> None:
    memory, _ = store
    result = ask(memory, "What do we know about the user?", user="bob")
    assert [r["content"] for r in result["results"]] == ["The user lives in Oslo."]


def test_a_question_with_a_topic_is_searched_as_before(store: Any) -> None:
    """ "What's my name?" holds no profile word: the gate judges it, nothing passes as the
    user's record, and no stored record says a name."""
    memory, _ = store
    result = ask(memory, "What's my name?")
    assert "profile" not in result["explanation"]["gate"]
    assert all(r["explanation"]["passed_on"] != "profile" for r in result["results"])


def test_a_user_with_nothing_but_imported_turns_is_searched_as_before(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A turn is a transcript, not a fact: with no records but turns the question gets the
    usual search, and an empty store an empty answer."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        assert ask(memory, "What do you know about me?")["results"] == []
        memory.import_conversation(
            [{"id": "t1", "role": "user", "text": "I have two cats, Miso and Tofu.", "at": NOW}],
            scope="user:alice",
            session_id="chat",
        )
        result = ask(memory, "What do you know about me?")
        assert all(r["explanation"]["passed_on"] != "profile" for r in result["results"])


def test_an_extracted_profile_leaves_the_session_summary_out(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Through extraction: the statements' records answer, the summary restating them does
    not."""
    with extracting_memory(store_path, real_embedder) as memory:
        extracted_session(
            memory, "s1", "I work as a pharmacist in Leeds.", "My daughter Ada is four."
        )
        [summary] = memory.store.query(
            "SELECT id FROM records WHERE source_kind = 'session_summary'"
        )
        result = ask(memory, "What have you learned about me so far?")
        assert result["results"]
        assert summary["id"] not in [r["id"] for r in result["results"]]
        assert {r["explanation"]["passed_on"] for r in result["results"]} == {"profile"}

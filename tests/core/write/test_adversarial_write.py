"""Adversarial review of issue 14 through the public surface (memory_write, memory_revise) on a
real store and the packaged model: attacks a sloppy or hostile model could make that earlier
tests did not try. Each sentence here is written for this file, not taken from a data set."""

from __future__ import annotations

from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.session import Session
from tests.support.clock import NOW

GUESS = {"type": "semantic", "source_kind": "agent_inference"}


def _session(memory: Memory, session_id: str, *turns: str) -> Session:
    memory.grant("assistant", "user:u1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id=session_id, now=NOW)
    for turn in turns:
        session.add_turn("user", turn, at=NOW)
    return session


def _guess(session: Session, content: str, quote: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {**GUESS, "content": content}
    if quote is not None:
        args["evidence"] = quote
    return session.call("memory_write", args, now=NOW)


# -- item 4: a guess does not become a fact by quoting any two user turns ---------------------


def test_two_unrelated_user_quotes_do_not_promote_a_guess(memory: Memory) -> None:
    """The quotes are verbatim user words from different turns, but say nothing about the
    guess: they are not observations of it, so the guess stays provisional."""
    one = _session(memory, "s-1", "My favourite colour is teal.")
    first = _guess(one, "The user is expecting twins.", "My favourite colour is teal")
    two = _session(memory, "s-2", "The train was late again this morning.")
    second = _guess(two, "The user is expecting twins.", "The train was late again")
    assert second["id"] == first["id"]
    assert second["status"] == "provisional"


def test_two_quotes_their_turns_void_do_not_promote_a_guess(memory: Memory) -> None:
    """A quote its own turn frames as fiction or someone else's claim is not the user's
    observation either, however close its words are to the guess."""
    one = _session(memory, "s-1", "In the screenplay I'm drafting, I am a smuggler.")
    first = _guess(one, "The user is a smuggler.", "I am a smuggler")
    two = _session(memory, "s-2", "My cousin jokes that I am a smuggler.")
    second = _guess(two, "The user is a smuggler.", "I am a smuggler.")
    assert second["id"] == first["id"]
    assert second["status"] == "provisional"


def test_two_related_user_quotes_still_promote(memory: Memory) -> None:
    """The rule the attack must not break: two different user turns about the guess."""
    one = _session(memory, "s-1", "I never touch meat, not even chicken.")
    first = _guess(one, "The user does not eat meat.", "I never touch meat")
    assert first["status"] == "provisional"
    two = _session(memory, "s-2", "Meat is off my plate for good.")
    second = _guess(two, "The user does not eat meat.", "Meat is off my plate for good")
    assert second["id"] == first["id"]
    assert second["status"] == "confirmed"


# -- item 1: the quote in its turn, and in the turn that answers it ----------------------------


def _claim(session: Session, content: str, quote: str) -> dict[str, Any]:
    args = {"type": "semantic", "content": content, "source_kind": "user_statement"}
    return session.call("memory_write", {**args, "evidence": quote}, now=NOW)


@pytest.mark.parametrize(
    ("turns", "quote", "content"),
    [
        (("I run marathons.", "lol no, I can barely jog"), "I run marathons", "The user runs."),
        (
            ("I have a twin brother.", "Haha, I was kidding, no siblings."),
            "I have a twin brother",
            "The user has a twin brother.",
        ),
        (
            ("I own a sailboat.", "That was a lie, sorry."),
            "I own a sailboat",
            "The user owns a sailboat.",
        ),
    ],
)
def test_a_statement_the_next_user_turn_takes_back_is_not_confirmed(
    memory: Memory, turns: tuple[str, ...], quote: str, content: str
) -> None:
    result = _claim(_session(memory, "s-1", *turns), content, quote)
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")


def test_a_next_turn_that_moves_on_does_not_void_the_statement(memory: Memory) -> None:
    session = _session(memory, "s-1", "I own a sailboat.", "Sorry, one more thing: any tips?")
    result = _claim(session, "The user owns a sailboat.", "I own a sailboat")
    assert (result["status"], result["source_kind"]) == ("confirmed", "user_statement")


@pytest.mark.parametrize(
    ("turn", "quote", "content"),
    [
        ("I own a canoe. Not really, it's my uncle's.", "I own a canoe", "The user owns a canoe."),
        (
            "Lol I'm a chess grandmaster /s",
            "I'm a chess grandmaster",
            "The user is a chess grandmaster.",
        ),
        (
            "I adore filling in tax forms, said no one ever.",
            "I adore filling in tax forms",
            "The user adores filling in tax forms.",
        ),
        (
            "For my Pathfinder campaign, I'm an elven archer.",
            "I'm an elven archer",
            "The user is an elven archer.",
        ),
    ],
)
def test_retraction_sarcasm_and_game_frames_void_the_quote(
    memory: Memory, turn: str, quote: str, content: str
) -> None:
    result = _claim(_session(memory, "s-1", turn), content, quote)
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")


def test_a_company_abbreviation_does_not_end_the_sentence(memory: Memory) -> None:
    """ "Inc." mid-sentence: the quote's sentence runs on to the hedge that follows it."""
    turn = "I work for Blue Fern Ltd. as a tester, I think."
    result = _claim(
        _session(memory, "s-1", turn),
        "The user works for Blue Fern Ltd.",
        "I work for Blue Fern Ltd.",
    )
    assert result["source_kind"] == "agent_inference"

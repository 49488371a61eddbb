"""A user who says who they are is remembered by name (core.judge.introduction,
core.extraction.phrasing.named): "Hi, I'm Priya, by the way." was stored as "The user is
Priya.", which "What's my name?" did not find in a store of a few facts (cosine 0.33 against
the dense floor 0.35, and "name" in no record). Now it is "The user's name is Priya.", keyed
by the attribute "name", confirmed by the offline judge, and the question finds it. "I'm" also
says what one is, plays or is not, so the introduction must open its sentence and what
follows must be a name, read the more strictly the less the sentence says it is one: a false
name would supersede the true one."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.judge.offline import OfflineJudge
from agent_memory.core.models import Status
from tests.support.clock import NOW
from tests.support.extraction import (
    extracted_session,
    extracting_memory,
    proposed,
    stated_records,
)


def extract(text: str) -> list[tuple[str, str | None]]:
    """(content, attribute) of what the offline extractor proposes for one user turn."""
    return [(c.content, c.attribute) for c in proposed(text)]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Hi, I'm Priya, by the way.", "Priya"),
        ("I'm Priya, nice to meet you!", "Priya"),  # greeted after the name
        ("Hello, I am Tomasz Nowak.", "Tomasz Nowak"),
        ("I'm David and I live in Leeds.", "David"),  # one person in WordNet, not a kind
        ("My name's Anne-Marie O'Neill.", "Anne-Marie O'Neill"),
        ("Hi there! I'm Oluwaseun and I need help with my taxes.", "Oluwaseun"),  # greeted
        ("Hi, I'm Priya Brown.", "Priya Brown"),  # a surname that is an adjective
        ("My name is Jack.", "Jack"),  # a common word, which only "name" names
        ("my name is priya", "priya"),  # "my name is" names it, in lower case too
    ],
)
def test_a_self_introduction_is_the_users_name(said: str, name: str) -> None:
    assert (f"The user's name is {name}.", "name") in extract(said)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I'm Canadian.", "The user is Canadian."),  # an adjective: a nationality
        ("I'm Christian.", "The user is Christian."),  # a faith
        ("I'm Vegan.", "The user is Vegan."),  # capitalised, but a kind of person
        ("I'm Priya's mum.", "The user is Priya's mum."),  # whose mum, not a name
        ("I'm Latina.", "The user is Latina."),  # alone, a word WordNet does not know
        ("I'm Legend.", "The user is Legend."),  # alone, a common word
        ("For Halloween, I'm Elsa.", "The user is Elsa."),  # what opens it frames it
        ("Yeah, and I'm Beyonce.", "The user is Beyonce."),
        ("Hi, I'm Product Manager.", "The user is Product Manager."),  # a kind of person
        ("Hi, I'm Sales.", "The user is Sales."),  # a common word (the third review's)
        ("Hi, I'm Maori.", "The user is Maori."),
        ("Hi, I'm Him.", "The user is Him."),
        ("My name is Secret.", "My name is Secret."),  # an adjective alone
        ("Hi, I'm Dr. Patel.", "The user is Dr. Patel."),  # cut at "Dr.": no name
        ("My name is hard to pronounce.", "My name is hard to pronounce."),
        ("My name was Smith before I got married.", "My name was Smith before I got married."),
    ],
)
def test_what_is_no_name_is_not_read_as_one(said: str, kept: str) -> None:
    got = extract(said)
    assert not any(attribute == "name" for _, attribute in got), got
    assert kept in [content for content, _ in got]


def test_someone_elses_introduction_is_not_the_users() -> None:
    assert extract('"Hi, I\'m Rachel," she said.') == []


def test_call_me_is_what_the_user_wants_to_be_called() -> None:
    assert ("The user wants to be called Liz.", None) in extract("Please call me Liz.")
    assert extract("Call me tomorrow.") == []  # a time, no name
    assert extract("Call me anytime.") == []


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("Hi, I'm Priya, by the way.", "The user's name is Priya.", True),
        ("My name's Tomasz.", "The user's name is Tomasz.", True),
        ("I'm Canadian.", "The user's name is Canadian.", False),
        ("I'm not Priya.", "The user's name is Priya.", False),
        ("My sister said I'm Priya.", "The user's name is Priya.", False),  # reported
        ("I'm Priya.", "The user's name is Priyanka.", False),  # another name
        ("Hi, I'm Anna and my husband is Ben.", "The user's name is Ben.", False),
        ("For Halloween, I'm Elsa.", "The user's name is Elsa.", False),
    ],
)
def test_the_judge_reads_an_introduction_as_the_name(
    quote: str, statement: str, holds: bool
) -> None:
    assert OfflineJudge().entails(quote, statement).holds is holds


def test_the_name_said_is_found_by_asking_for_it(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Through a session ended and extracted: the name is a confirmed user statement, and
    "What's my name?" answers with it among the user's other facts."""
    with extracting_memory(tmp_path / "m.db", real_embedder) as mem:
        extracted_session(
            mem,
            "s1",
            "Hi, I'm Priya, by the way.",
            "I work as a pharmacist in Manchester.",
            "I play badminton every Thursday evening.",
            days=-3,
        )
        [named] = [r for r in stated_records(mem) if r.attribute == "name"]
        assert (named.content, named.status) == ("The user's name is Priya.", Status.CONFIRMED)
        session = mem.session(agent_id="assistant", user_id="alice", session_id="ask", now=NOW)
        result = session.call("memory_search", {"query": "What's my name?"}, now=NOW)
        assert [r["content"] for r in result["results"]][:1] == ["The user's name is Priya."]


def test_a_part_played_does_not_replace_the_name(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A first review found "For Halloween, I'm Elsa." stored as the user's name, superseding
    "Priya" (the attribute "name" keys one value)."""
    with extracting_memory(tmp_path / "m.db", real_embedder) as mem:
        extracted_session(mem, "s1", "Hi, I'm Priya, by the way.", days=-9)
        extracted_session(mem, "s2", "For Halloween, I'm Elsa.", days=-3)
        named = [(r.content, r.status) for r in stated_records(mem) if r.attribute == "name"]
        assert named == [("The user's name is Priya.", Status.CONFIRMED)]

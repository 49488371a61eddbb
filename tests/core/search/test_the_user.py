"""A query that names the person the store is about as "the user" (core.search.lexical
.search_words): every fact the extractors phrase says "The user ...", so the word matched them
all, and asked in the third person, as agents often ask, a question was answered with every
fact in a small store. The word is left out of what the search matches by word; the query's
vector keeps it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agent_memory.core import Memory
from agent_memory.core.search.lexical import query_tokens, search_words
from agent_memory.core.session import Session
from tests.core.search.test_standing import stated
from tests.support.clock import NOW

# What Alice said, and the fact an extractor phrases from it.
SAID = [
    ("My sister Ines lives in Porto.", "The user's sister Ines lives in Porto."),
    (
        "I work as a data analyst at a logistics firm.",
        "The user works as a data analyst at a logistics firm.",
    ),
    ("I'm allergic to ibuprofen.", "The user is allergic to ibuprofen."),
    ("We have a corgi called Biscuit.", "The user has a corgi called Biscuit."),
    (
        "I'm training for the Lisbon half marathon.",
        "The user is training for the Lisbon half marathon.",
    ),
    ("My husband Tom teaches chemistry.", "The user's husband Tom teaches chemistry."),
    ("I want to redo the kitchen this autumn.", "The user wants to redo the kitchen this autumn."),
    ("I'm learning the cello.", "The user is learning the cello."),
]


@pytest.fixture
def alice(memory: Memory) -> Session:
    return stated(memory, SAID)


def contents(session: Session, query: str) -> list[str]:
    result = session.call("memory_search", {"query": query}, now=NOW + timedelta(days=3))
    return [r["content"] for r in result["results"]]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("Where does the user live?", ["live"]),
        ("What is the user's dog called?", ["dog", "called"]),
        ("What is the user\u2019s job?", ["job"]),
        ("THE USER'S sister", ["sister"]),
    ],
)
def test_the_user_is_no_word_to_match_by(query: str, words: list[str]) -> None:
    assert search_words(query) == words


@pytest.mark.parametrize(
    "query",
    [
        "What do our power users want?",
        "What did the users' survey say?",
        "Who leads user research?",
        "Where do I live?",
        "user",  # nothing else to match by: the word stays
    ],
)
def test_other_senses_of_user_search_as_before(query: str) -> None:
    assert search_words(query) == query_tokens(query)


def test_the_user_alone_searches_by_the_word() -> None:
    assert search_words("the user") == ["user"]


def test_a_third_person_question_gets_its_answer_not_every_phrased_fact(alice: Session) -> None:
    """Before, "What pet does the user have?" matched "user" in all eight facts: each passed the
    small store's floor for a record sharing a query word, the allergy first."""
    assert contents(alice, "What pet does the user have?") == [
        "The user has a corgi called Biscuit."
    ]
    found = contents(alice, "What does the user do for work?")
    assert found[0] == "The user works as a data analyst at a logistics firm."
    assert "The user is allergic to ibuprofen." not in found


def test_a_third_person_question_nothing_answers_stays_empty(alice: Session) -> None:
    for query in ("What is the user's favourite movie?", "What car does the user have?"):
        assert contents(alice, query) == [], query

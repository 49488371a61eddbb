"""A question that asks several things is searched as its parts (core.search.compound): each
part through the whole pipeline, their answers taken in turn within the request's limit and
budget; the search log keeps every part, so the answer replays; the explanation says so; and
forgetting a record it found erases every part's words from the log row."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.evaluation.calibrate import final_ids
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.search import compound
from agent_memory.core.search.explain import for_model
from agent_memory.core.search.ranking import Candidate, in_turn, replay
from agent_memory.core.session import Session
from tests.support.clock import NOW


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "What did I cook for my brother's birthday and where do I work?",
            ["What did I cook for my brother's birthday", "where do I work?"],
        ),
        (
            "What does my husband do, and what is our son studying?",
            ["What does my husband do", "what is our son studying?"],
        ),
        (  # an auxiliary and its subject start the second question
            "Who covered for me after surgery, and is he still working with me?",
            ["Who covered for me after surgery", "is he still working with me?"],
        ),
        ("Where do I live? What's my job?", ["Where do I live?", "What's my job?"]),
        (  # questions listed with commas, "whats" written without its apostrophe
            "whats my job, where do I live, and who is my partner?",
            ["whats my job", "where do I live", "who is my partner?"],
        ),
        (  # a form of "do" and the user's own start a question too
            "Where do I work, and does my daughter still do ballet?",
            ["Where do I work", "does my daughter still do ballet?"],
        ),
        (  # "&", a dash, a full-width question mark, "also" after one
            "what's my job & where do i live",
            ["what's my job", "where do i live"],
        ),
        (
            "What\u2019s my job\u2014and who\u2019s my boss?",
            ["What\u2019s my job", "who\u2019s my boss?"],
        ),
        (
            "where\u2019s my car\uff1f what\u2019s my spot\uff1f",
            ["where\u2019s my car\uff1f", "what\u2019s my spot\uff1f"],
        ),
        (
            "Quick q. What's my manager's name? Also when's my review?",
            ["Quick q. What's my manager's name?", "when's my review?"],
        ),
        (  # a question opening with an aside is searched with it
            "Hmm? Where do I work? What's my job?",
            ["Hmm? Where do I work?", "What's my job?"],
        ),
        (  # a fragment stays with the question before it
            "What did I eat in Rome and where did I stay, and when?",
            ["What did I eat in Rome", "where did I stay, and when?"],
        ),
    ],
)
def test_a_question_of_several_is_split_where_the_next_starts(
    query: str, expected: list[str]
) -> None:
    assert compound.parts(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "When is Jess's bachelorette weekend, and where?",  # "where?" leans on the first
        "Who did I meet, and when and where?",
        "What do my wife and my father do for work?",  # two people, one question
        "How did my wife and my sister meet?",
        "When did I go hiking and have a bad time?",  # no subject after the auxiliary
        "Can you give me tips for presentation? I am nervous to talk with americans.",
        "What should I make for dinner tonight? Something quick.",
        "I like tea and what else?",
        "Where do I live? What's my job? Who is my boss? When is my flight? Which gym do I use?",
        "What's my dog's name?",
        # a short or topic-less opening before one question (once an IndexError)
        "Thanks! And where do I live?",
        "ok and what's my job?",
        "Really? When is my flight?",
        "Can you help? What was the name of that plumber?",
        ", , , and where do I work?",
        # a clause, not a question, after "and": its subject or "to" before any auxiliary
        "Tell me about my trip to Japan and how it went",
        "Plan my daughter's party and what food to serve",
        "Compare what I paid last year and what I'm paying now",
        "Look up what I ate yesterday and how many calories that was",
        "Book a table for two and can you make it at 8?",  # a request to the assistant
        "Order the same dog food as last time and have it delivered Tuesday",
        # a quotation
        'Find my note titled "Who am I and what do I want"',
        "What did I reply when Jo texted 'are you free and do you have the keys?'",
        # a relative clause after a comma
        "What did Deb share a photo of, which brought a smile to Jolene's face?",
        "If I move, where do I register my car?",
        # pasted text
        "Where do I live?\nWhat's my job?",
        "Where do I live?\u2028What's my job?",
        "What's my job? " + "Where do I live? " * 30,
    ],
)
def test_one_question_is_searched_whole(query: str) -> None:
    assert compound.parts(query) == []


FACTS = [
    "For Rachel's birthday I decided to cook a mushroom risotto.",
    "For my mum's birthday I baked a lemon drizzle cake.",
    "I cooked a Thai green curry for my brother's birthday dinner.",
    "I'm planning to cook paella for our anniversary.",
    "For Tom's birthday party I decided to make lasagna for twelve people.",
    "I made sushi at home for the first time last weekend.",
    "I live in Leeds with my wife and our cat Miso.",
    "I work as a data analyst at a bank.",
]
CURRY, WORK = "f2", "f7"
ASKED = "What did I cook for my brother's birthday and where do I work?"


@contextmanager
def stated(
    path: Path, embedder: FlagEmbedder, facts: list[str]
) -> Iterator[tuple[Memory, Session]]:
    """A store of ``facts`` Alice stated (source_ref f0, f1 ...), and her assistant's session."""
    with Memory.open(path, embedder=embedder, now=NOW) as mem:
        mem.grant("assistant", "user:alice")
        mem.import_records(
            [
                {"type": "semantic", "content": text, "source_kind": "user_statement"}
                | {"source_ref": f"f{i}"}
                for i, text in enumerate(facts)
            ],
            scope="user:alice",
        )
        yield mem, mem.session(agent_id="assistant", user_id="alice", session_id="q", now=NOW)


@pytest.fixture
def asking(tmp_path: Path, real_embedder: FlagEmbedder) -> Iterator[tuple[Memory, Session]]:
    """Alice's store of cooking facts and one about her work, and her assistant's session."""
    with stated(tmp_path / "m.db", real_embedder, FACTS) as opened:
        yield opened


def refs(result: dict[str, Any]) -> list[str]:
    return [r["source_ref"] for r in result["results"]]


def test_each_part_gets_its_answer_within_the_limit(asking: tuple[Memory, Session]) -> None:
    """Searched whole, five cooking facts outrank the one about work, and a two-result answer
    holds two meals; searched as its parts, one answer of each."""
    mem, s = asking
    result = s.call("memory_search", {"query": ASKED, "limit": 2}, now=NOW)
    assert refs(result) == [CURRY, WORK]
    explanation = result["explanation"]
    assert [p["query"] for p in explanation["parts"]] == compound.parts(ASKED)
    assert [r["explanation"]["part"] for r in result["results"]] == [1, 2]
    assert [r["explanation"]["rank"] for r in result["results"]] == [1, 2]
    assert [r["explanation"]["part_rank"] for r in result["results"]] == [1, 1]
    assert explanation["returned"] == 2 and explanation["gate"]["decision"] == "pass"
    payload = mem.store.search_log_payload(result["search_id"])
    assert payload is not None and payload["query"] == ASKED
    assert replay(payload) == [r["id"] for r in result["results"]]
    assert final_ids(payload, Config().gate) == payload["final_ids"]  # the calibration's replay
    compact = for_model("memory_search", {"query": ASKED}, result)
    assert [r["id"] for r in compact["results"]] == [r["id"] for r in result["results"]]
    cut = explanation["cut"]["count"] + explanation["padding_cut"]["count"]
    assert (
        "part" not in compact["results"][0] and compact["reason"] == f"{cut} weaker candidates cut"
    )


def test_each_part_is_searched_for_its_share_and_counted_once(
    asking: tuple[Memory, Session],
) -> None:
    """A question of two asked for 4 searches each part for 2; a record both parts found is
    one candidate, and the cut leaves out what another part answered with."""
    mem, s = asking
    result = s.call("memory_search", {"query": ASKED, "limit": 4}, now=NOW)
    payload = mem.store.search_log_payload(result["search_id"])
    assert payload is not None
    assert [p["request"]["limit"] for p in payload["compound"]["parts"]] == [2, 2]
    assert payload["request"]["limit"] == 4 and "parts" not in payload["explanation"]
    explanation = result["explanation"]
    fused = {c["id"] for p in payload["compound"]["parts"] for c in p["candidates"]["fused"]}
    assert (
        explanation["candidates"]["fused"]
        == len(fused)
        < sum(len(p["candidates"]["fused"]) for p in payload["compound"]["parts"])
    )
    assert explanation["cut"]["count"] <= len(fused) - len(result["results"])


def test_the_whole_answer_keeps_the_token_budget(asking: tuple[Memory, Session]) -> None:
    """Each part is searched with the whole budget; their answers together are cut to it."""
    mem, s = asking
    wide = s.call("memory_search", {"query": ASKED}, now=NOW)
    tight = s.call("memory_search", {"query": ASKED, "budget_tokens": 60}, now=NOW)
    assert 0 < len(tight["results"]) < len(wide["results"])
    payload = mem.store.search_log_payload(tight["search_id"])
    assert payload is not None
    tokens = payload["budget"]["tokens"]
    assert sum(tokens[i] for i in payload["final_ids"]) <= 60
    assert tight["explanation"]["over_budget"] >= 1
    assert replay(payload) == [r["id"] for r in tight["results"]]


def test_parts_that_found_what_no_budget_holds_say_so(asking: tuple[Memory, Session]) -> None:
    _, s = asking
    result = s.call("memory_search", {"query": ASKED, "budget_tokens": 1}, now=NOW)
    assert result["results"] == []
    assert result["explanation"]["why_empty"] == "no passing record fits the token budget"


def test_nothing_found_for_any_part_says_so(asking: tuple[Memory, Session]) -> None:
    _, s = asking
    result = s.call(
        "memory_search",
        {"query": "What is the boiling point of tungsten, and how far away is Neptune?"},
        now=NOW,
    )
    assert result["results"] == []
    assert result["explanation"]["why_empty"].startswith("no part of the question found anything")
    assert for_model("memory_search", {}, result)["reason"] == (
        "no part of the question found anything"
    )


@pytest.mark.parametrize("query", [ASKED, "What did I cook for my brother's birthday?"])
def test_forgetting_a_record_erases_what_was_asked_from_the_rows_that_found_it(
    asking: tuple[Memory, Session], query: str
) -> None:
    """Every part's query, and the words read from the question (the subject's words, which
    a single question's row kept too), go from the log row that found a forgotten record."""
    mem, s = asking
    result = s.call("memory_search", {"query": query, "limit": 2}, now=NOW)
    [curry] = [r["id"] for r in result["results"] if r["source_ref"] == CURRY]
    mem.forget(curry, now=NOW)
    [row] = mem.store.query(
        "SELECT query, payload FROM search_log WHERE id = ?", [result["search_id"]]
    )
    assert row["query"] == "[forgotten]"
    text = row["payload"].casefold()
    assert not {"cook", "brother", "birthday", "work"} & set(re.findall(r"[a-z]+", text))
    logged = json.loads(row["payload"])
    parts = logged.get("compound", {}).get("parts", [])
    assert [p["request"]["query"] for p in parts] == ["[forgotten]"] * len(parts)
    assert replay(logged) == logged["final_ids"]  # what replay reads stays


def test_past_the_first_results_only_what_passed_on_its_own_is_taken() -> None:
    """The padding rule of one answer (gate.close_within) holds for the whole: once the
    answer holds ``within`` results, one only close to its part's best is left out."""
    first = [Candidate("a", passed_on="dense"), Candidate("b", passed_on="margin")]
    second = [Candidate("c", passed_on="dense"), Candidate("d", passed_on="lexical")]
    tokens = dict.fromkeys("abcd", 10)
    taken, _, padding = in_turn([first, second], tokens, within=2, budget=100, limit=4)
    assert [c.record_id for c in taken] == ["a", "c", "d"]
    assert [c.record_id for c in padding] == ["b"]

"""memory_search collapses the records of one turn that only that turn's words found
(core.search.siblings): extracted records carry their whole evidence turn as retrieval
context, so a question about the turn's topic finds each of its side remarks too."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.search.ranking import replay
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory

TURN = (
    "ok so i need a study schedule for the lsat and i'm kind of freaking out. i work full "
    "time as a junior paralegal. my sister lives in Denver and she is a nurse."
)
ASKED = NOW + timedelta(days=1)


def ask(memory: Memory, query: str) -> dict[str, Any]:
    session = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=ASKED)
    result = session.call("memory_search", {"query": query}, now=ASKED)
    assert "error" not in result
    [row] = memory.store.query(
        "SELECT payload FROM search_log WHERE id = ?", (result["search_id"],)
    )
    assert replay(json.loads(row["payload"])) == [r["id"] for r in result["results"]]
    return result


def answer(memory: Memory, turn: str, query: str) -> list[str]:
    """The contents found for ``query`` once ``turn`` is extracted; some of its records were
    folded into their turn's best one."""
    extracted_session(memory, "s1", turn)
    result = ask(memory, query)
    assert result["explanation"]["siblings_collapsed"] >= 1
    return [r["content"] for r in result["results"]]


def test_one_turns_side_remarks_collapse_into_its_best_record(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with extracting_memory(store_path, real_embedder) as memory:
        extracted_session(memory, "s1", TURN, "Also my dog Biscuit hates the rain.")
        siblings = {
            r["content"]: r["id"]
            for r in memory.store.query(
                "SELECT id, content FROM records WHERE context IS NOT NULL AND context LIKE ?",
                ("%lsat%",),
            )
        }
        # The offline extractor keeps the turn's sentences apart, each with the turn as context.
        assert "The user is kind of freaking out." in siblings and len(siblings) >= 3

        result = ask(memory, "when is my lsat")
        contents = [r["content"] for r in result["results"]]
        assert "The user needs a study schedule for the lsat." in contents
        assert "The user is kind of freaking out." not in contents
        assert "The user works full time as a junior paralegal." not in contents
        assert not any(c.startswith("my sister lives in Denver") for c in contents)
        [kept] = [
            r
            for r in result["results"]
            if r["content"] == "The user needs a study schedule for the lsat."
        ]
        assert siblings["The user is kind of freaking out."] in kept["explanation"]["siblings"]
        assert result["explanation"]["siblings_collapsed"] == len(siblings) - 1


LSAT_DATE = (
    "ok so i need a study schedule for the lsat and i'm kind of freaking out. the test is "
    "january 10. i work full time as a junior paralegal."
)


@pytest.mark.parametrize(
    ("turn", "query", "kept"),
    [
        # "paralegal" is in that record's own words: found on its own, not only through the
        # turn, it is shown beside the best record of the turn.
        (TURN, "my lsat and my paralegal job", "The user works full time as a junior paralegal."),
        # The record that answers shares no word with the question (the best-ranked record of
        # its turn holds "lsat"), but its content alone means what is asked.
        (LSAT_DATE, "lsat date", "the test is january 10."),
    ],
)
def test_a_sibling_that_answers_on_its_own_stays(
    store_path: Path, real_embedder: FlagEmbedder, turn: str, query: str, kept: str
) -> None:
    """A record of the turn that matches the question by its own words or meaning stays,
    while the turn's side remarks still collapse."""
    with extracting_memory(store_path, real_embedder) as memory:
        contents = answer(memory, turn, query)
        assert kept in contents
        assert "The user is kind of freaking out." not in contents


def test_records_of_no_turn_or_of_another_scope_are_not_siblings(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Imported records with one context and no session are no turn's records: the user's own
    allergy and blood type must not collapse into a shared project's record that happens to
    hold the query word and the same context."""
    context = "Medical history form filled in at the clinic intake, January."
    clinic = [{"kind": "project", "name": "clinic"}]
    with extracting_memory(
        store_path,
        real_embedder,
        grants=(("assistant", "user:alice"), ("assistant", "project:clinic")),
    ) as memory:
        own = memory.import_records(
            [
                {"content": "Alice is allergic to penicillin.", "context": context},
                {"content": "Alice's blood type is O positive.", "context": context},
            ],
            scope="user:alice",
            now=NOW,
        )
        memory.import_records(
            [
                {
                    "content": "Intake forms are scanned into the records system.",
                    "context": context,
                    "about": clinic,
                },
                {
                    "content": "The clinic is closed on Mondays.",
                    "context": context,
                    "about": clinic,
                },
            ],
            scope="project:clinic",
            now=NOW,
        )
        result = ask(memory, "what is on my medical history form?")
        ids = [r["id"] for r in result["results"]]
        assert set(own) <= set(ids)
        assert result["explanation"]["siblings_collapsed"] == 0

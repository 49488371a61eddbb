"""Records written by session extraction carry their evidence turn as retrieval context (issue
15): the day and the words of the turn, searched and embedded after the content, never
returned. Through the offline extractor and the whole pipeline, on a real store and the
packaged model: a record is found by a word only the rest of its turn says, and the write
path still compares records by what they state, not by the turn they share."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from agent_memory.core import Memory
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, stated_records

# The question names the dog's breed; the sentence kept (the question is never a record) does
# not. Other turns of the session give the store records to rank it against.
DOG_TURN = (
    "Any cheap ideas for keeping a corgi entertained on rainy evenings? Biscuit is losing "
    "his mind, we've had like nine straight days of rain."
)
OTHER_TURNS = (
    "My sister Hanna is visiting from Stockholm in two weeks and staying for the whole month.",
    "I've been learning to bake sourdough bread on weekends, my starter is three weeks old.",
    "Our kitchen tap keeps dripping at night and the landlord never answers his phone.",
)


session = extracted_session


stated = stated_records


def search(mem: Memory, query: str) -> list[dict[str, Any]]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="ask", now=NOW)
    result = s.call("memory_search", {"query": query}, now=NOW + timedelta(days=1))
    assert "error" not in result, result
    results: list[dict[str, Any]] = result["results"]
    return results


def test_a_record_keeps_its_turn_as_retrieval_context(mem: Memory) -> None:
    """The kept sentence is the content and the evidence; the whole turn, dated, is its
    context, which no result returns."""
    session(mem, "s1", DOG_TURN)
    (record,) = [r for r in stated(mem) if "Biscuit" in r.content]
    assert record.content == record.evidence
    assert "corgi" not in record.content
    assert record.context is not None
    assert "corgi" in record.context and f"{NOW:%d %B %Y}" in record.context
    (found,) = [r for r in search(mem, "Biscuit") if r["id"] == record.id]
    assert "corgi" not in str(found)


@pytest.mark.parametrize(
    "query", ["Tell me about my corgi.", "What does my corgi need?", "corgi", "my corgi"]
)
def test_a_record_is_found_by_words_only_the_rest_of_its_turn_says(mem: Memory, query: str) -> None:
    """The question shares no word with the kept sentence: only the turn's question, which
    is no record, names the corgi."""
    session(mem, "s1", DOG_TURN, *OTHER_TURNS)
    (record,) = [r for r in stated(mem) if "Biscuit" in r.content]
    results = search(mem, query)
    assert record.id in [r["id"] for r in results][:3]


def test_two_sentences_of_one_turn_stay_two_records(mem: Memory) -> None:
    """Two statements of one long turn share its words as context, so their stored vectors
    are close; the duplicate check compares what they state, and both are kept."""
    turn = (
        "The landlord finally fixed the heating in the back bedroom. Can you recommend a good "
        "travel guide for Portugal, ideally one with walking routes and cheap places to eat "
        "that a student budget could handle? Our old cat Miso has stopped eating his dry food. "
        "What would you suggest for a picky eater that also has sensitive teeth and a "
        "fussy stomach and refuses anything with fish in it, and is there a brand that "
        "ships to Germany quickly?"
    )
    session(mem, "s1", turn)
    contents = [r.content for r in stated(mem)]
    assert any("landlord" in c for c in contents), contents
    assert any("Miso" in c for c in contents), contents


def test_a_forgotten_record_with_context_suppresses_its_restatement(mem: Memory) -> None:
    """A forget leaves the record's content vector as its suppression, not the vector of
    content and turn: a later session restating the sentence in other words of another turn
    writes nothing of it."""
    session(mem, "s1", DOG_TURN)
    (record,) = [r for r in stated(mem) if "Biscuit" in r.content]
    assert mem.forget(record.id, agent_id="assistant", now=NOW + timedelta(hours=1))
    session(
        mem,
        "s2",
        "Biscuit is losing his mind, we have had nine straight days of rain. "
        "What should I cook for dinner tonight with leftover rice, eggs and some spinach?",
    )
    assert not [r for r in stated(mem) if "Biscuit" in r.content and r.id != record.id]


def test_two_records_of_one_turn_are_not_collapsed_as_duplicates(mem: Memory) -> None:
    """Two facts of one turn share its words as context, so their stored vectors are nearly
    the same (0.96); a search collapses duplicates by what records state, so both are shown."""
    session(
        mem,
        "s1",
        "We're planning my sister's wedding for next August and honestly I'm overwhelmed "
        "already. My family is Gujarati, so the food matters a lot to everyone. I'm vegetarian "
        "too. Can you help me make a checklist for the caterer meeting on Friday, with "
        "questions about menus, tasting sessions, deposits and how many servers we need for "
        "250 guests?",
    )
    facts = {
        r.id: r.content for r in stated(mem) if "Gujarati" in r.content or "vegetarian" in r.content
    }
    assert len(facts) == 2, facts
    found = {r["id"] for r in search(mem, "Gujarati vegetarian food for the wedding")}
    assert set(facts) <= found, facts

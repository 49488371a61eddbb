"""The gate's agreed signal (core.search.gate._agreed): a record both the dense and the lexical
generator put first passes when each of its scores is close under its floor
(``gate.agreed_share`` of it), as an answer worded a little apart from its question sits in a
store near the reference size; a record first on one generator only, or far under a floor,
does not."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.search.explain import for_model
from agent_memory.core.search.gate import gate
from agent_memory.core.search.ranking import Candidate, replay
from agent_memory.core.session import Session
from tests.support.clock import NOW

# A large store's floors: the corroborated floor has met the dense floor there.
FLOORS = {"dense_floor": 0.472, "lexical_floor": 9.88, "corroborated": 0.472}


def first_on_both(dense: float, bm25: float, *, dense_rank: int = 1) -> Candidate:
    return Candidate(
        "mem_a",
        matches={
            "dense": {"rank": dense_rank, "score": dense},
            "lexical": {"rank": 1, "score": bm25},
        },
    )


def test_a_record_first_on_both_generators_close_under_both_floors_passes() -> None:
    """LongMemEval's "What speed is my new internet plan?": its turn is first on dense at
    0.428 and first on BM25 at 9.20 in a haystack of 466 turns, under both floors."""
    reason = gate(first_on_both(0.428, 9.20), agreed_share=0.9, **FLOORS)
    assert reason is not None and reason[0] == "agreed"
    assert "first on dense (cosine 0.428) and on lexical (BM25 9.200)" in reason[1]
    assert gate(first_on_both(0.428, 9.20), agreed_share=0.0, **FLOORS) is None  # off


@pytest.mark.parametrize(
    ("candidate", "why"),
    [
        (first_on_both(0.428, 9.20, dense_rank=2), "second on dense"),
        (first_on_both(0.40, 9.20), "cosine under 0.9 of its floor"),
        (first_on_both(0.428, 8.0), "BM25 under 0.9 of its floor"),
        (Candidate("mem_a", matches={"dense": {"rank": 1, "score": 0.46}}), "dense alone"),
    ],
)
def test_a_record_not_first_on_both_or_far_under_a_floor_does_not(
    candidate: Candidate, why: str
) -> None:
    assert gate(candidate, agreed_share=0.9, **FLOORS) is None, why


# The question's words are all in the store, as in the LongMemEval haystack, though not all
# in the answer.
FACTS = [
    "We upgraded our home internet to the 500 Mbps fibre plan last week.",
    "Our office internet keeps dropping out during video calls.",
    "The speed camera on Elm Street caught me again on the way to my mother's house.",
    "We bought a new kettle because the old one started leaking all over the counter.",
    "I take the 7:40 train to work most days.",
    "Our cat Miso hates the vacuum cleaner.",
    "I'm training for a half marathon in October.",
    "The boiler was serviced in March.",
    "I prefer tea to coffee in the morning.",
    "We will grill on the Weber this weekend.",
]
ASKED = "What speed is our new internet plan?"
ANSWER = FACTS[0]


@contextmanager
def store(
    path: Path, embedder: FlagEmbedder, gate: dict[str, Any]
) -> Iterator[tuple[Memory, Session]]:
    """FACTS in Alice's store, searched with ``gate`` settings whose reference size is the
    store's own, so its floors are a large store's (no small-store drop, no subject signal)."""
    settings = {"reference_records": len(FACTS), "small_records": 2, **gate}
    with Memory.open(path, Config(gate=settings), embedder=embedder, now=NOW) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        memory.import_records(
            [{"content": f, "source_kind": "user_statement"} for f in FACTS], scope="user:alice"
        )
        yield memory, memory.session(agent_id="assistant", user_id="alice", session_id="q", now=NOW)


def scores(tmp_path: Path, embedder: FlagEmbedder, query: str) -> dict[str, dict[str, Any]]:
    """Each generator's rank and score for ANSWER under ``query`` (floors out of the way)."""
    with store(tmp_path / "probe.db", embedder, {"dense_floor": -1.0}) as (_, session):
        result = session.call("memory_search", {"query": query}, now=NOW)
    (found,) = [r for r in result["results"] if r["content"] == ANSWER]
    generators: dict[str, dict[str, Any]] = found["explanation"]["generators"]
    return generators


def test_the_agreed_record_answers_where_the_floors_answered_empty(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """With each floor set just over the answer's own score (the answer at 0.95 of both), the
    gate without the signal answers empty; with it the answer passes on it alone, the
    model's reason says so, and the search log replays the answer."""
    found = scores(tmp_path, real_embedder, ASKED)
    assert found["dense"]["rank"] == 1 and found["lexical"]["rank"] == 1
    floors = {
        "dense_floor": round(found["dense"]["score"] / 0.95, 4),
        "lexical_floor": round(found["lexical"]["score"] / 0.95, 4),
    }
    with store(tmp_path / "off.db", real_embedder, {**floors, "agreed_share": 0.0}) as (_, session):
        assert session.call("memory_search", {"query": ASKED}, now=NOW)["results"] == []
    with store(tmp_path / "on.db", real_embedder, floors) as (memory, session):
        result = session.call("memory_search", {"query": ASKED}, now=NOW)
        first = result["results"][0]
        assert first["content"] == ANSWER and first["explanation"]["passed_on"] == "agreed"
        assert all(r["explanation"]["passed_on"] != "agreed" for r in result["results"][1:])
        compact = for_model("memory_search", {"query": ASKED}, result)
        assert compact["results"][0]["reason"].endswith(
            "first on dense and lexical, near both floors"
        )
        payload = memory.store.search_log_payload(result["search_id"])
        assert payload is not None
        assert payload["settings"]["agreed_share"] == 0.9
        assert replay(payload) == [r["id"] for r in result["results"]]


def test_a_query_word_no_record_holds_turns_the_signal_off(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The same store and floors asked for what it never mentions ("brands"): the record is
    still first on both generators, close under both floors, but the query word no record
    holds says no record answers, and the answer stays empty; the gate log names the word and
    the settings the share applied (0), so the search replays."""
    query = "Which brands of fibre internet plan are fastest?"
    found = scores(tmp_path, real_embedder, query)
    assert found["dense"]["rank"] == 1 and found["lexical"]["rank"] == 1
    floors = {
        "dense_floor": round(found["dense"]["score"] / 0.95, 4),
        "lexical_floor": round(found["lexical"]["score"] / 0.95, 4),
    }
    with store(tmp_path / "on.db", real_embedder, floors) as (memory, session):
        result = session.call("memory_search", {"query": query}, now=NOW)
        assert result["results"] == []
        payload = memory.store.search_log_payload(result["search_id"])
        assert payload is not None
        assert payload["gate"]["unheld"] == ["brands", "fastest"]
        assert payload["settings"]["agreed_share"] == 0.0
        assert replay(payload) == []

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
    path: Path, embedder: FlagEmbedder, gate: dict[str, Any], scoring: str = "memory"
) -> Iterator[tuple[Memory, Session]]:
    """FACTS in Alice's store, searched with ``gate`` settings whose reference size is the
    store's own, so its floors are a large store's (no small-store drop, no subject signal)."""
    settings = {"reference_records": len(FACTS), "small_records": 2, **gate}
    config = Config(gate=settings, retrieval={"lexical_scoring": scoring})
    with Memory.open(path, config, embedder=embedder, now=NOW) as memory:
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


def just_over(found: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Floors just over the answer's scores: its cosine and BM25 at 0.95 of them."""
    return {
        "dense_floor": round(found["dense"]["score"] / 0.95, 4),
        "lexical_floor": round(found["lexical"]["score"] / 0.95, 4),
    }


def asked_just_under(
    tmp_path: Path, embedder: FlagEmbedder, query: str, scoring: str = "memory", **gate: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``query`` searched in FACTS under floors just over the answer's scores (the answer is
    first on both generators) and ``gate``, with BM25 in memory or FTS5's (``scoring``): the
    result and its search log row."""
    found = scores(tmp_path, embedder, query)
    assert found["dense"]["rank"] == 1 and found["lexical"]["rank"] == 1
    path = tmp_path / f"asked-{len(list(tmp_path.glob('asked-*.db')))}.db"
    with store(path, embedder, {**just_over(found), **gate}, scoring) as (memory, session):
        result = session.call("memory_search", {"query": query}, now=NOW)
        payload = memory.store.search_log_payload(result["search_id"])
    assert payload is not None
    return result, payload


def test_the_agreed_record_answers_where_the_floors_answered_empty(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """With each floor set just over the answer's own score (the answer at 0.95 of both), the
    gate without the signal answers empty; with it the answer passes on it alone, nothing
    rides on it, the model's reason says so, and the search log replays the answer."""
    off, _ = asked_just_under(tmp_path, real_embedder, ASKED, agreed_share=0.0)
    assert off["results"] == []
    result, payload = asked_just_under(tmp_path, real_embedder, ASKED)
    assert [(r["content"], r["explanation"]["passed_on"]) for r in result["results"]] == [
        (ANSWER, "agreed")
    ]
    compact = for_model("memory_search", {"query": ASKED}, result)
    assert compact["results"][0]["reason"].endswith("first on dense and lexical, near both floors")
    assert payload["settings"]["agreed_share"] == 0.9
    assert replay(payload) == [r["id"] for r in result["results"]]


@pytest.mark.parametrize("scoring", ["memory", "fts5"])
def test_a_query_word_no_record_holds_turns_the_signal_off(
    tmp_path: Path, real_embedder: FlagEmbedder, scoring: str
) -> None:
    """The same store and floors asked for what it never mentions ("brands"): the record is
    still first on both generators, close under both floors, but the query word no record
    holds says no record answers, and the answer stays empty; the gate log names the word and
    the settings the share applied (0), so the search replays. FTS5's own scoring reads the
    words from its vocabulary, and a word that is a phrase there ("fibre_plan") by where its
    terms sit: the same words ("internet_plan" is in no record, its terms apart)."""
    query = "Which brands of fibre internet plan are fastest, fibre_plan or internet_plan?"
    result, payload = asked_just_under(tmp_path, real_embedder, query, scoring)
    assert result["results"] == []
    assert payload["gate"]["unheld"] == ["brands", "fastest", "internet_plan"]
    assert payload["settings"]["agreed_share"] == 0.0
    assert replay(payload) == []


def test_a_frame_word_no_record_holds_leaves_the_signal_on(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A word that frames the question ("name", "currently") need not be in the store: the
    answer still passes on the signal; only the words asked are read."""
    query = "What's the name of the speed of our new internet plan currently?"
    result, payload = asked_just_under(tmp_path, real_embedder, query)
    assert [r["explanation"]["passed_on"] for r in result["results"]] == ["agreed"]
    assert payload["gate"]["unheld"] == []


@pytest.mark.parametrize("query", [ASKED, "Which brands of fibre internet plan are fastest?"])
def test_a_replay_under_other_floors_answers_as_a_search_under_them(
    tmp_path: Path, real_embedder: FlagEmbedder, query: str
) -> None:
    """The calibration replays a logged search under another gate (core.search.ranking.replay
    with a GateConfig): searched with floors the answer passes on its own, then replayed under
    floors just over its scores, it answers as a search under those floors does, the answer
    passing on the signal when every query word is in the store and nothing when one is not."""
    found = scores(tmp_path, real_embedder, query)
    tight = just_over(found)
    with store(tmp_path / "tight.db", real_embedder, tight) as (memory, session):
        live = session.call("memory_search", {"query": query}, now=NOW)
        gate = memory.config.gate
    with store(tmp_path / "loose.db", real_embedder, {"dense_floor": 0.1}) as (memory, session):
        loose = session.call("memory_search", {"query": query}, now=NOW)
        payload = memory.store.search_log_payload(loose["search_id"])
    assert payload is not None and loose["results"][0]["explanation"]["passed_on"] == "dense"
    expected = [r["content"] for r in live["results"]]
    replayed = memory_contents(tmp_path / "loose.db", real_embedder, replay(payload, gate))
    assert replayed == expected == ([ANSWER] if query == ASKED else [])


def memory_contents(path: Path, embedder: FlagEmbedder, ids: list[str]) -> list[str]:
    with Memory.open(path, embedder=embedder, now=NOW) as memory:
        records = memory.store.get_records(ids)
    return [records[i].content for i in ids]

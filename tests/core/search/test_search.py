"""memory_search: the pipeline's answers, explanations, log, and its handling of bad input."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import FlagEmbedder, HashingEmbedder
from agent_memory.core.models import format_time
from agent_memory.core.search.gate import apply_gate
from agent_memory.core.search.ranking import Candidate, replay
from agent_memory.core.session import Session
from tests.support.clock import NOW


@pytest.fixture
def alice(memory: Memory) -> Session:
    memory.grant("assistant", "user:alice", now=NOW)
    memory.grant("assistant", "user:bob", now=NOW)
    memory.grant("assistant", "project:apollo", access="read", now=NOW)
    memory.import_records(
        [
            {
                "content": "Alice prefers concise, technical answers.",
                "source_kind": "user_statement",
            },
            {"content": "Alice is allergic to peanuts.", "source_kind": "user_statement"},
            {
                "content": "On 3 September the team chose SQLite for the store.",
                "type": "episodic",
                "event_at": "2026-09-03",
            },
            {
                "content": "On 2 November Alice moved to Lisbon.",
                "type": "episodic",
                "event_at": "2026-11-02",
            },
        ],
        scope="user:alice",
        now=NOW,
    )
    memory.import_records(
        [
            {"content": "Bob's home address is 12 Elm Street.", "source_kind": "user_statement"},
            {"content": "Bob is allergic to shellfish.", "source_kind": "user_statement"},
        ],
        scope="user:bob",
        now=NOW,
    )
    memory.import_records(
        [
            {
                "content": "Apollo's staging database is apollo-stg-1.",
                "source_kind": "tool_result",
                "about": [{"kind": "project", "name": "Apollo"}],
            }
        ],
        scope="project:apollo",
        now=NOW,
    )
    return memory.session(agent_id="assistant", user_id="alice", session_id="s-a", now=NOW)


def search(session: Session, query: str, **args: Any) -> dict[str, Any]:
    return session.call("memory_search", {"query": query, **args}, now=NOW)


def contents(result: dict[str, Any]) -> list[str]:
    return [r["content"] for r in result["results"]]


def test_a_relevant_record_comes_first_with_its_explanation(alice: Session) -> None:
    """The right record ranks first and explains which generators found it and why it passed."""
    result = search(alice, "Which foods is Alice allergic to?")
    assert contents(result)[0] == "Alice is allergic to peanuts."
    top = result["results"][0]["explanation"]
    assert top["fused_rank"] == 1 and "dense" in top["generators"]
    assert top["gate"].startswith("passed: ")
    assert top["source_kind"] == "user_statement" and top["status"] == "confirmed"
    assert result["explanation"]["gate"]["decision"] == "pass"
    stages = set(result["explanation"]["timings_ms"])
    assert {
        "query_embedding",
        "dense_candidates",
        "lexical_candidates",
        "entity_lookup",
        "rank_fusion",
        "empty_result_gate",
        "duplicate_collapse",
        "budget_assembly",
        "log_write",
    } <= stages


PIPELINE = (
    "query_rewrite",
    "scope_resolution",
    "filter_construction",
    "query_embedding",
    "dense_candidates",
    "lexical_candidates",
    "time_candidates",
    "entity_lookup",
    "rank_fusion",
    "freshness_adjustment",
    "context_credit",
    "empty_result_gate",
    "duplicate_collapse",
    "reranking",
    "later_first",
    "budget_assembly",
    "explanation_assembly",
    "log_write",
)


def test_every_stage_is_timed_once_in_pipeline_order(alice: Session) -> None:
    """The response times each stage under its name, in the order the stages ran; the log row
    holds every stage but its own write (which it cannot time before it is written)."""
    result = search(alice, "Which foods is Alice allergic to?")
    assert tuple(result["explanation"]["timings_ms"]) == PIPELINE
    assert all(ms >= 0 for ms in result["explanation"]["timings_ms"].values())
    payload = alice.memory.store.search_log_payload(result["search_id"])
    assert payload is not None
    assert set(payload["timings_ms"]) == set(PIPELINE) - {"log_write"}


def test_nothing_applies_so_nothing_is_returned(alice: Session) -> None:
    """An unrelated query gets an empty answer and a reason, not the least bad records."""
    result = search(alice, "lattice quantum chromodynamics on GPUs")
    assert result["results"] == []
    assert result["explanation"]["gate"]["decision"] == "empty"
    assert "weak on every signal" in result["explanation"]["why_empty"]


def test_another_users_records_never_appear(alice: Session) -> None:
    """Acting for Alice, Bob's scope is invisible to every generator and to the counts."""
    result = search(alice, "Bob's home address Elm Street shellfish allergy", limit=50)
    assert not any("Bob" in c for c in contents(result))
    assert "user:bob" not in result["explanation"]["scopes"]
    log = json.loads(alice.memory.store.query("SELECT payload FROM search_log")[0]["payload"])
    every = [c["id"] for g in ("dense", "lexical", "entity") for c in log["candidates"][g]]
    bob_ids = {
        r["id"] for r in alice.memory.store.query("SELECT id FROM records WHERE scope = 'user:bob'")
    }
    assert not bob_ids & set(every)


def test_entity_names_in_the_query_find_linked_records(alice: Session) -> None:
    """'Apollo' is an alias of a project entity in a readable scope: an exact entity match."""
    result = search(alice, "apollo")
    top = result["results"][0]
    assert top["content"].startswith("Apollo's staging database")
    assert "entity" in top["explanation"]["generators"]
    assert top["explanation"]["entity_match"][0]["alias"] == "Apollo"


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("Jean-Luc", "What did Jean-Luc decide?"),
        ("O'Brien", "Anything from O'Brien, lately?"),
        ("Node.js", "Which version of Node.js?"),
        ("Dr. Okafor", "When is my appointment with Dr. Okafor"),
        ("AT&T", "(AT&T) contract renewal"),
    ],
)
def test_a_name_with_punctuation_in_the_query_is_an_exact_entity_match(
    alice: Session, name: str, query: str
) -> None:
    """Aliases keep their punctuation, so the query's words are also read with it."""
    alice.memory.import_records(
        [{"content": "A note about them.", "about": [{"kind": "other", "name": name}]}],
        scope="user:alice",
        now=NOW,
    )
    result = search(alice, query)
    matched = [m["alias"] for r in result["results"] for m in r["explanation"]["entity_match"]]
    assert name in matched


def test_an_entity_named_by_many_records_gives_those_the_query_matches(alice: Session) -> None:
    """Apollo has one record: the entity generator returns it at full weight. Orion has 60,
    more than the 30 candidates it can return: it returns those the other generators found
    for the rest of the query, best first, still at full weight (they are not an arbitrary
    slice); the count covers readable scopes only."""
    memory = alice.memory
    memory.import_records(
        [
            {
                "content": f"Orion status note {i}: the build is green.",
                "about": [{"kind": "project", "name": "Orion"}],
                "source_kind": "tool_result",
            }
            for i in range(60)
        ],
        scope="project:apollo",
        now=NOW,
    )
    few = search(alice, "apollo staging")["explanation"]
    many = search(alice, "What is the Orion status?")["explanation"]
    assert few["candidates"]["entity_linked"] == 1
    assert many["candidates"]["entity_linked"] == 60
    logs = {
        r["id"]: json.loads(r["payload"])
        for r in memory.store.query("SELECT id, payload FROM search_log")
    }
    weights = [p["settings"]["weights"]["entity"] for p in logs.values()]
    assert sorted(set(weights)) == [1.0]
    (orion,) = [p for p in logs.values() if p["query"] == "What is the Orion status?"]
    assert orion["entity_order"] == "relevance"
    found = {c["id"] for g in ("dense", "lexical", "time") for c in orion["candidates"][g]}
    entity = [c["id"] for c in orion["candidates"]["entity"]]
    assert entity and set(entity) <= found
    fused = {c["id"]: c["fused"] for c in orion["candidates"]["fused"]}
    assert entity == sorted(entity, key=lambda i: -fused[i])  # best match to the query first


def test_filters_by_type_and_event_time(alice: Session) -> None:
    """types and since/until restrict every generator before ranking."""
    query = "team chose SQLite store; Alice moved to Lisbon; Alice allergic to peanuts"
    both = search(alice, query, types=["episodic"])
    assert sorted(contents(both)) == [
        "On 2 November Alice moved to Lisbon.",
        "On 3 September the team chose SQLite for the store.",
    ]
    later = search(alice, query, types=["episodic"], since="2026-10-01")
    assert contents(later) == ["On 2 November Alice moved to Lisbon."]
    inverted = search(alice, "anything", since="2026-10-01", until="2026-09-01")
    assert inverted["error"]["field"] == "until"


def test_superseded_records_appear_only_with_history(alice: Session) -> None:
    """A superseded fact is gone from default searches and back with include_history."""
    alice.add_turn("user", "I prefer short answers. Actually no, I prefer long answers.", at=NOW)
    old = alice.call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user prefers short answers.",
            "source_kind": "user_statement",
            "attribute": "length",
            "evidence": "I prefer short answers",
        },
        now=NOW,
    )
    alice.call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user prefers long answers.",
            "source_kind": "user_statement",
            "attribute": "length",
            "evidence": "I prefer long answers",
        },
        now=NOW,
    )
    ids = [r["id"] for r in search(alice, "short answers", limit=50)["results"]]
    assert old["id"] not in ids
    ids = [
        r["id"] for r in search(alice, "short answers", limit=50, include_history=True)["results"]
    ]
    assert old["id"] in ids


def test_forgotten_records_never_appear(alice: Session) -> None:
    """After memory_forget no generator returns the record, even with history."""
    peanuts = search(alice, "peanuts")["results"][0]["id"]
    alice.call("memory_forget", {"id": peanuts}, now=NOW)
    assert peanuts not in [
        r["id"] for r in search(alice, "peanut allergy", include_history=True)["results"]
    ]


def test_the_stored_row_decides_even_when_the_index_mirror_is_stale(alice: Session) -> None:
    """The dense generator reads the vector index's mirror of each record's status. If that
    mirror is behind the row (a change that did not reach records_version, as a crash between
    two writers could leave), the fetched row still decides: the record is dropped, the log
    says why, and replaying the log agrees."""
    peanuts = search(alice, "peanut allergy")["results"][0]
    store = alice.memory.store
    with store.transaction() as conn:  # the status changes; records_version does not
        conn.execute("UPDATE records SET status = 'deleted' WHERE id = ?", (peanuts["id"],))
    result = search(alice, "peanut allergy")
    assert peanuts["id"] not in [r["id"] for r in result["results"]]
    [row] = store.query("SELECT payload FROM search_log WHERE id = ?", (result["search_id"],))
    payload = json.loads(row["payload"])
    assert peanuts["id"] in [c["id"] for c in payload["candidates"]["dense"]]
    assert payload["changed_since_generated"] == {peanuts["id"]: "now deleted"}
    assert replay(payload) == [r["id"] for r in result["results"]]


def test_near_duplicates_collapse_into_the_best_one(alice: Session) -> None:
    """Two records saying the same thing (cosine >= retrieval.duplicate_cosine) come back once:
    the better ranked one, whose explanation names the one collapsed into it."""
    [copy] = alice.memory.import_records(
        [{"content": "Alice is allergic to peanuts!", "source_kind": "user_statement"}],
        scope="user:alice",
        now=NOW,
    )
    result = search(alice, "peanut allergy")
    ids = [r["id"] for r in result["results"]]
    assert result["explanation"]["duplicates_collapsed"] == 1
    assert len([c for c in contents(result) if "peanuts" in c]) == 1
    kept = result["results"][0]
    assert "peanuts" in kept["content"]
    assert "collapsed into it" in kept["explanation"]["duplicates"]
    assert (copy in ids) != (copy in kept["explanation"]["duplicates"])


def test_the_token_budget_limits_what_is_returned(alice: Session) -> None:
    """A tiny budget returns fewer results, each within it, and says so."""
    full = search(alice, "Alice", limit=10)
    small = search(alice, "Alice", limit=10, budget_tokens=20)
    assert 0 < len(small["results"]) < len(full["results"])
    assert small["explanation"]["over_budget"] > 0


def test_every_search_can_be_rebuilt_from_its_log_row(alice: Session) -> None:
    """Replaying a search_log payload yields exactly the ids the search returned."""
    queries = [
        "allergies",
        "apollo staging",
        "nothing like this at all zzz",
        "Alice Lisbon",
        "What did the team decide in September?",
    ]
    results = [search(alice, q) for q in queries]
    rows = alice.memory.store.query("SELECT id, payload, result_ids FROM search_log ORDER BY at")
    by_id = {r["id"]: r for r in rows}
    for result in results:
        row = by_id[result["search_id"]]
        payload = json.loads(row["payload"])
        assert replay(payload) == [r["id"] for r in result["results"]]
        assert json.loads(row["result_ids"]) == payload["final_ids"]
    # The last query names a time: its replay included the time generator's list.
    september = json.loads(by_id[results[-1]["search_id"]]["payload"])
    assert september["candidates"]["time"] and september["settings"]["weights"]["time"] == 0.5


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "NEAR(a b)",
        "a AND OR NOT b",
        "-peanuts",
        "+x",
        "col:value",
        "foo*",
        "^start",
        "(unbalanced",
        "🥜 allergy 🙂",
        "アレルギー",
        "a" * 10_000,
        "' OR 1=1 --",
        "\x00\x01",
        "peanuts\nNOT\tAlice",
    ],
)
def test_hostile_queries_get_a_valid_answer(alice: Session, query: str) -> None:
    """FTS5 operators, quotes, unicode, emoji and 10 KB: a valid (maybe empty) answer."""
    result = search(alice, query)
    assert "results" in result, result


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "a" * 10_001}, "query"),
        ({"query": "x", "types": ["working"]}, "types.0"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 10**9}, "limit"),
        ({"query": "x", "limit": "5"}, "limit"),
        ({"query": "x", "since": "last week"}, "since"),
        ({"query": "x", "budget_tokens": -1}, "budget_tokens"),
        ({"query": "x", "scope": "user:bob"}, "scope"),
    ],
)
def test_bad_search_arguments_are_structured_errors(
    alice: Session, arguments: dict[str, Any], field: str
) -> None:
    """Empty, oversize, mistyped or invented arguments: an error naming the field."""
    result = alice.call("memory_search", arguments, now=NOW)
    assert result["error"]["field"] == field, result


@pytest.fixture
def visits(memory: Memory) -> Memory:
    """Three dentist visits in one scope, months apart; the March one says the least."""
    memory.grant("assistant", "user:carol", now=NOW)
    memory.import_records(
        [
            {
                "content": "Dentist checkup at the dentist's clinic: the dentist found nothing.",
                "type": "episodic",
                "event_at": "2026-01-14",
            },
            {
                "content": "Saw the dentist; one filling.",
                "type": "episodic",
                "event_at": "2026-03-12",
            },
            {
                "content": "Dentist appointment: the dentist cleaned my teeth at the dentist's.",
                "type": "episodic",
                "event_at": "2026-05-20",
            },
        ],
        scope="user:carol",
        now=NOW,
    )
    return memory


def carol(memory: Memory) -> Session:
    return memory.session(agent_id="assistant", user_id="carol", session_id="s-c", now=NOW)


def reopened(memory: Memory, embedder: FlagEmbedder, **retrieval: Any) -> Memory:
    """The same store opened again with other retrieval settings."""
    return Memory.open(memory.store.path, Config(retrieval=retrieval), embedder=embedder, now=NOW)


@pytest.mark.parametrize("scoring", ["memory", "fts5"])
def test_a_time_the_query_names_ranks_the_records_from_then_first(
    visits: Memory, real_embedder: FlagEmbedder, scoring: str
) -> None:
    """ "in March" (asked in November) reads as March this year: the record from then comes
    first, found by the time generator (with BM25 computed in memory or by FTS5), and the
    response says which window it read."""
    with reopened(visits, real_embedder, lexical_scoring=scoring) as mem:
        result = search(carol(mem), "What happened at the dentist in March?")
    assert contents(result)[0] == "Saw the dentist; one filling."
    assert result["explanation"]["time_cue"] == {
        "phrases": ["in march"],
        "since": "2026-03-01T00:00:00.000000Z",
        "until": "2026-03-31T23:59:59.999999Z",
    }
    assert result["explanation"]["candidates"]["time"] == 1
    assert result["results"][0]["explanation"]["generators"]["time"]["rank"] == 1
    assert all("time" not in r["explanation"]["generators"] for r in result["results"][1:])


def test_without_the_time_generator_the_wordier_records_win(
    visits: Memory, real_embedder: FlagEmbedder
) -> None:
    """The same search with retrieval.time_weight 0: no window read, and the March record,
    which says "dentist" once, is not first. What puts it first above is the time cue."""
    with reopened(visits, real_embedder, time_weight=0) as off:
        result = search(carol(off), "What happened at the dentist in March?")
    assert result["explanation"]["time_cue"] is None
    assert contents(result)[0] != "Saw the dentist; one filling."


def test_the_requests_own_window_bounds_the_time_generator(visits: Memory) -> None:
    """A cue outside the request's since/until finds nothing more: the hard filter holds."""
    session = carol(visits)
    result = search(session, "the dentist in March", since="2026-05-01")
    assert contents(result) == [
        "Dentist appointment: the dentist cleaned my teeth at the dentist's."
    ]
    assert result["explanation"]["candidates"]["time"] == 0
    row = visits.store.query("SELECT payload FROM search_log WHERE id = ?", (result["search_id"],))[
        0
    ]
    assert json.loads(row["payload"])["candidates"]["time"] == []


def test_a_record_found_only_in_the_time_window_passes_the_gate_on_its_bm25() -> None:
    """The time generator's score is BM25 inside the window: the lexical floor applies to it,
    and the reason says where it was found; below the floor it passes on nothing."""
    strong = Candidate("mem_a", matches={"time": {"rank": 1, "score": 12.0}})
    weak = Candidate("mem_b", matches={"time": {"rank": 2, "score": 3.0}})
    survivors = apply_gate([strong, weak], dense_floor=0.5, lexical_floor=10.0, mode="candidate")
    assert survivors == [strong]
    assert (
        strong.gate == "passed: lexical BM25 12.000 >= floor 10.0 (inside the query's time window)"
    )
    assert weak.gate == "weak on every signal"


class _Counting(HashingEmbedder):
    """The hashing embedder, counting the texts it is asked to embed (an injected seam)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        return super().embed(texts)


def test_the_same_turn_imported_twice_collapses_without_embedding_its_words(
    tmp_path: Path,
) -> None:
    """Imported turns carry retrieval context, so a near-duplicate pair holding one is
    confirmed by the contents' own similarity; two records with the same words need no
    embedding for that (a store holding one conversation twice made every search embed its
    duplicates' contents: seconds at 50,000 records, benchmarks/README.md). They collapse
    into one result, and the search embeds the query alone. (Ten turns a copy: each turn's
    words are also in the next two turns' context, and a word held by half the records
    carries no BM25 weight.)"""
    embedder = _Counting()
    turns = [
        {"id": f"t{i}", "role": "user", "text": text, "at": format_time(NOW)}
        for i, text in enumerate(
            [
                "I adopted a grey cat named Pepper.",
                "She sleeps all day.",
                "My brother moved to Lisbon in May.",
                "The dentist appointment is on Friday.",
                "We booked a jazz concert for the weekend.",
                "The garden shed needs a new roof.",
                "Our budget for the trip is two thousand euros.",
                "I run five kilometres before work.",
                "The car is due for its inspection.",
                "My niece starts school in September.",
            ]
        )
    ]
    with Memory.open(tmp_path / "m.db", embedder=embedder, now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        for copy in ("s1", "s2"):
            mem.import_conversation(
                [dict(t, id=f"{copy}-{t['id']}") for t in turns],
                scope="user:u",
                session_id=copy,
                agent_id="a",
            )
        session = mem.session(agent_id="a", user_id="u", session_id="q", now=NOW)
        embedder.texts.clear()
        result = session.call("memory_search", {"query": "grey cat Pepper"}, now=NOW)
    assert embedder.texts == ["grey cat Pepper"]
    contents = [r["content"] for r in result["results"]]
    assert len(contents) == len(set(contents)), contents
    assert result["explanation"]["duplicates_collapsed"] >= 1

"""No search, get or explanation ever reveals a record, an alias or a count from a scope the
agent cannot read: generated agents, grants, scopes and records, every generator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.search.ranking import GENERATORS
from tests.support.clock import NOW

WORDS = ["tea", "berlin", "apollo", "deploy", "peanut", "sam", "jazz", "budget", "lisbon", "zeus"]
# Words FTS5's tokenizer splits into several terms, or the query's word splitting does, or
# that it folds (a phrase to FTS5 where "_" or another non-token character joins them),
# beside their parts.
SPLIT_WORDS = [
    "tea_time", "time", "deploy_zeus", "e-mail", "mail", "node.js", "o'brien", "jazz2",
    "café", "naïve_sam", "zürich",
]  # fmt: skip
AGENTS = ["a1", "a2"]
USERS = ["u1", "u2", "u3"]
SHARED = ["project:apollo", "project:zeus", "org:acme", "agent:a1"]
# Gate floors below every score, so every candidate comes back and a leak would show.
OPEN_GATE = Config(gate={"dense_floor": -1.0, "lexical_floor": 0.0})

records_strategy = st.lists(
    st.tuples(
        st.sampled_from(
            [f"user:{u}" for u in USERS]
            + SHARED
            + [f"agent:{a}/{u}" for a in AGENTS for u in USERS]
        ),
        st.lists(st.sampled_from(WORDS + SPLIT_WORDS), min_size=2, max_size=5),
        st.sampled_from(WORDS),  # the entity the record is about
    ),
    min_size=1,
    max_size=25,
)
grants_strategy = st.lists(
    st.tuples(
        st.sampled_from(AGENTS),
        st.sampled_from([f"user:{u}" for u in USERS] + SHARED),
        st.sampled_from(["read", "write", "readwrite"]),
    ),
    max_size=8,
)


# A store, the grants in it, and one agent's search for one user.
SCENARIO = {
    "records": records_strategy,
    "grants": grants_strategy,
    "agent": st.sampled_from(AGENTS),
    "user": st.sampled_from(USERS),
    "query": st.lists(st.sampled_from(WORDS + SPLIT_WORDS), min_size=1, max_size=4),
}
SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW)
@given(
    **SCENARIO,
    hints=st.lists(st.sampled_from(WORDS), max_size=2),
    # Time words naming the day every record was written on, so the time generator runs.
    when=st.sampled_from(["", " today", " in November"]),
)
def test_nothing_leaks_from_unreadable_scopes(
    tmp_path_factory, records, grants, agent, user, query, hints, when
) -> None:
    """Results, explanations, logged candidates, entity matches and get all stay inside the
    readable scopes."""
    path: Path = tmp_path_factory.mktemp("iso") / "m.db"
    with Memory.open(path, OPEN_GATE, embedder=HashingEmbedder(), now=NOW) as mem:
        for scope, words, about in records:
            mem.import_records(
                [{"content": " ".join(words), "about": [{"kind": "other", "name": about}]}],
                scope=scope,
                now=NOW,
            )
        for grantee, scope, access in grants:
            mem.grant(grantee, scope, access=access, now=NOW)
        session = mem.session(agent_id=agent, user_id=user, session_id="s", now=NOW)
        readable = set(mem.readable_scopes(agent, user))
        scope_of = {r["id"]: r["scope"] for r in mem.store.query("SELECT id, scope FROM records")}
        visible = {i for i, s in scope_of.items() if s in readable}

        result = session.call(
            "memory_search",
            {
                "query": " ".join(query) + when,
                "entities": hints,
                "limit": 50,
                "include_history": True,
            },
            now=NOW,
        )
        assert "error" not in result, result
        assert {r["scope"] for r in result["results"]} <= readable
        explanation = result["explanation"]
        assert set(explanation["scopes"]) == readable
        assert explanation["candidates"]["fused"] <= len(visible)
        payload = json.loads(mem.store.query("SELECT payload FROM search_log")[0]["payload"])
        logged = {c["id"] for g in GENERATORS for c in payload["candidates"][g]}
        assert logged <= visible
        entity_scopes = {
            r["id"]: r["scope"] for r in mem.store.query("SELECT id, scope FROM entities")
        }
        for match in payload["entities_matched"]:
            assert entity_scopes[match["entity_id"]] in readable
        for item in result["results"]:
            for match in item["explanation"]["entity_match"]:
                assert entity_scopes[match["entity_id"]] in readable

        got = session.call("memory_get", {"ids": sorted(scope_of)}, now=NOW)
        assert {r["id"] for r in got["records"]} == visible
        assert set(got["missing"]) == set(scope_of) - visible


def _config(scoring: str) -> Config:
    return OPEN_GATE.model_copy(
        update={"retrieval": OPEN_GATE.retrieval.model_copy(update={"lexical_scoring": scoring})}
    )


def _outcome(mem: Memory, agent: str, user: str, query: str) -> dict[str, object]:
    """A search's outcome without record ids (two stores give the same record other ids):
    each result's content and every generator's score, and the response's gate and counts."""
    session = mem.session(agent_id=agent, user_id=user, session_id="s", now=NOW)
    result = session.call(
        "memory_search", {"query": query, "limit": 50, "include_history": True}, now=NOW
    )
    assert "error" not in result, result
    explanation = result["explanation"]
    return {
        "results": sorted(
            (
                r["content"],
                tuple(
                    sorted(
                        (g, round(m["score"], 9)) for g, m in r["explanation"]["generators"].items()
                    )
                ),
            )
            for r in result["results"]
        ),
        "gate": explanation["gate"],
        "candidates": explanation["candidates"],
    }


@settings(max_examples=30, deadline=None, suppress_health_check=SLOW)
@given(**SCENARIO, scoring=st.sampled_from(["memory", "fts5"]))
def test_no_score_depends_on_records_the_agent_cannot_read(
    tmp_path_factory, records, grants, agent, user, query, scoring
) -> None:
    """The same search in a store that also holds other scopes' records and in one that
    holds only the readable ones: the same results with the same scores from every
    generator, the same gate and the same counts, whichever lexical scoring is configured
    and whatever words the query holds. (BM25's statistics are the readable scopes', so no
    score reveals how many records elsewhere hold a word.)"""
    folder = tmp_path_factory.mktemp("scores")
    config = _config(scoring)
    with Memory.open(folder / "all.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        for grantee, scope, access in grants:
            mem.grant(grantee, scope, access=access, now=NOW)
        readable = set(mem.readable_scopes(agent, user))
        for scope, words, about in records:
            mem.import_records(
                [{"content": " ".join(words), "about": [{"kind": "other", "name": about}]}],
                scope=scope,
                now=NOW,
            )
        everything = _outcome(mem, agent, user, " ".join(query))
    with Memory.open(folder / "own.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        for grantee, scope, access in grants:
            mem.grant(grantee, scope, access=access, now=NOW)
        for scope, words, about in records:
            if scope in readable:
                mem.import_records(
                    [{"content": " ".join(words), "about": [{"kind": "other", "name": about}]}],
                    scope=scope,
                    now=NOW,
                )
        assert _outcome(mem, agent, user, " ".join(query)) == everything


def test_bm25_statistics_follow_writes_to_the_readable_scopes_only(tmp_path: Path) -> None:
    """The readable rows' statistics are kept between searches: a record written where the
    agent reads changes the next search's scores; one written elsewhere does not."""
    with Memory.open(tmp_path / "m.db", OPEN_GATE, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a1", "user:u1", now=NOW)
        filler = [{"content": f"note {i} about the budget"} for i in range(20)]
        mem.import_records([{"content": "zeus deploy"}, *filler], scope="user:u1", now=NOW)
        session = mem.session(agent_id="a1", user_id="u1", session_id="s", now=NOW)

        def score() -> float:
            result = session.call("memory_search", {"query": "zeus"}, now=NOW)
            (top,) = [r for r in result["results"] if r["content"] == "zeus deploy"]
            return float(top["explanation"]["generators"]["lexical"]["score"])

        first = score()
        mem.import_records([{"content": "zeus zeus"}] * 5, scope="user:u2", now=NOW)
        assert score() == first
        mem.import_records([{"content": "zeus again"}], scope="user:u1", now=NOW)
        assert score() < first  # the word is less rare where the agent reads


@pytest.mark.parametrize("scoring", ["memory", "fts5"])
@pytest.mark.parametrize("word", ["tea_time", "naïve_sam"])
def test_a_phrase_words_score_ignores_how_many_other_records_hold_it(
    tmp_path: Path, scoring: str, word: str
) -> None:
    """Bob's agent asks for a word FTS5 splits into a phrase: its score is the same whether
    none, 1, 5 or 20 of Alice's records hold it (it moved 2.97, 2.47, 1.46, 0.00 when such
    words fell back to FTS5's whole-table statistics)."""
    seen = set()
    for alices in (0, 1, 5, 20):
        path = tmp_path / f"{alices}.db"
        with Memory.open(path, _config(scoring), embedder=HashingEmbedder(), now=NOW) as mem:
            mem.grant("a1", "user:bob", now=NOW)
            filler = [{"content": f"note {i} about the budget"} for i in range(5)]
            phrase = word.replace("_", " ")
            mem.import_records([{"content": phrase}, *filler], scope="user:bob", now=NOW)
            mem.import_records([{"content": phrase}] * alices, scope="user:alice", now=NOW)
            session = mem.session(agent_id="a1", user_id="bob", session_id="s", now=NOW)
            result = session.call("memory_search", {"query": word}, now=NOW)
            (top,) = [r for r in result["results"] if r["content"] == phrase]
            seen.add(top["explanation"]["generators"]["lexical"]["score"])
    assert len(seen) == 1, seen

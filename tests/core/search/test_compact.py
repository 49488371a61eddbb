"""The model-facing form of tool results (core.search.explain): what it keeps, what passes
unchanged, and its size on real stores."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.search.explain import for_model, model_text, response_reason
from tests.support.clock import NOW

# Per record the compact form adds its id, type, status, source kind, date and a one-line
# reason to the content: a fixed overhead, whatever the explanation holds.
PER_RECORD = 260
PER_ANSWER = 200

WORDS = ["tea", "berlin", "apollo", "deploy", "budget", "lisbon", "jazz", "dentist", "car"]


def test_errors_other_tools_and_explain_pass_unchanged(tmp_path: Path) -> None:
    """An error, a non-search tool's result and a search called with explain: true reach the
    model as the host API returned them; a plain search is compact."""
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        mem.import_records([{"content": "tea in berlin"}], scope="user:u", now=NOW)
        session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
        error = session.call("memory_search", {"query": ""}, now=NOW)
        assert for_model("memory_search", {"query": ""}, error) == error
        got = session.call("memory_get", {"ids": ["mem_x"]}, now=NOW)
        assert for_model("memory_get", {"ids": ["mem_x"]}, got) == got
        args = {"query": "tea berlin", "explain": True}
        full = session.call("memory_search", args, now=NOW)
        assert for_model("memory_search", args, full) == full
        compact = for_model("memory_search", {"query": "tea berlin"}, full)
        assert set(compact) == {"results", "search_id", "reason"}
        assert compact["results"][0]["date"] == NOW.date().isoformat()  # created_at's day


def test_a_procedural_record_keeps_its_procedure(tmp_path: Path) -> None:
    """A procedure's steps are what a model needs of it: the compact form keeps them."""
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
        procedure = {"name": "deploy", "when": "on release", "steps": ["build", "ship"]}
        written = session.call(
            "memory_write",
            {
                "type": "procedural",
                "content": "How to deploy apollo.",
                "source_kind": "agent_inference",
                "procedure": procedure,
            },
            now=NOW,
        )
        assert "error" not in written, written
        result = session.call("memory_search", {"query": "deploy apollo"}, now=NOW)
        (record,) = for_model("memory_search", {"query": "deploy apollo"}, result)["results"]
        assert record["type"] == "procedural" and record["procedure"]["steps"] == ["build", "ship"]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    contents=st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
)
def test_the_compact_answer_is_its_content_plus_a_fixed_overhead(
    tmp_path_factory, contents, query
) -> None:
    """On real stores of records of any length and kind: the compact answer is its records'
    content plus at most a fixed overhead per record and per answer (so it is within 2 x
    content + 400 once records are not tiny), never longer than the full form."""
    path = tmp_path_factory.mktemp("compact") / "m.db"
    open_gate = Config(gate={"dense_floor": -1.0, "lexical_floor": 0.0})
    with Memory.open(path, open_gate, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        mem.import_records(
            [
                {"content": " ".join(words), "type": "episodic" if dated else "semantic"}
                | ({"event_at": "2026-03-01T10:00:00Z"} if dated else {})
                for words, dated in contents
            ],
            scope="user:u",
            now=NOW,
        )
        session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
        arguments = {"query": " ".join(query), "limit": 50, "budget_tokens": 100_000}
        full = session.call("memory_search", arguments, now=NOW)
        compact = for_model("memory_search", arguments, full)
    size = len(json.dumps(compact))
    content = sum(len(json.dumps(r["content"])) for r in compact["results"])
    assert size <= content + PER_ANSWER + PER_RECORD * len(compact["results"])
    assert size <= len(json.dumps(full))
    assert [r["id"] for r in compact["results"]] == [r["id"] for r in full["results"]]


def test_the_answers_reason_says_what_was_left_out_not_what_was_collapsed() -> None:
    """The one-line reason a model reads on every turn: why an answer is empty, or how many
    candidates were cut or over the budget; the count of results only when nothing was (the
    list has a length); never what was collapsed into a result (the full explanation and the
    log keep that)."""
    collapsed = {"duplicates_collapsed": 2, "siblings_collapsed": 1, "summaries_collapsed": 1}
    assert response_reason({"cut": {"count": 13}, **collapsed}, returned=3) == (
        "13 weaker candidates cut"
    )
    assert response_reason({"cut": {"count": 4}, "over_budget": 2}, returned=5) == (
        "4 weaker candidates cut; 2 over the token budget"
    )
    assert response_reason({"cut": {"count": 0}, **collapsed}, returned=1) == "1 result"
    assert response_reason({"why_empty": "every candidate was weak"}, returned=0) == (
        "every candidate was weak"
    )


def test_an_empty_answers_reason_leaves_the_figures_to_the_full_explanation(
    tmp_path: Path,
) -> None:
    """An empty answer tells the model why in a few words; the cosines, BM25 scores and floors
    that decided it are the engineer's, kept by the full explanation (``explain: true``, the
    host API, the search log): they were three quarters of an empty answer's characters, and
    a model reads the answer on every turn."""
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        mem.import_records([{"content": "tea in berlin"}], scope="user:u", now=NOW)
        session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
        args = {"query": "quantum chromodynamics lecture"}
        full = session.call("memory_search", args, now=NOW)
        assert full["results"] == []
        why = full["explanation"]["why_empty"]
        assert why.startswith("every candidate was weak on every signal: best dense cosine")
        compact = for_model("memory_search", args, full)
        assert compact["reason"] == "every candidate was weak on every signal"
        assert mem.store.search_log_payload(full["search_id"])["explanation"]["why_empty"] == why


def test_model_text_is_compact_and_keeps_non_ascii() -> None:
    """What a model reads carries no separator spaces and no escapes of non-ASCII text: an
    emoji escaped is 12 characters, and a name with an accent reads as its escape."""
    data = {
        "results": [{"content": "Zoë loves 🎉", "id": "mem_1"}],
        "search_id": "s",
        "reason": "r",
    }
    text = model_text(data)
    assert json.loads(text) == data
    assert (
        text == '{"reason":"r","results":[{"content":"Zoë loves 🎉","id":"mem_1"}],"search_id":"s"}'
    )
    assert len(text) < len(json.dumps(data))

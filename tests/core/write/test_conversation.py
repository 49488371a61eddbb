"""Conversation import: a record per turn, source_ref = the turn id, the preceding turns as
retrieval context that search uses, and nothing stored on bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, Memory
from agent_memory.core.errors import InvalidArgument, InvalidIdentifier
from agent_memory.core.search.ranking import replay
from agent_memory.core.write.conversation import (
    asks_about_a_conversation,
    asks_what_the_assistant_said,
    dated_only,
    quotes,
)
from tests.support.clock import NOW

AT = "2026-03-02T18:00:00Z"


def chat() -> list[dict[str, Any]]:
    return [
        {
            "id": "c1-t1",
            "role": "assistant",
            "text": "Which city did you end up choosing?",
            "at": AT,
        },
        {"id": "c1-t2", "role": "user", "text": "Lyon, we sign the lease on Friday.", "at": AT},
        {"id": "c1-t3", "role": "assistant", "text": "Congratulations!", "at": AT},
        {"id": "c1-t4", "role": "user", "text": "Yes, finally.", "at": "2026-03-02T18:06:00Z"},
    ]


def test_each_turn_becomes_an_episodic_record_in_input_order(memory: Memory) -> None:
    """Ids in input order; content is the turn as said, source_ref its id, event_at its
    time; the session id is kept; records are confirmed and never expire."""
    ids = memory.import_conversation(chat(), scope="user:u1", session_id="c1", now=NOW)
    records = memory.store.get_records(ids)
    stored = [records[i] for i in ids]
    assert [r.source_ref for r in stored] == ["c1-t1", "c1-t2", "c1-t3", "c1-t4"]
    assert stored[1].content == "user: Lyon, we sign the lease on Friday."
    assert all(r.type.value == "episodic" and r.session_id == "c1" for r in stored)
    assert all(r.status.value == "confirmed" and r.expires_at is None for r in stored)
    assert stored[3].event_at == "2026-03-02T18:06:00.000000Z"


def test_context_holds_the_date_and_the_two_preceding_turns(memory: Memory) -> None:
    """A short reply carries its date and the turns before it (never the turn itself)."""
    ids = memory.import_conversation(chat(), scope="user:u1", now=NOW)
    last = memory.store.get_records(ids)[ids[3]]
    assert last.context == (
        "02 March 2026\nuser: Lyon, we sign the lease on Friday.\nassistant: Congratulations!"
    )
    first = memory.store.get_records(ids)[ids[0]]
    assert first.context == "02 March 2026\n"


def test_a_turn_keeps_only_its_date_when_a_turn_it_quotes_is_forgotten(memory: Memory) -> None:
    """What erasure leaves a turn's context (core.erasure): the session's date, never a first
    line that is anything else (a context written another way may open with an excerpt)."""
    ids = memory.import_conversation(chat(), scope="user:u1", now=NOW)
    last = memory.store.get_records(ids)[ids[3]]
    assert dated_only(last) == "02 March 2026\n"
    other = replace(last, context="user: Lyon, we sign the lease on Friday.\nassistant: Hi")
    assert dated_only(other) == ""


def test_search_finds_a_short_reply_through_its_context(memory: Memory) -> None:
    """'Yes, finally.' says nothing by itself; the lease talk before it lets a question
    about the lease find it, and the result names the host's turn id."""
    memory.grant("assistant", "user:u1", now=NOW)
    memory.import_conversation(chat(), scope="user:u1", session_id="c1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
    result = session.call(
        "memory_search", {"query": "signing the lease in Lyon"}, now=NOW + timedelta(days=1)
    )
    refs = [r["source_ref"] for r in result["results"]]
    assert "c1-t2" in refs and "c1-t4" in refs
    assert all("context" not in r for r in result["results"])  # searched, never returned


def test_a_named_speaker_labels_the_turn_and_is_what_it_is_about(memory: Memory) -> None:
    turns = [{"id": "D1:1", "role": "user", "speaker": "Ann", "text": "I paint.", "at": AT}]
    [record_id] = memory.import_conversation(turns, scope="user:u1", now=NOW)
    record = memory.store.get_records([record_id])[record_id]
    assert record.content == "Ann: I paint." and record.entities
    [entity] = memory.store.query(
        "SELECT kind, canonical_name, scope FROM entities WHERE id = ?", record.entities
    )
    assert tuple(entity) == ("person", "Ann", "user:u1")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"role": "narrator"}, "turn 2: role"),
        ({"text": "   "}, "turn 2: text: Value error, text is blank"),
        ({"at": "yesterday"}, "turn 2: at"),
        ({"at": None}, "turn 2: at"),
        ({"mood": "happy"}, "turn 2: mood: Extra inputs"),
        ({"id": "c1-t1"}, "turn 2: id repeats the id of turn 0"),
        ({"speaker": ""}, "turn 2: speaker"),
    ],
)
def test_one_bad_turn_refuses_the_whole_call_and_stores_nothing(
    fast_memory: Memory, change: dict[str, Any], message: str
) -> None:
    turns = chat()
    turns[2] = turns[2] | change
    with pytest.raises(InvalidArgument) as caught:
        fast_memory.import_conversation(turns, scope="user:u1", now=NOW)
    assert caught.value.message.startswith(message), caught.value.message
    assert "Congratulations" not in caught.value.message  # no turn text in errors
    assert fast_memory.stats()["records"] == 0


def test_a_missing_field_a_non_object_and_a_bad_session_are_refused(fast_memory: Memory) -> None:
    without_at = [{"id": "t", "role": "user", "text": "hi"}]
    with pytest.raises(InvalidArgument, match="turn 0: at: Field required"):
        fast_memory.import_conversation(without_at, scope="user:u1")
    with pytest.raises(InvalidArgument, match="turn 0: must be a JSON object"):
        fast_memory.import_conversation(["hi"], scope="user:u1")  # type: ignore[list-item]
    with pytest.raises(InvalidIdentifier, match="session_id"):
        fast_memory.import_conversation(chat(), scope="user:u1", session_id="a/b")
    with pytest.raises(InvalidArgument, match="scope"):
        fast_memory.import_conversation(chat(), scope="nowhere")
    assert fast_memory.stats()["records"] == 0


def test_a_very_long_turn_is_stored_cut_to_the_content_limit(fast_memory: Memory) -> None:
    turns = [{"id": "t", "role": "assistant", "text": "x" * 9000, "at": AT}]
    [record_id] = fast_memory.import_conversation(turns, scope="user:u1", now=NOW)
    assert len(fast_memory.store.get_records([record_id])[record_id].content) == 8000


# -- what search does with imported turns ------------------------------------------------------


def test_quotes_matches_a_whole_preceding_turn_only() -> None:
    """A context quotes a turn when it holds the turn's excerpt as a whole line: a turn that
    only begins like a context line is not quoted by it."""
    context = "02 March 2026\nAnn: Yes, and the red one.\nBo: Lovely!"
    assert quotes(context, "Ann: Yes, and the red one.")
    assert quotes(context, "Bo: Lovely!")
    assert not quotes(context, "Ann: Yes")
    assert not quotes(None, "Bo: Lovely!") and not quotes(context, "")


def _search_log(memory: Memory, search_id: str) -> dict[str, Any]:
    (row,) = memory.store.query("SELECT payload FROM search_log WHERE id = ?", [search_id])
    return json.loads(row["payload"])


def _credit_search(memory: Memory) -> dict[str, Any]:
    memory.grant("assistant", "user:u1", now=NOW)
    memory.import_conversation(chat(), scope="user:u1", session_id="c1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
    return session.call(
        "memory_search", {"query": "which city, the lease in Lyon"}, now=NOW + timedelta(days=1)
    )


def test_a_question_and_its_reply_credit_each_other_and_the_log_replays(
    store_path: Path, real_embedder: Any
) -> None:
    """The reply quotes the question turn in its context: when both are found, the question
    turn gains a share of the reply's score and (with a reply share set) the reply a share of
    the question turn's; the results say so, the log lists the pair, and replaying the log
    gives the same answer."""
    config = Config.model_validate({"retrieval": {"reply_turn_share": 0.15}})
    with Memory.open(store_path, config, embedder=real_embedder, now=NOW) as memory:
        result = _credit_search(memory)
        by_ref = {r["source_ref"]: r for r in result["results"]}
        assert by_ref["c1-t1"]["explanation"]["context_credit"] > 0  # quoted by t2
        assert by_ref["c1-t2"]["explanation"]["context_credit"] > 0
        log = _search_log(memory, result["search_id"])
        ids = {r["source_ref"]: r["id"] for r in result["results"]}
        assert [ids["c1-t2"], ids["c1-t1"]] in log["quoting"]
        assert replay(log) == [r["id"] for r in result["results"]]


def test_by_default_a_reply_gains_nothing_from_the_turn_it_quotes(
    tmp_path: Path, real_embedder: Any
) -> None:
    """reply_turn_share is off by default (0.15 cost LongMemEval-S two questions): the
    question turn a reply quotes still gains, and the reply gains less than with the share on
    (only what the turn after it, which quotes it in turn, passes back)."""
    credit = {}
    for name, settings in (("default", {}), ("reply share", {"reply_turn_share": 0.15})):
        config = Config.model_validate({"retrieval": settings})
        path = tmp_path / f"{name}.db"
        with Memory.open(path, config, embedder=real_embedder, now=NOW) as memory:
            result = _credit_search(memory)
            credit[name] = {
                r["source_ref"]: r["explanation"]["context_credit"] for r in result["results"]
            }
            assert replay(_search_log(memory, result["search_id"])) == [
                r["id"] for r in result["results"]
            ]
    assert credit["default"]["c1-t1"] > 0
    assert credit["default"]["c1-t2"] < credit["reply share"]["c1-t2"]


def test_context_credit_is_off_at_zero_shares(store_path: Path, real_embedder: Any) -> None:
    config = Config.model_validate({"retrieval": {"quoted_turn_share": 0, "reply_turn_share": 0}})
    with Memory.open(store_path, config, embedder=real_embedder, now=NOW) as memory:
        memory.grant("assistant", "user:u1", now=NOW)
        memory.import_conversation(chat(), scope="user:u1", now=NOW)
        session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
        result = session.call("memory_search", {"query": "the lease in Lyon"}, now=NOW)
        assert all(r["explanation"]["context_credit"] == 0 for r in result["results"])
        log = _search_log(memory, result["search_id"])
        assert log["quoting"] == [] and log["context_credit"] == {}


def test_a_named_speakers_turns_are_ranked_by_the_rest_of_the_query(
    store_path: Path, real_embedder: Any
) -> None:
    """'What did Ann say about the lighthouse?': Ann has more turns than the generators'
    depth, so the entity generator returns those of her turns the other words match, best
    first, at its full weight, not her most recent turns (an arbitrary slice)."""
    config = Config.model_validate({"retrieval": {"candidates_per_generator": 3}})
    said = [
        "We repainted the old lighthouse on the cape last summer.",
        "My sister moved to Porto.",
        "I bake bread on Sundays.",
        "The dog learned to fetch.",
        "Work has been busy lately.",
        "I started reading a novel about trains.",
    ]
    turns = [
        {"id": f"D1:{n}", "role": "user", "speaker": "Ann", "text": text, "at": AT}
        for n, text in enumerate(said, start=1)
    ]
    with Memory.open(store_path, config, embedder=real_embedder, now=NOW) as memory:
        memory.grant("assistant", "user:u1", now=NOW)
        memory.import_conversation(turns, scope="user:u1", now=NOW)
        session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
        result = session.call(
            "memory_search", {"query": "What did Ann say about the lighthouse?"}, now=NOW
        )
        log = _search_log(memory, result["search_id"])
        refs = dict(memory.store.query("SELECT id, source_ref FROM records"))
        entity = [refs[c["id"]] for c in log["candidates"]["entity"]]
        assert log["entity_order"] == "relevance"
        assert entity[0] == "D1:1" and "D1:6" not in entity  # D1:6 is the latest turn
        assert log["settings"]["weights"]["entity"] == config.retrieval.entity_weight
        assert result["results"][0]["source_ref"] == "D1:1"


def test_each_turn_record_is_tagged_with_its_role(memory: Memory) -> None:
    """The role is kept on the record (role:user, role:assistant), named speaker or not:
    search's role prior reads it, and a host can filter on it."""
    ids = memory.import_conversation(chat(), scope="user:u1", now=NOW)
    records = memory.store.get_records(ids)
    assert [records[i].tags for i in ids] == [
        ("role:assistant",),
        ("role:user",),
        ("role:assistant",),
        ("role:user",),
    ]


def test_which_questions_ask_what_the_assistant_said() -> None:
    """The role prior stays off for a question about the assistant's own earlier words, and
    applies to questions about the user or the world, requests for something new included."""
    assert asks_what_the_assistant_said("What was the restaurant you recommended in Bandung?")
    assert asks_what_the_assistant_said("In our previous chat, which terms did you list?")
    assert asks_what_the_assistant_said("Can you remind me of the name of that restaurant?")
    assert not asks_what_the_assistant_said("What's my dog's name?")
    assert not asks_what_the_assistant_said("When is Jess's wedding?")
    assert not asks_what_the_assistant_said("Can you suggest some snacks for the school trip?")


def test_which_questions_ask_about_a_conversation() -> None:
    """A question about a conversation itself keeps its session summaries (their score, and
    no collapse into a record: core.search.siblings.summaries), in every tense the user asks
    it; a question about a fact that uses the same verbs of its own does not."""
    for asked in (
        "What did we talk about regarding the wedding?",
        "What were we talking about regarding the wedding?",
        "What were we discussing about my taxes?",
        "What were we chatting about regarding the countertop?",
        "What did I ask you about my laptop?",
        "What else came up when I mentioned it to you?",
        "What did I tell you about my knee?",
        "Summarise our last session",
    ):
        assert asks_about_a_conversation(asked), asked
    for fact in (
        "What sector do I cover at work?",
        "What do we cover in the insurance?",
        "Which bridges did we go over in Paris?",
        "What did I ask my landlord for?",
        "Which restaurant did I mention to Sara?",
        "What's the recap of the Q3 numbers?",
        "Who do I practice speaking with on Tuesdays?",
        "Who told me about the job?",
        "Where do I work?",
    ):
        assert not asks_about_a_conversation(fact), fact


def _driving_chat() -> list[dict[str, Any]]:
    """A user states a fact; the assistant's reply restates it in words nearer a question
    about it (and quotes the user's turn in its retrieval context)."""
    said = [
        (
            "user",
            "My son Karim turned 16 in February and passed his learner's test last week. "
            "Could you give me a plan for his first driving lessons?",
        ),
        (
            "assistant",
            "At 16 your son is old enough to learn to drive. A plan for his first lessons: "
            "an empty car park, then quiet streets, then a short main road.",
        ),
        ("user", "Great, thanks. We will start on Saturday."),
        ("assistant", "Have fun on Saturday, and keep the first lesson short."),
    ]
    return [
        {"id": f"d-t{n}", "role": role, "text": text, "at": AT}
        for n, (role, text) in enumerate(said, start=1)
    ]


def _ask(memory: Memory, query: str) -> dict[str, Any]:
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
    return session.call("memory_search", {"query": query}, now=NOW)


@pytest.mark.parametrize("factor", [1.0, 0.5])
def test_the_users_own_turn_ranks_before_the_assistants_restatement(
    tmp_path: Path, real_embedder: Any, factor: float
) -> None:
    """'How old is my son?': the assistant's reply ("At 16 your son is ...") matches better
    than the user's own statement, which without the role prior comes second. With it (the
    default, 0.5) the user's statement comes first; the result and the log say how much the
    assistant turns lost and why, and the log replays."""
    config = Config.model_validate({"retrieval": {"assistant_turn_factor": factor}})
    with Memory.open(tmp_path / "m.db", config, embedder=real_embedder, now=NOW) as memory:
        memory.grant("assistant", "user:u1", now=NOW)
        memory.import_conversation(_driving_chat(), scope="user:u1", now=NOW)
        result = _ask(memory, "How old is my son?")
        refs = [r["source_ref"] for r in result["results"]]
        log = _search_log(memory, result["search_id"])
        assert replay(log) == [r["id"] for r in result["results"]]
        if factor == 1.0:  # off: the old order
            assert refs[:2] == ["d-t2", "d-t1"]
            assert log["role_prior"] == {}
            return
        assert refs[0] == "d-t1"
        assert log["role_prior"]["roles"]["assistant"]["applied"] is True
        by_ref = {r["source_ref"]: r["explanation"]["role_prior"] for r in result["results"]}
        assert by_ref["d-t1"] == 0 and by_ref["d-t4"] < 0
        ids = dict(memory.store.query("SELECT source_ref, id FROM records"))
        assert log["role_prior"]["adjusted"][ids["d-t2"]] < 0


def test_a_question_about_what_the_assistant_said_keeps_its_turns_scores(
    memory: Memory,
) -> None:
    memory.grant("assistant", "user:u1", now=NOW)
    memory.import_conversation(_driving_chat(), scope="user:u1", now=NOW)
    result = _ask(memory, "What plan did you suggest for Karim's driving lessons?")
    log = _search_log(memory, result["search_id"])
    assert log["role_prior"]["roles"]["assistant"]["applied"] is False
    assert log["role_prior"]["adjusted"] == {}
    assert all(r["explanation"]["role_prior"] == 0 for r in result["results"])
    assert "d-t2" in [r["source_ref"] for r in result["results"]][:2]


def test_an_agents_own_role_tag_does_not_demote_its_write(memory: Memory) -> None:
    """The role prior reads the role of imported conversation turns. An agent that tags its
    own episodic note role:assistant (memory_write takes any tag) is not demoted by it."""
    memory.grant("assistant", "user:u1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s", now=NOW)
    written = session.call(
        "memory_write",
        {
            "type": "episodic",
            "content": "I booked Karim's first driving lesson for Saturday morning.",
            "source_kind": "agent_inference",
            "event_at": AT,
            "tags": ["role:assistant"],
        },
        now=NOW,
    )
    assert "error" not in written, written
    result = _ask(memory, "When is Karim's first driving lesson?")
    (found,) = [r for r in result["results"] if r["id"] == written["id"]]
    assert found["explanation"]["role_prior"] == 0
    assert _search_log(memory, result["search_id"])["role_prior"] == {}

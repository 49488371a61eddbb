"""A question about the user as a whole ("What do you know about me?") is answered with the
user's own records in profile order (core.search.profile): the user's standing instructions and
dietary constraints, then what says who the user is, then the rest, confirmed before guesses;
never another user's, a project's, the agent's private notes, a forgotten or retired record, a
session summary or an imported turn; nothing reorders it; and a question with a topic, a
command, a statement or one about how memory works is searched as before."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import format_time
from agent_memory.core.search import profile
from agent_memory.core.search.explain import for_model, response_reason
from agent_memory.core.search.ranking import replay
from agent_memory.core.session import Session
from agent_memory.core.store.search_reads import (
    PROFILE_COUNTED,
    PROFILE_SORTED,
    profile_ids,
    profile_turn_ids,
)
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory

ASKED = NOW + timedelta(days=30)


@pytest.mark.parametrize(
    "query",
    [
        "What do you know about me?",
        "what do u know about me so far",
        "hey! what do you remember about me? 😊",
        "Tell me everything you know about me.",
        "What have you learned about me over our chats?",
        "what info u got on me",
        "Who am I?",
        "Tell me about myself",
        "describe me",
        "sum me up",
        "Can you please summarize what you know about me?",
        "Do you know anything about me?",
        "How much do you know about me?",
        "What do we know about the user?",
        "What facts have been recorded about the user?",
        "What's in my profile?",
        "Is there anything in your memory about me?",
        "about me",
    ],
)
def test_a_question_about_the_user_as_a_whole_is_read(query: str) -> None:
    assert profile.asks(query)


@pytest.mark.parametrize(
    "query",
    [
        "What's my name?",
        "What do you know about my job?",
        "what do you know about me and running?",
        "What do you remember about my trip to Rome?",
        "what do you know about me from the email thread with HR",
        "What did you learn about me earlier?",
        "What do you know about me from this conversation?",
        "Tell me about yourself",
        "What do you know?",
        "What do you know about Python?",
        "what do you know about the user table schema",
        "What is stored in the user profile?",
        "fetch user profile",
        "user_profile",
        "What do you know about Priya?",
        "who am i meeting tomorrow?",
        "What do I know about taxes?",
        "How do you store data about me?",
        "Did you save that about me?",
        "Have you shared anything about me?",
        "Can you remember things about me?",
        "Remember that about me",
        "forget everything you know about me",
        "Now you know everything about me",
        "Write a short bio about me",
        "tell me a joke about me",
        "what did you tell me yesterday?",
        "what's my profile picture?",
        "what about me?",
        "What are my hobbies?",
        "on me",
        "What have you shared about me?",
        "Will you remember anything about me?",
        "What will you learn about me?",
        "Show me a picture of me.",
        "Is my profile complete?",
        "What did you learn about me in our chat?",
        "Thanks!",
        "hey",
        "ok so",
    ],
)
def test_a_question_with_a_topic_a_command_or_a_statement_is_not(query: str) -> None:
    assert not profile.asks(query)


def test_the_reading_answers_any_text() -> None:
    """Whatever the text, a yes or a no: nothing but openers ("Thanks!") raised an IndexError
    inside memory_search, which failed as an internal error."""
    from agent_memory.core.search import profile_question

    odd = ["", " ", "?!", "🙂", "...", "hey hey hey", "about", "me", "of me", "so far", "x" * 5000]
    odd += [" ".join(p) for p in (*profile_question._LEADS, *profile_question._TAILS)]
    odd += [f"{' '.join(p)}?" for p in profile_question._WHO]
    for text in odd:
        assert profile.asks(text) in (True, False)


def said(session: Session, sentence: str, content: str, *, kind: str, minutes: int) -> str:
    """Alice says ``sentence``; the agent writes ``content`` as her statement of it."""
    at = NOW + timedelta(minutes=minutes)
    session.add_turn("user", sentence, at=at)
    written = session.call(
        "memory_write",
        {"type": kind, "content": content, "source_kind": "user_statement", "evidence": sentence},
        now=at,
    )
    assert written["status"] == "confirmed", written
    return str(written["id"])


def ask(memory: Memory, query: str, user: str = "alice", **arguments: Any) -> dict[str, Any]:
    """``query`` asked for ``user``; the answer replays from its log row."""
    session = memory.session(agent_id="assistant", user_id=user, session_id="q", now=ASKED)
    result = session.call("memory_search", {"query": query, **arguments}, now=ASKED)
    assert "error" not in result
    [row] = memory.store.query(
        "SELECT payload FROM search_log WHERE id = ?", (result["search_id"],)
    )
    assert replay(json.loads(row["payload"])) == [r["id"] for r in result["results"]]
    return result


@pytest.fixture
def store(store_path: Path, real_embedder: FlagEmbedder) -> Any:
    """Alice's instruction, allergy, home (corrected), work, an event and a passing detail,
    the agent's guess about her and its private note, a fact forgotten, an imported
    conversation of hers; Bob's home; a project's note. Yields (memory, alice's ids)."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        for scope in ("user:alice", "user:bob", "project:apollo"):
            memory.grant("assistant", scope, now=NOW)
        alice = memory.session(
            agent_id="assistant",
            user_id="alice",
            session_id="s1",
            now=NOW,
            write_targets={
                "personal": "user:alice",
                "project": "project:apollo",
                "private": "agent:assistant/alice",
            },
        )
        ids = {
            "instruction": said(
                alice,
                "Please always answer me in Portuguese.",
                "Please always answer me in Portuguese.",
                kind="episodic",
                minutes=0,
            ),
            "home": said(
                alice, "I live in Lisbon.", "The user lives in Lisbon.", kind="semantic", minutes=1
            ),
            "work": said(
                alice,
                "I'm a nurse at Santa Maria.",
                "The user is a nurse at Santa Maria.",
                kind="semantic",
                minutes=2,
            ),
            "allergy": said(
                alice,
                "I'm allergic to peanuts.",
                "The user is allergic to peanuts.",
                kind="semantic",
                minutes=3,
            ),
            "race": said(
                alice,
                "I ran a half marathon on Sunday.",
                "I ran a half marathon on Sunday.",
                kind="episodic",
                minutes=4,
            ),
            "band": said(
                alice,
                "My favourite band is Radiohead.",
                "The user's favourite band is Radiohead.",
                kind="semantic",
                minutes=5,
            ),
        }
        gone = said(
            alice,
            "My locker code is 4471.",
            "The user's locker code is 4471.",
            kind="semantic",
            minutes=6,
        )
        forgot = alice.call("memory_forget", {"id": gone, "reason": "user asked"})
        assert forgot["status"] == "deleted"
        guess = alice.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user probably likes hiking.",
                "source_kind": "agent_inference",
            },
            now=NOW + timedelta(minutes=7),
        )
        assert guess["status"] == "provisional", guess
        ids["guess"] = guess["id"]
        alice.add_turn("user", "Sorry, I live in Porto, not Lisbon.", at=NOW + timedelta(minutes=8))
        corrected = alice.call(
            "memory_revise",
            {
                "id": ids["home"],
                "action": "correct",
                "content": "The user lives in Porto.",
                "evidence": "Sorry, I live in Porto, not Lisbon.",
                "source_kind": "user_statement",
            },
            now=NOW + timedelta(minutes=8),
        )
        assert "error" not in corrected, corrected
        ids["retired home"], ids["home"] = ids["home"], corrected["id"]
        for target, content, about in (
            ("project", "Apollo ships on Friday.", [{"kind": "project", "name": "Apollo"}]),
            ("private", "Note to self: her friends are planning a surprise party.", []),
        ):
            note = alice.call(
                "memory_write",
                {
                    "type": "semantic" if about else "episodic",
                    "content": content,
                    "source_kind": "system",
                    "target": target,
                    "about": about,
                },
                now=NOW,
            )
            assert "error" not in note, note
        memory.import_conversation(
            [{"id": "t1", "role": "user", "text": "I have two cats, Miso and Tofu.", "at": NOW}],
            scope="user:alice",
            session_id="chat",
        )
        bob = memory.session(agent_id="assistant", user_id="bob", session_id="s2", now=NOW)
        bob.add_turn("user", "I live in Oslo.", at=NOW)
        bob.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user lives in Oslo.",
                "source_kind": "user_statement",
                "evidence": "I live in Oslo.",
            },
            now=NOW,
        )
        yield memory, ids


COUNTRIES = """Albania Bolivia Chile Denmark Ecuador Finland Ghana Hungary Iceland Jamaica Kenya
Latvia Malta Nepal Oman Peru Qatar Romania Senegal Togo Uganda Vietnam Yemen Zambia Austria
Belgium Croatia Estonia Fiji Georgia Haiti Iran Japan Kuwait Laos Mexico Norway Panama Rwanda
Spain""".split()

# Alice's profile: her instruction, her constraint, who she is (newest first), the rest, the
# agent's guess last.
PROFILE = ["instruction", "allergy", "home", "work", "band", "race", "guess"]


def test_what_do_you_know_about_me_returns_the_users_own_records_in_profile_order(
    store: Any,
) -> None:
    """Not the forgotten code, the retired home, the imported turn, the agent's private note,
    Bob's home or the project's note. Each result says it passed as one of her records, and
    the answer how many of hers there are."""
    memory, ids = store
    result = ask(memory, "What do you know about me?")
    assert [r["id"] for r in result["results"]] == [ids[k] for k in PROFILE]
    compact = for_model("memory_search", {"query": "What do you know about me?"}, result)
    assert [r["reason"] for r in compact["results"]] == [
        f"profile #{r['explanation']['generators']['profile']['rank']}; one of the user's own "
        "records"
        for r in result["results"]
    ]
    assert compact["reason"] == "7 of the user's 7 records"
    assert result["explanation"]["gate"]["profile"] == 7


def test_the_profile_keeps_to_the_limit_and_says_there_is_more(store: Any) -> None:
    memory, ids = store
    result = ask(memory, "who am i?", limit=3)
    assert [r["id"] for r in result["results"]] == [ids[k] for k in PROFILE[:3]]
    compact = for_model("memory_search", {"query": "who am i?"}, result)
    assert compact["reason"] == "3 of the user's 7 records; ask about a topic for the others"


def _reads(memory: Memory, where: RecordFilter, limit: int) -> tuple[list[str], int, list[str]]:
    """``profile_ids`` and the query plan of each SELECT it ran."""
    statements: list[str] = []
    with memory.store.reading() as conn:
        conn.set_trace_callback(statements.append)
    try:
        ids, total = profile_ids(memory.store, where, limit)
    finally:
        with memory.store.reading() as conn:
            conn.set_trace_callback(None)
    reads = [s for s in statements if s.lstrip().startswith("SELECT")]
    with memory.store.reading() as conn:
        plans = [
            f"{s} => " + " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {s}"))
            for s in reads
        ]
    return ids, total, plans


def test_the_profile_reads_the_users_newest_statements_without_sorting_all_of_them(
    store_path: Path,
) -> None:
    """Of a user of many statements, the read walks the partial index ``records_said`` newest
    first and stops at its window, and the count stops past PROFILE_COUNTED: it sorted and
    counted every record of the user's before (about 45 ms at 50,000 records,
    benchmarks/README.md "Session 51")."""
    said = [
        {
            "content": f"I collected stamp number {k}.",
            "source_kind": "user_statement",
            "stated_at": format_time(NOW - timedelta(minutes=k)),
        }
        for k in range(PROFILE_SORTED + 100)
    ]
    with Memory.open(store_path, embedder=HashingEmbedder(), now=NOW) as memory:
        ids = memory.import_records(said, scope="user:alice", now=NOW)
        memory.import_records(said[:50], scope="user:bob", now=NOW)
        where = RecordFilter(scopes=("user:alice",), now=format_time(ASKED))
        got, total, plans = _reads(memory, where, 200)
    assert got == ids[:200] and total == PROFILE_COUNTED + 1
    [walk] = [p for p in plans if "LIMIT" in p and "ORDER BY" in p and "count" not in p]
    assert "USING INDEX records_said" in walk and "TEMP B-TREE" not in walk, walk
    [count] = [p for p in plans if "count(*)" in p and "ORDER BY" in p]
    assert "USING INDEX records_said" in count, count


def test_a_filter_that_takes_few_of_the_users_records_sorts_those_few(store_path: Path) -> None:
    """When the filter refuses most of the user's records (here 2,100 expired guesses, all
    newer than the user's 30 statements), the read sorts the few it takes rather than walk
    past every refused one (an adversarial review timed that walk at 16 ms against 0.1)."""
    guesses = [
        {"content": f"The user may like colour {k}.", "source_kind": "agent_inference"}
        for k in range(PROFILE_SORTED + 100)
    ]
    said = [
        {
            "content": f"I visited city number {k}.",
            "source_kind": "user_statement",
            "stated_at": format_time(NOW - timedelta(days=100, minutes=k)),
        }
        for k in range(30)
    ]
    with Memory.open(store_path, embedder=HashingEmbedder(), now=NOW) as memory:
        ids = memory.import_records(said, scope="user:alice", now=NOW)
        memory.import_records(guesses, scope="user:alice", now=NOW)
        assert len(memory.expire_provisional(now=ASKED + timedelta(days=60))) == len(guesses)
        where = RecordFilter(scopes=("user:alice",), now=format_time(ASKED + timedelta(days=60)))
        got, total, plans = _reads(memory, where, 200)
    assert got == ids and total == 30
    [read] = [p for p in plans if "ORDER BY" in p]
    assert "records_said" not in read.split("=>")[1], read


def test_past_its_bound_the_count_says_more_than(store: Any) -> None:
    memory, _ = store
    where = RecordFilter(scopes=("user:alice",), now=format_time(ASKED))
    assert profile_ids(memory.store, where, 2, counted=4)[1] == 5  # more than 4
    assert profile_ids(memory.store, where, 2, counted=7)[1] == 7  # all of them
    reason = response_reason(
        {"gate": {"profile": ["a"], "profile_of": PROFILE_COUNTED + 1}}, returned=10
    )
    assert reason == "10 of the user's more than 1,000 records; ask about a topic for the others"


def test_with_history_a_retired_record_comes_after_the_live_ones(store: Any) -> None:
    memory, ids = store
    result = ask(memory, "What do you know about me?", include_history=True)
    assert [r["id"] for r in result["results"]] == [ids[k] for k in [*PROFILE, "retired home"]]


def test_another_users_profile_is_their_own(store: Any) -> None:
    memory, _ = store
    result = ask(memory, "What do we know about the user?", user="bob")
    assert [r["content"] for r in result["results"]] == ["The user lives in Oslo."]


def test_a_question_with_a_topic_is_searched_as_before(store: Any) -> None:
    """ "What's my name?" holds no profile word: the gate judges it, nothing passes as the
    user's record, and no stored record says a name."""
    memory, _ = store
    result = ask(memory, "What's my name?")
    assert not result["explanation"]["gate"].get("profile")
    assert all(r["explanation"]["passed_on"] != "profile" for r in result["results"])


def test_more_records_than_a_generator_reads_are_read(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A limit above the generators' depth (30) gets that many of the user's records."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        alice = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        for k, country in enumerate(COUNTRIES):
            said(
                alice,
                f"I have been to {country}.",
                f"The user has been to {country}.",
                kind="semantic",
                minutes=k,
            )
        assert len(ask(memory, "What do you know about me?", limit=50)["results"]) == 40


CONVERSATION = [
    ("user", "Hi! I need help planning meals, I'm vegetarian and allergic to cashews."),
    ("assistant", "Happy to help. How many people?"),
    ("user", "Just me and my husband Tom. We live in Leeds."),
    ("assistant", "Great, and where do you work?"),
    ("user", "I work nights as a nurse at St James's, so lunch is at 2am."),
    ("user", "Can you suggest a curry?"),
    ("assistant", "Try a chickpea curry with rice."),
    ("user", "thanks!"),
    ("user", "Please always keep your answers short."),
]


def imported(memory: Memory, scope: str, turns: list[tuple[str, str]], session: str) -> list[str]:
    """``turns`` imported into ``scope`` as one conversation, a minute apart; their ids."""
    return memory.import_conversation(
        [
            {"id": f"{session}-t{k}", "role": role, "text": text, "at": NOW + timedelta(minutes=k)}
            for k, (role, text) in enumerate(turns)
        ],
        scope=scope,
        session_id=session,
    )


def test_a_user_with_nothing_but_imported_turns_gets_the_turns_they_said_that_tell_something(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A host that imports conversations and extracts nothing still gets an answer: the user's
    own turns that tell something, in profile order (the instruction, the constraint, home and
    family, work); never the assistant's turns, a question, thanks, or another user's turns.
    An empty store is answered empty."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        memory.grant("assistant", "user:bob", now=NOW)
        assert ask(memory, "What do you know about me?")["results"] == []
        ids = imported(memory, "user:alice", CONVERSATION, "chat")
        imported(memory, "user:bob", [("user", "I live in Oslo and I'm a carpenter.")], "b")
        result = ask(memory, "What do you know about me?")
    assert [r["id"] for r in result["results"]] == [ids[8], ids[0], ids[2], ids[4]]
    assert {r["explanation"]["passed_on"] for r in result["results"]} == {"profile"}
    compact = for_model("memory_search", {"query": "What do you know about me?"}, result)
    assert compact["reason"] == "4 of the user's 6 records; ask about a topic for the others"


def test_a_profile_of_turns_keeps_short_facts_and_leaves_requests_and_documents_out(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A short statement of a constraint, an instruction or who the user is tells something
    though its words are few; a request for a task, small talk and a pasted document (past
    TURN_CHARS) do not (an adversarial review found all of them misread)."""
    said = [
        ("user", "I'm vegan."),
        ("user", "Give me 5 catchy subject lines for the email."),
        ("user", "I take warfarin."),
        ("user", "Write a cover letter for a nursing job at St James's."),
        ("user", "Never use emoji."),
        ("user", "ok sounds good"),
        ("user", "I'm a nurse."),
        ("user", "Here is the policy I was sent. " + "Section text of the policy. " * 80),
    ]
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        ids = imported(memory, "user:alice", said, "chat")
        result = ask(memory, "What do you know about me?")
    assert [r["id"] for r in result["results"]] == [ids[4], ids[2], ids[0], ids[6]]


def test_forgetting_a_turn_leaves_the_turns_that_quoted_it_turns(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The turns after a forgotten one lose the excerpts that quoted it, not what makes them
    turns: their context keeps its session's date, and the assistant's reply stays out of the
    profile (its context dropped, it read as the user's own record)."""
    said = [
        ("user", "I live in Bristol and work at the BBC."),
        ("user", "I'm vegan and allergic to cashews."),
        ("user", "My partner Sam is a teacher in Bath."),
        ("assistant", "Noted, thanks for telling me all that."),
    ]
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        ids = imported(memory, "user:alice", said, "chat")
        memory.forget(ids[1], now=NOW)
        result = ask(memory, "What do you know about me?")
        contexts = {i: r.context for i, r in memory.store.get_records(ids).items()}
    assert [r["id"] for r in result["results"]] == [ids[0], ids[2]]
    assert contexts[ids[2]] == contexts[ids[3]] == f"{NOW:%d %B %Y}\n"


def test_a_user_with_records_of_their_own_is_not_answered_with_turns(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Turns are read only where the user has no record of their own: a statement makes the
    profile, and the turns stay out of it."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        imported(memory, "user:alice", CONVERSATION, "chat")
        alice = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        home = said(
            alice, "I live in Lisbon.", "The user lives in Lisbon.", kind="semantic", minutes=20
        )
        result = ask(memory, "What do you know about me?")
    assert [r["id"] for r in result["results"] if r["explanation"]["passed_on"] == "profile"] == [
        home
    ]


def test_a_user_with_records_none_of_which_the_filter_takes_is_not_answered_with_turns(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        imported(memory, "user:alice", CONVERSATION, "chat")
        alice = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        said(alice, "I live in Lisbon.", "The user lives in Lisbon.", kind="semantic", minutes=20)
        result = ask(memory, "What do you know about me?", types=["episodic"])
    assert not result["explanation"]["gate"].get("profile")


def test_a_filter_without_episodic_records_reads_no_turns(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        imported(memory, "user:alice", CONVERSATION, "chat")
        result = ask(memory, "What do you know about me?", types=["semantic"])
    assert result["results"] == [] and not result["explanation"]["gate"].get("profile")


def test_the_turn_read_walks_the_users_turns_newest_first(store_path: Path) -> None:
    """Of a user of many turns, the read walks the partial index ``records_turn_said`` and stops
    at its window (migration 17), its count too, rather than sort every turn of the scope."""
    turns = [
        ("user" if k % 2 else "assistant", f"I planted tree number {k} today.") for k in range(500)
    ]
    with Memory.open(store_path, embedder=HashingEmbedder(), now=NOW) as memory:
        ids = imported(memory, "user:alice", turns, "garden")
        statements: list[str] = []
        with memory.store.reading() as conn:
            conn.set_trace_callback(statements.append)
        try:
            where = RecordFilter(scopes=("user:alice",), now=format_time(ASKED))
            got, total = profile_turn_ids(
                memory.store, where, 200, role_tag="role:user", counted=220
            )
        finally:
            with memory.store.reading() as conn:
                conn.set_trace_callback(None)
        with memory.store.reading() as conn:
            plans = [
                " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {s}"))
                for s in statements
                if s.lstrip().startswith("SELECT")
            ]
    assert got == ids[::-1][::2][:200] and total == 221
    assert len(plans) == 2
    assert all("USING INDEX records_turn_said" in p and "TEMP B-TREE" not in p for p in plans), (
        plans
    )


def test_an_extracted_profile_keeps_each_fact_of_a_turn_and_leaves_the_summary_out(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Through extraction: one turn saying two things gives two records, and the profile
    holds both (a turn's side remarks are folded into its best record only for a question
    with a topic); the summary restating them is not in it."""
    with extracting_memory(store_path, real_embedder) as memory:
        extracted_session(
            memory,
            "s1",
            "I'm vegetarian and I play badminton on Wednesdays.",
            "I live in Leeds.",
            "I prefer short answers with bullet points, always.",
        )
        [summary] = memory.store.query(
            "SELECT id FROM records WHERE source_kind = 'session_summary'"
        )
        result = ask(memory, "What have you learned about me so far?")
        assert summary["id"] not in [r["id"] for r in result["results"]]
        assert {r["explanation"]["passed_on"] for r in result["results"]} == {"profile"}
        assert result["explanation"]["siblings_collapsed"] == 0
        said = " | ".join(r["content"] for r in result["results"])
        for fact in ("vegetarian", "badminton", "Leeds", "bullet points"):
            assert said.count(fact) == 1, said  # each once: a phrased fact or its sentence


def test_a_user_of_many_records_gets_who_they_are_first_in_the_compact_form(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Past the newest statements a profile reads, the lookup of who the user is finds an old
    "My name is Dana."; the compact form names its place in the profile (it raised a KeyError
    for such a record before)."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        alice = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        name = said(alice, "My name is Dana.", "My name is Dana.", kind="episodic", minutes=0)
        memory.import_records(
            [
                {
                    "type": "episodic",
                    "content": f"Logged water intake entry number {k}.",
                    "event_at": (NOW + timedelta(days=1, minutes=k)).isoformat(),
                }
                for k in range(profile.WINDOW + 5)
            ],
            scope="user:alice",
            now=NOW + timedelta(days=1),
        )
        query = {"query": "What do you know about me?"}
        result = ask(memory, query["query"])
        assert result["results"][0]["id"] == name
        compact = for_model("memory_search", query, result)
        assert compact["results"][0]["reason"] == "profile #1; one of the user's own records"
        assert compact["reason"].startswith(f"10 of the user's {profile.WINDOW + 6} records")


def test_instructions_and_the_users_own_constraints_come_before_the_rest(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A son's allergy is the family's, not the user's constraint; a fourth instruction
    follows who the user is, not the trivia; a later value of an attribute comes before the
    earlier one even as a guess."""
    with Memory.open(store_path, embedder=real_embedder) as memory:
        memory.grant("assistant", "user:alice", now=NOW)
        alice = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        ids = {
            key: said(alice, sentence, sentence, kind="episodic", minutes=k)
            for k, (key, sentence) in enumerate(
                [
                    ("french", "Please always answer in French."),
                    ("metric", "Always use metric units, please."),
                    ("emoji", "Never use emojis in your answers."),
                    ("short", "Please always keep answers under 100 words."),
                    ("son", "My son Leo is allergic to peanuts."),
                    ("veg", "I'm vegetarian."),
                    ("kindle", "I have a Kindle."),
                ]
            )
        }
        alice.add_turn("user", "I live in Bristol.", at=NOW + timedelta(minutes=10))
        home = alice.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user lives in Bristol.",
                "attribute": "home city",
                "source_kind": "user_statement",
                "evidence": "I live in Bristol.",
            },
            now=NOW + timedelta(minutes=10),
        )
        assert home["status"] == "confirmed", home
        guess = alice.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user lives in Bath now.",
                "attribute": "home city",
                "source_kind": "agent_inference",
            },
            now=NOW + timedelta(minutes=20),
        )
        assert guess["status"] == "provisional", guess
        answer = [r["id"] for r in ask(memory, "What do you know about me?")["results"]]
        instructions = [ids[k] for k in ("short", "emoji", "metric")]  # the newest three
        assert answer[:4] == [*instructions, ids["veg"]]
        assert answer.index(guess["id"]) + 1 == answer.index(home["id"])
        assert answer.index(home["id"]) < answer.index(ids["french"]) < answer.index(ids["kindle"])
        assert answer.index(ids["son"]) < answer.index(ids["kindle"])  # family, before the rest

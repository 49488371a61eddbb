"""What the assistant said is kept from an ended session and read only when asked
(core.extraction.replies, core.filters.RecordFilter.assistant_words): through the offline
pipeline on a real store and the packaged model."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.extraction.replies import PART_CHARS, parts, says
from agent_memory.core.models import SourceKind, Status
from tests.support.clock import NOW

ASKED = "I'm in Bandung next month. Where can I get a good Nasi Goreng near Cihampelas Walk?"
ANSWER = (
    "Try Miss Bee Providore in Cihampelas Walk: their Nasi Goreng comes with prawn crackers "
    "and a fried egg.\n\nFor dessert, Kartika Sari's pastries are a short walk away."
)
REMINDER = "Can you remind me of the name of that restaurant you recommended for Nasi Goreng?"


def _session(mem: Memory, session_id: str, *turns: tuple[str, str], days: int = 0) -> None:
    start = NOW + timedelta(days=days)
    s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=start)
    for i, (role, text) in enumerate(turns):
        s.add_turn(role, text, at=start + timedelta(minutes=i))
    status = mem.jobs.status(s.end(now=start + timedelta(minutes=len(turns))))
    assert status["status"] == "done"


def _search(mem: Memory, query: str) -> dict[str, Any]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="asking")
    result = s.call("memory_search", {"query": query}, now=NOW + timedelta(days=30))
    assert "error" not in result
    return result


def _said(mem: Memory) -> list[dict[str, Any]]:
    rows = mem.store.query(
        "SELECT id FROM records WHERE said_by = 'assistant' AND status != 'deleted' ORDER BY rowid"
    )
    return [mem.store.get_records([r["id"]])[r["id"]].to_json() for r in rows]


def test_an_ended_session_keeps_the_assistants_words_as_said(mem: Memory) -> None:
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER), ("assistant", "Sure!"))
    [said] = _said(mem)  # the two paragraphs fit in one part; "Sure!" says too little
    assert said["said_by"] == "assistant"
    assert said["evidence"] == ANSWER
    assert said["content"] == f"assistant: {ANSWER}"
    # What the assistant said, not what is true: no more than an assistant turn supports,
    # and a record of what was said does not lapse.
    assert said["source_kind"] == SourceKind.AGENT_INFERENCE.value
    assert said["status"] == Status.PROVISIONAL.value and said["expires_at"] is None
    assert "role:assistant" in said["tags"]


def test_only_a_question_about_what_the_assistant_said_reads_them(mem: Memory) -> None:
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER))
    [said] = _said(mem)
    asked = _search(mem, REMINDER)
    assert asked["results"][0]["id"] == said["id"]
    for query in ("Where can I get Nasi Goreng in Bandung?", "What are Kartika Sari's pastries?"):
        assert said["id"] not in [r["id"] for r in _search(mem, query)["results"]]


def test_they_are_this_agents_words_to_this_user(mem: Memory) -> None:
    """Kept in the agent-user pair's private scope: another agent reading the user's records
    is asked about its own words, not this one's."""
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER))
    [said] = _said(mem)
    assert said["scope"] == "agent:assistant/alice"
    mem.grant("planner", "user:alice", now=NOW)
    other = mem.session(agent_id="planner", user_id="alice", session_id="planning")
    found = other.call("memory_search", {"query": REMINDER}, now=NOW + timedelta(days=30))
    assert said["id"] not in [r["id"] for r in found["results"]]


def test_a_credential_is_not_kept_from_either_side(mem: Memory) -> None:
    """A part that repeats a credential with its value is left out, and so is the user's
    sentence telling one from the context of the part that answers it."""
    _session(
        mem,
        "s1",
        ("user", "My wifi password is Blue-Fox-42. How do I share the network with guests?"),
        ("assistant", "Your wifi password is Blue-Fox-42, so tell guests that one."),
        ("assistant", "Better: turn on the guest network in the router settings and share it."),
    )
    [said] = _said(mem)
    assert said["evidence"].startswith("Better: turn on the guest network")
    stored = mem.store.query("SELECT content, evidence, context FROM records")
    assert not any("Blue-Fox" in (v or "") for row in stored for v in tuple(row))


def test_the_gate_counts_the_assistants_words_only_when_it_reads_them(mem: Memory) -> None:
    """The floors follow the records a search reads: the assistant's words, read only when
    asked, leave every other question's floors as they were."""
    _session(
        mem, "s1", ("user", "My manager is Priya Raman."), ("user", ASKED), ("assistant", ANSWER)
    )
    assert len(_said(mem)) == 1

    def counted(condition: str) -> int:
        return mem.store.query(
            "SELECT count(*) AS n FROM records WHERE scope IN "
            f"('user:alice', 'agent:assistant/alice') AND {condition}"
        )[0]["n"]

    floors = _search(mem, "Who is my manager?")["explanation"]["gate"]["floors"]
    assert floors["readable_records"] == counted("said_by IS NULL")
    floors = _search(mem, REMINDER)["explanation"]["gate"]["floors"]
    assert floors["readable_records"] == counted("1")


def test_the_users_own_statement_is_not_taken_for_the_assistants(mem: Memory) -> None:
    """The write path never compares with the assistant's words: the user saying the same
    thing later is a record of its own, not a repetition of what the assistant said."""
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER))
    _session(mem, "s2", ("user", "Miss Bee Providore has the best Nasi Goreng."), days=1)
    found = _search(mem, "Which place has the best Nasi Goreng?")["results"]
    assert [r["content"] for r in found][:1] == ["Miss Bee Providore has the best Nasi Goreng."]


def test_forgotten_words_stay_forgotten_when_the_session_is_extracted_again(
    mem: Memory,
) -> None:
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER))
    [said] = _said(mem)
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    assert "error" not in s.call("memory_forget", {"id": said["id"], "reason": "asked"})
    _session(mem, "s2", ("user", ASKED), ("assistant", ANSWER), days=1)
    assert _said(mem) == []
    assert all("Providore" not in r["content"] for r in _search(mem, REMINDER)["results"])


DENTIST = "My dentist is Dr. Priya Patel."
ECHO = "Great, your dentist is Dr. Priya Patel. I'll remember that for your next check-up."


def _forget_the_dentist(mem: Memory) -> dict[str, Any]:
    [row] = mem.store.query(
        "SELECT id FROM records WHERE said_by IS NULL AND evidence LIKE '%dentist%' "
        "AND status = 'confirmed'"
    )
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    forgot = s.call("memory_forget", {"id": row["id"], "reason": "asked"})
    assert "error" not in forgot
    return forgot


def test_forgetting_a_fact_erases_the_assistants_repeat_of_it(mem: Memory) -> None:
    """A forgotten fact does not come back through what the assistant said of it."""
    _session(mem, "s1", ("user", DENTIST), ("assistant", ECHO))
    [said] = _said(mem)
    forgot = _forget_the_dentist(mem)
    assert said["id"] in forgot["erased"]
    assert _said(mem) == []
    asked = _search(mem, "What did you say about my dentist?")["results"]
    assert all("Patel" not in r["content"] for r in asked)


def test_a_later_reply_restating_a_forgotten_fact_is_not_kept(mem: Memory) -> None:
    _session(mem, "s1", ("user", DENTIST), ("assistant", "Okay."))
    _forget_the_dentist(mem)
    later = "Also, the clinic opens at nine on Mondays, and your dentist is Dr. Priya Patel."
    _session(mem, "s2", ("user", "When does the clinic open?"), ("assistant", later), days=1)
    assert _said(mem) == []


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        ("I'm allergic to penicillin.", "You are allergic to penicillin, so no amoxicillin."),
        ("I live in Portland, Oregon.", "Since you live in Portland, Oregon, try Powell's."),
    ],
)
def test_a_forget_erases_an_echo_in_the_second_person(mem: Memory, fact: str, echo: str) -> None:
    """An echo holding the forgotten record's words goes, however far its wording is from
    the record's ("You are ..." for "The user is ...")."""
    _session(mem, "s1", ("user", fact), ("assistant", echo))
    [said] = _said(mem)
    [row] = mem.store.query(
        "SELECT id FROM records WHERE said_by IS NULL AND source_kind = 'user_statement'"
    )
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    forgot = s.call("memory_forget", {"id": row["id"], "reason": "asked"})
    assert said["id"] in forgot["erased"]


def _forget_what_alice_said(mem: Memory) -> list[str]:
    """Forget every record of alice's own statements; the ids erased."""
    rows = mem.store.query(
        "SELECT id FROM records WHERE scope = 'user:alice' AND source_kind = 'user_statement' "
        "AND status != 'deleted'"
    )
    assert rows
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    erased: list[str] = []
    for row in rows:
        forgot = s.call("memory_forget", {"id": row["id"], "reason": "asked"})
        assert "error" not in forgot, forgot
        erased += forgot["erased"]
    return erased


@pytest.mark.parametrize(
    ("fact", "echo"),
    [
        # a clause of it, in other words around the ones that tell it
        (
            "I was diagnosed with type 2 diabetes last month, so please keep that in mind "
            "for recipes.",
            "Thanks for telling me. Since you have type 2 diabetes, I'll suggest "
            "low-glycemic recipes from now on.",
        ),
        (
            "I owe about 40,000 dollars in credit card debt right now.",
            "Paying down 40,000 dollars of credit card debt is very doable with a plan, "
            "let's start with the highest interest card.",
        ),
        # a name only the forgotten statement gave
        (
            "My ex-husband's name is Gregor and I really don't want to talk about him.",
            "Understood, I won't bring up Gregor again.",
        ),
    ],
)
def test_a_forget_erases_a_reply_that_tells_what_it_told(mem: Memory, fact: str, echo: str) -> None:
    """Before: each reply stayed, holding fewer than three quarters of the record's words."""
    _session(mem, "s1", ("user", fact), ("assistant", echo))
    [said] = _said(mem)
    assert said["id"] in _forget_what_alice_said(mem)
    assert _said(mem) == []


def test_a_forget_erases_a_reply_naming_a_name_that_opens_its_sentence(mem: Memory) -> None:
    """A name WordNet does not know counts at a sentence's start too (the re-read's case)."""
    _session(
        mem,
        "s1",
        ("user", "Zanetti is my new landlord and he's awful."),
        ("assistant", "Keep a written record of every request you make to Zanetti."),
    )
    [said] = _said(mem)
    assert said["id"] in _forget_what_alice_said(mem)


@pytest.mark.parametrize(
    ("fact", "reply"),
    [
        (
            "I want to start running in the mornings before work, but don't tell my wife, "
            "she'll laugh.",
            "If you want to start a vegetable garden, mornings are best for watering before work.",
        ),
        (
            "I have about 12,000 dollars of credit card debt that I'm ashamed of.",
            "Many credit cards earn airline miles; you get about one mile per dollar spent.",
        ),
        (
            "I hate my job at the bank and I'm looking for a way out.",
            "Most banks let you open a savings account online; ask at your local branch.",
        ),
        # numbers alone, and a title, tell nothing (the re-read's cases)
        (
            "I owe about 40,000 dollars in credit card debt right now.",
            "For a house deposit, 20,000 dollars is a common target.",
        ),
        (
            "Btw my dentist is Dr Okafor and she is great.",
            "Dr Seuss wrote Green Eggs and Ham in 1960.",
        ),
    ],
)
def test_a_forget_keeps_a_reply_sharing_a_few_everyday_words(
    mem: Memory, fact: str, reply: str
) -> None:
    """Two words in common ("credit card", "job", "bank") tell nothing again; the re-read found
    each of these erased by a version that took two."""
    _session(mem, "s1", ("user", fact), ("assistant", "Noted."))
    _session(mem, "s2", ("user", "Any tips?"), ("assistant", reply), days=1)
    [kept] = _said(mem)
    assert kept["id"] not in _forget_what_alice_said(mem)


def test_a_forget_keeps_replies_that_share_only_everyday_words_or_a_place(mem: Memory) -> None:
    """A place WordNet knows is no one's own name, and one word in common is no restatement."""
    _session(mem, "s1", ("user", "My sister Marta lives in Lisbon."), ("assistant", "Noted."))
    _session(
        mem,
        "s2",
        ("user", "We're planning a long weekend in Lisbon in May, any tips?"),
        ("assistant", "Lisbon's trams are lovely; take the 28 early, before the crowds."),
        days=1,
    )
    [kept] = _said(mem)
    [row] = mem.store.query(
        "SELECT id FROM records WHERE scope = 'user:alice' AND evidence LIKE '%Marta%' "
        "AND status = 'confirmed'"
    )
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    forgot = s.call("memory_forget", {"id": row["id"], "reason": "asked"})
    assert kept["id"] not in forgot["erased"]
    assert [r["id"] for r in _said(mem)] == [kept["id"]]


def _written(mem: Memory, content: str, evidence: str, turn: str) -> str:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="told", now=NOW)
    s.add_turn("user", turn, at=NOW)
    wrote = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": content,
            "evidence": evidence,
            "source_kind": "user_statement",
        },
        now=NOW,
    )
    assert "error" not in wrote, wrote
    return str(wrote["id"])


def test_a_forget_erases_an_echo_of_its_content_said_apart_from_its_evidence(
    mem: Memory,
) -> None:
    """A model-phrased record quotes a long turn; the reply says what the content says."""
    turn = "I found out last year, after a nasty rash on holiday, that I'm allergic to penicillin."
    record = _written(mem, "The user is allergic to penicillin.", turn, turn)
    filler = " ".join(["Rest, fluids and a warm compress help most sore throats heal."] * 8)
    echo = f"{filler} You are allergic to penicillin, so ask for azithromycin instead."
    _session(mem, "s1", ("user", "What helps a sore throat?"), ("assistant", echo), days=1)
    [said] = _said(mem)
    assert len(said["evidence"].split()) > 64  # the echo comes late in a long part
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    forgot = s.call("memory_forget", {"id": record, "reason": "asked"})
    assert said["id"] in forgot["erased"]


def test_a_forget_erases_only_its_own_users_echoes(mem: Memory) -> None:
    """User ids differ by case ("alice", "Alice"); a forget of one erases none of the other's."""
    mem.grant("assistant", "user:Alice", now=NOW)
    fact, echo = "I'm allergic to penicillin.", "You are allergic to penicillin, so no amoxicillin."
    _session(mem, "s1", ("user", fact), ("assistant", echo))
    other = mem.session(agent_id="assistant", user_id="Alice", session_id="o1", now=NOW)
    other.add_turn("user", fact, at=NOW)
    other.add_turn("assistant", echo, at=NOW + timedelta(minutes=1))
    assert mem.jobs.status(other.end(now=NOW + timedelta(minutes=2)))["status"] == "done"
    [theirs] = [
        row["id"]
        for row in mem.store.query(
            "SELECT id FROM records WHERE scope = 'agent:assistant/Alice' AND said_by IS NOT NULL"
        )
    ]
    [row] = mem.store.query(
        "SELECT id FROM records WHERE scope = 'user:alice' AND source_kind = 'user_statement'"
    )
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    forgot = s.call("memory_forget", {"id": row["id"], "reason": "asked"})
    assert theirs not in forgot["erased"]
    assert [said["id"] for said in _said(mem)] == [theirs]  # alice's echo went, Alice's stays


@pytest.mark.xfail(
    strict=True,
    reason="known limit: a suppression keeps no words, so a later reply saying a forgotten "
    "fact in the second person, below the meaning floor (0.820 here), is kept "
    "(core.suppressions), as a user's own paraphrase of it would be",
)
def test_known_limit_a_later_reply_in_other_words_is_kept(mem: Memory) -> None:
    fact, echo = "I'm allergic to penicillin.", "You are allergic to penicillin, so no amoxicillin."
    _session(mem, "s1", ("user", fact), ("assistant", "Okay."))
    [row] = mem.store.query("SELECT id FROM records WHERE source_kind = 'user_statement'")
    s = mem.session(agent_id="assistant", user_id="alice", session_id="forgetting")
    assert "error" not in s.call("memory_forget", {"id": row["id"], "reason": "asked"})
    _session(mem, "s2", ("user", "Any plans?"), ("assistant", echo), days=1)
    assert _said(mem) == []


def test_a_redacted_reply_is_not_kept() -> None:
    assert parts("\u2588" * 300) == []


def test_a_question_about_the_users_own_fact_does_not_read_them(mem: Memory) -> None:
    """ "Remind me" as often asks for the user's own fact: only a question naming what the
    assistant said reads its words."""
    _session(mem, "s1", ("user", DENTIST), ("assistant", ECHO))
    [said] = _said(mem)
    for query in ("Can you remind me who my dentist is?", "Remind me of my dentist's name"):
        assert said["id"] not in [r["id"] for r in _search(mem, query)["results"]]
    assert said["id"] in [
        r["id"] for r in _search(mem, "What did you say about my dentist?")["results"]
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "Okay, I've noted your PIN (4821) for the card ending in 9921.",
        "Your SSN 123-45-6789 goes in box 1b of the form.",
        "Your API key sk-live-9f8e7d is only for the sandbox, keep it out of the repo.",
        "Okay, I've noted your pin (4821) for the card.",
    ],
)
def test_a_reply_naming_a_credential_is_not_kept(mem: Memory, reply: str) -> None:
    _session(mem, "s1", ("user", "Can you help me with the bank form?"), ("assistant", reply))
    assert _said(mem) == []


def test_a_reply_in_a_language_without_spaces_is_kept() -> None:
    text = "我推荐你去西湖边的楼外楼吃饭\uff0c那里的西湖醋鱼很有名\u3002"
    assert parts(text) == [text]


@pytest.mark.parametrize("action", ["correct", "confirm"])
def test_the_assistants_words_are_not_revised(mem: Memory, action: str) -> None:
    """What was said is kept as said: a revision gets a clear refusal, not "no longer live"."""
    _session(mem, "s1", ("user", ASKED), ("assistant", ANSWER))
    [said] = _said(mem)
    s = mem.session(agent_id="assistant", user_id="alice", session_id="revising")
    refused = s.call(
        "memory_revise", {"id": said["id"], "action": action, "content": "Try Kartika Sari."}
    )
    assert refused["error"]["code"] == "invalid_argument"
    assert "what the assistant said" in refused["error"]["message"]
    assert _said(mem) == [said]


def test_the_setting_turns_it_off(tmp_path, real_embedder) -> None:
    from tests.support.extraction import CONFIG, extracting_memory

    config = CONFIG.model_copy(
        update={"extraction": CONFIG.extraction.model_copy(update={"assistant_words": False})}
    )
    with extracting_memory(tmp_path / "m.db", real_embedder, config) as memory:
        _session(memory, "s1", ("user", ASKED), ("assistant", ANSWER))
        assert _said(memory) == []


LONG = " ".join(f"Sentence number {i} of a long answer about gin bottles." for i in range(40))


@pytest.mark.parametrize(
    "text",
    [
        ANSWER,
        LONG,
        f"Intro.\n\n{LONG}\n\n1. Sweet vermouth\n2. Campari\n\nThanks!",
        "word " * 500,  # one sentence longer than a part
    ],
)
def test_each_part_is_a_verbatim_span_that_fits(text: str) -> None:
    found = parts(text)
    assert all(part in text and len(part) <= PART_CHARS for part in found)
    assert all(says(part) for part in found)
    kept = " ".join(found).split()
    assert kept == text.split()  # a short paragraph goes with its neighbour


def test_a_long_paragraph_is_cut_at_its_sentences() -> None:
    found = parts(LONG)
    assert len(found) > 1
    assert all(part.endswith("bottles.") for part in found)


def test_short_paragraphs_are_joined_into_one_part() -> None:
    assert parts(ANSWER) == [ANSWER]


@pytest.mark.parametrize(
    "text",
    ["Sure!", "Sure!\n\nAnything else?", "Noted. Anything else before we plan the release?"],
)
def test_an_acknowledgement_or_a_question_back_is_not_kept(text: str) -> None:
    assert parts(text) == []

"""A user's newer words retire every older record that states what they contradict
(core.write.stale, issue 14 item 6, issue 15 item 1): phrased facts and the user's verbatim
sentences alike, each sentence judged, through the offline extractor and the whole pipeline on
a real store and the packaged model, and through memory_write. What a later statement does not
contradict stays: an unrelated sentence of the stale turn, two pets, a mention of what the
user said ended."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import Record, Status
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory, stated_records


@pytest.fixture
def mem(tmp_path: Path, real_embedder: FlagEmbedder) -> Iterator[Memory]:
    with extracting_memory(tmp_path / "m.db", real_embedder) as memory:
        yield memory


session = extracted_session


def records(mem: Memory) -> dict[str, Record]:
    """Every record but the session summaries, by content."""
    return {r.content: r for r in stated_records(mem)}


def status(mem: Memory, words: str) -> Status:
    [record] = [r for content, r in records(mem).items() if words in content]
    return record.status


def test_a_new_boss_retires_the_sentence_naming_the_old_one_and_nothing_else(
    mem: Memory,
) -> None:
    """The verbatim sentence naming the old boss goes; the unrelated fact and sentence of the
    same turn stay, and so does the new boss."""
    session(
        mem,
        "s1",
        "Audience: my boss Dr. Weber plus two directors. I'm PM at Brandt. "
        "I keep the schedule in MS Project and export to Excel.",
    )
    assert status(mem, "Dr. Weber") is Status.CONFIRMED
    session(mem, "s2", "Dr. Weber retired end of April, my new boss is Katrin Vogel.", days=30)
    assert status(mem, "Dr. Weber plus two directors") is Status.SUPERSEDED
    assert status(mem, "MS Project") is Status.CONFIRMED
    assert status(mem, "PM at Brandt") is Status.CONFIRMED
    assert status(mem, "Katrin Vogel") is Status.CONFIRMED


def test_a_plan_called_off_retires_the_plan(mem: Memory) -> None:
    """ "so Berlin is off", said in passing and kept verbatim, retires the phrased plan."""
    session(mem, "s1", "I'm running the Berlin Marathon on 21 September.")
    assert status(mem, "Berlin Marathon") is Status.CONFIRMED
    session(
        mem, "s2", "Bad news, it's a stress reaction in my left foot, so Berlin is off.", days=40
    )
    assert status(mem, "Berlin Marathon") is Status.SUPERSEDED
    assert status(mem, "so Berlin is off") is Status.CONFIRMED


def test_a_habit_stopped_retires_it_whatever_follows(mem: Memory) -> None:
    """ "stopped badminton since joining" ended badminton, not "joining"."""
    session(mem, "s1", "I play badminton every Wednesday evening with some colleagues.")
    session(mem, "s2", "I stopped badminton since my knee surgery.", days=30)
    assert status(mem, "every Wednesday evening") is Status.SUPERSEDED


def test_two_pets_both_stay(mem: Memory) -> None:
    session(mem, "s1", "I have a dog.")
    session(mem, "s2", "I have a cat.", days=10)
    assert status(mem, "dog") is Status.CONFIRMED
    assert status(mem, "cat") is Status.CONFIRMED


def test_a_later_mention_of_what_ended_does_not_retire_the_change(mem: Memory) -> None:
    """The older sentence says REITs ended; a later one mentioning REITs revives nothing and
    retires nothing."""
    said = "Work changed, from March I'm covering banks instead of REITs."
    session(mem, "s1", said)
    session(mem, "s2", "Our new hire is great, she trained me on REITs when I joined.", days=10)
    assert status(mem, "covering banks instead of REITs") is Status.CONFIRMED


def test_a_new_holder_written_by_the_agent_supersedes_the_old_one(mem: Memory) -> None:
    """memory_write: "The user's new boss is ..." contradicts "The user's boss is ..." though
    the attributes differ (none given); an unrelated fact stays."""
    s = mem.session(agent_id="assistant", user_id="alice", session_id="w1", now=NOW)
    s.add_turn("user", "My boss is Dr. Weber. I have a dog.", at=NOW)
    later = NOW + timedelta(days=20)
    s.add_turn("user", "Dr. Weber retired, my new boss is Katrin Vogel.", at=later)

    def write(content: str, evidence: str) -> dict[str, object]:
        arguments = {
            "type": "semantic",
            "content": content,
            "source_kind": "user_statement",
            "evidence": evidence,
        }
        return s.call("memory_write", arguments, now=later)

    old = write("The user's boss is Dr. Weber.", "My boss is Dr. Weber")
    dog = write("The user has a dog.", "I have a dog")
    new = write("The user's new boss is Katrin Vogel.", "my new boss is Katrin Vogel")
    assert new["source_kind"] == "user_statement", new["notes"]
    got = mem.store.get_records([str(old["id"]), str(dog["id"]), str(new["id"])])
    assert got[str(old["id"])].status is Status.SUPERSEDED
    assert got[str(dog["id"])].status is Status.CONFIRMED
    assert got[str(new["id"])].status is Status.CONFIRMED


@pytest.mark.parametrize(
    "said",
    ["Right, I'm off to bed.", "I'm off sick today.", "I'm off work until Monday, so I'm bored."],
)
def test_the_user_being_off_retires_nothing(mem: Memory, said: str) -> None:
    """ "I'm off to bed" was read as a plan called off whose name is "the user", so it retired
    every record naming the user: lives, works, dog and allergy, through extraction and
    through memory_write alike."""
    facts = ["I live in Leeds.", "I work as a nurse.", "My dog is called Biscuit."]
    for day, fact in enumerate(facts):
        session(mem, f"s{day}", fact, days=day)
    session(mem, "later", said, days=10)
    s = mem.session(agent_id="assistant", user_id="alice", session_id="w", now=NOW)
    at = NOW + timedelta(days=11)
    s.add_turn("user", "I'm allergic to shellfish. Thanks! Right, I'm off to bed.", at=at)
    arguments = {"source_kind": "user_statement", "type": "semantic"}
    allergy = s.call(
        "memory_write",
        {
            **arguments,
            "content": "The user is allergic to shellfish.",
            "evidence": "I'm allergic to shellfish",
        },
        now=at,
    )
    off = s.call(
        "memory_write",
        {
            **arguments,
            "content": "The user is off to bed.",
            "evidence": "I'm off to bed",
            "type": "episodic",
        },
        now=at,
    )
    assert off["notes"] == [], off["notes"]
    assert mem.store.get_records([allergy["id"]])[allergy["id"]].status is Status.CONFIRMED
    for words in ("Leeds", "nurse", "Biscuit"):
        assert status(mem, words) is Status.CONFIRMED

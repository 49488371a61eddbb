"""False contradictions between statements about different things (the offline judge's
contradiction check, core/judge/offline.py): two trips to different cities in different
months, two reviews with different people on different days, two guesses ("might prefer")
with different days, and an adverb read as its adjective's antonym ("closely" is not
"closed"). A contradiction supersedes the older record,
so a false one loses a true fact."""

from __future__ import annotations

import pytest

from agent_memory.core.judge import OfflineJudge

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
    # One denies what the other does not say: in a short statement the subject and a
    # preposition make most of the words, and "not allergic to shellfish" retired "allergic to
    # peanuts".
    ("The user is allergic to peanuts.", "The user is not allergic to shellfish."),
    ("I live in Leeds.", "I don't live in York."),
    ("I go to the gym on Mondays.", "I don't go to the gym on Tuesdays."),
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
    ("The user is allergic to peanuts.", "The user is not allergic to peanuts."),
    ("I drink coffee every morning.", "I don't drink coffee."),
    ("The user is vegetarian.", "The user is not vegetarian, the user is pescatarian."),
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


EXCLUSIVE = [
    ("The user is running the Berlin Marathon on 21 September.", "So Berlin is off."),
    ("The user's boss is Dr. Weber.", "The user's new boss is Katrin Vogel."),
    ("Audience: my boss Dr. Weber plus two directors.", "Grace is my new boss."),
    ("The user plays badminton every Wednesday.", "The user has stopped badminton since joining."),
    ("Our boat Maaken is small for three adults.", "We sold Maaken and bought a bigger one."),
    ("We booked a trip to Rome in June.", "The Rome trip is cancelled."),
    ("My brother runs marathons.", "My brother stopped running."),
    ("I play badminton.", "I have finally quit badminton."),
    ("We're going to the Lisbon festival.", "The Lisbon festival is off for now."),
    ("Our trip to Rome is in June.", "The trip is off now, sadly."),
]
NOT_EXCLUSIVE = [
    ("The user is going to Rome.", "So it's off."),
    ("The user has a dog.", "The user has a cat."),
    ("My boss Katrin Vogel wants traffic lights.", "The user's new boss is Katrin Vogel."),
    ("My phone is an iPhone.", "My new phone is great."),
    ("The user plays tennis.", "The user stopped badminton since joining."),
    ("Weber plus two directors.", "I might get a new boss, maybe Katrin Vogel is my new boss."),
    # "off" to bed, sick, work, a food: the user is away or has given something up, not called
    # off (read as "the user is off", it retired every record naming the user)
    ("The user lives in Leeds.", "The user is off to bed."),
    ("The user works as a nurse.", "The user is off sick today."),
    ("The user's dog is called Biscuit.", "The user is off work until Monday."),
    ("The user is allergic to shellfish.", "The user is off dairy now."),
    ("Mark is my manager at Arup.", "Mark is off today, so I'm covering."),
    # what someone else stopped is theirs, not the user's (it retired "I run 5k every morning")
    ("The user runs 5k every morning.", "My brother stopped running."),
    ("I drink coffee every day.", "My wife no longer drinks coffee."),
    ("I play chess on Fridays.", "Tom quit chess."),
    ("My sister Zoe lives in York.", "Zoe is off to Spain next week."),
]


@pytest.mark.parametrize(("old", "new"), EXCLUSIVE)
def test_a_change_contradicts_the_old_value(old: str, new: str) -> None:
    """Called off, sold, a new role holder, a habit stopped (whatever follows it)."""
    judge = OfflineJudge(clauses=False)
    assert judge.contradicts(old, new).holds and judge.contradicts(new, old).holds


@pytest.mark.parametrize(("old", "new"), NOT_EXCLUSIVE)
def test_what_a_change_does_not_name_stays(old: str, new: str) -> None:
    assert not OfflineJudge(clauses=False).contradicts(old, new).holds

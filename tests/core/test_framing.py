"""What a sentence claims for its speaker (core.framing): reports of what someone said or
believes, and the "if" of an apology."""

from __future__ import annotations

import pytest

from agent_memory.core.framing import HEDGE, reports, told_before


@pytest.mark.parametrize(
    "text",
    [
        "My sister says I live in Leeds now.",
        "Apparently the wedding moved to June.",
        "Word is that the wedding moved to June.",
        "Rumour has it the office is closing.",
        "I hear the wedding moved to June.",
        "My aunt seems to think the wedding moved.",
        "My friend said I quit Google, so I laughed it off.",
        "Change of plan: the customer asked to postpone, so now the trip is in April.",
        "I told my boss I quit, I work at Meta now.",
        "I never said I quit Google.",
        "I was told the wedding is cancelled.",
    ],
)
def test_a_report_of_someone_elses_claim(text: str) -> None:
    assert reports(text)


@pytest.mark.parametrize(
    "text",
    [
        "I work at Meta now.",
        "I posted my new address to the bank, I live in Leeds now.",
        "Per my contract I am no longer employed at Acme since March.",
        "Sorry if I missed it, I live in Leeds now.",
    ],
)
def test_the_users_own_words_are_no_report(text: str) -> None:
    assert not reports(text)


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Sorry if I'm slow tonight, our daughter was born.", False),
        ("Sorry if my English is bad, I'm from Brazil.", False),
        ("Sorry if I upset you, I moved to Oslo.", False),
        ("Sorry if I'm slow later, I have a cold.", False),
        ("Sorry if I'm fired tomorrow, I'll need a reference.", True),
        ("Sorry if I don't play anymore next year, the baby.", True),
        ("Apologies if I ever move to Oslo, the cat stays with my mum.", True),
        ("Sorry if I get the job, I'll have less time.", True),
        ("If I get the job I'll move.", True),
        ("Sorry, if I get the job I'll move.", True),
    ],
)
def test_the_if_of_an_apology_is_no_condition(text: str, condition: bool) -> None:
    assert (HEDGE.search(text) is not None) is condition


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        ("I do pilates 3x a week, will that help with ski legs?", "I do pilates 3x a week"),
        ("cody only eats like 4 foods so maybe something plain too", "cody only eats like 4 foods"),
        ("i was a poli sci major at uconn and i thought logic games would be easy", None),
        ("I'm moving to Oslo but I might not go after all.", None),
        ("I'm allergic to nuts but I might have outgrown it.", None),
        ("I'm 30, am I right?", None),
        ("I'm vegan, is that correct?", None),
        ("cody only eats like 4 foods so maybe not", None),
        ("I'm moving to Oslo but I might not.", None),
        ("I'm moving to Oslo, but I might not.", None),
        ("I'm moving to Oslo and I'm not so sure.", None),
        ("I live in Oslo, maybe?", None),
        ("If I get the job, I'll move to Oslo and I might learn Norwegian.", None),
    ],
)
def test_a_clause_told_before_a_question_or_hedge(sentence: str, told: str | None) -> None:
    """A question or hedge governs its own clause ("so ...", after a comma), not an independent
    one said before it; "but I ..." / "and I ..." are not cut (they take back as often), and a
    hedge with nothing of its own ("but I might not") or a tag ("am I right?") doubts what came
    before."""
    end = told_before(sentence)
    assert (sentence[:end] if end is not None else None) == told

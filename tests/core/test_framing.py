"""What a sentence claims for its speaker (core.framing): reports of someone else's words or
beliefs, told apart from the user's own speech acts, and the "if" of an apology."""

from __future__ import annotations

import pytest

from agent_memory.core.framing import HEDGE, reports


@pytest.mark.parametrize(
    "text",
    [
        "My sister says I live in Leeds now.",
        "Apparently the wedding moved to June.",
        "Word is that the wedding moved to June.",
        "Rumour has it the office is closing.",
        "I hear the wedding moved to June.",
        "The wedding moved to June per my aunt.",
        "My aunt seems to think the wedding moved.",
        "My friend said I quit Google, so I laughed it off.",
        "Change of plan: the customer asked to postpone, so now the trip is in April.",
        "I told my boss I quit, my wife said it was too early.",
    ],
)
def test_a_report_of_someone_elses_claim(text: str) -> None:
    assert reports(text)


@pytest.mark.parametrize(
    "text",
    [
        "I work at Meta now.",
        "I told my boss I quit, I work at Meta now.",
        "I said goodbye to Google and started at Meta.",
        "We told the guests the wedding moved to June.",
        "I asked for a transfer and now I work in the Oslo office.",
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

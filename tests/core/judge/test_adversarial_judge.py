"""Adversarial review of issue 14's judge (item 2, precision): paraphrases that swap who holds
a relation, written for this file. The loose readings cover words in any order, so the roles
must be checked apart (core.judge.roles)."""

from __future__ import annotations

import pytest

from agent_memory.core.judge import OfflineJudge

SWAPPED: list[tuple[str, str]] = [
    ("Tom is my manager.", "The user is Tom's manager."),
    ("Leo is my son.", "The user is Leo's son."),
    ("My son is Leo.", "The user is Leo's son."),
    ("Raj is my landlord.", "The user is Raj's landlord."),
    ("I am Tom's manager.", "The user's manager is Tom."),
    ("Ana tutors me.", "The user tutors Ana."),
    ("I tutor Ana.", "Ana tutors the user."),
]
KEPT: list[tuple[str, str]] = [
    ("Tom is my manager.", "The user's manager is Tom."),
    ("Tom is my manager.", "Tom is the user's manager."),
    ("I am Tom's manager.", "The user is Tom's manager."),
    ("My mum's birthday is on the 3rd of May.", "The user's mother's birthday is May 3."),
    ("I do all my shopping at Lidl.", "The user shops at Lidl."),
]


@pytest.mark.parametrize(("quote", "content"), SWAPPED)
def test_a_paraphrase_that_swaps_the_roles_is_refused(quote: str, content: str) -> None:
    verdict = OfflineJudge().entails(quote.rstrip("."), content, context=quote)
    assert not verdict.holds, verdict.reason


@pytest.mark.parametrize(("quote", "content"), KEPT)
def test_a_paraphrase_that_keeps_the_roles_is_not_refused_for_them(
    quote: str, content: str
) -> None:
    verdict = OfflineJudge().entails(quote.rstrip("."), content, context=quote)
    assert "roles" not in verdict.reason


@pytest.mark.xfail(
    strict=True,
    reason="a relation noun read as a verb ('my tutor' / 'tutors Ana') needs the parse; "
    "a word rule over 'my X' -> 'the user Xs' refused 'I do my banking' / 'banks'",
)
def test_a_relation_noun_turned_into_the_users_act_is_refused() -> None:
    assert not OfflineJudge().entails("Ana is my tutor", "The user tutors Ana.").holds

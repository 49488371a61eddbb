"""A clause whose object is said only by what came before it is not phrased alone
(core.extraction.phrasing ``_DANGLES``): "I love it", "I don't have one yet", "... and I never
have" were stored as confirmed facts about nothing ("The user never has."). The sentence is
kept as said instead, with its turn as context; a clause whose object is named keeps its
phrasing, and a plan its date whatever its object, unless a pronoun is all it has."""

from __future__ import annotations

import pytest

from tests.support.extraction import proposed


def extract(text: str) -> list[tuple[str, str | None]]:
    """(content, event_at) of what the offline extractor proposes for one user turn."""
    return [(c.content, c.event_at) for c in proposed(text)]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("I don't smoke and I never have.", "I don't smoke and I never have."),
        ("Should I get a dog? I don't have one yet.", "I don't have one yet."),
        ("I tried the new ramen place and I love it.", None),
        ("I'm meeting them.", None),  # too little to keep as said, either
    ],
)
def test_a_clause_saying_its_object_by_what_came_before_is_not_phrased(
    said: str, kept: str | None
) -> None:
    """Before: "The user never has.", "The user does not have one yet.", "The user loves it.",
    "The user is meeting them."."""
    got = [content for content, _ in extract(said)]
    assert not any(
        c.startswith("The user")
        and c.rstrip(".").endswith(("never has", "one yet", "her in June", "loves it"))
        for c in got
    ), got
    if kept is not None:
        assert kept in got


@pytest.mark.parametrize(
    ("said", "phrased", "event_at"),
    [
        (
            "I'm flying to Lyon with her on the 12th of July.",
            "The user is flying to Lyon with her on the 12th of July.",
            "2027-07-12",  # the next 12 July after NOW
        ),
        (
            "I work in IT support at a hospital.",
            "The user works in IT support at a hospital.",
            None,
        ),
        ("I have one brother.", "The user has one brother.", None),
        # a plan keeps its date whatever its object (the re-read's case: it lost it)
        (
            "I'm visiting her on the 3rd of March.",
            "The user is visiting her on the 3rd of March.",
            "2027-03-03",
        ),
    ],
)
def test_a_clause_naming_its_object_keeps_its_phrasing_and_date(
    said: str, phrased: str, event_at: str | None
) -> None:
    """A pronoun after the object ("with her"), "IT", "one" before a noun: the object is said."""
    got = dict(extract(said))
    assert phrased in got
    if event_at is not None:
        assert (got[phrased] or "").startswith(event_at)

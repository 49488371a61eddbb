"""Change words in their other senses retire nothing (core.judge.change.change_spans): "left"
saying what remains ("Still got two months left at Pell Orchard") and "now that" saying since
when ("Now that Tom's settled in, ..."). Through the offline extractor and reviewer, the whole
pipeline, a real store and the packaged model; "left" and "now" that say a change still retire
what they change."""

from __future__ import annotations

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge.change import change_spans
from agent_memory.core.models import Status
from tests.support.extraction import extracted_session, status_of


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "I'm a junior architect at Pell Orchard Studio in Manchester.",
            "Still got two months left at Pell Orchard, my colleagues want me to finish the "
            "Didsbury drawings before I go.",
        ),
        (
            "My husband Tom just started a new job at Arup as a structural engineer.",
            "Now that Tom's settled in, we've started looking for a bigger house.",
        ),
    ],
)
def test_a_change_word_in_another_sense_retires_nothing(
    mem: Memory, before: str, after: str
) -> None:
    extracted_session(mem, "s1", before)
    extracted_session(mem, "s2", after, days=30)
    assert status_of(mem, before[:30]) is Status.CONFIRMED


def test_leaving_still_retires(mem: Memory) -> None:
    extracted_session(mem, "s1", "I'm a junior architect at Pell Orchard Studio in Manchester.")
    extracted_session(mem, "s2", "Three weeks ago I left Pell Orchard to go freelance.", days=30)
    assert status_of(mem, "junior architect") is Status.SUPERSEDED


def test_what_remains_and_since_when_are_read_in_their_clause() -> None:
    for unchanged in (
        "I've got 3 days of leave left this year.",
        "There's nothing left in the fridge.",
        "Only two of us left at Pell Orchard after the layoffs.",
        "And now that the kids are at school I have mornings free.",
        "Only two weeks left I'm so excited",
    ):
        assert not change_spans(unchanged), unchanged
    for changed in (
        "Three weeks ago I left Deloitte to go freelance.",  # the quantity is another clause's
        "I had no choice so I left HSBC.",
        "Three of us left Accenture together.",  # leaving a named place
        "Two of my colleagues left the firm.",
        "Now that I'm vegan, I've been trying tofu recipes.",  # the user's "now"
        "Now that my contract at Amazon has finished, I work at Google.",
        "me and two colleagues left deloitte last month",  # an object, lower case too
        "I work at Google now that my contract at Amazon has finished.",  # not opening a clause
    ):
        assert change_spans(changed), changed

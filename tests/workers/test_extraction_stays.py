"""A move for a while is a stay, not a new home (core.judge.change.for_a_while: "moved" with a
bounded time in its clause): "We've moved to Mum's for three weeks while the builders gut our
house" leaves "Our house in Aberystwyth is an 1890s terrace" live. Through the offline
extractor and reviewer, the whole pipeline, a real store and the packaged model; a move for
good, one said to have lasted, and a date moved still say a change."""

from __future__ import annotations

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge.change import change_spans
from agent_memory.core.models import Status
from tests.support.extraction import extracted_session, status_of


@pytest.mark.parametrize(
    ("home", "stay"),
    [
        (
            "We live in our flat in Uplands, Swansea with two cats.",
            "We've moved in with my sister for a fortnight while our flat gets rewired.",
        ),
        (
            "Our house in Aberystwyth is an 1890s terrace with solid stone walls.",
            "We've moved to Mum's for three weeks while the builders gut our house.",
        ),
        (
            "I live in Dalston with my partner Tomás.",
            "I moved to Lisbon for three months to work remotely.",
        ),
    ],
)
def test_a_stay_leaves_the_home(mem: Memory, home: str, stay: str) -> None:
    extracted_session(mem, "s1", home)
    extracted_session(mem, "s2", stay, days=30)
    assert status_of(mem, home.split(" with ")[0]) is Status.CONFIRMED


def test_a_move_for_good_still_retires_the_home(mem: Memory) -> None:
    extracted_session(mem, "s1", "We live in our flat in Uplands, Swansea with two cats.")
    moved = "We moved out of our flat in Uplands to a house in Mumbles."
    extracted_session(mem, "s2", moved, days=30)
    assert status_of(mem, "our flat in Uplands, Swansea") is Status.SUPERSEDED


def test_the_stay_is_read_in_the_moves_own_clause() -> None:
    for stay in (
        "We've moved to Mum's for three weeks.",
        "moved in with my sister for a fortnight",
        "I moved to Berlin for the semester.",
        "We've moved to Mum's for five weeks.",
        "We've moved to Mum's for three weeks. The kids start school on Monday.",
        "moved in with my sister for a fortnight, staying in her spare room",
    ):
        assert not change_spans(stay), stay
    for move in (
        "We moved to Leeds for good.",
        "We moved to Aberdeen for the long term.",
        "I moved to London for work.",
        "We moved to Leeds, and we are renting for a few months.",
        "We moved to Bristol while I was pregnant.",
        "I've moved to Glasgow until further notice.",
        # said to have lasted, a past year, a start, a time that is no stay, a date moved
        "We moved to Bath for the summer and ended up staying for good.",
        "I moved to London for the summer of 2019 and I've lived here ever since.",
        "I moved to Durham for September to start my PhD.",
        "We moved to Leeds for January so the kids could start at the new school.",
        "We moved to Shrewsbury in time for the spring term.",
        "We moved to Spain for the winter sun and the cheaper living.",
        "Football training moved to Thursdays for the season.",
    ):
        assert change_spans(move), move

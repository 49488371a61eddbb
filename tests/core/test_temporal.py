"""Temporal expressions resolve against the turn's time into the days they can mean."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from core.extraction.temporal import expressions, supports

# A Sunday.
ANCHOR = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("see you tomorrow", date(2026, 11, 30), date(2026, 11, 30)),
        ("it happened yesterday", date(2026, 11, 28), date(2026, 11, 28)),
        ("the launch is on 2027-01-15", date(2027, 1, 15), date(2027, 1, 15)),
        ("until 3 December", date(2026, 12, 3), date(2026, 12, 3)),
        ("from December 10th, 2026", date(2026, 12, 10), date(2026, 12, 10)),
        ("I'm moving next month", date(2026, 12, 1), date(2026, 12, 31)),
        ("flying out next week", date(2026, 11, 30), date(2026, 12, 6)),
        ("busy this weekend", date(2026, 12, 5), date(2026, 12, 6)),
        ("in July", date(2027, 7, 1), date(2027, 7, 31)),
        ("in two weeks", date(2026, 12, 12), date(2026, 12, 14)),
        ("on Friday", date(2026, 12, 4), date(2026, 12, 4)),
        ("next Friday", date(2026, 12, 4), date(2026, 12, 11)),
        ("by the end of the month", date(2026, 11, 30), date(2026, 11, 30)),
    ],
)
def test_expressions_resolve_to_day_ranges(text: str, start: date, end: date) -> None:
    """Each understood expression becomes the inclusive range of days it can mean."""
    found = expressions(text, ANCHOR)
    assert [(e.start, e.end) for e in found] == [(start, end)], found


def test_a_day_is_supported_only_by_an_expression_that_means_it() -> None:
    """supports() finds the expression covering a day, and nothing for other days or text."""
    assert supports(date(2026, 12, 15), "I am moving to Berlin next month", ANCHOR) is not None
    assert supports(date(2027, 3, 1), "I am moving to Berlin next month", ANCHOR) is None
    assert supports(date(2026, 12, 1), "My favourite colour is blue", ANCHOR) is None
    assert expressions("the 3rd, some holiday, at 10am", ANCHOR) == []

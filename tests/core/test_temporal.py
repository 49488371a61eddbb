"""Temporal expressions resolve against a moment into the days they can mean: a turn's, which
leans to the future, and a query's, which looks back."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.core.temporal import expressions, query_window, supports

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
        ("three weeks ago", date(2026, 11, 7), date(2026, 11, 9)),
        ("in the last 3 months", date(2026, 8, 29), date(2026, 11, 29)),
        ("over the past two weeks", date(2026, 11, 15), date(2026, 11, 29)),
        ("the past month", date(2026, 10, 29), date(2026, 11, 29)),
        ("back in 2023", date(2023, 1, 1), date(2023, 12, 31)),
        ("last night", date(2026, 11, 28), date(2026, 11, 28)),
        ("the past weekend", date(2026, 11, 21), date(2026, 11, 22)),
        ("in March, 2025", date(2025, 3, 1), date(2025, 3, 31)),
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


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        # A month that has begun is this year's; one still to come, last year's.
        ("in November", date(2026, 11, 1), date(2026, 11, 30)),
        ("in December", date(2025, 12, 1), date(2025, 12, 31)),
        ("in July", date(2026, 7, 1), date(2026, 7, 31)),
        ("on 3 December", date(2025, 12, 3), date(2025, 12, 3)),
        ("on November 2nd", date(2026, 11, 2), date(2026, 11, 2)),
        ("on Friday", date(2026, 11, 27), date(2026, 11, 27)),
        ("last Sunday", date(2026, 11, 22), date(2026, 11, 22)),
        # Expressions that name their year or direction do not lean.
        ("next month", date(2026, 12, 1), date(2026, 12, 31)),
        ("in December 2026", date(2026, 12, 1), date(2026, 12, 31)),
        # Ranges that run until the question is asked.
        ("since March", date(2026, 3, 1), date(2026, 11, 29)),
        ("after March", date(2026, 4, 1), date(2026, 11, 29)),
        ("in the last month", date(2026, 10, 29), date(2026, 11, 29)),
        ("in the last week", date(2026, 11, 22), date(2026, 11, 29)),
        # Named periods already past.
        ("last March", date(2026, 3, 1), date(2026, 3, 31)),
        ("last November", date(2025, 11, 1), date(2025, 11, 30)),
        ("on 29 February", date(2024, 2, 29), date(2024, 2, 29)),
        ("this weekend", date(2026, 11, 28), date(2026, 11, 29)),
        ("the end of this month", date(2026, 11, 30), date(2026, 11, 30)),
    ],
)
def test_a_question_looks_back(text: str, start: date, end: date) -> None:
    """lean="past" reads a month, day or weekday without a year as the latest one begun."""
    found = expressions(text, ANCHOR, lean="past")
    assert [(e.start, e.end) for e in found] == [(start, end)], found


def test_part_of_an_expression_names_nothing_more() -> None:
    """ "july 2026" inside "3 July 2026" is the day, not also the whole month."""
    found = expressions("on 3 July 2026", ANCHOR)
    assert [(e.text, e.start, e.end) for e in found] == [
        ("3 july 2026", date(2026, 7, 3), date(2026, 7, 3))
    ]


def test_a_query_window_spans_every_expression_and_ends_the_last_day() -> None:
    """Several expressions give one window over all of them, as the store's inclusive times."""
    window = query_window("the trip in March or the one in May?", ANCHOR)
    assert window is not None
    assert window.phrases == ("in march", "in may")
    assert window.bounds() == ("2026-03-01T00:00:00.000000Z", "2026-05-31T23:59:59.999999Z")


@pytest.mark.parametrize(
    "query",
    [
        "What did I do recently?",
        "something from a while ago",
        "this may help: what did I march for?",
        "the 3rd, at 10am",
        "How many weeks ago did I go?",
        "Did I finish before March?",  # bounds nothing on the other side
        "Did it take me in 2 days?",  # a duration
        "a trip of in 2000 days",
        "Which of the 2 may need a visa?",
        "did I march 5 miles",
        "what did I do in sepember?",
        "What happened in May 0000?",
    ],
)
def test_vague_or_no_time_words_name_no_window(query: str) -> None:
    assert query_window(query, ANCHOR) is None


@given(st.text(max_size=200))
def test_any_text_gives_no_window_or_a_well_formed_one(text: str) -> None:
    """No text makes the parser fail, and a window never ends before it starts."""
    window = query_window(text, ANCHOR)
    if window is not None:
        assert window.start <= window.end
        since, until = window.bounds()
        assert since < until


_TEMPLATES = (
    "{n} {unit} ago",
    "in the last {n} {unit}",
    "in {n} {unit}",
    "on {day} {month}",
    "on {month} {day}, {year}",
    "in {month}",
    "in {month} {year}",
    "back in {year}",
    "on {year}-{mm:02d}-{day:02d}",
    "the day after tomorrow",
    "yesterday",
    "next year",
    "the past year",
    "last {month}",
    "since {month}",
    "on Monday",
    "this weekend",
)


@given(
    st.lists(st.sampled_from(_TEMPLATES), min_size=1, max_size=3),
    st.integers(0, 999),
    st.sampled_from(["days", "weeks", "months", "years", "day", "week"]),
    st.integers(0, 40),
    st.sampled_from(["January", "feb", "Sept", "may", "December"]),
    st.integers(0, 9999),
    st.integers(0, 13),
    st.datetimes(timezones=st.sampled_from([UTC, timezone(timedelta(hours=14))])),
)
def test_numbers_months_and_years_at_their_limits_never_fail(
    templates: list[str],
    n: int,
    unit: str,
    day: int,
    month: str,
    year: int,
    mm: int,
    now: datetime,
) -> None:
    """Numbers at and past their limits (day 0 or 40, month 13, year 0 or 9999, anchors at
    the calendar's ends in two time zones), alone or combined: no text fails, and a window,
    when there is one, is well formed. Which days are real is the next test's."""
    text = " and ".join(
        t.format(n=n, unit=unit, day=day, month=month, year=f"{year:04d}", mm=mm) for t in templates
    )
    window = query_window(text, now)
    if window is not None:
        assert window.start <= window.end
        since, until = window.bounds()
        assert since < until
    for lean in ("future", "past"):
        expressions(text, now, lean=lean)  # type: ignore[arg-type]


@given(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 40), st.booleans())
def test_a_written_date_names_its_day_exactly_when_the_day_exists(
    year: int, month: int, day: int, iso: bool
) -> None:
    """February 30th, month 13, day 0 and year 0 name nothing; every real day names itself."""
    try:
        real: date | None = date(year, month, day)
    except ValueError:
        real = None
    if iso:
        text = f"What did I do on {year:04d}-{month:02d}-{day:02d}?"
    elif 1 <= month <= 12:
        text = f"What did I do on {day} {calendar.month_name[month]} {year:04d}?"
    else:
        return  # no month name to write
    window = query_window(text, ANCHOR)
    if real is None:
        assert window is None, text
    else:
        assert window is not None, text
        assert (window.start, window.end) == (real, real)


def test_a_query_window_is_the_days_of_the_askers_time_zone() -> None:
    """ "yesterday" asked at 08:00 in UTC+10 is the day before there, as UTC bounds."""
    window = query_window(
        "what did I eat yesterday?", datetime(2026, 11, 30, 8, tzinfo=timezone(timedelta(hours=10)))
    )
    assert window is not None
    assert window.bounds() == ("2026-11-28T14:00:00.000000Z", "2026-11-29T13:59:59.999999Z")


def test_an_unknown_lean_is_refused() -> None:
    with pytest.raises(ValueError, match="lean"):
        expressions("in March", ANCHOR, lean="sideways")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # An abbreviated month with its period keeps its day.
        ("on leave from Dec. 20 to Jan. 5", [(date(2026, 12, 20),) * 2, (date(2027, 1, 5),) * 2]),
        # A lowercase "may" is a month after a preposition or before an ordinal.
        ("rent is due on may 1", [(date(2027, 5, 1),) * 2]),
        ("rent is due may 1st", [(date(2027, 5, 1),) * 2]),
        ("the 2 may need a visa", []),
        # "since" looks back even in a plan.
        ("taking vitamins since March", [(date(2026, 3, 1), date(2026, 3, 31))]),
        # An impossible day names nothing, and not its month either.
        ("on 29 February 2025", []),
    ],
)
def test_a_turn_reads_dates_as_written(text: str, days: list[tuple[date, date]]) -> None:
    assert [(e.start, e.end) for e in expressions(text, ANCHOR)] == days


def test_a_question_about_a_range_spans_both_ends() -> None:
    """ "from March to May" is March and May, not March until now."""
    window = query_window("What did I do from March to May?", ANCHOR)
    assert window is not None and (window.start, window.end) == (
        date(2026, 3, 1),
        date(2026, 5, 31),
    )


@pytest.mark.parametrize(
    "text", ["on \u017funday", "next \u017faturday", "in augu\u017ft", "\u017feven days ago"]
)
@pytest.mark.parametrize("lean", ["future", "past"])
def test_letters_that_fold_to_ascii_do_not_reach_the_name_tables(text: str, lean: str) -> None:
    """The long s folds to "s" under Unicode case-insensitive matching; the rules match ASCII
    letters only, so these name nothing instead of failing."""
    assert expressions(text, ANCHOR, lean=lean) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "offset"),
    [("what did I do on 0001-01-01?", 10), ("in January 0001", 10), ("December 9999", -10)],
)
def test_days_without_a_utc_time_name_no_window(query: str, offset: int) -> None:
    """January 1st of year 1 begins before any UTC time east of Greenwich (and December 31st
    of 9999 ends after any, west of it): such a day names nothing rather than failing."""
    now = datetime(2026, 11, 30, 8, tzinfo=timezone(timedelta(hours=offset)))
    assert query_window(query, now) is None


def test_a_turns_day_without_a_year_supports_either_reading() -> None:
    """ "on March 3" said in November may be next March's (a plan) or last March's (a fact
    since then): the validator keeps a model's date in either."""
    said = "I started the new job on March 3"
    assert supports(date(2027, 3, 3), said, ANCHOR) is not None
    assert supports(date(2026, 3, 3), said, ANCHOR) is not None
    assert supports(date(2026, 3, 4), said, ANCHOR) is None

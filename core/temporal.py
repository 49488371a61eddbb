"""Temporal expressions in a text, resolved against a moment into the days they can mean.

``expressions(text, anchor)`` finds the date expressions this module understands and turns each
into a day range (start and end inclusive, days of the anchor's own time zone): "tomorrow" is
one day, "next week" is Monday to Sunday of the following week, "in July" is the whole month.
Two readers:

- The extraction validator (design §6 item 5) keeps a candidate's valid_from, valid_until or
  review_at only when it falls inside the range of an expression found in its evidence turn,
  resolved against the turn's timestamp (``supports``).
- The retriever's time generator (design §7, temporal cues) reads a query's expressions against
  the search's ``now`` (``query_window``) and ranks the records whose event time falls in them.

Understood: ISO dates (2026-07-03), "3 July [2026]", "July 3[rd][, 2026]", "in July", "last
July", "July [,] 2026", "in 2026", today, tonight, tomorrow, yesterday, last night, "the day
after tomorrow", "[next|this|on|last] <weekday>", "next/this/last week|month|year", "the past
week|month|year" and "in the last week|month|year" (the seven days, month or year up to the
anchor), "this|last|past weekend", "in N days|weeks|months|years", "N days|weeks|months|years
from now", "N days|weeks|months|years ago", "in the last|past N days|weeks|months|years", "end
of the month|year". Not understood (such fields are dropped, such queries get no time window):
holidays, seasons, "the 3rd" without a month, times of day, ranges written as "3-5 July", vague
words ("recently", "a while ago"), and any language but English. "May" and "March" next to a
day number without a year count only capitalised ("the 2 may need a visa", "march 5 miles").
Where expressions overlap, the longest is read ("the end of this month" is its last day, not
also the whole month; "3 July 2026" is the day, not also July).

What an expression without a year or a direction means depends on which way the text leans.
A turn mostly plans (``lean="future"``, the default): a month without a year is the next such
month on or after the anchor's month (this year, else next), a month-day without a year is in
the anchor's year, a bare weekday and "this weekend" the coming ones. A question mostly looks
back (``lean="past"``): the latest such month that has begun ("in March" asked in February is
last year's), the latest such day on or before the anchor, the latest such weekday and
weekend; "since/after March" runs until the anchor, "before/by/until March" names no
window (it bounds nothing on the other side), and "in 2 days" is a duration, not a date.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Literal

from core.models import format_time

_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in {calendar.month_name[number].lower(), calendar.month_abbr[number].lower()}
}
_MONTHS["sept"] = 9
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
# Month words that are also common lowercase words ("it may", "march on").
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march"})
_WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNT = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(day|week|month|year)s?\b"

Lean = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Expression:
    """A temporal expression found in a text (lowercased) and the days it can mean."""

    text: str
    start: date
    end: date

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True, slots=True)
class _Reading:
    """What a rule needs besides its match: the anchor's day and the text's lean."""

    today: date
    past: bool


Days = tuple[date, date] | None
_Rule = tuple[re.Pattern[str], Callable[[re.Match[str], _Reading], Days]]
_RULES: list[_Rule] = []


def _rule(pattern: str) -> Callable[[Callable[[re.Match[str], _Reading], Days]], None]:
    def register(resolve: Callable[[re.Match[str], _Reading], Days]) -> None:
        _RULES.append((re.compile(pattern, re.IGNORECASE), resolve))

    return register


def expressions(text: str, anchor: datetime, *, lean: Lean = "future") -> list[Expression]:
    """Every understood temporal expression in ``text``, in the order they appear, resolved
    against ``anchor``; an expression without a year or a direction leans as ``lean`` says
    (module docstring). Where matches overlap, the longest one is read."""
    if lean not in ("future", "past"):
        raise ValueError(f"lean must be 'future' or 'past', not {lean!r}")
    reading = _Reading(anchor.date(), lean == "past")
    matches = [(m, resolve) for pattern, resolve in _RULES for m in pattern.finditer(text)]
    matches.sort(key=lambda item: (item[0].start() - item[0].end(), item[0].start()))
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Expression]] = []
    for match, resolve in matches:
        if any(match.start() < end and start < match.end() for start, end in taken):
            continue
        try:
            days = resolve(match, reading)
        except (ValueError, OverflowError):  # a day outside the calendar: year 0, past 9999
            days = None
        if days is None:
            continue
        taken.append(match.span())
        found.append((match.start(), Expression(match.group(0).lower(), *days)))
    return [expression for _, expression in sorted(found, key=lambda item: item[0])]


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """The days a query's temporal expressions name, as one window (inclusive days of
    ``zone``, the time zone of the moment it was read against)."""

    phrases: tuple[str, ...]
    start: date
    end: date
    zone: tzinfo | None

    def bounds(self) -> tuple[str, str]:
        """The window as the store's canonical UTC times, both ends inclusive (RecordFilter)."""
        first = datetime.combine(self.start, time.min, tzinfo=self.zone)
        last = datetime.combine(self.end, time.max, tzinfo=self.zone)
        return format_time(first), format_time(last)

    def describe(self) -> dict[str, object]:
        since, until = self.bounds()
        return {"phrases": list(self.phrases), "since": since, "until": until}


def query_window(query: str, now: datetime) -> TimeWindow | None:
    """The window a query's own time words name, read looking back from ``now`` (an aware
    moment; its time zone decides what "yesterday" is): the span of every expression found
    ("the trip in March or the one in May": March 1 to May 31); None when it names none."""
    found = expressions(query, now, lean="past")
    if not found:
        return None
    return TimeWindow(
        phrases=tuple(dict.fromkeys(e.text for e in found)),
        start=min(e.start for e in found),
        end=max(e.end for e in found),
        zone=now.tzinfo,
    )


def supports(day: date, text: str, anchor: datetime) -> Expression | None:
    """The first expression in ``text`` whose days include ``day``, if any."""
    for expression in expressions(text, anchor):
        if expression.contains(day):
            return expression
    return None


# -- the rules -----------------------------------------------------------------------------


def _one_day(day: date | None) -> Days:
    return None if day is None else (day, day)


@_rule(r"\b(\d{4})-(\d{2})-(\d{2})\b")
def _iso_date(m: re.Match[str], r: _Reading) -> Days:
    return _one_day(_safe_date(int(m[1]), int(m[2]), int(m[3])))


@_rule(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}(?:,? (\d{{4}}))?")
def _day_month(m: re.Match[str], r: _Reading) -> Days:
    return _one_day(_written_day(m[3], m[2], int(m[1]), r))


@_rule(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}}))?")
def _month_day(m: re.Match[str], r: _Reading) -> Days:
    return _one_day(_written_day(m[3], m[1], int(m[2]), r))


@_rule(rf"\b(in|during|by|until|from|since|before|after) {_MONTH}(?!,? \d)")
def _in_month(m: re.Match[str], r: _Reading) -> Days:
    month, today = _MONTHS[m[2].lower().rstrip(".")], r.today
    if not r.past:
        year = today.year if month >= today.month else today.year + 1
        return date(year, month, 1), _month_end(year, month)
    year = today.year if month <= today.month else today.year - 1
    preposition = m[1].lower()
    if preposition in ("by", "until", "before"):
        return None
    if preposition in ("since", "from"):
        return date(year, month, 1), today
    if preposition == "after":
        after = _month_end(year, month) + timedelta(days=1)
        return (after, today) if after <= today else None
    return date(year, month, 1), _month_end(year, month)


@_rule(rf"\blast {_MONTH}(?!,? \d)")
def _last_month_named(m: re.Match[str], r: _Reading) -> Days:
    """The latest such month that ended before the anchor's month began."""
    month, today = _MONTHS[m[1].lower().rstrip(".")], r.today
    year = today.year if month < today.month else today.year - 1
    return date(year, month, 1), _month_end(year, month)


@_rule(rf"\b{_MONTH},? (\d{{4}})\b")
def _month_year(m: re.Match[str], r: _Reading) -> Days:
    year, month = int(m[2]), _MONTHS[m[1].lower().rstrip(".")]
    return date(year, month, 1), _month_end(year, month)


@_rule(r"\b(?:in|during|throughout|back in) ((?:19|20)\d\d)\b(?!-)(?! (?:day|week|month|year)s?\b)")
def _in_year(m: re.Match[str], r: _Reading) -> Days:
    return date(int(m[1]), 1, 1), date(int(m[1]), 12, 31)


@_rule(
    r"\b(the day after tomorrow|tomorrow|today|tonight|this (?:morning|afternoon|evening)"
    r"|yesterday|last night)\b"
)
def _named_day(m: re.Match[str], r: _Reading) -> Days:
    word = " ".join(m[1].lower().split())
    offset = {"the day after tomorrow": 2, "tomorrow": 1, "yesterday": -1, "last night": -1}
    return _one_day(r.today + timedelta(days=offset.get(word, 0)))


@_rule(rf"\b(?:(next|this|on|last) )?{_WEEKDAY}\b")
def _weekday(m: re.Match[str], r: _Reading) -> Days:
    which, today = (m[1] or "").lower(), r.today
    target = _WEEKDAYS[m[2].lower()]
    ahead = (target - today.weekday()) % 7
    if which == "last":
        return _one_day(today - timedelta(days=(today.weekday() - target) % 7 or 7))
    if which == "next":  # "next Friday": the coming one, or the one after it
        first = today + timedelta(days=ahead or 7)
        return first, first + timedelta(days=7)
    if r.past and which != "this":
        return _one_day(today - timedelta(days=(today.weekday() - target) % 7))
    return _one_day(today + timedelta(days=ahead))


@_rule(r"\b(next|this|last) (week|month|year)\b")
def _calendar_period(m: re.Match[str], r: _Reading) -> Days:
    shift, unit, today = {"next": 1, "this": 0, "last": -1}[m[1].lower()], m[2].lower(), r.today
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        year, month = _add_months(today.year, today.month, shift)
        return date(year, month, 1), _month_end(year, month)
    return date(today.year + shift, 1, 1), date(today.year + shift, 12, 31)


@_rule(r"\b(?:(?:in|over|within|during) the (?:last|past)|the past) (week|month|year)\b")
def _rolling_period(m: re.Match[str], r: _Reading) -> Days:
    return _shift(r.today, m[1].lower(), -1), r.today


@_rule(r"\b(this|last|past|previous) weekend\b")
def _weekend(m: re.Match[str], r: _Reading) -> Days:
    today = r.today
    if m[1].lower() != "this":  # the previous calendar week's
        saturday = today - timedelta(days=today.weekday() + 2)
    elif r.past:  # the latest one begun
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    else:  # the coming one
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
    return saturday, saturday + timedelta(days=1)


@_rule(rf"\b(?:in {_COUNT} {_UNIT}|{_COUNT} {_UNIT} from now)")
def _ahead(m: re.Match[str], r: _Reading) -> Days:
    if m[1] and r.past:  # "did it take me in 2 days?": a duration
        return None
    count, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
    return _around(r.today, _count(count), unit.lower())


@_rule(rf"\b{_COUNT} {_UNIT} ago\b")
def _ago(m: re.Match[str], r: _Reading) -> Days:
    return _around(r.today, -_count(m[1]), m[2].lower())


@_rule(rf"\b(?:in|over|during|within) the (?:last|past) {_COUNT} {_UNIT}")
def _last_n(m: re.Match[str], r: _Reading) -> Days:
    return _shift(r.today, m[2].lower(), -_count(m[1])), r.today


@_rule(r"\b(?:the )?end of (?:the |this )?(month|year)\b")
def _end_of(m: re.Match[str], r: _Reading) -> Days:
    today = r.today
    if m[1].lower() == "month":
        return _one_day(_month_end(today.year, today.month))
    return _one_day(date(today.year, 12, 31))


# -- arithmetic ----------------------------------------------------------------------------


def _count(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _NUMBERS[text]


def _written_day(year: str | None, month_word: str, day: int, r: _Reading) -> date | None:
    """A day written with its month: in ``year`` when given; else in the anchor's year, or
    looking back the latest such day on or before the anchor (February 29th: the latest leap
    year's). A lowercase "may" or "march" without a year is taken for the common word."""
    month = _MONTHS[month_word.lower().rstrip(".")]
    if year:
        return _safe_date(int(year), month, day)
    if month_word.lower().rstrip(".") in _AMBIGUOUS_MONTHS and month_word.islower():
        return None
    if not r.past:
        return _safe_date(r.today.year, month, day)
    for year_back in range(r.today.year, r.today.year - 9, -1):
        found = _safe_date(year_back, month, day)
        if found is not None and found <= r.today:
            return found
    return None


def _shift(day: date, unit: str, count: int) -> date:
    """``day`` moved by ``count`` units; a month or year move keeps the day of the month where
    the target month has it, else takes its last day (January 31 + 1 month: February 28/29)."""
    if unit in ("day", "week"):
        return day + timedelta(days=count * (7 if unit == "week" else 1))
    year, month = _add_months(day.year, day.month, count * (12 if unit == "year" else 1))
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _around(today: date, count: int, unit: str) -> tuple[date, date]:
    """The days ``count`` units after ``today`` (before, when negative): a day exactly, a week
    give or take a day, a month or a year give or take three days."""
    center = _shift(today, unit, count)
    slack = timedelta(days={"day": 0, "week": 1}.get(unit, 3))
    return center - slack, center + slack


def _add_months(year: int, month: int, months: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + months
    return index // 12, index % 12 + 1


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


__all__ = ["Expression", "TimeWindow", "expressions", "query_window", "supports"]

"""Temporal expressions in a text, resolved against a moment into the days they can mean.

``expressions(text, anchor)`` finds the date expressions this module understands and turns each
into a day range (start and end inclusive, UTC days): "tomorrow" is one day, "next week" is
Monday to Sunday of the following week, "in July" is the whole month. Two readers:

- The extraction validator (design §6 item 5) keeps a candidate's valid_from, valid_until or
  review_at only when it falls inside the range of an expression found in its evidence turn,
  resolved against the turn's timestamp (``supports``).
- The retriever's time generator (design §7, temporal cues) reads a query's expressions against
  the search's ``now`` (``query_window``) and ranks the records whose event time falls in them.

Understood: ISO dates (2026-07-03), "3 July [2026]", "July 3[rd][, 2026]", "in July",
"July [,] 2026", "in 2026", today, tonight, tomorrow, yesterday, last night, "the day after
tomorrow", "[next|this|on|last] <weekday>", "next/this/last week|month|year", "the past
week|month|year", "this|last|past weekend", "in N days|weeks|months|years", "N
days|weeks|months|years from now", "N days|weeks|months|years ago", "in the last|past N
days|weeks|months|years", "end of the month|year". Not understood (such fields are dropped,
such queries get no time window): holidays, seasons, "the 3rd" without a month, times of day,
ranges written as "3-5 July", vague words ("recently", "a while ago"), and any language but
English.

What an expression without a year or a direction means depends on which way the text leans.
A turn mostly plans (``lean="future"``, the default): a month without a year is the next such
month on or after the anchor's month (this year, else next), a month-day without a year is in
the anchor's year, a bare weekday the coming one. A question mostly looks back
(``lean="past"``): the latest such month that has begun ("in March" asked in February is last
year's), the latest such day on or before the anchor, the latest such weekday.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
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
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_COUNT = r"(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(day|week|month|year)s?"

Lean = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Expression:
    """A temporal expression found in a text and the days it can mean."""

    text: str
    start: date
    end: date

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


def expressions(text: str, anchor: datetime, *, lean: Lean = "future") -> list[Expression]:
    """Every understood temporal expression in ``text``, resolved against ``anchor``; an
    expression without a year or a direction leans as ``lean`` says (module docstring)."""
    past = lean == "past"
    lowered = text.lower()
    today = anchor.date()
    found: list[Expression] = []
    spans: list[tuple[int, int]] = []

    def add(match: re.Match[str], start: date, end: date | None = None) -> None:
        # Part of an expression already found names nothing more: "july 2026" inside
        # "3 july 2026" is not the whole month.
        if any(a <= match.start() and match.end() <= b for a, b in spans):
            return
        spans.append(match.span())
        found.append(Expression(match.group(0), start, end or start))

    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        day = _safe_date(int(m[1]), int(m[2]), int(m[3]))
        if day:
            add(m, day)
    day_month = rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}(?:,? (\d{{4}}))?"
    for m in re.finditer(day_month, lowered):
        day = _day_in_year(m[3], _MONTHS[m[2]], int(m[1]), today, past=past)
        if day:
            add(m, day)
    for m in re.finditer(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}}))?", lowered):
        day = _day_in_year(m[3], _MONTHS[m[1]], int(m[2]), today, past=past)
        if day:
            add(m, day)
    in_month = rf"\b(?:in|during|by|until|from|since|before|after) {_MONTH}(?!,? \d)"
    for m in re.finditer(in_month, lowered):
        month = _MONTHS[m[1]]
        if past:
            year = today.year if month <= today.month else today.year - 1
        else:
            year = today.year if month >= today.month else today.year + 1
        add(m, date(year, month, 1), _month_end(year, month))
    for m in re.finditer(rf"\b{_MONTH},? (\d{{4}})\b", lowered):
        month, year = _MONTHS[m[1]], int(m[2])
        add(m, date(year, month, 1), _month_end(year, month))
    for m in re.finditer(r"\b(?:in|during|throughout|back in) ((?:19|20)\d\d)\b(?!-)", lowered):
        add(m, date(int(m[1]), 1, 1), date(int(m[1]), 12, 31))
    simple = {
        r"\bthe day after tomorrow\b": 2,
        r"\btomorrow\b": 1,
        r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b": 0,
        r"\b(?:yesterday|last night)\b": -1,
    }
    for pattern, offset in simple.items():
        for m in re.finditer(pattern, lowered):
            add(m, today + timedelta(days=offset))
    for m in re.finditer(rf"\b(next|this|on|last)? ?{_WEEKDAY}\b", lowered):
        target = _WEEKDAYS[m[2]]
        ahead = (target - today.weekday()) % 7
        if m[1] == "last":
            back = (today.weekday() - target) % 7 or 7
            add(m, today - timedelta(days=back))
        elif m[1] == "next":  # "next Friday": the coming one, or the one after it
            first = today + timedelta(days=ahead or 7)
            add(m, first, first + timedelta(days=7))
        elif past and m[1] != "this":
            add(m, today - timedelta(days=(today.weekday() - target) % 7))
        else:
            add(m, today + timedelta(days=ahead))
    for m in re.finditer(r"\b(next|this|last) (week|month|year)\b", lowered):
        shift = {"next": 1, "this": 0, "last": -1}[m[1]]
        if m[2] == "week":
            monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
            add(m, monday, monday + timedelta(days=6))
        elif m[2] == "month":
            year, month = _add_months(today.year, today.month, shift)
            add(m, date(year, month, 1), _month_end(year, month))
        else:
            add(m, date(today.year + shift, 1, 1), date(today.year + shift, 12, 31))
    for m in re.finditer(r"\bthe past (week|month|year)\b", lowered):
        add(m, _after(today, -1, m[1], exact=True)[0], today)
    for m in re.finditer(r"\bthis weekend\b", lowered):
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        add(m, saturday, saturday + timedelta(days=1))
    for m in re.finditer(r"\b(?:last|past|previous) weekend\b", lowered):
        saturday = today - timedelta(days=today.weekday() + 2)  # the previous week's
        add(m, saturday, saturday + timedelta(days=1))
    for m in re.finditer(
        rf"\b(?:in {_COUNT} (day|week|month|year)s?|{_COUNT} (day|week|month|year)s? from now)\b",
        lowered,
    ):
        count_text, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        add(m, *_after(today, _count(count_text), unit))
    for m in re.finditer(rf"\b{_COUNT} {_UNIT} ago\b", lowered):
        add(m, *_after(today, -_count(m[1]), m[2]))
    for m in re.finditer(
        rf"\b(?:in|over|during|within) the (?:last|past) {_COUNT} {_UNIT}", lowered
    ):
        add(m, _after(today, -_count(m[1]), m[2], exact=True)[0], today)
    for m in re.finditer(r"\b(?:the )?end of (?:the |this )?(month|year)\b", lowered):
        if m[1] == "month":
            add(m, _month_end(today.year, today.month))
        else:
            add(m, date(today.year, 12, 31))
    return found


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """The days a query's temporal expressions name, as one window (inclusive UTC days)."""

    phrases: tuple[str, ...]
    start: date
    end: date

    def bounds(self) -> tuple[str, str]:
        """The window as the store's canonical times, both ends inclusive (RecordFilter)."""
        first = datetime.combine(self.start, time.min, tzinfo=UTC)
        last = datetime.combine(self.end, time.max, tzinfo=UTC)
        return format_time(first), format_time(last)

    def describe(self) -> dict[str, object]:
        since, until = self.bounds()
        return {"phrases": list(self.phrases), "since": since, "until": until}


def query_window(query: str, now: datetime) -> TimeWindow | None:
    """The window a query's own time words name, read looking back from ``now``: the span of
    every expression found ("the trip in March or the one in May": March 1 to May 31); None
    when it names none."""
    found = expressions(query, now.astimezone(UTC), lean="past")
    if not found:
        return None
    return TimeWindow(
        phrases=tuple(dict.fromkeys(e.text for e in found)),
        start=min(e.start for e in found),
        end=max(e.end for e in found),
    )


def supports(day: date, text: str, anchor: datetime) -> Expression | None:
    """The first expression in ``text`` whose days include ``day``, if any."""
    for expression in expressions(text, anchor):
        if expression.contains(day):
            return expression
    return None


def _count(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBERS[text]


def _day_in_year(year: str | None, month: int, day: int, today: date, *, past: bool) -> date | None:
    """A written day; without a year, in the anchor's year, or looking back the latest such
    day on or before the anchor."""
    if year:
        return _safe_date(int(year), month, day)
    found = _safe_date(today.year, month, day)
    if past and (found is None or found > today):
        return _safe_date(today.year - 1, month, day)
    return found


def _after(today: date, count: int, unit: str, *, exact: bool = False) -> tuple[date, date]:
    """The days ``count`` units after ``today`` (before, when negative): a day exactly, a week
    give or take a day, a month or a year give or take three days (``exact``: the day itself).
    """
    if exact:
        if unit in ("day", "week"):
            day = today + timedelta(days=count * (7 if unit == "week" else 1))
        else:
            year, month = _add_months(
                today.year, today.month, count * (12 if unit == "year" else 1)
            )
            day = date(year, month, min(today.day, calendar.monthrange(year, month)[1]))
        return day, day
    if unit == "day":
        day = today + timedelta(days=count)
        return day, day
    if unit == "week":
        day = today + timedelta(weeks=count)
        return day - timedelta(days=1), day + timedelta(days=1)
    months = count if unit == "month" else 12 * count
    year, month = _add_months(today.year, today.month, months)
    day = date(year, month, min(today.day, calendar.monthrange(year, month)[1]))
    return day - timedelta(days=3), day + timedelta(days=3)


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

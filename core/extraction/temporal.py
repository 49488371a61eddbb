"""Temporal expressions in a turn, resolved against the turn's timestamp (design §6 item 5).

``expressions(text, anchor)`` finds the date expressions this module understands and turns each
into a day range (start and end inclusive, UTC days): "tomorrow" is one day, "next week" is
Monday to Sunday of the following week, "in July" is the whole month. The validator keeps a
candidate's valid_from, valid_until or review_at only when it falls inside the range of an
expression found in its evidence turn.

Understood: ISO dates (2026-07-03), "3 July [2026]", "July 3[rd][, 2026]", "in July",
"July 2026", today, tonight, tomorrow, yesterday, "the day after tomorrow", "[next|this|on]
<weekday>", "next/this/last week|month|year", "this weekend", "in N days|weeks|months|years",
"N days|weeks from now", "end of the month|year". Not understood (such fields are dropped):
holidays, "the 3rd" without a month, times of day, ranges written as "3-5 July", and any
language but English. A month without a year is the next such month on or after the anchor's
month (this year, else next); a month-day without a year is in the anchor's year.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

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


@dataclass(frozen=True, slots=True)
class Expression:
    """A temporal expression found in a text and the days it can mean."""

    text: str
    start: date
    end: date

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


def expressions(text: str, anchor: datetime) -> list[Expression]:
    """Every understood temporal expression in ``text``, resolved against ``anchor``."""
    lowered = text.lower()
    today = anchor.date()
    found: list[Expression] = []

    def add(match: re.Match[str], start: date, end: date | None = None) -> None:
        found.append(Expression(match.group(0), start, end or start))

    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", lowered):
        day = _safe_date(int(m[1]), int(m[2]), int(m[3]))
        if day:
            add(m, day)
    day_month = rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}(?:,? (\d{{4}}))?"
    for m in re.finditer(day_month, lowered):
        day = _safe_date(int(m[3]) if m[3] else today.year, _MONTHS[m[2]], int(m[1]))
        if day:
            add(m, day)
    for m in re.finditer(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}}))?", lowered):
        day = _safe_date(int(m[3]) if m[3] else today.year, _MONTHS[m[1]], int(m[2]))
        if day:
            add(m, day)
    in_month = rf"\b(?:in|during|by|until|from|since|before|after) {_MONTH}(?! \d)"
    for m in re.finditer(in_month, lowered):
        month = _MONTHS[m[1]]
        year = today.year if month >= today.month else today.year + 1
        add(m, date(year, month, 1), _month_end(year, month))
    for m in re.finditer(rf"\b{_MONTH} (\d{{4}})\b", lowered):
        month, year = _MONTHS[m[1]], int(m[2])
        add(m, date(year, month, 1), _month_end(year, month))
    simple = {
        r"\bthe day after tomorrow\b": 2,
        r"\btomorrow\b": 1,
        r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b": 0,
        r"\byesterday\b": -1,
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
    for m in re.finditer(r"\bthis weekend\b", lowered):
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        add(m, saturday, saturday + timedelta(days=1))
    for m in re.finditer(
        rf"\b(?:in {_COUNT} (day|week|month|year)s?|{_COUNT} (day|week|month|year)s? from now)\b",
        lowered,
    ):
        count_text, unit = (m[1], m[2]) if m[1] else (m[3], m[4])
        count = int(count_text) if count_text.isdigit() else _NUMBERS[count_text]
        add(m, *_after(today, count, unit))
    for m in re.finditer(r"\b(?:the )?end of (?:the |this )?(month|year)\b", lowered):
        if m[1] == "month":
            add(m, _month_end(today.year, today.month))
        else:
            add(m, date(today.year, 12, 31))
    return found


def supports(day: date, text: str, anchor: datetime) -> Expression | None:
    """The first expression in ``text`` whose days include ``day``, if any."""
    for expression in expressions(text, anchor):
        if expression.contains(day):
            return expression
    return None


def _after(today: date, count: int, unit: str) -> tuple[date, date]:
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


__all__ = ["Expression", "expressions", "supports"]

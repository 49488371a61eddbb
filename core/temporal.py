"""Temporal expressions in a text, resolved against a moment into the days they can mean.

``expressions(text, anchor)`` finds the date expressions this module understands and turns each
into a day range (start and end inclusive, days of the anchor's own time zone): "tomorrow" is
one day, "next week" is Monday to Sunday of the following week, "in July" is the whole month.
Two readers:

- The extraction validator (design §6 item 5) keeps a candidate's valid_from, valid_until or
  review_at only when it falls inside the range of an expression found in its evidence turn,
  resolved against the turn's timestamp (``supports``); the offline extractor dates plans by
  them.
- The retriever's time generator (design §7, temporal cues) reads a query's expressions against
  the search's ``now`` (``query_window``) and ranks the records whose event time falls in them.

Understood (English only, ASCII letters and digits):

- days: ISO dates (2026-07-03), "3 July [2026]", "July 3[rd][, 2026]", "Dec. 20", today,
  tonight, "this morning|afternoon|evening", tomorrow, the day after tomorrow, yesterday, last
  night, "[next|this|on|last] <weekday>", "end of the month|year";
- months and years: "in|during|by|until|till|from|to|through|since|before|after July", "last
  July", "July [,] 2026", "in|during|throughout|back in 2026" (years 1900-2099);
- periods: "next|this|last week|month|year", "this|last|past|previous weekend", "the past
  week|month|year" and "in|over|within|during the last|past week|month|year" (from the same
  day a week, month or year before the anchor's day through that day: "the past week" on 30
  November is 23-30 November);
- counted: "in N days|weeks|months|years", "N days|weeks|months|years from now", "N
  days|weeks|months|years ago", "in|over|within|during the last|past N days|weeks|months|years"
  (N a number up to 999 or a word up to twelve).

Not understood (such fields are dropped, such queries get no time window): holidays, seasons,
"the 3rd" without a month, times of day, ranges as such ("3-5 July" reads as 5 July, "from
March to May" as March and May), vague words ("recently", "a while ago"). "May", "March" and
"Mar" in lowercase are taken for the common words next to a day number without a year ("the 2
may need a visa", "march 5 miles") unless a preposition comes before them ("on may 5") or the
day has an ordinal ("may 5th"), and after "to" ("going to march").

Where matches overlap, the longest is read, and a match that names nothing (an impossible day,
a word taken for the common word) hides its parts too: "the end of this month" is its last
day, not also the whole month; "29 February 2025" names nothing, not February. Matches of
equal length go to the rule listed first below.

What an expression without a year or a direction means depends on which way the text leans.
A turn mostly plans (``lean="future"``, the default): a month without a year is the next such
month on or after the anchor's month (this year, else next), a month-day without a year the
next such day, a bare weekday and "this weekend" the coming ones; ``supports`` accepts a day
in either reading. A question mostly looks
back (``lean="past"``): the latest such month that has begun ("in March" asked in February is
last year's), the latest such day on or before the anchor, the latest such weekday and
weekend; "this <weekday>" still means the coming one. "since March" looks back in both leans
and, in a question, runs until the anchor, as does "after March"; in a question "before|by|
until March" names no window (it bounds nothing on the other side) and "in N units" is a
duration ("did it take me in 2 days?"), not a date.
"""

from __future__ import annotations

import bisect
import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Literal

from agent_memory.core.models import format_time

_MONTHS = {
    name: number
    for number in range(1, 13)
    for name in {calendar.month_name[number].lower(), calendar.month_abbr[number].lower()}
}
_MONTHS["sept"] = 9
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t|tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
# Month words that are also common lowercase words ("it may", "march on").
_AMBIGUOUS_MONTHS = frozenset({"may", "mar", "march"})
_WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
# A lowercase "may 5" counts as a date after one of these words (or with "5th").
_BEFORE_A_DATE = re.compile(
    r"\b(?:on|by|until|till|since|from|before|after)\s+(?:the\s+)?$", re.IGNORECASE | re.ASCII
)
_WEEKDAY = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_NUMBER = "|".join([r"\d{1,3}", *sorted(_NUMBERS, key=len, reverse=True)])
_COUNT = rf"({_NUMBER})"
_UNIT = r"(day|week|month|year)s?\b"
# After a month alone: not a day number or a year ("from Dec. 20" is the day, not December).
_NO_NUMBER = r"(?![.,]? ?\d)"

Lean = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Expression:
    """A temporal expression found in a text: its words (lowercased), where they are, and the
    days they can mean."""

    text: str
    start: date
    end: date
    span: tuple[int, int] = field(default=(0, 0), compare=False)

    def contains(self, day: date) -> bool:
        return self.start <= day <= self.end


@dataclass(frozen=True, slots=True)
class _Context:
    """What a rule reads besides its match: the anchor's day and the text's lean."""

    today: date
    lean: Lean

    @property
    def past(self) -> bool:
        return self.lean == "past"


_Days = tuple[date, date] | None
_Resolver = Callable[[re.Match[str], _Context], _Days]
# The rules, in priority order for matches of equal length. ASCII: U+017F (the long s) would
# otherwise match "s" under IGNORECASE and reach the name tables as a key they lack.
_RULES: list[tuple[re.Pattern[str], _Resolver]] = []


def _rule(pattern: str) -> Callable[[_Resolver], _Resolver]:
    def register(resolve: _Resolver) -> _Resolver:
        _RULES.append((re.compile(pattern, re.IGNORECASE | re.ASCII), resolve))
        return resolve

    return register


def expressions(text: str, anchor: datetime, *, lean: Lean = "future") -> list[Expression]:
    """Every understood temporal expression in ``text``, in the order they appear, resolved
    against ``anchor``; an expression without a year or a direction leans as ``lean`` says
    (module docstring). Where matches overlap, the longest one is read."""
    if lean not in ("future", "past"):
        raise ValueError(f"lean must be 'future' or 'past', not {lean!r}")
    context = _Context(anchor.date(), lean)
    matches = [
        (priority, m, resolve)
        for priority, (pattern, resolve) in enumerate(_RULES)
        for m in pattern.finditer(text)
    ]
    # Longest first, then the rule listed first, then leftmost.
    matches.sort(key=lambda item: (item[1].start() - item[1].end(), item[0], item[1].start()))
    taken = _Spans()
    found: list[Expression] = []
    for _, match, resolve in matches:
        if not taken.claim(*match.span()):
            continue
        try:
            days = resolve(match, context)
        except (ValueError, OverflowError):  # a day outside the calendar: year 0, past 9999
            days = None
        if days is not None:
            found.append(Expression(match.group(0).lower(), *days, span=match.span()))
    return sorted(found, key=lambda expression: expression.span)


class _Spans:
    """Non-overlapping [start, end) spans of a text, kept sorted: claiming one is a binary
    search, so a text of many dates is read in n log n, not n squared."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []

    def claim(self, start: int, end: int) -> bool:
        """Take [start, end) unless it overlaps a span already taken."""
        at = bisect.bisect_right(self._starts, start)
        if at > 0 and self._ends[at - 1] > start:
            return False
        if at < len(self._starts) and self._starts[at] < end:
            return False
        self._starts.insert(at, start)
        self._ends.insert(at, end)
        return True


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """The days a query's temporal expressions name, as one window (inclusive days of
    ``zone``, the time zone of the moment it was read against)."""

    phrases: tuple[str, ...]
    start: date
    end: date
    zone: tzinfo

    def bounds(self) -> tuple[str, str]:
        """The window as the store's canonical UTC times, both ends inclusive (RecordFilter)."""
        return _bounds(self.start, self.end, self.zone)

    def describe(self) -> dict[str, object]:
        since, until = self.bounds()
        return {"phrases": list(self.phrases), "since": since, "until": until}


def query_window(query: str, now: datetime, *, lean: Lean = "past") -> TimeWindow | None:
    """The window a query's own time words name, read looking back from ``now`` (or ahead,
    with ``lean`` "future"; ``now`` is an aware moment, its time zone decides what
    "yesterday" is): the span of every expression found
    ("the trip in March or the one in May": March 1 to May 31); None when it names none. A
    day that has no UTC time (January 1st of year 1 east of Greenwich) names nothing."""
    zone = now.tzinfo
    if zone is None:
        raise ValueError("a query window is read against an aware moment; now is naive")
    found = [e for e in expressions(query, now, lean=lean) if _fits(e.start, e.end, zone)]
    if not found:
        return None
    return TimeWindow(
        phrases=tuple(dict.fromkeys(e.text for e in found)),
        start=min(e.start for e in found),
        end=max(e.end for e in found),
        zone=zone,
    )


def supports(day: date, text: str, anchor: datetime) -> Expression | None:
    """The first expression in ``text`` whose days include ``day`` in either reading, if any:
    a turn's "on March 3" said in November may be the coming one (a plan) or the one past (a
    fact since then), and a model's date supported by either is kept."""
    for lean in ("future", "past"):
        for expression in expressions(text, anchor, lean=lean):
            if expression.contains(day):
                return expression
    return None


def _bounds(start: date, end: date, zone: tzinfo) -> tuple[str, str]:
    first = datetime.combine(start, time.min, tzinfo=zone)
    last = datetime.combine(end, time.max, tzinfo=zone)
    return format_time(first), format_time(last)


def _fits(start: date, end: date, zone: tzinfo) -> bool:
    try:
        _bounds(start, end, zone)
    except (ValueError, OverflowError):
        return False
    return True


# -- the rules, in priority order ------------------------------------------------------------


def _one_day(day: date | None) -> _Days:
    return None if day is None else (day, day)


@_rule(r"\b(\d{4})-(\d{2})-(\d{2})\b")
def _iso_date(m: re.Match[str], c: _Context) -> _Days:
    return _one_day(_safe_date(int(m[1]), int(m[2]), int(m[3])))


@_rule(rf"\b(?P<day>\d{{1,2}})(?P<th>st|nd|rd|th)?(?: of)? {_MONTH}(?:,? (?P<year>\d{{4}}))?")
def _day_month(m: re.Match[str], c: _Context) -> _Days:
    return _one_day(_written_day(m, c))


@_rule(rf"\b{_MONTH} (?P<day>\d{{1,2}})(?P<th>st|nd|rd|th)?\b(?:,? (?P<year>\d{{4}}))?")
def _month_day(m: re.Match[str], c: _Context) -> _Days:
    return _one_day(_written_day(m, c))


@_rule(
    rf"\b(?P<preposition>in|during|by|until|till|from|to|through|since|before|after) "
    rf"{_MONTH}{_NO_NUMBER}"
)
def _in_month(m: re.Match[str], c: _Context) -> _Days:
    month, today, preposition = _month(m), c.today, m["preposition"].lower()
    if preposition == "to" and _common_word(m):
        return None  # "going to march", "to may"
    if not c.past and preposition != "since":  # "since March" looks back in a plan too
        year = today.year if month >= today.month else today.year + 1
        return _month_days(year, month)
    year = today.year if month <= today.month else today.year - 1
    first, last = _month_days(year, month)
    if not c.past:
        return first, last
    if preposition in ("by", "until", "till", "before"):
        return None
    if preposition == "since":
        return first, today
    if preposition == "after":
        return (last + timedelta(days=1), today) if last < today else None
    return first, last


@_rule(rf"\blast {_MONTH}{_NO_NUMBER}")
def _last_month_named(m: re.Match[str], c: _Context) -> _Days:
    """The latest such month that ended before the anchor's month began."""
    month, today = _month(m), c.today
    year = today.year if month < today.month else today.year - 1
    return _month_days(year, month)


@_rule(rf"\b{_MONTH},? (?P<year>\d{{4}})\b")
def _month_year(m: re.Match[str], c: _Context) -> _Days:
    year, month = int(m["year"]), _month(m)
    return _month_days(year, month)


@_rule(r"\b(?:in|during|throughout|back in) ((?:19|20)\d\d)\b(?!-)(?! (?:day|week|month|year)s?\b)")
def _in_year(m: re.Match[str], c: _Context) -> _Days:
    return date(int(m[1]), 1, 1), date(int(m[1]), 12, 31)


@_rule(
    r"\b(the day after tomorrow|tomorrow|today|tonight|this (?:morning|afternoon|evening)"
    r"|yesterday|last night)\b"
)
def _named_day(m: re.Match[str], c: _Context) -> _Days:
    word = m[1].lower()
    offset = {"the day after tomorrow": 2, "tomorrow": 1, "yesterday": -1, "last night": -1}
    return _one_day(c.today + timedelta(days=offset.get(word, 0)))  # today, tonight, this ...


@_rule(rf"\b(?:(next|this|on|last) )?{_WEEKDAY}\b")
def _weekday(m: re.Match[str], c: _Context) -> _Days:
    which, today = (m[1] or "").lower(), c.today
    target = _WEEKDAYS[m[2].lower()]
    ahead = (target - today.weekday()) % 7
    if which == "last":
        return _one_day(today - timedelta(days=(today.weekday() - target) % 7 or 7))
    if which == "next":  # "next Friday": the coming one, or the one after it
        first = today + timedelta(days=ahead or 7)
        return first, first + timedelta(days=7)
    if c.past and which != "this":
        return _one_day(today - timedelta(days=(today.weekday() - target) % 7))
    return _one_day(today + timedelta(days=ahead))


@_rule(r"\b(next|this|last) (week|month|year)\b")
def _calendar_period(m: re.Match[str], c: _Context) -> _Days:
    shift, unit, today = {"next": 1, "this": 0, "last": -1}[m[1].lower()], m[2].lower(), c.today
    if unit == "week":
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        return monday, monday + timedelta(days=6)
    if unit == "month":
        year, month = _add_months(today.year, today.month, shift)
        return _month_days(year, month)
    return date(today.year + shift, 1, 1), date(today.year + shift, 12, 31)


@_rule(r"\b(this|last|past|previous) weekend\b")
def _weekend(m: re.Match[str], c: _Context) -> _Days:
    today = c.today
    if m[1].lower() != "this":  # the previous calendar week's
        saturday = today - timedelta(days=today.weekday() + 2)
    elif c.past:  # the latest one begun
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
    else:  # the coming one
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
    return saturday, saturday + timedelta(days=1)


@_rule(
    rf"\b(?:in (?P<in_count>{_NUMBER}) (?P<in_unit>day|week|month|year)s?\b"
    rf"|(?P<count>{_NUMBER}) (?P<unit>day|week|month|year)s? from now)"
)
def _ahead(m: re.Match[str], c: _Context) -> _Days:
    if m["in_count"]:
        if c.past:  # "did it take me in 2 days?": a duration
            return None
        return _around(c.today, _count(m["in_count"]), m["in_unit"].lower())
    return _around(c.today, _count(m["count"]), m["unit"].lower())


@_rule(rf"\b{_COUNT} {_UNIT} ago\b")
def _ago(m: re.Match[str], c: _Context) -> _Days:
    return _around(c.today, -_count(m[1]), m[2].lower())


@_rule(
    rf"\b(?:(?:in|over|during|within) the (?:last|past)|the past)(?: (?P<n>{_NUMBER}))? "
    r"(?P<unit>day|week|month|year)s?\b"
)
def _up_to_now(m: re.Match[str], c: _Context) -> _Days:
    """ "in the last 3 months", "the past week": from that long before the anchor until it."""
    return _shift(c.today, m["unit"].lower(), -_count(m["n"] or "1")), c.today


@_rule(r"\b(?:the )?end of (?:the |this )?(month|year)\b")
def _end_of(m: re.Match[str], c: _Context) -> _Days:
    today = c.today
    if m[1].lower() == "month":
        return _one_day(_month_end(today.year, today.month))
    return _one_day(date(today.year, 12, 31))


# -- arithmetic ----------------------------------------------------------------------------


def _month(m: re.Match[str]) -> int:
    """The month a match's ``month`` group names ("Sept.", "december")."""
    return _MONTHS[m["month"].lower().rstrip(".")]


def _common_word(m: re.Match[str]) -> bool:
    """Whether a match's month is written as a common lowercase word ("may", "march")."""
    word = m["month"].rstrip(".")
    return word.islower() and word in _AMBIGUOUS_MONTHS


def _count(text: str) -> int:
    text = text.lower()
    return int(text) if text.isdigit() else _NUMBERS[text]


def _written_day(m: re.Match[str], c: _Context) -> date | None:
    """A day written with its month: in its year when given; else the coming such day (on
    or after the anchor), or looking back the latest such day on or before the anchor
    (February 29th: the latest leap year's). A lowercase "may", "march" or "mar" without a
    year is the common word unless a preposition comes before it or the day has an ordinal
    suffix."""
    month, day = _month(m), int(m["day"])
    if m["year"]:
        return _safe_date(int(m["year"]), month, day)
    if _common_word(m) and not m["th"] and not _BEFORE_A_DATE.search(m.string, 0, m.start()):
        return None
    if not c.past:
        # A plan's day: the coming one ("until 3 July" said in November is next July's).
        found = _safe_date(c.today.year, month, day)
        if found is not None and found < c.today:
            found = _safe_date(c.today.year + 1, month, day)
        return found
    for year in range(c.today.year, c.today.year - 9, -1):
        found = _safe_date(year, month, day)
        if found is not None and found <= c.today:
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


def _month_days(year: int, month: int) -> tuple[date, date]:
    """The first and last day of a month."""
    return date(year, month, 1), _month_end(year, month)


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


__all__ = ["Expression", "Lean", "TimeWindow", "expressions", "query_window", "supports"]

"""Parts of the day said by a clock time: "leaves at 6am" says "early-morning", "after 10pm"
says "late at night".

A statement's part-of-day word (morning, afternoon, evening, night, and "early"/"late" beside
one of them) is covered by a quote's clock time that has am/pm ("6am", "10.30pm"; a bare "9"
or "3:15" could be either half of the day and covers nothing) inside that part of the day,
unless the quote's preposition points away from it ("before 10pm" is not "late at night",
"after 7am" is not "early in the morning"). Both word readings and the clause reading use it.
"""

from __future__ import annotations

import re

_CLOCK = re.compile(r"^(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\.?$")
# Minutes after midnight: [start, end) spans, which may wrap past midnight.
_SPANS = {
    "morning": (5 * 60, 12 * 60),
    "afternoon": (12 * 60, 18 * 60),
    "evening": (17 * 60, 22 * 60),
    "night": (20 * 60, 5 * 60),
    "early": (4 * 60, 8 * 60),
    "late": (21 * 60, 4 * 60),
}
_PLURAL = {f"{word}s": word for word in _SPANS}
# Which way a preposition points from the time: the time is an upper or a lower bound.
_LATER_PARTS = frozenset("evening night late".split())
_EARLIER_PARTS = frozenset("morning early".split())
DAYPARTS = frozenset(_SPANS) | frozenset(_PLURAL)
_NEEDS_COMPANION = frozenset("early late".split())


def clock_minutes(text: str) -> int | None:
    """ "6am" -> 360, "10.30pm" -> 1350; None for a time without am/pm ("9", "3:15")."""
    m = _CLOCK.match(text.strip().lower())
    if m is None:
        return None
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if hour > 12 or minute > 59:
        return None
    hour = hour % 12 + (12 if m.group(3) == "p" else 0)
    return hour * 60 + minute


def says_daypart(word: str, statement_words: set[str], clock: str, prep: str | None) -> bool:
    """Does the quote's ``clock`` time (after ``prep``, if any) say the statement's
    part-of-day ``word``? "early"/"late" count only beside a part of the day in the statement
    ("early-morning", "late at night"), never alone ("the late Mr Smith", "early retirement")."""
    part = _PLURAL.get(word.lower(), word.lower())
    if part not in _SPANS:
        return False
    if part in _NEEDS_COMPANION and not {w.lower() for w in statement_words} & (
        DAYPARTS - _NEEDS_COMPANION
    ):
        return False
    minutes = clock_minutes(clock)
    if minutes is None:
        return False
    if prep in ("before", "by", "until", "till") and part in _LATER_PARTS:
        return False
    if prep in ("after", "from", "past") and part in _EARLIER_PARTS:
        return False
    start, end = _SPANS[part]
    if start < end:
        return start <= minutes < end
    return minutes >= start or minutes < end

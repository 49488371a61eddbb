"""The "Remembered:" list of an offline session summary: written once, narrowed when one of its
items is retired.

The offline summary writer (core.extraction.offline) ends a summary with what the session
confirmed: "... Topics: diet, skiing. Remembered: The user is doing 16:8 intermittent fasting;
The user is a total beginner." Each item is a live record of that session, restated. When a
later statement retires one of them ("I stopped the intermittent fasting"), the record leaves
search, but the summary still says it, in its content and its vector: a question about the
user's diet was answered with the new record beside a summary restating the old value, and
nothing in the summary said it was stale. So the write that retires the record also drops its
item from every summary the pipeline wrote that lists it
(core.write.supersession.narrow_summaries): those of every session that created or reinforced
it, in whatever scope each went to; not while a live record of the scope still says the same.

Only an item that is the retired record's content, whole, is dropped: a summary a model wrote
in prose is left as it was (it is read as the conversation's account, dated; a model's prose
cannot be edited by rule), and so is an item that merely resembles the record; an item keeps
no "; " of its own (written ", "), so the separator tells items apart.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

LISTED = 5  # items a summary lists; the others are counted ("and 3 more")
_OPENING = " Remembered: "
_SEPARATOR = "; "
_MORE = re.compile(r" \(and (\d+) more\)$")


def remembered(kept: Sequence[str], *, room: int | None = None) -> str:
    """The clause a summary ends with for the contents ``kept`` (empty when there are none):
    the first ``LISTED`` of them, each without its closing period, and how many others; at most
    ``room`` characters (fewer listed, more counted), so that a summary capped in length still
    ends on a whole item, which ``without`` can find."""
    if not kept:
        return ""
    for listed in range(min(len(kept), LISTED), -1, -1):
        clause = _clause([item(k) for k in kept[:listed]], len(kept) - listed)
        if room is None or len(clause) <= room:
            return clause
    return ""


def without(summary: str, content: str) -> str | None:
    """``summary`` with ``content`` dropped from its "Remembered:" list, the clause dropped
    with its last listed item unless others were counted; None when the list does not hold
    ``content`` as a whole item (a list written before items were kept free of the separator
    may hold it inside a longer one: left as it is)."""
    start = summary.find(_OPENING)  # topics are single words: the first is the opening
    listed = item(content)
    if start < 0 or not listed or not summary.endswith("."):
        return None
    body = summary[start + len(_OPENING) : -1]
    more = _MORE.search(body)
    items = (body[: more.start()] if more else body).split(_SEPARATOR)
    if listed not in items:
        return None
    items.remove(listed)
    return summary[:start] + _clause(items, int(more.group(1)) if more else 0)


def _clause(items: Sequence[str], others: int) -> str:
    """The list's clause: ``items``, then how many ``others`` (nothing when both are none)."""
    if not items:
        return f"{_OPENING}{others} more." if others else ""
    counted = f" (and {others} more)" if others else ""
    return f"{_OPENING}{_SEPARATOR.join(items)}{counted}."


def item(content: str) -> str:
    """``content`` as the list holds it: without its closing period, and a "; " inside it
    written ", ", so that no item holds the separator ("The user drinks tea; no sugar" and
    "The user drinks tea" are told apart)."""
    return content.strip().rstrip(".").replace(_SEPARATOR, ", ")


__all__ = ["LISTED", "item", "remembered", "without"]

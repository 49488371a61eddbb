"""One reader for identity sentences said name first: "Devon is (now) my manager (now)".

Both the offline extractor (core.extraction.phrasing: "Dana is now my manager" becomes "The
user's manager is Dana.") and the offline judge (core.judge.inversion: it reads the quote as
"My manager is Dana now.") must read the same shapes: when they disagreed, the extracted
record failed its own judge and was downgraded to an agent inference. So both use
``read_holder``.

The plain shape only: a name (or one word) before "is/are", an optional "now", then
"my"/"our", a short possessed phrase, an optional "now"/"these days"/"nowadays", and nothing
else; a negation, hedge or second clause anywhere makes it another sentence and it is left
alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Sentence-initial words that are not the thing identified ("It is my turn", "This is my
# brother", "Nothing is my fault").
_NOT_A_NAME = frozenset(
    "it this that these those he she they we you i there here what who which whose "
    "everything nothing something anything everyone someone nobody all none each".split()
)

# X: one word, or a name of up to four capitalised words; Y: up to four words.
_INVERTED = re.compile(
    r"^\s*(?P<x>[\w'.-]+(?:\s+[A-Z][\w'.-]*){0,3})\s+(?P<be>(?i:is|are))\s+"
    r"(?P<now>(?i:now)\s+)?(?P<poss>(?i:my|our))\s+(?P<y>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
    r"(?P<tail>\s+(?i:now|these\s+days|nowadays))?\s*[.!]?\s*$"
)
_STOPS_IN_Y = re.compile(
    r"\b(?:not|never|no|but|and|or|if|because|who|which|that|now)\b", re.IGNORECASE
)
_NAME = re.compile(r"^[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*$")


@dataclass(frozen=True, slots=True)
class Holder:
    """ "Dana is now my manager": who="Dana", be="is", poss="my", what="manager",
    now=" now" (said before or after the possessed phrase; "" when not said)."""

    who: str
    be: str
    poss: str
    what: str
    now: str

    @property
    def named(self) -> bool:
        """Whether the holder is a capitalised name ("Dana"), not a common word ("coffee")."""
        return _NAME.match(self.who) is not None

    def possessor_first(self) -> str:
        """The sentence as the speaker's possession said first: "My manager is Dana now." """
        return f"{self.poss.capitalize()} {self.what} {self.be.lower()} {self.who}{self.now}."


def read_holder(sentence: str) -> Holder | None:
    """``sentence`` read as "X is (now) my Y (now)", or None when it is not that plain shape."""
    m = _INVERTED.match(sentence)
    if m is None:
        return None
    who, what = m.group("x"), m.group("y")
    if who.split()[0].casefold() in _NOT_A_NAME or _STOPS_IN_Y.search(what):
        return None
    if m.group("now") and m.group("tail"):
        return None  # "now ... now" is not a plain sentence
    now = " now" if m.group("now") else (m.group("tail") or "")
    return Holder(who, m.group("be"), m.group("poss"), what, now)

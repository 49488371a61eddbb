"""Identity sentences said name first: "Devon is my manager now" says "my manager is Devon now".

An identity copula ("X is my Y") is symmetric, but the word rules read words in order and the
small parser takes the name for the subject, so "Devon is my manager" did not give "The user's
manager is Devon." This module rewrites such a quote sentence into the possessor-first order,
which every reading then judges as it would have judged the user saying it that way. Only the
plain shape is rewritten: a name (or a noun) before "is/are" directly followed by "my"/"our",
a short possessed phrase, an optional "now"/"these days", and nothing else in the sentence; a
negation, hedge or second clause anywhere makes it a different sentence and it is left alone.
"""

from __future__ import annotations

import re

# Sentence-initial words that are not the thing identified ("It is my turn", "This is my
# brother", "Nothing is my fault").
_NOT_A_NAME = frozenset(
    "it this that these those he she they we you i there here what who which whose "
    "everything nothing something anything everyone someone nobody all none each".split()
)

# X: one word, or a name of up to four capitalised words; Y: up to four words.
_INVERTED = re.compile(
    r"^\s*(?P<x>[\w'.-]+(?:\s+[A-Z][\w'.-]*){0,3})\s+(?P<be>(?i:is|are))\s+"
    r"(?P<poss>(?i:my|our))\s+(?P<y>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
    r"(?P<tail>\s+(?i:now|these\s+days|nowadays))?\s*[.!]?\s*$"
)
_STOPS_IN_Y = re.compile(r"\b(?:not|never|no|but|and|or|if|because|who|which|that)\b", re.I)


def possessor_first(sentence: str) -> str | None:
    """``sentence`` as "my Y is X", or None when it is not a plain inverted identity."""
    m = _INVERTED.match(sentence)
    if m is None:
        return None
    x, y = m.group("x"), m.group("y")
    if x.split()[0].casefold() in _NOT_A_NAME or _STOPS_IN_Y.search(y):
        return None
    tail = m.group("tail") or ""
    return f"{m.group('poss').capitalize()} {y} {m.group('be').lower()} {x}{tail}."

"""Finding an evidence quote in a session transcript.

"Verbatim" here means the same characters up to presentation: Unicode compatibility forms
(NFKC), curly versus straight quotes and apostrophes, dashes, runs of whitespace and letter case.
Nothing else is forgiven: no stemming, no reordering, no fuzzy matching. A quote must have at
least two words and eight characters, so a fragment like "yes" cannot vouch for a statement.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_QUOTE_CHARS = 8
MIN_QUOTE_WORDS = 2

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session transcript."""

    seq: int
    role: str
    content: str
    at: str


def normalise(text: str) -> str:
    """The form in which quotes and transcripts are compared."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    return _SPACE.sub(" ", text).strip().casefold()


def quote_problem(quote: str) -> str | None:
    """Why a quote is too short to count as evidence, or None if it is long enough."""
    normal = normalise(quote)
    if len(normal) < MIN_QUOTE_CHARS or len(normal.split()) < MIN_QUOTE_WORDS:
        return (
            f"the evidence quote is too short to support a claim (at least "
            f"{MIN_QUOTE_WORDS} words and {MIN_QUOTE_CHARS} characters)"
        )
    return None


def find_quote(quote: str, turns: Iterable[Turn], *, roles: Sequence[str]) -> Turn | None:
    """The first turn by one of ``roles`` that contains ``quote`` verbatim (see module doc)."""
    if quote_problem(quote) is not None:
        return None
    needle = normalise(quote)
    for turn in turns:
        if turn.role in roles and needle in normalise(turn.content):
            return turn
    return None

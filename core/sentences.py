"""The sentences of a user's turn, as the offline extractor (core.extraction) and a record's
passages (core.passages) read them: each an exact substring of the turn, without its
surrounding space. A period after an abbreviation ("Dr.",
"e.g.", "U.S."), an initial or inside a number ("4.1") ends none; "no." ends one unless a number
precedes a number ("No. 5", "no. B4", "no. twelve"): "fish yes, meat no. Oh, and eggs" is two
sentences.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from agent_memory.core.judge.values import NUMBER_AFTER_NO

# Words after which a period does not end a sentence ("Dr. Weber", "e.g. tea", "the U.S. too").
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms mx st prof sr jr mt ft vs etc approx dept no nos fig vol jan feb mar apr jun "
    "jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
_BOUNDARY = re.compile(r"[.!?]+(?=[\s\"')\]]|$)|\n+")


def sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``, each an exact substring (``sentence_spans``)."""
    for start, end in sentence_spans(text):
        yield text[start:end]


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` (module docstring)."""
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        word = _last_word(text, start, boundary.start()).lstrip("(\"'").lower()
        if boundary.group(0) == "." and (
            (
                word in _ABBREVIATIONS
                and (word != "no" or NUMBER_AFTER_NO.match(text, boundary.end()))
            )
            or re.fullmatch(r"[a-z](?:\.[a-z])*", word)
        ):
            continue
        yield from _trimmed(text, start, boundary.end())
        start = boundary.end()
    yield from _trimmed(text, start, len(text))


def _last_word(text: str, start: int, end: int) -> str:
    """The last whitespace-separated word of ``text[start:end]`` ("" if none), read backwards
    from ``end``: a period skipped after an abbreviation leaves ``start`` where it was, and
    splitting the whole span again at each one made a run of them quadratic."""
    stop = end
    while stop > start and text[stop - 1].isspace():
        stop -= 1
    begin = stop
    while begin > start and not text[begin - 1].isspace():
        begin -= 1
    return text[begin:stop]


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    piece = text[start:end]
    if piece.strip():
        lead = len(piece) - len(piece.lstrip())
        yield start + lead, start + len(piece.rstrip())


__all__ = ["sentence_spans", "sentences"]

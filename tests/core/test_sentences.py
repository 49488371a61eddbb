"""The sentence splitter (core.sentences) reads the last word before each boundary backwards,
with the same sentences as splitting the whole span again at each boundary."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.judge.values import NUMBER_AFTER_NO
from agent_memory.core.sentences import _ABBREVIATIONS, _BOUNDARY, _trimmed, sentence_spans


def reference_spans(text: str) -> Iterator[tuple[int, int]]:
    """The splitter as it was: the span since the last sentence split again at each boundary."""
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start : boundary.start()].split()
        word = before[-1].lstrip("(\"'").lower() if before else ""
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


PIECES = [
    "Dr.",
    "Patel",
    "e.g.",
    "no.",
    "5",
    "U.S.",
    "a.",
    " ",
    "  ",
    "\n",
    "\u00a0",
    "!",
    "?",
    ".",
    "...",
    "(",
    "'",
    '"',
    "tea",
    "No.",
    "Mr",
    "4.1",
    "etc.",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join) | st.text(max_size=80))
def test_the_sentences_are_those_of_the_reference(text: str) -> None:
    assert list(sentence_spans(text)) == list(reference_spans(text))


def test_a_run_of_abbreviations_is_one_sentence() -> None:
    text = "Dr. " * 2000 + "Patel came."
    assert list(sentence_spans(text)) == [(0, len(text))]

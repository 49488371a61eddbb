"""The offline judge's token and sentence types and token classes (core.judge.text makes
them)."""

from __future__ import annotations

from dataclasses import dataclass

# Token classes.
STOP = "stop"  # function and discourse words: ignored
SOFT = "soft"  # adverbs a quote may add freely; a statement must not add them
PUNCT = "punct"  # a comma
CONJ = "conj"  # "and"
CLAUSE = "clause"  # but, because, so, although, ...
PREP = "prep"
NEG = "neg"
MODAL = "modal"  # hedges, conditions, reports, modal verbs
SELF = "self"  # the speaker / the user
SELFPOSS = "selfposs"  # my / the user's
POSS = "poss"  # 's
PRON = "pron"  # other people
REL = "rel"  # who, which, ...
VALUE = "value"  # numbers, dates, months, weekdays, times
WORD = "word"
FRAME = "frame"  # statement only: "the user said ..."


@dataclass(slots=True)
class Token:
    form: str  # what is compared
    cls: str
    text: str  # the surface word, for reasons
    past: bool = False


@dataclass(slots=True)
class Sentence:
    tokens: list[Token]
    question: bool


def split_words(text: str) -> list[str]:
    return text.split()

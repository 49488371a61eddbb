"""The third entailment reading: the packaged embedder's similarity, under strict vetoes.

It runs only when the ordered-words rules and the paraphrase reading both refused, and only
when the judge was given an embedder (``OfflineJudge(embedder=...)``, which ``Memory.judge``
passes); without one the judge behaves exactly as the rules alone.

A quote sentence is accepted for a statement sentence when the cosine between the two (the
quote with first person rewritten to "the user") reaches the threshold, and none of these
vetoes fires, each read from the token classes of core.judge.text:

- the quote sentence is plain: no question, no negation, no hedge, condition, report or modal,
  no past-tense auxiliary or ``-ed``/irregular past verb, no sarcasm opener, and the speaker
  (``I``/``my``) is in it; the statement is plain the same way (no negation, hedge or past);
- another person: each ``my X`` in the quote needs ``X`` in the statement (so "my sister lives
  in Berlin" never gives "the user lives in Berlin");
- numbers, dates and times are the same set on both sides;
- every capitalised word of the statement after its first word (a name) is in the quote.

Why so strict: similarity ranks topic, not truth ("I want a hamster" and "I have a hamster" are
close), so the vetoes carry the polarity, tense, modality and identity checks and the cosine
only decides that the remaining words mean the same. Measured (benchmarks/README.md "Evidence
judge"): the threshold was chosen on the odd-id dev pairs; the gain in recall is small, because
most true paraphrases that the rules miss also carry a past verb, a modal or a number form that
the vetoes refuse. Limits: it cannot tell "runs" from "ran" when the quote's verb is irregular
and not in the table, and it trusts the embedder on synonyms it has not been measured on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from core.judge.paraphrase import is_past_form, is_sarcastic
from core.judge.text import FRAME, MODAL, NEG, SELF, SELFPOSS, VALUE, WORD, Sentence

DEFAULT_THRESHOLD = 0.8
_NAME = re.compile(r"\b[A-Z][\w'-]*")


class TextEmbedder(Protocol):
    """What the reading needs of core.embedder.Embedder: unit vectors for texts."""

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class SimilarityReading:
    """Cosine of quote and statement sentences through one embedder, cached per text."""

    def __init__(self, embedder: TextEmbedder, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._vector: Callable[[str], np.ndarray] = functools.lru_cache(maxsize=4096)(
            lambda text: np.asarray(embedder.embed([text])[0], dtype=np.float32)
        )

    def holds(self, premise: Sentence, statement: Sentence, hypothesis: str) -> str | None:
        """Why the pair passes (None when a veto fires or the cosine is too low)."""
        if _veto(premise, statement, hypothesis) is not None:
            return None
        cosine = float(self._vector(_as_user(premise)) @ self._vector(_as_user(statement)))
        if cosine < self.threshold:
            return None
        return f"the quote says the same in other words (embedder similarity {cosine:.2f})"


def _as_user(sentence: Sentence) -> str:
    words = []
    for tok in sentence.tokens:
        if tok.cls == SELF:
            words.append("the user")
        elif tok.cls == SELFPOSS:
            words.append("the user's")
        else:
            words.append(tok.text)
    return " ".join(words)


def _markers(sentence: Sentence) -> tuple[bool, tuple[str, ...], frozenset[str]]:
    """Past or not, the negations, and the hedges/modals/frames of a sentence."""
    toks = sentence.tokens
    past = any(tok.past or is_past_form(tok) for tok in toks)
    negations = tuple(sorted(tok.form for tok in toks if tok.cls == NEG))
    modals = frozenset(tok.form for tok in toks if tok.cls in (MODAL, FRAME))
    return past, negations, modals


def _veto(premise: Sentence, statement: Sentence, hypothesis: str) -> str | None:
    tokens = premise.tokens
    if premise.question or statement.question or is_sarcastic(tokens):
        return "the quote is a question or sarcastic"
    q_past, q_neg, q_modal = _markers(premise)
    s_past, s_neg, s_modal = _markers(statement)
    if q_past != s_past or q_neg != s_neg or q_modal != s_modal:
        return "tense, negation or modality differ"
    if not any(tok.cls in (SELF, SELFPOSS) for tok in tokens):
        return "the quote is not about the speaker"
    said = {tok.form for tok in statement.tokens}
    for k, tok in enumerate(tokens[:-1]):
        nxt = tokens[k + 1]
        if tok.cls == SELFPOSS and nxt.cls == WORD and nxt.form not in said:
            return f"the quote is about the speaker's {nxt.text!r}"
    values = {tok.form for tok in tokens if tok.cls == VALUE}
    if values != {tok.form for tok in statement.tokens if tok.cls == VALUE}:
        return "the numbers or dates differ"
    quoted = {t.text for t in tokens}
    names = [m.group().lower() for m in _NAME.finditer(hypothesis)][1:]
    if any(name not in quoted for name in names):
        return "a name in the statement is not in the quote"
    return None

"""A plural pronoun, or "there", said back as what it stands for: "Don't suggest recipes with
mushrooms, I can't stand them" states "I can't stand mushrooms"; "Stop suggesting Walmart
deals. I try not to shop there" states "I try not to shop at Walmart".

Only "them" as the object of a verb whose subject is the speaker ("I"), and only when the
quote names a plural noun before that clause: the nearest one, which is what casual speech
means far more often than not ("my kids love courgettes, I can't stand them": the
courgettes); "there" likewise, for the nearest name before it (a proper noun: a shop, a
place), said as "at X" (or "to X" after a verb of going). The restated clause keeps
everything of its own clause before the subject (a hedge, "now") and after the verb, so each
reading's vetoes still see it; it is read as one more sentence of the quote, like the rewrites
of core.judge.rephrase and core.judge.restate. The name may stand in an earlier sentence of the
quote ("Stop suggesting Walmart deals. I ...").
Limits: a plural noun between the pronoun's real antecedent and the pronoun wins ("I bought
apples at the markets, I love them" is read as the markets), and "it" is never resolved (too
often an event or the situation: "I hate it when ...").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_memory.core.judge.syntax import subject_of

if TYPE_CHECKING:
    from spacy.tokens import Span, Token

    from agent_memory.core.judge.parse import Parser

_THEM = re.compile(r"\b(?:them|there)\b", re.IGNORECASE)
_GOING = frozenset("go come get drive walk move travel be".split())
_CLAUSE_MARK = frozenset(",;:")


def resolved(parser: Parser, text: str, before: str = "") -> list[str]:
    """The clauses of ``text`` whose "them" or "there" is said back as what it stands for
    (see above); ``before`` is the quote's text before ``text``, where it may be named."""
    if _THEM.search(text) is None:
        return []
    whole = f"{before} {text}" if before else text
    doc = parser.parse(whole)
    if doc is None:
        return []
    out = []
    for tok in doc[:]:
        if tok.idx < len(whole) - len(text):
            continue
        them = tok.lower_ == "them" and tok.dep_ in ("dobj", "pobj")
        if not them and not (tok.lower_ == "there" and tok.dep_ == "advmod"):
            continue
        subject = subject_of(tok)
        if subject is None or subject.lower_ != "i" or subject.i > tok.i:
            continue
        start = subject.i
        while start > 0 and doc[start - 1].text not in _CLAUSE_MARK:
            if doc[start - 1].dep_ == "cc" or doc[start - 1].is_sent_end:
                break  # "... and I love them": the clause after the "and"
            start -= 1
        noun = _antecedent(doc[:start]) if them else _place(doc[:start])
        if noun is None:
            continue
        said = _phrase(noun)
        if not them:
            said = f"{'to' if tok.head.lemma_ in _GOING else 'at'} {said}"
        end = max(subject.head.right_edge.i, tok.i) + 1
        words = [said + tok.whitespace_ if t.i == tok.i else t.text_with_ws for t in doc[start:end]]
        out.append("".join(words).strip().rstrip(".!;,") + ".")
    return out


def _antecedent(before: Span) -> Token | None:
    for tok in reversed(list(before)):
        if tok.tag_ in ("NNS", "NNPS") and tok.dep_ != "compound":
            return tok
    return None


def _place(before: Span) -> Token | None:
    """The nearest name before: the last word of it ("Dough Bros": Bros)."""
    for tok in reversed(list(before)):
        if tok.pos_ == "PROPN":
            return tok
    return None


def _phrase(noun: Token) -> str:
    """The noun with the words that name it ("long explanations", "Dough Bros")."""
    name = noun.pos_ == "PROPN"
    left = [c for c in noun.lefts if c.dep_ in ("compound", "amod") and (c.pos_ == "PROPN") == name]
    start = left[0].i if left else noun.i
    return noun.doc[start : noun.i + 1].text

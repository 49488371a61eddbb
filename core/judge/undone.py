"""A plan its own sentence takes back: "I'm moving to Oslo in June but I'm not going".

The quote's clause is followed, right after it, by a clause opened by "but" that undoes it
(core.judge.context.read refuses such a quote; read by the judge's packaged parser,
core.judge.parse). The "but" clause must be about the quote itself, said of the quote's own
subject (or of "it" / "that" pointing back, or by "they" who called it off), with nothing of
its own beside the verb but a word pointing back and "anymore", "after all", "now":

- the quote's verb, or a pro-verb ("go", "do", "happen", "come", "make it") when the quote
  states a plan in the progressive ("I'm moving ..."), negated: "I'm moving to Oslo in June
  but I'm not going after all", "My sister is visiting next week, but she can't make it
  now", "The party is on Friday but it isn't happening anymore";
- a verb of ending ("cancel", "call off", "pull out", "back out", "give up", "turn down",
  "fall through", "drop", "quit" ...) with no object or one pointing back: "but they
  cancelled it", "but it's been rained off", "but we've backed out".

Not when the quote tells what was ("I had migraines last month but it's not happening
anymore", "I got an offer from Google but I turned it down"), nor a "but" clause about
someone else ("I'm vegan but my partner isn't", "... but my brother backed out"), about one
occasion of a habit ("I run every morning but I didn't today", "... but they cancelled it
tonight"), or with a complement of its own ("I love my job but I don't have time for hobbies
anymore", "I'm taking Friday off but I'm not going anywhere"). Limits, the safe direction: an
ending said of a noun ("but the flight's been cancelled", "but the wedding's off"), in other
words ("but I'm out now, injured", "but I've changed my mind") or after a comma-separated
detail of the quote is missed; without the parser, nothing is read here.
"""

from __future__ import annotations

import re
from typing import Any

from agent_memory.core.judge.parse import default_parser

# Right after the quote: a few words of its own clause at most, then "but".
_BUT = re.compile(r"^[^,;:.!?]{0,40}?,?\s*\bbut\s+")
_PRO_VERBS = frozenset("go do happen come make".split())
_POINTING = frozenset("it that this".split())
_ENDING = frozenset("cancel scrap drop postpone shelve abandon withdraw quit".split())
# Phrasal verbs of ending: verb -> its particle (read as a particle, preposition or adverb).
_ENDING_PHRASAL = {
    "call": "off",
    "pull": "out",
    "back": "out",
    "turn": "down",
    "fall": "through",
    "give": "up",
    "rain": "off",
}
# What the clause may hold beside its verb, subject and auxiliaries.
_FREE_WORDS = frozenset(
    "anymore more longer never not n't no now all after really actually".split()
)
_GRAMMAR = frozenset("aux auxpass neg punct prt".split())


def undone(after: str, quote: str) -> str | None:
    """The words of a "but" clause right after ``quote`` that undo it, or None. ``after``:
    the rest of the quote's sentence."""
    but = _BUT.match(after)
    if but is None:
        return None
    doc = default_parser().parse(after[but.end() :].strip())
    said = default_parser().parse(quote)
    if doc is None or said is None:
        return None
    root = _root(doc)
    head = _root(said)
    if root is None or head is None or root.pos_ not in ("VERB", "AUX") or _past(said, head):
        return None
    if not (_ends(root) or _stands_in(root, said, head)) or not _bare(root):
        return None
    if not _same_subject(root, head):
        return None
    return str(doc.text)


def _root(doc: Any) -> Any:
    return next((t for t in doc if t.dep_ == "ROOT"), None)


def _past(doc: Any, head: Any) -> bool:
    """Whether the quote tells what was ("I had a migraine every morning last month", "My knee
    used to hurt"): that it is not so any more, or was turned down, leaves it true."""
    used_to = any(
        t.lower_ == "used" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "to" for t in doc
    )
    return used_to or (head.tag_ in ("VBD", "VBN") and not _progressive(head))


def _progressive(head: Any) -> bool:
    return head.tag_ == "VBG" and any(c.dep_ == "aux" for c in head.children)


def _stands_in(root: Any, said: Any, head: Any) -> bool:
    """A negated verb of the quote, or a negated pro-verb after a plan said in the progressive."""
    if not any(c.dep_ == "neg" or c.lower_ in ("never", "longer") for c in root.children):
        return False
    verbs = {t.lemma_ for t in said if t.pos_ == "VERB"}
    return root.lemma_ in verbs or (root.lemma_ in _PRO_VERBS and _progressive(head))


def _ends(root: Any) -> bool:
    """A verb of ending, its particle with it ("call off", "fall through")."""
    if root.lemma_ in _ENDING:
        return not any(c.dep_ in ("prt", "prep") for c in root.children)  # not "drop off"
    particle = _ENDING_PHRASAL.get(root.lemma_)
    return particle is not None and any(c.lower_ == particle for c in root.children)


def _bare(root: Any) -> bool:
    """Whether the clause holds nothing of its own beside its verb: its subject, auxiliaries,
    negation, particle, an object pointing back, and "anymore", "after all", "now"."""
    for child in root.children:
        if child.dep_ in _GRAMMAR or child.dep_ in ("nsubj", "nsubjpass"):
            continue
        if child.dep_ == "dobj" and child.lower_ in _POINTING:
            continue
        if child.lower_ in _FREE_WORDS and all(g.lower_ in _FREE_WORDS for g in child.subtree):
            continue
        return False
    return True


def _same_subject(root: Any, head: Any) -> bool:
    """Whether the clause is said of the quote's subject, of "it" / "that" (the plan), of
    "they" (who called it off), or of no one named."""
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.lower_ in ("it", "that", "this", "they"):
        return True
    own = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if own is None:
        return False
    pairs = {("i", "i"), ("we", "we"), ("i", "we"), ("we", "i")}
    if (own.lower_, subject.lower_) in pairs:
        return True
    # "My sister is visiting ... but she can't make it": a pronoun for a named subject.
    return own.lower_ not in ("i", "we", "you") and subject.lower_ in ("he", "she")


__all__ = ["undone"]

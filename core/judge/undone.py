"""A plan its own sentence takes back: "I'm moving to Oslo in June but I'm not going".

The quote's clause is followed, right after it, by a clause opened by "but" that undoes it
(core.judge.context.read refuses such a quote; read by the judge's packaged parser,
core.judge.parse):

- a negated verb that stands for the quoted one, unless the quote tells what was ("I had a
  migraine every morning last month, but it's not happening anymore" stays true): a
  pro-verb ("go", "do", "happen", "come", "make it", a bare "I'm not") or a verb of the quote
  itself ("We're buying the house but we're not buying it"), with no complement of its own
  but "it" or "that": "but I'm not going after all", "but she can't make it", "but it isn't
  happening anymore";
- a verb of ending ("cancel", "call off", "pull out", "back out", "give up", "turn down",
  "fall through", "drop", "quit" ...) with no object, or one that points back ("it", "that")
  or names a noun of the quote: "but they cancelled it", "but it got called off", "but I
  pulled out", "but we called it off".

Not a negation with a complement of its own ("I love my job but I don't have time for hobbies
anymore", "I live in Leeds but I don't drive"), nor a clause after another one between
("I'm on call this weekend, the office party was Saturday but they cancelled it"). Limits: an
ending said of a noun the quote does not name ("I'm flying to Lisbon but the flight's been
cancelled", "but the wedding's off") or in other words ("but I'm out now, injured") is
missed, and so is a "but" after a comma-separated detail of the quote; without the parser,
nothing is read here.
"""

from __future__ import annotations

import re
from typing import Any

from agent_memory.core.judge.parse import default_parser

# Right after the quote: a few words of its own clause at most, then "but".
_BUT = re.compile(r"^[^,;:.!?]{0,40}?,?\s*\bbut\s+")
_PRO_VERBS = frozenset("go do happen come make be".split())
_POINTING = frozenset("it that this them those".split())
_ENDING = frozenset("cancel scrap drop postpone shelve abandon withdraw quit".split())
# Phrasal verbs of ending: verb -> its particle (or preposition).
_ENDING_PHRASAL = {
    "call": "off",
    "pull": "out",
    "back": "out",
    "turn": "down",
    "fall": "through",
    "give": "up",
    "rain": "off",
    "decide": "against",
}
_COMPLEMENTS = frozenset("dobj attr acomp ccomp xcomp oprd dative".split())


def undone(after: str, quote: str) -> str | None:
    """The words of a "but" clause right after ``quote`` that undo it, or None. ``after``:
    the rest of the quote's sentence."""
    but = _BUT.match(after)
    if but is None:
        return None
    doc = default_parser().parse(after[but.end() :].strip())
    if doc is None:
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return None
    said = default_parser().parse(quote)
    quoted = {t.lemma_.lower() for t in said or ()}
    if _ends(root, quoted) or (_negated_stand_in(root, quoted) and not _past(said)):
        return doc.text
    return None


def _past(doc: Any) -> bool:
    """Whether a quote tells what was ("I had a migraine every morning last month", "My knee
    used to hurt"): that it is not so any more leaves it true."""
    if doc is None:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    used_to = any(
        t.lower_ == "used" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ == "to" for t in doc
    )
    return used_to or (root is not None and root.tag_ == "VBD")


def _negated_stand_in(root: Any, quoted: set[str]) -> bool:
    """A negated pro-verb or verb of the quote, with no complement but one pointing back."""
    negated = any(c.dep_ == "neg" or c.lower_ in ("never", "longer") for c in root.children)
    if not negated or (root.lemma_ not in _PRO_VERBS and root.lemma_ not in quoted):
        return False
    if any(c.dep_ == "prep" and any(g.dep_ == "pobj" for g in c.children) for c in root.children):
        return False  # "I'm not going to the gym": a place of its own
    return all(c.lower_ in _POINTING for c in root.children if c.dep_ in _COMPLEMENTS)


def _ends(root: Any, quoted: set[str]) -> bool:
    """A verb of ending whose object (or passive subject) is absent, points back or is a noun
    of the quote."""
    particle = _ENDING_PHRASAL.get(root.lemma_)
    parts = {c.lower_ for c in root.children if c.dep_ in ("prt", "prep")}
    if root.lemma_ not in _ENDING and (particle is None or particle not in parts):
        return False
    if root.lemma_ in _ENDING and parts - {"against"}:
        return False  # "dropped them off", "quit on me": another verb
    targets = [c for c in root.children if c.dep_ in ("dobj", "nsubjpass")]
    return all(t.lower_ in _POINTING or t.lemma_.lower() in quoted for t in targets)


__all__ = ["undone"]

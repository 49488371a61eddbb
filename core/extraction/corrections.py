"""The offline reviewer's reading of corrections: which stored records a user's words correct.

A later statement that changes an earlier one ("we returned the grey sectional and got a navy
sofa instead", "my new boss is Katrin Vogel", "last day at Paylane would be 5 September") must
retire the records of the earlier one, or a search shows both, the stale value first as often
as not. The offline rules cannot key most such facts by attribute (the ingestor's subject
rule), and an earlier verbatim statement is an episode, which the supersession rule never
replaces on its own. So the reviewer, which is shown the stored records related to each
candidate (``extraction.related_records`` nearest to its content and as many nearest to its
whole turn, each with its cosine to the content and its evidence), names those the candidate
replaces when both hold:

- the candidate's words are the user's own claim, not a report of what someone said or
  believes ("My aunt heard the wedding moved to June": core.framing.reports) nor a sentence
  about someone it names only as "he", "she" or "they" ("She moved there from Leeds last
  year"), and they say that something changed (core.judge.change): its evidence holds a
  change marker ("instead", "anymore", "no longer", "switched", "moved", "my new ...", "is
  off", "broke up", "retired", "returned", "accepted", "again", "now" ...), or its turn opens
  by announcing one ("Update:", "Big news!", "There's been a change.");
- the record is linked to the candidate (``linked``): a user's statement, live, that does not
  itself say something ended ("covering banks instead of REITs": a later mention of REITs
  does not make it stale, the stale finder's rule, core.write.stale), and that reaches
  ``CORRECTION_FLOOR`` cosine to the candidate's content naming something the candidate names
  (a shared content word, or a noun and its WordNet synonym: "couch" / "sofa"; close in topic
  is not enough: "my sous-chef is Bianca" is 0.52 from "a restaurant in Vila Madalena", "I am
  buying the pharmacy" 0.78 from "I am a pharmacist"), ``LINK_FLOOR`` sharing one content word
  with the candidate's evidence ("Berlin"), or ``WORDS_FLOOR`` sharing two ("grey",
  "sectional"); words compared as stems, the usual words of a statement about the user
  ("user", "new", "week", "I'm", "love" ...) left out. Names shared alone (words written
  capitalised every time, months and weekdays aside) link only when one of them is what
  changed: it opens a sentence or clause of the candidate's evidence as its subject ("And
  sadly Mercy left", "so Berlin is off"), not as the user's companion ("I moved in with
  Antoine", "Valeria and me moved together"), the owner of the subject ("Sigrid's baby came
  early") or an object ("no more Piha traffic"): those retired every record about the person
  or place;
- a record of several sentences only when each of them shares a content word with the
  candidate's evidence (``_whole``): "Adam is 15, he plays hockey. Lina is 11, she swims." is
  not retired by "Adam quit hockey", so Lina's claim is not forgotten with Adam's.

The nearest such record is the one replaced (``replaces``: the new record in its lineage), up
to ``MAX_RETIRED - 1`` others are retired beside it (``retires``: superseded by the new record,
history kept, never deleted). The pipeline checks that every id is one the reviewer was shown;
the ingestor supersedes them when the candidate ranks at least as high and was stated later
(core.write.supersession.retirable). The floors were chosen on the odd-numbered personas of
the personal-memory set and reported on the even ones (benchmarks/README.md), counting both
sides: update questions whose stale records stay live, and records retired although their turn
is evidence of a question still valid (benchmarks/personal_misses.py). Lower, a marker with a
merely topical neighbour ("Now, the book club is at my house") retires the wrong record.

Limits: a change said with neither marker nor announcement ("I've started eating chicken"
after "I'm pescatarian") is missed, and so is an old record that shares no content word with
the correction and is not close in embedding space ("so Berlin is off" is at cosine 0.28 to
the marathon plan: one shared word needs 0.35), or shares only a name that is not the subject
of the change ("the hall in Ahmedabad double-booked us, so the wedding is now on 6 December"
does not retire "getting married on 22 November in Ahmedabad"). A shared name that is the
subject, or one written in lower case ("noah and i broke up"), still links records about that
person that the correction does not change; telling which attribute of a person changed needs
a model. A correction the judge
downgrades to an inference cannot replace the user's own statement. A chain of changes stops
at a record that itself says something ended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.framing import reports
from agent_memory.core.judge.change import content_words, says_changed
from agent_memory.core.judge.contradiction import says_ended
from agent_memory.core.judge.wordnet import wordnet

CORRECTION_FLOOR = 0.50  # cosine that links a record on its own
LINK_FLOOR = 0.35  # cosine that links a record sharing a content word with the correction
WORDS_FLOOR = 0.15  # cosine that links a record sharing two content words
MAX_RETIRED = 3  # records one correction may retire

_LIVE = ("confirmed", "provisional")
# A sentence whose subject is someone the words do not name ("He quit Google last year"): what
# changed is theirs, not what the user said.
_SOMEONE_ELSE = re.compile(
    r"^\W*(?:(?:and|also|but|so|plus|now)\W+)*(?:he|she|they|his|her|their)\b", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
# A name opening a sentence or a clause after a comma, after at most two connectives or
# adverbs ("And sadly Mercy left", "..., so Berlin is off"; not "..., no more Piha traffic"),
# and not followed by a possessive or by "and", "with", "&" (a companion: "Valeria and me").
_SUBJECT = re.compile(
    r"(?:^|[.!?:;,]\s+)(?:(?i:and|also|but|so|plus|then|now|oh|well|ok|okay|anyway|btw|"
    r"[a-z]+ly)\W+){0,2}([A-Z][\w-]*)\b"
    r"(?!['\u2019]s\b|\s*(?:and|&|with|or)\b)"
)


def corrected(
    candidate: Candidate, related: Sequence[dict[str, Any]], turn: str = ""
) -> list[dict[str, Any]]:
    """The related records the candidate's words correct, nearest first, at most
    ``MAX_RETIRED`` (module docstring); ``turn``: the text of the candidate's turn."""
    if candidate.source_kind != "user_statement" or reports(candidate.evidence):
        return []  # a report is the reporter's claim ("My aunt heard the wedding moved")
    if _SOMEONE_ELSE.match(candidate.evidence):
        return []  # "She moved there from Leeds last year": whoever she is, not the user
    if not says_changed(candidate.evidence, turn):
        return []
    found = [r for r in related if linked(candidate, r) and _whole(candidate, r)]
    found.sort(key=lambda r: -float(r.get("cosine", 0.0)))
    return found[:MAX_RETIRED]


def linked(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether a related record is one the candidate may correct: the user's own live
    statement, close enough in embedding space, or less close and sharing content words with
    the candidate's evidence (and not itself saying that something ended)."""
    if record.get("source_kind") != "user_statement" or record.get("status") not in _LIVE:
        return False
    if says_ended(str(record.get("content", ""))):
        # A record that itself says something ended ("covering banks instead of REITs") is
        # not made stale by a later mention of what ended (core.write.stale, the same rule).
        return False
    cosine = float(record.get("cosine", 0.0))
    if cosine < WORDS_FLOOR:
        return False
    said = content_words(candidate.evidence)
    text = f"{record.get('content', '')} {record.get('evidence') or ''}"
    shared = said & content_words(text)
    if shared and shared <= _names(candidate.evidence) & _names(text):
        # Linked by names alone ("Antoine"): only when one is what changed (_subjects).
        shared &= _subjects(candidate.evidence)
    if cosine >= CORRECTION_FLOOR:
        # Close, and naming the same thing: a shared word or a synonym ("sofa" / "couch"),
        # not only the same topic ("my sous-chef is Bianca" / "a restaurant in Vila Madalena").
        return bool(shared) or _synonymous(candidate.evidence, text)
    return len(shared) >= 2 or (len(shared) == 1 and cosine >= LINK_FLOOR)


def _synonymous(said: str, text: str) -> bool:
    """Whether a noun of ``said`` and another noun of ``text`` share a sense by WordNet (one
    of their first two): "sofa" and "couch", not "pharmacy" and "pharmacist". The same word on
    both sides is a shared word, not a synonym (the caller's rules for those hold)."""
    net = wordnet()
    if net is None:
        return False
    mine = _plain(said)
    senses: set[int] = set()
    for word in mine:
        for lemma in net.lemmas(word, "n"):
            senses.update(net.senses(lemma, "n")[:2])
    return any(
        senses.intersection(net.senses(lemma, "n")[:2])
        for word in _plain(text) - mine
        for lemma in net.lemmas(word, "n")
        if not content_words(word) & content_words(" ".join(mine))
    )


def _plain(text: str) -> set[str]:
    """The lower-case content words of ``text``, as written (not stems)."""
    return {
        w for w in (m.lower() for m in _WORD.findall(text)) if content_words(w) and "'" not in w
    }


def _names(text: str) -> set[str]:
    """The content words of ``text`` (as ``content_words``: stems) written capitalised
    every time: names of people, places and things ("Antoine", "Affinity Designer")."""
    cased: dict[str, bool] = {}
    for word in _WORD.findall(text):
        if word.lower() in _CALENDAR:
            continue  # "July" names a month, not what changed
        for stem in content_words(word):
            cased[stem] = cased.get(stem, True) and word[0].isupper()
    return {stem for stem, upper in cased.items() if upper}


def _subjects(evidence: str) -> set[str]:
    """The names that open a sentence of ``evidence`` as its subject ("Mercy left to go back
    home", "Dr. Weber retired", "Berlin is off"), as stems: not one named as the user's
    companion ("Valeria and me moved together", "I moved in with Antoine") or as the owner of
    the subject ("Sigrid's baby came early")."""
    return {stem for m in _SUBJECT.finditer(evidence) for stem in content_words(m.group(1))}


def _whole(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether every sentence of the record is about what the correction says (shares a
    content word with its evidence): a verbatim record holding several claims ("Adam is 15,
    he plays hockey. Lina is 11, she swims.") is retired only when each is corrected, so that
    an unrelated claim beside the stale one is not forgotten with it."""
    parts = [p for p in _SENTENCE.split(str(record.get("content", ""))) if content_words(p)]
    if len(parts) < 2:
        return True
    said = content_words(candidate.evidence)
    return all(content_words(p) & said for p in parts)


__all__ = [
    "CORRECTION_FLOOR",
    "LINK_FLOOR",
    "MAX_RETIRED",
    "WORDS_FLOOR",
    "corrected",
    "linked",
]

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

- the candidate's words say that something changed (``says_changed``): its evidence holds a
  change marker ("instead", "anymore", "no longer", "switched", "moved", "my new ...", "is
  off", "broke up", "retired", "returned", "accepted", "again", "now" ...), or its turn opens
  by announcing one ("Update:", "Big news!", "There's been a change."); or it says "no" to a
  thing (``_NEGATED``: "So no Gran Fondo this year", "no more biking the amp to gigs"), and
  then only a record holding that thing (all its words, or two of them) counts as changed;
- the record is linked to the candidate (``linked``): a user's statement, live, that does not
  itself say something ended ("covering banks instead of REITs": a later mention of REITs
  does not make it stale, the stale finder's rule, core.write.stale), and that reaches
  ``CORRECTION_FLOOR`` cosine to the candidate's content on its own, ``LINK_FLOOR`` sharing one
  content word with the candidate's evidence ("Berlin"), or ``WORDS_FLOOR`` sharing two
  ("grey", "sectional"); words compared as stems, the usual words of a statement about the
  user ("user", "new", "week", "I'm" ...) left out;
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
the marathon plan: one shared word needs 0.35). A shared name links records about that person
that the correction does not change ("Noah and I broke up" retires "Noah is allergic to
cats"); telling which attribute of a person changed needs a model. A correction the judge
downgrades to an inference cannot replace the user's own statement. A chain of changes stops
at a record that itself says something ended.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.judge.contradiction import says_ended
from agent_memory.core.judge.stemming import stem_word

CORRECTION_FLOOR = 0.50  # cosine that links a record on its own
LINK_FLOOR = 0.35  # cosine that links a record sharing a content word with the correction
WORDS_FLOOR = 0.15  # cosine that links a record sharing two content words
MAX_RETIRED = 3  # records one correction may retire

_CORRECTION = re.compile(
    r"\b(instead|anymore|any more|any longer|no longer|not any ?more|switch(?:ed|ing)?|"
    r"chang(?:ed|e of plans?)|moved|moving|cancel+ed|called off|postponed|rescheduled|"
    r"updated?|stopped|quit|left|replaced|gave up|now|again|"
    r"(?:my|our|his|her|their|the) new|(?:is|are|was|'s) (?:off|gone|over)|"
    r"broke up|split up|retired|retiring|resigned|promoted|transferred|returned|returning|"
    r"accepted|ended up|used to|not (?:any|the) (?:more|longer)|interim|acting|taking over|"
    r"takes over|instead of)\b",
    re.IGNORECASE,
)
# A turn that opens by announcing a change: its sentences may each state one.
_ANNOUNCES = re.compile(
    r"^\W*(?:[\w']+[\s,]+){0,3}?(?:updates?|news|(?:a |some )?changes?|change of plans?)\b"
    r"[^.!?:,\n]{0,20}[.!?:,\n]",
    re.IGNORECASE,
)
# "no" before a thing says it is off ("So no Gran Fondo this year", "no more biking the amp to
# gigs"): a change of a record that holds that thing, though no marker word says so. The thing
# is the words up to the next punctuation mark.
_NEGATED = re.compile(
    r"\bno\s+(?!(?:more|less) than\b)(?:more\s+|longer\s+)?([^.,;:!?()\n]+)", re.IGNORECASE
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
# Words every statement about the user holds, or that name no thing.
_COMMON = frozenset(
    "the a an and or but if then so to of in on at for with from by about as is are was were be "
    "been being it its this that these those i me my mine you your we our us they them their he "
    "him his she her not no yes do does did doing have has had having will would can could "
    "should just also really very what when where which who how why there here some any all "
    "more most much many please thanks thank okay ok sure like know think want wants need needs "
    "going get got make made good great well now today tomorrow yesterday user user's users "
    "still again new instead anymore longer since week weeks day days month months year years "
    "time times thing things lot bit one two three first last next every each other another "
    "back up down out off over into after before until while because though actually update "
    "updates news change changed changes big little old right left quite kind sort way".split()
)
_LIVE = ("confirmed", "provisional")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def says_changed(evidence: str, turn: str = "") -> bool:
    """Whether the words say that something changed: a correction marker in ``evidence``,
    or its ``turn`` opening by announcing a change."""
    return _CORRECTION.search(evidence) is not None or _ANNOUNCES.match(turn) is not None


def corrected(
    candidate: Candidate, related: Sequence[dict[str, Any]], turn: str = ""
) -> list[dict[str, Any]]:
    """The related records the candidate's words correct, nearest first, at most
    ``MAX_RETIRED`` (module docstring); ``turn``: the text of the candidate's turn."""
    if candidate.source_kind != "user_statement":
        return []
    marked = says_changed(candidate.evidence, turn)
    negated = _negated(candidate.evidence)
    if not (marked or negated):
        return []
    found = [
        r
        for r in related
        if linked(candidate, r)
        and _whole(candidate, r)
        and (marked or _turns_off(negated, str(r.get("content", ""))))
    ]
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
    if cosine >= CORRECTION_FLOOR:
        return True
    if cosine < WORDS_FLOOR:
        return False
    said = _words(candidate.evidence)
    shared = said & _words(f"{record.get('content', '')} {record.get('evidence') or ''}")
    return len(shared) >= 2 or (len(shared) == 1 and cosine >= LINK_FLOOR)


def _whole(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether every sentence of the record is about what the correction says (shares a
    content word with its evidence): a verbatim record holding several claims ("Adam is 15,
    he plays hockey. Lina is 11, she swims.") is retired only when each is corrected, so that
    an unrelated claim beside the stale one is not forgotten with it."""
    parts = [p for p in _SENTENCE.split(str(record.get("content", ""))) if _words(p)]
    if len(parts) < 2:
        return True
    said = _words(candidate.evidence)
    return all(_words(p) & said for p in parts)


def _negated(text: str) -> list[set[str]]:
    """The things ``text`` says "no" to, each as the stems of its content words."""
    return [found for m in _NEGATED.finditer(text) if (found := _words(m.group(1)))]


def _turns_off(negated: list[set[str]], content: str) -> bool:
    """Whether a record holds a thing the correction says "no" to (all its words, or two of
    them: "no more Piha traffic" does not turn off every record naming Piha), and does not say
    "no" to it itself."""
    held = _words(content)
    said_no = set().union(*_negated(content))
    return any(
        (thing <= held or len(thing & held) >= 2) and not thing & said_no for thing in negated
    )


def _words(text: str) -> set[str]:
    """The content words of ``text``, as stems: the usual words of a statement about the
    user, and contractions ("I'm"), left out."""
    words = set()
    for match in _WORD.finditer(text):
        folded = match.group(0).lower().removesuffix("'s")
        if len(folded) >= 3 and "'" not in folded and folded not in _COMMON:
            words.add(stem_word(folded))
    return words


__all__ = [
    "CORRECTION_FLOOR",
    "LINK_FLOOR",
    "MAX_RETIRED",
    "WORDS_FLOOR",
    "corrected",
    "linked",
    "says_changed",
]

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
from agent_memory.core.framing import reports
from agent_memory.core.judge.change import content_words, says_changed
from agent_memory.core.judge.contradiction import says_ended

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
    if cosine >= CORRECTION_FLOOR:
        return True
    if cosine < WORDS_FLOOR:
        return False
    said = content_words(candidate.evidence)
    shared = said & content_words(f"{record.get('content', '')} {record.get('evidence') or ''}")
    return len(shared) >= 2 or (len(shared) == 1 and cosine >= LINK_FLOOR)


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

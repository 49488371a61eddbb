"""The offline reviewer's reading of corrections: which stored record a user's words correct.

A later statement that changes an earlier one ("we returned the grey sectional and got a navy
sofa instead", "so I stopped beer completely") must retire it, or a search shows both, the
stale value first as often as not. The offline rules cannot key most such facts by attribute
(the ingestor's subject rule), and an earlier verbatim statement is an episode, which the
supersession rule never replaces on its own. So the reviewer, which is shown the stored
records most similar to each candidate (``extraction.related_records``, with their cosine),
names one for the candidate to replace when both hold:

- the candidate's evidence says that something changed: a correction marker ("instead",
  "anymore", "no longer", "switched", "moved", "cancelled", "postponed", "stopped", "quit",
  "now" ...);
- the most similar related record stated by the user (confirmed ``user_statement``) reaches
  ``CORRECTION_FLOOR`` cosine.

The pipeline checks that the id is one the reviewer was shown, the ingestor's correction path
then supersedes it (the new record in its lineage, the old one history, never deleted) when
the candidate ranks at least as high. The floor was chosen on the development half of the
personal-memory set (personas A01-A12) and reported on the other half (benchmarks/README.md);
below it, a marker with a merely topical neighbour ("Now, the book club is at my house") would
retire the wrong record. Limits: a correction without a marker is missed, as is one whose old
record is worded too differently; one candidate replaces at most one record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_memory.core.extraction.schema import Candidate

CORRECTION_FLOOR = 0.45

_CORRECTION = re.compile(
    r"\b(instead|anymore|any more|no longer|not any ?more|switch(?:ed|ing)?|chang(?:ed|e of "
    r"plans?)|moved|cancel+ed|called off|postponed|rescheduled|updated?|stopped|quit|"
    r"left|replaced|gave up|now)\b",
    re.IGNORECASE,
)


def says_changed(evidence: str) -> bool:
    """Whether the words say that something changed (a correction marker)."""
    return _CORRECTION.search(evidence) is not None


def corrected(candidate: Candidate, related: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The related record the candidate's words correct, or None (module docstring)."""
    if candidate.source_kind != "user_statement" or not says_changed(candidate.evidence):
        return None
    stated = [
        r
        for r in related
        if r.get("source_kind") == "user_statement"
        and r.get("status") == "confirmed"
        and float(r.get("cosine", 0.0)) >= CORRECTION_FLOOR
    ]
    return max(stated, key=lambda r: float(r["cosine"]), default=None)


__all__ = ["CORRECTION_FLOOR", "corrected", "says_changed"]

"""What a session's summary may say: the contents its session confirmed and still holds, the
ones it may not state as facts, and nothing a later write retired while it was written.

The summary stage (core.extraction.pipeline) gives the backend's summary writer what the
session confirmed (stated as facts: the offline writer lists them, "Remembered: ...") and what
it stored only as inferences or disputed (never stated); a summary that states the second
anyway is stored as an inference itself (``states_unconfirmed``). A record the session
confirmed may be retired before the summary is written: by a later turn of the same session
(it is not given), or by another write while the model writes (``without_retired`` drops it
from the list before the summary is stored; one retired after that narrows the stored summary
itself: core.write.supersession.narrow_summaries). A forget that lands while the model writes
fails the stage, which runs again from the redacted transcript (core.extraction.pipeline).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_memory.core.models import Record, Status
from agent_memory.core.write import remembered
from agent_memory.core.write.evidence import Turn, repeats, vouching_problem


def kept_and_inferred(
    written: Sequence[dict[str, Any]], stored: Mapping[str, Record]
) -> tuple[tuple[str, ...], ...]:
    """The contents the session confirmed and still holds (``stored``: its records now; a
    later turn may have retired one), and those it stored only as inferences or disputed (a
    conflict): the summary may state the first as facts, never the second. The user's
    verbatim statements are neither: they are words to recall, not facts to restate."""
    phrased = [w for w in written if w.get("kind") != "statement"]
    confirmed = [w for w in phrased if w["status"] == "confirmed" and w["action"] != "conflict"]
    # The stored record's words: a session that said it again reinforced the record in words
    # of its own, and a write that retires the record looks for its words in the list.
    kept = tuple(
        dict.fromkeys(
            now.content
            for w in confirmed
            if (now := stored.get(w.get("id", ""))) is not None and now.status is Status.CONFIRMED
        )
    )
    said = {w["content"] for w in confirmed}
    inferred = tuple(w["content"] for w in phrased if w["content"] not in said)
    return kept, tuple(dict.fromkeys(inferred))


UNCONFIRMED_MARK = "unconfirmed"
# A summary every sentence of which restated something forgotten: a session took place.
WITHHELD_SUMMARY = "The user and the agent talked; nothing of it is kept here."


def states_unconfirmed(summary: str, inferred: Sequence[str], turns: Sequence[Turn]) -> bool:
    """Whether a summary repeats what the session did not confirm: it marks something
    unconfirmed (the model backend's prompt asks for that word), or every word trigram of an
    inferred record, or of a sentence of a tool turn that cannot vouch, is in it. Literal: a
    paraphrase is not caught, which is why the prompt forbids stating such claims."""
    if UNCONFIRMED_MARK in summary.lower():
        return True
    said = [summary]
    if any(repeats(content, said) for content in inferred):
        return True
    for turn in turns:
        if turn.role == "tool" and vouching_problem(turn, turn.content, turns) is not None:
            sentences = (s for s in _SENTENCE.split(turn.content) if len(s.split()) >= 4)
            if any(repeats(sentence, said) for sentence in sentences):
                return True
    return False


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def without_retired(summary: str, before: Mapping[str, Record], now: Mapping[str, Record]) -> str:
    """``summary`` without the items of its list that were confirmed records in ``before``
    and are no longer in ``now`` (retired while the summary was written)."""
    for record_id, record in before.items():
        held = now.get(record_id)
        if record.status is Status.CONFIRMED and (
            held is None or held.status is not Status.CONFIRMED
        ):
            summary = remembered.without(summary, record.content) or summary
    return summary


__all__ = [
    "UNCONFIRMED_MARK",
    "WITHHELD_SUMMARY",
    "kept_and_inferred",
    "states_unconfirmed",
    "without_retired",
]

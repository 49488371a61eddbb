"""The offline backend's reviewer: rules instead of a model (core.extraction.offline).

Accepts a candidate whose evidence is verbatim in the transcript and whose turn holds no
instruction-override text; rejects the rest; narrows to agent_inference a user_statement claim
whose evidence is not in a user turn, and a tool_result claim whose evidence is not an
authoritative tool's own output; names the stored records a user's correction replaces when its
words (or its turn) say something changed and records the user stated are linked to it: close
enough, or less close and sharing content words (core.extraction.corrections). Read the other
way, it names the stored record stated after a candidate that would have corrected it had the
candidate been stored first (``outdated_by``: an older session extracted after a newer one), so
that the order sessions are extracted in does not decide which value is current. It does not
otherwise judge meaning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_memory.core.extraction import corrections
from agent_memory.core.extraction.refusals import INJECTION
from agent_memory.core.extraction.schema import (
    ReviewDecision,
    ReviewOutput,
    ReviewRequest,
    Revision,
)
from agent_memory.core.write.evidence import find_quote, vouching_problem


def review(request: ReviewRequest) -> ReviewOutput:
    """One decision per item of ``request`` (module docstring)."""
    decisions = []
    turns = request.session.turns
    for item in request.items:
        c = item.candidate
        turn = find_quote(c.evidence, turns, roles=("user", "assistant", "tool", "system"))
        if turn is None:
            decisions.append(_decide(item.index, "reject", "evidence not in the transcript"))
        elif INJECTION.search(turn.content):
            decisions.append(
                _decide(
                    item.index, "reject", "the evidence turn tries to instruct the memory system"
                )
            )
        elif c.source_kind == "user_statement" and turn.role != "user":
            decisions.append(
                _narrow(item.index, f"the evidence is a {turn.role} turn, not the user's words")
            )
        elif c.source_kind == "tool_result" and (
            turn.role != "tool" or vouching_problem(turn, c.evidence, turns) is not None
        ):
            decisions.append(
                _narrow(item.index, "the evidence is not an authoritative tool's own output")
            )
        else:
            old = corrections.corrected(c, item.related, turn.content, at=turn.at)
            newer = corrections.outdating(c, item.related, turn.at, item.related_turns)
            if old or newer:
                decisions.append(_correction(item.index, old, newer))
            else:
                decisions.append(_decide(item.index, "accept", "evidence verbatim, no red flags"))
    return ReviewOutput(decisions=decisions)


def _decide(index: int, verdict: str, reason: str) -> ReviewDecision:
    return ReviewDecision.model_validate({"index": index, "verdict": verdict, "reason": reason})


def _correction(
    index: int, old: Sequence[dict[str, Any]], newer: dict[str, Any] | None
) -> ReviewDecision:
    """Accept, replacing the nearest stored record the words correct and retiring the others,
    and as the history of ``newer``, a record stated later whose words correct these
    (core.extraction.corrections)."""
    reasons = []
    if old:
        named = ", ".join(f"{r['id']} (cosine {r['cosine']})" for r in old)
        reasons.append(f"the user's words correct {named}")
    if newer is not None:
        reasons.append(f"{newer['id']}, stated after them ({newer['stated_at']}), corrects them")
    return ReviewDecision(
        index=index,
        verdict="revise",
        reason="; ".join(reasons),
        revision=Revision(
            replaces=str(old[0]["id"]) if old else None,
            retires=[str(r["id"]) for r in old[1:]] or None,
            outdated_by=str(newer["id"]) if newer is not None else None,
        ),
    )


def _narrow(index: int, reason: str) -> ReviewDecision:
    return ReviewDecision(
        index=index,
        verdict="revise",
        reason=reason,
        revision=Revision(source_kind="agent_inference"),
    )


__all__ = ["review"]

"""What a write does instead of adding a duplicate: reinforce the record it repeats.

Reinforcing records the observation (its turn and quote digest, core.store.observations),
raises confidence (``REINFORCE_STEP`` of the gap to certainty with a quote that can count,
``REPEAT_STEP`` without) and extends expiry. A stronger verified source upgrades the record.
A provisional record becomes confirmed only on two observations whose quotes differ and come
from different user or host turns (``witnessed``), never by repetition: repeating a guess, in
any number of sessions, only extends its expiry. memory_revise(confirm) comes through here too
(``kind="confirmed"``).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent_memory.core import events, policy
from agent_memory.core.models import Record, SourceKind, Status, format_time
from agent_memory.core.store import observations
from agent_memory.core.store import records as stored
from agent_memory.core.write.evidence import Witness

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.write.drafts import WriteRequest

REINFORCE_STEP = 0.3  # each evidenced reinforcement closes this share of the gap to certainty
REPEAT_STEP = 0.1  # a repetition without new evidence, a smaller share
MAX_CONFIDENCE = 0.99

# The event of an observation, by the kind the caller names (a promotion is its own kind).
_OBSERVED: dict[str, type[events.RecordReinforced]] = {
    "reinforced": events.RecordReinforced,
    "confirmed": events.RecordConfirmed,
}


def observe(
    conn: sqlite3.Connection,
    rowid: int,
    request: WriteRequest,
    witness: Witness | None,
    *,
    kind: str,
    source_kind: SourceKind,
    now: datetime,
) -> None:
    """One observation row: who saw the record, when, and the turn its quote came from;
    the quote's digest only when it can count toward promotion (core.write.evidence.witness)."""
    seen = observations.Observation(
        session_id=request.session_id,
        agent_id=request.agent_id,
        source_kind=source_kind.value,
        kind=kind,
        turn_seq=None if witness is None else witness.turn_seq,
        turn_role=None if witness is None else witness.turn_role,
        digest=witness.digest if witness is not None and witness.counts else None,
    )
    observations.add(conn, rowid, seen, now=now)


def witnessed(conn: sqlite3.Connection, rowid: int) -> list[list[Any]] | None:
    """Two observations of the record that promote it, as [session_id, turn_seq] pairs:
    different quote digests from different turns. None when there are not two."""
    first: dict[str, tuple[Any, Any]] = {}
    for session_id, seq, digest in observations.quoted(conn, rowid):
        for other, turn in first.items():
            if other != digest and turn != (session_id, seq):
                return [list(turn), [session_id, seq]]
        first.setdefault(digest, (session_id, seq))
    return None


def reinforce_in(
    conn: sqlite3.Connection,
    config: Config,
    current: Record,
    request: WriteRequest,
    *,
    new_source: SourceKind,
    evidence: str | None,
    witness: Witness | None,
    stated_at: str | None,
    now: datetime,
    kind: str = "reinforced",
) -> tuple[Status, SourceKind, bool]:
    """Inside a transaction: record the observation, raise confidence, extend expiry, and
    promote when warranted (module docstring). A quoted observation moves the record's
    stated_at to its turn's time when that is later; a repetition without a quote does not
    (nobody stated anything then). Returns the status, the source kind and whether the
    record was promoted."""
    assert current.rowid is not None
    observe(conn, current.rowid, request, witness, kind=kind, source_kind=new_source, now=now)
    step = REINFORCE_STEP if witness is not None and witness.counts else REPEAT_STEP
    confidence = min(MAX_CONFIDENCE, current.confidence + (1 - current.confidence) * step)
    status, source_kind, ev = current.status, current.source_kind, current.evidence
    why: dict[str, Any] = {}
    if policy.source_rank(new_source) > policy.source_rank(current.source_kind):
        source_kind, ev = new_source, evidence or current.evidence
        status = policy.initial_status(new_source)
        confidence = max(confidence, policy.initial_confidence(new_source))
        why = {"reason": f"a verified {new_source.value} quote raised the source"}
    if status is Status.PROVISIONAL:
        witnesses = witnessed(conn, current.rowid)
        if witnesses is not None:
            status = Status.CONFIRMED
            why = {
                "reason": "two observations quote different words from different user "
                "or host turns",
                "turns": witnesses,
            }
    expires = policy.expires_at(status, now=now, config=config)
    stated = current.statement_time
    if witness is not None and stated_at is not None:  # restated: a quote, from that turn
        stated = max(stated, stated_at)
    promoted = status is not current.status
    shown = why if promoted or why.get("reason", "").startswith("a verified") else {}
    event = events.RecordPromoted if promoted else _OBSERVED[kind]
    observed = event(
        record_id=current.id,
        agent_id=request.agent_id,
        session_id=request.session_id,
        source_kind=new_source.value,
        status=status.value,
        confidence=round(confidence, 4),
        evidence_turn=None
        if witness is None
        else {"session_id": witness.session_id, "seq": witness.turn_seq},
        reason=shown.get("reason"),
        turns=shown.get("turns"),
    )
    stored.reinforce(
        conn,
        current.rowid,
        observed,
        confidence=confidence,
        status=status,
        source_kind=source_kind,
        evidence=ev,
        expires_at=format_time(expires) if expires else None,
        stated_at=stated,
        now=now,
    )
    return status, source_kind, promoted


__all__ = ["MAX_CONFIDENCE", "REINFORCE_STEP", "REPEAT_STEP", "observe", "reinforce_in"]

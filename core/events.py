"""The audit events, one small frozen dataclass per kind (datasette's events.py style).

The ``events`` table is append-only (its triggers refuse updates and deletes). A row holds the
time, the kind, the record and agent it concerns (either may be empty) and a JSON payload of
ids, counts and decisions, never a record's words. An event's ``kind`` is a class attribute;
its fields other than ``record_id`` and ``agent_id`` are the payload, so the stored JSON of a
kind keeps the keys it always had (old stores read the same). Events are appended only
through ``core.store.log.append``, inside the transaction of the change they record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

# Event fields stored in their own columns rather than in the payload.
_COLUMNS = frozenset({"record_id", "agent_id"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One audit event: ``kind`` names it, ``payload()`` is its JSON."""

    kind: ClassVar[str] = ""
    record_id: str | None = None
    agent_id: str | None = None

    def payload(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _COLUMNS}


# -- records -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordCreated(Event):
    kind: ClassVar[str] = "record.created"
    type: str
    scope: str
    status: str
    source_kind: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordImported(RecordCreated):
    kind: ClassVar[str] = "record.imported"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordForgotten(Event):
    kind: ClassVar[str] = "record.forgotten"
    reason: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordExpired(Event):
    kind: ClassVar[str] = "record.expired"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordReviewDue(Event):
    kind: ClassVar[str] = "record.review_due"
    review_at: str
    reason: str = "its review_at has come; the dated claim may be stale"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordSuperseded(Event):
    """``reason`` is stored only when given (a record superseded on write names none)."""

    kind: ClassVar[str] = "record.superseded"
    by: str
    reason: str | None = None

    def payload(self) -> dict[str, Any]:
        return {"by": self.by} if self.reason is None else {"by": self.by, "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordReinforced(Event):
    """A live record observed again (core.write.reinforce): its new status and confidence,
    the turn the observation's quote came from (``evidence_turn``: session_id and seq, or
    None). ``reason`` and ``turns`` are stored only when given: why the source was raised or
    the record promoted, and the two turns that promoted it."""

    kind: ClassVar[str] = "record.reinforced"
    session_id: str | None
    source_kind: str
    status: str
    confidence: float
    evidence_turn: dict[str, Any] | None
    reason: str | None = None
    turns: list[list[Any]] | None = None

    def payload(self) -> dict[str, Any]:
        shape: dict[str, Any] = {
            "session_id": self.session_id,
            "source_kind": self.source_kind,
            "status": self.status,
            "confidence": self.confidence,
            "evidence_turn": self.evidence_turn,
        }
        if self.reason is not None:
            shape["reason"] = self.reason
        if self.turns is not None:
            shape["turns"] = self.turns
        return shape


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordConfirmed(RecordReinforced):
    """memory_revise(confirm): an agent vouching for a record, with or without a quote."""

    kind: ClassVar[str] = "record.confirmed"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordPromoted(RecordReinforced):
    """A reinforcement or confirmation that changed the record's status."""

    kind: ClassVar[str] = "record.promoted"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordRedacted(Event):
    """A forgotten record's words taken out of its evidence turns."""

    kind: ClassVar[str] = "record.redacted"
    reason: str | None
    scope: str
    turns_redacted: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordSuppressed(RecordRedacted):
    """As RecordRedacted, and the record's claim is kept out of later extraction."""

    kind: ClassVar[str] = "record.suppressed"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordContextErased(Event):
    """A live record's retrieval context dropped because it held the words of ``forgotten``
    (core.erasure.erase_copies): its vector is now its content's alone."""

    kind: ClassVar[str] = "record.context_erased"
    forgotten: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordContextNarrowed(Event):
    """A live record's retrieval context lost the words of ``retired``, a record of the same
    turn that a later statement superseded (core.write.supersession.narrow_siblings): the
    retired value no longer finds its turn's other records. Its vector is re-embedded."""

    kind: ClassVar[str] = "record.context_narrowed"
    retired: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordSummaryNarrowed(Event):
    """A live session summary dropped ``retired``, a record of its session that a later
    statement superseded, from the list of what the session remembered
    (core.write.supersession.narrow_summaries): it no longer restates the retired value. Its
    vector is re-embedded."""

    kind: ClassVar[str] = "record.summary_narrowed"
    retired: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordPartKept(Event):
    """A new record keeps the words of ``retired`` that the correction ``by`` left as they were
    (core.write.supersession.keep_part): the rest of a verbatim statement one of whose claims
    changed. It follows the record's ``record.created`` event."""

    kind: ClassVar[str] = "record.part_kept"
    retired: str
    by: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordTracesErased(Event):
    """A forgotten record's words erased from the logs, summaries and lone entities: rows per
    table, then the summaries and entities erased."""

    kind: ClassVar[str] = "record.traces_erased"
    rows: Mapping[str, int]
    summaries: list[str]
    entities: list[str]

    def payload(self) -> dict[str, Any]:
        return {**self.rows, "summaries": self.summaries, "entities": self.entities}


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnRedacted(Event):
    kind: ClassVar[str] = "turn.redacted"
    session_id: str
    seq: int
    reason: str


# -- entities, grants, sessions, jobs --------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityCreated(Event):
    kind: ClassVar[str] = "entity.created"
    entity_id: str
    entity_kind: str
    scope: str

    def payload(self) -> dict[str, Any]:
        return {"entity_id": self.entity_id, "kind": self.entity_kind, "scope": self.scope}


@dataclass(frozen=True, slots=True, kw_only=True)
class EntityMerged(Event):
    kind: ClassVar[str] = "entity.merged"
    merged: str
    into: str
    records: int
    reason: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class GrantPut(Event):
    kind: ClassVar[str] = "grant.put"
    scope: str
    access: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GrantRevoked(Event):
    kind: ClassVar[str] = "grant.revoked"
    scope: str
    existed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStarted(Event):
    kind: ClassVar[str] = "session.started"
    session_id: str
    user_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEnded(Event):
    kind: ClassVar[str] = "session.ended"
    session_id: str
    job_id: str
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class JobDone(Event):
    kind: ClassVar[str] = "job.done"
    job_id: str
    session_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class JobFailed(Event):
    """``error`` is kept to its first 500 characters."""

    kind: ClassVar[str] = "job.failed"
    job_id: str
    stage: str
    error: str

    def payload(self) -> dict[str, Any]:
        return {"job_id": self.job_id, "stage": self.stage, "error": self.error[:500]}


# -- the whole store and its users -----------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreEmbedderBound(Event):
    kind: ClassVar[str] = "store.embedder_bound"
    embedder: dict[str, Any] | None
    previous: dict[str, Any] | None


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreReembedded(Event):
    kind: ClassVar[str] = "store.reembedded"
    embedder: dict[str, Any] | None
    previous: dict[str, Any] | None
    records: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StoreRestored(Event):
    kind: ClassVar[str] = "store.restored"
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RetentionApplied(Event):
    kind: ClassVar[str] = "retention.applied"
    deleted: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class UserForgotten(Event):
    kind: ClassVar[str] = "user.forgotten"
    user_id: str
    counts: dict[str, int] = field(default_factory=dict)
    sessions: int = 0


__all__ = [
    "EntityCreated",
    "EntityMerged",
    "Event",
    "GrantPut",
    "GrantRevoked",
    "JobDone",
    "JobFailed",
    "RecordConfirmed",
    "RecordCreated",
    "RecordExpired",
    "RecordForgotten",
    "RecordImported",
    "RecordPromoted",
    "RecordRedacted",
    "RecordReinforced",
    "RecordReviewDue",
    "RecordSuperseded",
    "RecordSuppressed",
    "RecordTracesErased",
    "RetentionApplied",
    "SessionEnded",
    "SessionStarted",
    "StoreEmbedderBound",
    "StoreReembedded",
    "StoreRestored",
    "TurnRedacted",
    "UserForgotten",
]

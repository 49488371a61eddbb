"""A write's request and outcome, and the draft record the Ingestor builds from them.

``WriteRequest`` is a validated write (its scope resolved and permitted); ``draft`` is the
record it would add, before the write meets the store: its subject (entity + normalised
attribute), status, confidence and expiry from the verified source kind (core.policy), and
when it was stated (core.write.evidence.stated_at). ``WriteOutcome`` is what the write did,
in the shape memory_write returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent_memory.core import policy
from agent_memory.core.models import (
    MemoryType,
    Procedure,
    Record,
    SourceKind,
    Status,
    format_time,
    new_id,
)
from agent_memory.core.write import entities, evidence
from agent_memory.core.write.entities import EntityRef, PlannedEntity

if TYPE_CHECKING:
    from agent_memory.core.config import Config


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """A validated write, its scope already resolved and permitted."""

    type: MemoryType
    content: str
    source_kind: SourceKind
    scope: str
    agent_id: str
    user_id: str | None = None
    session_id: str | None = None
    attribute: str | None = None
    evidence: str | None = None
    about: tuple[EntityRef, ...] = ()
    event_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    review_at: str | None = None
    tags: tuple[str, ...] = ()
    procedure: Procedure | None = None
    source_ref: str | None = None
    # Retrieval context (core.models.Record.context): searched and embedded after the content,
    # never returned. Not part of memory_write; session extraction sets it to the words of the
    # evidence turn (core.extraction.validator.retrieval_context).
    context: str | None = None
    # memory_revise(correct): the record this write must replace.
    replaces: Record | None = None
    # A correction's further records made stale (with ``replaces``): retired, history kept.
    retires: tuple[Record, ...] = ()
    # Session extraction: a record stated after this one whose words make it stale, as the
    # reviewer read them (an older session extracted late); the draft is stored as its
    # history when it was indeed stated before it and ranks no higher (core.write.dedup).
    outdated_by: Record | None = None
    # With ``outdated_by``: the parts of this verbatim statement the newer record's words leave
    # as they were (core.extraction.verbatim.unchanged), each kept as a live record of its own
    # when the statement is stored as that record's history, as ``keeps`` for a retired one.
    own_keeps: tuple[str, ...] = ()
    # Session extraction: the words of a record it replaces or retires that the correction
    # leaves as they were (core.extraction.verbatim.unchanged), by record id. Each span of the
    # record's evidence becomes a record of its own when the record is retired.
    keeps: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # At most once: a write with a key already committed returns the first outcome (its
    # action, with replayed=True) instead of writing again. The key commits in the record's
    # transaction.
    idempotency_key: str | None = None
    # False: never reinforce a near-duplicate, always add a record (session summaries: one
    # per session, even when two sessions read alike).
    reinforce: bool = True

    def to_log(self) -> dict[str, Any]:
        """The request as the write log keeps it."""
        return {
            "type": self.type.value,
            "content": self.content,
            "source_kind": self.source_kind.value,
            "scope": self.scope,
            "attribute": self.attribute,
            "evidence": self.evidence,
            "about": [{"kind": a.kind.value, "name": a.name} for a in self.about],
            "replaces": self.replaces.id if self.replaces else None,
        }


@dataclass(slots=True)
class WriteOutcome:
    """What a write did, in the shape memory_write returns (plus diagnostics)."""

    id: str
    status: Status
    source_kind: SourceKind
    action: str  # created | reinforced | superseded | conflict | history
    supersedes_id: str | None = None
    conflicts_with: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    # True when the idempotency key had been committed already: nothing was written now, and
    # ``action`` is what the first write did.
    replayed: bool = False
    # action "history": the newer record this statement was stored before.
    superseded_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        shape = {
            "id": self.id,
            "status": self.status.value,
            "source_kind": self.source_kind.value,
            "action": self.action,
            "supersedes_id": self.supersedes_id,
            "conflicts_with": list(self.conflicts_with),
            "notes": list(self.notes),
        }
        if self.superseded_by is not None:
            shape["superseded_by"] = self.superseded_by
        return shape


def draft(
    request: WriteRequest,
    checked: evidence.EvidenceCheck,
    planned: list[PlannedEntity],
    *,
    config: Config,
    now: datetime,
) -> Record:
    """The record ``request`` would add, with the source kind and evidence ``checked``
    allows. Its subject entity is the first planned one (a correction keeps the subject of
    the record it replaces); a procedure without an attribute is about its name."""
    subject_entity = planned[0].id if planned else None
    attribute = request.attribute
    if request.type is MemoryType.PROCEDURAL and request.procedure and not attribute:
        attribute = f"procedure {request.procedure.name}"
    if request.replaces is not None:
        subject_entity = request.replaces.subject_entity_id
        attribute = attribute or request.replaces.attribute
    source_kind = checked.source_kind
    status = policy.initial_status(source_kind)
    expires = policy.expires_at(status, now=now, config=config)
    return Record(
        id=new_id("mem", now),
        type=request.type,
        content=request.content,
        scope=request.scope,
        source_kind=source_kind,
        status=status,
        confidence=policy.initial_confidence(source_kind),
        created_at=format_time(now),
        stated_at=evidence.stated_at(checked, now),
        subject_entity_id=subject_entity,
        attribute=attribute,
        subject=entities.subject_of(subject_entity, attribute),
        procedure=request.procedure,
        source_ref=request.source_ref or request.session_id,
        creator_agent_id=request.agent_id,
        session_id=request.session_id,
        evidence=checked.evidence,
        event_at=request.event_at
        or (format_time(now) if request.type is MemoryType.EPISODIC else None),
        expires_at=format_time(expires) if expires else None,
        valid_from=request.valid_from,
        valid_until=request.valid_until,
        review_at=request.review_at,
        tags=request.tags,
        entities=tuple(p.id for p in planned),
        context=request.context,
    )


__all__ = ["WriteOutcome", "WriteRequest", "draft"]

"""Bulk import of records from hosts, migrations and the evaluation harness.

``Memory.import_records`` and ``agent-memory import FILE.jsonl --scope SCOPE``. Every item is
validated before anything is written: one bad item rejects the whole call with an error that
names the item, and the store is unchanged. Valid items are embedded in batches and written one
transaction per batch. ``source_ref`` is stored and returned exactly as given, so a caller can
map results back to its own ids.

An import is host provisioning, not a model's claim: the host vouches for ``source_kind``, so no
transcript is needed and no evidence check downgrades it. Status and expiry still follow the
source kind (an imported agent_inference is provisional and expires). Entities follow the write
path's rules (``about`` resolves by exact alias in the target scope, else a new entity there; a
semantic or procedural record in ``user:<id>`` without ``about`` is about that user; elsewhere
``about`` is required). An import does not reconcile with existing records (no dedup or
supersession): it loads what the host says, as the host says it.

An import converges when run again: each item has an import key (``import_key``: a digest
of the scope, the session and everything the item says) committed in ``ingest_keys`` in the
same transaction as its record, and an item whose key is stored is not written again (nor
embedded): its id is the stored record's. So an import killed half-way (SIGKILL, a full disk)
and run again finishes the rest without duplicates, and ``ImportOutcome.already_stored`` says
how many were there. An item twice in one call is stored twice, as before (its copies are
numbered in the key).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from agent_memory.core import passages, policy
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import (
    EntityKind,
    MemoryType,
    Record,
    Scope,
    ScopeKind,
    SourceKind,
    canonical_time,
    format_time,
    new_id,
    utcnow,
)
from agent_memory.core.store import keys as stored_keys
from agent_memory.core.store.records import NewRecord, embedding_text, insert_record
from agent_memory.core.write import entities
from agent_memory.core.write.entities import EntityRef

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.engine import Engine

MAX_CONTENT_CHARS = 8000
MAX_TAGS = 32


class AboutItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: EntityKind
    name: str = Field(min_length=1, max_length=200)


class ImportItem(BaseModel):
    """One record to import. Unknown fields are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: MemoryType = MemoryType.SEMANTIC
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    source_kind: SourceKind = SourceKind.SYSTEM
    source_ref: str | None = Field(None, max_length=1000)
    event_at: str | None = None
    # When the statement was made, if not when it is imported: a conversation turn's time
    # (core.write.conversation). Search orders what was said by it (core.search.later).
    stated_at: str | None = None
    attribute: str | None = Field(None, min_length=1, max_length=200)
    tags: list[str] = Field(default_factory=list, max_length=MAX_TAGS)
    evidence: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    about: list[AboutItem] = Field(default_factory=list, max_length=10)
    context: str | None = Field(None, max_length=MAX_CONTENT_CHARS)
    # "assistant": the words are the assistant's own, read only by a search that asks what
    # the assistant said (core.models.Record.said_by; session extraction keeps them so:
    # core.extraction.replies).
    said_by: Literal["assistant"] | None = None

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content is blank")
        return value

    @field_validator("event_at", "stated_at")
    @classmethod
    def _time(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else canonical_time(value, field=str(info.field_name))

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: list[str]) -> list[str]:
        cleaned = []
        for tag in value:
            tag = tag.strip()
            if not tag or len(tag) > 64:
                raise ValueError("each tag must be 1-64 characters")
            cleaned.append(tag)
        return list(dict.fromkeys(cleaned))


def validate_items(
    records: Iterable[Mapping[str, Any]], *, labels: Sequence[str] | None = None
) -> list[ImportItem]:
    """Validate every item or raise InvalidArgument naming the first bad one: as
    ``labels[position]`` when given (e.g. a file's line), else as ``record N`` (0-based)."""
    items = []
    for position, raw in enumerate(records):
        name = _label(labels, position)
        if not isinstance(raw, Mapping):
            raise InvalidArgument(f"{name}: must be a JSON object", field="records")
        try:
            items.append(ImportItem.model_validate(dict(raw)))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "record"
            raise InvalidArgument(f"{name}: {where}: {error['msg']}", field=where) from None
        except InvalidArgument as exc:
            raise InvalidArgument(f"{name}: {exc.message}", field=exc.field) from None
    return items


def check_batch_size(batch_size: int) -> None:
    """Refuse a batch size that is not a whole number of at least 1 (import and re-embed)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidArgument(
            f"batch_size must be a whole number of at least 1, got {batch_size!r}",
            field="batch_size",
        )


def _label(labels: Sequence[str] | None, position: int) -> str:
    return labels[position] if labels is not None else f"record {position}"


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """What an import did: the record ids in input order, and how many of them were stored
    by this call (``created``) or already by an earlier run (``already_stored``)."""

    ids: list[str]
    created: int
    already_stored: int


def import_key(scope: str, item: ImportItem, session_id: str | None = None) -> str:
    """The key that makes an item's import happen once: a digest of the scope, the session
    and everything the item says (its ``source_ref``, type, content, times, tags...). The
    same line imported again has the same key; a copy dated otherwise, or edited, does not.
    A ``stated_at`` that is absent or the item's ``event_at``, and an absent ``said_by``, add
    nothing to the key, so an item imported before the field existed (a conversation turn:
    stated when it happened) keeps its key and is not stored twice when imported again."""
    dropped = {"stated_at"} if item.stated_at in (None, item.event_at) else set()
    if item.said_by is None:
        dropped.add("said_by")
    said = json.dumps(
        item.model_dump(mode="json", exclude=dropped), sort_keys=True, ensure_ascii=True
    )
    parts = (scope, session_id or "", said)
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"import:{digest}"


def import_records(
    engine: Engine,
    records: Iterable[Mapping[str, Any]],
    *,
    scope: str,
    agent_id: str | None = None,
    batch_size: int = 256,
    now: datetime | None = None,
    labels: Sequence[str] | None = None,
    session_id: str | None = None,
) -> list[str]:
    """Validate, embed (``batch_size`` records at a time, at least 1) and write ``records``
    into ``scope``. Returns ids in input order (``import_items`` also says how many were
    already stored). Errors name the bad record as ``record N`` (0-based), or as
    ``labels[N]`` when given (the command line passes each record's file line).
    ``session_id`` is stored on every record (core.write.conversation: the session the turns came
    from)."""
    return import_items(
        engine,
        records,
        scope=scope,
        agent_id=agent_id,
        batch_size=batch_size,
        now=now,
        labels=labels,
        session_id=session_id,
    ).ids


def import_items(
    engine: Engine,
    records: Iterable[Mapping[str, Any]],
    *,
    scope: str,
    agent_id: str | None = None,
    batch_size: int = 256,
    now: datetime | None = None,
    labels: Sequence[str] | None = None,
    session_id: str | None = None,
) -> ImportOutcome:
    """``import_records``, with the counts of what was written and what was already there."""
    check_batch_size(batch_size)
    parsed_scope = Scope.parse(scope)
    records = list(records)
    if labels is not None and len(labels) != len(records):
        raise ValueError(f"{len(labels)} labels for {len(records)} records")
    items = validate_items(records, labels=labels)
    owner = parsed_scope.id if parsed_scope.kind is ScopeKind.USER else None
    for position, item in enumerate(items):
        if not item.about and item.type is not MemoryType.EPISODIC and owner is None:
            raise InvalidArgument(
                f"{_label(labels, position)}: a {item.type.value} record in {scope} must say "
                'what it is about: "about": [{"kind": "project", "name": "..."}]',
                field="about",
            )
    now = now or utcnow()
    keys = _numbered([import_key(str(parsed_scope), item, session_id) for item in items])
    ids: dict[str, str] = {}  # import key -> record id, stored before or by this call
    created = 0
    for start in range(0, len(items), batch_size):
        with engine.store.reading() as conn:
            ids.update(stored_keys.stored(conn, keys[start : start + batch_size]))
            fresh = {
                key: item
                for key, item in zip(
                    keys[start : start + batch_size], items[start : start + batch_size], strict=True
                )
                if key not in ids
            }
            batch = list(fresh.values())
            plans = [
                _plan(conn, item, scope=str(parsed_scope), owner=owner, now=now) for item in batch
            ]
        if not batch:
            continue
        drafts = [
            replace(
                _record(
                    item,
                    plan,
                    scope=str(parsed_scope),
                    agent_id=agent_id,
                    now=now,
                    config=engine.config,
                ),
                session_id=session_id,
            )
            for item, plan in zip(batch, plans, strict=True)
        ]
        embedded = passages.embed(
            engine.embedder, [embedding_text(r) for r in drafts], [r.content for r in drafts]
        )
        with engine.store.transaction() as conn:
            for key, draft, plan, (vector, parts) in zip(
                fresh, drafts, plans, embedded, strict=True
            ):
                if found := stored_keys.stored(
                    conn, [key]
                ):  # imported by another process meanwhile
                    ids.update(found)
                    continue
                linked = [
                    entities.create_planned(conn, p, agent_id=agent_id, now=now) for p in plan
                ]
                if linked:
                    draft = replace(
                        draft,
                        subject_entity_id=linked[0].id,
                        subject=entities.subject_of(linked[0].id, draft.attribute),
                        entities=tuple(dict.fromkeys(p.id for p in linked)),
                    )
                insert_record(
                    conn,
                    NewRecord(draft, vector, parts),
                    embedder=engine.embedder.identity,
                    now=now,
                    event_kind="record.imported",
                )
                stored_keys.remember(conn, key, draft.id, "imported", now=now)
                ids[key] = draft.id
                created += 1
    engine.index()
    return ImportOutcome([ids[key] for key in keys], created, len(keys) - created)


def _numbered(keys: Sequence[str]) -> list[str]:
    """The keys with the second and later copies of an item in one call numbered (``:2``,
    ``:3``...): a call holding an item twice stores it twice, and its re-run still matches
    each copy with its own record."""
    seen: dict[str, int] = {}
    numbered = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        numbered.append(key if seen[key] == 1 else f"{key}:{seen[key]}")
    return numbered


def _plan(
    conn: sqlite3.Connection, item: ImportItem, *, scope: str, owner: str | None, now: datetime
) -> list[entities.PlannedEntity]:
    if item.about:
        return [
            entities.resolve(
                conn, EntityRef(a.kind, a.name), readable=(scope,), target_scope=scope, now=now
            )
            for a in item.about
        ]
    if owner is not None and item.type is not MemoryType.EPISODIC:
        return [entities.plan_principal(conn, owner)]
    return []


def _record(
    item: ImportItem,
    plan: list[entities.PlannedEntity],
    *,
    scope: str,
    agent_id: str | None,
    now: datetime,
    config: Config,
) -> Record:
    status = policy.initial_status(item.source_kind)
    # The assistant's own words are provisional (what was said, not what is true) but a
    # record of what was said does not lapse (core.extraction.replies).
    expires = None if item.said_by else policy.expires_at(status, now=now, config=config)
    subject_entity = plan[0].id if plan else None
    return Record(
        id=new_id("mem", now),
        type=item.type,
        content=item.content,
        scope=scope,
        source_kind=item.source_kind,
        status=status,
        confidence=policy.initial_confidence(item.source_kind),
        created_at=format_time(now),
        subject_entity_id=subject_entity,
        attribute=item.attribute,
        subject=entities.subject_of(subject_entity, item.attribute),
        source_ref=item.source_ref,
        creator_agent_id=agent_id,
        evidence=item.evidence,
        event_at=item.event_at,
        stated_at=item.stated_at,
        expires_at=format_time(expires) if expires else None,
        tags=tuple(item.tags),
        entities=tuple(p.id for p in plan),
        context=item.context,
        said_by=item.said_by,
    )

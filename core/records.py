"""Record statements that run inside a caller's transaction.

Each takes the connection explicitly, so the ingestor and the importer can compose several into
one ``Store.transaction()``: a record, its vector, FTS row, links, tags, audit event and the
records_version bump always commit together or not at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from core.errors import StoreError
from core.models import (
    EmbedderIdentity,
    MemoryType,
    Procedure,
    Record,
    Scope,
    SourceKind,
    Status,
    format_time,
)


@dataclass(frozen=True, slots=True)
class NewRecord:
    """A record ready to insert, with its vector (its linked entities are ``record.entities``)."""

    record: Record
    vector: np.ndarray | None


def append_event(
    conn: sqlite3.Connection,
    *,
    kind: str,
    at: datetime,
    record_id: str | None = None,
    agent_id: str | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    """Append one audit event. The events table refuses updates and deletes."""
    conn.execute(
        "INSERT INTO events (at, kind, record_id, agent_id, payload) VALUES (?, ?, ?, ?, ?)",
        (format_time(at), kind, record_id, agent_id, json.dumps(payload or {}, sort_keys=True)),
    )


def bump_records_version(conn: sqlite3.Connection, rowids: Iterable[int]) -> int:
    """Record that these records changed; returns the new records_version."""
    version = int(
        conn.execute("SELECT value FROM meta WHERE key = 'records_version'").fetchone()[0]
    )
    for rowid in rowids:
        version += 1
        conn.execute(
            "INSERT INTO record_changes (version, record_rowid) VALUES (?, ?)", (version, rowid)
        )
    conn.execute("UPDATE meta SET value = ? WHERE key = 'records_version'", (str(version),))
    return version


def record_alias_text(conn: sqlite3.Connection, rowid: int) -> str:
    """The entity alias text FTS indexes beside a record: the aliases of its linked entities
    in the record's own scope. A record may link to an entity in another scope its writer can
    read (a project note about a person in the user's scope), but that entity's aliases belong
    to the other scope: indexed beside the record they would let anyone who reads only the
    record's scope find it by a name they were never given (and, after a merge there, by every
    alias added to it). Read after the record's entity links are written."""
    rows = conn.execute(
        "SELECT a.alias FROM record_entities AS l JOIN records AS r ON r.rowid = l.record_rowid "
        "JOIN entities AS e ON e.id = l.entity_id AND e.scope = r.scope "
        "JOIN entity_aliases AS a ON a.entity_id = e.id "
        "WHERE l.record_rowid = ? ORDER BY a.alias",
        (rowid,),
    ).fetchall()
    return " ".join(row[0] for row in rows)


def insert_record(
    conn: sqlite3.Connection,
    item: NewRecord,
    *,
    embedder: EmbedderIdentity | None,
    now: datetime,
    event_kind: str = "record.created",
) -> int:
    """Insert one record with its vector, FTS row, entity links and tags; bump the version and
    append the audit event. Returns the rowid."""
    r = item.record
    scope = Scope.parse(r.scope)
    cursor = conn.execute(
        """
        INSERT INTO records (
            id, type, version, lineage_id, content, subject_entity_id, attribute, subject,
            procedure, scope_kind, scope, source_kind, source_ref, creator_agent_id, session_id,
            evidence, created_at, updated_at, event_at, expires_at, valid_from, valid_until,
            review_at, review_flagged_at, confidence, status, supersedes_id, conflicts_with, tags,
            context, stated_at
        ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                  ?, ?, ?, ?)
        """,
        (
            r.id,
            r.type.value,
            r.version,
            r.lineage_id or r.id,
            r.content,
            r.subject_entity_id,
            r.attribute,
            r.subject,
            json.dumps(r.procedure.to_json()) if r.procedure else None,
            scope.kind.value,
            r.scope,
            r.source_kind.value,
            r.source_ref,
            r.creator_agent_id,
            r.session_id,
            r.evidence,
            r.created_at,
            r.created_at,
            r.event_at,
            r.expires_at,
            r.valid_from,
            r.valid_until,
            r.review_at,
            r.review_flagged_at,
            r.confidence,
            r.status.value,
            r.supersedes_id,
            json.dumps(list(r.conflicts_with)),
            json.dumps(list(r.tags)),
            r.context,
            r.stated_at or r.created_at,
        ),
    )
    rowid = int(cursor.lastrowid or 0)
    conn.executemany(
        "INSERT OR IGNORE INTO record_tags (record_rowid, tag) VALUES (?, ?)",
        [(rowid, tag) for tag in r.tags],
    )
    for entity_id in r.entities:
        role = "subject" if entity_id == r.subject_entity_id else "mention"
        conn.execute(
            "INSERT OR IGNORE INTO record_entities (record_rowid, entity_id, role) "
            "VALUES (?, ?, ?)",
            (rowid, entity_id, role),
        )
    conn.execute(
        "INSERT INTO records_fts (rowid, content, subject, aliases, context) "
        "VALUES (?, ?, ?, ?, ?)",
        (rowid, fts_content(r), r.subject or "", record_alias_text(conn, rowid), r.context or ""),
    )
    if item.vector is not None:
        if embedder is None:
            raise StoreError("a vector needs the identity of the embedder that made it")
        vector = np.ascontiguousarray(item.vector, dtype=np.float32)
        if vector.shape != (embedder.dims,):
            raise StoreError(f"vector shape {vector.shape} does not match {embedder}")
        conn.execute(
            "INSERT INTO embeddings (record_rowid, model_name, model_version, dims, vector) "
            "VALUES (?, ?, ?, ?, ?)",
            (rowid, embedder.name, embedder.version, embedder.dims, vector.tobytes()),
        )
    bump_records_version(conn, [rowid])
    append_event(
        conn,
        kind=event_kind,
        at=now,
        record_id=r.id,
        agent_id=r.creator_agent_id,
        payload={
            "type": r.type.value,
            "scope": r.scope,
            "status": r.status.value,
            "source_kind": r.source_kind.value,
        },
    )
    return rowid


def embedding_text(record: Record) -> str:
    """The text a record's vector is made from: its content, preceded for a procedure by its
    name and when it applies (design §3: dense on description), otherwise followed by its
    retrieval context if it has one. The content comes first so that the embedder's
    truncation (256 tokens for MiniLM) cuts context, never the record itself."""
    if record.procedure is not None:
        return f"{record.procedure.name}: {record.procedure.when}\n{record.content}"
    if record.context:
        return f"{record.content}\n{record.context}"
    return record.content


def fts_content(record: Record) -> str:
    """The text the lexical index sees for a record: its content, and for procedures also
    the name, trigger, steps and pitfalls (design §3: lexical on name and trigger)."""
    if record.procedure is None:
        return record.content
    p = record.procedure
    return "\n".join([record.content, p.name, p.when, *p.steps, *p.pitfalls])


RECORD_SELECT = """
    SELECT r.*,
           (SELECT json_group_array(entity_id) FROM record_entities
             WHERE record_rowid = r.rowid) AS entity_ids
      FROM records AS r
"""


def select_records(
    conn: sqlite3.Connection, where: str, params: Sequence[Any] = ()
) -> list[Record]:
    """Records matching an SQL condition on ``r`` (the records table), with their entity ids.
    Usable inside a transaction."""
    cursor = conn.execute(f"{RECORD_SELECT} WHERE {where}", tuple(params))
    names = [column[0] for column in cursor.description]
    # Plain rows zipped into dicts: sqlite3.Row finds a column by scanning the names, ~0.45 us
    # a lookup here, 33 per record; a search builds ~60 records (row_to_record 32 -> 14 us).
    return [row_to_record(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


_TYPES = {t.value: t for t in MemoryType}
_SOURCE_KINDS = {k.value: k for k in SourceKind}
_STATUSES = {s.value: s for s in Status}


def row_to_record(row: Mapping[str, Any] | sqlite3.Row) -> Record:
    procedure = None
    if row["procedure"]:
        p = json.loads(row["procedure"])
        procedure = Procedure(p["name"], p["when"], tuple(p["steps"]), tuple(p["pitfalls"]))
    return Record(
        id=row["id"],
        rowid=row["rowid"],
        type=_TYPES[row["type"]],
        version=row["version"],
        lineage_id=row["lineage_id"],
        content=row["content"],
        subject_entity_id=row["subject_entity_id"],
        attribute=row["attribute"],
        subject=row["subject"],
        procedure=procedure,
        scope=row["scope"],
        source_kind=_SOURCE_KINDS[row["source_kind"]],
        source_ref=row["source_ref"],
        creator_agent_id=row["creator_agent_id"],
        session_id=row["session_id"],
        evidence=row["evidence"],
        created_at=row["created_at"],
        event_at=row["event_at"],
        expires_at=row["expires_at"],
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
        review_at=row["review_at"],
        review_flagged_at=row["review_flagged_at"],
        confidence=row["confidence"],
        status=_STATUSES[row["status"]],
        supersedes_id=row["supersedes_id"],
        conflicts_with=_json_tuple(row["conflicts_with"]),
        tags=_json_tuple(row["tags"]),
        entities=_json_tuple(row["entity_ids"]),
        context=row["context"],
        stated_at=row["stated_at"] or row["created_at"],
    )


def _json_tuple(text: str) -> tuple[Any, ...]:
    """A JSON array column as a tuple. Most are empty, and a search builds ~60 records: the
    empty case skips the JSON decoder (60 records: 2.3 -> 1.96 ms here)."""
    return () if text == "[]" else tuple(json.loads(text))

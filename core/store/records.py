"""Records: their rows, vectors, FTS rows, tags, entity links, and the one invariant.

**The invariant.** Any change to a record bumps ``meta.records_version`` (one
``record_changes`` row per changed record) and appends its audit event in the same
transaction: that is the durable delta other processes' vector and text indexes replay.
``changed`` is its one home; every statement here that changes a record ends with it.

The statement functions take the connection explicitly, so the ingestor and the importer can
compose several into one ``Store.transaction()``: a record, its vector, FTS row, links, tags,
audit event and the records_version bump always commit together or not at all.
``RecordsMixin`` is the Store's own record methods (insert, read, tombstone); the lifecycle
sweeps (expiry, reviews) are ``store.sweeps``.

A second backend implements: ``insert_record``, ``select_records``, ``changed``, the write
path's changes (``supersede``, ``reinforce``, ``insert_into_lineage``) and the methods of
RecordsMixin.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_memory.core import events
from agent_memory.core.errors import StoreError
from agent_memory.core.models import (
    EmbedderIdentity,
    MemoryType,
    Procedure,
    Record,
    Scope,
    SourceKind,
    Status,
    format_time,
)
from agent_memory.core.store.base import StoreBase, mark_purge_pending
from agent_memory.core.store.blobs import passages_blob
from agent_memory.core.store.log import append

if TYPE_CHECKING:
    from agent_memory.core.filters import RecordFilter


@dataclass(frozen=True, slots=True)
class NewRecord:
    """A record ready to insert, with its vectors (its linked entities: ``record.entities``)."""

    record: Record
    vector: np.ndarray | None
    passages: np.ndarray | None = None  # one row per passage (core.passages), or none


def changed(
    conn: sqlite3.Connection, rowids: Sequence[int], *happened: events.Event, at: datetime
) -> int:
    """The invariant's one home: inside the caller's transaction, record that ``rowids``
    changed (bumping records_version once per record) and append the events of the change.
    Returns the records_version after it."""
    version = bump_records_version(conn, rowids) if rowids else _version(conn)
    for event in happened:
        append(conn, event, at=at)
    return version


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key = 'records_version'").fetchone()[0])


def bump_records_version(conn: sqlite3.Connection, rowids: Iterable[int]) -> int:
    """Record that these records changed; returns the new records_version. (Call
    ``changed``, which also appends the change's event.)"""
    version = _version(conn)
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
        f"""
        INSERT INTO records (
            id, type, version, lineage_id, content, subject_entity_id, attribute, subject,
            procedure, scope_kind, scope, source_kind, source_ref, creator_agent_id, session_id,
            evidence, created_at, updated_at, event_at, expires_at, valid_from, valid_until,
            review_at, review_flagged_at, confidence, status, supersedes_id, conflicts_with, tags,
            context, stated_at, said_by
        ) VALUES ({", ".join("?" * 32)})
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
            r.statement_time,
            r.said_by,
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
        if (parts := item.passages) is not None and parts.shape[1:] != (embedder.dims,):
            raise StoreError(f"passage vectors of shape {parts.shape} do not match {embedder}")
        row = (rowid, embedder.name, embedder.version, embedder.dims, vector.tobytes())
        conn.execute(
            "INSERT INTO embeddings (record_rowid, model_name, model_version, dims, vector, "
            "passages) VALUES (?, ?, ?, ?, ?, ?)",
            (*row, passages_blob(parts)),
        )
    created = _CREATED[event_kind](
        record_id=r.id,
        agent_id=r.creator_agent_id,
        type=r.type.value,
        scope=r.scope,
        status=r.status.value,
        source_kind=r.source_kind.value,
    )
    changed(conn, [rowid], created, at=now)
    return rowid


# The event a new record's insert appends, by the kind the caller names.
_CREATED: dict[str, type[events.RecordCreated]] = {
    events.RecordCreated.kind: events.RecordCreated,
    events.RecordImported.kind: events.RecordImported,
}


# -- the write path's changes (core.write), each inside the caller's transaction --------------


def insert_into_lineage(
    conn: sqlite3.Connection,
    lineage_id: str,
    *,
    at_version: int,
    history_id: str,
    next_rowid: int,
    moved: Sequence[int],
    now: datetime,
) -> None:
    """Make room for the history record ``history_id`` at ``at_version`` of a lineage: the
    versions from there on move up one (``moved``, their rowids) and the one at
    ``next_rowid`` now supersedes it. The history record itself is inserted after."""
    conn.execute(
        "UPDATE records SET version = version + 1, updated_at = ? "
        "WHERE lineage_id = ? AND version >= ?",
        (format_time(now), lineage_id, at_version),
    )
    conn.execute("UPDATE records SET supersedes_id = ? WHERE rowid = ?", (history_id, next_rowid))
    changed(conn, moved, at=now)


def supersede(
    conn: sqlite3.Connection, rowid: int, superseded: events.RecordSuperseded, *, now: datetime
) -> None:
    """Retire the record at ``rowid`` as superseded (``superseded.by`` names its successor)."""
    conn.execute(
        "UPDATE records SET status = 'superseded', updated_at = ? WHERE rowid = ?",
        (format_time(now), rowid),
    )
    changed(conn, [rowid], superseded, at=now)


def reinforce(
    conn: sqlite3.Connection,
    rowid: int,
    reinforced: events.RecordReinforced,
    *,
    confidence: float,
    status: Status,
    source_kind: SourceKind,
    evidence: str | None,
    expires_at: str | None,
    stated_at: str,
    now: datetime,
) -> None:
    """Count one more observation of the record at ``rowid`` (``reinforced`` is its event)
    with its new confidence, status, source kind, evidence, expiry and statement time."""
    conn.execute(
        "UPDATE records SET confidence = ?, status = ?, source_kind = ?, evidence = ?, "
        "expires_at = ?, stated_at = ?, observations = observations + 1, updated_at = ? "
        "WHERE rowid = ?",
        (
            confidence,
            status.value,
            source_kind.value,
            evidence,
            expires_at,
            stated_at,
            format_time(now),
            rowid,
        ),
    )
    changed(conn, [rowid], reinforced, at=now)


def comparison_text(record: Record) -> str:
    """The text that says what a record states: ``embedding_text`` without the retrieval
    context. The write path compares records by it (duplicates, contradictions, corrections),
    so that two records of one turn, which share its words as context, are not taken for the
    same statement (core.write.dedup.content_scored)."""
    if record.procedure is not None:
        return f"{record.procedure.name}: {record.procedure.when}\n{record.content}"
    return record.content


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
    return "\n".join([record.content, *record.procedure.parts()])


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
    # Plain rows zipped into dicts: sqlite3.Row finds a column by scanning the names, 33
    # lookups a record and dozens of records a search (benchmarks/README.md, "Figures moved
    # from code comments").
    return [row_to_record(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]


def record_at(conn: sqlite3.Connection, rowid: int) -> Record:
    """The record stored at ``rowid``, whatever its status (it must exist). Usable inside a
    transaction."""
    (record,) = select_records(conn, "r.rowid = ?", (rowid,))
    return record


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
        said_by=row["said_by"],
    )


def _json_tuple(text: str) -> tuple[Any, ...]:
    """A JSON array column as a tuple; most are empty, and that case skips the decoder."""
    return () if text == "[]" else tuple(json.loads(text))


class RecordsMixin(StoreBase):
    """The Store's record methods: each is one transaction (or one read)."""

    def insert_records(
        self,
        items: Iterable[NewRecord],
        *,
        embedder: EmbedderIdentity | None,
        now: datetime,
        event_kind: str = "record.created",
    ) -> list[int]:
        """Insert records with their vectors, FTS rows, tags, events and the records_version
        bump, all in one transaction. Returns the new rowids in input order."""
        items = list(items)
        with self.transaction() as conn:
            return [
                insert_record(conn, item, embedder=embedder, now=now, event_kind=event_kind)
                for item in items
            ]

    def get_records(self, ids: Sequence[str]) -> dict[str, Record]:
        """Records by public id (any status). Missing ids are absent from the result."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self._lock:
            found = select_records(self._connection(), f"r.id IN ({marks})", list(ids))
        return {r.id: r for r in found}

    def records_by_rowid(self, rowids: Sequence[int]) -> dict[int, Record]:
        """Records by internal rowid (any status)."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        with self._lock:
            found = select_records(
                self._connection(), f"r.rowid IN ({marks})", [int(r) for r in rowids]
            )
        return {int(r.rowid or 0): r for r in found}

    def with_context(self, rowids: Sequence[int]) -> set[int]:
        """Those of ``rowids`` whose record has retrieval context (one rowid-only read)."""
        if not rowids:
            return set()
        marks = ",".join("?" * len(rowids))
        rows = self.query(
            f"SELECT rowid FROM records WHERE rowid IN ({marks}) AND context IS NOT NULL",
            [int(r) for r in rowids],
        )
        return {int(row["rowid"]) for row in rows}

    def last_rowid(self) -> int:
        """The rowid of the newest record (0 in an empty store): what a write has seen, so
        that it can look among the records added after it (core.write.dedup.committed_since)."""
        rows = self.query("SELECT coalesce(max(rowid), 0) AS m FROM records")
        return int(rows[0]["m"])

    def ids_by_rowid(self, rowids: Sequence[int]) -> dict[int, str]:
        """Public ids by rowid (any status); a rowid with no record is absent."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        with self._lock:
            rows = self._connection().execute(
                f"SELECT rowid, id FROM records WHERE rowid IN ({marks})", list(rowids)
            )
            return dict(rows.fetchall())

    def rowids_by_id(self, ids: Sequence[str]) -> dict[str, int]:
        """Rowids by public id (any status); an id with no record is absent."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._connection().execute(
                f"SELECT id, rowid FROM records WHERE id IN ({marks})", list(ids)
            )
            return dict(rows.fetchall())

    def ids_passing(self, rowids: Sequence[int], where: RecordFilter) -> dict[int, str]:
        """Of ``rowids``, those whose current row passes ``where``, with their public ids."""
        condition, params = where.sql("r")
        marks = ",".join("?" * len(rowids))
        with self._lock:
            rows = self._connection().execute(
                f"SELECT r.rowid, r.id FROM records AS r WHERE r.rowid IN ({marks}) "
                f"AND {condition}",
                [*rowids, *params],
            )
            return dict(rows.fetchall())

    def count_live(self) -> int:
        """How many records are not tombstones."""
        rows = self.query("SELECT count(*) AS n FROM records WHERE status != 'deleted'")
        return int(rows[0]["n"])

    def lineage_ids(self, record_id: str) -> list[str]:
        """The ids of the versions of ``record_id``'s lineage in its scope that are not
        tombstones, oldest first."""
        rows = self.query(
            "SELECT v.id FROM records AS r JOIN records AS v ON v.lineage_id = r.lineage_id "
            "AND v.scope = r.scope WHERE r.id = ? AND v.status != 'deleted' ORDER BY v.version",
            (record_id,),
        )
        return [r["id"] for r in rows]

    def tombstone(
        self,
        record_id: str,
        *,
        reason: str | None,
        agent_id: str | None,
        now: datetime,
        before: Callable[[sqlite3.Connection, int], object] | None = None,
        purge: bool = True,
    ) -> bool:
        """Forget a record: status deleted; content, evidence, FTS row, tags, embedding and the
        words quoted in its write_log rows erased, in one transaction; then the WAL is
        checkpointed so no copy survives in either file. The audit event keeps the id and the
        reason, never the content. Returns False when there is no such live record.

        ``before(conn, rowid)`` runs in the same transaction while the record still holds its
        content (core.erasure leaves its suppression and redacts its evidence turns there).
        ``purge`` False leaves the FTS merge and the checkpoint to one ``purge()`` after a
        batch (the purge-pending mark is committed with the tombstone either way)."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT rowid FROM records WHERE id = ? AND status != 'deleted'", (record_id,)
            ).fetchone()
            if row is None:
                return False
            rowid = row[0]
            if before is not None:
                before(conn, rowid)
            conn.execute(
                "UPDATE records SET status = 'deleted', content = '', evidence = NULL, "
                "attribute = NULL, subject = NULL, procedure = NULL, source_ref = NULL, "
                "tags = '[]', conflicts_with = '[]', context = NULL, updated_at = ? "
                "WHERE rowid = ?",
                (format_time(now), rowid),
            )
            conn.execute("DELETE FROM records_fts WHERE rowid = ?", (rowid,))
            # Its vectors, also those a re-embedding staged; its tags; an item's value.
            for table in ("embeddings", "embeddings_staging", "record_tags", "items"):
                conn.execute(f"DELETE FROM {table} WHERE record_rowid = ?", (rowid,))
            # The write log quotes what was written; keep the decision, erase the words.
            conn.execute(
                "UPDATE write_log SET payload = json_set(payload, '$.request.content', "
                "'[forgotten]', '$.request.evidence', NULL, '$.request.attribute', NULL) "
                "WHERE record_id = ?",
                (record_id,),
            )
            mark_purge_pending(conn, now)
            forgotten = events.RecordForgotten(
                record_id=record_id, agent_id=agent_id, reason=reason
            )
            changed(conn, [rowid], forgotten, at=now)
        if purge:
            self._purge_freed_content()
        return True

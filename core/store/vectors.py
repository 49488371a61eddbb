"""Vectors: the embeddings table, the embedder that made them, and re-embedding.

The vector index (core.index) builds itself from ``index_snapshot`` and catches up with
``index_delta`` (the records changed since a version, core.store.records' invariant). The
store remembers which embedder made its vectors; another one is refused until ``agent-memory
reembed`` stages new vectors and swaps them in, in one transaction with a new epoch.

A second backend implements VectorsMixin's methods (the dataclasses are the answers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_memory.core import events
from agent_memory.core.errors import EmbedderMismatchError
from agent_memory.core.models import EmbedderIdentity, MemoryType, Status
from agent_memory.core.store.base import StoreBase, changed_since, epoch_and_version, rows_in
from agent_memory.core.store.blobs import passage_matrix, passages_blob, vector_blob
from agent_memory.core.store.log import append
from agent_memory.core.store.records import RECORD_SELECT, embedding_text, row_to_record

if TYPE_CHECKING:
    from agent_memory.core.passages import Embedded


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One record as the vector index holds it: its vector and the fields the hard filter
    reads (scope, status, type, event time = event_at or else created_at, expires_at, which
    decides whether a provisional record has lapsed at the filter's ``now``, and whether it
    holds the assistant's own words: core.models.Record.said_by)."""

    vector: np.ndarray
    scope: str
    status: Status
    type: MemoryType
    time: str
    expires_at: str | None = None
    passages: np.ndarray | None = None  # (passages, dims): core.passages; None when it has none
    said: bool = False


@dataclass(frozen=True, slots=True)
class IndexDelta:
    """What a vector index must apply to catch up with the store."""

    epoch: str
    records_version: int
    # rowid -> its entry, or None when the record no longer has a searchable vector.
    changes: dict[int, IndexEntry | None]


@dataclass(frozen=True, slots=True)
class IndexSnapshot:
    """Every stored vector with its filter fields, as columns, and the version they reflect."""

    epoch: str
    records_version: int
    rowids: np.ndarray
    matrix: np.ndarray
    scopes: list[str]
    statuses: list[Status]
    types: list[MemoryType]
    times: list[str]
    expires: list[str | None]
    said: list[bool]
    passages: dict[int, np.ndarray]  # rowid -> its passages' vectors, for those that have some


def vectors_of(
    conn: sqlite3.Connection, rowids: Sequence[int], embedder: EmbedderIdentity
) -> list[tuple[int, np.ndarray]]:
    """Inside the caller's transaction: the ``embedder`` vectors of the records at ``rowids``
    (a handful: one statement), as (rowid, vector); a record without one is left out."""
    if not rowids:
        return []
    rows = conn.execute(
        "SELECT record_rowid, vector FROM embeddings WHERE model_name = ? "
        f"AND model_version = ? AND record_rowid IN ({', '.join('?' * len(rowids))})",
        (embedder.name, embedder.version, *rowids),
    ).fetchall()
    return [(rowid, np.frombuffer(blob, np.float32)) for rowid, blob in rows]


class VectorsMixin(StoreBase):
    """The Store's vectors and the identity of the embedder that made them."""

    # -- embedder identity -----------------------------------------------------------------

    def stored_embedder(self) -> EmbedderIdentity | None:
        """The model the store's vectors were made with, or None for a store with none yet."""
        rows = self.query(
            "SELECT key, value FROM meta WHERE key IN "
            "('embedder.name', 'embedder.version', 'embedder.dims')"
        )
        values = {row["key"]: row["value"] for row in rows}
        if len(values) < 3:
            return None
        return EmbedderIdentity(
            values["embedder.name"], values["embedder.version"], int(values["embedder.dims"])
        )

    def bind_embedder(self, identity: EmbedderIdentity, *, now: datetime) -> None:
        """Check that ``identity`` made this store's vectors, or adopt it for a store that has
        none. Raises EmbedderMismatchError naming ``agent-memory reembed`` otherwise. A
        read-only store is only checked (it adopts nothing)."""
        if self.read_only:
            stored = self.stored_embedder()
            if stored is not None and stored != identity and self._has_vectors():
                raise EmbedderMismatchError(
                    path=str(self.path), stored=str(stored), configured=str(identity)
                )
            return
        with self.transaction() as conn:
            stored = self.stored_embedder()
            if stored == identity:
                return
            has_vectors = conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone() is not None
            if stored is not None and has_vectors:
                raise EmbedderMismatchError(
                    path=str(self.path), stored=str(stored), configured=str(identity)
                )
            _set_embedder(conn, identity)
            bound = events.StoreEmbedderBound(
                embedder=identity_json(identity), previous=identity_json(stored)
            )
            append(conn, bound, at=now)

    def _has_vectors(self) -> bool:
        return bool(self.query("SELECT 1 FROM embeddings LIMIT 1"))

    # -- the vector index ------------------------------------------------------------------

    def index_snapshot(self) -> IndexSnapshot:
        """Everything a vector index needs to build itself: every stored vector (deleted
        records have none) with its filter fields, and the version they reflect."""
        with self.reading() as conn:
            epoch, version = epoch_and_version(conn)
            identity = self.stored_embedder()
            rows = conn.execute(f"{_INDEX_SELECT} ORDER BY e.record_rowid").fetchall()
        dims = identity.dims if identity else 0
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        matrix = matrix.reshape(len(rows), dims) if dims else matrix.reshape(0, 0)
        return IndexSnapshot(
            epoch,
            version,
            rowids,
            matrix,
            scopes=[r[2] for r in rows],
            statuses=[Status(r[3]) for r in rows],
            types=[MemoryType(r[4]) for r in rows],
            times=[r[5] for r in rows],
            expires=[r[6] for r in rows],
            said=[r[8] is not None for r in rows],
            passages={r[0]: passage_matrix(r[7], dims) for r in rows if r[7] is not None},
        )

    def index_delta(self, since_version: int) -> IndexDelta:
        """The vectors added, changed or removed since ``since_version``."""
        with self.reading() as conn:
            epoch, version = epoch_and_version(conn)
            changes: dict[int, IndexEntry | None] = {}
            if version > since_version:
                rowids = changed_since(conn, since_version)
                changes = dict.fromkeys(rowids)
                for row in rows_in(conn, f"{_INDEX_SELECT} WHERE e.record_rowid", rowids):
                    vector = np.frombuffer(row[1], np.float32)
                    changes[row[0]] = IndexEntry(
                        vector,
                        row[2],
                        Status(row[3]),
                        MemoryType(row[4]),
                        row[5],
                        row[6],
                        None if row[7] is None else passage_matrix(row[7], len(vector)),
                        said=row[8] is not None,
                    )
        return IndexDelta(epoch, version, changes)

    # -- re-embedding ------------------------------------------------------------------------

    def unstaged_texts(self, *, limit: int) -> list[tuple[int, str, str]]:
        """Up to ``limit`` records (not deleted) that have no re-embedded vector staged yet,
        as (rowid, the text their vector is made from, their content: core.passages)."""
        rows = self.query(
            f"{RECORD_SELECT} WHERE r.status != 'deleted' AND r.rowid NOT IN "
            "(SELECT record_rowid FROM embeddings_staging) ORDER BY r.rowid LIMIT ?",
            (limit,),
        )
        unstaged = []
        for row in rows:
            record = row_to_record(row)
            unstaged.append((row["rowid"], embedding_text(record), record.content))
        return unstaged

    def stage_vectors(self, rowids: Sequence[int], embedded: Sequence[Embedded]) -> None:
        """Keep re-embedded vectors (and passages) aside until ``swap_staged_vectors``."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings_staging (record_rowid, vector, passages) "
                "VALUES (?, ?, ?)",
                [
                    (int(rowid), vector_blob(e.vector), passages_blob(e.passages))
                    for rowid, e in zip(rowids, embedded, strict=True)
                ],
            )

    def clear_staged_vectors(self) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM embeddings_staging")

    def swap_staged_vectors(self, identity: EmbedderIdentity, *, now: datetime) -> int | None:
        """Replace every vector with its staged one and record the new embedder, atomically.
        Returns the number swapped, or None (and changes nothing) when a record written since
        staging began still lacks a staged vector: stage it and call again."""
        with self.transaction() as conn:
            missing = conn.execute(
                "SELECT count(*) FROM records WHERE status != 'deleted' AND rowid NOT IN "
                "(SELECT record_rowid FROM embeddings_staging)"
            ).fetchone()[0]
            if missing:
                return None
            previous = self.stored_embedder()
            conn.execute("DELETE FROM embeddings")
            swapped = conn.execute(
                "INSERT INTO embeddings "
                "(record_rowid, model_name, model_version, dims, vector, passages) "
                "SELECT s.record_rowid, ?, ?, ?, s.vector, s.passages FROM embeddings_staging AS s "
                "JOIN records AS r ON r.rowid = s.record_rowid WHERE r.status != 'deleted'",
                (identity.name, identity.version, identity.dims),
            ).rowcount
            conn.execute("DELETE FROM embeddings_staging")
            _set_embedder(conn, identity)
            self.new_epoch(conn)
            reembedded = events.StoreReembedded(
                embedder=identity_json(identity), previous=identity_json(previous), records=swapped
            )
            append(conn, reembedded, at=now)
        return swapped


_INDEX_SELECT = """
    SELECT e.record_rowid, e.vector, r.scope, r.status, r.type,
           coalesce(r.event_at, r.created_at), r.expires_at, e.passages, r.said_by
      FROM embeddings AS e JOIN records AS r ON r.rowid = e.record_rowid
"""


def _set_embedder(conn: sqlite3.Connection, identity: EmbedderIdentity) -> None:
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [
            ("embedder.name", identity.name),
            ("embedder.version", identity.version),
            ("embedder.dims", str(identity.dims)),
        ],
    )


def identity_json(identity: EmbedderIdentity | None) -> dict[str, Any] | None:
    if identity is None:
        return None
    return {"name": identity.name, "version": identity.version, "dims": identity.dims}


__all__ = [
    "IndexDelta",
    "IndexEntry",
    "IndexSnapshot",
    "VectorsMixin",
    "identity_json",
]

"""The store: the only package that runs SQL (one SQLite file, the source of truth).

``Store`` is the interface the rest of the library calls; a second backend implements the
same methods. It is assembled from one mixin per area, each documented in its module:

- ``base``: the connection, ``transaction()`` (the one write transaction, BEGIN IMMEDIATE),
  ``reading()`` (one read snapshot), meta, the epoch and records_version, purging freed text;
- ``records``: insert, read, tombstone, supersede and reinforce records, and renumber a
  lineage; ``changed`` is the one home of the invariant: every record change bumps
  records_version and appends its audit event in the same transaction; ``sweeps``: expire
  provisional records and flag due reviews;
- ``vectors``: the embeddings, the embedder identity, the vector index's snapshot and delta,
  re-embedding; ``fulltext``: the FTS5 index's snapshot, delta, document counts, postings;
- ``grants``; ``log`` (the audit events, the search and write logs, retention); and the
  statement modules over a caller's transaction: ``entities``, ``sessions`` (and their
  turns), ``jobs``, ``erasure``, and for the write path (core.write) ``write_reads`` (the
  records a write looks at), ``keys`` (idempotency and import keys) and ``observations``
  (see each);
- ``connection`` (opening, checking and migrating a file) and ``migrations`` (the schema,
  ``initial_schema`` its first version) belong to this SQLite backend only.

``Store.query`` (one raw read statement) remains for the modules that still compose their own
SQL (tests/test_architecture.py lists them); it is not part of the interface.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_memory.core import events
from agent_memory.core.errors import InvalidArgument, SchemaVersionError, StoreError
from agent_memory.core.models import MemoryType, Status
from agent_memory.core.store import connection
from agent_memory.core.store.base import PURGE_WAIT_MS, epoch_and_version
from agent_memory.core.store.connection import (
    DEFAULT_BUSY_TIMEOUT_MS,
    connect,
    migrate,
    schema_version,
)
from agent_memory.core.store.fulltext import (
    FullTextMixin,
    Postings,
    TextIndexDelta,
    TextIndexSnapshot,
)
from agent_memory.core.store.grants import GrantsMixin
from agent_memory.core.store.log import LogMixin, append
from agent_memory.core.store.migrations import LATEST_VERSION
from agent_memory.core.store.records import NewRecord, RecordsMixin
from agent_memory.core.store.sweeps import SweepsMixin
from agent_memory.core.store.vectors import (
    IndexDelta,
    IndexEntry,
    IndexSnapshot,
    VectorsMixin,
    identity_json,
)


class Store(RecordsMixin, SweepsMixin, VectorsMixin, FullTextMixin, GrantsMixin, LogMixin):
    """A SQLite store file. Thread-safe within a process; many processes may open one file."""

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        initialise: bool = False,
        read_only: bool = False,
    ) -> Store:
        """Open (creating and migrating as needed) the store at ``path``. A file that is not
        a store (corrupt, another application's SQLite database unless ``initialise``,
        read-only) is refused with StoreError before anything changes (core.store.connection).
        ``read_only``: see ``open_read_only``."""
        path = Path(path)
        if read_only:
            if initialise:
                raise StoreError("a store opened read-only cannot be initialised")
            return cls.open_read_only(path, busy_timeout_ms=busy_timeout_ms)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create the folder of the store {path}: {exc.strerror}"
            ) from None
        connection.check(path, initialise=initialise)
        try:
            conn = connect(path, busy_timeout_ms=busy_timeout_ms)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the store {path}: {exc}") from None
        try:
            migrate(conn, path=str(path))
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreError(f"cannot open the store {path}: {exc}") from None
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    @classmethod
    def open_read_only(cls, path: Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS) -> Store:
        """Open an existing store so that nothing is written to it: no migration, and every
        ``transaction`` raises ReadOnlyStoreError. A store of an older schema is refused (it
        must be migrated on writable storage first), one of a newer schema too."""
        connection.check_read_only(path)
        try:
            conn = connection.connect_read_only(path, busy_timeout_ms=busy_timeout_ms)
            version = schema_version(conn)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open the store {path} read-only: {exc}") from None
        if version != LATEST_VERSION:
            conn.close()
            if version > LATEST_VERSION:
                raise SchemaVersionError(
                    path=str(path), store_version=version, known_version=LATEST_VERSION
                )
            raise StoreError(
                f"cannot open the store {path} read-only: its schema (version {version}) is "
                f"older than this agent-memory's ({LATEST_VERSION}) and a read-only store "
                "cannot be migrated; open it once on writable storage to migrate it first"
            )
        return cls(conn, path, read_only=True)

    @property
    def schema_version(self) -> int:
        return schema_version(self._connection())

    def snapshot(self, destination: str | Path) -> Path:
        """Copy the whole store, consistently, to a new file (SQLite backup API)."""
        destination = Path(destination)
        if destination.exists():
            raise InvalidArgument(f"{destination} already exists; choose a new file", field="path")
        try:
            destination.parent.mkdir(parents=True, exist_ok=True)
            target = sqlite3.connect(str(destination))
        except (OSError, sqlite3.Error) as exc:
            raise InvalidArgument(
                f"cannot write the snapshot to {destination}: {_reason(exc)}", field="path"
            ) from None
        try:
            with self._lock:
                self._connection().backup(target)
        except sqlite3.Error as exc:
            raise InvalidArgument(
                f"cannot write the snapshot to {destination}: {_reason(exc)}", field="path"
            ) from None
        finally:
            target.close()
        return destination

    def restore(self, source: str | Path, *, now: datetime) -> None:
        """Replace this store's whole content with a snapshot's. Every process's vector index
        notices the new epoch and rebuilds before its next search."""
        source = Path(source)
        if not source.is_file():
            raise InvalidArgument(f"snapshot {source} does not exist", field="path")
        origin = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            try:
                version = schema_version(origin)
            except sqlite3.DatabaseError as exc:
                raise InvalidArgument(
                    f"{source} is not an agent-memory snapshot: {exc}", field="path"
                ) from None
            if version > LATEST_VERSION:
                raise SchemaVersionError(
                    path=str(source), store_version=version, known_version=LATEST_VERSION
                )
            with self._lock:
                origin.backup(self._connection())
        finally:
            origin.close()
        migrate(self._connection(), path=str(self.path))
        with self.transaction() as conn:
            self.new_epoch(conn)
            append(conn, events.StoreRestored(source=str(source)), at=now)

    def stats(self) -> dict[str, Any]:
        """Counts and identities, for `agent-memory stats` and the quickstart."""
        with self.reading() as conn:
            by_status = dict(conn.execute("SELECT status, count(*) FROM records GROUP BY status"))
            by_type = dict(
                conn.execute(
                    "SELECT type, count(*) FROM records WHERE status != 'deleted' GROUP BY type"
                )
            )
            scopes = conn.execute(
                "SELECT count(DISTINCT scope) FROM records WHERE status != 'deleted'"
            ).fetchone()[0]
            counts = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in (
                    "entities",
                    "grants",
                    "events",
                    "search_log",
                    "write_log",
                    "embeddings",
                )
            }
            epoch, version = epoch_and_version(conn)
        identity = self.stored_embedder()
        return {
            "path": str(self.path),
            "schema_version": self.schema_version,
            "records_version": version,
            "store_epoch": epoch,
            "records": sum(by_status.values()),
            "records_by_status": {s.value: by_status.get(s.value, 0) for s in Status},
            "records_by_type": {t.value: by_type.get(t.value, 0) for t in MemoryType},
            "scopes_with_records": scopes,
            **counts,
            "embedder": identity_json(identity),
            "file_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }


# ---------------------------------------------------------------------------------------------
# Migrations


def _reason(exc: BaseException) -> str:
    """An OS or SQLite error as a short phrase (no path repeated, no traceback)."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "PURGE_WAIT_MS",
    "IndexDelta",
    "IndexEntry",
    "IndexSnapshot",
    "NewRecord",
    "Postings",
    "Store",
    "TextIndexDelta",
    "TextIndexSnapshot",
    "connect",
    "migrate",
]

"""The store's core: one connection, its lock, the one write transaction and the one read
snapshot. Every other part of ``Store`` (records, vectors, full-text, grants, log) is a mixin
over this base, and every statement they run goes through ``transaction``, ``reading`` or
``query``.

Every write happens inside ``transaction``, which issues ``BEGIN IMMEDIATE`` so that a
read-then-write never fails with "database is locked" under concurrency (with plain BEGIN
most writes of a four-process test failed: benchmarks/README.md, "Figures moved from code
comments"). Never hold a transaction across an embedding or model call: compute
first, then write.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_memory.core.errors import ReadOnlyStoreError, StoreClosedError, StoreError
from agent_memory.core.models import format_time

# How long a purge waits for readers to end before it leaves the purge pending for the sweep.
PURGE_WAIT_MS = 250


class StoreBase:
    """A SQLite store file. Thread-safe within a process; many processes may open one file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, read_only: bool = False) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.read_only = read_only
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @property
    def closed(self) -> bool:
        return self._conn is None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError(f"the store {self.path} is closed")
        return self._conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``). Commits on success, rolls back on any
        exception. Transactions do not nest. On a read-only store, ReadOnlyStoreError: the
        one guard every write passes (sessions, tools, grants, imports, jobs, the search log).
        """
        with self._lock:
            conn = self._connection()
            if self.read_only:
                raise ReadOnlyStoreError(
                    f"the store {self.path} is open read-only; nothing was written"
                )
            if conn.in_transaction:
                raise StoreError("transactions do not nest; finish the open one first")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                # Also when COMMIT itself fails (a deferred constraint, a full disk): SQLite
                # may keep the transaction open, and this connection is shared. When it has
                # rolled back on its own already, there is nothing left to roll back.
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several reads (a deferred read transaction)."""
        with self._lock:
            conn = self._connection()
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        """Run one read statement and return all rows. (SQLite-only: for the modules that
        still compose their own statements; a second backend does not implement it.)"""
        with self._lock:
            cursor = self._connection().execute(sql, params)
            cursor.row_factory = sqlite3.Row
            return cursor.fetchall()

    # -- meta ------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    @property
    def records_version(self) -> int:
        return int(self.meta("records_version") or 0)

    def index_version(self) -> tuple[str, int]:
        """(store_epoch, records_version): cheap, read before every search."""
        with self._lock:
            return epoch_and_version(self._connection())

    def new_epoch(self, conn: sqlite3.Connection) -> None:
        """Inside a transaction: make every process rebuild its index from scratch."""
        conn.execute("UPDATE meta SET value = lower(hex(randomblob(8))) WHERE key = 'store_epoch'")

    # -- purging freed content ----------------------------------------------------------------

    def _purge_freed_content(self) -> bool:
        """Rewrite the FTS index without deleted entries and checkpoint the WAL into the
        (secure_delete) main file, so erased text is in neither file afterwards. Returns
        whether the checkpoint finished: a reader's snapshot keeps the WAL's old frames (and
        the text in them) until it ends; then the ``purge_pending`` mark, written with the
        tombstone, stays for ``retry_purge`` (the worker's sweep) to finish the job."""
        with self.transaction() as conn:
            conn.execute("INSERT INTO records_fts (records_fts) VALUES ('optimize')")
        if not self._checkpoint():
            return False
        with self.transaction() as conn:
            conn.execute("DELETE FROM meta WHERE key = 'purge_pending'")
        self._checkpoint()  # frames of the meta page alone: no erased text if it is busy
        return True

    def _checkpoint(self) -> bool:
        """One TRUNCATE checkpoint, waiting briefly for readers; whether it finished."""
        with self._lock:
            conn = self._connection()
            (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
            conn.execute(f"PRAGMA busy_timeout = {PURGE_WAIT_MS}")
            try:
                busy, frames, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
        return bool(busy == 0 and frames == done)

    def purge(self) -> bool:
        """Merge the FTS index and checkpoint the WAL now; whether the checkpoint finished."""
        return self._purge_freed_content()

    @property
    def purge_pending(self) -> bool:
        """Whether an erasure's text may still be in the WAL (see _purge_freed_content)."""
        return bool(self.query("SELECT 1 FROM meta WHERE key = 'purge_pending'"))

    def retry_purge(self) -> bool | None:
        """Finish a pending purge: None when none was pending, else whether it finished."""
        if not self.purge_pending:
            return None
        return self._purge_freed_content()


def mark_purge_pending(conn: sqlite3.Connection, now: datetime) -> None:
    """Inside an erasure's transaction: its text may stay in the WAL until a purge finishes."""
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_pending', ?)", (format_time(now),)
    )


def epoch_and_version(conn: sqlite3.Connection) -> tuple[str, int]:
    rows = dict(
        conn.execute("SELECT key, value FROM meta WHERE key IN ('store_epoch', 'records_version')")
    )
    return rows["store_epoch"], int(rows["records_version"])


def changed_since(
    conn: sqlite3.Connection, version: int, *, at_most: int | None = None
) -> list[int]:
    """The rowids of the records changed after ``version`` (the durable delta), at most
    ``at_most`` of them when given."""
    sql = "SELECT DISTINCT record_rowid FROM record_changes WHERE version > ?"
    params: tuple[int, ...] = (version,)
    if at_most is not None:
        sql, params = f"{sql} LIMIT ?", (version, at_most)
    return [r[0] for r in conn.execute(sql, params)]


def rows_in(conn: sqlite3.Connection, select: str, rowids: Sequence[int]) -> Iterator[Any]:
    """The rows of ``select`` (a statement ending in the rowid column it filters on) for
    ``rowids``, read in chunks of 500 so no statement has too many parameters."""
    for start in range(0, len(rowids), 500):
        chunk = rowids[start : start + 500]
        yield from conn.execute(f"{select} IN ({','.join('?' * len(chunk))})", chunk)


__all__ = [
    "PURGE_WAIT_MS",
    "StoreBase",
    "changed_since",
    "epoch_and_version",
    "mark_purge_pending",
    "rows_in",
]

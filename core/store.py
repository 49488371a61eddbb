"""The store: one SQLite file, the source of truth.

All connection setup happens in ``connect``; every write happens inside ``Store.transaction``,
which issues ``BEGIN IMMEDIATE`` so that a read-then-write never fails with "database is
locked" under concurrency (../shared/design/ENVIRONMENT.md: 663 of 800 plain-BEGIN writes
failed in a four-process test, none with BEGIN IMMEDIATE). Never hold a transaction across an
embedding or model call: compute first, then write.

Any change to a record bumps ``meta.records_version`` and appends to ``record_changes`` in the
same transaction; that is the durable delta other processes' vector indexes replay.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from core import store_file
from core.errors import (
    EmbedderMismatchError,
    InvalidArgument,
    ReadOnlyStoreError,
    SchemaVersionError,
    StoreClosedError,
    StoreError,
)
from core.lexical import FTS_COLUMNS
from core.migrations import LATEST_VERSION, MIGRATIONS
from core.models import (
    Access,
    EmbedderIdentity,
    Grant,
    MemoryType,
    Record,
    Scope,
    Status,
    format_time,
)
from core.records import (
    RECORD_SELECT,
    NewRecord,
    append_event,
    bump_records_version,
    embedding_text,
    insert_record,
    row_to_record,
    select_records,
)

DEFAULT_BUSY_TIMEOUT_MS = 5000
# How long a purge waits for readers to end before it leaves the purge pending for the sweep.
PURGE_WAIT_MS = 250


def connect(
    path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """Open a connection with the store's settings. The only place a writing connection is
    made (a read-only one: core.store_file.connect_read_only).

    - ``isolation_level=None``: the sqlite3 module never opens transactions implicitly; the
      store issues ``BEGIN IMMEDIATE`` itself.
    - WAL with ``synchronous=NORMAL``: readers never block the writer; a crash loses at most
      the last transactions, never consistency.
    - ``secure_delete``: freed pages are zeroed, so forgotten content leaves the file.
    """
    conn = sqlite3.connect(
        str(path),
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA secure_delete = ON")
    try:
        mode = _switch_to_wal(conn, deadline=time.monotonic() + busy_timeout_ms / 1000)
    except BaseException:
        conn.close()
        raise
    if str(mode).lower() != "wal":
        conn.close()
        raise StoreError(f"{path}: could not switch to WAL journal mode (got {mode!r})")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _switch_to_wal(conn: sqlite3.Connection, *, deadline: float) -> str:
    """Set WAL journal mode, waiting out another connection that is creating the file.

    WAL is persistent: once the file is in WAL mode the pragma only reads it. The switch itself
    (the first open of a new file) reads the header under a SHARED lock and then needs an
    EXCLUSIVE one. If another connection holds RESERVED meanwhile (a second process migrating
    the same new file), SQLite reports "database is locked" at once without calling the busy
    handler, since waiting could deadlock (sqlite3_busy_handler docs). Failing releases our
    SHARED lock, so retrying until the busy timeout's deadline is the documented remedy. (An
    attempt started just before the deadline may itself wait in the busy handler, so the
    whole open can take up to about twice the busy timeout.) Seen in CI (two processes opening
    one new store); four processes opening one new file at once failed 8 of 200 openings
    before this retry, 0 of 400 after.
    """
    pause = 0.001
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            busy = exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY  # any extended BUSY code
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One record as the vector index holds it: its vector and the fields the hard filter
    reads (scope, status, type, event time = event_at or else created_at, and expires_at,
    which decides whether a provisional record has lapsed at the filter's ``now``)."""

    vector: np.ndarray
    scope: str
    status: Status
    type: MemoryType
    time: str
    expires_at: str | None = None


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


@dataclass(frozen=True, slots=True)
class TextIndexSnapshot:
    """The full-text index's rows and their lengths (tokens over all columns), at a version."""

    epoch: str
    records_version: int
    rowids: np.ndarray  # int64
    lengths: np.ndarray  # int64, one per rowid


@dataclass(frozen=True, slots=True)
class TextIndexDelta:
    """The full-text rows added, changed or removed since a version."""

    epoch: str
    records_version: int
    # rowid -> the text of each records_fts column, or None when the row is gone (forgotten).
    changes: dict[int, tuple[str, ...] | None]


@dataclass(frozen=True, slots=True)
class Postings:
    """Where index terms occur in the full-text index, at a version: per term, one
    (rowid, column number) pair per occurrence, in the order fts5vocab gives them (by rowid,
    then column and position), with the token offset in its column as a third value when
    positions were asked for."""

    epoch: str
    records_version: int
    occurrences: dict[str, np.ndarray]  # term -> int64 array of shape (n, 2) or (n, 3)


class Store:
    """A SQLite store file. Thread-safe within a process; many processes may open one file."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, read_only: bool = False) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.read_only = read_only
        self._lock = threading.RLock()

    # -- lifecycle -------------------------------------------------------------------------

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
        read-only) is refused with StoreError before anything changes (core.store_file).
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
        store_file.check(path, initialise=initialise)
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
        store_file.check_read_only(path)
        try:
            conn = store_file.connect_read_only(path, busy_timeout_ms=busy_timeout_ms)
            version = _schema_version(conn)
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
        """Run one read statement and return all rows."""
        with self._lock:
            cursor = self._connection().execute(sql, params)
            cursor.row_factory = sqlite3.Row
            return cursor.fetchall()

    def term_documents(self, terms: Sequence[str]) -> tuple[str, int, int, dict[str, int]]:
        """The store epoch and records_version, the number of rows in the full-text index,
        and for each of ``terms`` (index terms, as records_fts's tokenizer stores them) the
        number of rows holding it; one snapshot."""
        with self._lock:
            conn = self._connection()
            terms_table = _fts_vocabulary(conn, "row")
            with self.reading():
                epoch, version = _epoch_and_version(conn)
                # One row per indexed record in FTS5's docsize table (columnsize is on).
                (rows,) = conn.execute("SELECT count(*) FROM records_fts_docsize").fetchone()
                documents: dict[str, int] = {}
                for term in terms:
                    found = conn.execute(
                        f"SELECT doc FROM {terms_table} WHERE term = ?", (term,)
                    ).fetchone()
                    documents[term] = int(found[0]) if found else 0
        return epoch, version, int(rows), documents

    def text_index_snapshot(self) -> TextIndexSnapshot:
        """Every row of the full-text index with its length, from FTS5's docsize table (one
        varint token count per column; columnsize is on)."""
        with self.reading() as conn:
            epoch, version = _epoch_and_version(conn)
            rows = conn.execute("SELECT id, sz FROM records_fts_docsize ORDER BY id").fetchall()
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        lengths = np.fromiter((_varint_sum(r[1]) for r in rows), dtype=np.int64, count=len(rows))
        return TextIndexSnapshot(epoch, version, rowids, lengths)

    def text_index_delta(self, since_version: int, *, at_most: int) -> TextIndexDelta | None:
        """The full-text rows changed since ``since_version``, with their current text; None
        when more than ``at_most`` rows changed (cheaper to rebuild than to read them all)."""
        with self.reading() as conn:
            epoch, version = _epoch_and_version(conn)
            changes: dict[int, tuple[str, ...] | None] = {}
            if version > since_version:
                rowids = _changed_since(conn, since_version, at_most=at_most + 1)
                if len(rowids) > at_most:
                    return None
                changes = dict.fromkeys(rowids)
                columns = ", ".join(FTS_COLUMNS)
                select = f"SELECT rowid, {columns} FROM records_fts WHERE rowid"
                for rowid, *texts in _rows_in(conn, select, rowids):
                    changes[rowid] = tuple(t or "" for t in texts)
        return TextIndexDelta(epoch, version, changes)

    def postings(self, terms: Sequence[str], *, positions: bool = False) -> Postings:
        """Every occurrence of each of ``terms`` (index terms, as records_fts's tokenizer
        stores them) in the full-text index, read through fts5vocab; one snapshot. With
        ``positions``, each occurrence also carries its token offset in its column (a phrase
        matches where its terms sit at consecutive offsets).

        Each occurrence travels as one integer, rowid * columns + column number, in one text per
        term: ~0.6 us an occurrence, against ~1.5 us for a row per occurrence (Python builds
        a tuple for each)."""
        number = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(FTS_COLUMNS))
        columns = len(FTS_COLUMNS)
        offsets = ", group_concat(offset, ' ')" if positions else ""
        with self._lock:
            conn = self._connection()
            instances_table = _fts_vocabulary(conn, "instance")
            occurrences: dict[str, np.ndarray] = {}
            with self.reading():
                epoch, version = _epoch_and_version(conn)
                for term in terms:
                    # Both aggregates see the rows in the same order: one scan.
                    (codes, *at) = conn.execute(
                        f"SELECT group_concat(doc * {columns} + CASE col {number} END, ' ')"
                        f"{offsets} FROM {instances_table} WHERE term = ?",
                        (term,),
                    ).fetchone()
                    code = np.fromstring(codes or "", dtype=np.int64, sep=" ")
                    found = [*np.divmod(code, columns)]
                    if positions:
                        found.append(np.fromstring(at[0] or "", dtype=np.int64, sep=" "))
                    occurrences[term] = np.stack(found, axis=1)
        return Postings(epoch, version, occurrences)

    # -- meta ------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    @property
    def schema_version(self) -> int:
        return _schema_version(self._connection())

    @property
    def records_version(self) -> int:
        return int(self.meta("records_version") or 0)

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
            append_event(
                conn,
                kind="store.embedder_bound",
                at=now,
                payload={"embedder": _identity_json(identity), "previous": _identity_json(stored)},
            )

    def _has_vectors(self) -> bool:
        return bool(self.query("SELECT 1 FROM embeddings LIMIT 1"))

    # -- grants ----------------------------------------------------------------------------

    def put_grant(self, agent_id: str, scope: Scope, access: Access, *, now: datetime) -> Grant:
        """Insert or replace one grant, with an audit event, in one transaction."""
        at = format_time(now)
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO grants (agent_id, scope, scope_kind, access, created_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, scope) "
                "DO UPDATE SET access = excluded.access",
                (agent_id, str(scope), scope.kind.value, access.value, at),
            )
            append_event(
                conn,
                kind="grant.put",
                at=now,
                agent_id=agent_id,
                payload={"scope": str(scope), "access": access.value},
            )
            row = conn.execute(
                "SELECT created_at FROM grants WHERE agent_id = ? AND scope = ?",
                (agent_id, str(scope)),
            ).fetchone()
        return Grant(agent_id, str(scope), access, row[0])

    def delete_grant(self, agent_id: str, scope: Scope, *, now: datetime) -> bool:
        """Remove a grant. Returns whether there was one; the audit event is written either way."""
        with self.transaction() as conn:
            removed = conn.execute(
                "DELETE FROM grants WHERE agent_id = ? AND scope = ?", (agent_id, str(scope))
            ).rowcount
            append_event(
                conn,
                kind="grant.revoked",
                at=now,
                agent_id=agent_id,
                payload={"scope": str(scope), "existed": bool(removed)},
            )
        return bool(removed)

    def grants(self, agent_id: str | None = None) -> list[Grant]:
        sql = "SELECT agent_id, scope, access, created_at FROM grants"
        params: tuple[str, ...] = ()
        if agent_id is not None:
            sql += " WHERE agent_id = ?"
            params = (agent_id,)
        rows = self.query(sql + " ORDER BY agent_id, scope", params)
        return [
            Grant(r["agent_id"], r["scope"], Access(r["access"]), r["created_at"]) for r in rows
        ]

    # -- records ---------------------------------------------------------------------------

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
            conn.execute("DELETE FROM embeddings WHERE record_rowid = ?", (rowid,))
            conn.execute("DELETE FROM record_tags WHERE record_rowid = ?", (rowid,))
            # The write log quotes what was written; keep the decision, erase the words.
            conn.execute(
                "UPDATE write_log SET payload = json_set(payload, '$.request.content', "
                "'[forgotten]', '$.request.evidence', NULL, '$.request.attribute', NULL) "
                "WHERE record_id = ?",
                (record_id,),
            )
            bump_records_version(conn, [rowid])
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_pending', ?)",
                (format_time(now),),
            )
            append_event(
                conn,
                kind="record.forgotten",
                at=now,
                record_id=record_id,
                agent_id=agent_id,
                payload={"reason": reason},
            )
        if purge:
            self._purge_freed_content()
        return True

    def expire_provisional(self, *, now: datetime) -> list[str]:
        """Set provisional records past expires_at to expired, with events, atomically. Reads
        do not wait for this: a RecordFilter with ``now`` and Record.status_at already treat
        such a record as expired; the sweep makes the stored status say so."""
        at = format_time(now)
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT rowid, id FROM records WHERE status = 'provisional' "
                "AND expires_at IS NOT NULL AND expires_at <= ?",
                (at,),
            ).fetchall()
            if not rows:
                return []
            conn.executemany(
                "UPDATE records SET status = 'expired', updated_at = ? WHERE rowid = ?",
                [(at, rowid) for rowid, _ in rows],
            )
            bump_records_version(conn, [rowid for rowid, _ in rows])
            for _, record_id in rows:
                append_event(conn, kind="record.expired", at=now, record_id=record_id)
        return [record_id for _, record_id in rows]

    def due_reviews(self, *, now: datetime, limit: int) -> list[Record]:
        """Live records whose review_at is due and not yet flagged, oldest first."""
        with self._lock:
            return select_records(
                self._connection(),
                "r.review_at IS NOT NULL AND r.review_at <= ? AND r.review_flagged_at IS NULL "
                "AND r.status IN ('provisional', 'confirmed') ORDER BY r.review_at LIMIT ?",
                (format_time(now), limit),
            )

    def flag_due_reviews(self, *, now: datetime, limit: int) -> list[str]:
        """Claim due reviews atomically: review_flagged_at set and a record.review_due event
        appended in one transaction; the flag is the claim, so a second sweep finds nothing.
        Nothing else about the record changes (design §6 Path C)."""
        at = format_time(now)
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT rowid, id, review_at FROM records WHERE review_at IS NOT NULL "
                "AND review_at <= ? AND review_flagged_at IS NULL "
                "AND status IN ('provisional', 'confirmed') ORDER BY review_at LIMIT ?",
                (at, limit),
            ).fetchall()
            for rowid, record_id, review_at in rows:
                conn.execute(
                    "UPDATE records SET review_flagged_at = ? WHERE rowid = ? "
                    "AND review_flagged_at IS NULL",
                    (at, rowid),
                )
                append_event(
                    conn,
                    kind="record.review_due",
                    at=now,
                    record_id=record_id,
                    payload={
                        "review_at": review_at,
                        "reason": "its review_at has come; the dated claim may be stale",
                    },
                )
        return [record_id for _, record_id, _ in rows]

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
        return busy == 0 and frames == done

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

    # -- vectors ---------------------------------------------------------------------------

    def index_snapshot(self) -> IndexSnapshot:
        """Everything a vector index needs to build itself: every stored vector (deleted
        records have none) with its filter fields, and the version they reflect."""
        with self.reading() as conn:
            epoch, version = _epoch_and_version(conn)
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
        )

    def index_delta(self, since_version: int) -> IndexDelta:
        """The vectors added, changed or removed since ``since_version``."""
        with self.reading() as conn:
            epoch, version = _epoch_and_version(conn)
            changes: dict[int, IndexEntry | None] = {}
            if version > since_version:
                rowids = _changed_since(conn, since_version)
                changes = dict.fromkeys(rowids)
                for row in _rows_in(conn, f"{_INDEX_SELECT} WHERE e.record_rowid", rowids):
                    changes[row[0]] = IndexEntry(
                        np.frombuffer(row[1], np.float32),
                        row[2],
                        Status(row[3]),
                        MemoryType(row[4]),
                        row[5],
                        row[6],
                    )
        return IndexDelta(epoch, version, changes)

    def index_version(self) -> tuple[str, int]:
        """(store_epoch, records_version): cheap, read before every search."""
        with self._lock:
            return _epoch_and_version(self._connection())

    # -- re-embedding ------------------------------------------------------------------------

    def unstaged_texts(self, *, limit: int) -> list[tuple[int, str]]:
        """Up to ``limit`` records (not deleted) that have no re-embedded vector staged yet,
        with the text their vector is made from."""
        rows = self.query(
            f"{RECORD_SELECT} WHERE r.status != 'deleted' AND r.rowid NOT IN "
            "(SELECT record_rowid FROM embeddings_staging) ORDER BY r.rowid LIMIT ?",
            (limit,),
        )
        return [(row["rowid"], embedding_text(row_to_record(row))) for row in rows]

    def stage_vectors(self, rowids: Sequence[int], vectors: np.ndarray) -> None:
        """Keep re-embedded vectors aside until ``swap_staged_vectors``."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings_staging (record_rowid, vector) VALUES (?, ?)",
                [
                    (int(rowid), np.ascontiguousarray(v, dtype=np.float32).tobytes())
                    for rowid, v in zip(rowids, vectors, strict=True)
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
                "INSERT INTO embeddings (record_rowid, model_name, model_version, dims, vector) "
                "SELECT s.record_rowid, ?, ?, ?, s.vector FROM embeddings_staging AS s "
                "JOIN records AS r ON r.rowid = s.record_rowid WHERE r.status != 'deleted'",
                (identity.name, identity.version, identity.dims),
            ).rowcount
            conn.execute("DELETE FROM embeddings_staging")
            _set_embedder(conn, identity)
            self.new_epoch(conn)
            append_event(
                conn,
                kind="store.reembedded",
                at=now,
                payload={
                    "embedder": _identity_json(identity),
                    "previous": _identity_json(previous),
                    "records": swapped,
                },
            )
        return swapped

    # -- whole-store operations --------------------------------------------------------------

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
                version = _schema_version(origin)
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
            conn.execute(
                "UPDATE meta SET value = lower(hex(randomblob(8))) WHERE key = 'store_epoch'"
            )
            append_event(conn, kind="store.restored", at=now, payload={"source": str(source)})

    def new_epoch(self, conn: sqlite3.Connection) -> None:
        """Inside a transaction: make every process rebuild its index from scratch."""
        conn.execute("UPDATE meta SET value = lower(hex(randomblob(8))) WHERE key = 'store_epoch'")

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
            epoch, version = _epoch_and_version(conn)
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
            "embedder": _identity_json(identity),
            "file_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }


# ---------------------------------------------------------------------------------------------
# Migrations


def _reason(exc: BaseException) -> str:
    """An OS or SQLite error as a short phrase (no path repeated, no traceback)."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _schema_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    return int(
        conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
    )


def migrate(conn: sqlite3.Connection, *, path: str) -> int:
    """Apply every pending migration, each in its own transaction, and return the version.

    Safe when several processes open a new store at once: each migration re-reads the version
    after taking the write lock. A store from a newer schema is refused before anything is
    written."""
    current = _schema_version(conn)
    if current > LATEST_VERSION:
        raise SchemaVersionError(path=path, store_version=current, known_version=LATEST_VERSION)
    for migration in MIGRATIONS:
        if migration.version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL"
                ") STRICT"
            )
            current = _schema_version(conn)
            if migration.version <= current:
                conn.execute("COMMIT")
                continue
            for statement in migration.statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) "
                "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                (migration.version, migration.name),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        current = migration.version
    return current


_INDEX_SELECT = """
    SELECT e.record_rowid, e.vector, r.scope, r.status, r.type,
           coalesce(r.event_at, r.created_at), r.expires_at
      FROM embeddings AS e JOIN records AS r ON r.rowid = e.record_rowid
"""


def _changed_since(
    conn: sqlite3.Connection, version: int, *, at_most: int | None = None
) -> list[int]:
    """The rowids of the records changed after ``version`` (the durable delta), at most
    ``at_most`` of them when given."""
    sql = "SELECT DISTINCT record_rowid FROM record_changes WHERE version > ?"
    params: tuple[int, ...] = (version,)
    if at_most is not None:
        sql, params = f"{sql} LIMIT ?", (version, at_most)
    return [r[0] for r in conn.execute(sql, params)]


def _rows_in(conn: sqlite3.Connection, select: str, rowids: Sequence[int]) -> Iterator[Any]:
    """The rows of ``select`` (a statement ending in the rowid column it filters on) for
    ``rowids``, read in chunks of 500 so no statement has too many parameters."""
    for start in range(0, len(rowids), 500):
        chunk = rowids[start : start + 500]
        yield from conn.execute(f"{select} IN ({','.join('?' * len(chunk))})", chunk)


def _fts_vocabulary(conn: sqlite3.Connection, kind: str) -> str:
    """The name of a temp fts5vocab table of ``kind`` (row, instance) over records_fts, made on
    this connection if it has none yet: it reads records_fts's own index."""
    name = f"temp.records_fts_{kind}"
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab (main, records_fts, {kind})"
    )
    return name


def _varint_sum(blob: bytes) -> int:
    """The sum of the SQLite varints in ``blob`` (big-endian groups of 7 bits, the high bit
    set on every byte but the last, a ninth byte contributing all 8 bits)."""
    if max(blob, default=0) < 0x80:  # every count below 128: one byte each
        return sum(blob)
    total = i = 0
    while i < len(blob):
        value = 0
        for position in range(9):
            byte = blob[i]
            i += 1
            if position == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        total += value
    return total


def _epoch_and_version(conn: sqlite3.Connection) -> tuple[str, int]:
    rows = dict(
        conn.execute("SELECT key, value FROM meta WHERE key IN ('store_epoch', 'records_version')")
    )
    return rows["store_epoch"], int(rows["records_version"])


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


def _identity_json(identity: EmbedderIdentity | None) -> dict[str, Any] | None:
    if identity is None:
        return None
    return {"name": identity.name, "version": identity.version, "dims": identity.dims}

"""Opening a store file: what the path holds, the connection's settings, the migrations.

``connect`` is the only place a writing connection is made (WAL, busy timeout, foreign keys,
secure_delete), ``connect_read_only`` the only read-only one, and ``migrate`` runs the
numbered migrations (core.store.migrations). A second backend has its own equivalents; none
of these is part of the Store interface.

What a store path holds is checked before SQLite is allowed to change it.

Opening a store switches the file to WAL and migrates it: done to a file that is not an
agent-memory store (another application's SQLite database, a corrupt or truncated file, a
file on read-only media), that either fails deep inside sqlite3 with its raw error or,
worse, silently turns someone else's database into a store with 27 more tables. ``check``
reads the file first (its header, its table names, read-only) and refuses with the library's
own errors (core.errors.StoreError), saying what the file is and what to do.

A store can also be opened read-only (``check_read_only`` then ``connect_read_only``): for
search on read-only media, or to make sure nothing is written. SQLite writes nothing to the
file then, but a WAL database needs its -shm and -wal files beside it; where they cannot be
created (a read-only folder) the file is opened ``immutable``, which SQLite may do only when
nothing can change it, true of read-only media.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from agent_memory.core.errors import SchemaVersionError, StoreError
from agent_memory.core.logging import get_logger
from agent_memory.core.store.migrations import LATEST_VERSION, MIGRATIONS

log = get_logger("agent_memory")

DEFAULT_BUSY_TIMEOUT_MS = 5000
SQLITE_HEADER = b"SQLite format 3\x00"


def check(path: Path, *, initialise: bool, writable: bool = True) -> set[str]:
    """Refuse ``path`` unless it is absent, empty, an agent-memory store, or (with
    ``initialise``) an SQLite database the caller asks to turn into one; and, when
    ``writable``, unless its file and folder can be written. Returns the file's tables
    (none for an absent or empty file)."""
    if not path.exists():
        if not os.access(path.parent if path.parent.exists() else Path.cwd(), os.W_OK):
            raise StoreError(f"cannot create the store {path}: its folder is not writable")
        return set()
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a store file")
    # The file is never opened here but through SQLite: closing any descriptor of it drops
    # every POSIX lock this process holds on it, a connection's already open here included
    # (a second Memory.open of a served store, e.g. the inspector's read-only one); another
    # process could then checkpoint and remove the WAL under that connection, which would
    # read a stale store from then on. SQLite's own descriptors are shared and kept safely.
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise StoreError(f"cannot read the store {path}: {exc.strerror}") from None
    if not size:
        if writable:
            _writable(path)
        return set()  # an empty file: a new store
    tables = _tables(path)
    if tables and "schema_migrations" not in tables and not initialise:
        shown = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
        raise StoreError(
            f"{path} is an SQLite database but not an agent-memory store (its tables: "
            f"{shown}); it was left as it is. Open it with initialise=True (agent-memory init "
            "--initialise) only to add a store's tables to it"
        )
    if writable:
        _writable(path)
    return tables


def check_read_only(path: Path) -> None:
    """Refuse ``path`` for a read-only open unless it is an existing agent-memory store:
    read-only, nothing can create or initialise one."""
    if not path.is_file():
        what = "a folder" if path.is_dir() else "missing"
        raise StoreError(f"cannot open the store {path} read-only: it is {what}")
    if "schema_migrations" not in check(path, initialise=False, writable=False):
        raise StoreError(
            f"cannot open the store {path} read-only: it is empty (not yet a store); "
            "create it on writable storage first"
        )


def connect_read_only(path: Path, *, busy_timeout_ms: int) -> sqlite3.Connection:
    """A connection that cannot write the store (``mode=ro``). In a folder where SQLite
    cannot create the WAL's -shm file, the store is opened ``immutable=1`` instead, unless
    its -wal file holds changes: immutable would ignore them and show an older store, so
    that is refused."""
    conn = _probe(f"{path.resolve().as_uri()}?mode=ro", busy_timeout_ms)
    if conn is not None:
        return conn
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreError(
            f"cannot open the store {path} read-only: its write-ahead log ({wal.name}) holds "
            "changes that cannot be read where its shared-memory file cannot be created; open "
            "it once on writable storage (that checkpoints the log), then copy it here"
        )
    conn = _probe(f"{path.resolve().as_uri()}?mode=ro&immutable=1", busy_timeout_ms)
    if conn is None:
        raise StoreError(f"cannot open the store {path} read-only: SQLite cannot open it")
    return conn


def _probe(uri: str, busy_timeout_ms: int) -> sqlite3.Connection | None:
    """A read-only connection to ``uri`` that has read the schema, or None when SQLite
    cannot open the file that way (SQLITE_CANTOPEN: no -shm file and no right to make one)."""
    conn = sqlite3.connect(
        uri,
        uri=True,
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,
        check_same_thread=False,
    )
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        if exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_CANTOPEN:
            return None
        raise
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def unwritable_reason(path: Path) -> str | None:
    """Why the store at ``path`` cannot be written (its file or its folder is not writable,
    e.g. on read-only media), or None when it can."""
    for what, target in (("file", path), ("folder", path.parent)):
        if target.exists() and not os.access(target, os.W_OK):
            return f"its {what} is not writable"
    return None


def _tables(path: Path) -> set[str]:
    try:
        conn = connect_read_only(path, busy_timeout_ms=10_000)  # also on read-only media
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_NOTADB:
            raise StoreError(
                f"{path} is not an agent-memory store: it is not an SQLite database (a corrupt "
                "or truncated file, or another kind of file); restore it from a snapshot"
            ) from None
        raise StoreError(
            f"{path} is not a readable agent-memory store ({exc}); restore it from a snapshot"
        ) from None
    return {r[0] for r in rows}


def _writable(path: Path) -> None:
    """A store is opened for writing (sessions, logs, migrations): refuse read-only files
    and folders up front instead of failing on the first write."""
    reason = unwritable_reason(path)
    if reason is not None:
        raise StoreError(
            f"the store {path} is read-only ({reason}); agent-memory needs to write beside it "
            "(WAL, logs): open it with read_only=True (the CLI's --read-only) to search it, or "
            "copy it to writable storage"
        )


def connect(
    path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS
) -> sqlite3.Connection:
    """Open a connection with the store's settings. The only place a writing connection is
    made (a read-only one: connect_read_only).

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


def schema_version(conn: sqlite3.Connection) -> int:
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
    current = schema_version(conn)
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
            current = schema_version(conn)
            if migration.version <= current:
                conn.execute("COMMIT")
                continue
            # Whether the notice concerns this store: it already held vectors.
            held = bool(migration.notice) and bool(
                conn.execute("SELECT 1 FROM embeddings LIMIT 1").fetchone()
            )
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
        if held:
            log.warning(
                "store.migrated", path=path, version=migration.version, notice=migration.notice
            )
        current = migration.version
    return current


__all__ = [
    "DEFAULT_BUSY_TIMEOUT_MS",
    "check",
    "check_read_only",
    "connect",
    "connect_read_only",
    "migrate",
    "schema_version",
    "unwritable_reason",
]

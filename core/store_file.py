"""What a store path holds, checked before SQLite is allowed to change it.

Opening a store switches the file to WAL and migrates it: done to a file that is not an
agent-memory store (another application's SQLite database, a corrupt or truncated file, a
file on read-only media), that either fails deep inside sqlite3 with its raw error or,
worse, silently turns someone else's database into a store with 27 more tables. ``check``
reads the file first (its header, its table names, read-only) and refuses with the library's
own errors (core.errors.StoreError), saying what the file is and what to do.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from core.errors import StoreError

SQLITE_HEADER = b"SQLite format 3\x00"


def check(path: Path, *, initialise: bool) -> None:
    """Refuse ``path`` unless it is absent, empty, an agent-memory store, or (with
    ``initialise``) an SQLite database the caller asks to turn into one."""
    if not path.exists():
        if not os.access(path.parent if path.parent.exists() else Path.cwd(), os.W_OK):
            raise StoreError(f"cannot create the store {path}: its folder is not writable")
        return
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a store file")
    try:
        with path.open("rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot read the store {path}: {exc.strerror}") from None
    if not header:
        _writable(path)
        return  # an empty file: a new store
    if header != SQLITE_HEADER:
        raise StoreError(
            f"{path} is not an agent-memory store: it is not an SQLite database (a corrupt "
            "or truncated file, or another kind of file); restore it from a snapshot"
        )
    tables = _tables(path)
    if tables and "schema_migrations" not in tables and not initialise:
        shown = ", ".join(sorted(tables)[:5]) + (" ..." if len(tables) > 5 else "")
        raise StoreError(
            f"{path} is an SQLite database but not an agent-memory store (its tables: "
            f"{shown}); it was left as it is. Open it with initialise=True (agent-memory init "
            "--initialise) only to add a store's tables to it"
        )
    _writable(path)


def _tables(path: Path) -> set[str]:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        try:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path} is not a readable agent-memory store ({exc}); restore it from a snapshot"
        ) from None
    return {r[0] for r in rows}


def _writable(path: Path) -> None:
    """A store is opened for writing (sessions, logs, migrations): refuse read-only files
    and folders up front instead of failing on the first write."""
    for what, target in (("file", path), ("folder", path.parent)):
        if not os.access(target, os.W_OK):
            raise StoreError(
                f"the store {path} is read-only (its {what} is not writable); agent-memory "
                "needs to write beside it (WAL, logs): copy it to writable storage"
            )


__all__ = ["check"]

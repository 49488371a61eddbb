"""Idempotency and import keys (``ingest_keys``): a write or an imported item happens once.

A key commits in the same transaction as the record it names, so a key is stored exactly when
its record is; a second writer with the same key fails on the key's primary key and rolls its
whole write back. A second backend implements each function here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from agent_memory.core.models import format_time


def remember(
    conn: sqlite3.Connection, key: str, record_id: str, action: str, *, now: datetime
) -> None:
    """Inside the record's transaction: commit ``key`` with what was done under it. A key
    already there raises sqlite3.IntegrityError, which rolls the caller's write back."""
    conn.execute(
        "INSERT INTO ingest_keys (key, record_id, action, at) VALUES (?, ?, ?, ?)",
        (key, record_id, action, format_time(now)),
    )


def outcome(conn: sqlite3.Connection, key: str) -> tuple[str, str] | None:
    """The record id and action committed under ``key``, or None."""
    row = conn.execute("SELECT record_id, action FROM ingest_keys WHERE key = ?", (key,)).fetchone()
    return (row[0], row[1]) if row else None


def stored(conn: sqlite3.Connection, keys: Sequence[str]) -> dict[str, str]:
    """The record ids committed under those of ``keys`` that are stored."""
    wanted = list(dict.fromkeys(keys))
    found: dict[str, str] = {}
    for start in range(0, len(wanted), 500):  # SQLite's bound-parameter limit
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT key, record_id FROM ingest_keys WHERE key IN ({marks})", chunk
        ).fetchall()
        found.update({row[0]: row[1] for row in rows})
    return found


__all__ = ["outcome", "remember", "stored"]

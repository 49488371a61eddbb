"""What a forget leaves and erases beside the record's own row (core.erasure, core.ledger):
the erasure ledger, suppressions, redacted turns, and the evidence turns a record was found in.

The ledger (``erasures``) and the erasure events survive a restore: core.ledger reads them from
the store being replaced and copies back what the snapshot lacks. A second backend implements
each function here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.models import format_time
from agent_memory.core.store.log import append

# The events an erasure appends: kept, with the ledger, across a restore.
ERASURE_EVENTS = (
    events.RecordForgotten.kind,
    events.RecordSuppressed.kind,
    events.RecordRedacted.kind,
    events.RecordTracesErased.kind,
    events.TurnRedacted.kind,
    events.UserForgotten.kind,
)


def erased_record(conn: sqlite3.Connection, rowid: int) -> tuple[Any, ...]:
    """(id, scope, content, evidence, model name, vector) of a record about to be erased."""
    row = conn.execute(
        "SELECT r.id, r.scope, r.content, r.evidence, e.model_name, e.vector "
        "FROM records AS r LEFT JOIN embeddings AS e ON e.record_rowid = r.rowid "
        "WHERE r.rowid = ?",
        (rowid,),
    ).fetchone()
    return tuple(row)


def add_to_ledger(conn: sqlite3.Connection, record_id: str, digest: str, now: datetime) -> None:
    conn.execute(
        "INSERT INTO erasures (at, record_id, content_digest) VALUES (?, ?, ?)",
        (format_time(now), record_id, digest),
    )


def add_suppression(
    conn: sqlite3.Connection,
    record_id: str,
    scope: str,
    digest: str,
    model_name: str | None,
    vector: bytes | None,
    now: datetime,
) -> None:
    conn.execute(
        "INSERT INTO suppressions (record_id, scope, content_digest, model_name, vector, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (record_id, scope, digest, model_name, vector, format_time(now)),
    )


def suppressions(store: Any, scopes: Sequence[str]) -> list[sqlite3.Row]:
    """The suppressions left in any of ``scopes`` (one read of ``store``)."""
    marks = ",".join("?" * len(scopes)) or "NULL"
    return list(
        store.query(
            f"SELECT content_digest, model_name, vector FROM suppressions WHERE scope IN ({marks})",
            list(scopes),
        )
    )


def turns_of(conn: sqlite3.Connection, user: str | None) -> list[tuple[str, int, str]]:
    """(session, seq, text) of every turn of ``user``'s sessions (of every session: None)."""
    where, params = ("s.user_id = ?", [user]) if user else ("1", [])
    rows = conn.execute(
        "SELECT t.session_id, t.seq, t.content FROM turns AS t "
        f"JOIN sessions AS s ON s.session_id = t.session_id WHERE {where}",
        params,
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def redact_turn(
    conn: sqlite3.Connection, text: str, redacted: events.TurnRedacted, *, now: datetime
) -> None:
    """Replace a turn's text with ``text`` and append the event naming it."""
    conn.execute(
        "UPDATE turns SET content = ? WHERE session_id = ? AND seq = ?",
        (text, redacted.session_id, redacted.seq),
    )
    append(conn, redacted, at=now)


def evidence_turns(conn: sqlite3.Connection, rowid: int) -> list[tuple[str, int]]:
    """The (session, turn) pairs the record's observations found its quotes in."""
    rows = conn.execute(
        "SELECT DISTINCT session_id, turn_seq FROM observations "
        "WHERE record_rowid = ? AND session_id IS NOT NULL AND turn_seq IS NOT NULL",
        (rowid,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def ledger(store: Any) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ledger rows and erasure events of the store as it is now."""
    rows = store.query("SELECT at, record_id, user_id, content_digest FROM erasures ORDER BY id")
    marks = ",".join("?" * len(ERASURE_EVENTS))
    erasures = store.query(
        f"SELECT at, kind, record_id, agent_id, payload FROM events WHERE kind IN ({marks}) "
        "ORDER BY seq",
        ERASURE_EVENTS,
    )
    return [tuple(r) for r in rows], [tuple(r) for r in erasures]


def copy_missing(
    conn: sqlite3.Connection, rows: list[tuple[Any, ...]], erasures: list[tuple[Any, ...]]
) -> None:
    """Inside a transaction: add the ledger rows and erasure events this store lacks (as read
    by ``ledger`` from the store it replaced)."""
    have = set(
        conn.execute("SELECT at, record_id, user_id, content_digest FROM erasures").fetchall()
    )
    conn.executemany(
        "INSERT INTO erasures (at, record_id, user_id, content_digest) VALUES (?, ?, ?, ?)",
        [row for row in rows if row not in have],
    )
    marks = ",".join("?" * len(ERASURE_EVENTS))
    seen = set(
        conn.execute(
            f"SELECT at, kind, record_id, agent_id, payload FROM events WHERE kind IN ({marks})",
            ERASURE_EVENTS,
        ).fetchall()
    )
    conn.executemany(
        "INSERT INTO events (at, kind, record_id, agent_id, payload) VALUES (?, ?, ?, ?, ?)",
        [row for row in erasures if row not in seen],
    )


__all__ = [
    "ERASURE_EVENTS",
    "add_suppression",
    "add_to_ledger",
    "copy_missing",
    "erased_record",
    "evidence_turns",
    "ledger",
    "redact_turn",
    "suppressions",
    "turns_of",
]

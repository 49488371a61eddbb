"""Sessions and their transcripts: the statements core.session runs (a session's row, its
turns, its activity), what ``Memory.sessions`` and ``agent-memory sessions`` show, which
sessions the idle sweep ends (``Memory.end_idle_sessions``), and what an extraction job needs
to act as its session again (``session_settings``).

The functions that take ``conn`` run inside the caller's transaction or read snapshot; those
that take the store read once. A second backend implements each function here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.models import format_time, utcnow, validate_id
from agent_memory.core.store.base import StoreBase as Store
from agent_memory.core.store.log import append


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A session's stored identity and settings."""

    agent_id: str
    user_id: str
    write_targets: dict[str, str]
    ended_at: str | None
    authoritative_tools: list[str]


@dataclass(frozen=True, slots=True)
class StoredTurn:
    """One stored turn of a transcript."""

    seq: int
    role: str
    content: str
    at: str
    tool: str | None


def stored(conn: sqlite3.Connection, session_id: str) -> StoredSession | None:
    """The stored session, or None."""
    row = conn.execute(
        "SELECT agent_id, user_id, write_targets, ended_at, authoritative_tools "
        "FROM sessions WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return StoredSession(row[0], row[1], json.loads(row[2]), row[3], json.loads(row[4]))


def start(
    conn: sqlite3.Connection,
    started: events.SessionStarted,
    *,
    write_targets: Mapping[str, str],
    authoritative_tools: Sequence[str],
    now: datetime,
) -> None:
    """Store the session ``started`` names (its agent, user and id), with its settings, and
    append the event."""
    conn.execute(
        "INSERT INTO sessions (session_id, agent_id, user_id, write_targets, "
        "authoritative_tools, started_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            started.session_id,
            started.agent_id,
            started.user_id,
            json.dumps(dict(write_targets), sort_keys=True),
            json.dumps(sorted(authoritative_tools)),
            format_time(now),
            format_time(now),
        ),
    )
    append(conn, started, at=now)


def update_settings(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    write_targets: Mapping[str, str],
    authoritative_tools: Sequence[str],
) -> None:
    """Keep an open session's write targets and authoritative tools current."""
    conn.execute(
        "UPDATE sessions SET write_targets = ?, authoritative_tools = ? WHERE session_id = ?",
        (
            json.dumps(dict(write_targets), sort_keys=True),
            json.dumps(sorted(authoritative_tools)),
            session_id,
        ),
    )


def next_seq(conn: sqlite3.Connection, session_id: str) -> tuple[str | None, int] | None:
    """(ended_at, the next turn's sequence number) of a stored session, or None."""
    row = conn.execute(
        "SELECT ended_at, (SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE session_id = ?) "
        "FROM sessions WHERE session_id = ?",
        (session_id, session_id),
    ).fetchone()
    return None if row is None else (row[0], int(row[1]))


def add_turns(
    conn: sqlite3.Connection,
    session_id: str,
    first_seq: int,
    turns: Sequence[tuple[str, str, str, str | None]],
) -> None:
    """Append ``turns`` (role, content, at, tool) numbered from ``first_seq``, and note the
    session's activity."""
    conn.executemany(
        "INSERT INTO turns (session_id, seq, role, content, at, tool) VALUES (?, ?, ?, ?, ?, ?)",
        [
            (session_id, first_seq + i, role, content, at, tool)
            for i, (role, content, at, tool) in enumerate(turns)
        ],
    )
    touch(conn, session_id)


def touch(conn: sqlite3.Connection, session_id: str) -> None:
    """Note activity on a session, by the store's clock (the idle sweep reads it)."""
    conn.execute(
        "UPDATE sessions SET last_active_at = ? WHERE session_id = ?",
        (format_time(utcnow()), session_id),
    )


def close_unused(conn: sqlite3.Connection, session_id: str, *, at: datetime) -> None:
    """Leave nothing of a one-off session to extract or sweep: without turns its row goes
    (its session.started event stays); with turns it ends, reason ``cli``, without a job. A
    session with a job is left as it is."""
    if conn.execute("SELECT 1 FROM jobs WHERE session_id = ?", (session_id,)).fetchone():
        return
    if conn.execute("SELECT 1 FROM turns WHERE session_id = ? LIMIT 1", (session_id,)).fetchone():
        conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = 'cli' "
            "WHERE session_id = ? AND ended_at IS NULL",
            (format_time(at), session_id),
        )
    else:
        conn.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))


def ended_at(store: Store, session_id: str) -> str | None:
    """When the session ended, or None (open, or not stored)."""
    rows = store.query("SELECT ended_at FROM sessions WHERE session_id = ?", (session_id,))
    return rows[0]["ended_at"] if rows else None


def transcript(store: Store, session_id: str, *, last: int | None = None) -> list[StoredTurn]:
    """The session's stored turns in order; with ``last``, only the final ``last``."""
    rows = store.query(
        "SELECT * FROM (SELECT seq, role, content, at, tool FROM turns "
        "WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
        # SQLite: LIMIT -1 is no limit
        (session_id, -1 if last is None else last),
    )
    return [StoredTurn(r["seq"], r["role"], r["content"], r["at"], r["tool"]) for r in rows]


def session_list(
    store: Store,
    *,
    open: bool | None = None,
    agent_id: str | None = None,
    user_id: str | None = None,
    limit: int = 100,
) -> list[dict[str, Any]]:
    """Sessions, most recently active first, optionally only open (or only ended) ones."""
    where, params = [], []
    if open is not None:
        where.append("s.ended_at IS NULL" if open else "s.ended_at IS NOT NULL")
    for column, value in (("s.agent_id", agent_id), ("s.user_id", user_id)):
        if value is not None:  # an id no session can have is refused, not looked for
            where.append(f"{column} = ?")
            params.append(validate_id(value, what=column.removeprefix("s.")))
    sql = (
        "SELECT s.*, (SELECT count(*) FROM turns AS t WHERE t.session_id = s.session_id) "
        "AS turns, (SELECT j.job_id FROM jobs AS j WHERE j.session_id = s.session_id) AS job_id "
        "FROM sessions AS s"
    )
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY coalesce(s.last_active_at, s.started_at) DESC, s.rowid DESC LIMIT ?"
    return [_session_json(r) for r in store.query(sql, [*params, int(limit)])]


def session_row(store: Store, session_id: str) -> dict[str, Any] | None:
    """One session's identity as stored (agent, user, write targets, authoritative tools,
    end), or None: what a server process needs to rebuild a session another one opened."""
    rows = store.query(
        "SELECT session_id, agent_id, user_id, write_targets, authoritative_tools, ended_at "
        "FROM sessions WHERE session_id = ?",
        (session_id,),
    )
    if not rows:
        return None
    row = rows[0]
    return {
        "session_id": row["session_id"],
        "agent_id": row["agent_id"],
        "user_id": row["user_id"],
        "write_targets": json.loads(row["write_targets"]),
        "authoritative_tools": json.loads(row["authoritative_tools"]),
        "ended_at": row["ended_at"],
    }


def idle_sessions(store: Store, *, before: datetime) -> list[sqlite3.Row]:
    """Open sessions with at least one turn whose last activity is older than ``before``."""
    return store.query(
        "SELECT s.* FROM sessions AS s WHERE s.ended_at IS NULL "
        "AND coalesce(s.last_active_at, s.started_at) <= ? "
        "AND EXISTS (SELECT 1 FROM turns AS t WHERE t.session_id = s.session_id) "
        "ORDER BY s.last_active_at",
        (format_time(before),),
    )


def session_settings(store: Store, session_id: str) -> dict[str, Any] | None:
    """Who a stored session acts for and what it may write, as extraction resumes it:
    ``agent_id``, ``user_id``, ``write_targets`` and ``authoritative_tools`` (decoded), or None
    when no such session is stored."""
    rows = store.query(
        "SELECT agent_id, user_id, write_targets, authoritative_tools FROM sessions "
        "WHERE session_id = ?",
        (session_id,),
    )
    if not rows:
        return None
    return {
        "agent_id": rows[0]["agent_id"],
        "user_id": rows[0]["user_id"],
        "write_targets": json.loads(rows[0]["write_targets"]),
        "authoritative_tools": json.loads(rows[0]["authoritative_tools"]),
    }


def _session_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "session_id": row["session_id"],
        "agent_id": row["agent_id"],
        "user_id": row["user_id"],
        "started_at": row["started_at"],
        "last_active_at": row["last_active_at"],
        "ended_at": row["ended_at"],
        "end_reason": row["end_reason"],
        "turns": row["turns"],
        "job_id": row["job_id"],
    }


__all__ = [
    "StoredSession",
    "StoredTurn",
    "add_turns",
    "close_unused",
    "ended_at",
    "idle_sessions",
    "next_seq",
    "session_list",
    "session_row",
    "session_settings",
    "start",
    "stored",
    "touch",
    "transcript",
    "update_settings",
]

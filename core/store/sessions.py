"""Reading the sessions table: what ``Memory.sessions`` and ``agent-memory sessions`` show,
and which sessions the idle sweep ends (``Memory.end_idle_sessions``)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from agent_memory.core.models import format_time, validate_id
from agent_memory.core.store.base import StoreBase as Store


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


__all__ = ["idle_sessions", "session_list", "session_row"]

"""A user's data: everything stored of one user, to erase it or to read it for an export
(core.users holds the receipt and the export format).

A user's scopes are ``user:<id>`` and every private ``agent:<agent>/<id>`` (ids cannot contain
'/', so the suffix is exact). A second backend implements each function here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.models import Record, format_time
from agent_memory.core.store.base import mark_purge_pending
from agent_memory.core.store.log import append
from agent_memory.core.store.records import changed, select_records

_USER_SCOPES = (
    "(scope = 'user:' || :user OR (substr(scope, 1, 6) = 'agent:' "
    "AND substr(scope, -length(:user) - 1) = '/' || :user))"
)


def has_data(conn: sqlite3.Connection, user: str) -> bool:
    """Whether anything of ``user`` is stored."""
    params = {"user": user}
    return any(
        conn.execute(sql, params).fetchone() is not None
        for sql in (
            f"SELECT 1 FROM records WHERE {_USER_SCOPES} AND status != 'deleted' LIMIT 1",
            "SELECT 1 FROM sessions WHERE user_id = :user LIMIT 1",
            "SELECT 1 FROM search_log WHERE user_id = :user LIMIT 1",
            "SELECT 1 FROM write_log WHERE user_id = :user LIMIT 1",
            "SELECT 1 FROM idempotency WHERE user_id = :user LIMIT 1",
            f"SELECT 1 FROM entities WHERE {_USER_SCOPES} LIMIT 1",
        )
    )


def erase(conn: sqlite3.Connection, user: str, now: datetime) -> dict[str, Any]:
    """Inside a transaction: erase everything of ``user`` (core.users' module doc) and mark
    the purge pending; the receipt (rows per table, record and session ids)."""
    params = {"user": user}
    rows = conn.execute(
        f"SELECT rowid, id FROM records WHERE {_USER_SCOPES} AND status != 'deleted'", params
    ).fetchall()
    rowids = [r[0] for r in rows]
    sessions = [
        r[0] for r in conn.execute("SELECT session_id FROM sessions WHERE user_id = ?", (user,))
    ]
    counts: dict[str, int] = {"records": len(rows)}
    if rowids:
        _tombstone_all(conn, rowids, now)
    marks = ",".join("?" * len(sessions))
    for table, where, args in (
        ("turns", f"session_id IN ({marks})", sessions),
        (
            "job_stages",
            f"job_id IN (SELECT job_id FROM jobs WHERE session_id IN ({marks}))",
            sessions,
        ),
        ("jobs", f"session_id IN ({marks})", sessions),
        ("sessions", "user_id = ?", [user]),
        ("search_log", "user_id = ?", [user]),
        ("write_log", "user_id = ?", [user]),
        # the HTTP server's kept answers to the user's sessions' requests (api.http)
        ("idempotency", "user_id = ?", [user]),
    ):
        counts[table] = conn.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
    counts.update(_erase_entities(conn, params))
    counts["suppressions"] = conn.execute(
        f"DELETE FROM suppressions WHERE {_USER_SCOPES}", params
    ).rowcount
    ids = [r[1] for r in rows]
    conn.execute("INSERT INTO erasures (at, user_id) VALUES (?, ?)", (format_time(now), user))
    if any(counts.values()):
        forgotten = events.UserForgotten(user_id=user, counts=counts, sessions=len(sessions))
        append(conn, forgotten, at=now)
    mark_purge_pending(conn, now)
    return {"user_id": user, "counts": counts, "record_ids": ids, "session_ids": sessions}


def _tombstone_all(conn: sqlite3.Connection, rowids: list[int], now: datetime) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS erase_rowids (rowid INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM erase_rowids")
    conn.executemany("INSERT INTO erase_rowids (rowid) VALUES (?)", [(r,) for r in rowids])
    conn.execute(
        "UPDATE records SET status = 'deleted', content = '', evidence = NULL, attribute = NULL, "
        "subject = NULL, procedure = NULL, source_ref = NULL, tags = '[]', conflicts_with = '[]', "
        "context = NULL, subject_entity_id = NULL, updated_at = ? "
        "WHERE rowid IN (SELECT rowid FROM erase_rowids)",
        (format_time(now),),
    )
    for table, column in (
        ("records_fts", "rowid"),
        ("embeddings", "record_rowid"),
        ("embeddings_staging", "record_rowid"),
        ("record_tags", "record_rowid"),
        ("record_entities", "record_rowid"),
        ("observations", "record_rowid"),
        ("items", "record_rowid"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT rowid FROM erase_rowids)")
    # The user.forgotten event that goes with this change comes once the rest is erased.
    changed(conn, rowids, at=now)
    conn.execute("DELETE FROM erase_rowids")


def _erase_entities(conn: sqlite3.Connection, params: Mapping[str, str]) -> dict[str, int]:
    """The entities of the user's scopes, unlinked from any record of another scope first."""
    owned = f"SELECT id FROM entities WHERE {_USER_SCOPES}"
    conn.execute(f"DELETE FROM record_entities WHERE entity_id IN ({owned})", params)
    conn.execute(
        f"UPDATE records SET subject_entity_id = NULL WHERE subject_entity_id IN ({owned})", params
    )
    conn.execute(f"UPDATE entities SET merged_into = NULL WHERE merged_into IN ({owned})", params)
    aliases = conn.execute(
        f"DELETE FROM entity_aliases WHERE entity_id IN ({owned})", params
    ).rowcount
    entities = conn.execute(f"DELETE FROM entities WHERE {_USER_SCOPES}", params).rowcount
    return {"entity_aliases": aliases, "entities": entities}


def live_records(conn: sqlite3.Connection, user: str) -> list[Record]:
    """The user's records that are not tombstones, in the order written."""
    return select_records(
        conn,
        "r.status != 'deleted' AND (r.scope = ? OR (substr(r.scope, 1, 6) = 'agent:' "
        "AND substr(r.scope, -length(?) - 1) = '/' || ?)) ORDER BY r.rowid",
        (f"user:{user}", user, user),
    )


def entities(conn: sqlite3.Connection, user: str) -> list[tuple[Any, ...]]:
    """The entities of the user's scopes: (id, scope, kind, canonical name, status, aliases as
    a JSON array)."""
    return conn.execute(
        "SELECT e.id, e.scope, e.kind, e.canonical_name, e.status, "
        "(SELECT json_group_array(alias) FROM entity_aliases WHERE entity_id = e.id) "
        f"FROM entities AS e WHERE {_USER_SCOPES.replace('scope', 'e.scope')}",
        {"user": user},
    ).fetchall()


def sessions(conn: sqlite3.Connection, user: str) -> list[tuple[Any, ...]]:
    """The user's sessions, oldest first: (session id, agent id, started at, ended at)."""
    return conn.execute(
        "SELECT session_id, agent_id, started_at, ended_at FROM sessions WHERE user_id = ? "
        "ORDER BY started_at",
        (user,),
    ).fetchall()


def turns(conn: sqlite3.Connection, session_id: str) -> list[tuple[Any, ...]]:
    """A session's turns in order: (seq, role, content, at, tool)."""
    return conn.execute(
        "SELECT seq, role, content, at, tool FROM turns WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ).fetchall()


__all__ = ["entities", "erase", "has_data", "live_records", "sessions", "turns"]

"""The append-only audit log (``events``) and the search and write logs beside the records.

Every audit event is appended by ``append`` inside the transaction of the change it records
(core.events holds the kinds). The search log's rows are written here (``log_search``, for
the retriever), the write log's by ``log_write``; what is read back from them and what
retention deletes is here.

A second backend implements: ``append``, ``delete_before`` (retention) and LogMixin's methods.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent_memory.core.events import Event
from agent_memory.core.models import format_time
from agent_memory.core.store.base import StoreBase

_INSERT_EVENT = "INSERT INTO events (at, kind, record_id, agent_id, payload) VALUES (?, ?, ?, ?, ?)"


def append(conn: sqlite3.Connection, event: Event, *, at: datetime) -> None:
    """Append one audit event, inside the caller's transaction. The table refuses updates and
    deletes."""
    payload = json.dumps(event.payload(), sort_keys=True)
    conn.execute(
        _INSERT_EVENT, (format_time(at), event.kind, event.record_id, event.agent_id, payload)
    )


def append_event(
    conn: sqlite3.Connection,
    *,
    kind: str,
    at: datetime,
    record_id: str | None = None,
    agent_id: str | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    """``append`` for a kind given by name, with a payload as given: the row ``append``
    writes for the same kind, ids and payload (tests/core/test_events.py holds them equal)."""
    conn.execute(
        _INSERT_EVENT,
        (format_time(at), kind, record_id, agent_id, json.dumps(payload or {}, sort_keys=True)),
    )


def log_write(
    conn: sqlite3.Connection,
    *,
    log_id: str,
    at: datetime,
    tool: str,
    agent_id: str,
    user_id: str | None,
    session_id: str | None,
    record_id: str,
    outcome: str,
    total_ms: float,
    payload: dict[str, Any],
) -> None:
    """One write_log row (core.write.ingestor.Ingestor.log): the request, the decisions and
    the stage timings of one write, after the record's own transaction."""
    conn.execute(
        "INSERT INTO write_log (id, at, tool, agent_id, user_id, session_id, record_id, "
        "outcome, total_ms, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            log_id,
            format_time(at),
            tool,
            agent_id,
            user_id,
            session_id,
            record_id,
            outcome,
            total_ms,
            json.dumps(payload, sort_keys=True),
        ),
    )


class LogMixin(StoreBase):
    """The Store's search log: one row per search, and its reads."""

    def log_search(
        self,
        search_id: str,
        *,
        at: datetime,
        agent_id: str,
        user_id: str,
        session_id: str | None,
        query: str,
        result_ids: Sequence[str],
        total_ms: float,
        payload: dict[str, Any],
    ) -> None:
        """Write one search's row, in its own transaction: who asked what, which ids it
        returned, and its ``payload`` (everything ``core.search.ranking.replay`` needs)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO search_log (id, at, agent_id, user_id, session_id, query, "
                "result_ids, total_ms, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    search_id,
                    format_time(at),
                    agent_id,
                    user_id,
                    session_id,
                    query,
                    json.dumps(result_ids),
                    total_ms,
                    json.dumps(payload, sort_keys=True, default=str),
                ),
            )

    def search_log_payload(self, search_id: str) -> dict[str, Any] | None:
        """The logged payload of one search (its explanation), or None."""
        rows = self.query("SELECT payload FROM search_log WHERE id = ?", (search_id,))
        return json.loads(rows[0]["payload"]) if rows else None

    def searches_in_session(self, session_id: str) -> int:
        """How many searches a session has logged."""
        rows = self.query("SELECT count(*) AS n FROM search_log WHERE session_id = ?", [session_id])
        return int(rows[0]["n"])


# What retention deletes, per table, older than ?1.
_EXPIRED = {
    "search_log": "DELETE FROM search_log WHERE at < ?",
    "write_log": "DELETE FROM write_log WHERE at < ?",
    # A session closed without a job (a CLI command's) has nothing waiting for its turns.
    "turns": (
        "DELETE FROM turns WHERE session_id IN (SELECT s.session_id FROM sessions AS s "
        "LEFT JOIN jobs AS j ON j.session_id = s.session_id WHERE s.ended_at IS NOT NULL "
        "AND s.ended_at < ?1 AND (j.job_id IS NULL OR j.status IN ('done', 'failed')))"
    ),
}
RETAINED_TABLES = tuple(_EXPIRED)


def delete_before(conn: sqlite3.Connection, table: str, before: datetime) -> int:
    """Inside a transaction: delete ``table``'s rows (one of RETAINED_TABLES) older than
    ``before``; how many went."""
    return int(conn.execute(_EXPIRED[table], (format_time(before),)).rowcount)


__all__ = [
    "RETAINED_TABLES",
    "LogMixin",
    "append",
    "append_event",
    "delete_before",
    "log_write",
]

"""Observations: every time a record was written or seen again, by whom, and from which turn.

The promotion rule (core.write.reinforce) reads them: a provisional record is confirmed by two
observations quoting different words from different turns. A row keeps the turn and a digest
of the normalised quote, never the quote. A second backend implements each function here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core.models import format_time


@dataclass(frozen=True, slots=True)
class Observation:
    """One observation row. ``digest``: of the quote, only when it can count toward promotion."""

    session_id: str | None
    agent_id: str
    source_kind: str
    kind: str  # created | reinforced | confirmed
    turn_seq: int | None = None
    turn_role: str | None = None
    digest: str | None = None


def add(conn: sqlite3.Connection, rowid: int, seen: Observation, *, now: datetime) -> None:
    """Inside the record's transaction: one observation of the record at ``rowid``."""
    conn.execute(
        "INSERT INTO observations (record_rowid, session_id, agent_id, source_kind, kind, at, "
        "turn_seq, turn_role, evidence_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            rowid,
            seen.session_id,
            seen.agent_id,
            seen.source_kind,
            seen.kind,
            format_time(now),
            seen.turn_seq,
            seen.turn_role,
            seen.digest,
        ),
    )


def quoted(conn: sqlite3.Connection, rowid: int) -> list[tuple[Any, Any, str]]:
    """(session_id, turn_seq, digest) of the record's observations that have a quote digest,
    oldest first."""
    rows = conn.execute(
        "SELECT session_id, turn_seq, evidence_digest FROM observations "
        "WHERE record_rowid = ? AND evidence_digest IS NOT NULL ORDER BY rowid",
        (rowid,),
    )
    return [(r[0], r[1], r[2]) for r in rows]


def copy_first(conn: sqlite3.Connection, source: int, rowid: int, *, now: datetime) -> None:
    """Inside the record's transaction: the record at ``rowid`` was observed where the record
    at ``source`` first was (its session, turn and source; no quote digest: the words differ).
    """
    conn.execute(
        "INSERT INTO observations (record_rowid, session_id, agent_id, source_kind, kind, at, "
        "turn_seq, turn_role, evidence_digest) SELECT ?, session_id, agent_id, source_kind, "
        "'created', ?, turn_seq, turn_role, NULL FROM observations WHERE record_rowid = ? "
        "ORDER BY rowid LIMIT 1",
        (rowid, format_time(now), source),
    )


__all__ = ["Observation", "add", "copy_first", "quoted"]

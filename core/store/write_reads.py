"""The records a write looks at (core.write), read inside the caller's transaction or read
snapshot: by id, by subject, by statement turn, by lineage, by full-text match, and those
added since the write's search.

``where`` is the predicate a write looks through (core.filters.RecordFilter): the scopes the
writer reads, live as of its ``now``. A second backend implements each function here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import Record
from agent_memory.core.store.records import select_records


def live_in(conn: sqlite3.Connection, ids: Sequence[str], where: RecordFilter) -> list[Record]:
    """The records of ``ids`` that ``where`` admits."""
    if not ids:
        return []
    condition, params = where.sql("r")
    marks = ",".join("?" * len(ids))
    return select_records(conn, f"r.id IN ({marks}) AND {condition}", (*ids, *params))


def subject_holder(conn: sqlite3.Connection, subject: str, where: RecordFilter) -> Record | None:
    """The newest record ``where`` admits that holds ``subject`` (entity + attribute)."""
    condition, params = where.sql("r")
    rows = select_records(
        conn,
        f"r.subject = ? AND {condition} ORDER BY r.created_at DESC LIMIT 1",
        (subject, *params),
    )
    return rows[0] if rows else None


def stored_live(conn: sqlite3.Connection, record_id: str) -> Record | None:
    """The record if its stored status is live (provisional or confirmed), else None."""
    rows = select_records(
        conn, "r.id = ? AND r.status IN ('provisional', 'confirmed')", (record_id,)
    )
    return rows[0] if rows else None


def added_since(conn: sqlite3.Connection, rowid: int, where: RecordFilter) -> list[Record]:
    """The records ``where`` admits that were added after ``rowid``."""
    condition, params = where.sql("r")
    return select_records(conn, f"r.rowid > ? AND {condition}", (rowid, *params))


def text_matches(
    conn: sqlite3.Connection, match: str, where: RecordFilter, *, subject_entity_id: str, limit: int
) -> list[Record]:
    """Up to ``limit`` records ``where`` admits about ``subject_entity_id`` whose text FTS5
    matches ``match`` (core.lexical.fts_match), best BM25 rank first."""
    condition, params = where.sql("r")
    return select_records(
        conn,
        "r.rowid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? "
        f"AND +rowid IN (SELECT r.rowid FROM records AS r WHERE {condition} "
        "AND r.subject_entity_id = ?) ORDER BY rank LIMIT ?)",
        (match, *params, subject_entity_id, limit),
    )


def stated_in(
    conn: sqlite3.Connection, turns: Sequence[tuple[str, str]], where: RecordFilter
) -> list[Record]:
    """The records ``where`` admits stated in one of ``turns`` (session_id, stated_at)."""
    if not turns:
        return []
    condition, params = where.sql("r")
    pairs = " OR ".join("(r.session_id = ? AND r.stated_at = ?)" for _ in turns)
    flat = [value for turn in turns for value in turn]
    return select_records(conn, f"({pairs}) AND {condition}", (*flat, *params))


def says_already(conn: sqlite3.Connection, scope: str, words: str) -> bool:
    """Whether a live record of ``scope`` has ``words`` as its content, letter case and the
    closing mark aside."""
    row = conn.execute(
        "SELECT 1 FROM records WHERE scope = ? AND status IN ('provisional', 'confirmed') "
        "AND lower(rtrim(content, ' .!?')) = lower(rtrim(?, ' .!?')) LIMIT 1",
        (scope, words),
    ).fetchone()
    return row is not None


def lineage_members(conn: sqlite3.Connection, lineage_id: str) -> list[Record]:
    """Every version of a lineage, any status, in version order."""
    return select_records(conn, "r.lineage_id = ? ORDER BY r.version", (lineage_id,))


__all__ = [
    "added_since",
    "lineage_members",
    "live_in",
    "says_already",
    "stated_in",
    "stored_live",
    "subject_holder",
    "text_matches",
]

"""What a search reads beyond its candidates (core.search): the words of the live records a
session wrote into a scope, which tell whether its summary says anything they do not
(core.search.siblings.summaries); and the user's newest records, which answer a question
about the user as a whole (core.search.profile). Reads only. A second backend
implements each function here.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_memory.core.models import MemoryType
from agent_memory.core.store.base import StoreBase as Store

if TYPE_CHECKING:
    from agent_memory.core.filters import RecordFilter


def session_texts(store: Store, scope: str, session_id: str) -> list[str]:
    """The content and retrieval context of each live record (provisional or confirmed)
    session ``session_id`` wrote into ``scope``, its summaries and the assistant's words
    (core.extraction.replies) aside."""
    with store.reading() as conn:
        rows = conn.execute(
            "SELECT content, coalesce(context, '') AS context FROM records WHERE scope = ? "
            "AND session_id = ? AND status IN ('provisional', 'confirmed') "
            "AND source_kind != 'session_summary' AND said_by IS NULL",
            (scope, session_id),
        ).fetchall()
    return [f"{content} {context}" for content, context in rows]


def assistant_words_of(store: Store, scope: str, session_id: str) -> dict[str, str]:
    """The assistant's words (core.extraction.replies) session ``session_id`` kept in
    ``scope``, by their evidence: evidence -> record id (a forgotten one holds none)."""
    rows = store.query(
        "SELECT id, evidence FROM records WHERE scope = ? AND session_id = ? "
        "AND said_by IS NOT NULL AND evidence IS NOT NULL",
        (scope, session_id),
    )
    return {row["evidence"]: row["id"] for row in rows}


# An imported conversation turn (episodic, system, with retrieval context:
# core.write.conversation.is_imported_turn): the same words as the partial index
# ``records_turn_said`` (core.store.migrations.TURNS_IN_ORDER), which SQLite uses only for a
# query that states its condition.
IMPORTED_TURNS = "{r}.type = 'episodic' AND {r}.source_kind = 'system' AND {r}.context IS NOT NULL"
# The records a profile reads: neither session summaries nor imported turns; the same words as
# the partial index ``records_said`` (core.store.migrations.PROFILE_ORDER).
PROFILE_RECORDS = f"{{r}}.source_kind != 'session_summary' AND NOT ({IMPORTED_TURNS})"
# How far a profile counts the user's records: past it, "more than" this many. An exact count
# reads every record of the user's (about 20 ms at 50,000); the reason it feeds only tells a
# model that there are more records to ask about.
PROFILE_COUNTED = 1000
# At most this many records of the scope with a status and type the filter takes: the profile
# sorts them (a few milliseconds at most) rather than walk ``records_said``, which would pass
# over every newer record the filter refuses (a user's 50,000 expired guesses: 16 ms).
PROFILE_SORTED = 2000
_ORDER = "ORDER BY coalesce(r.stated_at, r.created_at) DESC, r.rowid DESC"


def profile_ids(
    store: Store, where: RecordFilter, limit: int, *, counted: int = PROFILE_COUNTED
) -> tuple[list[str], int]:
    """The ids of at most ``limit`` records passing ``where`` (``PROFILE_RECORDS`` of them), the
    statements made last first, and how many pass in all, counted up to ``counted + 1`` (more
    than ``counted``).

    Two reads give the same ids, at a cost that does not grow with the records the filter
    refuses: when few records of the scope have a status and type it takes (at most
    ``PROFILE_SORTED``, counted in the index of scope, status and type), those are read and
    sorted; otherwise the index ``records_said`` is walked newest first, stopping at ``limit``,
    and the count stops past ``counted``. (SQLite keeps no statistics here to choose itself.)"""
    condition, params = where.sql("r")
    condition += " AND " + PROFILE_RECORDS.format(r="r")
    # Scope, status and type only (the index's columns; the assistant's words are of no
    # consequence to which read is cheaper).
    coarse, coarse_params = replace(
        where, since=None, until=None, now=None, assistant_words=True
    ).sql("r")
    with store.reading() as conn:
        (passing,) = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM records r INDEXED BY records_scope_status "
            f"WHERE {coarse} LIMIT ?)",
            (*coarse_params, PROFILE_SORTED + 1),
        ).fetchone()
        if passing <= PROFILE_SORTED:
            rows = conn.execute(
                f"SELECT r.id FROM records r INDEXED BY records_scope_status WHERE {condition} "
                + _ORDER,
                params,
            ).fetchall()
            ids = [record_id for (record_id,) in rows]
            return ids[:limit], min(len(ids), counted + 1)
        return _walked(conn, condition, params, limit, counted)


def profile_turn_ids(
    store: Store,
    where: RecordFilter,
    limit: int,
    *,
    role_tag: str,
    counted: int = PROFILE_COUNTED,
) -> tuple[list[str], int]:
    """The ids of at most ``limit`` imported conversation turns (``IMPORTED_TURNS``) passing
    ``where`` and tagged ``role_tag`` (the role that said them), the turns said last first, and
    how many there are, counted up to ``counted + 1``. Walks the index ``records_turn_said``
    newest first and stops at ``limit``; a filter that takes no episodic record reads nothing
    (no turn is of another type)."""
    if where.types is not None and MemoryType.EPISODIC not in where.types:
        return [], 0
    condition, params = where.sql("r")
    condition += (
        f" AND {IMPORTED_TURNS.format(r='r')} AND EXISTS (SELECT 1 FROM record_tags t "
        "WHERE t.record_rowid = r.rowid AND t.tag = ?)"
    )
    params.append(role_tag)
    with store.reading() as conn:
        return _walked(conn, condition, params, limit, counted)


def _walked(
    conn: sqlite3.Connection, condition: str, params: list[Any], limit: int, counted: int
) -> tuple[list[str], int]:
    """The ids of the first ``limit`` records passing ``condition`` in ``_ORDER`` (the newest
    statement first), and how many pass, counted up to ``counted + 1``. Both read in that order,
    so SQLite walks the partial index the condition names (``records_said``,
    ``records_turn_said``) and stops: a count in scope order would pass over every record the
    index leaves out."""
    rows = conn.execute(
        f"SELECT r.id FROM records r WHERE {condition} {_ORDER} LIMIT ?", (*params, limit)
    ).fetchall()
    total = len(rows)
    if total == limit:
        (total,) = conn.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM records r WHERE {condition} {_ORDER} LIMIT ?)",
            (*params, counted + 1),
        ).fetchone()
    return [record_id for (record_id,) in rows], min(total, counted + 1)


__all__ = [
    "IMPORTED_TURNS",
    "PROFILE_COUNTED",
    "PROFILE_RECORDS",
    "PROFILE_SORTED",
    "assistant_words_of",
    "profile_ids",
    "profile_turn_ids",
    "session_texts",
]

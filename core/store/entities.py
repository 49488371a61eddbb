"""Entities and their aliases: the statements core.write.entities runs inside a caller's
transaction (resolution is planned outside the write transaction, carried out inside it), and
the reads of the search's entity generator (``named``, ``linked_rowids``).

Aliases are matched on their normalised form (``alias_norm``, core.write.entities.alias_key); a
merged entity is never matched again. A second backend implements each function here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime

from agent_memory.core import events
from agent_memory.core.models import format_time
from agent_memory.core.store.log import append
from agent_memory.core.store.records import changed, record_alias_text


def match_alias(
    conn: sqlite3.Connection, alias_norm: str, kind: str, readable: Sequence[str], prefer: str
) -> tuple[str, str, str] | None:
    """The newest live entity of ``kind`` with the alias in a ``readable`` scope, one in
    ``prefer`` first: (id, canonical name, scope), or None."""
    marks = ",".join("?" * len(readable))
    row = conn.execute(
        f"""
        SELECT e.id, e.canonical_name, e.scope, e.created_at
          FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
         WHERE a.alias_norm = ? AND e.kind = ? AND e.status != 'merged'
           AND e.scope IN ({marks})
         ORDER BY (e.scope = ?) DESC, e.created_at DESC
        """,
        (alias_norm, kind, *readable, prefer),
    ).fetchone()
    return (row[0], row[1], row[2]) if row else None


def exists(conn: sqlite3.Connection, entity_id: str) -> bool:
    return conn.execute("SELECT 1 FROM entities WHERE id = ?", (entity_id,)).fetchone() is not None


def alias_in_scope(conn: sqlite3.Connection, alias_norm: str, kind: str, scope: str) -> str | None:
    """A live entity of ``kind`` with the alias in exactly ``scope`` (one another writer may
    have created meanwhile), or None."""
    row = conn.execute(
        """
        SELECT e.id FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
         WHERE a.alias_norm = ? AND e.kind = ? AND e.scope = ? AND e.status != 'merged'
        """,
        (alias_norm, kind, scope),
    ).fetchone()
    return row[0] if row else None


def insert(
    conn: sqlite3.Connection,
    created: events.EntityCreated,
    *,
    name: str,
    scope_kind: str,
    status: str,
    aliases: Sequence[tuple[str, str]],
    now: datetime,
) -> None:
    """Create the entity ``created`` describes with its (alias, normalised alias) pairs, and
    append the event."""
    conn.execute(
        "INSERT OR IGNORE INTO entities (id, kind, canonical_name, scope_kind, scope, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            created.entity_id,
            created.entity_kind,
            name,
            scope_kind,
            created.scope,
            status,
            format_time(now),
        ),
    )
    for alias, alias_norm in aliases:
        conn.execute(
            "INSERT OR IGNORE INTO entity_aliases (entity_id, alias, alias_norm) VALUES (?, ?, ?)",
            (created.entity_id, alias, alias_norm),
        )
    append(conn, created, at=now)


def merge(
    conn: sqlite3.Connection,
    *,
    loser: str,
    survivor: str,
    subject_of: Callable[[str, str | None], str | None],
    agent_id: str | None,
    reason: str | None,
    now: datetime,
) -> int:
    """Fold ``loser`` into ``survivor``: record links and subject_entity_id repointed (each
    subject rewritten by ``subject_of(entity_id, attribute)``), FTS subject and alias text
    rewritten, aliases moved, and the merge audited. Returns the number of records repointed."""
    repointed = [
        r[0]
        for r in conn.execute(
            "SELECT DISTINCT record_rowid FROM record_entities WHERE entity_id = ? UNION "
            "SELECT rowid FROM records WHERE subject_entity_id = ?",
            (loser, loser),
        )
    ]
    conn.execute(
        "INSERT OR IGNORE INTO entity_aliases (entity_id, alias, alias_norm) "
        "SELECT ?, alias, alias_norm FROM entity_aliases WHERE entity_id = ?",
        (survivor, loser),
    )
    conn.execute(
        "UPDATE OR IGNORE record_entities SET entity_id = ? WHERE entity_id = ?", (survivor, loser)
    )
    conn.execute("DELETE FROM record_entities WHERE entity_id = ?", (loser,))
    for rowid, attribute in conn.execute(
        "SELECT rowid, attribute FROM records WHERE subject_entity_id = ?", (loser,)
    ).fetchall():
        conn.execute(
            "UPDATE records SET subject_entity_id = ?, subject = ?, updated_at = ? WHERE rowid = ?",
            (survivor, subject_of(survivor, attribute), format_time(now), rowid),
        )
    # Records already linked to the survivor gain the loser's aliases too.
    rowids = sorted(
        set(repointed)
        | {
            r[0]
            for r in conn.execute(
                "SELECT record_rowid FROM record_entities WHERE entity_id = ?", (survivor,)
            )
        }
    )
    for rowid in rowids:
        subject = conn.execute(
            "SELECT coalesce(subject, '') FROM records WHERE rowid = ?", (rowid,)
        ).fetchone()[0]
        conn.execute(
            "UPDATE records_fts SET subject = ?, aliases = ? WHERE rowid = ?",
            (subject, record_alias_text(conn, rowid), rowid),
        )
    conn.execute(
        "UPDATE entities SET status = 'merged', merged_into = ? WHERE id = ?", (survivor, loser)
    )
    merged = events.EntityMerged(
        agent_id=agent_id, merged=loser, into=survivor, records=len(repointed), reason=reason
    )
    changed(conn, rowids, merged, at=now)
    return len(repointed)


def find(
    conn: sqlite3.Connection,
    key: str,
    readable: Sequence[str],
    *,
    alias: tuple[str, str, str] | None = None,
) -> tuple[str, str, str] | None:
    """A live entity by id in a readable scope, else (with ``alias``: normalised alias, kind,
    scope) the oldest one with that alias: (id, kind, scope), or None."""
    marks = ",".join("?" * len(readable))
    row = conn.execute(
        f"SELECT id, kind, scope FROM entities WHERE id = ? AND status != 'merged' "
        f"AND scope IN ({marks})",
        (key, *readable),
    ).fetchone()
    if row is None and alias is not None:
        row = conn.execute(
            "SELECT e.id, e.kind, e.scope FROM entity_aliases AS a JOIN entities AS e "
            "ON e.id = a.entity_id WHERE a.alias_norm = ? AND e.kind = ? AND e.scope = ? "
            "AND e.status != 'merged' ORDER BY e.created_at LIMIT 1",
            alias,
        ).fetchone()
    return (row[0], row[1], row[2]) if row else None


# -- the search's entity generator (core.search.generators) -----------------------------------


def named(
    conn: sqlite3.Connection, names: Sequence[str], scopes: Sequence[str]
) -> list[tuple[str, str]]:
    """(entity id, alias) of every entity not merged away in ``scopes`` with an alias whose
    normal form is one of ``names``, by entity id."""
    name_marks = ",".join("?" * len(names))
    scope_marks = ",".join("?" * len(scopes))
    rows = conn.execute(
        f"""
        SELECT DISTINCT e.id AS id, a.alias AS alias
          FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
         WHERE a.alias_norm IN ({name_marks}) AND e.scope IN ({scope_marks})
           AND e.status != 'merged'
         ORDER BY e.id
        """,
        [*names, *scopes],
    )
    return rows.fetchall()


def linked_rowids(conn: sqlite3.Connection, entity_ids: Sequence[str]) -> list[int]:
    """The rowid of every record linked to one of ``entity_ids``, once per link (a record
    linked to two of them twice), from the link table's index alone (migration 6). One JSON
    array, not a row per link: thousands of rows are slow to fetch."""
    marks = ",".join("?" * len(entity_ids))
    ((linked,),) = conn.execute(
        f"SELECT json_group_array(record_rowid) FROM record_entities WHERE entity_id IN ({marks})",
        list(entity_ids),
    ).fetchall()
    rowids: list[int] = json.loads(linked)
    return rowids


__all__ = [
    "alias_in_scope",
    "exists",
    "find",
    "insert",
    "linked_rowids",
    "match_alias",
    "merge",
    "named",
]

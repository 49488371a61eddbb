"""Keyed items: the statements behind core.items, over a caller's connection.

An item is a JSON value addressed by a namespace (a path of labels) and a key, held by one
record of the namespace's scope (the record carries the searchable text). The ``items`` table
has one row per live item; a record's tombstone deletes its row (core.store.records,
core.store.users), so an erased record takes its value with it.

The namespace is stored as a JSON array (``encode_namespace``): the text of a path's prefix,
without its closing bracket, is a prefix of the text of every path under it, so a prefix
search is one indexed comparison and labels need no escaping. A second backend implements
each function here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.models import format_time
from agent_memory.core.store.records import changed


@dataclass(frozen=True, slots=True)
class ItemRow:
    """One live item: where it is, its value as stored (JSON text) and its record."""

    namespace: tuple[str, ...]
    key: str
    scope: str
    value: str
    indexed: bool
    created_at: str
    updated_at: str
    record_rowid: int
    record_id: str
    record_status: str
    content: str


def encode_namespace(namespace: Sequence[str]) -> str:
    """A namespace as stored: a compact JSON array of its labels."""
    return json.dumps(list(namespace), ensure_ascii=False, separators=(",", ":"))


def decode_namespace(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


_SELECT = """
    SELECT i.namespace, i.key, i.scope, i.value, i.indexed, i.created_at, i.updated_at,
           i.record_rowid, r.id, r.status, r.content
      FROM items AS i JOIN records AS r ON r.rowid = i.record_rowid
"""


def _row(row: Sequence[Any]) -> ItemRow:
    return ItemRow(
        namespace=decode_namespace(row[0]),
        key=row[1],
        scope=row[2],
        value=row[3],
        indexed=bool(row[4]),
        created_at=row[5],
        updated_at=row[6],
        record_rowid=row[7],
        record_id=row[8],
        record_status=row[9],
        content=row[10],
    )


def _under(prefix: Sequence[str]) -> tuple[str, list[Any]]:
    """The condition "the namespace is ``prefix`` or lies under it" and its params."""
    if not prefix:
        return "1", []
    exact = encode_namespace(prefix)
    below = exact[:-1] + ","  # '["a","b"' + ',' starts every path under ("a", "b")
    return "(i.namespace = ? OR substr(i.namespace, 1, ?) = ?)", [exact, len(below), below]


def find_item(conn: sqlite3.Connection, namespace: Sequence[str], key: str) -> ItemRow | None:
    """The live item at (namespace, key), or None."""
    row = conn.execute(
        f"{_SELECT} WHERE i.namespace = ? AND i.key = ?", (encode_namespace(namespace), key)
    ).fetchone()
    return None if row is None else _row(row)


def items_of_records(conn: sqlite3.Connection, record_ids: Sequence[str]) -> dict[str, ItemRow]:
    """The items held by these records (by record id); records holding none are absent."""
    found: dict[str, ItemRow] = {}
    wanted = list(dict.fromkeys(record_ids))
    for start in range(0, len(wanted), 500):  # SQLite's bound-parameter limit
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"{_SELECT} WHERE r.id IN ({marks})", chunk):
            item = _row(row)
            found[item.record_id] = item
    return found


def items_under(
    conn: sqlite3.Connection,
    prefix: Sequence[str],
    scopes: Sequence[str],
    *,
    limit: int | None = None,
    offset: int = 0,
) -> list[ItemRow]:
    """Items at or under ``prefix`` in ``scopes``, most recently updated first (then by
    namespace and key, so that pages are stable between writes)."""
    if not scopes:
        return []
    where, params = _under(prefix)
    marks = ",".join("?" * len(scopes))
    sql = (
        f"{_SELECT} WHERE {where} AND i.scope IN ({marks}) "
        "ORDER BY i.updated_at DESC, i.namespace, i.key"
    )
    params += list(scopes)
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params += [limit, offset]
    elif offset:
        sql += " LIMIT -1 OFFSET ?"
        params.append(offset)
    return [_row(row) for row in conn.execute(sql, params)]


def scopes_under(conn: sqlite3.Connection, prefix: Sequence[str]) -> list[str]:
    """The scopes that hold items at or under ``prefix``."""
    where, params = _under(prefix)
    rows = conn.execute(f"SELECT DISTINCT i.scope FROM items AS i WHERE {where}", params)
    return sorted(row[0] for row in rows)


def namespaces(conn: sqlite3.Connection, scopes: Sequence[str]) -> list[tuple[str, ...]]:
    """Every namespace holding an item in ``scopes``."""
    if not scopes:
        return []
    marks = ",".join("?" * len(scopes))
    rows = conn.execute(
        f"SELECT DISTINCT namespace FROM items WHERE scope IN ({marks})", list(scopes)
    )
    return [decode_namespace(row[0]) for row in rows]


def put_item(
    conn: sqlite3.Connection,
    *,
    namespace: Sequence[str],
    key: str,
    scope: str,
    value: str,
    indexed: bool,
    record_rowid: int,
    created_at: str,
    now: datetime,
) -> None:
    """Point (namespace, key) at ``record_rowid`` with ``value``: a new row, or the old row
    replaced (it keeps its created_at)."""
    conn.execute(
        "INSERT INTO items (namespace, key, scope, record_rowid, value, indexed, created_at, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET "
        "scope = excluded.scope, record_rowid = excluded.record_rowid, value = excluded.value, "
        "indexed = excluded.indexed, updated_at = excluded.updated_at",
        (
            encode_namespace(namespace),
            key,
            scope,
            record_rowid,
            value,
            int(indexed),
            created_at,
            format_time(now),
        ),
    )


def touch_item(conn: sqlite3.Connection, namespace: Sequence[str], key: str, now: datetime) -> None:
    """The same value put again: only its updated_at moves."""
    conn.execute(
        "UPDATE items SET updated_at = ? WHERE namespace = ? AND key = ?",
        (format_time(now), encode_namespace(namespace), key),
    )


def supersede(
    conn: sqlite3.Connection,
    rowid: int,
    record_id: str,
    *,
    by: str,
    agent_id: str | None,
    now: datetime,
) -> None:
    """Inside the transaction that inserted ``by``: the item's previous record is superseded
    (kept for history and audit, as every replaced record is)."""
    conn.execute(
        "UPDATE records SET status = 'superseded', updated_at = ? WHERE rowid = ? "
        "AND status IN ('provisional', 'confirmed')",
        (format_time(now), rowid),
    )
    changed(
        conn,
        [rowid],
        events.RecordSuperseded(record_id=record_id, agent_id=agent_id, by=by),
        at=now,
    )


__all__ = [
    "ItemRow",
    "decode_namespace",
    "encode_namespace",
    "find_item",
    "items_of_records",
    "items_under",
    "namespaces",
    "put_item",
    "scopes_under",
    "supersede",
    "touch_item",
]

"""A user's data on request (issue 16, item 4): erase it all, or export it all.

``forget_user`` erases, in one transaction, every record in ``user:<id>`` and in every private
``agent:<agent>/<id>`` scope (each becomes a tombstone, as memory_forget leaves one: content,
evidence, FTS row, vector, tags, entity links and observations gone), the user's sessions with
their transcripts and extraction jobs, their search_log and write_log rows, the entities and
aliases of their scopes, and the suppressions left there. Then the FTS index is merged and the
WAL checkpointed, as for a forget. It answers with a receipt: rows per table and the ids of
the records and sessions erased. A user with no data gets an empty receipt and nothing changes;
an invalid user id is an InvalidIdentifier error.

``export_user`` writes one JSON object per line (format ``agent-memory-user-export`` 1):

    {"kind": "header", "format": ..., "version": 1, "user_id": ..., "exported_at": ...}
    {"kind": "record", "scope": ..., "record": {the Record shape, with lineage_id, status,
        created_at, stated_at and the other times}}          one per record, tombstones left out
    {"kind": "entity", "id", "scope", "entity_kind", "canonical_name", "status", "aliases"}
    {"kind": "session", "session_id", "agent_id", "started_at", "ended_at",
        "turns": [{"seq", "role", "content", "at", "tool"}]}

``agent-memory import FILE`` recognises the header and imports the live records (provisional and
confirmed) into the scopes they came from (or ``--scope``), as a host import: content, type,
source kind, source_ref, event_at, attribute, tags, evidence and ``about`` (the subject
entity's name). History, entities and sessions are in the file for the user to read; they are
not imported.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import InvalidArgument
from core.models import format_time, validate_id
from core.records import append_event, bump_records_version, select_records

if TYPE_CHECKING:
    from core.memory import Memory

EXPORT_FORMAT = "agent-memory-user-export"
EXPORT_VERSION = 1
# user:<id> and every agent:<agent>/<id> (ids cannot contain '/', so the suffix is exact).
_USER_SCOPES = (
    "(scope = 'user:' || :user OR (substr(scope, 1, 6) = 'agent:' "
    "AND substr(scope, -length(:user) - 1) = '/' || :user))"
)


def forget_user(memory: Memory, user_id: str, *, now: datetime) -> dict[str, Any]:
    """Erase everything of ``user_id`` (see the module doc); the receipt."""
    user = validate_id(user_id, what="user_id")
    store = memory.store
    if not _has_data(store.query, user):
        return {"user_id": user, "counts": {}, "record_ids": [], "session_ids": []}
    with store.transaction() as conn:
        receipt = _erase(conn, user, now)
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('purge_pending', ?)",
            (format_time(now),),
        )
    receipt["purge_pending"] = store.retry_purge() is False
    return receipt


def _has_data(query: Any, user: str) -> bool:
    """Whether anything of ``user`` is stored (a read: an empty receipt changes nothing)."""
    params = {"user": user}
    return bool(
        query(f"SELECT 1 FROM records WHERE {_USER_SCOPES} AND status != 'deleted' LIMIT 1", params)
        or query("SELECT 1 FROM sessions WHERE user_id = :user LIMIT 1", params)
        or query("SELECT 1 FROM search_log WHERE user_id = :user LIMIT 1", params)
        or query("SELECT 1 FROM write_log WHERE user_id = :user LIMIT 1", params)
        or query(f"SELECT 1 FROM entities WHERE {_USER_SCOPES} LIMIT 1", params)
    )


def _erase(conn: sqlite3.Connection, user: str, now: datetime) -> dict[str, Any]:
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
    ):
        counts[table] = conn.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount
    counts.update(_erase_entities(conn, params))
    counts["suppressions"] = conn.execute(
        f"DELETE FROM suppressions WHERE {_USER_SCOPES}", params
    ).rowcount
    ids = [r[1] for r in rows]
    conn.execute("INSERT INTO erasures (at, user_id) VALUES (?, ?)", (format_time(now), user))
    if any(counts.values()):
        append_event(
            conn,
            kind="user.forgotten",
            at=now,
            payload={"user_id": user, "counts": counts, "sessions": len(sessions)},
        )
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
        ("record_tags", "record_rowid"),
        ("record_entities", "record_rowid"),
        ("observations", "record_rowid"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT rowid FROM erase_rowids)")
    bump_records_version(conn, rowids)
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


def export_user(memory: Memory, user_id: str, path: str | Path, *, now: datetime) -> dict[str, int]:
    """Write everything of ``user_id`` to ``path`` (see the module doc); counts per kind.

    Like a snapshot, the export goes to a new file: an existing path (the store itself, say)
    is refused, and the file appears only once complete (written beside it, then linked into
    place), so a failure leaves nothing behind; it is readable by its owner only. A path that
    cannot be written is an InvalidArgument."""
    user = validate_id(user_id, what="user_id")
    destination = Path(path)
    if destination.exists():
        raise InvalidArgument(f"{destination} already exists; choose a new file", field="path")
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(  # mode 0600: the file holds personal data
            prefix=f".{destination.name}.", suffix=".partial", dir=destination.parent
        )
    except OSError as exc:
        raise _unwritable(destination, exc) from None
    try:
        with open(handle, "w", encoding="utf-8") as out:
            counts = _export(memory, user, out, now)
        os.link(partial, destination)  # fails, rather than replaces, if the path appeared since
    except FileExistsError:
        raise InvalidArgument(
            f"{destination} already exists; choose a new file", field="path"
        ) from None
    except OSError as exc:
        raise _unwritable(destination, exc) from None
    finally:
        os.unlink(partial)
    return counts


def _unwritable(destination: Path, exc: OSError) -> InvalidArgument:
    return InvalidArgument(
        f"cannot write the export to {destination}: {exc.strerror or type(exc).__name__}",
        field="path",
    )


def _export(memory: Memory, user: str, out: Any, now: datetime) -> dict[str, int]:
    counts = {"records": 0, "entities": 0, "sessions": 0}
    with memory.store.reading() as conn:
        _line(
            out,
            {
                "kind": "header",
                "format": EXPORT_FORMAT,
                "version": EXPORT_VERSION,
                "user_id": user,
                "exported_at": format_time(now),
            },
        )
        records = select_records(
            conn,
            "r.status != 'deleted' AND (r.scope = ? OR (substr(r.scope, 1, 6) = 'agent:' "
            "AND substr(r.scope, -length(?) - 1) = '/' || ?)) ORDER BY r.rowid",
            (f"user:{user}", user, user),
        )
        for record in records:
            _line(out, {"kind": "record", "scope": record.scope, "record": _full(record)})
        counts["records"] = len(records)
        counts["entities"] = _write_entities(conn, out, user)
        counts["sessions"] = _write_sessions(conn, out, user)
    return counts


def _full(record: Any) -> dict[str, Any]:
    data = record.to_json()
    data.update(lineage_id=record.lineage_id, stated_at=record.stated_at, scope=record.scope)
    return data


def _write_entities(conn: sqlite3.Connection, out: Any, user: str) -> int:
    rows = conn.execute(
        "SELECT e.id, e.scope, e.kind, e.canonical_name, e.status, "
        "(SELECT json_group_array(alias) FROM entity_aliases WHERE entity_id = e.id) "
        f"FROM entities AS e WHERE {_USER_SCOPES.replace('scope', 'e.scope')}",
        {"user": user},
    ).fetchall()
    for entity_id, scope, kind, name, status, aliases in rows:
        _line(
            out,
            {
                "kind": "entity",
                "id": entity_id,
                "scope": scope,
                "entity_kind": kind,
                "canonical_name": name,
                "status": status,
                "aliases": json.loads(aliases),
            },
        )
    return len(rows)


def _write_sessions(conn: sqlite3.Connection, out: Any, user: str) -> int:
    sessions = conn.execute(
        "SELECT session_id, agent_id, started_at, ended_at FROM sessions WHERE user_id = ? "
        "ORDER BY started_at",
        (user,),
    ).fetchall()
    for session_id, agent_id, started, ended in sessions:
        turns = conn.execute(
            "SELECT seq, role, content, at, tool FROM turns WHERE session_id = ? ORDER BY seq",
            (session_id,),
        ).fetchall()
        _line(
            out,
            {
                "kind": "session",
                "session_id": session_id,
                "agent_id": agent_id,
                "started_at": started,
                "ended_at": ended,
                "turns": [
                    dict(zip(("seq", "role", "content", "at", "tool"), t, strict=True))
                    for t in turns
                ],
            },
        )
    return len(sessions)


def _line(out: Any, data: Mapping[str, Any]) -> None:
    out.write(json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n")


IMPORTED_FIELDS = (
    "type",
    "content",
    "source_kind",
    "source_ref",
    "event_at",
    "attribute",
    "tags",
    "evidence",
)


def import_items(lines: Iterable[Any]) -> dict[str, list[dict[str, Any]]]:
    """The live records of an export file (its parsed lines, header first) as import items,
    by the scope they came from. A malformed line is an InvalidArgument naming it."""
    by_scope: dict[str, list[dict[str, Any]]] = {}
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, Mapping):
            raise InvalidArgument(f"line {number}: not a JSON object", field="line")
        if line.get("kind") != "record":
            continue
        scope, record = _record_line(number, line)
        if record.get("status") not in ("provisional", "confirmed"):
            continue
        item = {k: record[k] for k in IMPORTED_FIELDS if record.get(k) not in (None, [])}
        if not scope.startswith("user:") and item.get("type", "semantic") != "episodic":
            # outside user:<id> an import names what a record is about: the user it was kept for
            item["about"] = [{"kind": "person", "name": scope.rsplit("/", 1)[-1]}]
        by_scope.setdefault(scope, []).append(item)
    return by_scope


def _record_line(number: int, line: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """A record line's scope and record, or an InvalidArgument naming the line (a file
    edited by hand, or cut short)."""
    scope, record = line.get("scope"), line.get("record")
    if not isinstance(scope, str):
        raise InvalidArgument(f"line {number}: a record line needs a scope string", field="scope")
    if not isinstance(record, Mapping):
        raise InvalidArgument(f"line {number}: a record line needs a record object", field="record")
    if not isinstance(record.get("status"), str):
        raise InvalidArgument(
            f"line {number}: the record's status must be a string", field="status"
        )
    return scope, record


def is_export(first: Mapping[str, Any]) -> bool:
    return first.get("kind") == "header" and first.get("format") == EXPORT_FORMAT

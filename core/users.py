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
source kind, source_ref, event_at, stated_at (so a restored store ranks what was said
later first, as the original did), attribute, tags, evidence and ``about`` (the subject
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

from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import format_time, validate_id
from agent_memory.core.store import users as stored

if TYPE_CHECKING:
    from agent_memory.core.store import Store

EXPORT_FORMAT = "agent-memory-user-export"
EXPORT_VERSION = 1


def forget_user(store: Store, user_id: str, *, now: datetime) -> dict[str, Any]:
    """Erase everything of ``user_id`` (see the module doc); the receipt."""
    user = validate_id(user_id, what="user_id")
    with store.reading() as conn:
        if not stored.has_data(conn, user):  # an empty receipt changes nothing
            return {"user_id": user, "counts": {}, "record_ids": [], "session_ids": []}
    with store.transaction() as conn:
        receipt = stored.erase(conn, user, now)
    receipt["purge_pending"] = store.retry_purge() is False
    return receipt


def export_user(store: Store, user_id: str, path: str | Path, *, now: datetime) -> dict[str, int]:
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
            counts = _export(store, user, out, now)
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


def _export(store: Store, user: str, out: Any, now: datetime) -> dict[str, int]:
    counts = {"records": 0, "entities": 0, "sessions": 0}
    with store.reading() as conn:
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
        records = stored.live_records(conn, user)
        for record in records:
            _line(out, {"kind": "record", "scope": record.scope, "record": _full(record)})
        counts["records"] = len(records)
        counts["entities"] = _write_entities(conn, out, user)
        counts["sessions"] = _write_sessions(conn, out, user)
    return counts


def _full(record: Any) -> dict[str, Any]:
    data: dict[str, Any] = record.to_json()
    data.update(lineage_id=record.lineage_id, stated_at=record.stated_at, scope=record.scope)
    return data


def _write_entities(conn: sqlite3.Connection, out: Any, user: str) -> int:
    rows = stored.entities(conn, user)
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
    sessions = stored.sessions(conn, user)
    for session_id, agent_id, started, ended in sessions:
        turns = stored.turns(conn, session_id)
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
    "stated_at",
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

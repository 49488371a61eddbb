"""The copies of a forgotten record's words outside its own row (issue 16, item 3).

A record's text is quoted in more places than the records table: the search log keeps the
queries and explanations of searches that returned it, the write log the requests that wrote
it, a session's job stages the candidates and decisions of its extraction, session summaries
may repeat it, and an entity it alone introduced keeps the name it was given. ``scrub`` runs
in the forget's transaction, while the record still holds its content, and erases each:

- search_log, write_log, job_stages: every JSON string that contains one of the record's
  phrases (its content, its evidence quote; normalised, at least three words) or that sits in
  an object naming the record's id under a text key becomes ``[forgotten]``; a search query
  containing a phrase becomes ``[forgotten]``. Ids, timings and decisions stay.
- session summaries of the same scope that contain a phrase are returned for erasure (a
  summary is rewritten by no one: it goes, with its own tombstone and event).
- entities linked to the record and to nothing else (no other record, no merge) lose their
  aliases and their row, except a user's own entity.

Each change appends an event with ids and counts, never words.
"""

from __future__ import annotations

import json
import sqlite3
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.store.log import append
from agent_memory.core.write.evidence import normalise

FORGOTTEN = "[forgotten]"
# Keys whose string value is the record's text when they sit beside its id.
_TEXT_KEYS = frozenset(
    {"content", "evidence", "attribute", "subject", "procedure", "context", "summary", "query"}
)


# Top-level keys of a log row about the record that hold what was asked or written.
_ROW_TEXT_KEYS = frozenset({"request", "query", "rewritten_query"})


@dataclass(slots=True)
class Scrubbed:
    """What ``scrub`` changed: rows per table, and the summaries left for the caller to erase."""

    rows: dict[str, int] = field(default_factory=dict)
    summaries: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)


def phrases(*texts: str | None) -> list[str]:
    """The normalised forms of ``texts`` long enough to identify them (three words or more),
    without the punctuation at their ends: a record's content ends with a period that a
    text quoting it in a list ("Remembered: X; Y.") or mid-sentence does not have."""
    found = (normalise(t).strip(_EDGE) for t in texts if t)
    return [p for p in found if len(p.split()) >= 3]


_EDGE = string.punctuation + string.whitespace + "«»…"


def scrub(
    conn: sqlite3.Connection,
    *,
    record_id: str,
    rowid: int,
    scope: str,
    user_id: str | None,
    needles: Sequence[str],
    now: datetime,
) -> Scrubbed:
    """Erase the record's words from the side tables (see the module doc)."""
    done = Scrubbed()
    done.rows["search_log"] = _scrub_search_log(conn, record_id, user_id, needles)
    done.rows["write_log"] = _scrub_json_rows(
        conn, "write_log", "id", "payload", "record_id = ?", [record_id], record_id, needles
    )
    done.rows["job_stages"] = _scrub_job_stages(conn, record_id, user_id, needles)
    done.summaries = _summaries_quoting(conn, rowid, scope, needles)
    done.entities = _erase_lone_entities(conn, rowid)
    erased = events.RecordTracesErased(
        record_id=record_id, rows=done.rows, summaries=done.summaries, entities=done.entities
    )
    append(conn, erased, at=now)
    return done


def _scrub_search_log(
    conn: sqlite3.Connection, record_id: str, user_id: str | None, needles: Sequence[str]
) -> int:
    where = "instr(result_ids, ?) > 0 OR instr(payload, ?) > 0"
    params: list[Any] = [record_id, record_id]
    if user_id is not None and needles:
        where += " OR user_id = ?"
        params.append(user_id)
    rows = conn.execute(
        f"SELECT id, query, payload FROM search_log WHERE {where}", params
    ).fetchall()
    changed = 0
    for log_id, query, payload in rows:
        cited = record_id in payload
        new_query = FORGOTTEN if cited or _quotes(query, needles) else query
        # The query that found the record is repeated in the explanation (and rewritten).
        also = [normalise(query)] if new_query != query and query.strip() else []
        new_payload = _scrub_value(json.loads(payload), record_id, [*needles, *also], quoted=cited)
        if new_query != query or new_payload != json.loads(payload):
            conn.execute(
                "UPDATE search_log SET query = ?, payload = ? WHERE id = ?",
                (new_query, json.dumps(new_payload, sort_keys=True), log_id),
            )
            changed += 1
    return changed


def _scrub_job_stages(
    conn: sqlite3.Connection, record_id: str, user_id: str | None, needles: Sequence[str]
) -> int:
    """The stage outputs of the user's sessions' jobs (all jobs, for a shared scope)."""
    if user_id is None:
        where, params = "s.output IS NOT NULL", []
    else:
        where = (
            "s.output IS NOT NULL AND j.session_id IN (SELECT session_id FROM sessions "
            "WHERE user_id = ?)"
        )
        params = [user_id]
    rows = conn.execute(
        f"SELECT s.job_id, s.stage, s.output FROM job_stages AS s "
        f"JOIN jobs AS j ON j.job_id = s.job_id WHERE {where}",
        params,
    ).fetchall()
    changed = 0
    for job_id, stage, output in rows:
        before = json.loads(output)
        after = _scrub_value(before, record_id, needles)
        if after != before:
            conn.execute(
                "UPDATE job_stages SET output = ? WHERE job_id = ? AND stage = ?",
                (json.dumps(after), job_id, stage),
            )
            changed += 1
    return changed


def _scrub_json_rows(
    conn: sqlite3.Connection,
    table: str,
    key: str,
    column: str,
    where: str,
    params: Sequence[Any],
    record_id: str,
    needles: Sequence[str],
) -> int:
    rows = conn.execute(f"SELECT {key}, {column} FROM {table} WHERE {where}", params).fetchall()
    changed = 0
    for row_key, text in rows:
        before = json.loads(text)
        after = _scrub_value(before, record_id, needles, quoted=True)
        if after != before:
            conn.execute(
                f"UPDATE {table} SET {column} = ? WHERE {key} = ?", (json.dumps(after), row_key)
            )
            changed += 1
    return changed


def _scrub_value(
    value: Any, record_id: str, needles: Sequence[str], *, quoted: bool = False
) -> Any:
    """``value`` with every string quoting a phrase replaced, and every text key of an object
    that names the record; with ``quoted`` (``value`` is a log row about the record) also its
    request and query."""
    if isinstance(value, str):
        return FORGOTTEN if _quotes(value, needles) else value
    if isinstance(value, list):
        return [_scrub_value(v, record_id, needles, quoted=quoted) for v in value]
    if isinstance(value, dict):
        names = record_id in (value.get("id"), value.get("record_id"))
        if quoted:  # the row itself is about the record: its request and query are its words
            value = {k: FORGOTTEN if k in _ROW_TEXT_KEYS else v for k, v in value.items()}
            quoted = False
        out = {}
        for k, v in value.items():
            if names and k in _TEXT_KEYS and isinstance(v, str | dict | list):
                out[k] = FORGOTTEN
            else:
                out[k] = _scrub_value(v, record_id, needles, quoted=quoted)
        return out
    return value


def _quotes(text: str, needles: Sequence[str]) -> bool:
    if not needles:
        return False
    normal = normalise(text)
    return any(n in normal for n in needles)


def _summaries_quoting(
    conn: sqlite3.Connection, rowid: int, scope: str, needles: Sequence[str]
) -> list[str]:
    if not needles:
        return []
    rows = conn.execute(
        "SELECT id, content FROM records WHERE scope = ? AND rowid != ? AND status != 'deleted' "
        "AND type = 'episodic' AND EXISTS (SELECT 1 FROM json_each(tags) "
        "WHERE value = 'session-summary')",
        (scope, rowid),
    ).fetchall()
    return [record_id for record_id, content in rows if _quotes(content, needles)]


def _erase_lone_entities(conn: sqlite3.Connection, rowid: int) -> list[str]:
    """Unlink the record from its entities; erase those it alone was linked to."""
    linked = [
        r[0]
        for r in conn.execute(
            "SELECT entity_id FROM record_entities WHERE record_rowid = ? UNION "
            "SELECT subject_entity_id FROM records WHERE rowid = ? AND subject_entity_id "
            "IS NOT NULL",
            (rowid, rowid),
        )
    ]
    conn.execute("DELETE FROM record_entities WHERE record_rowid = ?", (rowid,))
    conn.execute("UPDATE records SET subject_entity_id = NULL WHERE rowid = ?", (rowid,))
    erased = []
    for entity_id in linked:
        if entity_id.startswith("ent_user_") or _still_used(conn, entity_id):
            continue
        conn.execute("DELETE FROM entity_aliases WHERE entity_id = ?", (entity_id,))
        conn.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        erased.append(entity_id)
    return erased


def _still_used(conn: sqlite3.Connection, entity_id: str) -> bool:
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM record_entities WHERE entity_id = ?) "
        "OR EXISTS (SELECT 1 FROM records WHERE subject_entity_id = ?) "
        "OR EXISTS (SELECT 1 FROM entities WHERE merged_into = ?)",
        (entity_id, entity_id, entity_id),
    ).fetchone()
    return bool(row[0])


__all__ = ["FORGOTTEN", "Scrubbed", "phrases", "scrub"]

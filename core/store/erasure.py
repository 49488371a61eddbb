"""What a forget leaves and erases beside the record's own row (core.erasure, core.ledger):
the erasure ledger, suppressions, redacted turns, the evidence turns a record was found in,
and the copies of its words in the logs, job stages, summaries and entities (core.traces).

The ledger (``erasures``) and the erasure events survive a restore: core.ledger reads them from
the store being replaced and copies back what the snapshot lacks. A second backend implements
each function here.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.models import Record, format_time
from agent_memory.core.store.log import append
from agent_memory.core.store.records import RECORD_SELECT, row_to_record

# The events an erasure appends: kept, with the ledger, across a restore.
ERASURE_EVENTS = (
    events.RecordForgotten.kind,
    events.RecordSuppressed.kind,
    events.RecordRedacted.kind,
    events.RecordTracesErased.kind,
    events.RecordContextErased.kind,
    events.TurnRedacted.kind,
    events.UserForgotten.kind,
)


def erased_record(conn: sqlite3.Connection, rowid: int) -> tuple[Any, ...]:
    """(id, scope, content, evidence, model name, vector) of a record about to be erased."""
    row = conn.execute(
        "SELECT r.id, r.scope, r.content, r.evidence, e.model_name, e.vector "
        "FROM records AS r LEFT JOIN embeddings AS e ON e.record_rowid = r.rowid "
        "WHERE r.rowid = ?",
        (rowid,),
    ).fetchone()
    return tuple(row)


def add_to_ledger(conn: sqlite3.Connection, record_id: str, digest: str, now: datetime) -> None:
    conn.execute(
        "INSERT INTO erasures (at, record_id, content_digest) VALUES (?, ?, ?)",
        (format_time(now), record_id, digest),
    )


def add_suppression(
    conn: sqlite3.Connection,
    record_id: str,
    scope: str,
    digest: str,
    model_name: str | None,
    vector: bytes | None,
    now: datetime,
) -> None:
    conn.execute(
        "INSERT INTO suppressions (record_id, scope, content_digest, model_name, vector, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (record_id, scope, digest, model_name, vector, format_time(now)),
    )


def suppressions(
    store: Any, scopes: Sequence[str], *, after: str | None = None
) -> list[sqlite3.Row]:
    """The suppressions left in any of ``scopes`` (one read of ``store``); with ``after`` (a
    stored time), only those left later."""
    marks = ",".join("?" * len(scopes)) or "NULL"
    since = "" if after is None else " AND created_at > ?"
    return list(
        store.query(
            "SELECT content_digest, model_name, vector, created_at FROM suppressions "
            f"WHERE scope IN ({marks}){since}",
            [*scopes, *([] if after is None else [after])],
        )
    )


def assistant_words_holding(
    store: Any, match: str, users: Sequence[str], limit: int
) -> list[sqlite3.Row]:
    """(id, scope, evidence) of the live assistant's words (core.extraction.replies) in the
    private scopes of ``users`` whose own words (the content column) match the FTS5
    expression ``match``, those sharing the most words first, at most ``limit``. LIKE ignores
    case: the caller keeps the rows of its users' scopes exactly."""
    scopes = " OR ".join("r.scope LIKE ? ESCAPE '\\'" for _ in users)
    return list(
        store.query(
            "SELECT r.id, r.scope, r.evidence FROM records_fts JOIN records AS r ON r.rowid = "
            "records_fts.rowid WHERE records_fts MATCH ? AND r.said_by IS NOT NULL "
            f"AND r.status IN ('provisional', 'confirmed') AND ({scopes}) "
            "ORDER BY bm25(records_fts) LIMIT ?",
            (f"content : ({match})", *(f"agent:%/{_like(u)}" for u in users), limit),
        )
    )


def users_words_matching(
    store: Any, scope: str, match: str, *, besides: str, limit: int
) -> list[str]:
    """The contents of the live records of ``scope`` that are the user's own (neither the
    assistant's words nor a session summary), not of the lineage ``besides``, and match the
    FTS5 expression ``match`` in their content, those sharing the most words first, at most
    ``limit``."""
    return [
        row["content"]
        for row in store.query(
            "SELECT r.content FROM records_fts JOIN records AS r ON r.rowid = records_fts.rowid "
            "WHERE records_fts MATCH ? AND r.said_by IS NULL AND r.scope = ? "
            "AND r.status IN ('provisional', 'confirmed') AND r.source_kind != 'session_summary' "
            "AND r.lineage_id != ? ORDER BY bm25(records_fts) LIMIT ?",
            (f"content : ({match})", scope, besides, limit),
        )
    ]


def _like(text: str) -> str:
    """``text`` as a LIKE pattern matching it literally (escape character backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def turns_of(conn: sqlite3.Connection, user: str | None) -> list[tuple[str, int, str]]:
    """(session, seq, text) of every turn of ``user``'s sessions (of every session: None)."""
    where, params = ("s.user_id = ?", [user]) if user else ("1", [])
    rows = conn.execute(
        "SELECT t.session_id, t.seq, t.content FROM turns AS t "
        f"JOIN sessions AS s ON s.session_id = t.session_id WHERE {where}",
        params,
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def redact_turn(
    conn: sqlite3.Connection, text: str, redacted: events.TurnRedacted, *, now: datetime
) -> None:
    """Replace a turn's text with ``text`` and append the event naming it."""
    conn.execute(
        "UPDATE turns SET content = ? WHERE session_id = ? AND seq = ?",
        (text, redacted.session_id, redacted.seq),
    )
    append(conn, redacted, at=now)


def evidence_turns(conn: sqlite3.Connection, rowid: int) -> list[tuple[str, int]]:
    """The (session, turn) pairs the record's observations found its quotes in."""
    rows = conn.execute(
        "SELECT DISTINCT session_id, turn_seq FROM observations "
        "WHERE record_rowid = ? AND session_id IS NOT NULL AND turn_seq IS NOT NULL",
        (rowid,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def contexts_of(conn: sqlite3.Connection, rowids: Sequence[int]) -> list[tuple[int, str]]:
    """(rowid, retrieval context) of those of ``rowids`` that are live and have one."""
    if not rowids:
        return []
    marks = ",".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT rowid, context FROM records WHERE rowid IN ({marks}) "
        "AND context IS NOT NULL AND status != 'deleted'",
        list(rowids),
    ).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


def record_at(conn: sqlite3.Connection, rowid: int) -> Record:
    """The record stored at ``rowid``, read in the caller's transaction."""
    cursor = conn.cursor()
    cursor.row_factory = sqlite3.Row  # the transaction's connection returns tuples
    return row_to_record(cursor.execute(f"{RECORD_SELECT} WHERE r.rowid = ?", (rowid,)).fetchone())


def live_contexts(
    conn: sqlite3.Connection, probes: Sequence[Sequence[str]] | None = None, *, after: int = 0
) -> list[tuple[int, str]]:
    """(rowid, retrieval context) of every live record that has one; with ``probes`` (groups
    of words of ASCII letters and digits), only those that hold every word of a group, in any
    case, or hold a character outside printable ASCII (whose normal form may hold them:
    core.write.evidence.normalise). ``after``: only records written after that rowid."""
    sql = (
        "SELECT rowid, context FROM records WHERE rowid > ? AND context IS NOT NULL "
        "AND status != 'deleted'"
    )
    params: list[object] = [after]
    if probes is not None:
        groups = [" AND ".join("context LIKE ?" for _ in words) for words in probes if words]
        sql += " AND (" + " OR ".join(["context GLOB ?", *(f"({g})" for g in groups)]) + ")"
        params += [_NOT_PLAIN, *(f"%{w}%" for words in probes for w in words)]
    return [(int(r[0]), str(r[1])) for r in conn.execute(sql, params).fetchall()]


# A text holding a character that is neither printable ASCII nor a tab or line break.
_NOT_PLAIN = "*[^\t\n\r -~]*"


def replace_context(
    conn: sqlite3.Connection, rowid: int, context: str | None, vector: bytes | None
) -> None:
    """A live record's retrieval context replaced by ``context`` (None: dropped; an imported
    turn keeps its session's date), in the row, the full-text index and its vector
    (``vector``, embedded without the old context; None deletes it). Its own words are then
    its vector: a passage of one (core.passages, ``in_context``) goes with the old context. A
    staged re-embedding read the old context: it goes, and the re-embed stages the record
    again."""
    conn.execute("UPDATE records SET context = ? WHERE rowid = ?", (context, rowid))
    conn.execute("UPDATE records_fts SET context = ? WHERE rowid = ?", (context or "", rowid))
    if vector is None:
        conn.execute("DELETE FROM embeddings WHERE record_rowid = ?", (rowid,))
    else:
        conn.execute(
            "UPDATE embeddings SET vector = ?1, passages = CASE WHEN "
            "length(passages) = 4 * dims THEN NULL ELSE passages END WHERE record_rowid = ?2",
            (vector, rowid),
        )
    conn.execute("DELETE FROM embeddings_staging WHERE record_rowid = ?", (rowid,))


def kept_parts(store: Any) -> dict[str, str]:
    """{the id of a kept part: the id of the statement it was kept from}, from the
    ``record.part_kept`` events, oldest first."""
    rows = store.query(
        "SELECT record_id, json_extract(payload, '$.retired') AS retired FROM events "
        "WHERE kind = 'record.part_kept' ORDER BY seq"
    )
    return {row["record_id"]: row["retired"] for row in rows}


def summaries_narrowed(store: Any, retired: str) -> list[str]:
    """The ids of the session summaries that dropped ``retired`` from what they list
    (``record.summary_narrowed`` events, core.write.supersession.narrow_summaries), oldest
    first."""
    rows = store.query(
        "SELECT record_id FROM events WHERE kind = 'record.summary_narrowed' "
        "AND json_extract(payload, '$.retired') = ? ORDER BY seq",
        (retired,),
    )
    return [row["record_id"] for row in rows]


def kept_with(store: Any, record_id: str) -> list[str]:
    """The records holding words of ``record_id`` through a kept part (``record.part_kept``
    events, core.write.supersession.keep_part): the statement it was kept from (and that
    one's, in turn), and the parts kept from it (and theirs); not a part kept from its
    statement beside it, which holds other words. Not tombstones; in its scope."""
    source = kept_parts(store)
    parts: dict[str, list[str]] = {}
    for part, statement in source.items():
        parts.setdefault(statement, []).append(part)
    found: list[str] = []
    up = source.get(record_id)
    while up is not None and up not in found and up != record_id:
        found.append(up)
        up = source.get(up)
    down = list(parts.get(record_id, ()))
    while down:
        part = down.pop()
        if part not in found and part != record_id:
            found.append(part)
            down += parts.get(part, ())
    if not found:
        return []
    marks = ", ".join("?" * len(found))
    live = store.query(  # in the scope of ``record_id``: where the caller may erase
        f"SELECT id FROM records WHERE id IN ({marks}) AND status != 'deleted' AND scope = "
        "(SELECT scope FROM records WHERE id = ?) ORDER BY rowid",
        (*found, record_id),
    )
    return [r["id"] for r in live]


def turn_siblings(conn: sqlite3.Connection, record: Record, quote: str) -> list[Record]:
    """The other live records of ``record``'s scope and session whose retrieval context still
    holds ``quote``: those extracted from its turn (a statement time would not do: a record
    restated later takes the later time), never an imported turn (source system), whose
    context quotes the turns before it as they were said."""
    cursor = conn.cursor()
    cursor.row_factory = sqlite3.Row  # the transaction's connection returns tuples
    rows = cursor.execute(
        f"{RECORD_SELECT} WHERE r.scope = ? AND r.session_id = ? AND instr(r.context, ?) > 0 "
        "AND r.rowid != ? AND r.source_kind != 'system' "
        "AND r.status IN ('confirmed', 'provisional')",
        (record.scope, record.session_id, quote, record.rowid),
    ).fetchall()
    return [row_to_record(row) for row in rows]


def retired_quotes(conn: sqlite3.Connection, record: Record) -> list[str]:
    """The evidence quotes of the superseded records of ``record``'s scope and session that
    its retrieval context holds: the retired statements of its turn (imported turns aside)."""
    rows = conn.execute(
        "SELECT evidence FROM records WHERE scope = ? AND session_id = ? "
        "AND status = 'superseded' AND source_kind != 'system' AND evidence IS NOT NULL "
        "AND instr(?, evidence) > 0",
        (record.scope, record.session_id, record.context),
    ).fetchall()
    return [row[0] for row in rows]


def summaries_saying(conn: sqlite3.Connection, record: Record, words: str) -> list[Record]:
    """The live session summaries the extraction pipeline wrote (under its ``summary:<session>``
    ingest key; not an agent's note tagged like one) for the sessions that observed ``record``
    (created or reinforced it), whatever scope each went to, whose content holds ``words``.
    A summary lists what its own session confirmed, so no other summary lists the record; read
    through the observations' and the keys' indexes, never a scan of the store."""
    cursor = conn.cursor()
    cursor.row_factory = sqlite3.Row  # the transaction's connection returns tuples
    rows = cursor.execute(
        f"{RECORD_SELECT} WHERE r.id IN (SELECT k.record_id FROM ingest_keys AS k WHERE k.key IN "
        "(SELECT 'summary:' || o.session_id FROM observations AS o WHERE o.record_rowid = ? "
        "AND o.session_id IS NOT NULL)) AND r.status IN ('confirmed', 'provisional') "
        "AND instr(r.content, ?) > 0",
        (record.rowid, words),
    ).fetchall()
    return [row_to_record(row) for row in rows]


def replace_text(
    conn: sqlite3.Connection, record: Record, vector: bytes, passages: bytes | None
) -> None:
    """A live record's content and retrieval context replaced by ``record``'s, in the row, the
    full-text index, its vector (``vector``, embedded from them) and its passages' vectors
    (``passages``, core.passages: none of the old text's stay); a staged re-embedding read the
    old text: it goes, and the re-embed stages the record again."""
    text = (record.content, record.context, record.rowid)
    conn.execute("UPDATE records SET content = ?, context = ? WHERE rowid = ?", text)
    conn.execute(
        "UPDATE records_fts SET content = ?, context = ? WHERE rowid = ?",
        (record.content, record.context or "", record.rowid),
    )
    conn.execute(
        "UPDATE embeddings SET vector = ?, passages = ? WHERE record_rowid = ?",
        (vector, passages, record.rowid),
    )
    conn.execute("DELETE FROM embeddings_staging WHERE record_rowid = ?", (record.rowid,))


def ledger(store: Any) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ledger rows and erasure events of the store as it is now."""
    rows = store.query("SELECT at, record_id, user_id, content_digest FROM erasures ORDER BY id")
    marks = ",".join("?" * len(ERASURE_EVENTS))
    erasures = store.query(
        f"SELECT at, kind, record_id, agent_id, payload FROM events WHERE kind IN ({marks}) "
        "ORDER BY seq",
        ERASURE_EVENTS,
    )
    return [tuple(r) for r in rows], [tuple(r) for r in erasures]


def copy_missing(
    conn: sqlite3.Connection, rows: list[tuple[Any, ...]], erasures: list[tuple[Any, ...]]
) -> None:
    """Inside a transaction: add the ledger rows and erasure events this store lacks (as read
    by ``ledger`` from the store it replaced)."""
    have = set(
        conn.execute("SELECT at, record_id, user_id, content_digest FROM erasures").fetchall()
    )
    conn.executemany(
        "INSERT INTO erasures (at, record_id, user_id, content_digest) VALUES (?, ?, ?, ?)",
        [row for row in rows if row not in have],
    )
    marks = ",".join("?" * len(ERASURE_EVENTS))
    seen = set(
        conn.execute(
            f"SELECT at, kind, record_id, agent_id, payload FROM events WHERE kind IN ({marks})",
            ERASURE_EVENTS,
        ).fetchall()
    )
    conn.executemany(
        "INSERT INTO events (at, kind, record_id, agent_id, payload) VALUES (?, ?, ?, ?, ?)",
        [row for row in erasures if row not in seen],
    )


# -- the copies of a forgotten record's words outside its row (core.traces) -------------------


def search_log_rows(
    conn: sqlite3.Connection, record_id: str, *, user_id: str | None = None
) -> list[tuple[str, str, str]]:
    """(id, query, payload) of the search log rows that returned or cite ``record_id``, and
    with ``user_id`` every row of that user's searches too."""
    where = "instr(result_ids, ?) > 0 OR instr(payload, ?) > 0"
    params: list[Any] = [record_id, record_id]
    if user_id is not None:
        where += " OR user_id = ?"
        params.append(user_id)
    rows = conn.execute(f"SELECT id, query, payload FROM search_log WHERE {where}", params)
    return rows.fetchall()


def rewrite_search_log_row(
    conn: sqlite3.Connection, log_id: str, *, query: str, payload: Any
) -> None:
    """Replace a search log row's query and payload (scrubbed copies of the old ones)."""
    conn.execute(
        "UPDATE search_log SET query = ?, payload = ? WHERE id = ?",
        (query, json.dumps(payload, sort_keys=True), log_id),
    )


def write_log_rows(conn: sqlite3.Connection, record_id: str) -> list[tuple[str, str]]:
    """(id, payload) of the write log rows about ``record_id``."""
    rows = conn.execute("SELECT id, payload FROM write_log WHERE record_id = ?", [record_id])
    return rows.fetchall()


def rewrite_write_log_row(conn: sqlite3.Connection, log_id: str, payload: Any) -> None:
    conn.execute("UPDATE write_log SET payload = ? WHERE id = ?", (json.dumps(payload), log_id))


def job_stage_outputs(
    conn: sqlite3.Connection, *, user_id: str | None
) -> list[tuple[str, str, str]]:
    """(job, stage, output) of every job stage with an output, of ``user_id``'s sessions'
    jobs (of every job: None)."""
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
    )
    return rows.fetchall()


def rewrite_job_stage_output(
    conn: sqlite3.Connection, job_id: str, stage: str, output: Any
) -> None:
    conn.execute(
        "UPDATE job_stages SET output = ? WHERE job_id = ? AND stage = ?",
        (json.dumps(output), job_id, stage),
    )


def session_summaries(
    conn: sqlite3.Connection, scope: str, rowid: int
) -> list[tuple[str, str, bool]]:
    """(id, content, of the same session) of the session summaries in ``scope`` (episodic
    records tagged session-summary, not tombstones) other than the record at ``rowid``; the
    last says whether the summary is of the session that wrote that record."""
    rows = conn.execute(
        "SELECT id, content, session_id IS NOT NULL AND session_id = "
        "(SELECT session_id FROM records WHERE rowid = ?) FROM records WHERE scope = ? "
        "AND rowid != ? AND status != 'deleted' AND type = 'episodic' AND EXISTS "
        "(SELECT 1 FROM json_each(tags) WHERE value = 'session-summary')",
        (rowid, scope, rowid),
    )
    return [(r[0], r[1], bool(r[2])) for r in rows]


def unlink_entities(conn: sqlite3.Connection, rowid: int) -> list[str]:
    """Unlink the record at ``rowid`` from its entities (its links and its subject entity);
    the ids it was linked to."""
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
    return linked


def entity_in_use(conn: sqlite3.Connection, entity_id: str) -> bool:
    """Whether a record links to the entity, has it as subject, or an entity merged into it."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM record_entities WHERE entity_id = ?) "
        "OR EXISTS (SELECT 1 FROM records WHERE subject_entity_id = ?) "
        "OR EXISTS (SELECT 1 FROM entities WHERE merged_into = ?)",
        (entity_id, entity_id, entity_id),
    ).fetchone()
    return bool(row[0])


def delete_entity(conn: sqlite3.Connection, entity_id: str) -> None:
    """Erase an entity and its aliases (one no record uses: ``entity_in_use``)."""
    conn.execute("DELETE FROM entity_aliases WHERE entity_id = ?", (entity_id,))
    conn.execute("DELETE FROM entities WHERE id = ?", (entity_id,))


__all__ = [
    "ERASURE_EVENTS",
    "add_suppression",
    "add_to_ledger",
    "assistant_words_holding",
    "contexts_of",
    "copy_missing",
    "delete_entity",
    "entity_in_use",
    "erased_record",
    "evidence_turns",
    "job_stage_outputs",
    "kept_parts",
    "kept_with",
    "ledger",
    "live_contexts",
    "record_at",
    "redact_turn",
    "replace_context",
    "replace_text",
    "rewrite_job_stage_output",
    "rewrite_search_log_row",
    "rewrite_write_log_row",
    "search_log_rows",
    "session_summaries",
    "summaries_narrowed",
    "summaries_saying",
    "suppressions",
    "turns_of",
    "unlink_entities",
    "write_log_rows",
]

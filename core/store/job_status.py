"""Reading the jobs tables: one job with its stages and history, lists, counts.

Kept apart from core.jobs (the state machine) so that what an operator sees is one place:
``agent-memory jobs`` and ``mem.jobs.status`` show these dicts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent_memory.core.errors import InvalidArgument, NotFound
from agent_memory.core.models import format_time, utcnow, validate_id
from agent_memory.core.store.base import StoreBase as Store

JOB_STATUSES = ("queued", "running", "done", "failed")


def job_status(store: Store, job_id: str, *, now: datetime | None = None) -> dict[str, Any]:
    """One job: its session, status, current stage, last error, each stage with its
    attempts, claim holder, lease, error, timings and output, and its history.

    A stage still marked running whose lease has lapsed (its worker died or hung) says so:
    ``lease_expired`` true, on the stage and the job; the next sweep re-queues it. The
    records a job has committed include those of a stage that has not finished (each keyed
    write is committed with its record), so a stage killed half-way shows what it wrote."""
    at = format_time(now or utcnow())
    validate_id(job_id, what="job_id")
    rows = store.query(
        "SELECT j.*, s.agent_id, s.user_id FROM jobs AS j "
        "JOIN sessions AS s ON s.session_id = j.session_id WHERE j.job_id = ?",
        (job_id,),
    )
    if not rows:
        raise NotFound(f"no job {job_id!r}", field="job_id")
    job = job_json(rows[0])
    stages = store.query("SELECT * FROM job_stages WHERE job_id = ? ORDER BY position", (job_id,))
    job["stages"] = [{**stage_json(s), "lease_expired": _lapsed(s, at)} for s in stages]
    job["lease_expired"] = any(s["lease_expired"] for s in job["stages"])
    job["records"] = list(
        dict.fromkeys(records_of(job["stages"]) + _committed(store, job_id, job["session_id"]))
    )
    job["history"] = [
        {
            "at": h["at"],
            "event": h["event"],
            "stage": h["stage"],
            "attempt": h["attempt"],
            **json.loads(h["detail"]),
        }
        for h in store.query("SELECT * FROM job_history WHERE job_id = ? ORDER BY seq", (job_id,))
    ]
    return job


def job_list(
    store: Store,
    *,
    status: str | None = None,
    session_id: str | None = None,
    agent_id: str | None = None,
    limit: int = 50,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Jobs, newest first, optionally filtered; each without its stages' outputs, with
    ``lease_expired`` when its running stage's lease has lapsed (see ``job_status``)."""
    at = format_time(now or utcnow())
    if status is not None and status not in JOB_STATUSES:
        raise InvalidArgument(
            f"status must be one of {', '.join(JOB_STATUSES)}; got {status!r}", field="status"
        )
    where, params = [], []
    filters = (("j.status", status), ("j.session_id", session_id), ("s.agent_id", agent_id))
    for column, value in filters:
        if value is not None:  # an id no job can have is refused, not looked for
            where.append(f"{column} = ?")
            params.append(value if column == "j.status" else validate_id(value, what=column[2:]))
    sql = (
        "SELECT j.*, s.agent_id, s.user_id, "
        "(SELECT sum(attempts) FROM job_stages AS t WHERE t.job_id = j.job_id) AS attempts, "
        "(SELECT count(*) FROM job_history AS h WHERE h.job_id = j.job_id "
        " AND h.event = 'retried') AS retries, "
        "(SELECT t.claimed_until FROM job_stages AS t WHERE t.job_id = j.job_id "
        " AND t.stage = j.stage AND t.status = 'running') AS claimed_until "
        "FROM jobs AS j JOIN sessions AS s ON s.session_id = j.session_id"
    )
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY j.created_at DESC, j.rowid DESC LIMIT ?"
    rows = store.query(sql, [*params, int(limit)])
    return [
        {
            **job_json(r),
            "attempts": r["attempts"] or 0,
            "retries": r["retries"],
            "lease_expired": r["claimed_until"] is not None and r["claimed_until"] <= at,
        }
        for r in rows
    ]


def _lapsed(stage: sqlite3.Row, at: str) -> bool:
    return bool(
        stage["status"] == "running"
        and stage["claimed_until"] is not None
        and stage["claimed_until"] <= at
    )


def _committed(store: Store, job_id: str, session_id: str) -> list[str]:
    """Records the job's keyed writes committed (core.extraction.pipeline's keys), finished
    stage or not, in the order written."""
    prefix = f"{job_id}:candidate:"
    rows = store.query(
        "SELECT record_id FROM ingest_keys WHERE key = ? OR (key >= ? AND key < ?) "
        "ORDER BY at, rowid",
        (f"summary:{session_id}", prefix, prefix[:-1] + ";"),  # ';' sorts right after ':'
    )
    return [r["record_id"] for r in rows]


def job_counts(store: Store) -> dict[str, int]:
    rows = store.query("SELECT status, count(*) AS n FROM jobs GROUP BY status")
    found = {r["status"]: r["n"] for r in rows}
    return {s: found.get(s, 0) for s in JOB_STATUSES}


def job_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "job_id": row["job_id"],
        "kind": row["kind"],
        "session_id": row["session_id"],
        "agent_id": row["agent_id"],
        "user_id": row["user_id"],
        "status": row["status"],
        "stage": row["stage"],
        "retryable": row["status"] in ("queued", "running"),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "finished_at": row["finished_at"],
        "last_error": row["last_error"],
    }


def stage_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "stage": row["stage"],
        "status": row["status"],
        "attempts": row["attempts"],
        "claimed_by": row["claimed_by"],
        "claimed_until": row["claimed_until"],
        "queued_at": row["queued_at"],
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "duration_ms": row["duration_ms"],
        "last_error": row["last_error"],
        "output": json.loads(row["output"]) if row["output"] else None,
    }


def records_of(stages: Sequence[dict[str, Any]]) -> list[str]:
    """The ids of the records a job wrote or reinforced (validate and summarize outputs: the
    candidates, the summary, the assistant's words)."""
    ids: list[str] = []
    for stage in stages:
        output = stage["output"] or {}
        ids += [w["id"] for w in output.get("written", [])]
        if output.get("summary_id"):
            ids.append(output["summary_id"])
        ids += output.get("assistant_words", [])
    return list(dict.fromkeys(ids))


__all__ = ["JOB_STATUSES", "job_counts", "job_list", "job_status"]

"""The row-level steps of core.jobs: each runs inside a transaction the caller holds.

Failing a job, restarting a failed one, the errors a lapsed lease leaves, and the job's
history (``job_history``, shown by ``agent-memory jobs JOB``).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

from core.records import append_event


def restart_failed(
    conn: sqlite3.Connection, job_id: str, *, at: str, sending: bool
) -> tuple[str, str]:
    """Queue the failed stage of a failed job again with its attempts renewed; the error it
    failed with stays as its last error (and in the history) until an attempt succeeds."""
    stage, attempts = conn.execute(
        "SELECT j.stage, s.attempts FROM jobs AS j "
        "JOIN job_stages AS s ON s.job_id = j.job_id AND s.stage = j.stage WHERE j.job_id = ?",
        (job_id,),
    ).fetchone()
    conn.execute(
        "UPDATE job_stages SET status = 'queued', attempts = 0, claim_token = NULL, "
        "claimed_by = NULL, claimed_until = NULL, finished_at = NULL, queued_at = ? "
        "WHERE job_id = ? AND stage = ?",
        (at if sending else None, job_id, stage),
    )
    conn.execute(
        "UPDATE jobs SET status = 'queued', updated_at = ?, finished_at = NULL WHERE job_id = ?",
        (at, job_id),
    )
    record_step(conn, job_id, at, "retried", stage, attempts_spent=attempts)
    return job_id, stage


def record_step(
    conn: sqlite3.Connection,
    job_id: str,
    at: str,
    event: str,
    stage: str | None = None,
    attempt: int | None = None,
    **detail: Any,
) -> None:
    """Append one step to the job's history (shown by ``status`` and ``agent-memory jobs``)."""
    conn.execute(
        "INSERT INTO job_history (job_id, at, event, stage, attempt, detail) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (job_id, at, event, stage, attempt, json.dumps(detail, sort_keys=True)),
    )


def spent_error(conn: sqlite3.Connection, job_id: str, stage: str, status: str) -> str:
    """The error a job fails with when ``stage`` (in ``status``) has no attempts left: a
    stage still running had its last attempt's lease run out, and says so first."""
    previous = last_error_of(conn, job_id, stage)
    if status == "running":
        return lease_expired_error(previous, last=True)
    return previous or "no attempts left"


def lease_expired_error(previous: str | None, *, last: bool) -> str:
    """The error of an attempt whose lease ran out: that is what happened last, so it comes
    first; an earlier attempt's error, if any, follows it."""
    error = (
        "the lease expired on the last attempt (the worker stopped or hung)"
        if last
        else "lease expired (the worker stopped or hung)"
    )
    marker = "; an earlier attempt failed with: "
    if previous and previous.startswith(("lease expired", "the lease expired")):
        previous = previous.split(marker, 1)[1] if marker in previous else None
    if previous:
        error += marker + previous
    return error[:2000]


def last_error_of(conn: sqlite3.Connection, job_id: str, stage: str) -> str | None:
    row = conn.execute(
        "SELECT last_error FROM job_stages WHERE job_id = ? AND stage = ?", (job_id, stage)
    ).fetchone()
    return row[0] if row else None


def fail_job(
    conn: sqlite3.Connection, job_id: str, stage: str, *, error: str, at: str, now: datetime
) -> None:
    record_step(conn, job_id, at, "failed", stage, error=error)
    conn.execute(
        "UPDATE job_stages SET status = 'failed', claim_token = NULL, claimed_until = NULL, "
        "finished_at = ?, last_error = ? WHERE job_id = ? AND stage = ?",
        (at, error, job_id, stage),
    )
    conn.execute(
        "UPDATE jobs SET status = 'failed', updated_at = ?, finished_at = ?, last_error = ? "
        "WHERE job_id = ?",
        (at, at, error, job_id),
    )
    append_event(
        conn,
        kind="job.failed",
        at=now,
        payload={"job_id": job_id, "stage": stage, "error": error[:500]},
    )


__all__ = [
    "fail_job",
    "last_error_of",
    "lease_expired_error",
    "record_step",
    "restart_failed",
    "spent_error",
]

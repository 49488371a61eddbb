"""Extraction jobs and their leases: the statements of core.jobs' state machine.

Each function runs inside the transaction core.jobs holds (one ``BEGIN IMMEDIATE`` that re-reads
the rows it changes, so many processes may call them at once). A stage is claimed with a fresh
token and a lease (``claimed_until``); advancing, extending and releasing are fenced by that
token. Each step is kept in ``job_history`` (``record_step``). Reading jobs for operators is
core.store.job_status.

A second backend implements each function here; the dataclasses are the answers.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.errors import InvalidArgument, NotFound
from agent_memory.core.models import format_time
from agent_memory.core.store.log import append

STAGES: tuple[str, ...] = ("extract", "review", "validate", "summarize")
DONE = "done"  # what advancing returns after the last stage


@dataclass(frozen=True, slots=True)
class Claim:
    """The right to run one stage of one job until ``claimed_until``."""

    job_id: str
    stage: str
    token: str
    worker: str
    attempt: int
    session_id: str
    claimed_until: datetime


@dataclass(frozen=True, slots=True)
class ClaimRefused:
    """Why a stage could not be claimed: ``done`` (nothing to do), ``held`` (another live
    claim), ``not_current`` (the job is at another stage), ``failed`` (attempts used up)."""

    reason: str
    detail: str = ""


@dataclass(slots=True)
class SweepReport:
    """What one maintenance sweep did."""

    requeued: list[tuple[str, str]] = field(default_factory=list)  # (job_id, stage)
    failed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"requeued": [list(p) for p in self.requeued], "failed": list(self.failed)}


def create_for_session(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    job_id: str,
    now: datetime,
    will_send: bool,
    reason: str,
) -> tuple[str, bool]:
    """The session's job (``job_id`` if it has none yet, created with its stages), and
    whether it was created; ends the session with ``reason`` in the same transaction."""
    at = format_time(now)
    row = conn.execute(
        "SELECT agent_id, ended_at FROM sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"no session {session_id!r}", field="session_id")
    existing = conn.execute(
        "SELECT job_id FROM jobs WHERE kind = 'session_extraction' AND session_id = ?",
        (session_id,),
    ).fetchone()
    if existing is not None:
        return existing[0], False
    if row[1] is None:
        conn.execute(
            "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE session_id = ?",
            (at, reason, session_id),
        )
    conn.execute(
        "INSERT INTO jobs (job_id, kind, session_id, status, stage, created_at, "
        "updated_at) VALUES (?, 'session_extraction', ?, 'queued', ?, ?, ?)",
        (job_id, session_id, STAGES[0], at, at),
    )
    conn.executemany(
        "INSERT INTO job_stages (job_id, stage, position, status, queued_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (
                job_id,
                stage,
                i,
                "queued" if i == 0 else "pending",
                at if i == 0 and will_send else None,
            )
            for i, stage in enumerate(STAGES)
        ],
    )
    record_step(conn, job_id, at, "created", STAGES[0], reason=reason)
    ended = events.SessionEnded(
        agent_id=row[0], session_id=session_id, job_id=job_id, reason=reason
    )
    append(conn, ended, at=now)
    return job_id, True


def mark_unsent(conn: sqlite3.Connection, job_id: str, stage: str) -> None:
    conn.execute(
        "UPDATE job_stages SET queued_at = NULL WHERE job_id = ? AND stage = ? "
        "AND status = 'queued'",
        (job_id, stage),
    )


def claim(
    conn: sqlite3.Connection,
    job_id: str,
    stage: str,
    *,
    worker: str,
    token: str,
    until: datetime,
    max_attempts: int,
    now: datetime,
) -> Claim | ClaimRefused:
    """Claim ``stage`` of ``job_id`` with ``token`` until ``until`` if it is the job's current
    stage and is queued, or running under an expired lease."""
    at = format_time(now)
    job = conn.execute(
        "SELECT status, stage, session_id FROM jobs WHERE job_id = ?", (job_id,)
    ).fetchone()
    if job is None:
        return ClaimRefused("done", f"no job {job_id}")
    status, current, session_id = job
    if status in ("done", "failed"):
        return ClaimRefused("done" if status == "done" else "failed", status)
    if current != stage:
        return ClaimRefused("not_current", f"the job is at {current}")
    row = conn.execute(
        "SELECT status, attempts, claimed_until, claimed_by FROM job_stages "
        "WHERE job_id = ? AND stage = ?",
        (job_id, stage),
    ).fetchone()
    stage_status, attempts, claimed_until, claimed_by = row
    if stage_status == "running" and claimed_until is not None and claimed_until > at:
        return ClaimRefused("held", f"claimed by {claimed_by} until {claimed_until}")
    if stage_status not in ("queued", "running"):
        return ClaimRefused("done", f"stage {stage} is {stage_status}")
    if attempts >= max_attempts:
        error = spent_error(conn, job_id, stage, stage_status)
        fail_job(conn, job_id, stage, error=error, at=at, now=now)
        return ClaimRefused("failed", error)
    conn.execute(
        "UPDATE job_stages SET status = 'running', attempts = attempts + 1, "
        "claim_token = ?, claimed_by = ?, claimed_until = ?, started_at = ? "
        "WHERE job_id = ? AND stage = ?",
        (token, worker, format_time(until), at, job_id, stage),
    )
    conn.execute(
        "UPDATE jobs SET status = 'running', updated_at = ? WHERE job_id = ?",
        (at, job_id),
    )
    return Claim(job_id, stage, token, worker, attempts + 1, session_id, until)


def extend(conn: sqlite3.Connection, held: Claim, *, until: datetime) -> bool:
    """Push the lease to ``until`` while the stage is still ``held``'s."""
    changed = conn.execute(
        "UPDATE job_stages SET claimed_until = ? WHERE job_id = ? AND stage = ? "
        "AND claim_token = ? AND status = 'running'",
        (format_time(until), held.job_id, held.stage, held.token),
    ).rowcount
    return bool(changed)


def holds(store: Any, held: Claim) -> bool:
    """Whether ``held`` is still the stage's current claim (one read of ``store``)."""
    rows = store.query(
        "SELECT 1 FROM job_stages WHERE job_id = ? AND stage = ? AND claim_token = ? "
        "AND status = 'running'",
        (held.job_id, held.stage, held.token),
    )
    return bool(rows)


def advance(
    conn: sqlite3.Connection,
    held: Claim,
    *,
    output: dict[str, Any],
    now: datetime,
    duration_ms: float,
) -> str | None:
    """Finish the held stage with ``output`` and queue the next one, fenced by the token:
    the next stage, ``DONE``, or None when the claim was lost (nothing changes)."""
    at = format_time(now)
    position = STAGES.index(held.stage)
    following = STAGES[position + 1] if position + 1 < len(STAGES) else None
    changed = conn.execute(
        "UPDATE job_stages SET status = 'done', output = ?, finished_at = ?, "
        "duration_ms = ?, claimed_until = NULL, last_error = NULL "
        "WHERE job_id = ? AND stage = ? AND claim_token = ? AND status = 'running'",
        (
            json.dumps(output, sort_keys=True, default=str),
            at,
            round(duration_ms, 3),
            held.job_id,
            held.stage,
            held.token,
        ),
    ).rowcount
    if not changed:
        return None
    if following is None:
        conn.execute(
            "UPDATE jobs SET status = 'done', updated_at = ?, finished_at = ?, "
            "last_error = NULL WHERE job_id = ?",
            (at, at, held.job_id),
        )
        record_step(conn, held.job_id, at, "done", held.stage, held.attempt)
        append(conn, events.JobDone(job_id=held.job_id, session_id=held.session_id), at=now)
        return DONE
    conn.execute(
        "UPDATE job_stages SET status = 'queued', queued_at = ? WHERE job_id = ? AND stage = ?",
        (at, held.job_id, following),
    )
    conn.execute(
        "UPDATE jobs SET status = 'queued', stage = ?, updated_at = ? WHERE job_id = ?",
        (following, at, held.job_id),
    )
    return following


def release(
    conn: sqlite3.Connection,
    held: Claim,
    *,
    error: str,
    due: datetime,
    max_attempts: int,
    now: datetime,
) -> bool:
    """Give a failed stage back for a retry at ``due``, keeping ``error``; past
    ``max_attempts`` the job fails. Whether the job can still be retried. Fenced by the token;
    the stage's ``queued_at`` becomes ``due``."""
    at = format_time(now)
    retry_at = format_time(due)
    row = conn.execute(
        "SELECT attempts FROM job_stages WHERE job_id = ? AND stage = ? "
        "AND claim_token = ? AND status = 'running'",
        (held.job_id, held.stage, held.token),
    ).fetchone()
    if row is None:
        return True  # taken over; the new holder decides
    spent = row[0] >= max_attempts
    record_step(
        conn,
        held.job_id,
        at,
        "attempt_failed",
        held.stage,
        held.attempt,
        error=error,
        **({} if spent else {"retry_at": retry_at}),
    )
    if spent:
        fail_job(conn, held.job_id, held.stage, error=error, at=at, now=now)
        return False
    conn.execute(
        "UPDATE job_stages SET status = 'queued', claim_token = NULL, claimed_by = NULL, "
        "claimed_until = NULL, queued_at = ?, last_error = ? "
        "WHERE job_id = ? AND stage = ?",
        (retry_at, error, held.job_id, held.stage),
    )
    conn.execute(
        "UPDATE jobs SET status = 'queued', updated_at = ?, last_error = ? WHERE job_id = ?",
        (at, error, held.job_id),
    )
    return True


def sweep(
    conn: sqlite3.Connection,
    *,
    stale: datetime,
    resend_queued: bool,
    max_attempts: int,
    now: datetime,
) -> SweepReport:
    """Re-queue expired claims and queued stages whose message was lost (queued at or before
    ``stale``) or never sent, or (``resend_queued``) never failed; fail jobs past their
    attempts. The report lists what to send."""
    at = format_time(now)
    report = SweepReport()
    rows = conn.execute(
        "SELECT s.job_id, s.stage, s.status, s.attempts FROM job_stages AS s "
        "JOIN jobs AS j ON j.job_id = s.job_id AND j.stage = s.stage "
        "WHERE j.status IN ('queued', 'running') AND ("
        " (s.status = 'running' AND s.claimed_until <= ?)"
        " OR (s.status = 'queued' AND (s.queued_at IS NULL OR s.queued_at <= ?"
        "  OR (? AND s.last_error IS NULL))))",
        (at, format_time(stale), resend_queued),
    ).fetchall()
    for job_id, stage, status, attempts in rows:
        if attempts >= max_attempts:
            error = spent_error(conn, job_id, stage, status)
            fail_job(conn, job_id, stage, error=error, at=at, now=now)
            report.failed.append(job_id)
            continue
        if status == "running":
            record_step(conn, job_id, at, "lease_expired", stage, attempts)
            conn.execute(
                "UPDATE job_stages SET status = 'queued', claim_token = NULL, "
                "claimed_by = NULL, claimed_until = NULL, queued_at = ?, "
                "last_error = ? WHERE job_id = ? AND stage = ?",
                (
                    at,
                    lease_expired_error(last_error_of(conn, job_id, stage), last=False),
                    job_id,
                    stage,
                ),
            )
            conn.execute(
                "UPDATE jobs SET status = 'queued', updated_at = ? WHERE job_id = ?",
                (at, job_id),
            )
        else:
            conn.execute(
                "UPDATE job_stages SET queued_at = ? WHERE job_id = ? AND stage = ?",
                (at, job_id, stage),
            )
        report.requeued.append((job_id, stage))
    return report


def retry(
    conn: sqlite3.Connection, job_id: str | None, *, now: datetime, sending: bool
) -> list[tuple[str, str]]:
    """Start failed job ``job_id`` (or, None, every failed job) again from its failed stage;
    (job, stage) for each. NotFound for an unknown job, InvalidArgument for one not failed."""
    at = format_time(now)
    if job_id is not None:
        row = conn.execute("SELECT status FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFound(f"no job {job_id!r}", field="job_id")
        if row[0] != "failed":
            raise InvalidArgument(
                f"job {job_id} is {row[0]}: only a failed job can be retried",
                field="job_id",
            )
        failed = [(job_id,)]
    else:
        failed = conn.execute(
            "SELECT job_id FROM jobs WHERE status = 'failed' ORDER BY created_at, rowid"
        ).fetchall()
    return [restart_failed(conn, failed_id, at=at, sending=sending) for (failed_id,) in failed]


def stage_output(store: Any, job_id: str, stage: str) -> str | None:
    """The JSON output of a done stage, or None (one read of ``store``)."""
    rows = store.query(
        "SELECT output FROM job_stages WHERE job_id = ? AND stage = ? AND status = 'done'",
        (job_id, stage),
    )
    return rows[0]["output"] if rows else None


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
    append(conn, events.JobFailed(job_id=job_id, stage=stage, error=error), at=now)


__all__ = [
    "DONE",
    "STAGES",
    "Claim",
    "ClaimRefused",
    "SweepReport",
    "advance",
    "claim",
    "create_for_session",
    "extend",
    "fail_job",
    "holds",
    "last_error_of",
    "lease_expired_error",
    "mark_unsent",
    "record_step",
    "release",
    "restart_failed",
    "retry",
    "spent_error",
    "stage_output",
    "sweep",
]

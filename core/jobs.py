"""Extraction jobs and their leases: the jobs table is the source of truth (design §6 Path B).

A session_ended event creates one job with four stages, run in order:

    extract -> review -> validate -> summarize

Each stage is claimed before it runs: ``claim`` gives the caller a fresh ``claim_token``, bumps
``attempts`` and sets ``claimed_until`` (the lease). The holder does its work outside any
transaction, ``extend``s the lease during long model calls, and ``advance``s the stage, fenced
by its token: a holder whose lease expired and was taken over cannot advance (its token no
longer matches). A failure ``release``s the stage for a retry with its error kept; past
``max_attempts`` the job fails with the last error. A failed stage waits before its next
attempt: exponentially longer each time, capped and jittered (``backoff_seconds``), so a
provider outage of many minutes is waited out rather than spent in seconds. ``retry`` starts a
failed job again from the stage that failed. Each of these steps is kept in ``job_history``.

The queue (Huey, in workers/) only nudges: a message lost to a crash (Huey's SQLite storage
deletes a message when a consumer takes it, so a SIGKILL loses it) is re-sent by ``sweep``,
which also re-queues expired claims. Many processes may call everything here at once: every
state change is one ``BEGIN IMMEDIATE`` transaction that re-reads the row it changes.

Time is passed in (``now``); nothing here reads the clock.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from core.errors import InvalidArgument, NotFound
from core.job_status import JOB_STATUSES, job_counts, job_list, job_status
from core.job_steps import (
    fail_job,
    last_error_of,
    lease_expired_error,
    record_step,
    restart_failed,
    spent_error,
)
from core.logging import get_logger
from core.models import format_time, new_id, utcnow, validate_id
from core.records import append_event
from core.store import Store

log = get_logger("agent_memory")

STAGES: tuple[str, ...] = ("extract", "review", "validate", "summarize")
DONE = "done"  # what ``Jobs.advance`` returns after the last stage


class Dispatcher(Protocol):
    """Sends the queue message that makes a consumer run ``stage`` of ``job_id``.

    workers.WorkerApp is the Huey implementation. Sending twice is harmless: a stage that is
    already claimed or done is not run again."""

    def dispatch(self, job_id: str, stage: str) -> None: ...


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


@dataclass(frozen=True, slots=True)
class LeasePolicy:
    lease_seconds: float
    max_attempts: int
    requeue_after_seconds: float
    stage_timeout_seconds: float = 1800.0
    retry_delay_seconds: float = 10.0
    retry_max_delay_seconds: float = 600.0
    retry_jitter: float = 0.25


def backoff_seconds(attempt: int, policy: LeasePolicy, draw: float) -> float:
    """How long to wait after failed attempt number ``attempt`` (1-based): the base delay
    doubled for each attempt before it, capped at ``retry_max_delay_seconds``, then shortened
    by up to ``retry_jitter`` of itself (``draw`` is uniform in [0, 1)), so that workers that
    failed together spread their retries."""
    exponent = min(max(attempt - 1, 0), 62)
    delay = min(policy.retry_delay_seconds * 2.0**exponent, policy.retry_max_delay_seconds)
    return delay * (1.0 - policy.retry_jitter * draw)


class Jobs:
    """The jobs of one store. ``Memory.jobs`` is the instance a host uses."""

    def __init__(
        self,
        store: Store,
        policy: LeasePolicy,
        *,
        dispatcher: Callable[[], Dispatcher | None] = lambda: None,
        draw: Callable[[], float] = random.random,
    ) -> None:
        self.store = store
        self.policy = policy
        self._dispatcher = dispatcher  # looked up on use: a host attaches its worker app later
        self._draw = draw

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before the attempt after failed attempt ``attempt``."""
        return backoff_seconds(attempt, self.policy, self._draw())

    # -- creation ----------------------------------------------------------------------------

    def create_for_session(
        self, session_id: str, *, now: datetime, will_send: bool = True, reason: str = "ended"
    ) -> tuple[str, bool]:
        """The session's extraction job, created with its stages if it has none.
        Returns (job_id, created). Ends the session (ended_at, end_reason ``reason``: ended,
        or idle from the sweep) in the same transaction.
        ``will_send`` False (no dispatcher) leaves the first stage's ``queued_at`` empty, which
        tells the next sweep to send its message at once."""
        at = format_time(now)
        with self.store.transaction() as conn:
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
            job_id = new_id("job", now)
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
            append_event(
                conn,
                kind="session.ended",
                at=now,
                agent_id=row[0],
                payload={"session_id": session_id, "job_id": job_id, "reason": reason},
            )
        return job_id, True

    def mark_unsent(self, job_id: str, stage: str) -> None:
        """The message for a queued stage could not be sent: the next sweep sends it."""
        with self.store.transaction() as conn:
            conn.execute(
                "UPDATE job_stages SET queued_at = NULL WHERE job_id = ? AND stage = ? "
                "AND status = 'queued'",
                (job_id, stage),
            )

    # -- leases ------------------------------------------------------------------------------

    def claim(self, job_id: str, stage: str, *, worker: str, now: datetime) -> Claim | ClaimRefused:
        """Claim ``stage`` of ``job_id`` for ``worker`` if it is the job's current stage and
        is queued, or running under an expired lease."""
        at = format_time(now)
        with self.store.transaction() as conn:
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
            if attempts >= self.policy.max_attempts:
                error = spent_error(conn, job_id, stage, stage_status)
                fail_job(conn, job_id, stage, error=error, at=at, now=now)
                return ClaimRefused("failed", error)
            token = secrets.token_hex(8)
            until = now + timedelta(seconds=self.policy.lease_seconds)
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

    def extend(self, claim: Claim, *, now: datetime) -> bool:
        """Push the lease forward while the stage is still ours. False: it was taken over."""
        until = format_time(now + timedelta(seconds=self.policy.lease_seconds))
        with self.store.transaction() as conn:
            changed = conn.execute(
                "UPDATE job_stages SET claimed_until = ? WHERE job_id = ? AND stage = ? "
                "AND claim_token = ? AND status = 'running'",
                (until, claim.job_id, claim.stage, claim.token),
            ).rowcount
        return bool(changed)

    def holds(self, claim: Claim) -> bool:
        """Whether ``claim`` is still the stage's current claim."""
        rows = self.store.query(
            "SELECT 1 FROM job_stages WHERE job_id = ? AND stage = ? AND claim_token = ? "
            "AND status = 'running'",
            (claim.job_id, claim.stage, claim.token),
        )
        return bool(rows)

    def advance(
        self, claim: Claim, *, output: dict[str, Any], now: datetime, duration_ms: float
    ) -> str | None:
        """Finish the claimed stage with ``output`` and queue the next one, fenced by the
        claim token. Returns the next stage, ``DONE`` when the job is done, or None when the
        claim was lost (then nothing changes)."""
        at = format_time(now)
        position = STAGES.index(claim.stage)
        following = STAGES[position + 1] if position + 1 < len(STAGES) else None
        with self.store.transaction() as conn:
            changed = conn.execute(
                "UPDATE job_stages SET status = 'done', output = ?, finished_at = ?, "
                "duration_ms = ?, claimed_until = NULL, last_error = NULL "
                "WHERE job_id = ? AND stage = ? AND claim_token = ? AND status = 'running'",
                (
                    json.dumps(output, sort_keys=True, default=str),
                    at,
                    round(duration_ms, 3),
                    claim.job_id,
                    claim.stage,
                    claim.token,
                ),
            ).rowcount
            if not changed:
                return None
            if following is None:
                conn.execute(
                    "UPDATE jobs SET status = 'done', updated_at = ?, finished_at = ?, "
                    "last_error = NULL WHERE job_id = ?",
                    (at, at, claim.job_id),
                )
                record_step(conn, claim.job_id, at, "done", claim.stage, claim.attempt)
                append_event(
                    conn,
                    kind="job.done",
                    at=now,
                    payload={"job_id": claim.job_id, "session_id": claim.session_id},
                )
                return DONE
            conn.execute(
                "UPDATE job_stages SET status = 'queued', queued_at = ? "
                "WHERE job_id = ? AND stage = ?",
                (at, claim.job_id, following),
            )
            conn.execute(
                "UPDATE jobs SET status = 'queued', stage = ?, updated_at = ? WHERE job_id = ?",
                (following, at, claim.job_id),
            )
        return following

    def release(
        self, claim: Claim, *, error: str, now: datetime, retry_in: float | None = None
    ) -> bool:
        """Give a failed stage back for a retry after ``retry_in`` seconds (default: the
        back-off for this attempt), keeping ``error``; past max_attempts the job fails.
        Returns True when the job can still be retried. Fenced by the token.

        The stage's ``queued_at`` becomes the time its retry is due, so the sweep counts a
        message as lost only ``requeue_after_seconds`` after that, not during the back-off."""
        at = format_time(now)
        if retry_in is None:
            retry_in = self.backoff(claim.attempt)
        due = format_time(now + timedelta(seconds=retry_in))
        with self.store.transaction() as conn:
            row = conn.execute(
                "SELECT attempts FROM job_stages WHERE job_id = ? AND stage = ? "
                "AND claim_token = ? AND status = 'running'",
                (claim.job_id, claim.stage, claim.token),
            ).fetchone()
            if row is None:
                return True  # taken over; the new holder decides
            spent = row[0] >= self.policy.max_attempts
            record_step(
                conn,
                claim.job_id,
                at,
                "attempt_failed",
                claim.stage,
                claim.attempt,
                error=error,
                **({} if spent else {"retry_at": due}),
            )
            if spent:
                fail_job(conn, claim.job_id, claim.stage, error=error, at=at, now=now)
                return False
            conn.execute(
                "UPDATE job_stages SET status = 'queued', claim_token = NULL, claimed_by = NULL, "
                "claimed_until = NULL, queued_at = ?, last_error = ? "
                "WHERE job_id = ? AND stage = ?",
                (due, error, claim.job_id, claim.stage),
            )
            conn.execute(
                "UPDATE jobs SET status = 'queued', updated_at = ?, last_error = ? "
                "WHERE job_id = ?",
                (at, error, claim.job_id),
            )
        return True

    # -- the sweep ---------------------------------------------------------------------------

    def sweep(
        self, *, now: datetime, dispatcher: Dispatcher | None = None, resend_queued: bool = False
    ) -> SweepReport:
        """Re-queue expired claims and queued stages whose message was lost (queued longer
        than requeue_after_seconds) or never sent (no ``queued_at``), fail jobs past their
        attempts, and send a message for each re-queued stage. ``resend_queued`` also treats
        every queued stage that never failed as lost: a consumer starting after a crash sends
        them again (a worker killed between advancing a stage and sending the next one's
        message left it queued with no message; a duplicate is refused at its claim once the
        first runs). A stage queued after a failure waits for its own Huey retry and its
        back-off. Safe to run from several processes at once."""
        at = format_time(now)
        stale = format_time(now - timedelta(seconds=self.policy.requeue_after_seconds))
        report = SweepReport()
        with self.store.transaction() as conn:
            rows = conn.execute(
                "SELECT s.job_id, s.stage, s.status, s.attempts FROM job_stages AS s "
                "JOIN jobs AS j ON j.job_id = s.job_id AND j.stage = s.stage "
                "WHERE j.status IN ('queued', 'running') AND ("
                " (s.status = 'running' AND s.claimed_until <= ?)"
                " OR (s.status = 'queued' AND (s.queued_at IS NULL OR s.queued_at <= ?"
                "  OR (? AND s.last_error IS NULL))))",
                (at, stale, resend_queued),
            ).fetchall()
            for job_id, stage, status, attempts in rows:
                if attempts >= self.policy.max_attempts:
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
        for job_id, stage in report.requeued:
            self._send(dispatcher, job_id, stage)  # one failed send does not hold back others
        return report

    # -- starting failed jobs again ----------------------------------------------------------

    def retry(
        self,
        job_id: str | None = None,
        *,
        status: str | None = None,
        now: datetime | None = None,
    ) -> list[str]:
        """Start a failed job again from the stage that failed, with its attempts renewed
        (``retry(job_id)``), or every failed job (``retry(status="failed")``). Returns the ids
        of the jobs started again, each with a ``retried`` step in its history; their
        messages go out through the store's dispatcher, or with the next sweep.

        Raises NotFound for an unknown job, InvalidIdentifier for an id no job can have, and
        InvalidArgument for one that has not failed (a queued or running job is retried on
        its own; a done one has nothing left)."""
        if (job_id is None) == (status is None):
            raise InvalidArgument('give either a job id or status="failed"', field="job_id")
        if status is not None and status != "failed":
            raise InvalidArgument(
                f'only failed jobs can be retried: status="failed"; got {status!r}',
                field="status",
            )
        if job_id is not None:
            validate_id(job_id, what="job_id")
        now = now or utcnow()
        at = format_time(now)
        dispatcher = self._dispatcher()
        with self.store.transaction() as conn:
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
            retried = [
                restart_failed(conn, failed_id, at=at, sending=dispatcher is not None)
                for (failed_id,) in failed
            ]
        for job, stage in retried:
            self._send(dispatcher, job, stage)
        return [job for job, _ in retried]

    def _send(self, dispatcher: Dispatcher | None, job_id: str, stage: str) -> None:
        if dispatcher is None:
            return  # queued_at is empty: the next sweep sends it
        try:
            dispatcher.dispatch(job_id, stage)
        except Exception as exc:  # the stage is queued in the store; the sweep sends it
            log.warning("jobs.send_failed", job=job_id, stage=stage, error=str(exc))
            self.mark_unsent(job_id, stage)

    # -- reading (core.job_status) ------------------------------------------------------------

    def stage_output(self, job_id: str, stage: str) -> dict[str, Any]:
        validate_id(job_id, what="job_id")
        rows = self.store.query(
            "SELECT output FROM job_stages WHERE job_id = ? AND stage = ? AND status = 'done'",
            (job_id, stage),
        )
        if not rows or rows[0]["output"] is None:
            raise InvalidArgument(f"stage {stage} of {job_id} has no output yet", field="stage")
        result: dict[str, Any] = json.loads(rows[0]["output"])
        return result

    def status(self, job_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """One job: its session, status, current stage, last error, each stage with its
        attempts, claim holder, lease (``lease_expired`` once it lapsed), error, timings and
        output, the records it committed, and its history (core.job_status)."""
        return job_status(self.store, job_id, now=now)

    def list(
        self,
        *,
        status: str | None = None,
        session_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 50,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Jobs, newest first, optionally filtered; each without its stages' outputs."""
        return job_list(
            self.store,
            status=status,
            session_id=session_id,
            agent_id=agent_id,
            limit=limit,
            now=now,
        )

    def counts(self) -> dict[str, int]:
        return job_counts(self.store)


__all__ = [
    "DONE",
    "JOB_STATUSES",
    "STAGES",
    "Claim",
    "ClaimRefused",
    "Dispatcher",
    "Jobs",
    "LeasePolicy",
    "SweepReport",
    "backoff_seconds",
]

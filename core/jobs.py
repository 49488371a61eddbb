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
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from agent_memory.core.errors import InvalidArgument
from agent_memory.core.logging import get_logger
from agent_memory.core.models import new_id, utcnow, validate_id
from agent_memory.core.store import Store
from agent_memory.core.store import jobs as stored
from agent_memory.core.store.job_status import JOB_STATUSES, job_counts, job_list, job_status
from agent_memory.core.store.jobs import (
    DONE,
    STAGES,
    Claim,
    ClaimRefused,
    SweepReport,
    lease_expired_error,
)

log = get_logger("agent_memory")


class Dispatcher(Protocol):
    """Sends the queue message that makes a consumer run ``stage`` of ``job_id``.

    workers.WorkerApp is the Huey implementation. Sending twice is harmless: a stage that is
    already claimed or done is not run again."""

    def dispatch(self, job_id: str, stage: str) -> None: ...


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
        with self.store.transaction() as conn:
            return stored.create_for_session(
                conn,
                session_id,
                job_id=new_id("job", now),
                now=now,
                will_send=will_send,
                reason=reason,
            )

    def mark_unsent(self, job_id: str, stage: str) -> None:
        """The message for a queued stage could not be sent: the next sweep sends it."""
        with self.store.transaction() as conn:
            stored.mark_unsent(conn, job_id, stage)

    # -- leases ------------------------------------------------------------------------------

    def claim(self, job_id: str, stage: str, *, worker: str, now: datetime) -> Claim | ClaimRefused:
        """Claim ``stage`` of ``job_id`` for ``worker`` if it is the job's current stage and
        is queued, or running under an expired lease."""
        with self.store.transaction() as conn:
            return stored.claim(
                conn,
                job_id,
                stage,
                worker=worker,
                token=secrets.token_hex(8),
                until=now + timedelta(seconds=self.policy.lease_seconds),
                max_attempts=self.policy.max_attempts,
                now=now,
            )

    def extend(self, claim: Claim, *, now: datetime) -> bool:
        """Push the lease forward while the stage is still ours. False: it was taken over."""
        until = now + timedelta(seconds=self.policy.lease_seconds)
        with self.store.transaction() as conn:
            return stored.extend(conn, claim, until=until)

    def holds(self, claim: Claim) -> bool:
        """Whether ``claim`` is still the stage's current claim."""
        return stored.holds(self.store, claim)

    def advance(
        self, claim: Claim, *, output: dict[str, Any], now: datetime, duration_ms: float
    ) -> str | None:
        """Finish the claimed stage with ``output`` and queue the next one, fenced by the
        claim token. Returns the next stage, ``DONE`` when the job is done, or None when the
        claim was lost (then nothing changes)."""
        with self.store.transaction() as conn:
            return stored.advance(conn, claim, output=output, now=now, duration_ms=duration_ms)

    def release(
        self, claim: Claim, *, error: str, now: datetime, retry_in: float | None = None
    ) -> bool:
        """Give a failed stage back for a retry after ``retry_in`` seconds (default: the
        back-off for this attempt), keeping ``error``; past max_attempts the job fails.
        Returns True when the job can still be retried. Fenced by the token.

        The stage's ``queued_at`` becomes the time its retry is due, so the sweep counts a
        message as lost only ``requeue_after_seconds`` after that, not during the back-off."""
        if retry_in is None:
            retry_in = self.backoff(claim.attempt)
        due = now + timedelta(seconds=retry_in)
        with self.store.transaction() as conn:
            return stored.release(
                conn,
                claim,
                error=error,
                due=due,
                max_attempts=self.policy.max_attempts,
                now=now,
            )

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
        stale = now - timedelta(seconds=self.policy.requeue_after_seconds)
        with self.store.transaction() as conn:
            report = stored.sweep(
                conn,
                stale=stale,
                resend_queued=resend_queued,
                max_attempts=self.policy.max_attempts,
                now=now,
            )
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
        dispatcher = self._dispatcher()
        with self.store.transaction() as conn:
            retried = stored.retry(conn, job_id, now=now, sending=dispatcher is not None)
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

    # -- reading (core.store.job_status) ------------------------------------------------------

    def stage_output(self, job_id: str, stage: str) -> dict[str, Any]:
        validate_id(job_id, what="job_id")
        output = stored.stage_output(self.store, job_id, stage)
        if output is None:
            raise InvalidArgument(f"stage {stage} of {job_id} has no output yet", field="stage")
        result: dict[str, Any] = json.loads(output)
        return result

    def status(self, job_id: str, *, now: datetime | None = None) -> dict[str, Any]:
        """One job: its session, status, current stage, last error, each stage with its
        attempts, claim holder, lease (``lease_expired`` once it lapsed), error, timings and
        output, the records it committed, and its history (core.store.job_status)."""
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
    "lease_expired_error",
]

"""The jobs table and its leases: claims, fencing, retries, the sweep, and Session.end()."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.errors import InvalidArgument, NotFound
from agent_memory.core.jobs import DONE, Claim, ClaimRefused, LeasePolicy, backoff_seconds
from agent_memory.core.models import format_time
from tests.support.clock import NOW
from tests.support.stores import granted_memory

CONFIG = Config(worker={"lease_seconds": 60, "max_attempts": 3, "requeue_after_seconds": 120})


class Recorder:
    """A dispatcher that records what it was asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def dispatch(self, job_id: str, stage: str) -> None:
        self.sent.append((job_id, stage))


class Broken:
    def dispatch(self, job_id: str, stage: str) -> None:
        raise ConnectionError("the queue file is on a full disk")


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db", CONFIG, grants=[("a", "user:u")]) as memory:
        yield memory


def ended(mem: Memory, session_id: str = "s1") -> str:
    s = mem.session(agent_id="a", user_id="u", session_id=session_id, now=NOW)
    s.add_turn("user", "I'm vegetarian.", at=NOW)
    return s.end(now=NOW)


def claimed(mem: Memory, job_id: str, stage: str = "extract", **kw: object) -> Claim:
    claim = mem.jobs.claim(job_id, stage, worker=str(kw.get("worker", "w1")), now=NOW)
    assert isinstance(claim, Claim), claim
    return claim


def test_end_persists_the_job_then_dispatches_and_is_idempotent(mem: Memory) -> None:
    """Session.end() writes the job row first, sends one message, and returns the same job
    when called again; the transcript is then closed."""
    recorder = Recorder()
    mem.dispatcher = recorder
    s = mem.session(agent_id="a", user_id="u", session_id="s1", now=NOW)
    s.add_turn("user", "I'm vegetarian.", at=NOW)
    job_id = s.end(now=NOW)
    assert recorder.sent == [(job_id, "extract")]
    assert s.end(now=NOW) == job_id and len(recorder.sent) == 1
    status = mem.jobs.status(job_id)
    assert status["status"] == "queued" and status["stage"] == "extract"
    assert [st["status"] for st in status["stages"]] == ["queued", "pending", "pending", "pending"]
    assert s.ended
    with pytest.raises(InvalidArgument, match="ended"):
        s.add_turn("user", "one more thing")
    events = mem.store.query("SELECT payload FROM events WHERE kind = 'session.ended'")
    assert job_id in events[0]["payload"]


def test_a_queue_that_cannot_be_reached_loses_nothing(mem: Memory) -> None:
    """When the message cannot be sent, end() still returns the job, and the sweep re-sends."""
    mem.dispatcher = Broken()
    job_id = ended(mem)
    assert mem.jobs.status(job_id)["status"] == "queued"
    recorder = Recorder()
    report = mem.jobs.sweep(now=NOW, dispatcher=recorder)  # the next sweep, not 5 min later
    assert report.requeued == [(job_id, "extract")] and recorder.sent == [(job_id, "extract")]


def test_a_host_without_a_dispatcher_gets_its_job_run_by_the_next_sweep(mem: Memory) -> None:
    """With no dispatcher the job is marked unsent; a sweep sends it at once, exactly once."""
    job_id = ended(mem)
    recorder = Recorder()
    assert mem.jobs.sweep(now=NOW, dispatcher=recorder).requeued == [(job_id, "extract")]
    assert mem.jobs.sweep(now=NOW + timedelta(seconds=1), dispatcher=recorder).requeued == []
    assert recorder.sent == [(job_id, "extract")]


def test_a_live_claim_is_exclusive_and_an_expired_one_is_taken_over(mem: Memory) -> None:
    """A second worker is refused while the lease runs and takes over after it expires; the
    first holder, fenced by its old token, can then neither extend nor advance."""
    job_id = ended(mem)
    first = claimed(mem, job_id)
    refused = mem.jobs.claim(job_id, "extract", worker="w2", now=NOW + timedelta(seconds=30))
    assert isinstance(refused, ClaimRefused) and refused.reason == "held"
    later = NOW + timedelta(seconds=61)
    second = mem.jobs.claim(job_id, "extract", worker="w2", now=later)
    assert isinstance(second, Claim) and second.attempt == 2
    assert not mem.jobs.extend(first, now=later)
    assert mem.jobs.advance(first, output={"x": 1}, now=later, duration_ms=1) is None
    assert mem.jobs.advance(second, output={"x": 2}, now=later, duration_ms=1) == "review"
    status = mem.jobs.status(job_id)
    assert status["stages"][0]["output"] == {"x": 2}
    assert status["stages"][0]["claimed_by"] == "w2"


def test_extending_the_lease_keeps_others_out(mem: Memory) -> None:
    """A holder that extends its lease during a long call is not taken over."""
    job_id = ended(mem)
    claim = claimed(mem, job_id)
    assert mem.jobs.extend(claim, now=NOW + timedelta(seconds=50))
    refused = mem.jobs.claim(job_id, "extract", worker="w2", now=NOW + timedelta(seconds=100))
    assert isinstance(refused, ClaimRefused) and refused.reason == "held"


def test_stages_run_in_order_and_the_last_one_finishes_the_job(mem: Memory) -> None:
    """Only the current stage can be claimed; advancing the last stage marks the job done."""
    job_id = ended(mem)
    refused = mem.jobs.claim(job_id, "review", worker="w1", now=NOW)
    assert isinstance(refused, ClaimRefused) and refused.reason == "not_current"
    for stage, following in [
        ("extract", "review"),
        ("review", "validate"),
        ("validate", "summarize"),
        ("summarize", DONE),
    ]:
        claim = claimed(mem, job_id, stage)
        assert mem.jobs.advance(claim, output={}, now=NOW, duration_ms=2.5) == following
    status = mem.jobs.status(job_id)
    assert status["status"] == "done" and not status["retryable"]
    again = mem.jobs.claim(job_id, "summarize", worker="w1", now=NOW)
    assert isinstance(again, ClaimRefused) and again.reason == "done"


def test_a_failed_stage_is_retried_until_its_attempts_run_out(mem: Memory) -> None:
    """release() keeps the error and re-queues; at max_attempts the job fails with it."""
    job_id = ended(mem)
    for attempt in range(1, 4):
        claim = claimed(mem, job_id)
        assert claim.attempt == attempt
        retryable = mem.jobs.release(claim, error=f"TimeoutError: try {attempt}", now=NOW)
        assert retryable is (attempt < 3)
    status = mem.jobs.status(job_id)
    assert status["status"] == "failed" and status["last_error"] == "TimeoutError: try 3"
    assert status["stages"][0]["attempts"] == 3 and status["stages"][0]["status"] == "failed"
    refused = mem.jobs.claim(job_id, "extract", worker="w1", now=NOW)
    assert isinstance(refused, ClaimRefused) and refused.reason == "failed"


def test_the_sweep_requeues_expired_claims_and_lost_messages_and_fails_spent_jobs(
    mem: Memory,
) -> None:
    """Expired claims and stale queued stages are re-sent; a job whose last attempt's lease
    expired fails, saying so first and keeping the earlier attempts' error after it."""
    mem.dispatcher = Recorder()  # every message is sent at end()
    expired_job = ended(mem, "s1")
    claimed(mem, expired_job)  # its worker was killed
    lost_job = ended(mem, "s2")  # its message was lost
    spent_job = ended(mem, "s3")
    for _ in range(2):
        mem.jobs.release(claimed(mem, spent_job), error="OverloadedError: 529", now=NOW)
    claimed(mem, spent_job)  # the third and last attempt, then killed
    recorder = Recorder()
    soon = mem.jobs.sweep(now=NOW + timedelta(seconds=30), dispatcher=recorder)
    assert soon.requeued == [] and soon.failed == []
    report = mem.jobs.sweep(now=NOW + timedelta(seconds=121), dispatcher=recorder)
    assert sorted(report.requeued) == sorted([(expired_job, "extract"), (lost_job, "extract")])
    assert report.failed == [spent_job]
    assert sorted(recorder.sent) == sorted(report.requeued)
    assert mem.jobs.status(expired_job)["stages"][0]["status"] == "queued"
    spent = mem.jobs.status(spent_job)
    assert spent["status"] == "failed" and spent["last_error"] == (
        "the lease expired on the last attempt (the worker stopped or hung); "
        "an earlier attempt failed with: OverloadedError: 529"
    )
    assert mem.jobs.status(expired_job)["stages"][0]["last_error"] == (
        "lease expired (the worker stopped or hung)"
    )
    # A second sweep right after finds nothing new: re-sent stages count as freshly queued.
    assert mem.jobs.sweep(now=NOW + timedelta(seconds=122)).requeued == []


def test_listing_and_status(mem: Memory) -> None:
    """Jobs list newest first with filters; an unknown job or status is a clear error."""
    first, second = ended(mem, "s1"), ended(mem, "s2")
    claimed(mem, second)
    assert [j["job_id"] for j in mem.jobs.list()] == [second, first]
    assert [j["job_id"] for j in mem.jobs.list(status="running")] == [second]
    assert [j["session_id"] for j in mem.jobs.list(session_id="s1")] == ["s1"]
    assert mem.jobs.list(agent_id="nobody") == []
    assert mem.jobs.counts() == {"queued": 1, "running": 1, "done": 0, "failed": 0}
    with pytest.raises(NotFound):
        mem.jobs.status("job_nope")
    with pytest.raises(InvalidArgument, match="status"):
        mem.jobs.list(status="lost")


def test_path_c_flags_due_reviews_once_and_changes_nothing_else(mem: Memory) -> None:
    """The review_at scan sets review_flagged_at and appends one record.review_due event per
    record, atomically; content, status and source are untouched; a rerun finds nothing."""
    mem.grant("a", "user:u", now=NOW)
    s = mem.session(agent_id="a", user_id="u", session_id="s1", now=NOW)
    args = {"type": "semantic", "source_kind": "agent_inference", "content": ""}
    due = s.call("memory_write", {**args, "content": "The user plans a trip in July."}, now=NOW)
    s.call(
        "memory_write",
        {**args, "content": "The user will move in 2030.", "review_at": "2030-01-01"},
        now=NOW,
    )
    with mem.store.transaction() as conn:
        conn.execute(
            "UPDATE records SET review_at = ? WHERE id = ?",
            ("2026-11-01T00:00:00.000000Z", due["id"]),
        )
    before = mem.store.get_records([due["id"]])[due["id"]]
    assert mem.flag_due_reviews(now=NOW) == [due["id"]]
    after = mem.store.get_records([due["id"]])[due["id"]]
    assert after.review_flagged_at is not None
    assert (after.content, after.status, after.source_kind, after.confidence) == (
        before.content,
        before.status,
        before.source_kind,
        before.confidence,
    )
    assert mem.flag_due_reviews(now=NOW) == []
    events = mem.store.query("SELECT record_id FROM events WHERE kind = 'record.review_due'")
    assert [e["record_id"] for e in events] == [due["id"]]


def test_a_starting_consumer_resends_stages_queued_moments_ago(mem: Memory) -> None:
    """A worker killed between advancing a stage and sending the next stage's message leaves
    it queued, freshly, with no message. The regular sweep waits requeue_after_seconds before
    calling a message lost; the first sweep of a consumer sends every queued stage at once."""
    recorder = Recorder()
    mem.dispatcher = recorder
    job_id = ended(mem)  # queued and sent at NOW: as if that message was the one lost
    soon = NOW + timedelta(seconds=5)
    assert mem.jobs.sweep(now=soon, dispatcher=recorder).requeued == []
    report = mem.jobs.sweep(now=soon, dispatcher=recorder, resend_queued=True)
    assert report.requeued == [(job_id, "extract")]
    assert recorder.sent == [(job_id, "extract"), (job_id, "extract")]


def test_a_starting_consumer_leaves_a_failed_stage_to_its_own_retry(mem: Memory) -> None:
    """A stage queued again after a failure has a Huey retry coming, after its back-off:
    the first sweep does not send it a second time."""
    recorder = Recorder()
    job_id = ended(mem)
    mem.jobs.release(claimed(mem, job_id), error="OverloadedError: 529", now=NOW)
    soon = NOW + timedelta(seconds=5)
    assert mem.jobs.sweep(now=soon, dispatcher=recorder, resend_queued=True).requeued == []
    assert recorder.sent == []


def test_a_lease_expired_twice_still_names_the_error_before() -> None:
    from agent_memory.core.jobs import lease_expired_error

    once = lease_expired_error("OverloadedError: 529", last=False)
    assert once == (
        "lease expired (the worker stopped or hung); an earlier attempt failed with: "
        "OverloadedError: 529"
    )
    assert lease_expired_error(once, last=True) == (
        "the lease expired on the last attempt (the worker stopped or hung); "
        "an earlier attempt failed with: OverloadedError: 529"
    )
    assert lease_expired_error(lease_expired_error(None, last=False), last=True) == (
        "the lease expired on the last attempt (the worker stopped or hung)"
    )


def test_the_back_off_doubles_up_to_its_cap_and_jitter_only_shortens_it() -> None:
    """Each failed attempt waits twice as long as the one before, never more than the cap;
    the jitter takes off at most its fraction, so retries that failed together spread out."""
    policy = LeasePolicy(
        lease_seconds=60,
        max_attempts=8,
        requeue_after_seconds=120,
        retry_delay_seconds=10,
        retry_max_delay_seconds=300,
        retry_jitter=0.25,
    )
    plain = [backoff_seconds(attempt, policy, 0.0) for attempt in range(1, 8)]
    assert plain == [10, 20, 40, 80, 160, 300, 300]
    shortest = [backoff_seconds(attempt, policy, 0.999999) for attempt in range(1, 8)]
    assert all(0.75 * p <= s < p for p, s in zip(plain, shortest, strict=True))
    spread = {round(backoff_seconds(3, policy, draw / 10), 3) for draw in range(10)}
    assert len(spread) == 10  # ten workers drawing differently wait differently


def test_a_failed_attempt_waits_its_back_off_before_the_sweep_calls_its_message_lost(
    tmp_path: Path,
) -> None:
    """The retry is due after the back-off; the sweep re-sends it only requeue_after_seconds
    after that, not during a long wait; the wait and the error are in the job's history."""
    config = Config(
        worker={"retry_delay_seconds": 200, "retry_jitter": 0, "requeue_after_seconds": 120}
    )
    with Memory.open(tmp_path / "m.db", config, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        job_id = ended(mem)
        claim = claimed(mem, job_id)
        claim = claimed(mem, job_id) if mem.jobs.release(claim, error="E1", now=NOW) else claim
        assert mem.jobs.release(claim, error="OverloadedError: 529", now=NOW)
        recorder = Recorder()
        # The second failure waits 400 s: the sweep leaves it alone until 400 + 120 s.
        assert mem.jobs.sweep(now=NOW + timedelta(seconds=500), dispatcher=recorder).requeued == []
        late = mem.jobs.sweep(now=NOW + timedelta(seconds=521), dispatcher=recorder)
        assert late.requeued == [(job_id, "extract")]
        history = mem.jobs.status(job_id)["history"]
    failed = [h for h in history if h["event"] == "attempt_failed"]
    assert [(h["attempt"], h["error"]) for h in failed] == [(1, "E1"), (2, "OverloadedError: 529")]
    assert failed[1]["retry_at"] == format_time(NOW + timedelta(seconds=400))


def test_a_failed_job_can_be_retried_and_the_retry_is_in_its_history(mem: Memory) -> None:
    """retry(job_id) queues the stage that failed with its attempts renewed and sends it;
    retry(status="failed") does so for every failed job; a job that has not failed, an
    unknown job or another status is a clear error and changes nothing."""
    recorder = Recorder()
    mem.dispatcher = recorder
    first, second, healthy = ended(mem, "s1"), ended(mem, "s2"), ended(mem, "s3")
    for job_id in (first, second):
        for _ in range(3):
            mem.jobs.release(claimed(mem, job_id), error="OverloadedError: 529", now=NOW)
        assert mem.jobs.status(job_id)["status"] == "failed"
    recorder.sent.clear()
    later = NOW + timedelta(minutes=15)
    assert mem.jobs.retry(first, now=later) == [first]
    status = mem.jobs.status(first)
    assert status["status"] == "queued" and status["stage"] == "extract"
    assert status["stages"][0]["attempts"] == 0 and status["stages"][0]["status"] == "queued"
    assert status["last_error"] == "OverloadedError: 529"  # kept until an attempt succeeds
    assert [h["event"] for h in status["history"]][-2:] == ["failed", "retried"]
    assert status["history"][-1]["attempts_spent"] == 3
    assert recorder.sent == [(first, "extract")]
    assert isinstance(mem.jobs.claim(first, "extract", worker="w2", now=later), Claim)
    assert mem.jobs.retry(status="failed", now=later) == [second]
    assert mem.jobs.list(status="failed") == []
    assert [j["retries"] for j in mem.jobs.list(session_id="s2")] == [1]
    with pytest.raises(InvalidArgument, match="only a failed job"):
        mem.jobs.retry(healthy)
    with pytest.raises(NotFound):
        mem.jobs.retry("job_nope")
    with pytest.raises(InvalidArgument, match="status"):
        mem.jobs.retry(status="done")
    assert mem.jobs.status(healthy)["status"] == "queued"


def test_a_retried_job_without_a_dispatcher_is_sent_by_the_next_sweep(mem: Memory) -> None:
    job_id = ended(mem)
    for _ in range(3):
        mem.jobs.release(claimed(mem, job_id), error="TimeoutError", now=NOW)
    mem.jobs.retry(job_id, now=NOW)
    recorder = Recorder()
    assert mem.jobs.sweep(now=NOW, dispatcher=recorder).requeued == [(job_id, "extract")]

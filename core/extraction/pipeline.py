"""The four stages of session extraction (design §6 Path B), each run under a lease.

    extract    the extractor model proposes candidates with verbatim evidence spans
    review     a separate reviewer call accepts, rejects or narrows each candidate; it fails
               closed (a timeout or invalid output raises, nothing is written, the job stays
               retryable), and a revision that would widen a candidate is refused
    validate   design §6 list 1-5 (core.extraction.validator), then the ingestor (the same
               write path as memory_write):
               evidence span found or reject; duplicates reinforce; contradictions follow the
               supersession rule; status from source kind; temporal fields only when the
               evidence turn contains the matching expression
    summarize  exactly one episodic session summary per session, even when nothing survived;
               the summary writer is told which records the session confirmed and which it
               stored only as inferences, and a summary that still repeats an inference (or a
               tool turn that cannot vouch) is stored as agent_inference, provisional, instead
               of session_summary: provisional content never enters a confirmed record

``Pipeline.run(job_id, stage)`` claims the stage, does its work outside any transaction
(extending the lease from a background thread while it runs), and advances fenced by the
claim token. Stage outputs are stored on the job, so a later stage reads what an earlier one
decided, and a rerun of a stage redoes only that stage. Every record write carries an
idempotency key committed with the record, so rerunning validate or summarize after a crash
never writes a record twice.

``StageHooks.at(stage, point)`` is called at fixed points ("claimed", "model_done",
"written", "before_advance"): the seam the crash tests use to stop a worker inside a stage.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from agent_memory.core import tracing
from agent_memory.core.engine import Engine
from agent_memory.core.errors import ExtractionError, InvalidArgument
from agent_memory.core.extraction import replies, summaries
from agent_memory.core.extraction.base import RESTATING, ModelBackend
from agent_memory.core.extraction.related import Related, related_records
from agent_memory.core.extraction.schema import (
    Candidate,
    ReviewItem,
    ReviewOutput,
    ReviewRequest,
    SessionView,
    SummaryRequest,
)
from agent_memory.core.extraction.stage_errors import stage_error_text
from agent_memory.core.extraction.validator import (
    ALL_ROLES,
    apply_review,
    select_candidates,
    stored_candidates,
    summary_scope,
    validate_candidate,
)
from agent_memory.core.filters import RecordFilter
from agent_memory.core.jobs import DONE, Claim, ClaimRefused
from agent_memory.core.logging import get_logger
from agent_memory.core.models import MemoryType, Scope, SourceKind, format_time, utcnow
from agent_memory.core.store.erasure import suppressions as stored_suppressions
from agent_memory.core.store.search_reads import assistant_words_of
from agent_memory.core.store.sessions import session_settings
from agent_memory.core.suppressions import ECHO_FLOOR, Suppressions, restated, restates
from agent_memory.core.timing import StageTimer
from agent_memory.core.write.drafts import WriteOutcome, WriteRequest
from agent_memory.core.write.evidence import Turn, find_quote
from agent_memory.core.write.importer import import_items
from agent_memory.core.write.ingestor import Ingestor
from agent_memory.core.write.stale import SUMMARY_TAG

if TYPE_CHECKING:
    from agent_memory.core.session import Session

log = get_logger("agent_memory.extraction")


class StageHooks(Protocol):
    """Called at fixed points inside each stage (see the module docstring)."""

    def at(self, stage: str, point: str) -> None: ...


@dataclass(frozen=True, slots=True)
class StageResult:
    """What one ``Pipeline.run`` did: ``ran`` False means the claim was refused (``refused``
    says why: done, held, not_current, failed) or lost; ``next_stage`` is the stage to send
    next (None: the job is done, or there is nothing to send)."""

    job_id: str
    stage: str
    ran: bool
    next_stage: str | None = None
    refused: str | None = None


class Pipeline:
    """Runs the stages of extraction jobs over one store's engine with one model backend."""

    def __init__(
        self,
        engine: Engine,
        backend: ModelBackend,
        *,
        worker: str,
        hooks: StageHooks | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.engine = engine
        self.backend = backend
        self.worker = worker
        self.hooks = hooks
        self.clock = clock
        self.jobs = self.engine.jobs
        self.config = self.engine.config.extraction

    # -- running one stage -------------------------------------------------------------------

    def run(self, job_id: str, stage: str) -> StageResult:
        """Claim and run ``stage`` of ``job_id``. Raises ExtractionError when the stage fails,
        after releasing it with its error kept (``retryable`` False: that was the last
        attempt, and the job has failed)."""
        claim = self.jobs.claim(job_id, stage, worker=self.worker, now=self.clock())
        if isinstance(claim, ClaimRefused):
            log.info("stage.refused", job_id=job_id, stage=stage, reason=claim.reason)
            return StageResult(job_id, stage, ran=False, refused=claim.reason)
        bound = log.bind(job_id=job_id, stage=stage, attempt=claim.attempt, worker=self.worker)
        bound.info("stage.claimed")
        started = time.perf_counter()
        try:
            self._hook(stage, "claimed")
            with self._leased(claim), self._span(claim):  # its model call, checks and writes
                output = getattr(self, f"_{stage}")(claim)
            self._hook(stage, "before_advance")
        except Exception as exc:
            error = self._error_text(exc, claim.session_id)
            retry_in = self.jobs.backoff(claim.attempt)
            retryable = self.jobs.release(claim, error=error, now=self.clock(), retry_in=retry_in)
            bound.warning(
                "stage.failed", error=error, retryable=retryable, retry_in_s=round(retry_in, 1)
            )
            raise ExtractionError(
                f"{stage} of {job_id} failed: {error}", retryable=retryable, retry_in=retry_in
            ) from exc
        duration = (time.perf_counter() - started) * 1000
        following = self.jobs.advance(claim, output=output, now=self.clock(), duration_ms=duration)
        if following is None:
            bound.warning("stage.claim_lost")
            return StageResult(job_id, stage, ran=False, refused="claim_lost")
        bound.info("stage.done", duration_ms=round(duration, 1), next_stage=following)
        return StageResult(
            job_id, stage, ran=True, next_stage=None if following == DONE else following
        )

    def _span(self, claim: Claim) -> AbstractContextManager[None]:
        """The OpenTelemetry span of one stage (a no-op without a host's SDK)."""
        return tracing.stage_span(
            claim.stage,
            job_id=claim.job_id,
            attempt=claim.attempt,
            store_id=tracing.store_id(self.engine),
        )

    def _error_text(self, exc: BaseException, session_id: str) -> str:
        """The error kept for a failed stage, with nothing of the session's text in it
        (core.extraction.stage_errors); only the exception's type if the session is gone."""
        try:
            turns = self._session(session_id).transcript()
        except Exception:
            return f"{type(exc).__name__} (the session could not be read to check its message)"
        return stage_error_text(exc, turns)

    def _hook(self, stage: str, point: str) -> None:
        if self.hooks is not None:
            self.hooks.at(stage, point)

    @contextmanager
    def _leased(self, claim: Claim) -> Iterator[None]:
        """Extend the lease every third of its length while the block (a stage) runs, so no
        other worker takes over a stage that is slow but alive. A renewal that fails (the
        store busy past its timeout) is logged and tried again at the next interval. Renewing
        stops when the claim is lost, or once the stage has run ``worker
        .stage_timeout_seconds``: a stage that long is taken to hang, and its lease runs out
        so that another worker can take it over (this one's advance is then refused)."""
        stop = threading.Event()
        interval = max(self.jobs.policy.lease_seconds / 3, 0.05)
        deadline = time.monotonic() + self.jobs.policy.stage_timeout_seconds

        def keep() -> None:
            while not stop.wait(interval):
                if time.monotonic() >= deadline:
                    log.warning(
                        "stage.timed_out",
                        job_id=claim.job_id,
                        stage=claim.stage,
                        after_s=self.jobs.policy.stage_timeout_seconds,
                    )
                    return
                try:
                    if not self.jobs.extend(claim, now=self.clock()):
                        return
                except Exception as exc:  # the next interval tries again; the lease may hold
                    log.warning(
                        "stage.lease_not_extended",
                        job_id=claim.job_id,
                        stage=claim.stage,
                        error=f"{type(exc).__name__}: {exc}",
                    )

        keeper = threading.Thread(target=keep, name=f"lease-{claim.job_id}", daemon=True)
        keeper.start()
        try:
            yield
        finally:
            stop.set()
            keeper.join()

    # -- the stages --------------------------------------------------------------------------

    def _extract(self, claim: Claim) -> dict[str, Any]:
        timer = StageTimer()
        with timer.stage("transcript_preparation"):
            view = self._view(claim.session_id)
        with timer.stage("model"):
            result = self.backend.extract(view)
        self._hook("extract", "model_done")
        candidates, cut = select_candidates(
            result.candidates, self.config.max_candidates, view.turns
        )
        if cut:
            log.warning(
                "extract.candidates_cut",
                job_id=claim.job_id,
                kept=len(candidates),
                dropped=cut["dropped"],
                limit=cut["limit"],
            )
        kept = self._unsuppressed(self._session(claim.session_id), candidates)
        return {
            "backend": self.backend.name,
            "timings_ms": timer.timings,
            "candidates": [c.model_dump(mode="json") for c in kept],
            "dropped_over_limit": len(result.candidates) - len(candidates),
            "dropped_invalid": result.invalid,
            **({"cut": cut} if cut else {}),
            "suppressed": len(candidates) - len(kept),
        }

    def _review(self, claim: Claim) -> dict[str, Any]:
        extracted = self.jobs.stage_output(claim.job_id, "extract")
        candidates, unreadable = stored_candidates(extracted["candidates"])
        session = self._session(claim.session_id)
        # A forget since the extract stage: the reviewer is never shown what it erased.
        candidates = self._unsuppressed(session, candidates)
        view = self._view(claim.session_id)
        timer = StageTimer()
        with timer.stage("related_records"):
            items = self._review_items(session, view, candidates)
        with timer.stage("model"):
            if items:
                review = self.backend.review(ReviewRequest(view, tuple(items)))
            else:
                review = ReviewOutput(decisions=[])
        self._hook("review", "model_done")
        shown = [frozenset(str(r["id"]) for r in item.related) for item in items]
        accepted, decisions = apply_review(candidates, review, shown)
        return {
            "backend": self.backend.name,
            "timings_ms": timer.timings,
            "accepted": [c.model_dump(mode="json") for c in accepted],
            "decisions": decisions,
            **({"dropped_invalid": unreadable} if unreadable else {}),
        }

    def _validate(self, claim: Claim) -> dict[str, Any]:
        reviewed = self.jobs.stage_output(claim.job_id, "review")
        candidates, unreadable = stored_candidates(reviewed["accepted"])
        session = self._session(claim.session_id)
        turns = session.transcript()
        readable = session.readable_scopes()
        ingestor = self.engine.ingestor()
        suppressed = self._restated(session, candidates, turns)
        written: list[dict[str, Any]] = []
        rejected: list[dict[str, Any]] = []
        for index, candidate in enumerate(candidates):
            if suppressed[index]:  # forgotten since the review: no words kept, not even here
                rejected.append({"index": index, "reason": "restates a forgotten record"})
                continue
            try:
                request, notes = validate_candidate(
                    candidate,
                    session=session,
                    turns=turns,
                    key=f"{claim.job_id}:candidate:{index}",
                    now=self.clock(),
                )
                if request.keeps:  # a part kept of a retired record is never a forgotten one
                    request = replace(request, keeps=self._unforgotten(session, request.keeps))
                outcome = self._write(ingestor, request, notes, readable=readable, turns=turns)
            except InvalidArgument as exc:
                rejected.append(
                    {"index": index, "content": candidate.content, "reason": exc.message}
                )
                continue
            except (ValueError, TypeError) as exc:  # one candidate, not the whole session
                reason = stage_error_text(exc, turns)
                rejected.append({"index": index, "content": candidate.content, "reason": reason})
                continue
            written.append(
                {
                    "index": index,
                    "id": outcome.id,
                    "action": outcome.action,
                    "replayed": outcome.replayed,
                    "status": outcome.status.value,
                    "source_kind": outcome.source_kind.value,
                    "content": candidate.content,
                    "kind": candidate.kind,
                    "notes": notes + outcome.notes,
                    "timings_ms": outcome.timings_ms,
                }
            )
            if len(written) == 1:
                self._hook("validate", "written")
        return {
            "written": written,
            "rejected": rejected,
            **({"dropped_invalid": unreadable} if unreadable else {}),
        }

    def _write(
        self,
        ingestor: Ingestor,
        request: WriteRequest,
        notes: list[str],
        *,
        readable: tuple[str, ...],
        turns: Sequence[Turn],
    ) -> WriteOutcome:
        """Write one validated candidate. A correction the supersession rule refuses (its
        evidence ranks below the record it names, e.g. the judge made it an inference) is
        written as a record of its own instead, with a note: the words were still said."""
        write = partial(
            ingestor.write,
            readable=readable,
            transcript=turns,
            now=self.clock(),
            tool="session_extraction",
        )
        try:
            return write(request)
        except InvalidArgument as exc:
            if request.replaces is None or exc.field != "source_kind":
                raise
            notes.append(f"replaces {request.replaces.id} dropped: {exc.message}")
            return write(replace(request, replaces=None, retires=()))

    def _summarize(self, claim: Claim) -> dict[str, Any]:
        validated = self.jobs.stage_output(claim.job_id, "validate")
        session = self._session(claim.session_id)
        view = self._view(claim.session_id)
        suppressions = self._suppressions(session)
        forgotten = len(stored_suppressions(self.engine.store, session.readable_scopes()))
        written = validated["written"]
        # A later turn of the session may have retired what an earlier one confirmed.
        read = self.engine.store.get_records([w["id"] for w in written if w.get("id")])
        kept, inferred = (
            tuple(c for c, hit in zip(group, suppressions.matching(group), strict=True) if not hit)
            for group in summaries.kept_and_inferred(written, read)
        )
        timer = StageTimer()
        with timer.stage("model"):
            summary = self.backend.summarize(SummaryRequest(view, kept, inferred))
        self._hook("summarize", "model_done")
        if len(stored_suppressions(self.engine.store, session.readable_scopes())) != forgotten:
            # The view it was written from may hold what was just forgotten: read it again.
            raise ExtractionError("a forget landed while the summary was written; retrying")
        now = self.engine.store.get_records(list(read))  # retired while the model wrote?
        told = summaries.without_retired(summary.summary, read, now)
        text, withheld = suppressions.without_matching_sentences(told)
        summary = summary.model_copy(
            update={"summary": (text or summaries.WITHHELD_SUMMARY) if withheld else told}
        )
        scope = summary_scope(session)
        turns = view.turns
        event_at = turns[0].at if turns else format_time(self.clock())
        # A summary that repeats what the session did not confirm is an inference itself.
        unconfirmed = summaries.states_unconfirmed(summary.summary, inferred, turns)
        request = WriteRequest(
            type=MemoryType.EPISODIC,
            content=summary.summary,
            source_kind=SourceKind.AGENT_INFERENCE if unconfirmed else SourceKind.SESSION_SUMMARY,
            scope=scope,
            agent_id=session.agent_id,
            user_id=session.user_id,
            session_id=session.session_id,
            event_at=event_at,
            tags=(SUMMARY_TAG, RESTATING) if self.backend.summaries_restate else (SUMMARY_TAG,),
            idempotency_key=f"summary:{session.session_id}",
            reinforce=False,
        )
        outcome = self.engine.ingestor().write(
            request,
            readable=session.readable_scopes(),
            transcript=turns,
            now=self.clock(),
            verify_evidence=False,
            tool="session_summary",
        )
        self._hook("summarize", "written")
        said = self._assistant_words(session, turns)
        return {
            "summary_id": outcome.id,
            "assistant_words": said,
            "action": outcome.action,
            "replayed": outcome.replayed,
            "scope": scope,
            "source_kind": request.source_kind.value,
            "sentences_withheld": withheld,
            "timings_ms": {**timer.timings, "write": outcome.timings_ms},
        }

    def _assistant_words(self, session: Session, turns: Sequence[Turn]) -> list[str]:
        """Keep the session's assistant turns, in parts, in the agent-user pair's private
        scope (what this agent told this user) as records read only when a search asks what
        the assistant said (core.extraction.replies); their ids. None restates a forgotten
        record in a sentence or clause (core.suppressions.restates, at ECHO_FLOOR), and none
        is written twice: a part the session's kept words hold already is not written again,
        also when a forget since changed the context it would be written with (its key)."""
        if not self.engine.config.extraction.assistant_words:
            return []
        scope = str(Scope.private(session.agent_id, session.user_id))
        held = assistant_words_of(self.engine.store, scope, session.session_id)
        forgotten = self._suppressions(session, floor=ECHO_FLOOR)
        found = replies.items(turns)
        new = [
            item
            for item in found
            if item["evidence"] not in held and not restates(forgotten, item["evidence"])
        ]
        ids = [held[item["evidence"]] for item in found if item["evidence"] in held]
        if new:
            ids += import_items(
                self.engine,
                new,
                scope=scope,
                agent_id=session.agent_id,
                session_id=session.session_id,
                now=self.clock(),
            ).ids
        return ids

    # -- helpers -----------------------------------------------------------------------------

    def _suppressions(self, session: Session, *, floor: float | None = None) -> Suppressions:
        """What was forgotten in the scopes the session reads (core.erasure), matched at
        ``floor`` (default: the ingestor's duplicate floor)."""
        return Suppressions.load(
            self.engine.store,
            session.readable_scopes(),
            self.engine.embedder,
            self.engine.config.ingest.duplicate_floor if floor is None else floor,
        )

    def _restated(
        self, session: Session, candidates: Sequence[Candidate], turns: Sequence[Turn]
    ) -> list[bool]:
        """Which ``candidates`` restate a forgotten record the user has not said again since
        (core.suppressions.restated)."""
        drafts = [(c.content, c.evidence) for c in candidates]
        return restated(self._suppressions(session), drafts, turns, self.engine.judge())

    def _unsuppressed(self, session: Session, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates`` less those that restate a forgotten record."""
        hits = self._restated(session, candidates, session.transcript())
        return [c for c, hit in zip(candidates, hits, strict=True) if not hit]

    def _unforgotten(
        self, session: Session, keeps: Mapping[str, tuple[str, ...]]
    ) -> dict[str, tuple[str, ...]]:
        """``keeps`` (WriteRequest.keeps) less the parts that restate a forgotten record, whole
        or in one of their sentences or clauses."""
        suppressions = self._suppressions(session)
        if not suppressions:
            return dict(keeps)
        left = {
            record_id: tuple(w for w in kept if not suppressions.without_matching_sentences(w)[1])
            for record_id, kept in keeps.items()
        }
        return {record_id: kept for record_id, kept in left.items() if kept}

    def _session(self, session_id: str) -> Session:
        from agent_memory.core.session import Session

        stored = session_settings(self.engine.store, session_id)
        if stored is None:
            raise ExtractionError(f"the session {session_id} is gone")
        return Session.resume(
            self.engine,
            agent_id=stored["agent_id"],
            user_id=stored["user_id"],
            session_id=session_id,
            write_targets=stored["write_targets"],
            authoritative_tools=stored["authoritative_tools"],
        )

    def _view(self, session_id: str) -> SessionView:
        session = self._session(session_id)
        shared = self.config.shared_target
        writable = session.writable_scopes()
        if session.write_targets.get(shared) not in writable:
            shared = "personal"
        return SessionView(
            session_id,
            session.agent_id,
            session.user_id,
            tuple(session.transcript()),
            targets=tuple(session.write_targets),
            shared_target=shared,
        )

    def _review_items(
        self, session: Session, view: SessionView, candidates: Sequence[Candidate]
    ) -> list[ReviewItem]:
        if not candidates:
            return []
        related = [Related((), {}) for _ in candidates]
        turns = [find_quote(c.evidence, view.turns, roles=ALL_ROLES) for c in candidates]
        k = self.config.related_records
        if k:
            # Live as of now, as the ingestor's duplicate check will read them.
            where = RecordFilter(scopes=session.readable_scopes(), now=format_time(self.clock()))
            related = related_records(self.engine, candidates, turns, where=where, k=k)
        items = []
        for i, candidate in enumerate(candidates):
            turn = turns[i]
            surrounding: tuple[Turn, ...] = ()
            if turn is not None:
                surrounding = tuple(t for t in view.turns if abs(t.seq - turn.seq) <= 1)
            items.append(ReviewItem(i, candidate, surrounding, *related[i]))
        return items


__all__ = ["Pipeline", "StageHooks", "StageResult"]

"""The ingestor: the one path by which a record enters the store (design §6).

memory_write, memory_revise(correct) and, later, the extraction validator all come through
``Ingestor.write``. Its stages, each timed:

1. evidence     a claimed source must be backed by a verbatim quote from this session's
                transcript (user turns for user_statement, tool turns of a tool the host names
                authoritative, not repeating the model's own words, for tool_result, system
                turns for system; core.write.evidence) that entails the content; otherwise the
                source is downgraded to agent_inference and a note says why. Models cannot
                claim session_summary.
2. entities     ``about`` mentions resolve by exact alias in readable scopes, else become new
                provisional entities in the writer's scope; in the principal's own user scope a
                semantic or procedural write without ``about`` is about the principal.
3. embedding    the content (for procedures: name, trigger and content) followed by the
                retrieval context if the request has one (session extraction: the evidence
                turn), the vector search reads; and, for a draft with context, the content
                alone, which every comparison below uses (core.write.dedup.Vectors).
4. duplicates   a live record of the same scope, type and subject entity with cosine at or
                above ``ingest.duplicate_floor`` that the judge does not call contradictory is
                reinforced instead of adding a record, unless a live record stated after the
                write contradicts it (a late restatement must not strengthen what a newer one
                replaced). Reinforcing records the observation (its turn and quote digest),
                raises confidence (less without new evidence) and extends expiry; a stronger
                verified source upgrades the record; a provisional record is confirmed only by
                two observations with different quotes from different user or host turns
                (``reinforce.reinforce_in``), never by repetition.
5. contradictions  the dense neighbours above ``ingest.conflict_floor`` and up to eight FTS5
                matches on the content's words and its relation's words
                (core.judge.contradiction.relation_words), about the same subject entity, go
                to the judge's contradiction check (episodes are never contradicted). The
                user's words retire what they make stale, and a draft that a record stated
                after it makes stale is stored as that record's history (core.write.stale).
6. transaction  the rivals are the record being corrected, else the live holder of the same
                subject (entity + normalised attribute) and the contradicted records, read again
                as of now. Statement time decides (``stated_at``: the evidence turn's time, else
                the write's; a tie goes to the later write): a rival stated after the draft
                that ranks equal or higher makes the draft superseded history, placed in the
                rival's lineage at its time (action ``history``); the draft supersedes older
                rivals of equal or lower rank and is stored beside the rest with
                ``conflicts_with`` (action ``conflict``). A correction replaces the record it
                names whatever the times. Record, vector, FTS, links, entities, observation,
                audit events and records_version commit together.
7. index        this process's vector index applies the change.
8. log          one write_log row with the request, the decisions and the stage timings.

Every stage that looks at stored records looks only at the scopes the writer can read: a
write-only grant never reinforces, contradicts or supersedes a record, and no result or note
names one. Each stage's rules live in its module (evidence, entities, drafts, dedup, reinforce,
supersession, stale; all in core.write) and every statement in core.store; this module runs
them in order. Nothing here holds a transaction open across the model or the judge.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent_memory.core import events, passages
from agent_memory.core.errors import NotFound
from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import MemoryType, Record, SourceKind, Status, format_time, new_id
from agent_memory.core.store import keys
from agent_memory.core.store import records as stored
from agent_memory.core.store import write_reads as reads
from agent_memory.core.store.log import log_write
from agent_memory.core.suppressions import refuse_forgotten, scope_user, told_again
from agent_memory.core.timing import StageTimer
from agent_memory.core.write import dedup, drafts, entities, evidence, reinforce, supersession
from agent_memory.core.write.dedup import RACE_RETRIES, Raced, Restart, Vectors
from agent_memory.core.write.drafts import WriteOutcome, WriteRequest
from agent_memory.core.write.entities import PlannedEntity
from agent_memory.core.write.evidence import EvidenceCheck, Turn, Witness

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine


class Ingestor:
    """Validates and writes records into one engine's store, with its judge."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.store = engine.store
        self.judge = engine.judge()
        self.config = engine.config

    # -- evidence (stage 1; core.write.evidence) ----------------------------------------------

    def check_evidence(self, request: WriteRequest, transcript: Sequence[Turn]) -> EvidenceCheck:
        """What the evidence supports: the source kind, the evidence to store, the turn it
        was found in, and notes on any downgrade (core.write.evidence.check)."""
        return evidence.check(
            self.judge, request.source_kind, request.evidence, request.content, transcript
        )

    def witness(self, checked: EvidenceCheck, request: WriteRequest) -> Witness | None:
        """The observation's evidence, for the promotion rule (core.write.evidence.witness)."""
        return evidence.witness(
            self.judge, checked, request.content, request.session_id, self._similarity
        )

    def _similarity(self, a: str, b: str) -> float:
        """Cosine of two texts on the store's embedder (its vectors are unit length)."""
        first, second = self.engine.embedder.embed([a, b])
        return float(first @ second)

    @staticmethod
    def stated_at(checked: EvidenceCheck, now: datetime) -> str:
        """When the statement was made: its evidence turn's time, else the write's."""
        return evidence.stated_at(checked, now)

    # -- the write ---------------------------------------------------------------------------

    def write(
        self,
        request: WriteRequest,
        *,
        readable: tuple[str, ...],
        transcript: Sequence[Turn] = (),
        now: datetime,
        verify_evidence: bool = True,
        tool: str = "memory_write",
        honour_forgets: bool = False,
    ) -> WriteOutcome:
        """Run every stage and return what happened. Raises InvalidArgument for input that
        cannot be written (then nothing is written). With ``honour_forgets`` (a model's write),
        raises Forgotten when the content (or a procedure's parts) says again what a forget in
        its target or the user's own scopes left a suppression of, and no quote of the user's
        own said since backs it (core.suppressions.refuse_forgotten)."""
        if request.idempotency_key is not None:
            replayed = self._replayed(request.idempotency_key)
            if replayed is not None:
                return replayed
        clock = StageTimer()
        with clock.stage("evidence_validation"):
            if verify_evidence:
                checked = self.check_evidence(request, transcript)
            else:
                checked = EvidenceCheck(request.source_kind, request.evidence, [])
            witness = self.witness(checked, request)
        if honour_forgets:
            with clock.stage("suppression_check"):
                self._refuse_forgotten(request, checked, readable)
        vectors: Vectors | None = None  # the same texts on every attempt: embedded once
        raced: list[str] = []
        while isinstance(
            outcome := self._attempt(
                request,
                checked,
                witness,
                vectors,
                readable=readable,
                settle_races=len(raced) < RACE_RETRIES,
                clock=clock,
                now=now,
            ),
            Restart,
        ):
            # Another writer committed a likely duplicate since that attempt's search; its
            # transaction rolled back. Search again, so that the judge decides, outside it.
            vectors = outcome.vectors
            raced.append(outcome.record_id)
        if outcome.replayed:
            return outcome
        outcome.decisions["restarts"] = len(raced)
        outcome.decisions["raced"] = raced  # the records that made it start over
        outcome.notes = checked.notes + outcome.notes
        with clock.stage("vector_index_update"):
            self.engine.index()
        outcome.timings_ms = clock.timings
        total = clock.total_ms()
        with clock.stage("log_write"):
            self.log(request, outcome, total_ms=total, now=now, tool=tool)
        outcome.timings_ms = clock.timings
        return outcome

    def _refuse_forgotten(
        self, request: WriteRequest, checked: EvidenceCheck, readable: tuple[str, ...]
    ) -> None:
        """Forgotten, when a model's write says again what was forgotten in its target or in
        the user's own scopes, unless a quote of the user's said since backs it
        (core.suppressions.refuse_forgotten)."""
        own = [s for s in readable if scope_user(s) == request.user_id]
        parts = request.procedure.parts() if request.procedure else ()
        quote = checked.turn if checked.source_kind is SourceKind.USER_STATEMENT else None
        if quote is not None and not told_again(checked.evidence or "", quote.content):
            quote = None  # wrapped or pasted back: not the user saying it again
        refuse_forgotten(
            self.engine,
            sorted({request.scope, *own}),
            request.content,
            parts,
            quoted_at=quote.at if quote is not None else None,
        )

    def _attempt(
        self,
        request: WriteRequest,
        checked: EvidenceCheck,
        witness: Witness | None,
        vectors: Vectors | None,
        *,
        readable: tuple[str, ...],
        settle_races: bool,
        clock: StageTimer,
        now: datetime,
    ) -> WriteOutcome | Restart:
        """Stages 2 to 6 once: plan, search and commit. With ``settle_races``, a transaction
        that finds a likely duplicate committed since the search rolls back and says so
        (``Restart``)."""
        with clock.stage("entity_resolution"), self.store.reading() as conn:
            planned = entities.plan(
                conn,
                request.about,
                memory_type=request.type,
                scope=request.scope,
                user_id=request.user_id,
                correcting=request.replaces is not None,
                readable=readable,
                now=now,
            )
            draft = drafts.draft(request, checked, planned, config=self.config, now=now)
            draft = supersession.outside_retired(conn, draft)

        if vectors is None:
            with clock.stage("content_embedding"):
                vectors = self._vectors(draft)
        probe = vectors.probe

        # A writer sees only what it may read: a write-only grant neither reinforces,
        # contradicts nor supersedes a record, and no result or note names one (design §5).
        sees = draft.scope in readable
        with clock.stage("duplicate_search"):
            # Records written after this point are not among the neighbours; _insert looks
            # among them for a likely duplicate another writer committed meanwhile.
            seen = self.store.last_rowid()
            near = dedup.neighbours(self.engine, draft, probe, now=now) if sees else []
            duplicate = None
            if request.replaces is None and request.reinforce:
                duplicate = dedup.find_duplicate(self.judge, self.config, draft, near)

        with clock.stage("contradiction_check"):
            lexical = []
            if sees and draft.type is not MemoryType.EPISODIC:
                lexical = dedup.lexical_neighbours(self.engine, draft, near, now=now)
            candidates = [r for r, _ in near] + lexical
            contradicted = dedup.find_contradicted(self.judge, draft, candidates, duplicate)
            if duplicate is not None and dedup.outdated(self.judge, duplicate, draft, contradicted):
                duplicate = None  # a newer record says otherwise: not reinforced (see _insert)
            retired: list[Record] = []
            outdated_by = None  # a newer record that makes this one stale (core.write.stale)
            if sees and duplicate is None:
                contradicted, retired, outdated_by = dedup.find_stale(
                    self.engine,
                    self.judge,
                    draft,
                    probe,
                    contradicted,
                    replaces=request.replaces,
                    named=request.outdated_by,
                    now=now,
                )
            if sees and request.retires:
                retired += supersession.retirable(draft, request.retires, retired)

        decisions: dict[str, Any] = {
            "claimed_source_kind": request.source_kind.value,
            "stated_at": draft.stated_at,
            "neighbours": [{"id": r.id, "cosine": round(s, 4)} for r, s in near],
            "lexical_neighbours": [r.id for r in lexical],
            "contradicted": [r.id for r in contradicted],
            "stale": [r.id for r in retired],
            "outdated_by": outdated_by.id if outdated_by is not None else None,
            "entities": [{"id": p.id, "created": not p.exists} for p in planned],
        }
        with clock.stage("sqlite_transaction"):
            try:
                if duplicate is not None:
                    outcome = self._reinforce(duplicate, draft, request, witness, now=now)
                else:
                    outcome = self._insert(
                        draft,
                        vectors,
                        planned,
                        request,
                        witness,
                        contradicted=tuple(r.id for r in contradicted),
                        retired=tuple(r.id for r in retired),
                        outdated_by=outdated_by.id if outdated_by is not None else None,
                        seen=seen if sees else None,
                        judged=frozenset(r.id for r, _ in near),
                        settle_races=settle_races,
                        now=now,
                    )
            except Raced as raced:
                return Restart(raced.record_id, vectors)
            except sqlite3.IntegrityError:
                # Another writer committed the same idempotency key first.
                if request.idempotency_key is None:
                    raise
                replayed = self._replayed(request.idempotency_key)
                if replayed is None:
                    raise
                return replayed
        outcome.decisions = decisions
        return outcome

    def _vectors(self, draft: Record) -> Vectors:
        """The draft's stored and probe vectors (core.write.dedup.Vectors), in one call, and
        its passages' (core.passages.embed_passages), in another. A draft with context whose
        content is its one passage has the probe vector as that passage's."""
        texts = [stored.embedding_text(draft)]
        if draft.context:
            texts.append(stored.comparison_text(draft))
        embedded = self.engine.embedder.embed(texts)
        parts = passages.passages(
            draft.content, in_context=passages.reads_context(texts[0], draft.content)
        )
        if parts == [texts[-1]] and len(texts) == 2:
            return Vectors(embedded[0], embedded[-1], embedded[-1:])
        vectors = passages.embed_passages(self.engine.embedder, [parts]) if parts else None
        return Vectors(embedded[0], embedded[-1], vectors)

    def _replayed(self, key: str) -> WriteOutcome | None:
        """The outcome of the write that committed ``key``, or None if none did."""
        with self.store.reading() as conn:
            committed = keys.outcome(conn, key)
        if committed is None:
            return None
        record_id, first_action = committed
        record = self.store.get_records([record_id]).get(record_id)
        if record is None:  # pragma: no cover - records are tombstoned, never deleted
            raise NotFound(f"{record_id} (written under {key}) is gone", field="id")
        return WriteOutcome(
            id=record_id,
            status=record.status,
            source_kind=record.source_kind,
            action=first_action,
            supersedes_id=record.supersedes_id,
            conflicts_with=record.conflicts_with,
            notes=[f"already written under {key} ({first_action}); not written again"],
            replayed=True,
        )

    # -- inside the transaction (stage 6) -----------------------------------------------------

    def _insert(
        self,
        draft: Record,
        vectors: Vectors,
        planned: list[PlannedEntity],
        request: WriteRequest,
        witness: Witness | None,
        *,
        contradicted: tuple[str, ...],
        retired: tuple[str, ...],
        outdated_by: str | None,
        seen: int | None,
        judged: frozenset[str],
        settle_races: bool,
        now: datetime,
    ) -> WriteOutcome:
        """Inside one transaction: the entities, the race check, the lineage decision
        (core.write.supersession), the record and what it supersedes. ``seen`` None: the
        writer cannot read the scope, so no record of it is looked at."""
        notes: list[str] = []
        with self.store.transaction() as conn:
            linked = [
                entities.create_planned(conn, p, agent_id=request.agent_id, now=now)
                for p in planned
            ]
            if linked:
                subject_entity = (
                    linked[0].id if request.replaces is None else draft.subject_entity_id
                )
                draft = replace(
                    draft,
                    subject_entity_id=subject_entity,
                    subject=entities.subject_of(subject_entity, draft.attribute),
                    entities=tuple(dict.fromkeys(p.id for p in linked)),
                )
            # Another writer may have committed the same fact since the duplicate search (two
            # sessions' extractions validating it at once). The judge is a model call, never
            # made inside a transaction: roll back and search again.
            raced = None
            if seen is not None and request.reinforce and request.replaces is None:
                raced = dedup.committed_since(
                    conn, self.engine, seen, judged, draft, vectors.probe, now
                )
            if raced is not None:
                if settle_races:
                    raise Raced(raced)
                notes.append(
                    f"{raced}, a likely duplicate, was committed by another writer during "
                    f"this write; written anyway after {RACE_RETRIES} searches again"
                )
            rivals = supersession.rivals(
                conn,
                draft,
                replaces=request.replaces,
                contradicted=contradicted,
                kin=dedup.kin(draft, now),
                sees=seen is not None,
                now=now,
            )
            live = RecordFilter(scopes=(draft.scope,), now=format_time(now))
            stated = replace(live, statuses=frozenset({*live.statuses, Status.SUPERSEDED}))
            later = reads.live_in(conn, [outdated_by], stated) if outdated_by else []
            named = request.outdated_by
            plan = supersession.settle(
                draft,
                rivals,
                correcting=request.replaces is not None,
                outdated_by=later[0] if later else None,
                lineage=named is not None and named.id == outdated_by,
            )
            notes += plan.notes
            said, draft = draft, plan.draft
            if plan.successor is not None:
                draft = supersession.into_lineage(conn, draft, plan.successor, now=now)
            rowid = stored.insert_record(
                conn,
                stored.NewRecord(draft, vectors.stored, vectors.passages),
                embedder=self.engine.embedder.identity,
                now=now,
                event_kind="record.created",
            )
            reinforce.observe(
                conn,
                rowid,
                request,
                witness,
                kind="created",
                source_kind=draft.source_kind,
                now=now,
            )
            if request.idempotency_key is not None:
                keys.remember(conn, request.idempotency_key, draft.id, plan.action, now=now)
            if (newer := plan.superseded_by) is not None:
                history = events.RecordSuperseded(
                    record_id=draft.id,
                    agent_id=request.agent_id,
                    by=newer.id,
                    reason="stated before it",
                )
                stored.changed(conn, [], history, at=now)  # inserted above: the event alone
            replaced = {r.id for r in plan.replaced}
            retiring = list(plan.replaced)
            if retired:  # a late statement retires what it would have when said
                retiring += [r for r in reads.live_in(conn, retired, live) if r.id not in replaced]
            embedder, agent_id = self.engine.embedder, request.agent_id
            notes += supersession.retire(
                conn, retiring, draft.id, replaced, request.keeps, agent_id, embedder, now=now
            )
            if newer is not None:  # stale as it arrives: left as if retired now
                parts = request.own_keeps if named and named.id == newer.id else ()
                said = replace(said, rowid=rowid)
                notes += supersession.leave(
                    conn, said, newer.id, parts, agent_id, embedder, now=now
                )
        return WriteOutcome(
            id=draft.id,
            status=draft.status,
            source_kind=draft.source_kind,
            action=plan.action,
            supersedes_id=draft.supersedes_id,
            conflicts_with=draft.conflicts_with,
            notes=notes,
            superseded_by=newer.id if newer is not None else None,
        )

    def _reinforce(
        self,
        existing: Record,
        draft: Record,
        request: WriteRequest,
        witness: Witness | None,
        *,
        now: datetime,
    ) -> WriteOutcome:
        """Inside one transaction: reinforce the duplicate instead of adding a record."""
        with self.store.transaction() as conn:
            current = reads.stored_live(conn, existing.id)
            if current is None:
                raise NotFound(f"{existing.id} stopped being live during the write", field="id")
            notes = [f"a near-duplicate of {current.id}; reinforced it instead of adding a record"]
            status, source_kind, promoted = reinforce.reinforce_in(
                conn,
                self.config,
                current,
                request,
                new_source=draft.source_kind,
                evidence=draft.evidence,
                witness=witness,
                stated_at=draft.stated_at,
                now=now,
            )
            if request.idempotency_key is not None:
                keys.remember(conn, request.idempotency_key, current.id, "reinforced", now=now)
        if promoted:
            notes.append(f"{current.id} is now {status.value}")
        return WriteOutcome(
            id=current.id,
            status=status,
            source_kind=source_kind,
            action="reinforced",
            notes=notes,
        )

    # -- the log (stage 8) -------------------------------------------------------------------

    def log(
        self,
        request: WriteRequest,
        outcome: WriteOutcome,
        *,
        total_ms: float,
        now: datetime,
        tool: str = "memory_write",
    ) -> None:
        """One write_log row: the candidate, validation outcome, status, supersession, stage
        timings. Written after the record's transaction; the audit events are inside it."""
        payload = {
            "request": request.to_log(),
            "outcome": outcome.to_json(),
            "decisions": outcome.decisions,
            "timings_ms": outcome.timings_ms,
        }
        with self.store.transaction() as conn:
            log_write(
                conn,
                log_id=new_id("wlog", now),
                at=now,
                tool=tool,
                agent_id=request.agent_id,
                user_id=request.user_id,
                session_id=request.session_id,
                record_id=outcome.id,
                outcome=outcome.action,
                total_ms=total_ms,
                payload=payload,
            )


__all__ = ["Ingestor"]

"""The ingestor: the one path by which a record enters the store (design §6).

memory_write, memory_revise(correct) and, later, the extraction validator all come through
``Ingestor.write``. Its stages, each timed:

1. evidence     a claimed source must be backed by a verbatim quote from this session's
                transcript (user turns for user_statement, tool turns of a tool the host names
                authoritative, not repeating the model's own words, for tool_result, system
                turns for system; core.evidence) that entails the content; otherwise the
                source is downgraded to agent_inference and a note says why. Models cannot
                claim session_summary.
2. entities     ``about`` mentions resolve by exact alias in readable scopes, else become new
                provisional entities in the writer's scope; in the principal's own user scope a
                semantic or procedural write without ``about`` is about the principal.
3. embedding    the content (for procedures: name, trigger and content).
4. duplicates   a live record of the same scope, type and subject entity with cosine at or
                above ``ingest.duplicate_floor`` that the judge does not call contradictory is
                reinforced instead of adding a record, unless a live record stated after the
                write contradicts it (a late restatement must not strengthen what a newer one
                replaced). Reinforcing records the observation (its turn and quote digest),
                raises confidence (less without new evidence) and extends expiry; a stronger
                verified source upgrades the record; a provisional record is confirmed only by
                two observations with different quotes from different user or host turns
                (``reinforce_in``), never by repetition.
5. contradictions  the dense neighbours above ``ingest.conflict_floor`` and up to eight FTS5
                matches on the content's words and its relation's words
                (core.judge.contradiction.relation_words), about the same subject entity, go
                to the judge's contradiction check (episodes are never contradicted).
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
names one. The supersession rule itself is core.supersession. Nothing here holds a
transaction open across the model or the judge.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_memory.core import entities, policy, stale, supersession
from agent_memory.core.entities import EntityRef, PlannedEntity
from agent_memory.core.errors import InvalidArgument, NotFound
from agent_memory.core.evidence import Turn, find_evidence, find_quote, normalise, quote_problem
from agent_memory.core.filters import RecordFilter
from agent_memory.core.judge.contradiction import relation_words
from agent_memory.core.models import (
    EmbedderIdentity,
    MemoryType,
    Procedure,
    Record,
    SourceKind,
    Status,
    format_time,
    new_id,
    parse_time,
)
from agent_memory.core.records import (
    NewRecord,
    append_event,
    bump_records_version,
    embedding_text,
    insert_record,
    select_records,
)
from agent_memory.core.search.lexical import fts_match, query_tokens
from agent_memory.core.timing import StageTimer

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine

# Which transcript roles can vouch for which claimed source.
EVIDENCE_ROLES: dict[SourceKind, tuple[str, ...]] = {
    SourceKind.USER_STATEMENT: ("user",),
    SourceKind.TOOL_RESULT: ("tool",),
    SourceKind.SYSTEM: ("system",),
}
REINFORCE_STEP = 0.3  # each evidenced reinforcement closes this share of the gap to certainty
REPEAT_STEP = 0.1  # a repetition without new evidence, a smaller share
MAX_CONFIDENCE = 0.99
# Turns whose words can count toward promoting a provisional record: the user's own and the
# host's. A tool turn counts only when its quote verified as a tool_result (an authoritative
# tool): other tool output may be the model's own words echoed back.
WITNESS_ROLES = ("user", "system")
_NEIGHBOURS = 8
_LEXICAL_NEIGHBOURS = 8
# Below this many records every word may go to FTS5 (matching them all is cheap); above it
# the words in half of the records are left out (core.lexical.TermStats), or a word like
# "user" would make FTS5 score nearly every row. In a small store nearly every word is in
# half of it.
_SMALL_STORE = 2000
_LIVE = "('provisional', 'confirmed')"
# How many times a write starts again after a likely duplicate was committed between its
# duplicate search and its transaction; after that it writes (a store this contended is
# better served by a second record than by a write that never lands).
_RACE_RETRIES = 3


class _Raced(Exception):
    """Raised inside a write's transaction (rolling it back) when another writer committed
    a likely duplicate, ``record_id``, since the write's duplicate search."""

    def __init__(self, record_id: str) -> None:
        super().__init__(record_id)
        self.record_id = record_id


@dataclass(frozen=True, slots=True)
class _Restart:
    """An attempt rolled back for ``record_id`` (see _Raced); ``vector`` is its content's."""

    record_id: str
    vector: np.ndarray


@dataclass(frozen=True, slots=True)
class EvidenceCheck:
    """What a write's evidence supports (Ingestor.check_evidence)."""

    source_kind: SourceKind
    evidence: str | None  # the quote to store, or None
    notes: list[str]  # why the claimed source was lowered, if it was
    turn: Turn | None = None  # the transcript turn the quote was found in


@dataclass(frozen=True, slots=True)
class Witness:
    """What one observation of a record rests on, as the observations table keeps it: the
    turn its quote was found in and a digest of the normalised quote (never the quote)."""

    session_id: str | None
    turn_seq: int
    turn_role: str
    digest: str
    counts: bool  # whether it can count toward promotion (see Ingestor.witness)


@dataclass(frozen=True, slots=True)
class WriteRequest:
    """A validated write, its scope already resolved and permitted."""

    type: MemoryType
    content: str
    source_kind: SourceKind
    scope: str
    agent_id: str
    user_id: str | None = None
    session_id: str | None = None
    attribute: str | None = None
    evidence: str | None = None
    about: tuple[EntityRef, ...] = ()
    event_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    review_at: str | None = None
    tags: tuple[str, ...] = ()
    procedure: Procedure | None = None
    source_ref: str | None = None
    # memory_revise(correct): the record this write must replace.
    replaces: Record | None = None
    # At most once: a write with a key already committed returns the first outcome (its
    # action, with replayed=True) instead of writing again. The key commits in the record's
    # transaction.
    idempotency_key: str | None = None
    # False: never reinforce a near-duplicate, always add a record (session summaries: one
    # per session, even when two sessions read alike).
    reinforce: bool = True


@dataclass(slots=True)
class WriteOutcome:
    """What a write did, in the shape memory_write returns (plus diagnostics)."""

    id: str
    status: Status
    source_kind: SourceKind
    action: str  # created | reinforced | superseded | conflict | history
    supersedes_id: str | None = None
    conflicts_with: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    # True when the idempotency key had been committed already: nothing was written now, and
    # ``action`` is what the first write did.
    replayed: bool = False
    # action "history": the newer record this statement was stored before.
    superseded_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        shape = {
            "id": self.id,
            "status": self.status.value,
            "source_kind": self.source_kind.value,
            "action": self.action,
            "supersedes_id": self.supersedes_id,
            "conflicts_with": list(self.conflicts_with),
            "notes": list(self.notes),
        }
        if self.superseded_by is not None:
            shape["superseded_by"] = self.superseded_by
        return shape


class Ingestor:
    """Validates and writes records into one engine's store, with its judge."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.store = engine.store
        self.judge = engine.judge()
        self.config = engine.config

    # -- evidence ----------------------------------------------------------------------------

    def check_evidence(self, request: WriteRequest, transcript: Sequence[Turn]) -> EvidenceCheck:
        """What the evidence supports: the source kind, the evidence to store, the turn it
        was found in, and notes on any downgrade. Conservative: anything unproven becomes
        agent_inference."""
        claimed = request.source_kind
        quote = request.evidence
        notes: list[str] = []
        if claimed is SourceKind.SESSION_SUMMARY:
            notes.append(
                "session_summary is written only by the end-of-session summary; stored as "
                "agent_inference"
            )
            claimed = SourceKind.AGENT_INFERENCE
        roles = EVIDENCE_ROLES.get(claimed)
        if roles is None:  # agent_inference: evidence optional, kept only if it is verbatim
            turn = None
            if quote:
                turn = find_quote(quote, transcript, roles=("user", "tool", "system"))
                if turn is None:
                    notes.append(
                        "evidence not found verbatim in this session's transcript; dropped"
                    )
                    quote = None
            return EvidenceCheck(claimed, quote, notes, turn)
        downgrade = f"source_kind {claimed.value} became agent_inference"
        if not quote:
            notes.append(f"no evidence quote was given, so {downgrade}")
            return EvidenceCheck(SourceKind.AGENT_INFERENCE, None, notes)
        if (problem := quote_problem(quote)) is not None:
            notes.append(f"{problem}, so {downgrade}")
            return EvidenceCheck(SourceKind.AGENT_INFERENCE, None, notes)
        turn, unfit = find_evidence(quote, transcript, roles=roles)
        if turn is None:
            where = " or ".join(roles)
            notes.append(
                f"{unfit}, so {downgrade}"
                if unfit
                else f"the evidence quote was not found verbatim in a {where} turn of this "
                f"session's transcript, so {downgrade}"
            )
            found_elsewhere = find_quote(
                quote, transcript, roles=("user", "assistant", "tool", "system")
            )
            return EvidenceCheck(
                SourceKind.AGENT_INFERENCE,
                quote if found_elsewhere else None,
                notes,
                found_elsewhere,
            )
        verdict = self.judge.entails(quote, request.content, context=turn.content)
        if not verdict.holds:
            notes.append(
                f"the quote does not entail the content ({verdict.reason}), so {downgrade}"
            )
            return EvidenceCheck(SourceKind.AGENT_INFERENCE, quote, notes, turn)
        return EvidenceCheck(claimed, quote, notes, turn)

    def witness(self, checked: EvidenceCheck, request: WriteRequest) -> Witness | None:
        """The observation's evidence, for the promotion rule (reinforce_in): the turn its
        quote was found in and the quote's digest. It counts toward promotion when the turn
        is the user's or the host's (WITNESS_ROLES), or the quote verified a stronger source,
        and the judge does not find the quote contradicting the content. None without a
        quote found in the transcript."""
        turn, quote = checked.turn, checked.evidence
        if turn is None or not quote:
            return None
        counts = (
            turn.role in WITNESS_ROLES or checked.source_kind is not SourceKind.AGENT_INFERENCE
        ) and not self.judge.contradicts(quote, request.content).holds
        digest = hashlib.sha256(normalise(quote).encode()).hexdigest()[:32]
        return Witness(request.session_id, turn.seq, turn.role, digest, counts)

    @staticmethod
    def stated_at(checked: EvidenceCheck, now: datetime) -> str:
        """When the statement was made: its evidence turn's time, else the write's."""
        if checked.turn is not None and checked.evidence:
            return checked.turn.at
        return format_time(now)

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
    ) -> WriteOutcome:
        """Run every stage and return what happened. Raises InvalidArgument for input that
        cannot be written (then nothing is written)."""
        if request.idempotency_key is not None:
            replayed = self._replayed(request.idempotency_key)
            if replayed is not None:
                return replayed
        clock = StageTimer()
        notes: list[str] = []
        with clock.stage("evidence_validation"):
            if verify_evidence:
                checked = self.check_evidence(request, transcript)
            else:
                checked = EvidenceCheck(request.source_kind, request.evidence, [])
            notes = checked.notes
            witness = self.witness(checked, request)
        vector: np.ndarray | None = None  # the same text on every attempt: embedded once
        raced: list[str] = []
        while isinstance(
            outcome := self._attempt(
                request,
                checked,
                witness,
                vector,
                readable=readable,
                settle_races=len(raced) < _RACE_RETRIES,
                clock=clock,
                now=now,
            ),
            _Restart,
        ):
            # Another writer committed a likely duplicate since that attempt's search; its
            # transaction rolled back. Search again, so that the judge decides, outside it.
            vector = outcome.vector
            raced.append(outcome.record_id)
        if outcome.replayed:
            return outcome
        outcome.decisions["restarts"] = len(raced)
        outcome.decisions["raced"] = raced  # the records that made it start over
        outcome.notes = notes + outcome.notes
        with clock.stage("vector_index_update"):
            self.engine.index()
        outcome.timings_ms = clock.timings
        total = clock.total_ms()
        with clock.stage("log_write"):
            self.log(request, outcome, total_ms=total, now=now, tool=tool)
        outcome.timings_ms = clock.timings
        return outcome

    def _attempt(
        self,
        request: WriteRequest,
        checked: EvidenceCheck,
        witness: Witness | None,
        vector: np.ndarray | None,
        *,
        readable: tuple[str, ...],
        settle_races: bool,
        clock: StageTimer,
        now: datetime,
    ) -> WriteOutcome | _Restart:
        """Plan, search and commit once. With ``settle_races``, a transaction that finds a
        likely duplicate committed since the search rolls back and says so (``_Restart``)."""
        with clock.stage("entity_resolution"):
            planned = self._plan_entities(request, readable=readable, now=now)
        subject_entity = planned[0].id if planned else None
        attribute = request.attribute
        if request.type is MemoryType.PROCEDURAL and request.procedure and not attribute:
            attribute = f"procedure {request.procedure.name}"
        if request.replaces is not None:
            subject_entity = request.replaces.subject_entity_id
            attribute = attribute or request.replaces.attribute
        subject = entities.subject_of(subject_entity, attribute)
        source_kind, evidence = checked.source_kind, checked.evidence

        status = policy.initial_status(source_kind)
        expires = policy.expires_at(status, now=now, config=self.config)
        draft = Record(
            id=new_id("mem", now),
            type=request.type,
            content=request.content,
            scope=request.scope,
            source_kind=source_kind,
            status=status,
            confidence=policy.initial_confidence(source_kind),
            created_at=format_time(now),
            stated_at=self.stated_at(checked, now),
            subject_entity_id=subject_entity,
            attribute=attribute,
            subject=subject,
            procedure=request.procedure,
            source_ref=request.source_ref or request.session_id,
            creator_agent_id=request.agent_id,
            session_id=request.session_id,
            evidence=evidence,
            event_at=request.event_at
            or (format_time(now) if request.type is MemoryType.EPISODIC else None),
            expires_at=format_time(expires) if expires else None,
            valid_from=request.valid_from,
            valid_until=request.valid_until,
            review_at=request.review_at,
            tags=request.tags,
            entities=tuple(p.id for p in planned),
        )

        if vector is None:
            with clock.stage("content_embedding"):
                vector = self.engine.embedder.embed([embedding_text(draft)])[0]

        # A writer sees only what it may read: a write-only grant neither reinforces,
        # contradicts nor supersedes a record, and no result or note names one (design §5).
        sees = draft.scope in readable
        with clock.stage("duplicate_search"):
            # Records written after this point are not among the neighbours; _insert looks
            # among them for a likely duplicate another writer committed meanwhile.
            seen = self.store.query("SELECT coalesce(max(rowid), 0) AS m FROM records")[0]["m"]
            neighbours = self._neighbours(draft, vector, now=now) if sees else []
            duplicate = None
            if request.replaces is None and request.reinforce:
                duplicate = self._find_duplicate(draft, neighbours)

        with clock.stage("contradiction_check"):
            lexical = []
            if sees and draft.type is not MemoryType.EPISODIC:
                lexical = self._lexical_neighbours(draft, neighbours, now=now)
            candidates = [r for r, _ in neighbours] + lexical
            contradicted = self._find_contradicted(draft, candidates, duplicate)
            if duplicate is not None and self._outdated(duplicate, draft, contradicted):
                duplicate = None  # a newer record says otherwise: not reinforced (see _insert)
            retired: list[Record] = []
            if sees and duplicate is None:
                contradicted, retired = self._stale(draft, vector, contradicted, request, now)

        decisions: dict[str, Any] = {
            "claimed_source_kind": request.source_kind.value,
            "stated_at": draft.stated_at,
            "neighbours": [{"id": r.id, "cosine": round(s, 4)} for r, s in neighbours],
            "lexical_neighbours": [r.id for r in lexical],
            "contradicted": [r.id for r in contradicted],
            "stale": [r.id for r in retired],
            "entities": [{"id": p.id, "created": not p.exists} for p in planned],
        }
        with clock.stage("sqlite_transaction"):
            try:
                if duplicate is not None:
                    outcome = self._reinforce(duplicate, draft, request, witness, now=now)
                else:
                    outcome = self._insert(
                        draft,
                        vector,
                        planned,
                        request,
                        witness,
                        contradicted=tuple(r.id for r in contradicted),
                        retired=tuple(r.id for r in retired),
                        seen=seen if sees else None,
                        judged=frozenset(r.id for r, _ in neighbours),
                        settle_races=settle_races,
                        now=now,
                    )
            except _Raced as raced:
                return _Restart(raced.record_id, vector)
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

    def _replayed(self, key: str) -> WriteOutcome | None:
        """The outcome of the write that committed ``key``, or None if none did."""
        rows = self.store.query("SELECT record_id, action FROM ingest_keys WHERE key = ?", (key,))
        if not rows:
            return None
        record_id, first_action = rows[0]["record_id"], rows[0]["action"]
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

    def _plan_entities(
        self, request: WriteRequest, *, readable: tuple[str, ...], now: datetime
    ) -> list[PlannedEntity]:
        with self.store.reading() as conn:
            if request.about:
                return [
                    entities.resolve(
                        conn, ref, readable=readable, target_scope=request.scope, now=now
                    )
                    for ref in request.about
                ]
            if request.replaces is not None or request.type is MemoryType.EPISODIC:
                return []
            if request.user_id is not None and request.scope == f"user:{request.user_id}":
                return [entities.plan_principal(conn, request.user_id)]
        raise InvalidArgument(
            f"a {request.type.value} record in {request.scope} must say what it is about: pass "
            'about, e.g. [{"kind": "project", "name": "Apollo"}]',
            field="about",
        )

    def _neighbours(
        self, draft: Record, vector: np.ndarray, *, now: datetime
    ) -> list[tuple[Record, float]]:
        """The nearest records of ``_kin`` (live, same scope and type), most similar first."""
        hits = self.engine.index().search(vector, _NEIGHBOURS, where=_kin(draft, now))
        hits = [h for h in hits if h.score >= self.config.ingest.conflict_floor]
        found = self.store.records_by_rowid([h.rowid for h in hits])
        return [(found[h.rowid], h.score) for h in hits if h.rowid in found]

    def _find_duplicate(
        self, draft: Record, neighbours: list[tuple[Record, float]]
    ) -> Record | None:
        for record, cosine in neighbours:
            if cosine < self.config.ingest.duplicate_floor:
                continue
            if not _same_occasion(record, draft):
                continue
            if self.judge.contradicts(record.content, draft.content).holds:
                continue
            return record
        return None

    def _duplicate_committed_since(
        self,
        conn: sqlite3.Connection,
        seen: int,
        judged: frozenset[str],
        draft: Record,
        vector: np.ndarray,
        now: datetime,
    ) -> str | None:
        """The id of a record added after rowid ``seen`` (a handful of rows, not the scope)
        and not among the ``judged`` neighbours that the duplicate search would take to the
        judge: live as of ``now``, close enough (the neighbour and duplicate floors), and of
        the same occasion. None if there is none."""
        floor = max(self.config.ingest.conflict_floor, self.config.ingest.duplicate_floor)
        identity = self.engine.embedder.identity
        for record, cosine in _written_since(conn, seen, draft, vector, identity, now):
            if record.id not in judged and cosine >= floor and _same_occasion(record, draft):
                return record.id
        return None

    def _lexical_neighbours(
        self, draft: Record, neighbours: list[tuple[Record, float]], *, now: datetime
    ) -> list[Record]:
        """Live records of ``_kin`` about the draft's subject entity that share its rarer
        words or the words of the relation it states (core.judge.contradiction): a
        correction ("moved to Porto") is often far from what it corrects ("lives in
        Lisbon") in embedding space. FTS5's BM25 over the words that are not in at least half
        of the records (those weigh nothing and would make FTS5 score nearly every row)."""
        if draft.subject_entity_id is None:
            return []
        words = list(dict.fromkeys([*query_tokens(draft.content), *relation_words(draft.content)]))
        index = self.engine.index()
        if len(index) >= _SMALL_STORE:
            terms = self.engine.retriever().terms
            weightless = terms.weightless(words, epoch=index.epoch, version=index.version)
            words = [w for w in words if w not in weightless]
        match = fts_match(words)
        if match is None:
            return []
        condition, params = _kin(draft, now).sql("r")
        known = {r.id for r, _ in neighbours}
        with self.store.reading() as conn:
            found = select_records(
                conn,
                f"r.rowid IN (SELECT rowid FROM records_fts WHERE records_fts MATCH ? "
                f"AND +rowid IN (SELECT r.rowid FROM records AS r WHERE {condition} "
                "AND r.subject_entity_id = ?) ORDER BY rank LIMIT ?)",
                (match, *params, draft.subject_entity_id, _LEXICAL_NEIGHBOURS),
            )
        return [r for r in found if r.id not in known]

    def _find_contradicted(
        self,
        draft: Record,
        candidates: list[Record],
        duplicate: Record | None,
    ) -> list[Record]:
        """The candidates about the draft's subject entity that the judge calls
        contradictory (the duplicate, if any, the judge has already cleared). Same subject
        (entity and attribute) needs no judge: _insert's holder replaces it."""
        found: dict[str, Record] = {}
        if draft.type is MemoryType.EPISODIC:
            return []  # events are each their own: "moved to Lisbon" then "moved to Porto"
        for record in candidates:
            if record.id in found or (duplicate is not None and record.id == duplicate.id):
                continue
            if record.subject_entity_id != draft.subject_entity_id:
                continue
            if self.judge.contradicts(record.content, draft.content).holds:
                found[record.id] = record
        return list(found.values())

    def _stale(
        self,
        draft: Record,
        vector: np.ndarray,
        contradicted: list[Record],
        request: WriteRequest,
        now: datetime,
    ) -> tuple[list[Record], list[Record]]:
        """The older records the user's words in ``draft`` make stale (core.stale): a fact of
        the draft's type joins ``contradicted`` (the supersession rule, lineage), any other
        is to be retired."""
        known = {r.id for r in contradicted}
        if request.replaces is not None:
            known.add(request.replaces.id)
        retired: list[Record] = []
        for record in stale.Finder(self.engine, self.judge).stale(draft, vector, now=now):
            if record.id in known:
                continue
            same_kind = record.type is draft.type and draft.type is not MemoryType.EPISODIC
            if same_kind and record.subject_entity_id == draft.subject_entity_id:
                contradicted = [*contradicted, record]
            else:
                retired.append(record)
        return contradicted, retired

    def _outdated(self, duplicate: Record, draft: Record, contradicted: list[Record]) -> bool:
        """Whether a record stated after the draft contradicts the draft's duplicate: then
        reinforcing it would strengthen what a newer statement replaced."""
        return any(
            supersession.stated_after(record, draft)
            and self.judge.contradicts(record.content, duplicate.content).holds
            for record in contradicted
        )

    # -- inside the transaction --------------------------------------------------------------

    def _insert(
        self,
        draft: Record,
        vector: np.ndarray,
        planned: list[PlannedEntity],
        request: WriteRequest,
        witness: Witness | None,
        *,
        contradicted: tuple[str, ...],
        retired: tuple[str, ...],
        seen: int | None,
        judged: frozenset[str],
        settle_races: bool,
        now: datetime,
    ) -> WriteOutcome:
        """Inside one transaction: the entities, the race check, the lineage decision
        (_settle), the record and what it supersedes. ``seen`` None: the writer cannot read
        the scope, so no record of it is looked at."""
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
                raced = self._duplicate_committed_since(conn, seen, judged, draft, vector, now)
            if raced is not None:
                if settle_races:
                    raise _Raced(raced)
                notes.append(
                    f"{raced}, a likely duplicate, was committed by another writer during "
                    f"this write; written anyway after {_RACE_RETRIES} searches again"
                )
            rivals = self._rivals(
                conn, draft, request, contradicted, sees=seen is not None, now=now
            )
            plan = supersession.settle(draft, rivals, correcting=request.replaces is not None)
            notes += plan.notes
            draft = plan.draft
            if plan.successor is not None:
                draft = supersession.into_lineage(conn, draft, plan.successor, now=now)
            rowid = insert_record(
                conn,
                NewRecord(draft, vector),
                embedder=self.engine.embedder.identity,
                now=now,
                event_kind="record.created",
            )
            _observe(
                conn,
                rowid,
                request,
                witness,
                kind="created",
                source_kind=draft.source_kind,
                now=now,
            )
            _remember_key(conn, request, draft.id, plan.action, now=now)
            if plan.successor is not None:
                append_event(
                    conn,
                    kind="record.superseded",
                    at=now,
                    record_id=draft.id,
                    agent_id=request.agent_id,
                    payload={"by": plan.successor.id, "reason": "stated before it"},
                )
            for old in plan.replaced:
                supersession.mark_superseded(
                    conn, old, by=draft.id, agent_id=request.agent_id, now=now
                )
            if plan.successor is None and retired:  # history retires nothing
                live, params = RecordFilter(scopes=(draft.scope,), now=format_time(now)).sql()
                marks = ",".join("?" * len(retired))
                still = select_records(conn, f"r.id IN ({marks}) AND {live}", (*retired, *params))
                for old in still:
                    supersession.mark_superseded(
                        conn, old, by=draft.id, agent_id=request.agent_id, now=now
                    )
                    notes.append(f"{old.id} said otherwise before this; retired (superseded)")
        return WriteOutcome(
            id=draft.id,
            status=draft.status,
            source_kind=draft.source_kind,
            action=plan.action,
            supersedes_id=draft.supersedes_id,
            conflicts_with=draft.conflicts_with,
            notes=notes,
            superseded_by=plan.successor.id if plan.successor is not None else None,
        )

    def _rivals(
        self,
        conn: sqlite3.Connection,
        draft: Record,
        request: WriteRequest,
        contradicted: tuple[str, ...],
        *,
        sees: bool,
        now: datetime,
    ) -> list[Record]:
        """Inside the transaction: the live records the draft may replace or clash with:
        the one being corrected, else the holder of its subject and the records the judge
        found contradictory (read again: live as of ``now``, not only when judged)."""
        holder = self._current_holder(conn, draft, request, now=now) if sees else None
        if request.replaces is not None or not contradicted:
            return [holder] if holder is not None else []
        live, params = _kin(draft, now).sql("r")
        marks = ",".join("?" * len(contradicted))
        found = select_records(conn, f"r.id IN ({marks}) AND {live}", (*contradicted, *params))
        rivals = {r.id: r for r in found}
        if holder is not None:
            rivals[holder.id] = holder
        return sorted(rivals.values(), key=supersession.statement_order)

    def _current_holder(
        self, conn: sqlite3.Connection, draft: Record, request: WriteRequest, *, now: datetime
    ) -> Record | None:
        """The live record this write would replace: the one being corrected, else the live
        record holding the same subject in the same scope. Live as of ``now``: a provisional
        record past expires_at is expired already (Record.status_at), swept or not."""
        at = format_time(now)
        if request.replaces is not None:
            live, params = RecordFilter(scopes=(request.replaces.scope,), now=at).sql()
            rows = select_records(conn, f"r.id = ? AND {live}", (request.replaces.id, *params))
            if not rows:
                raise NotFound(
                    f"{request.replaces.id} is no longer live (superseded, expired or deleted)",
                    field="id",
                )
            return rows[0]
        if draft.subject is None or draft.type is MemoryType.EPISODIC:
            return None
        live, params = RecordFilter(scopes=(draft.scope,), now=at).sql()
        rows = select_records(
            conn,
            f"r.subject = ? AND {live} ORDER BY r.created_at DESC LIMIT 1",
            (draft.subject, *params),
        )
        return rows[0] if rows else None

    def _reinforce(
        self,
        existing: Record,
        draft: Record,
        request: WriteRequest,
        witness: Witness | None,
        *,
        now: datetime,
    ) -> WriteOutcome:
        with self.store.transaction() as conn:
            rows = select_records(conn, f"r.id = ? AND r.status IN {_LIVE}", (existing.id,))
            if not rows:
                raise NotFound(f"{existing.id} stopped being live during the write", field="id")
            current = rows[0]
            notes = [f"a near-duplicate of {current.id}; reinforced it instead of adding a record"]
            status, source_kind, promoted = self.reinforce_in(
                conn,
                current,
                request,
                new_source=draft.source_kind,
                evidence=draft.evidence,
                witness=witness,
                stated_at=draft.stated_at,
                now=now,
            )
            _remember_key(conn, request, current.id, "reinforced", now=now)
        if promoted:
            notes.append(f"{current.id} is now {status.value}")
        return WriteOutcome(
            id=current.id,
            status=status,
            source_kind=source_kind,
            action="reinforced",
            notes=notes,
        )

    def reinforce_in(
        self,
        conn: sqlite3.Connection,
        current: Record,
        request: WriteRequest,
        *,
        new_source: SourceKind,
        evidence: str | None,
        witness: Witness | None,
        stated_at: str | None,
        now: datetime,
        kind: str = "reinforced",
    ) -> tuple[Status, SourceKind, bool]:
        """Inside a transaction: record the observation, raise confidence, extend expiry,
        and promote when warranted. A stronger verified source upgrades the record. A
        provisional record becomes confirmed on two observations whose quotes differ and
        come from different user or host turns (``_witnessed``); repeating a guess, in any
        number of sessions, only extends its expiry. A quoted observation moves the record's
        stated_at to its turn's time when that is later; a repetition without a quote does
        not (nobody stated anything then)."""
        assert current.rowid is not None
        _observe(conn, current.rowid, request, witness, kind=kind, source_kind=new_source, now=now)
        step = REINFORCE_STEP if witness is not None and witness.counts else REPEAT_STEP
        confidence = min(MAX_CONFIDENCE, current.confidence + (1 - current.confidence) * step)
        status, source_kind, ev = current.status, current.source_kind, current.evidence
        why: dict[str, Any] = {}
        if policy.source_rank(new_source) > policy.source_rank(current.source_kind):
            source_kind, ev = new_source, evidence or current.evidence
            status = policy.initial_status(new_source)
            confidence = max(confidence, policy.initial_confidence(new_source))
            why = {"reason": f"a verified {new_source.value} quote raised the source"}
        if status is Status.PROVISIONAL:
            witnesses = _witnessed(conn, current.rowid)
            if witnesses is not None:
                status = Status.CONFIRMED
                why = {
                    "reason": "two observations quote different words from different user "
                    "or host turns",
                    "turns": witnesses,
                }
        expires = policy.expires_at(status, now=now, config=self.config)
        stated = current.stated_at or current.created_at
        if witness is not None and stated_at is not None:  # restated: a quote, from that turn
            stated = max(stated, stated_at)
        conn.execute(
            "UPDATE records SET confidence = ?, status = ?, source_kind = ?, evidence = ?, "
            "expires_at = ?, stated_at = ?, observations = observations + 1, updated_at = ? "
            "WHERE rowid = ?",
            (
                confidence,
                status.value,
                source_kind.value,
                ev,
                format_time(expires) if expires else None,
                stated,
                format_time(now),
                current.rowid,
            ),
        )
        bump_records_version(conn, [current.rowid])
        promoted = status is not current.status
        append_event(
            conn,
            kind="record.promoted" if promoted else f"record.{kind}",
            at=now,
            record_id=current.id,
            agent_id=request.agent_id,
            payload={
                "session_id": request.session_id,
                "source_kind": new_source.value,
                "status": status.value,
                "confidence": round(confidence, 4),
                "evidence_turn": None
                if witness is None
                else {"session_id": witness.session_id, "seq": witness.turn_seq},
                **(why if promoted or why.get("reason", "").startswith("a verified") else {}),
            },
        )
        return status, source_kind, promoted

    # -- the log -----------------------------------------------------------------------------

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
            "request": {
                "type": request.type.value,
                "content": request.content,
                "source_kind": request.source_kind.value,
                "scope": request.scope,
                "attribute": request.attribute,
                "evidence": request.evidence,
                "about": [{"kind": a.kind.value, "name": a.name} for a in request.about],
                "replaces": request.replaces.id if request.replaces else None,
            },
            "outcome": outcome.to_json(),
            "decisions": outcome.decisions,
            "timings_ms": outcome.timings_ms,
        }
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO write_log (id, at, tool, agent_id, user_id, session_id, record_id, "
                "outcome, total_ms, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new_id("wlog", now),
                    format_time(now),
                    tool,
                    request.agent_id,
                    request.user_id,
                    request.session_id,
                    outcome.id,
                    outcome.action,
                    total_ms,
                    json.dumps(payload, sort_keys=True),
                ),
            )


def _observe(
    conn: sqlite3.Connection,
    rowid: int,
    request: WriteRequest,
    witness: Witness | None,
    *,
    kind: str,
    source_kind: SourceKind,
    now: datetime,
) -> None:
    """One observation row: who saw the record, when, and the turn its quote came from;
    the quote's digest only when it can count toward promotion (Ingestor.witness)."""
    conn.execute(
        "INSERT INTO observations (record_rowid, session_id, agent_id, source_kind, kind, at, "
        "turn_seq, turn_role, evidence_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            rowid,
            request.session_id,
            request.agent_id,
            source_kind.value,
            kind,
            format_time(now),
            None if witness is None else witness.turn_seq,
            None if witness is None else witness.turn_role,
            witness.digest if witness is not None and witness.counts else None,
        ),
    )


def _witnessed(conn: sqlite3.Connection, rowid: int) -> list[list[Any]] | None:
    """Two observations of the record that promote it, as [session_id, turn_seq] pairs:
    different quote digests from different turns. None when there are not two."""
    first: dict[str, tuple[Any, Any]] = {}
    rows = conn.execute(
        "SELECT session_id, turn_seq, evidence_digest FROM observations "
        "WHERE record_rowid = ? AND evidence_digest IS NOT NULL ORDER BY rowid",
        (rowid,),
    )
    for session_id, seq, digest in rows:
        for other, turn in first.items():
            if other != digest and turn != (session_id, seq):
                return [list(turn), [session_id, seq]]
        first.setdefault(digest, (session_id, seq))
    return None


def _remember_key(
    conn: sqlite3.Connection, request: WriteRequest, record_id: str, action: str, *, now: datetime
) -> None:
    """Inside the record's transaction: commit the write's idempotency key with it. A key
    already there raises IntegrityError, which rolls the whole write back."""
    if request.idempotency_key is not None:
        conn.execute(
            "INSERT INTO ingest_keys (key, record_id, action, at) VALUES (?, ?, ?, ?)",
            (request.idempotency_key, record_id, action, format_time(now)),
        )


def _kin(draft: Record, now: datetime) -> RecordFilter:
    """The records a write's duplicate and conflict checks consider: live records of its
    scope and type, live as of ``now`` (a provisional record past expires_at is expired even
    before the sweep, so it is neither reinforced back to life nor flagged as a conflict)."""
    return RecordFilter(scopes=(draft.scope,), types=frozenset({draft.type}), now=format_time(now))


def _written_since(
    conn: sqlite3.Connection,
    seen: int,
    draft: Record,
    vector: np.ndarray,
    embedder: EmbedderIdentity,
    now: datetime,
) -> list[tuple[Record, float]]:
    """The records ``_neighbours`` would consider (``_kin``) added after rowid ``seen``, each
    with the cosine of its ``embedder`` vector to ``vector``."""
    condition, params = _kin(draft, now).sql("r")
    added = {
        r.rowid: r for r in select_records(conn, f"r.rowid > ? AND {condition}", (seen, *params))
    }
    if not added:
        return []
    rows = conn.execute(
        "SELECT record_rowid, vector FROM embeddings WHERE model_name = ? "
        f"AND model_version = ? AND record_rowid IN ({', '.join('?' * len(added))})",
        (embedder.name, embedder.version, *added),
    ).fetchall()
    return [(added[rowid], float(np.frombuffer(blob, np.float32) @ vector)) for rowid, blob in rows]


def _same_occasion(record: Record, draft: Record) -> bool:
    """Whether ``record`` can be the one ``draft`` repeats: about the same subject entity,
    and for an episode, on the same day."""
    if record.subject_entity_id != draft.subject_entity_id:
        return False
    return draft.type is not MemoryType.EPISODIC or _same_day(record.event_at, draft.event_at)


def _same_day(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return a == b
    return abs(parse_time(a, field="event_at") - parse_time(b, field="event_at")) < timedelta(
        days=1
    )

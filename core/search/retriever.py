"""The retriever: memory_search's pipeline (design §7), one synchronous call, every stage timed.

    rewrite (optional) -> readable scopes -> hard filter -> query embedding
    -> dense (vector index; a record also by its best passage: core.passages) -> lexical
    (BM25: core.search.bm25; for a question about the user as a whole, the user's records:
    core.search.profile) -> time (BM25 inside the event-time window the query's words name:
    core.temporal) -> entity (exact aliases)
    -> reciprocal-rank fusion -> episodic freshness -> context credit and role prior
    -> empty-result gate -> near-duplicate collapse (and of one turn's records, and of a
    session's summary beside its records: core.search.siblings) -> reranker -> later
    statement first (core.search.later) -> token budget -> explanations -> log

``Retriever.search`` runs the stages in that order, each under its name in the search log's
``timings_ms``; a question that asks several things runs them once per part
(core.search.compound). The generators are core.search.generators; the hard filter (scope, status,
type, event time) is applied inside every generator before ranking, never as a signal. The
decision stages are the pure functions of core.search.ranking, fed only with values the search
log keeps, so every logged search can be replayed. Nothing a search returns or explains comes
from a scope the agent cannot read: every generator and every count sees readable scopes only.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_memory.core.embedder import query_vector
from agent_memory.core.filters import RecordFilter
from agent_memory.core.index import VectorIndex
from agent_memory.core.models import (
    MemoryType,
    Record,
    SourceKind,
    new_id,
)
from agent_memory.core.search import (
    compound,
    diet,
    duplicates,
    explain,
    later,
    life,
    profile,
    ranking,
    siblings,
    standing,
    subject,
)
from agent_memory.core.search.gate import MARGINS, apply_gate, first_on_both, floors
from agent_memory.core.search.generators import Generators, counted_filter
from agent_memory.core.search.lexical import search_words
from agent_memory.core.search.request import Outcome, Search, SearchRequest
from agent_memory.core.search.rerank import Reranker, rerank
from agent_memory.core.search.rewrite import QueryRewriter, rewrite_query
from agent_memory.core.search.tokens import TokenCounter
from agent_memory.core.store.records import comparison_text
from agent_memory.core.temporal import Lean, query_window
from agent_memory.core.timing import StageTimer
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_memory.core.engine import Engine


class Retriever:
    """Runs searches over one store's parts (its engine's reranker and rewriter, if any)."""

    def __init__(self, engine: Engine, *, tokens: TokenCounter | None = None) -> None:
        self.engine = engine
        self.store = engine.store
        self.config = engine.config
        self.tokens = tokens or TokenCounter()
        self.reranker: Reranker | None = engine.reranker()
        self.rewriter: QueryRewriter | None = engine.rewriter()
        self.generators = Generators(self.store, self.config)
        self.terms = self.generators.terms  # the write path's word statistics (core.ingestor)
        self._readable: tuple[Any, int] | None = None  # (what is counted, version) -> count

    def close(self) -> None:
        """Release what the retriever holds beside the store (the tokenizer's connection)."""
        self.generators.close()

    def lexical_neighbours(self, words: list[str], where: RecordFilter, depth: int) -> list[str]:
        """The ids of the ``depth`` records passing ``where`` that search's lexical generator
        ranks best for ``words``: the write path's neighbours by shared words, from the same
        in-memory BM25, far cheaper than an FTS5 ranked query on a large store."""
        return self.generators.lexical_neighbours(self.engine.index(), words, where, depth)

    def search(
        self, request: SearchRequest, *, readable: tuple[str, ...], now: datetime
    ) -> dict[str, Any]:
        """Run the pipeline; return the memory_search result (and write one search_log row).
        A question that asks several things (core.search.compound) runs it once per part."""
        timer = StageTimer()  # the whole call's, for its log write and its total
        if asked := compound.parts(request.query):
            share = compound.share(request.limit, len(asked))
            outcome = compound.combine(
                request,
                [
                    self._answer(replace(request, query=q, limit=share), scopes=readable, now=now)
                    for q in asked
                ],
                within=self.config.gate.close_within,
            )
        else:
            outcome = self._answer(request, scopes=readable, now=now)
        search_id = new_id("srch", now)
        with timer.stage("log_write"):
            # The row holds every stage's timing before its own write (the payload's
            # timings_ms); the response has that one too.
            logged = self._log(search_id, request, now, outcome.payload, total_ms=timer.total_ms())
        explanation = outcome.explanation
        explanation["logged"] = logged
        explanation["timings_ms"] = outcome.timings | timer.timings
        return {"results": outcome.results, "explanation": explanation, "search_id": search_id}

    def _answer(self, request: SearchRequest, *, scopes: tuple[str, ...], now: datetime) -> Outcome:
        """The pipeline's stages for one question, each timed; what is returned and logged."""
        timer = StageTimer()
        cfg, generators = self.config.retrieval, self.generators
        depth = cfg.candidates_per_generator

        with timer.stage("query_rewrite"):
            query, rewrite = rewrite_query(self.rewriter, self.config.rewrite, request)
        with timer.stage("scope_resolution"):
            scopes = tuple(scopes)
        with timer.stage("filter_construction"):
            where = request.hard_filter(scopes, now)
        with timer.stage("query_embedding"):
            vector = query_vector(self.engine.embedder, query)
        with timer.stage("dense_candidates"):
            index = self.engine.index()  # synced with the store here, once per search
            dense, by_passage = generators.dense(index, vector, where, depth)
        s = Search(request, now, query, rewrite, scopes, where, index, depth, dense, by_passage)

        with timer.stage("lexical_candidates"):
            s.words = search_words(query)
            s.scored = generators.scored(s.words, where, index=index)
            s.lexical, s.lexical_scored_by, s.weightless = generators.lexical(
                s.words, s.scored, where, depth, index=index
            )
            s.framed = self._framed(s)
            s.lexical = [(i, score) for i, score in s.lexical if i not in s.framed]
            # A question about the user as a whole is answered with the user's records.
            s.profile, s.profile_of = profile.lookup(
                self.store, query, request.user_id, where, request.limit
            )
            # A question naming nothing the readable store holds nor the user's is the
            # assistant's to answer from what it knows: a task, which standing instructions shape.
            s.task = not s.profile and (
                standing.asks_task(query) or (not s.lexical and standing.asks_knowledge(query))
            )
            s.diet = None if s.profile else diet.wanted(query, task=s.task)
            marks = profile.LOOKUP_WORDS if s.profile else standing.lookup_words(s.task, s.diet)
            if marks:  # however far from it (a profile's lookup reads deeper)
                scored = generators.scored(marks, where, index=index)
                reach = profile.LOOKUP_DEPTH if s.profile else depth
                s.standing = generators.lexical(marks, scored, where, reach, index=index).found
        with timer.stage("time_candidates"):
            # A task looks ahead ("Plan me a route for Saturday": the coming one); a question
            # about what is stored looks back ("What did I do on Saturday?").
            lean: Lean = "future" if s.task else "past"
            cue = query_window(query, now, lean=lean) if cfg.time_weight > 0 else None
            s.timed = generators.in_window(cue, s.words, s.scored, where, depth, index=index)
            s.timed = [(i, score) for i, score in s.timed if i not in s.framed]
            s.time_cue = None if cue is None else cue.describe()
        with timer.stage("entity_lookup"):
            self._entity_candidates(s)
        with timer.stage("rank_fusion"):
            self._fuse(s)
        with timer.stage("freshness_adjustment"):
            self._recheck_and_freshen(s)
        with timer.stage("context_credit"):
            self._credit(s)
        with timer.stage("empty_result_gate"):
            self._gate(s)
        with timer.stage("duplicate_collapse"):
            s.pairs = duplicates.similar_pairs(
                index, s.survivors, s.records, cfg.duplicate_cosine, self.engine.embedder
            )
            s.kept, s.duplicates = ranking.collapse(
                s.survivors, {(a, b): sim for a, b, sim in s.pairs}, threshold=cfg.duplicate_cosine
            )
            if not s.gate_log["profile"]:  # a profile's order is its own: nothing reorders it
                meant = self._meant(vector)
                s.kept, s.siblings = siblings.collapse(s.kept, s.records, s.words, meant=meant)
            if cfg.summary_collapse and not conversation.asks_about_talk(s.query):
                s.kept, s.summaries = siblings.summaries(s.kept, s.records, s.words, self.store)
        with timer.stage("reranking"):
            self._rerank(s)
        with timer.stage("later_first"):
            if not s.gate_log["profile"]:
                s.kept, s.later_log = later.run(
                    s.query,
                    s.kept,
                    index=s.index,
                    records=s.records,
                    limit=s.request.limit,
                    cfg=cfg,
                    asked=subject.asked(s.words_asked),
                )
        with timer.stage("budget_assembly"):
            s.kept, s.padding = ranking.close_first(s.kept, within=self.config.gate.close_within)
            s.taken, s.skipped = ranking.fit_budget(
                s.kept,
                budget=request.budget_tokens,
                limit=request.limit,
                count=lambda c, room: self.tokens.count(
                    render(s.records[c.record_id]), at_most=room
                ),
            )
        with timer.stage("explanation_assembly"):
            results = explain.results(s)
            explanation = explain.response_explanation(s)
            payload = explain.log_payload(
                s,
                config=self.config,
                embedder=str(self.engine.embedder.identity),
                explanation=explanation,
                answer=results,
            )
        payload["timings_ms"] = dict(timer.timings)
        return Outcome(results, explanation, payload, timer.timings)

    def _meant(self, vector: np.ndarray) -> Callable[[list[Record]], list[bool]]:
        """Which records' contents alone (embedded now: the few siblings without a query word)
        are at ``retrieval.sibling_own_cosine`` of the query's ``vector`` (core.search.siblings)."""
        threshold = self.config.retrieval.sibling_own_cosine

        def meant(records: list[Record]) -> list[bool]:
            if threshold >= 1.0:
                return [False] * len(records)
            embedded = self.engine.embedder.embed([comparison_text(r) for r in records])
            return [float(np.dot(v, vector)) >= threshold for v in embedded]

        return meant

    # -- the stages after the dense, lexical and time generators, in order -------------------

    def _entity_candidates(self, s: Search) -> None:
        """The entity generator, given how well the rest of the query matches each record the
        other generators found (their fused score: the order of the named entities' records)."""
        cfg = self.config.retrieval
        s.weights = {
            "dense": cfg.dense_weight,
            "lexical": cfg.lexical_weight,
            "time": cfg.time_weight,
        }
        relevance = ranking.fused_scores(
            {"dense": s.dense, "lexical": s.lexical, "time": s.timed},
            k=cfg.rrf_k,
            weights=s.weights,
        )
        s.entity, s.matched_entities, s.linked, s.entity_order = self.generators.entity(
            s.query,
            s.request.entities,
            s.where,
            s.scopes,
            s.depth,
            index=s.index,
            relevance=relevance,
        )

    def _fuse(self, s: Search) -> None:
        cfg = self.config.retrieval
        s.weights["entity"] = (
            cfg.entity_weight
            if s.entity_order == "relevance"
            else ranking.entity_weight(cfg.entity_weight, linked=s.linked, depth=s.depth)
        )
        s.candidates = ranking.fuse(
            {"dense": s.dense, "lexical": s.lexical, "entity": s.entity, "time": s.timed},
            k=cfg.rrf_k,
            weights=s.weights,
            wholes=s.by_passage,
        )
        # Found by nothing but their words: each must still be one (core.search.standing.admit).
        s.candidates = ranking.joined(s.candidates, s.standing, generator="standing")
        s.candidates = ranking.looked_up(s.candidates, s.profile)

    def _recheck_and_freshen(self, s: Search) -> None:
        """Each candidate's current row decides, then episodic records get their freshness."""
        cfg = self.config.retrieval
        s.records = self.store.get_records([c.record_id for c in s.candidates])
        # The generators read the index mirror and FTS a moment ago; another process may have
        # forgotten, superseded or moved a candidate since. Its current row decides.
        s.dropped = {
            c.record_id: reason
            for c in s.candidates
            if (reason := s.where.rejects(s.records.get(c.record_id))) is not None
        }
        s.candidates = [c for c in s.candidates if c.record_id not in s.dropped]
        # Statuses as of now, as memory_get reports them: a lapsed provisional record (found
        # only with include_history) reads as expired before the sweep writes it.
        for rid, record in s.records.items():
            if (status := record.status_at(s.where.now)) is not record.status:
                s.records[rid] = replace(record, status=status)
        for candidate in s.candidates:
            record = s.records[candidate.record_id]
            if record.type is MemoryType.EPISODIC:
                candidate.freshness = ranking.freshness_boost(
                    ranking.age_days(record.event_at, s.now),
                    weight=cfg.freshness_weight,
                    half_life_days=cfg.freshness_half_life_days,
                )
                if candidate.freshness:
                    s.freshness[candidate.record_id] = candidate.freshness
        s.ordered = ranking.order(s.candidates)

    def _credit(self, s: Search) -> None:
        """Conversation turns that quote one another lend each other a share of their score."""
        cfg = self.config.retrieval
        if cfg.quoted_turn_share or cfg.reply_turn_share:
            s.quoting = conversation.quoting_pairs(
                [c.record_id for c in s.ordered[: s.depth]], s.records
            )
            s.credit = ranking.context_credit(
                s.ordered,
                s.quoting,
                quoted_share=cfg.quoted_turn_share,
                reply_share=cfg.reply_turn_share,
            )
        if s.credit:
            for candidate in s.candidates:
                candidate.credit = s.credit.get(candidate.record_id, 0.0)
        self._role_prior(s)
        if s.credit or s.prior:
            s.ordered = ranking.order(s.candidates)

    def _role_prior(self, s: Search) -> None:
        """The user's own turns before the assistant's restatements of them, and a fact's own
        record before the session summary restating it, unless the question asks for the
        assistant's words or about a conversation (core.search.ranking.role_prior)."""
        cfg = self.config.retrieval
        roles: dict[str, str] = {}
        for c in s.candidates:
            record = s.records[c.record_id]
            # Imported turns are episodic, source_kind system, with retrieval context (which
            # no tool write sets); a role: tag on any other record is the host's or an agent's.
            if record.source_kind is SourceKind.SESSION_SUMMARY:
                # An ended session's summary restates the records extracted from it (found
                # here or not, retired since or not); one imported alone, with no session,
                # may be the only record of what it says.
                if record.session_id is not None:
                    roles[c.record_id] = "summary"
            elif (
                conversation.is_imported_turn(record)
                and conversation.turn_role(record.tags) == "assistant"
            ):
                roles[c.record_id] = "assistant"
        rules = {
            "assistant": (
                cfg.assistant_turn_factor,
                conversation.asks_what_the_assistant_said,
                "the question asks what the assistant said",
                "the question is about the user or the world, which the user's own turns "
                "state first",
            ),
            "summary": (
                cfg.summary_factor,
                conversation.asks_about_a_conversation,
                "the question asks about a conversation",
                "its session's own records state each fact first",
            ),
        }
        factors: dict[str, float] = {}
        logged: dict[str, Any] = {}
        for role, (factor, asks, kept, lowered) in rules.items():
            if factor >= 1.0 or role not in roles.values():
                continue  # off, or nothing of the role found: nothing to say
            applied = not asks(s.query)
            if applied:
                factors[role] = factor
            logged[role] = {
                "factor": factor,
                "applied": applied,
                "why": f"{kept}: they keep their score"
                if not applied
                else f"they keep {factor} of their score: {lowered}",
            }
        if not logged:
            return
        s.prior = ranking.role_prior(s.candidates, roles, factors=factors)
        for candidate in s.candidates:
            candidate.prior = s.prior.get(candidate.record_id, 0.0)
        s.prior_log = {"roles": logged, "adjusted": s.prior}

    def _gate(self, s: Search) -> None:
        """The empty-result gate, its floors scaled to the records this agent may read."""
        gate_cfg = self.config.gate
        s.gate_mode = "off" if self._rerank_replaces_floors() else gate_cfg.mode
        # The floors for the size of what this agent may read (BM25's N), never the store's.
        readable_records = self._readable_records(s.where, s.index)
        s.dense_floor, s.lexical_floor, s.corroborated, s.subject_floor = floors(
            readable_records, gate_cfg
        )
        if s.subject_floor is not None:
            s.subject = subject.mark(s.ordered, s.records, s.words_asked, floor=s.subject_floor)
        s.margins = {**gate_cfg.model_dump(include=set(MARGINS)), "corroborated": s.corroborated}
        if first_on_both(s.ordered):
            # Two generators agree on what the query words find; a query word the store never
            # mentions is what it asks and no record answers ("... seltzer water brands?").
            # Read whatever the share, so that a replay under another one knows it.
            asked = [w for w in s.words if w not in subject.FRAME]
            s.unheld = self.generators.unheld(asked, s.where, index=s.index)
            if s.unheld:
                s.margins["agreed_share"] = 0.0
        s.survivors = apply_gate(
            s.ordered,
            dense_floor=s.dense_floor,
            lexical_floor=s.lexical_floor,
            mode=s.gate_mode,
            **s.margins,
            subject=s.subject_floor,
        )
        admitted = standing.admit(s.task, s.ordered, s.records, s.survivors, diet_up_to=s.diet)
        profiled = profile.chosen(s.profile, s.ordered, s.records, s.request.user_id, s.where.now)
        s.survivors = profile.place(admitted.answer, profiled)
        s.cut = (
            [c for c in s.ordered if c.passed_on is None] if s.survivors and not profiled else []
        )
        # Best scores among the candidates still standing after the row re-check.
        s.gate_log = {
            "decision": "pass" if s.survivors else "empty",
            "best_dense": max((v for i, v in s.dense if i not in s.dropped), default=None),
            "best_lexical": max(
                (v for i, v in [*s.lexical, *s.timed] if i not in s.dropped), default=None
            ),
            "entity_matches": sum(1 for i, _ in s.entity if i not in s.dropped),
            "floors": {
                "dense": s.dense_floor,
                "lexical": s.lexical_floor,
                "corroborated": s.corroborated,
                "readable_records": readable_records,
                "calibrated_for": gate_cfg.calibrated_for,
            },
            "passed": [c.record_id for c in s.survivors],
            # What core.search.standing.admit added (its Admitted), for replay.
            "standing": [c.record_id for c in admitted.standing],
            "standing_above": admitted.above,
            "constraints": [c.record_id for c in admitted.constraints],
            "replaced": [c.record_id for c in admitted.replaced],
            "task": s.task,
            "profile": [c.record_id for c in profiled],
            "profile_of": s.profile_of,  # the user's records, counted to PROFILE_COUNTED + 1
        }
        if s.subject_floor is not None:
            s.gate_log["subject"] = subject.logged(s.subject, s.ordered)
        if s.unheld is not None:
            s.gate_log["unheld"] = s.unheld
        if s.framed:
            s.gate_log["framed"] = sorted(s.framed)

    def _framed(self, s: Search) -> frozenset[str]:
        """In a small store (under gate.reference_records), the records saying the user's name
        whose only query words are frame ("name" of "What's my brother's name?")."""
        asked = [w for w in s.words if w not in subject.FRAME]
        small = self._readable_records(s.where, s.index) < self.config.gate.reference_records
        if not asked or len(asked) == len(s.words) or not s.lexical or not small:
            return frozenset()
        if (scored := self.generators.scored(asked, s.where, index=s.index)) is None:
            return frozenset()  # FTS5 ranks: its statistics are read no further here
        holding = set(self.store.ids_by_rowid([int(r) for r in scored[0]]).values())
        framed = self.store.get_records([i for i, _ in s.lexical if i not in holding])
        return frozenset(i for i, r in framed.items() if life.says_own_name(r.content))

    def _rerank(self, s: Search) -> None:
        if s.gate_log["profile"]:  # its words name no topic to judge the records against
            s.rerank_log = {"applied": False, "status": "skipped: a profile question"}
            return
        s.kept, s.rerank_log = rerank(
            self.reranker,
            self.config.reranker,
            s.query,
            s.kept,
            lambda c: render(s.records[c.record_id]),
        )
        if self._rerank_replaces_floors() and not s.rerank_log["applied"]:
            # The reranker was to judge in place of the floors and did not (it failed, timed
            # out or has nothing loaded): the floors judge after all.
            s.fallback_gate = self.config.gate.mode
            s.kept = apply_gate(
                s.kept,
                dense_floor=s.dense_floor,
                lexical_floor=s.lexical_floor,
                mode=s.fallback_gate,
                **s.margins,
                subject=s.subject_floor,
            )
            s.gate_log["decision"] = "pass" if s.kept else "empty"
            s.gate_log["passed"] = [c.record_id for c in s.kept]

    def _log(
        self,
        search_id: str,
        request: SearchRequest,
        now: datetime,
        payload: dict[str, Any],
        *,
        total_ms: float,
    ) -> bool:
        """Write the search's log row; False when it cannot be written because the store is
        open read-only (the one search the design's "every search is logged" exempts)."""
        if self.store.read_only:
            return False
        self.store.log_search(
            search_id,
            at=now,
            agent_id=request.agent_id,
            user_id=request.user_id,
            session_id=request.session_id,
            query=request.query,
            result_ids=payload["final_ids"],
            total_ms=total_ms,
            payload=payload,
        )
        return True

    # -- helpers -------------------------------------------------------------------------------

    def _rerank_replaces_floors(self) -> bool:
        return self.config.reranker.enabled and self.config.reranker.mode == "replace_floors"

    def _readable_records(self, where: RecordFilter, index: VectorIndex) -> int:
        """How many records ``where``'s scopes hold, whatever their status (what BM25 counts:
        core.search.generators.counted_filter), kept while the index stays at the same
        version: consecutive searches over the same scopes count them once."""
        counting = counted_filter(where)
        key = (counting, index.epoch, index.version)
        cached = self._readable  # one read: another thread may replace it meanwhile
        if cached is not None and cached[0] == key:
            return cached[1]
        counted = index.count(counting)
        self._readable = (key, counted)
        return counted


def render(record: Record) -> str:
    """How a result reads to the model, for the token budget: a header, then the content."""
    when = record.event_at or record.created_at
    return f"[{record.type.value}, {when[:10]}, {record.source_kind.value}] {record.content}"


__all__ = ["Retriever", "render"]

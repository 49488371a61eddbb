"""The retriever: memory_search's pipeline (design §7), one synchronous call, every stage timed.

    rewrite (optional) -> readable scopes -> hard filter -> query embedding
    -> dense (vector index) -> lexical (BM25 over FTS5: core.bm25) -> entity (exact aliases)
    -> time (BM25 inside the event-time window the query's words name: core.temporal)
    -> reciprocal-rank fusion -> episodic freshness -> context credit -> empty-result gate
    -> near-duplicate collapse -> reranker (optional) -> token budget -> explanations -> log

The hard filter (scope, status, type, event time) is applied inside every generator before
ranking, never as a signal. The decision stages are the pure functions of core.ranking, fed
only with values the search log keeps, so every logged search can be replayed. Nothing a
search returns or explains comes from a scope the agent cannot read: every generator sees only
readable scopes, and so do the counts.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from agent_memory.core import ranking
from agent_memory.core.bm25 import BM25Index, Within
from agent_memory.core.filters import RecordFilter
from agent_memory.core.index import Hit, VectorIndex, top_k
from agent_memory.core.lexical import TermStats, Tokenizer, fts_match, name_candidates, query_tokens
from agent_memory.core.logging import get_logger
from agent_memory.core.models import (
    HISTORY_STATUSES,
    LIVE_STATUSES,
    MemoryType,
    Record,
    format_time,
    new_id,
    parse_time,
)
from agent_memory.core.ranking import Candidate
from agent_memory.core.rerank import RerankDeadlineExceeded, Reranker
from agent_memory.core.rewrite import QueryRewriter
from agent_memory.core.temporal import TimeWindow, query_window
from agent_memory.core.tokens import TokenCounter
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine

log = get_logger("agent_memory")

# The lexical generator ranks first and filters after when at least this share of the store
# passes the filter, looking this many times deeper than it needs (see Retriever._bm25).
_RANK_THEN_FILTER_SHARE = 0.5
_RANK_THEN_FILTER_DEPTH = 3

# The optional stages run in worker threads so the search can stop waiting at their timeout.
# One pool per stage: a rewrite still running past its timeout (it ends at its own client
# timeout) can delay the next rewrite, never a rerank. A rerank stops at its deadline.
_REWRITE_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-memory-rewrite")
_RERANK_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-memory-rerank")


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated memory_search call with its host-supplied identity."""

    query: str
    agent_id: str
    user_id: str
    session_id: str | None = None
    types: frozenset[MemoryType] | None = None
    since: str | None = None
    until: str | None = None
    entities: tuple[str, ...] = ()
    include_history: bool = False
    limit: int = 10
    budget_tokens: int = 1500
    context: str = ""  # host-supplied current-turn context, for the optional rewrite


@dataclass(slots=True)
class _Timer:
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, name: str, started: float) -> None:
        self.timings[name] = round((time.perf_counter() - started) * 1000, 3)


class Retriever:
    """Runs searches over one store's parts (its engine's reranker and rewriter, if any)."""

    def __init__(self, engine: Engine, *, tokens: TokenCounter | None = None) -> None:
        self.engine = engine
        self.store = engine.store
        self.config = engine.config
        self.tokens = tokens or TokenCounter()
        self.reranker: Reranker | None = engine.reranker()
        self.rewriter: QueryRewriter | None = engine.rewriter()
        # records_fts's tokenizer in a private in-memory table, shared by both BM25 paths.
        self.tokenizer = Tokenizer()
        self.terms = TermStats(self.store.term_documents, tokenizer=self.tokenizer)
        # Read from the store on first use: with lexical_scoring "fts5", only by a search of
        # an agent that may not read every record (see search).
        weights = (1.0, 0.5, 0.5, self.config.retrieval.context_weight)
        self.bm25 = BM25Index(self.store, weights=weights, tokenizer=self.tokenizer)
        self._readable: tuple[Any, int] | None = None  # (scopes, epoch, version) -> count

    def _readable_records(self, scopes: tuple[str, ...], index: VectorIndex) -> int:
        """How many records ``scopes`` hold, whatever their status (what BM25 counts), kept
        while the index stays at the same version: consecutive searches over the same scopes
        count them once."""
        key = (scopes, index.epoch, index.version)
        cached = self._readable  # one read: another thread may replace it meanwhile
        if cached is not None and cached[0] == key:
            return cached[1]
        counted = index.count(RecordFilter(scopes=scopes, statuses=HISTORY_STATUSES))
        self._readable = (key, counted)
        return counted

    def close(self) -> None:
        """Release what the retriever holds beside the store (the tokenizer's connection)."""
        self.tokenizer.close()

    def search(
        self, request: SearchRequest, *, readable: tuple[str, ...], now: datetime
    ) -> dict[str, Any]:
        """Run the pipeline; return the memory_search result (and write one search_log row)."""
        started = time.perf_counter()
        timer = _Timer()
        cfg, gate_cfg = self.config.retrieval, self.config.gate

        t = time.perf_counter()
        query, rewrite = self._rewrite(request)
        timer.run("query_rewrite", t)

        t = time.perf_counter()
        scopes = tuple(readable)
        timer.run("scope_resolution", t)

        t = time.perf_counter()
        where = RecordFilter(
            scopes=scopes,
            statuses=HISTORY_STATUSES if request.include_history else LIVE_STATUSES,
            types=request.types,
            since=request.since,
            until=request.until,
            now=format_time(now),  # a provisional record past expires_at is expired already
        )
        timer.run("filter_construction", t)

        t = time.perf_counter()
        vector = self.engine.embedder.embed([query])[0]
        timer.run("query_embedding", t)

        depth = cfg.candidates_per_generator
        t = time.perf_counter()
        index = self.engine.index()  # synced with the store here, once per search
        dense = self._named(index.search(vector, depth, where=where))
        timer.run("dense_candidates", t)

        t = time.perf_counter()
        words = query_tokens(query)
        scored = self._scored(words, where.scopes, index=index)
        lexical, lexical_scored_by, weightless = self._lexical(
            words, scored, where, depth, index=index
        )
        timer.run("lexical_candidates", t)

        t = time.perf_counter()
        cue = query_window(query, now) if cfg.time_weight > 0 else None
        timed = self._in_window(cue, words, scored, where, depth, index=index)
        time_cue = None if cue is None else cue.describe()
        timer.run("time_candidates", t)

        t = time.perf_counter()
        weights = {
            "dense": cfg.dense_weight,
            "lexical": cfg.lexical_weight,
            "time": cfg.time_weight,
        }
        # How well the rest of the query matches each record the other generators found: the
        # order of the named entities' records (see _entity).
        relevance = ranking.fused_scores(
            {"dense": dense, "lexical": lexical, "time": timed}, k=cfg.rrf_k, weights=weights
        )
        entity, matched_entities, linked, entity_order = self._entity(
            query, request.entities, where, scopes, depth, index=index, relevance=relevance
        )
        timer.run("entity_lookup", t)

        t = time.perf_counter()
        weights["entity"] = (
            cfg.entity_weight
            if entity_order == "relevance"
            else ranking.entity_weight(cfg.entity_weight, linked=linked, depth=depth)
        )
        candidates = ranking.fuse(
            {"dense": dense, "lexical": lexical, "entity": entity, "time": timed},
            k=cfg.rrf_k,
            weights=weights,
        )
        timer.run("rank_fusion", t)

        t = time.perf_counter()
        records = self.store.get_records([c.record_id for c in candidates])
        # The generators read the index mirror and FTS a moment ago; another process may have
        # forgotten, superseded or moved a candidate since. Its current row decides.
        dropped = {
            c.record_id: reason
            for c in candidates
            if (reason := where.rejects(records.get(c.record_id))) is not None
        }
        candidates = [c for c in candidates if c.record_id not in dropped]
        # Statuses as of now, as memory_get reports them: a lapsed provisional record (found
        # only with include_history) reads as expired before the sweep writes it.
        for rid, record in records.items():
            if (status := record.status_at(where.now)) is not record.status:
                records[rid] = replace(record, status=status)
        freshness: dict[str, float] = {}
        for candidate in candidates:
            record = records[candidate.record_id]
            if record.type is MemoryType.EPISODIC:
                candidate.freshness = ranking.freshness_boost(
                    _age_days(record, now),
                    weight=cfg.freshness_weight,
                    half_life_days=cfg.freshness_half_life_days,
                )
                if candidate.freshness:
                    freshness[candidate.record_id] = candidate.freshness
        ordered = ranking.order(candidates)
        timer.run("freshness_adjustment", t)

        t = time.perf_counter()
        quoting: list[tuple[str, str]] = []
        credit: dict[str, float] = {}
        if cfg.quoted_turn_share or cfg.reply_turn_share:
            quoting = _quoting_pairs(ordered[:depth], records)
            credit = ranking.context_credit(
                ordered,
                quoting,
                quoted_share=cfg.quoted_turn_share,
                reply_share=cfg.reply_turn_share,
            )
        if credit:
            for candidate in candidates:
                candidate.credit = credit.get(candidate.record_id, 0.0)
            ordered = ranking.order(candidates)
        timer.run("context_credit", t)

        t = time.perf_counter()
        rerank_replaces = (
            self.config.reranker.enabled and self.config.reranker.mode == "replace_floors"
        )
        gate_mode = "off" if rerank_replaces else gate_cfg.mode
        # The floors for the size of what this agent may read (BM25's N), never the store's.
        readable_records = self._readable_records(scopes, index)
        dense_floor, lexical_floor = ranking.scaled_floors(
            readable_records,
            dense_floor=gate_cfg.dense_floor,
            small_store_drop=gate_cfg.small_store_drop,
            lexical_floor=gate_cfg.lexical_floor,
            reference=gate_cfg.reference_records,
            small=gate_cfg.small_records,
        )
        corroborated = ranking.corroborated_floor(
            readable_records,
            dense_floor=dense_floor,
            corroborated_drop=gate_cfg.corroborated_drop,
            reference=gate_cfg.reference_records,
            small=gate_cfg.small_records,
        )
        margins = {
            "dense_margin": gate_cfg.dense_margin,
            "lexical_share": gate_cfg.lexical_share,
            "corroborated": corroborated,
        }
        survivors = ranking.apply_gate(
            ordered, dense_floor=dense_floor, lexical_floor=lexical_floor, mode=gate_mode, **margins
        )
        cut = [c for c in ordered if c.passed_on is None] if survivors else []
        # Best scores among the candidates still standing after the row re-check.
        best_dense = max((s for i, s in dense if i not in dropped), default=None)
        best_lexical = max((s for i, s in [*lexical, *timed] if i not in dropped), default=None)
        gate_log = {
            "decision": "pass" if survivors else "empty",
            "best_dense": best_dense,
            "best_lexical": best_lexical,
            "entity_matches": sum(1 for i, _ in entity if i not in dropped),
            "floors": {
                "dense": dense_floor,
                "lexical": lexical_floor,
                "corroborated": corroborated,
                "readable_records": readable_records,
                "calibrated_for": gate_cfg.calibrated_for,
            },
            "passed": [c.record_id for c in survivors],
        }
        timer.run("empty_result_gate", t)

        t = time.perf_counter()
        pairs = self._similar_pairs(index, survivors, records, threshold=cfg.duplicate_cosine)
        kept, duplicates = ranking.collapse(
            survivors, {(a, b): s for a, b, s in pairs}, threshold=cfg.duplicate_cosine
        )
        timer.run("duplicate_collapse", t)

        t = time.perf_counter()
        kept, rerank_log = self._rerank(query, kept, records)
        fallback_gate = None
        if rerank_replaces and not rerank_log["applied"]:
            # The reranker was to judge in place of the floors and did not (it failed, timed
            # out or has nothing loaded): the floors judge after all.
            fallback_gate = gate_cfg.mode
            kept = ranking.apply_gate(
                kept,
                dense_floor=dense_floor,
                lexical_floor=lexical_floor,
                mode=fallback_gate,
                **margins,
            )
            gate_log["decision"] = "pass" if kept else "empty"
            gate_log["passed"] = [c.record_id for c in kept]
        timer.run("reranking", t)

        t = time.perf_counter()
        taken, skipped = ranking.fit_budget(
            kept,
            budget=request.budget_tokens,
            limit=request.limit,
            count=lambda c, room: self.tokens.count(render(records[c.record_id]), at_most=room),
        )
        timer.run("budget_assembly", t)

        t = time.perf_counter()
        collapsed: dict[str, list[str]] = {}
        for duplicate in duplicates:
            collapsed.setdefault(duplicate.duplicate_of or "", []).append(duplicate.record_id)
        fused_rank = {c.record_id: i for i, c in enumerate(ordered, start=1)}
        results = [
            {
                **records[c.record_id].to_json(),
                "explanation": self._explain(
                    c,
                    records[c.record_id],
                    query,
                    request,
                    rank,
                    fused_rank[c.record_id],
                    rewrite,
                    matched_entities,
                    taken,
                    collapsed.get(c.record_id, []),
                    rerank_log,
                ),
            }
            for rank, c in enumerate(taken, start=1)
        ]
        response_explanation = {
            "query": request.query,
            "rewritten_query": query if rewrite["status"] == "rewritten" else None,
            "rewrite": rewrite,
            "scopes": list(scopes),
            "filter": where.describe(),
            "time_cue": time_cue,
            "candidates": {
                "dense": len(dense),
                "lexical": len(lexical),
                "entity": len(entity),
                "entity_linked": linked,
                "time": len(timed),
                "fused": len(candidates),
            },
            "gate": {k: v for k, v in gate_log.items() if k != "passed"},
            "cut": {
                "count": len(cut),
                "why": "weak on every signal and far below the best"
                if gate_mode == "result"
                else "weak on every signal",
            },
            "duplicates_collapsed": len(duplicates),
            "over_budget": len(skipped),
            "returned": len(taken),
            "why_empty": self._why_empty(gate_log, candidates, taken, skipped, rerank_log, dropped)
            if not taken
            else None,
        }
        timer.run("explanation_assembly", t)

        search_id = new_id("srch", now)
        t = time.perf_counter()
        payload = {
            "request": {
                "query": request.query,
                "types": sorted(x.value for x in request.types or ()),
                "since": request.since,
                "until": request.until,
                "entities": list(request.entities),
                "include_history": request.include_history,
                "limit": request.limit,
                "budget_tokens": request.budget_tokens,
            },
            "rewrite": rewrite,
            "query": query,
            "scopes": list(scopes),
            "filter": where.describe(),
            "settings": {
                "rrf_k": cfg.rrf_k,
                "weights": weights,
                "dense_floor": dense_floor,
                "lexical_floor": lexical_floor,
                "dense_margin": gate_cfg.dense_margin,
                "lexical_share": gate_cfg.lexical_share,
                "corroborated_floor": corroborated,
                "duplicate_cosine": cfg.duplicate_cosine,
                "gate_mode": gate_mode,
                # the gate applied after a replace_floors reranker that did not run, or None
                "gate_after_reranker": fallback_gate,
                "limit": request.limit,
                "depth": depth,
                "embedder": str(self.engine.embedder.identity),
                "reranker": self.config.reranker.model if self.config.reranker.enabled else None,
                "reranker_mode": self.config.reranker.mode,
            },
            "candidates": {
                "dense": [{"id": i, "score": s} for i, s in dense],
                "lexical": [{"id": i, "score": s} for i, s in lexical],
                "entity": [{"id": i, "score": s} for i, s in entity],
                "time": [{"id": i, "score": s} for i, s in timed],
                "fused": [{"id": c.record_id, "fused": round(c.fused, 8)} for c in ordered],
            },
            # Which BM25 ranked the lexical candidates: "memory" (core.bm25) or "fts5".
            "lexical_scored_by": lexical_scored_by,
            # Query words BM25 gives no weight (in half of all records or more), left out of
            # the FTS query (FTS5's path only: in memory every word is scored). Log only:
            # whether a word is that common across every scope is not the searching agent's
            # to learn.
            "lexical_words_ignored": weightless,
            "entities_matched": matched_entities,
            "changed_since_generated": dropped,
            "freshness": freshness,
            # (quoting, quoted) candidate pairs: a turn whose retrieval context quotes another
            "quoting": quoting,
            "context_credit": credit,
            "entity_order": entity_order,
            "gate": gate_log,
            "duplicates": {
                "pairs": pairs,
                "dropped": {c.record_id: c.duplicate_of for c in duplicates},
            },
            "reranker": rerank_log,
            "budget": {
                "budget_tokens": request.budget_tokens,
                # Exact for what was taken; for what was skipped, a count above the room left
                # (core.tokens stops counting there), which is all replay needs.
                "tokens": {c.record_id: c.tokens for c in [*taken, *skipped]},
                "skipped": [c.record_id for c in skipped],
            },
            "final_ids": [c.record_id for c in taken],
            "explanation": response_explanation,
            "result_explanations": {r["id"]: r["explanation"] for r in results},
        }
        # The row records every stage before its own write; the response carries that too.
        payload["timings_ms"] = dict(timer.timings)
        total_ms = round((time.perf_counter() - started) * 1000, 3)
        response_explanation["logged"] = self._log(
            search_id, request, payload, total_ms=total_ms, now=now
        )
        timer.run("log_write", t)
        response_explanation["timings_ms"] = timer.timings
        return {"results": results, "explanation": response_explanation, "search_id": search_id}

    # -- generators --------------------------------------------------------------------------

    def _named(self, hits: list[Hit]) -> list[tuple[str, float]]:
        """A generator's hits as (record id, score), in order; a rowid whose record is gone
        since the index read it is left out."""
        ids = self._ids([h.rowid for h in hits])
        return [(ids[h.rowid], round(h.score, 6)) for h in hits if h.rowid in ids]

    def _rowids(self, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.store.query(f"SELECT rowid, id FROM records WHERE id IN ({marks})", ids)
        return {r["id"]: r["rowid"] for r in rows}

    def _ids(self, rowids: list[int]) -> dict[int, str]:
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = self.store.query(f"SELECT rowid, id FROM records WHERE rowid IN ({marks})", rowids)
        return {r["rowid"]: r["id"] for r in rows}

    def lexical_neighbours(self, words: list[str], where: RecordFilter, depth: int) -> list[str]:
        """The ids of the ``depth`` records passing ``where`` that search's lexical generator
        ranks best for ``words``: the write path's neighbours by shared words, from the same
        in-memory BM25 (an FTS5 ranked query costs 50 ms at 50,000 records; this, about 2)."""
        index = self.engine.index()
        scored = self._scored(words, where.scopes, index=index)
        return [
            record_id for record_id, _ in self._lexical(words, scored, where, depth, index=index)[0]
        ]

    def _scored(
        self, words: list[str], scopes: tuple[str, ...], *, index: VectorIndex
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """BM25 of every record matching a query word, computed in memory once for the lexical
        and time generators, its statistics (N, each word's n, avgdl) counted over every
        record of the readable ``scopes``, whatever its status or type: what the agent could
        read with include_history, and nothing else. None where FTS5 ranks instead: with
        lexical_scoring "fts5", and only when the agent may read every record in the store,
        since FTS5's bm25() counts the whole table (and SQLite's Python binding cannot give
        it other statistics); any other search scores here, so no score depends on records
        the agent cannot read."""
        if not words:
            return None
        counted = RecordFilter(scopes=scopes, statuses=HISTORY_STATUSES)
        if self.config.retrieval.lexical_scoring == "fts5" and index.share(counted) == 1.0:
            return None
        within = Within(
            key=(scopes, index.epoch, index.version),
            rowids=lambda: index.rowids_passing(counted),
        )
        return self.bm25.scores(words, within=within)

    def _lexical(
        self,
        words: list[str],
        scored: tuple[np.ndarray, np.ndarray] | None,
        where: RecordFilter,
        depth: int,
        *,
        index: VectorIndex,
    ) -> tuple[list[tuple[str, float]], str | None, list[str]]:
        """BM25 over content, subject, aliases and context (column weights 1, 0.5, 0.5 and
        retrieval.context_weight), the ``depth`` best records passing ``where``; higher is
        better. ``scored`` is the query ``words``' BM25 computed in memory (core.bm25: rowids
        and scores of every matching record); None when FTS5 computes it (``_fts5``; see
        ``_scored``). Also which of the two
        ranked ("memory", "fts5", or None for a query without words) and the query words
        FTS5's path left out of its query."""
        if not words:
            return [], None, []
        if scored is None:
            found, weightless = self._fts5(words, where, depth, index=index)
            return found, "fts5", weightless
        rowids, scores = scored
        # The hard filter on the vector index's mirror, as for the dense generator: every
        # record in the full-text index has a vector (a forgotten one has neither). The BM25
        # index synced a moment after the mirror: a record another process wrote in between
        # is not in the mirror yet and waits for the next search (as it does for dense), and
        # one changed in between is judged again by its current row after fusion.
        passing = index.passes(rowids, where)
        return self._named(top_k(scores[passing], rowids[passing], depth)), "memory", []

    def _in_window(
        self,
        cue: TimeWindow | None,
        words: list[str],
        scored: tuple[np.ndarray, np.ndarray] | None,
        where: RecordFilter,
        depth: int,
        *,
        index: VectorIndex,
    ) -> list[tuple[str, float]]:
        """The ``depth`` records matching the query's words whose event time lies in the
        window ``cue`` names (and in the request's own window and filter): the records the
        question is about by its time words, ranked by the same BM25 as the lexical
        generator. A second vote for those already among the candidates, and a way in for
        those the lexical generator ranked below records from other times. BM25 rather than
        cosine inside the window: on LoCoMo's questions with a time cue, R@5 0.697 against
        0.644 (README, Retrieval quality; measured with the parser's first version). Where
        FTS5 scores (lexical_scoring "fts5", see ``_scored``) this is a second FTS5 query,
        whose choice of words to leave out (``_fts5``) is made again for the records inside
        the window."""
        if cue is None or not words:
            return []
        since, until = cue.bounds()
        since = since if where.since is None else max(since, where.since)
        until = until if where.until is None else min(until, where.until)
        if since > until:  # the request's own window and the cue's do not meet
            return []
        narrowed = replace(where, since=since, until=until)
        return self._lexical(words, scored, narrowed, depth, index=index)[0]

    def _fts5(
        self, words: list[str], where: RecordFilter, depth: int, *, index: VectorIndex
    ) -> tuple[list[tuple[str, float]], list[str]]:
        """The lexical candidates from FTS5's bm25(), and the query words left out because
        they occur in at least half of the records (BM25 gives them no weight; core.lexical
        explains). When leaving them out leaves fewer than ``depth`` matches, the query runs
        again with every word, so records matching only such words still fill the list."""
        share = index.share(where)
        weightless = self.terms.weightless(words, epoch=index.epoch, version=index.version)
        weighted = [w for w in words if w not in weightless]
        if weighted and weightless:
            found = self._bm25(fts_match(weighted), where, depth, share=share)
            if len(found) >= depth:
                return found, [w for w in words if w in weightless]
        return self._bm25(fts_match(words), where, depth, share=share), []

    def _bm25(
        self, match: str | None, where: RecordFilter, depth: int, *, share: float
    ) -> list[tuple[str, float]]:
        """The ``depth`` best records for an FTS5 ``match`` among those passing ``where``.

        ``share`` is the fraction of the store that passes ``where``. When most of it does
        (an agent that reads nearly everything), ranking first and dropping the few rows that
        fail is cheaper than handing FTS5 a rowid list the size of the store (~30 ms of the
        ~45 ms of a 50,000-record BM25 query here); the filtered ranking is a subsequence of
        the unfiltered one, so the answer is the same, and when too few rows pass the
        filtered query runs as usual."""
        if match is None:
            return []
        condition, params = where.sql("r")
        weight = self.config.retrieval.context_weight
        if share >= _RANK_THEN_FILTER_SHARE:
            over = depth * _RANK_THEN_FILTER_DEPTH
            ranked = self.store.query(
                """
                SELECT rowid, -bm25(records_fts, 1.0, 0.5, 0.5, ?) AS score
                  FROM records_fts WHERE records_fts MATCH ?
                 ORDER BY score DESC, rowid LIMIT ?
                """,
                [weight, match, over],
            )
            marks = ",".join("?" * len(ranked))
            passing = {
                r["rowid"]: r["id"]
                for r in self.store.query(
                    f"SELECT r.rowid AS rowid, r.id AS id FROM records AS r "
                    f"WHERE r.rowid IN ({marks}) AND {condition}",
                    [*(r["rowid"] for r in ranked), *params],
                )
            }
            kept = [
                (passing[r["rowid"]], round(float(r["score"]), 6))
                for r in ranked
                if r["rowid"] in passing
            ]
            if len(kept) >= depth or len(ranked) < over:  # enough, or every match was seen
                return kept[:depth]
        # The filter is a rowid list from the records index (IN subquery, evaluated once), not
        # a join: a join reads every matching record's row, which at 50,000 records costs more
        # than BM25 itself when the filter keeps one scope. "+rowid" keeps SQLite from handing
        # the IN list to FTS5 as rowid lookups (one full-text query per rowid).
        rows = self.store.query(
            f"""
            SELECT r.id AS id, m.score AS score
              FROM (SELECT rowid, -bm25(records_fts, 1.0, 0.5, 0.5, ?) AS score
                      FROM records_fts
                     WHERE records_fts MATCH ?
                       AND +rowid IN (SELECT r.rowid FROM records AS r WHERE {condition})
                     ORDER BY score DESC, rowid LIMIT ?) AS m
              JOIN records AS r ON r.rowid = m.rowid
             ORDER BY m.score DESC, r.rowid
            """,
            [weight, match, *params, depth],
        )
        return [(r["id"], round(float(r["score"]), 6)) for r in rows]

    def _entity(
        self,
        query: str,
        hints: tuple[str, ...],
        where: RecordFilter,
        scopes: tuple[str, ...],
        depth: int,
        *,
        index: VectorIndex,
        relevance: dict[str, float],
    ) -> tuple[list[tuple[str, float]], list[dict[str, str]], int, str | None]:
        """Records linked to entities named exactly (an alias) in the hints or the query, in
        readable scopes; also how many such records pass the filter, and their order.

        Those the other generators found (``relevance``: their fused score) come first, best
        match to the rest of the query first ("relevance"): in "What did Caroline paint?" the
        name says whose records, the other words which of them. When the entities have more
        records than ``depth``, only those are returned: the others would be an arbitrary
        slice. Otherwise, or when the other generators found none of them, all of them, most
        recent first ("recent")."""
        names = {*(name_candidates(query)), *(n for h in hints for n in [_norm(h)] if n)}
        if not names or not scopes:
            return [], [], 0, None
        name_marks = ",".join("?" * len(names))
        scope_marks = ",".join("?" * len(scopes))
        matched = self.store.query(
            f"""
            SELECT DISTINCT e.id AS id, a.alias AS alias
              FROM entity_aliases AS a JOIN entities AS e ON e.id = a.entity_id
             WHERE a.alias_norm IN ({name_marks}) AND e.scope IN ({scope_marks})
               AND e.status != 'merged'
             ORDER BY e.id
            """,
            [*sorted(names), *scopes],
        )
        if not matched:
            return [], [], 0, None
        entity_ids = sorted({m["id"] for m in matched})
        # Every linked record with how many matched entities it links to (an index-only read,
        # migration 6), then the hard filter and the recency order from the vector index's
        # mirror of each record's scope, status, type and event time: SQL would read each
        # linked record's row (past its content) to filter and order them, ~40 ms for a name
        # linked to 6,000 records.
        marks = ",".join("?" * len(entity_ids))
        ((linked_rowids,),) = self.store.query(  # one JSON array: thousands of rows are slow
            f"SELECT json_group_array(record_rowid) FROM record_entities "
            f"WHERE entity_id IN ({marks})",
            entity_ids,
        )
        rowids, hits = np.unique(
            np.array(json.loads(linked_rowids), dtype=np.int64), return_counts=True
        )
        top, linked = index.latest(rowids, hits, depth, where=where)
        found = [{"entity_id": m["id"], "alias": m["alias"]} for m in matched]
        if linked > depth:
            relevant = self._found_among(rowids, hits, relevance, depth)
            if relevant:
                return relevant, found, linked, "relevance"
        # All of the entities' records fit (or the others found none of them): the complete
        # set, most recent first, as before the relevance order. In a small store the dense
        # generator "finds" every record, so a relevance order here would count the dense and
        # lexical ranks twice and lift the named person's records above a better unlinked one.
        ids_by_rowid = self._ids([rowid for rowid, _ in top])
        recent = [(ids_by_rowid[r], float(h)) for r, h in top if r in ids_by_rowid]
        return recent[:depth], found, linked, "recent"

    def _found_among(
        self, rowids: np.ndarray, hits: np.ndarray, relevance: dict[str, float], depth: int
    ) -> list[tuple[str, float]]:
        """The ``depth`` linked records (sorted ``rowids``, each with its entity ``hits``) that
        the other generators found, best ``relevance`` first. Those generators applied the same
        filter: their records need no second check. Each found record is looked up in rowids,
        not the reverse (a name can be linked to thousands of records)."""
        found_rowids = self._rowids(list(relevance)) if len(rowids) else {}
        wanted = np.fromiter(found_rowids.values(), dtype=np.int64, count=len(found_rowids))
        at = np.minimum(np.searchsorted(rowids, wanted), max(len(rowids) - 1, 0))
        linked_here = rowids[at] == wanted
        return sorted(
            (
                (record_id, float(hits[i]))
                for record_id, i, ok in zip(
                    found_rowids, at.tolist(), linked_here.tolist(), strict=True
                )
                if ok
            ),
            key=lambda pair: (-relevance[pair[0]], pair[0]),
        )[:depth]

    # -- other stages ------------------------------------------------------------------------

    def _rewrite(self, request: SearchRequest) -> tuple[str, dict[str, Any]]:
        if not self.config.rewrite.enabled:
            return request.query, {"status": "disabled"}
        if self.rewriter is None:
            return request.query, {"status": "no rewriter configured"}
        future = _REWRITE_POOL.submit(self.rewriter.rewrite, request.query, request.context)
        try:
            rewritten = future.result(timeout=self.config.rewrite.timeout_ms / 1000)
            if not isinstance(rewritten, str):
                raise TypeError(f"the rewriter returned {type(rewritten).__name__}, not text")
        except FutureTimeout:
            return request.query, {"status": "timeout; raw query used"}
        except Exception as exc:  # a failing rewriter must never fail the search
            log.warning("rewrite.failed", error=str(exc))
            return request.query, {"status": f"failed ({type(exc).__name__}); raw query used"}
        if not rewritten.strip():
            return request.query, {"status": "empty rewrite; raw query used"}
        return rewritten, {
            "status": "rewritten",
            "rewriter": self.rewriter.name,
            "raw": request.query,
            "rewritten": rewritten,
        }

    def _similar_pairs(
        self,
        index: VectorIndex,
        candidates: list[Candidate],
        records: dict[str, Record],
        *,
        threshold: float,
    ) -> list[tuple[str, str, float]]:
        """(earlier id, later id, cosine) for every candidate pair at or above threshold, from
        the vectors the index already holds (the search synced it a moment ago)."""
        if len(candidates) < 2:
            return []
        rowid_of = {c.record_id: records[c.record_id].rowid or 0 for c in candidates}
        vectors = index.vectors(list(rowid_of.values()))
        present = [i for i, r in rowid_of.items() if r in vectors]
        if len(present) < 2:
            return []
        matrix = np.vstack([vectors[rowid_of[i]] for i in present])
        sims = matrix @ matrix.T
        # Pairs above the diagonal, in row-major order (a < b), as a nested loop would list them.
        above = np.argwhere(np.triu(sims >= threshold, k=1))
        return [(present[a], present[b], round(float(sims[a, b]), 6)) for a, b in above.tolist()]

    def _rerank(
        self, query: str, kept: list[Candidate], records: dict[str, Record]
    ) -> tuple[list[Candidate], dict[str, Any]]:
        settings = self.config.reranker
        if not settings.enabled or not kept:
            return kept, {
                "applied": False,
                "status": "disabled" if not settings.enabled else "nothing to rerank",
            }
        if self.reranker is None:
            return kept, {"applied": False, "status": "no reranker configured"}
        texts = [render(records[c.record_id]) for c in kept]
        timeout = settings.timeout_ms / 1000
        # The deadline lets the scoring thread stop between batches once nobody waits for it.
        future = _RERANK_POOL.submit(
            self.reranker.score, query, texts, deadline=time.monotonic() + timeout
        )
        try:
            scores = [float(s) for s in future.result(timeout=timeout)]
            if len(scores) != len(kept):
                raise ValueError(f"{len(scores)} scores for {len(kept)} candidates")
        except (FutureTimeout, RerankDeadlineExceeded):
            return kept, {"applied": False, "status": "timeout; fused order kept"}
        except Exception as exc:  # a failing reranker must never fail the search
            log.warning("rerank.failed", error=str(exc))
            return kept, {
                "applied": False,
                "status": f"failed ({type(exc).__name__}); fused order kept",
            }
        before = [c.record_id for c in kept]
        scored = sorted(zip(kept, scores, strict=True), key=lambda p: -p[1])
        if settings.mode == "replace_floors":
            scored = [(c, s) for c, s in scored if s >= settings.score_floor]
        reranked = [c for c, _ in scored]
        return reranked, {
            "applied": True,
            "status": "reranked",
            "model": settings.model,
            "mode": settings.mode,
            "before": before,
            "order": [c.record_id for c in reranked],
            "scores": {c.record_id: round(s, 6) for c, s in scored},
        }

    def _explain(
        self,
        candidate: Candidate,
        record: Record,
        query: str,
        request: SearchRequest,
        rank: int,
        fused_rank: int,
        rewrite: dict[str, Any],
        matched_entities: list[dict[str, str]],
        taken: list[Candidate],
        collapsed: list[str],
        rerank_log: dict[str, Any],
    ) -> dict[str, Any]:
        used = sum(c.tokens for c in taken[:rank])
        rerank: dict[str, Any] | str = rerank_log["status"]
        if rerank_log["applied"]:
            before = rerank_log["before"].index(candidate.record_id) + 1
            rerank = {
                "rank_before": before,
                "rank_after": rerank_log["order"].index(candidate.record_id) + 1,
                "score": rerank_log["scores"][candidate.record_id],
            }
        return {
            "query": request.query,
            "rewritten_query": query if rewrite["status"] == "rewritten" else None,
            "generators": candidate.matches,
            "rank": rank,  # in the answer
            "fused_rank": fused_rank,  # in the fused order, before gate, collapse and reranker
            "fused_score": round(candidate.fused, 8),
            "freshness": round(candidate.freshness, 8),
            "context_credit": round(candidate.credit, 8),
            "reranker": rerank,
            "source_kind": record.source_kind.value,
            "status": record.status.value,
            "created_at": record.created_at,
            "event_at": record.event_at,
            "entities": list(record.entities),
            "entity_match": [m for m in matched_entities if m["entity_id"] in record.entities],
            "gate": candidate.gate,
            "passed_on": candidate.passed_on,
            "duplicates": (
                f"best of its near-duplicates; collapsed into it: {', '.join(collapsed)}"
                if collapsed
                else "no near-duplicate among the results"
            ),
            "budget": f"{candidate.tokens} tokens; {used} of {request.budget_tokens} used",
        }

    @staticmethod
    def _why_empty(
        gate_log: dict[str, Any],
        candidates: list[Candidate],
        taken: list[Candidate],
        skipped: list[Candidate],
        rerank_log: dict[str, Any],
        dropped: dict[str, str],
    ) -> str:
        if not candidates and dropped:
            return (
                "every candidate changed after the generators read it (forgotten, superseded "
                "or moved by another writer a moment before)"
            )
        if not candidates:
            return "no record in the readable scopes matched the query on any generator"
        if gate_log["decision"] == "empty":
            floors = gate_log["floors"]
            dense, lexical = gate_log["best_dense"], gate_log["best_lexical"]
            return (
                "every candidate was weak on every signal: "
                + (
                    f"best dense cosine {dense} below {floors['dense']}"
                    if dense is not None
                    else "no dense candidate"
                )
                + ", "
                + (
                    f"best lexical BM25 {lexical} below {floors['lexical']}"
                    if lexical is not None
                    else "no lexical candidate"
                )
                + ", and no exact entity match"
            )
        if rerank_log.get("applied") and not rerank_log.get("order"):
            return (
                f"the reranker ({rerank_log.get('mode')}) scored every candidate below "
                "reranker.score_floor"
            )
        if skipped and not taken:
            return "no passing record fits the token budget"
        return "nothing survived"

    def _log(
        self,
        search_id: str,
        request: SearchRequest,
        payload: dict[str, Any],
        *,
        total_ms: float,
        now: datetime,
    ) -> bool:
        """Write the search's log row; False when it cannot be written because the store is
        open read-only (the one search the design's "every search is logged" exempts)."""
        if self.store.read_only:
            return False
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO search_log (id, at, agent_id, user_id, session_id, query, "
                "result_ids, total_ms, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    search_id,
                    format_time(now),
                    request.agent_id,
                    request.user_id,
                    request.session_id,
                    request.query,
                    json.dumps(payload["final_ids"]),
                    total_ms,
                    json.dumps(payload, sort_keys=True, default=str),
                ),
            )
        return True


def render(record: Record) -> str:
    """How a result reads to the model, for the token budget: a header, then the content."""
    when = record.event_at or record.created_at
    return f"[{record.type.value}, {when[:10]}, {record.source_kind.value}] {record.content}"


def _quoting_pairs(
    candidates: list[Candidate], records: dict[str, Record]
) -> list[tuple[str, str]]:
    """(quoting, quoted) for each pair of ``candidates`` where the first's retrieval context
    quotes the second (conversation turns: core.write.conversation.quotes), in candidate order."""
    contexts = [(c.record_id, records[c.record_id].context) for c in candidates]
    contexts = [(rid, context) for rid, context in contexts if context]
    if not contexts:  # no conversation turns among them: nothing to compare
        return []
    pairs = []
    for quoting, context in contexts:
        for candidate in candidates:
            quoted = candidate.record_id
            if quoted != quoting and conversation.quotes(context, records[quoted].content):
                pairs.append((quoting, quoted))
    return pairs


def _age_days(record: Record, now: datetime) -> float | None:
    if record.event_at is None:
        return None
    return (now - parse_time(record.event_at, field="event_at")).total_seconds() / 86400


def _norm(text: str) -> str:
    from agent_memory.core.write.entities import alias_key

    return alias_key(text)

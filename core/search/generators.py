"""The candidate generators of a search (design §7): dense, lexical, entity and time.

Each returns up to ``depth`` (record id, score) pairs, best first, and applies the hard filter
(a RecordFilter: scope, status, type, event time) itself, before ranking, never as a signal.
The dense, lexical and time generators read the vector index's mirror of each record's scope,
status, type and event time for that filter; the entity generator reads the link table. The
retriever re-checks every fused candidate against its current row afterwards.

The lexical generator computes FTS5's bm25() in memory (core.search.bm25), its statistics over
the readable scopes only; with ``retrieval.lexical_scoring`` "fts5", and only for an agent that
may read every record, FTS5 ranks instead (the store's ``fts_ranked``, ``fts_ranked_passing``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from agent_memory.core.filters import RecordFilter
from agent_memory.core.index import Hit, VectorIndex, top_k
from agent_memory.core.models import HISTORY_STATUSES
from agent_memory.core.search.bm25 import BM25Index, Within, unheld_in_table
from agent_memory.core.search.lexical import TermStats, Tokenizer, fts_match, name_candidates
from agent_memory.core.search.request import Ranked
from agent_memory.core.store import entities as stored_entities

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.store import Store
    from agent_memory.core.temporal import TimeWindow

# The lexical generator ranks first and filters after when at least this share of the store
# passes the filter, looking this many times deeper than it needs (see Generators.ranked_fts5).
_RANK_THEN_FILTER_SHARE = 0.5
_RANK_THEN_FILTER_DEPTH = 3


class LexicalCandidates(NamedTuple):
    found: Ranked
    scored_by: str | None  # "memory" (core.search.bm25), "fts5", or None: no query words
    weightless: list[str]  # query words FTS5's path left out of its query


class EntityCandidates(NamedTuple):
    found: Ranked
    matched: list[dict[str, str]]  # {"entity_id", "alias"} of each entity named
    linked: int  # records linked to them that pass the filter
    order: str | None  # "relevance", "recent", or None: no entity named


class Generators:
    """The generators over one store. The tokenizer (records_fts's, in a private in-memory
    table) is shared by both BM25 paths and by the write path's word statistics (``terms``)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.config = config
        self.tokenizer = Tokenizer()
        self.terms = TermStats(store.term_documents, tokenizer=self.tokenizer)
        # Read from the store on first use: with lexical_scoring "fts5", only by a search of
        # an agent that may not read every record (see ``scored``).
        weights = (1.0, 0.5, 0.5, config.retrieval.context_weight)
        self.bm25 = BM25Index(store, weights=weights, tokenizer=self.tokenizer)

    def close(self) -> None:
        self.tokenizer.close()

    # -- dense -----------------------------------------------------------------------------------

    def dense(
        self, index: VectorIndex, vector: np.ndarray, where: RecordFilter, depth: int
    ) -> tuple[Ranked, dict[str, float]]:
        """The ``depth`` records passing ``where`` nearest the query ``vector`` (cosine): of
        their whole text, or of a passage of it (core.passages; ``retrieval.passage_discount``);
        and, for those scored by a passage, their whole-record cosine."""
        cfg = self.config.retrieval
        hits = index.search(
            vector,
            depth,
            where=where,
            passage_discount=cfg.passage_discount if cfg.passage_shortlist else None,
            shortlist=cfg.passage_shortlist,
        )
        ids = self.store.ids_by_rowid([h.rowid for h in hits])
        wholes = {
            ids[h.rowid]: round(h.whole, 6) for h in hits if h.whole is not None and h.rowid in ids
        }
        return self.named(hits, ids), wholes

    def named(self, hits: list[Hit], ids: dict[int, str] | None = None) -> Ranked:
        """A generator's hits as (record id, score), in order; a rowid whose record is gone
        since the index read it is left out. ``ids``: their ids, when already read."""
        ids = self.store.ids_by_rowid([h.rowid for h in hits]) if ids is None else ids
        return [(ids[h.rowid], round(h.score, 6)) for h in hits if h.rowid in ids]

    # -- lexical ---------------------------------------------------------------------------------

    def scored(
        self, words: list[str], where: RecordFilter, *, index: VectorIndex
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """BM25 of every record matching a query word, computed in memory once for the lexical
        and time generators, its statistics (N, each word's n, avgdl) counted over every
        record of the readable scopes (``where``'s, with the assistant's words when ``where``
        admits them), whatever its status or type: what the agent could read with
        include_history, and nothing else. None where FTS5 ranks instead: with
        lexical_scoring "fts5", and only when the agent may read every record in the store,
        since FTS5's bm25() counts the whole table (and SQLite's Python binding cannot give
        it other statistics); any other search scores here, so no score depends on records
        the agent cannot read."""
        if not words:
            return None
        counted = counted_filter(where)
        if self._fts5_ranks(counted, index):
            return None
        return self.bm25.scores(words, within=_within(counted, index))

    def unheld(self, words: list[str], where: RecordFilter, *, index: VectorIndex) -> list[str]:
        """Those of ``words`` that no record of ``where``'s scopes holds, each once: what the
        store never mentions. Counted like the BM25 statistics, over every status and type
        (a retired record holding a word holds it); where FTS5 ranks (``scored``), from its
        vocabulary, which counts the whole table the agent may read, and a word of several
        terms, a phrase, by where its terms sit."""
        words = list(dict.fromkeys(words))
        counted = counted_filter(where)
        if not self._fts5_ranks(counted, index):
            return self.bm25.unheld(words, within=_within(counted, index))
        return unheld_in_table(self.store, self.bm25.keys(words))

    def _fts5_ranks(self, counted: RecordFilter, index: VectorIndex) -> bool:
        """Whether FTS5's bm25() ranks the lexical generator (``scored``)."""
        return self.config.retrieval.lexical_scoring == "fts5" and index.share(counted) == 1.0

    def lexical(
        self,
        words: list[str],
        scored: tuple[np.ndarray, np.ndarray] | None,
        where: RecordFilter,
        depth: int,
        *,
        index: VectorIndex,
    ) -> LexicalCandidates:
        """BM25 over content, subject, aliases and context (column weights 1, 0.5, 0.5 and
        retrieval.context_weight), the ``depth`` best records passing ``where``; higher is
        better. ``scored`` is the query ``words``' BM25 computed in memory (core.search.bm25:
        rowids and scores of every matching record); None when FTS5 computes it (``fts5``;
        see ``scored``)."""
        if not words:
            return LexicalCandidates([], None, [])
        if scored is None:
            found, weightless = self.fts5(words, where, depth, index=index)
            return LexicalCandidates(found, "fts5", weightless)
        rowids, scores = scored
        # The hard filter on the vector index's mirror, as for the dense generator: every
        # record in the full-text index has a vector (a forgotten one has neither). The BM25
        # index synced a moment after the mirror: a record another process wrote in between
        # is not in the mirror yet and waits for the next search (as it does for dense), and
        # one changed in between is judged again by its current row after fusion.
        passing = index.passes(rowids, where)
        return LexicalCandidates(
            self.named(top_k(scores[passing], rowids[passing], depth)), "memory", []
        )

    def fts5(
        self, words: list[str], where: RecordFilter, depth: int, *, index: VectorIndex
    ) -> tuple[Ranked, list[str]]:
        """The lexical candidates from FTS5's bm25(), and the query words left out because
        they occur in at least half of the records (BM25 gives them no weight;
        core.search.lexical explains). When leaving them out leaves fewer than ``depth``
        matches, the query runs again with every word, so records matching only such words
        still fill the list."""
        share = index.share(where)
        weightless = self.terms.weightless(words, epoch=index.epoch, version=index.version)
        weighted = [w for w in words if w not in weightless]
        if weighted and weightless:
            found = self.ranked_fts5(fts_match(weighted), where, depth, share=share)
            if len(found) >= depth:
                return found, [w for w in words if w in weightless]
        return self.ranked_fts5(fts_match(words), where, depth, share=share), []

    def ranked_fts5(
        self, match: str | None, where: RecordFilter, depth: int, *, share: float
    ) -> Ranked:
        """The ``depth`` best records for an FTS5 ``match`` among those passing ``where``.

        ``share`` is the fraction of the store that passes ``where``. When most of it does (an
        agent that reads nearly everything), ranking first and dropping the few rows that fail
        is cheaper than handing FTS5 a rowid list the size of the store (most of a large store's
        BM25 query: benchmarks/README.md, "Figures moved from code comments"); the filtered
        ranking is a subsequence of the unfiltered one, so the answer is the same, and when too
        few rows pass the filtered query runs as usual."""
        if match is None:
            return []
        weight = self.config.retrieval.context_weight
        if share >= _RANK_THEN_FILTER_SHARE:
            over = depth * _RANK_THEN_FILTER_DEPTH
            ranked = self.store.fts_ranked(match, context_weight=weight, limit=over)
            passing = self.store.ids_passing([rowid for rowid, _ in ranked], where)
            kept = [
                (passing[rowid], round(float(score), 6))
                for rowid, score in ranked
                if rowid in passing
            ]
            if len(kept) >= depth or len(ranked) < over:  # enough, or every match was seen
                return kept[:depth]
        rows = self.store.fts_ranked_passing(match, where, context_weight=weight, limit=depth)
        return [(record_id, round(float(score), 6)) for record_id, score in rows]

    def lexical_neighbours(
        self, index: VectorIndex, words: list[str], where: RecordFilter, depth: int
    ) -> list[str]:
        """The ids of the ``depth`` records passing ``where`` that the lexical generator ranks
        best for ``words`` (the write path's neighbours by shared words)."""
        scored = self.scored(words, where, index=index)
        return [
            record_id
            for record_id, _ in self.lexical(words, scored, where, depth, index=index).found
        ]

    # -- time ------------------------------------------------------------------------------------

    def in_window(
        self,
        cue: TimeWindow | None,
        words: list[str],
        scored: tuple[np.ndarray, np.ndarray] | None,
        where: RecordFilter,
        depth: int,
        *,
        index: VectorIndex,
    ) -> Ranked:
        """The ``depth`` records matching the query's words whose event time lies in the
        window ``cue`` names (and in the request's own window and filter): the records the
        question is about by its time words, ranked by the same BM25 as the lexical
        generator. A second vote for those already among the candidates, and a way in for
        those the lexical generator ranked below records from other times. BM25 rather than
        cosine inside the window: it found more answers to LoCoMo's questions with a time
        cue (README.md, "Retrieval quality", has the figures). Where
        FTS5 scores (lexical_scoring "fts5", see ``scored``) this is a second FTS5 query,
        whose choice of words to leave out (``fts5``) is made again for the records inside
        the window."""
        if cue is None or not words:
            return []
        since, until = cue.bounds()
        since = since if where.since is None else max(since, where.since)
        until = until if where.until is None else min(until, where.until)
        if since > until:  # the request's own window and the cue's do not meet
            return []
        narrowed = replace(where, since=since, until=until)
        return self.lexical(words, scored, narrowed, depth, index=index).found

    # -- entity ----------------------------------------------------------------------------------

    def entity(
        self,
        query: str,
        hints: tuple[str, ...],
        where: RecordFilter,
        scopes: tuple[str, ...],
        depth: int,
        *,
        index: VectorIndex,
        relevance: dict[str, float],
    ) -> EntityCandidates:
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
            return EntityCandidates([], [], 0, None)
        with self.store.reading() as conn:
            matched = stored_entities.named(conn, sorted(names), scopes)
            if not matched:
                return EntityCandidates([], [], 0, None)
            entity_ids = sorted({entity_id for entity_id, _ in matched})
            # Every linked record with how many matched entities it links to (an index-only
            # read), then the hard filter and the recency order from the vector index's mirror
            # of each record's scope, status, type and event time: SQL would read each linked
            # record's row (past its content) to filter and order them, slow for a name
            # linked to thousands of records.
            linked_rowids = stored_entities.linked_rowids(conn, entity_ids)
        rowids, hits = np.unique(np.array(linked_rowids, dtype=np.int64), return_counts=True)
        top, linked = index.latest(rowids, hits, depth, where=where)
        found = [{"entity_id": entity_id, "alias": alias} for entity_id, alias in matched]
        if linked > depth:
            relevant = self._found_among(rowids, hits, relevance, depth)
            if relevant:
                return EntityCandidates(relevant, found, linked, "relevance")
        # All of the entities' records fit (or the others found none of them): the complete
        # set, most recent first, as before the relevance order. In a small store the dense
        # generator "finds" every record, so a relevance order here would count the dense and
        # lexical ranks twice and lift the named person's records above a better unlinked one.
        ids_by_rowid = self.store.ids_by_rowid([rowid for rowid, _ in top])
        recent = [(ids_by_rowid[r], float(h)) for r, h in top if r in ids_by_rowid]
        return EntityCandidates(recent[:depth], found, linked, "recent")

    def _found_among(
        self, rowids: np.ndarray, hits: np.ndarray, relevance: dict[str, float], depth: int
    ) -> Ranked:
        """The ``depth`` linked records (sorted ``rowids``, each with its entity ``hits``) that
        the other generators found, best ``relevance`` first. Those generators applied the same
        filter: their records need no second check. Each found record is looked up in rowids,
        not the reverse (a name can be linked to thousands of records)."""
        found_rowids = self.store.rowids_by_id(list(relevance)) if len(rowids) else {}
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


def _norm(text: str) -> str:
    from agent_memory.core.write.entities import alias_key

    return alias_key(text)


def counted_filter(where: RecordFilter) -> RecordFilter:
    """What a search's statistics count (BM25's N, n and avgdl; the gate's readable records):
    every record of ``where``'s scopes, whatever its status, type or time, the assistant's
    words only when ``where`` reads them (core.filters)."""
    return RecordFilter(
        scopes=where.scopes, statuses=HISTORY_STATUSES, assistant_words=where.assistant_words
    )


def _within(counted: RecordFilter, index: VectorIndex) -> Within:
    """The rows a search's BM25 statistics count: those of ``counted`` in ``index``, kept by
    core.search.bm25 for the next search at the same version counting the same rows."""
    return Within(
        key=(counted, index.epoch, index.version),
        rowids=lambda: index.rowids_passing(counted),
    )

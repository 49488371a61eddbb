"""One search: the validated request (``SearchRequest``) and what each stage of the retriever
found (``Search``), which the explanation, the log row and its replay are read from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from agent_memory.core.filters import RecordFilter
from agent_memory.core.index import VectorIndex
from agent_memory.core.models import (
    HISTORY_STATUSES,
    LIVE_STATUSES,
    MemoryType,
    Record,
    format_time,
)
from agent_memory.core.search import subject
from agent_memory.core.search.ranking import Candidate
from agent_memory.core.write.conversation import names_what_the_assistant_said

Ranked = list[tuple[str, float]]
"""A generator's candidates: (record id, score), best first."""


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

    def hard_filter(self, scopes: tuple[str, ...], now: datetime) -> RecordFilter:
        """The filter every generator applies: the readable ``scopes``, live records (or every
        status with include_history), the request's types and event-time window."""
        return RecordFilter(
            scopes=scopes,
            statuses=HISTORY_STATUSES if self.include_history else LIVE_STATUSES,
            types=self.types,
            since=self.since,
            until=self.until,
            now=format_time(now),  # a provisional record past expires_at is expired already
            # What the assistant told the user is read only when the question asks for it.
            assistant_words=names_what_the_assistant_said(self.query),
        )


@dataclass(slots=True)
class Outcome:
    """A search's outcome before its log row is written: what memory_search returns (the
    results and the response explanation), the row's payload and the stages' timings."""

    results: list[dict[str, Any]]
    explanation: dict[str, Any]
    payload: dict[str, Any]
    timings: dict[str, float]


@dataclass(slots=True)
class Search:
    """One search's state, filled stage by stage (core.search.retriever), in stage order."""

    request: SearchRequest
    now: datetime
    query: str  # the rewritten query, or the request's
    rewrite: dict[str, Any]  # what the rewrite stage did
    scopes: tuple[str, ...]  # readable by the agent
    where: RecordFilter  # the hard filter
    index: VectorIndex  # synced with the store once, at the dense stage
    depth: int  # candidates per generator

    # The generators' candidates: (record id, score), best first.
    dense: Ranked = field(default_factory=list)
    # Dense candidates scored by a passage (core.passages): their whole-record cosine.
    by_passage: dict[str, float] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)  # the query's, as FTS5 tokenizes them
    scored: tuple[np.ndarray, np.ndarray] | None = None  # in-memory BM25 of matching rowids
    lexical: Ranked = field(default_factory=list)
    lexical_scored_by: str | None = None
    weightless: list[str] = field(default_factory=list)
    time_cue: dict[str, object] | None = None  # the time window the query names
    timed: Ranked = field(default_factory=list)
    entity: Ranked = field(default_factory=list)
    matched_entities: list[dict[str, str]] = field(default_factory=list)
    linked: int = 0
    entity_order: str | None = None
    # Whether the query asks for a task (core.search.standing.asks_task), and then the records
    # holding the words of standing instructions.
    task: bool = False
    # The dietary constraints that come too (core.search.diet.wanted): the weakest strength.
    diet: int | None = None
    standing: Ranked = field(default_factory=list)
    # For a question about the user as a whole, the user's records (core.search.profile).
    profile: Ranked = field(default_factory=list)
    profile_of: int = 0  # the user's records, counted to PROFILE_COUNTED + 1

    # Fusion, the re-check against current rows, freshness, context credit and role prior.
    weights: dict[str, float] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    dropped: dict[str, str] = field(default_factory=dict)  # changed since generated: why
    freshness: dict[str, float] = field(default_factory=dict)
    ordered: list[Candidate] = field(default_factory=list)
    quoting: list[tuple[str, str]] = field(default_factory=list)
    credit: dict[str, float] = field(default_factory=dict)
    prior: dict[str, float] = field(default_factory=dict)  # the role prior's adjustments
    prior_log: dict[str, Any] = field(default_factory=dict)  # and why (empty: not considered)

    # The empty-result gate.
    gate_mode: str = "off"
    dense_floor: float = 0.0
    lexical_floor: float = 0.0
    corroborated: float = 0.0
    subject_floor: float | None = None  # None: the subject signal is off (a large store)
    subject: tuple[str, ...] = ()  # the words the query asks about (core.search.subject)
    margins: dict[str, Any] = field(default_factory=dict)
    # The query words no readable record holds, read when a candidate is first on dense and on
    # lexical (core.search.gate.first_on_both); None: not read.
    unheld: list[str] | None = None
    framed: frozenset[str] = frozenset()  # candidates held by the frame's words alone
    survivors: list[Candidate] = field(default_factory=list)
    cut: list[Candidate] = field(default_factory=list)
    gate_log: dict[str, Any] = field(default_factory=dict)

    # Collapse, reranker, budget.
    pairs: list[tuple[str, str, float]] = field(default_factory=list)
    kept: list[Candidate] = field(default_factory=list)
    duplicates: list[Candidate] = field(default_factory=list)
    siblings: dict[str, str] = field(default_factory=dict)  # collapsed id -> its turn's kept
    summaries: dict[str, str] = field(default_factory=dict)  # summary id -> its session's kept
    rerank_log: dict[str, Any] = field(default_factory=dict)
    later_log: dict[str, Any] = field(default_factory=dict)  # core.search.later: what moved
    fallback_gate: str | None = None  # the gate run after a replace_floors reranker did not
    # Candidates only close to the best one, past the answer's first gate.close_within.
    padding: list[Candidate] = field(default_factory=list)
    taken: list[Candidate] = field(default_factory=list)
    skipped: list[Candidate] = field(default_factory=list)

    @property
    def words_asked(self) -> tuple[str, ...]:
        """The query's words as its subject is read from them (``subject.words_asked``: "What
        does my wife do for a living?" asks her work)."""
        return subject.words_asked(self.query, self.words)

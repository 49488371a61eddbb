"""The settings of search: candidate generation and fusion, the empty-result gate, who
triggers a search, and the optional reranker and query rewriter."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from agent_memory.core.config.base import PACKAGED_MINILM, Section


class RetrievalConfig(Section):
    candidates_per_generator: int = Field(
        30, ge=1, le=1000, description="Candidates each of dense, lexical, entity and time returns."
    )
    rrf_k: float = Field(
        10.0,
        gt=0,
        description=(
            "The k of reciprocal-rank fusion w/(k + rank); small k trusts each generator's top "
            "ranks more (LoCoMo dev R@10: 0.68 at k=60, 0.72 at k=10 with dense_weight 0.5)."
        ),
    )
    # The tool schema bounds a caller's limit at 50 for every configuration (core.tools
    # .SearchArgs: the definitions are static), so the limits stay inside it. A caller may ask
    # for a budget of at most 100,000 tokens; the default used when it does not ask may be
    # larger.
    budget_tokens: int = Field(
        1500, ge=1, le=200_000, description="Default context budget of one memory_search (tokens)."
    )
    default_limit: int = Field(10, ge=1, le=50, description="Results returned when no limit.")
    max_limit: int = Field(
        50,
        ge=1,
        le=50,
        description="Most results one search returns; a larger limit asked for is cut to this.",
    )
    dense_weight: float = Field(
        0.5,
        ge=0.0,
        description="RRF weight of the dense generator (the packaged MiniLM trails BM25 here).",
    )
    passage_discount: float = Field(
        0.08,
        ge=0.0,
        le=1.0,
        description=(
            "The dense generator also scores a record that says several things by its best "
            "passage (core.passages), less this times sqrt(2 ln (passages + 1)): the better of "
            "that and its whole-record cosine is its score. Personal set turns hit@5 0.872 -> "
            '0.891 (benchmarks/README.md, "Session 36") -> 0.896 ("Session 37").'
        ),
    )
    passage_shortlist: int = Field(
        100,
        ge=0,
        le=10_000,
        description=(
            "How many records, best on the whole-record vector, the dense generator also "
            "scores by passage: all of a user's store, a bounded cost on a large one. 0: off."
        ),
    )
    lexical_weight: float = Field(1.0, ge=0.0, description="RRF weight of the lexical generator.")
    entity_weight: float = Field(
        1.0,
        ge=0.0,
        description=(
            "RRF weight of the entity generator. Its candidates are the named entities' "
            "records the other generators found, ranked by how well the rest of the query "
            "matches them; only when they found none of them, and the entities have more "
            "linked records than the candidate depth, the most recent ones at depth/linked "
            "of this weight."
        ),
    )
    time_weight: float = Field(
        0.5,
        ge=0.0,
        description=(
            "RRF weight of the time generator: BM25 inside the event-time window "
            "the query's own words name ('in March', 'last weekend'; core.temporal). 0: off."
        ),
    )
    context_weight: float = Field(
        0.3,
        ge=0.0,
        description="BM25 weight of a record's retrieval context, relative to its content (1).",
    )
    quoted_turn_share: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description=(
            "Share of a found conversation turn's score given to a found turn its retrieval "
            "context quotes (the turns before it): it was found partly by their words. 0: off."
        ),
    )
    reply_turn_share: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description=(
            "Share of a found conversation turn's score given to a found turn that quotes it "
            "in its retrieval context (a reply to it). 0: off, the default: at 0.15 LoCoMo dev "
            "R@10 rose 0.802 -> 0.809 but LongMemEval-S lost two questions (long assistant "
            "turns passed credit to replies that did not answer)."
        ),
    )
    assistant_turn_factor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description=(
            "Share of its score an imported assistant turn keeps when the question is about "
            "the user or the world, not about what the assistant said (the role prior: the "
            "user's own statement ranks before the assistant's restatement of it). 1: off. "
            "Personal set turns hit@5 odd/even 0.740/0.727 -> 0.770/0.807 at 0.5, "
            "LongMemEval-S evidence sessions 0.929 -> 1.0 (benchmarks/README.md)."
        ),
    )
    summary_factor: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        description=(
            "Share of its score a session summary keeps when the question is about a fact, "
            "not about a conversation (the role prior: a fact's own record ranks before the "
            "summary restating its session, which also keeps restating a value a later "
            "correction retired). 1: off. Personal set, extracted path, hit@5 odd/even "
            "0.740/0.767 -> 0.750/0.773 at 0.7 (0.5 and 0.3 tie on the odd half)."
        ),
    )
    lexical_scoring: Literal["memory", "fts5"] = Field(
        "memory",
        description=(
            "Where the lexical generator computes BM25: memory (the same function over FTS5's "
            "postings, cached in memory by core.bm25: ~2 ms instead of 30-130 ms at 50,000 "
            "records; its statistics are the readable scopes') or fts5 (FTS5's bm25() in SQL, "
            "for a search whose agent may read every record in the store; FTS5 counts the "
            "whole table, so any other search is scored in memory as with memory)."
        ),
    )
    freshness_weight: float = Field(
        0.002,
        ge=0.0,
        description="Recency boost of an episodic record with age 0, on the RRF score's scale.",
    )
    freshness_half_life_days: float = Field(
        30.0, gt=0.0, description="Days after which an episodic record's boost has halved."
    )
    duplicate_cosine: float = Field(
        0.95,
        ge=0.0,
        le=1.0,
        description="Results at least this similar to a better-ranked one are collapsed into it.",
    )
    summary_collapse: bool = Field(
        True,
        description=(
            "A session summary ranked below a record of its own session is collapsed into it "
            "when its writer declared that it restates (the offline writer does; a model's "
            "prose never), it says nothing the session's live records do not, and every query "
            "word it holds is in a result of its session above it; never for a question about "
            "a conversation or about what the assistant said (core.search.siblings.summaries). "
            "Personal set, extracted path: hit@5 0.832 -> 0.838, compact answer 1,190 -> 980 "
            'characters (benchmarks/README.md, "Session 23").'
        ),
    )
    sibling_own_cosine: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description=(
            "A result of the same turn as a better-ranked one, with no query word in its own "
            "content, stays if its content alone is at least this similar to the query "
            "(core.search.siblings; 1.0: such results always collapse)."
        ),
    )
    later_first_cosine: float = Field(
        0.45,
        ge=0.0,
        le=1.0,
        description=(
            "Results whose stored vectors are at least this similar are about the same thing: "
            "among them, one stated later ranks first when their scores are close "
            "(core.search.later; 1.0 turns the rule off)."
        ),
    )
    later_first_closeness: float = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description=(
            "How close two such results' scores must be (the lower at least this share of "
            "the higher) for the later statement to rank first."
        ),
    )

    @model_validator(mode="after")
    def _default_within_max(self) -> RetrievalConfig:
        if self.default_limit > self.max_limit:
            raise ValueError(
                f"default_limit ({self.default_limit}) is above max_limit ({self.max_limit})"
            )
        return self


class GateConfig(Section):
    mode: Literal["result", "response", "candidate"] = Field(
        "result",
        description=(
            "result: return nothing when every candidate is weak, else only the candidates "
            "that pass on their own or are close to the best (dense_margin, lexical_share); "
            "response: else every ranked candidate; candidate: only those that pass on "
            "their own."
        ),
    )
    dense_floor: float = Field(
        0.475,
        ge=-1.0,
        le=1.0,
        description=(
            "Cosine similarity a candidate must reach to pass on dense, in a search reading "
            "reference_records records or more."
        ),
    )
    small_store_drop: float = Field(
        0.125,
        ge=0.0,
        le=1.0,
        description=(
            "How much lower the dense floor is in a search reading small_records records or "
            "fewer; between small_records and reference_records it is log-interpolated."
        ),
    )
    corroborated_drop: float = Field(
        0.14,
        ge=0.0,
        le=1.0,
        description=(
            "How much lower than the dense floor a candidate's cosine may be when a query "
            "word with weight also found it (BM25 of at least 0.001: a word held by half the "
            "records or more has none), in a search reading small_records records or fewer; "
            "log-interpolated to 0 at reference_records."
        ),
    )
    subject_drop: float = Field(
        0.21,
        ge=0.0,
        le=1.0,
        description=(
            "How much lower than the corroborated floor a candidate's cosine may be when its "
            "text names every word the query asks about (the same word or, by WordNet, a kind "
            "of it: core.search.subject), in a search reading small_records records or fewer; "
            "log-interpolated to 0 at reference_records, where the signal is off. 0: off."
        ),
    )
    lexical_floor: float = Field(
        10.0,
        ge=0.0,
        description=(
            "BM25 score (higher is better) a candidate must reach to pass on lexical, in a "
            "search reading reference_records records (scaled by the largest IDF of the "
            "records read)."
        ),
    )
    reference_records: int = Field(
        500,
        ge=2,
        description="Readable records at which dense_floor and lexical_floor apply as given.",
    )
    small_records: int = Field(
        30,
        ge=1,
        description="Readable records at and below which the dense floor is at its lowest.",
    )
    dense_margin: float = Field(
        0.15,
        ge=0.0,
        le=2.0,
        description=(
            "Mode result: a candidate weak on its own stays if its cosine is within this of "
            "the best candidate's."
        ),
    )
    dense_share: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description=(
            "Mode result: a candidate within dense_margin of the best candidate's cosine stays "
            "only if its cosine is also at least this share of the best's (0: the margin alone)."
        ),
    )
    lexical_share: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description=(
            "Mode result: a candidate weak on its own stays if its BM25 is at least this "
            "share of the best candidate's."
        ),
    )
    beside_subject: int = Field(
        1,
        ge=0,
        le=10,
        description=(
            "Mode result: when every passing candidate passed on the subject signal, this many "
            "weak candidates stay after them, the closest on dense cosine, each at least as "
            "close as the closest of them (0: none)."
        ),
    )
    agreed_share: float = Field(
        0.9,
        ge=0.0,
        le=1.0,
        description=(
            "A candidate first on both dense and lexical passes when its cosine and its BM25 "
            "are each at least this share of their floors (0: off)."
        ),
    )
    close_within: int = Field(
        5,
        ge=0,
        le=100,
        description=(
            "Mode result: past an answer's first this many results, only candidates that "
            "passed the gate on their own; one only close to the best one is cut there "
            "(0: no such limit)."
        ),
    )
    calibrated_for: str = Field(
        PACKAGED_MINILM,
        description="The embedder the floors were calibrated for; floors belong to one model.",
    )

    @model_validator(mode="after")
    def _small_below_reference(self) -> GateConfig:
        if self.small_records >= self.reference_records:
            raise ValueError(
                f"small_records ({self.small_records}) must be below reference_records "
                f"({self.reference_records})"
            )
        return self


class TriggerConfig(Section):
    mode: Literal["tool_only", "auto", "hybrid"] = Field(
        "tool_only",
        description="Who calls memory_search: the model (tool_only), the host (auto), or both.",
    )


class RerankerConfig(Section):
    enabled: bool = Field(False, description="Rerank gate survivors with a cross-encoder.")
    mode: Literal["after_floors", "replace_floors"] = Field(
        "after_floors", description="Rerank after the gate floors, or instead of them."
    )
    model: str = Field("BAAI/bge-reranker-v2-m3", description="FlagReranker model name or path.")
    timeout_ms: int = Field(
        500, ge=1, description="Stage timeout; on expiry the fused order is kept and logged."
    )
    score_floor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="In replace_floors mode, the reranker score a result must reach.",
    )


class RewriteConfig(Section):
    enabled: bool = Field(False, description="Rewrite the raw query with current-turn context.")
    model: str = Field("claude-haiku-4-5", description="Anthropic model id for the rewriter.")
    timeout_ms: int = Field(
        3000, ge=1, description="Rewrite timeout; on expiry the raw query is used and logged."
    )


__all__ = ["GateConfig", "RerankerConfig", "RetrievalConfig", "RewriteConfig", "TriggerConfig"]

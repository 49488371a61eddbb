"""The decision stages of a search, as pure functions of what the generators found.

Fusion, freshness, the empty-result gate, duplicate collapse and budget assembly take only
values that the search log records (candidate ranks and scores, floors, weights, pairwise
duplicate similarities, token counts), so ``replay`` can rebuild any logged search's outcome
from its ``search_log`` row alone (design §13: a behaviour the log cannot reconstruct is a bug).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

GENERATORS = ("dense", "lexical", "entity", "time")


@dataclass(slots=True)
class Candidate:
    """One record as the pipeline sees it between generators and the final answer."""

    record_id: str
    # generator -> {"rank": 1-based, "score": float}
    matches: dict[str, dict[str, float]] = field(default_factory=dict)
    fused: float = 0.0
    freshness: float = 0.0
    gate: str = ""
    duplicate_of: str | None = None
    tokens: int = 0  # exact when taken; when skipped, enough to exceed the room it had

    @property
    def score(self) -> float:
        return self.fused + self.freshness


def fuse(
    ranked: dict[str, list[tuple[str, float]]],
    *,
    k: float,
    weights: dict[str, float],
) -> list[Candidate]:
    """Weighted reciprocal-rank fusion: each generator adds weight / (k + rank). Ranks, not
    scores, so cosine and BM25 never have to be put on one scale. Unordered: ``order`` ranks
    the candidates and breaks ties."""
    candidates: dict[str, Candidate] = {}
    for generator in GENERATORS:
        for rank, (record_id, score) in enumerate(ranked.get(generator, []), start=1):
            candidate = candidates.setdefault(record_id, Candidate(record_id))
            candidate.matches[generator] = {"rank": rank, "score": score}
            candidate.fused += weights.get(generator, 1.0) / (k + rank)
    return list(candidates.values())


def entity_weight(weight: float, *, linked: int, depth: int) -> float:
    """The entity generator's fusion weight for one search, scaled by how selective the
    named entities are. Its candidates are every record linked to them, most recent first:
    a complete answer when they number ``depth`` or fewer, but for an entity with hundreds of
    records (a user, a long-running project) the most recent ``depth`` are an arbitrary slice
    with respect to the query, worth ``depth / linked`` of the full weight. Like IDF: a name
    that matches everything says little about which record is wanted."""
    if linked <= depth:
        return weight
    return round(weight * depth / linked, 6)


def freshness_boost(age_days: float | None, *, weight: float, half_life_days: float) -> float:
    """The recency adjustment of an episodic record: ``weight`` halving every
    ``half_life_days`` of age. Zero for records without an event time."""
    if age_days is None or weight == 0:
        return 0.0
    return weight * math.pow(0.5, max(age_days, 0.0) / half_life_days)


def order(candidates: list[Candidate]) -> list[Candidate]:
    """Best first: fused score plus freshness, ties by the best single-generator rank."""
    return sorted(
        candidates,
        key=lambda c: (-c.score, min(m["rank"] for m in c.matches.values()), c.record_id),
    )


def gate(candidate: Candidate, *, dense_floor: float, lexical_floor: float) -> str | None:
    """Why ``candidate`` is strong enough to return, or None if it is weak on every signal:
    below the cosine floor on dense, below the BM25 floor on lexical, and no entity match.
    The time generator's score is the lexical one, found inside the query's time window."""
    dense = candidate.matches.get("dense")
    if dense is not None and dense["score"] >= dense_floor:
        return f"dense cosine {dense['score']:.3f} >= floor {dense_floor}"
    for generator, where in (("lexical", ""), ("time", " (inside the query's time window)")):
        bm25 = candidate.matches.get(generator)
        if bm25 is not None and bm25["score"] >= lexical_floor:
            return f"lexical BM25 {bm25['score']:.3f} >= floor {lexical_floor}{where}"
    if "entity" in candidate.matches:
        return "exact entity match"
    return None


def apply_gate(
    candidates: list[Candidate], *, dense_floor: float, lexical_floor: float, mode: str
) -> list[Candidate]:
    """The empty-result gate over ordered candidates; sets each one's ``gate`` reason and
    returns the survivors.

    - ``response`` (the design's gate): the answer is empty when every candidate is weak on
      every signal; otherwise all candidates go on, ranked, and each says whether it passed on
      its own or rode on the strongest one.
    - ``candidate``: additionally, each candidate must pass on its own.
    - ``off``: nothing is gated (the reranker's replace_floors mode).
    """
    reasons = [gate(c, dense_floor=dense_floor, lexical_floor=lexical_floor) for c in candidates]
    passing = [r for r in reasons if r is not None]
    for candidate, reason in zip(candidates, reasons, strict=True):
        if reason is not None:
            candidate.gate = f"passed: {reason}"
        elif mode == "off":
            candidate.gate = "not gated (the reranker decides)"
        elif passing and mode == "response":
            candidate.gate = f"weak on its own; the answer passed on: {passing[0]}"
        else:
            candidate.gate = "weak on every signal"
    if mode == "off":
        return list(candidates)
    if mode == "response":
        return list(candidates) if passing else []
    return [c for c, r in zip(candidates, reasons, strict=True) if r is not None]


def collapse(
    candidates: list[Candidate], similarity: dict[tuple[str, str], float], *, threshold: float
) -> tuple[list[Candidate], list[Candidate]]:
    """Keep the first of each group of near-duplicates (cosine >= ``threshold``), in order.
    ``similarity`` holds the cosine of each pair (earlier id, later id). Returns (kept,
    dropped), each dropped candidate naming the kept one it duplicates."""
    kept: list[Candidate] = []
    dropped: list[Candidate] = []
    for candidate in candidates:
        twin = next(
            (
                k
                for k in kept
                if similarity.get((k.record_id, candidate.record_id), 0.0) >= threshold
            ),
            None,
        )
        if twin is None:
            kept.append(candidate)
        else:
            candidate.duplicate_of = twin.record_id
            dropped.append(candidate)
    return kept, dropped


def fit_budget(
    candidates: list[Candidate],
    *,
    budget: int,
    limit: int,
    count: Callable[[Candidate, int], int],
) -> tuple[list[Candidate], list[Candidate]]:
    """Take candidates in order while they fit ``budget`` tokens, up to ``limit`` results; one
    that does not fit is skipped (a shorter one after it may still fit). Returns (taken,
    skipped). ``count(candidate, room)`` gives a candidate's tokens, exactly when they fit the
    ``room`` left and otherwise any number above it (a tokenizer may stop counting once it
    has shown that); it is called only for the candidates examined, in order, so nothing past
    the last one taken is ever tokenised."""
    taken: list[Candidate] = []
    skipped: list[Candidate] = []
    used = 0
    for candidate in candidates:
        if len(taken) == limit:
            break
        candidate.tokens = count(candidate, budget - used)
        if used + candidate.tokens <= budget:
            taken.append(candidate)
            used += candidate.tokens
        else:
            skipped.append(candidate)
    return taken, skipped


def replay(log: dict[str, Any]) -> list[str]:
    """Rebuild a search's final record ids from its search_log payload alone."""
    settings = log["settings"]
    if log["gate"]["decision"] == "empty" and not log["candidates"]["fused"]:
        return []
    candidates = fuse(
        # .get: rows logged before the time generator existed have no "time" list.
        {g: [(c["id"], c["score"]) for c in log["candidates"].get(g, [])] for g in GENERATORS},
        k=settings["rrf_k"],
        weights=settings["weights"],
    )
    dropped = log.get("changed_since_generated", {})  # absent from rows before it existed
    candidates = [c for c in candidates if c.record_id not in dropped]
    for candidate in candidates:
        candidate.freshness = log["freshness"].get(candidate.record_id, 0.0)
    ranked = order(candidates)
    survivors = apply_gate(
        ranked,
        dense_floor=settings["dense_floor"],
        lexical_floor=settings["lexical_floor"],
        mode=settings["gate_mode"],
    )
    if not survivors:
        return []
    similarity = {(a, b): s for a, b, s in log["duplicates"]["pairs"]}
    kept, _ = collapse(survivors, similarity, threshold=settings["duplicate_cosine"])
    if log["reranker"]["applied"]:
        # The reranker's order, without what it dropped (replace_floors' score floor).
        position = {rid: i for i, rid in enumerate(log["reranker"]["order"])}
        kept = sorted(
            (c for c in kept if c.record_id in position), key=lambda c: position[c.record_id]
        )
    elif settings.get("gate_after_reranker"):  # absent from rows logged before it existed
        kept = apply_gate(
            kept,
            dense_floor=settings["dense_floor"],
            lexical_floor=settings["lexical_floor"],
            mode=settings["gate_after_reranker"],
        )
    tokens = log["budget"]["tokens"]
    taken, _ = fit_budget(
        kept,
        budget=log["budget"]["budget_tokens"],
        limit=settings["limit"],
        count=lambda c, _room: tokens[c.record_id],
    )
    return [c.record_id for c in taken]

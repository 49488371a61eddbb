"""The decision stages of a search, as pure functions of what the generators found.

Fusion, freshness, context credit, the empty-result gate, duplicate collapse and budget
assembly take only values that the search log records (candidate ranks and scores, floors,
weights, credits, pairwise duplicate similarities, token counts), so ``replay`` can rebuild
any logged search's outcome from its ``search_log`` row alone (design §13: a behaviour the log
cannot reconstruct is a bug).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_memory.core.search import later, siblings, standing

if TYPE_CHECKING:
    from agent_memory.core.config import GateConfig

GENERATORS = ("dense", "lexical", "entity", "time")


@dataclass(slots=True)
class Candidate:
    """One record as the pipeline sees it between generators and the final answer."""

    record_id: str
    # generator -> {"rank": 1-based, "score": float}
    matches: dict[str, dict[str, float]] = field(default_factory=dict)
    fused: float = 0.0
    freshness: float = 0.0
    credit: float = 0.0  # from conversation turns that quote it or that it quotes
    prior: float = 0.0  # the role prior: <= 0, an assistant turn or a summary lower (role_prior)
    subject: bool = False  # its text names every word the query asks about (core.search.subject)
    gate: str = ""
    # The signal it passed the gate on: dense, lexical, time, corroborated, subject, entity;
    # margin (close to the best), answer (response mode: the answer passed on another),
    # reranker, standing (a standing instruction for a task: core.search.standing); None: cut.
    passed_on: str | None = None
    duplicate_of: str | None = None
    tokens: int = 0  # exact when taken; when skipped, enough to exceed the room it had

    @property
    def score(self) -> float:
        return self.fused + self.freshness + self.credit + self.prior


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


def fused_scores(
    ranked: dict[str, list[tuple[str, float]]], *, k: float, weights: dict[str, float]
) -> dict[str, float]:
    """``fuse``'s scores alone, per record id (no Candidate objects: the retriever needs
    them before fusion, to order the entity generator's records)."""
    scores: dict[str, float] = {}
    for generator, found in ranked.items():
        weight = weights.get(generator, 1.0)
        for rank, (record_id, _) in enumerate(found, start=1):
            scores[record_id] = scores.get(record_id, 0.0) + weight / (k + rank)
    return scores


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


def context_credit(
    candidates: list[Candidate],
    quotes: list[tuple[str, str]],
    *,
    quoted_share: float,
    reply_share: float,
) -> dict[str, float]:
    """Score each candidate gains from its neighbours in a conversation, given ``quotes``:
    (quoting, quoted) pairs of candidates where the first's retrieval context quotes the second
    (core.write.conversation: a turn's context holds the turns just before it). The quoting record
    was found partly by the quoted turn's words, so the quoted turn gains ``quoted_share`` of
    the quoting one's score (fused plus freshness); and a reply is often what answers a
    question about the turn it replies to, so the quoting turn gains ``reply_share`` of the
    quoted one's. Only candidates gain: this reorders what the generators found."""
    score = {c.record_id: c.fused + c.freshness for c in candidates}
    credit: dict[str, float] = {}
    for quoting, quoted in quotes:
        credit[quoted] = credit.get(quoted, 0.0) + quoted_share * score[quoting]
        credit[quoting] = credit.get(quoting, 0.0) + reply_share * score[quoted]
    return {rid: round(value, 8) for rid, value in credit.items() if value}


def role_prior(
    candidates: list[Candidate], roles: dict[str, str], *, factors: dict[str, float]
) -> dict[str, float]:
    """The score each candidate loses to the role prior: a candidate whose role (``roles``:
    record id -> "assistant" for an imported assistant turn, "summary" for a session
    summary) has a factor in ``factors`` keeps that share of its score (fused, freshness and
    context credit). What an assistant says about the user restates or derives from what the
    user said, and a session summary restates its session's records: when both match, the
    user's own turn or the fact's own record is the source to return first. The caller
    leaves a role out of ``factors`` when the question asks for it (what the assistant said;
    what a conversation was about). 1: off."""
    loss = {
        c.record_id: round(-(1.0 - factor) * (c.fused + c.freshness + c.credit), 8)
        for c in candidates
        if (factor := factors.get(roles.get(c.record_id, ""), 1.0)) < 1.0
    }
    return {rid: value for rid, value in loss.items() if value}


def order(candidates: list[Candidate]) -> list[Candidate]:
    """Best first: fused score plus freshness, context credit and role prior, ties by the best
    single-generator rank."""
    return sorted(
        candidates,
        key=lambda c: (-c.score, min(m["rank"] for m in c.matches.values()), c.record_id),
    )


def scaled_floors(
    records: int,
    *,
    dense_floor: float,
    small_store_drop: float,
    lexical_floor: float,
    reference: int,
    small: int,
) -> tuple[float, float]:
    """The gate's (dense, lexical) floors for a search over ``records`` readable records.

    A floor set for a conversation of 500 turns is out of reach in a user's store of a few
    dozen records (a question's own answer at cosine 0.43 against 0.475), while a low fixed
    floor lets unrelated queries through a large store: the best cosine of an unrelated query
    is the largest of ``records`` draws, and BM25's IDF of a rare word is about
    ``log(records)``; both grow with the store. So the dense floor is ``dense_floor`` at
    ``reference`` records and more, ``small_store_drop`` lower at ``small`` records and fewer,
    and log-interpolated between (held at ``dense_floor`` above: nothing was calibrated there);
    the lexical floor is ``lexical_floor`` scaled by the store's largest IDF (BM25's weight of
    a word held by one record) against that of ``reference`` records. ``records`` counts
    what the agent may read, like BM25's statistics: no floor depends on other scopes."""
    n = max(records, 2)
    position = _position(n, reference=reference, small=small)
    dense = dense_floor - small_store_drop * (1 - position)
    lexical = lexical_floor * _largest_idf(n) / _largest_idf(reference)
    return round(dense, 6), round(lexical, 6)


# A query word held by half the records or more has FTS5's clamped IDF (1e-6): its BM25 is
# ~1e-6, not 0, yet it tells nothing about the record, so it corroborates nothing. Any word
# with a real IDF scores orders of magnitude above this.
WEIGHTLESS_BM25 = 1e-3


def corroborated_floor(
    records: int, *, dense_floor: float, corroborated_drop: float, reference: int, small: int
) -> float:
    """The cosine a candidate must reach to pass when a query word with weight also found it
    (BM25 of at least ``WEIGHTLESS_BM25``, on the lexical or time generator), for a search over
    ``records`` readable records whose dense floor is ``dense_floor`` (already scaled):
    ``corroborated_drop`` lower at ``small`` records and fewer, log-interpolated to no drop at
    ``reference``.

    In a user's store of a few dozen records the answer to a question worded apart from it
    ("What company do I work for?" / "I've been a UX researcher at Lumen Health ...") sits at
    cosine 0.2-0.3, as do many unrelated questions' best records; a shared content word tells
    them apart (most unrelated questions share none). In a large store nearly every query
    shares a word with something, so the corroborated floor meets the dense floor there."""
    n = max(records, 2)
    position = _position(n, reference=reference, small=small)
    return round(dense_floor - corroborated_drop * (1 - position), 6)


def subject_floor(
    records: int, *, corroborated: float, subject_drop: float, reference: int, small: int
) -> float | None:
    """The cosine a candidate naming every word the query asks about (core.search.subject)
    must reach to pass, for a search over ``records`` readable records whose corroborated
    floor is ``corroborated`` (already scaled): ``subject_drop`` lower at ``small`` records and
    fewer, log-interpolated to no drop at ``reference``; None there and above (the signal is
    off: in a large store every subject word is in some record, and the floors above decide)."""
    n = max(records, 2)
    if n >= reference or subject_drop <= 0:
        return None
    position = _position(n, reference=reference, small=small)
    return round(max(corroborated - subject_drop * (1 - position), 0.0), 6)


class Floors(NamedTuple):
    """The gate's floors for one search (``floors``)."""

    dense: float
    lexical: float
    corroborated: float
    subject: float | None  # None: the subject signal is off


def floors(records: int, gate: GateConfig) -> Floors:
    """Every floor of ``gate`` for a search over ``records`` readable records: scaled_floors,
    corroborated_floor and subject_floor in turn."""
    at = {"reference": gate.reference_records, "small": gate.small_records}
    dense, lexical = scaled_floors(
        records,
        dense_floor=gate.dense_floor,
        small_store_drop=gate.small_store_drop,
        lexical_floor=gate.lexical_floor,
        **at,
    )
    corroborated = corroborated_floor(
        records, dense_floor=dense, corroborated_drop=gate.corroborated_drop, **at
    )
    subject = subject_floor(
        records, corroborated=corroborated, subject_drop=gate.subject_drop, **at
    )
    return Floors(dense, lexical, corroborated, subject)


def _position(records: int, *, reference: int, small: int) -> float:
    """Where ``records`` lies between ``small`` (0) and ``reference`` (1) records, on a log
    scale, held at the ends: how far a floor's small-store drop has worn off."""
    return math.log(min(max(records, small), reference) / small) / math.log(reference / small)


def _largest_idf(records: int) -> float:
    """BM25's IDF of a word held by one of ``records`` records, in the smoothed form
    ``log(1 + (N - 0.5) / 1.5)``, which stays positive for the smallest stores (core.search.bm25's
    FTS5 form, without the 1 +, is 0 at two records); from 30 records on the two differ by
    under 2%, and only their ratio to the reference's is used."""
    return math.log(1 + (records - 0.5) / 1.5)


def gate(
    candidate: Candidate,
    *,
    dense_floor: float,
    lexical_floor: float,
    corroborated: float | None = None,
    subject: float | None = None,
) -> tuple[str, str] | None:
    """Why ``candidate`` is strong enough to return, as (the signal it passed on: dense,
    lexical, time, corroborated, subject or entity; a sentence), or None if it is weak on every
    signal: below the cosine floor on dense, below the BM25 floor on lexical, below the
    ``corroborated`` cosine floor or matching no query word (corroborated_floor), below the
    ``subject`` cosine floor or not naming the query's subject (subject_floor), and no entity
    match. The time generator's score is the lexical one, found inside the query's time
    window."""
    dense = candidate.matches.get("dense")
    if dense is not None and dense["score"] >= dense_floor:
        return "dense", f"dense cosine {dense['score']:.3f} >= floor {dense_floor}"
    for generator, where in (("lexical", ""), ("time", " (inside the query's time window)")):
        bm25 = candidate.matches.get(generator)
        if bm25 is not None and bm25["score"] >= lexical_floor:
            return generator, f"lexical BM25 {bm25['score']:.3f} >= floor {lexical_floor}{where}"
    shared = _bm25(candidate)
    if (
        corroborated is not None
        and dense is not None
        and shared is not None
        and shared >= WEIGHTLESS_BM25
        and dense["score"] >= corroborated
    ):
        return "corroborated", (
            f"dense cosine {dense['score']:.3f} >= floor {corroborated} with a query word "
            f"(BM25 {shared:.3f})"
        )
    if (
        subject is not None
        and candidate.subject
        and dense is not None
        and dense["score"] >= subject
    ):
        return "subject", (
            f"dense cosine {dense['score']:.3f} >= floor {subject}, naming what the query "
            "asks about"
        )
    if "entity" in candidate.matches:
        return "entity", "exact entity match"
    return None


def apply_gate(
    candidates: list[Candidate],
    *,
    dense_floor: float,
    lexical_floor: float,
    mode: str,
    dense_margin: float = 0.0,
    lexical_share: float = 1.0,
    corroborated: float | None = None,
    subject: float | None = None,
) -> list[Candidate]:
    """The empty-result gate over ordered candidates; sets each one's ``gate`` reason and
    ``passed_on`` and returns the survivors.

    - ``result`` (the default): the answer is empty when every candidate is weak on every
      signal; otherwise each candidate must pass on its own or be close to the best one on a
      signal that found it: its cosine within ``dense_margin`` of the best passing
      candidate's, or its BM25 at least ``lexical_share`` of the best passing one's. A
      passing answer is not padded with records weak on every signal and far below the best.
      Scores, not fused ranks: in a store of a few records every record is a dense
      candidate, and rank 8 of 8 fuses to 60% of rank 1 whatever its cosine.
    - ``response`` (the design's first gate): the answer is empty when every candidate is weak
      on every signal; otherwise all candidates go on, ranked, and each says whether it passed
      on its own or rode on the strongest one.
    - ``candidate``: each candidate must pass on its own.
    - ``off``: nothing is gated (the reranker's replace_floors mode).
    """
    reasons = [
        gate(
            c,
            dense_floor=dense_floor,
            lexical_floor=lexical_floor,
            corroborated=corroborated,
            subject=subject,
        )
        for c in candidates
    ]
    passing = [r[1] for r in reasons if r is not None]
    # A subject pass may sit at any score: no measure of how close another one is.
    measures = [c for c, r in zip(candidates, reasons, strict=True) if r and r[0] != "subject"]
    weak = [c for c, r in zip(candidates, reasons, strict=True) if r is None]
    close = (
        _close_to_best(measures, weak, dense_margin=dense_margin, lexical_share=lexical_share)
        if passing and mode == "result"
        else {}
    )
    survivors = []
    for candidate, reason in zip(candidates, reasons, strict=True):
        if reason is not None:
            candidate.passed_on, candidate.gate = reason[0], f"passed: {reason[1]}"
        elif mode == "off":
            candidate.passed_on, candidate.gate = "reranker", "not gated (the reranker decides)"
        elif passing and mode == "response":
            candidate.passed_on = "answer"
            candidate.gate = f"weak on its own; the answer passed on: {passing[0]}"
        elif passing and mode == "result" and candidate.record_id in close:
            candidate.passed_on = "margin"
            candidate.gate = f"weak on its own; close to the best: {close[candidate.record_id]}"
        else:
            candidate.passed_on = None
            candidate.gate = "weak on every signal" + (
                " and far below the best" if passing and mode == "result" else ""
            )
        if candidate.passed_on is not None and (passing or mode == "off"):
            survivors.append(candidate)
    return survivors


def _bm25(candidate: Candidate) -> float | None:
    """A candidate's BM25: lexical, or inside the query's time window (the same score)."""
    scores = [m["score"] for g, m in candidate.matches.items() if g in ("lexical", "time")]
    return max(scores) if scores else None


def _close_to_best(
    measures: list[Candidate],
    weak: list[Candidate],
    *,
    dense_margin: float,
    lexical_share: float,
) -> dict[str, str]:
    """Those of ``weak`` whose cosine is within ``dense_margin`` of the best of ``measures``,
    or whose BM25 is at least ``lexical_share`` of the best of them, each with why.
    ``measures``: the candidates that passed on their own ("the best" is the best result, not
    a stronger score that was itself cut), a subject pass aside: it may sit at any cosine and
    BM25, and a record naming the dog at cosine 0.04 does not bring in every record above
    -0.11."""
    best_cosine = max(
        (c.matches["dense"]["score"] for c in measures if "dense" in c.matches), default=math.inf
    )
    best_bm25 = max((s for c in measures if (s := _bm25(c)) is not None), default=0.0)
    close: dict[str, str] = {}
    for candidate in weak:
        dense = candidate.matches.get("dense")
        bm25 = _bm25(candidate)
        if dense is not None and dense["score"] >= best_cosine - dense_margin:
            close[candidate.record_id] = (
                f"dense cosine {dense['score']:.3f} within {dense_margin} of the best "
                f"{best_cosine:.3f}"
            )
        elif bm25 is not None and best_bm25 > 0 and bm25 >= lexical_share * best_bm25:
            close[candidate.record_id] = (
                f"lexical BM25 {bm25:.3f} at least {lexical_share} of the best {best_bm25:.3f}"
            )
    return close


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


def logged_candidates(log: dict[str, Any]) -> list[Candidate]:
    """A logged search's candidates as they stood before the gate: fused from the logged
    generator lists with the logged settings, without those changed since they were
    generated, each with its logged freshness, context credit and role prior."""
    settings = log["settings"]
    candidates = fuse(
        # .get: rows logged before the time generator existed have no "time" list.
        {g: [(c["id"], c["score"]) for c in log["candidates"].get(g, [])] for g in GENERATORS},
        k=settings["rrf_k"],
        weights=settings["weights"],
    )
    # Records found by a standing instruction's words (core.search.standing): absent from
    # rows logged before they were looked for.
    candidates = standing.joined(
        candidates, [(c["id"], c["score"]) for c in log["candidates"].get("standing", [])]
    )
    dropped = log.get("changed_since_generated", {})  # absent from rows before it existed
    candidates = [c for c in candidates if c.record_id not in dropped]
    credit = log.get("context_credit", {})  # absent from rows logged before it existed
    prior = log.get("role_prior", {}).get("adjusted", {})  # absent from older rows
    subject = set(log["gate"].get("subject", {}).get("named_by", []))  # absent from older rows
    for candidate in candidates:
        candidate.subject = candidate.record_id in subject
        candidate.freshness = log["freshness"].get(candidate.record_id, 0.0)
        candidate.credit = credit.get(candidate.record_id, 0.0)
        candidate.prior = prior.get(candidate.record_id, 0.0)
    return candidates


def replay(log: dict[str, Any]) -> list[str]:
    """Rebuild a search's final record ids from its search_log payload alone."""
    settings = log["settings"]
    if log["gate"]["decision"] == "empty" and not log["candidates"]["fused"]:
        return []
    ranked = order(logged_candidates(log))
    # Rows logged before the per-result rule have no margins (and no "result" mode).
    margins: dict[str, Any] = {
        k: settings[k] for k in ("dense_margin", "lexical_share") if k in settings
    }
    # Rows logged before the corroborated or subject floor have none (no such pass).
    margins["corroborated"] = settings.get("corroborated_floor")
    margins["subject"] = settings.get("subject_floor")
    survivors = apply_gate(
        ranked,
        dense_floor=settings["dense_floor"],
        lexical_floor=settings["lexical_floor"],
        mode=settings["gate_mode"],
        **margins,
    )
    by_id = {c.record_id: c for c in ranked}  # "standing": absent from rows before it existed
    chosen = [by_id[i] for i in log["gate"].get("standing", []) if i in by_id]
    survivors = standing.place(survivors, chosen, log["gate"].get("standing_above", {}))
    if not survivors:
        return []
    similarity = {(a, b): s for a, b, s in log["duplicates"]["pairs"]}
    kept, _ = collapse(survivors, similarity, threshold=settings["duplicate_cosine"])
    kept = siblings.replay(log, kept)
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
            **margins,
        )
    kept = later.replay(log, kept)
    tokens = log["budget"]["tokens"]
    taken, _ = fit_budget(
        kept,
        budget=log["budget"]["budget_tokens"],
        limit=settings["limit"],
        count=lambda c, _room: tokens[c.record_id],
    )
    return [c.record_id for c in taken]

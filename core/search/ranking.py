"""The decision stages of a search, as pure functions of what the generators found.

Fusion, freshness, context credit, the empty-result gate (core.search.gate), duplicate
collapse and budget assembly take only values that the search log records (candidate ranks
and scores, floors, weights, credits, pairwise duplicate similarities, token counts), so
``replay`` can rebuild any logged search's outcome from its ``search_log`` row alone (design
§13: a behaviour the log cannot reconstruct is a bug).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_memory.core.models import parse_time
from agent_memory.core.search import later, profile, siblings, standing
from agent_memory.core.search.gate import MARGINS, apply_gate, floors

if TYPE_CHECKING:
    from agent_memory.core.config import GateConfig
    from agent_memory.core.search.request import Ranked

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
    # reranker, standing (a standing instruction for a task: core.search.standing),
    # constraint (a dietary constraint for a food task: core.search.diet), profile (the
    # user's record, for a question about the user as a whole: core.search.profile); None: cut.
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
    wholes: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """Weighted reciprocal-rank fusion: each generator adds weight / (k + rank). Ranks, not
    scores, so cosine and BM25 never have to be put on one scale. Unordered: ``order`` ranks
    the candidates and breaks ties. ``wholes``: the whole-record cosine of each dense
    candidate scored by a passage (core.passages), kept in its match for the explanation."""
    candidates: dict[str, Candidate] = {}
    for generator in GENERATORS:
        for rank, (record_id, score) in enumerate(ranked.get(generator, []), start=1):
            candidate = candidates.setdefault(record_id, Candidate(record_id))
            candidate.matches[generator] = {"rank": rank, "score": score}
            if generator == "dense" and wholes and record_id in wholes:
                candidate.matches[generator] |= {"passage": True, "whole": wholes[record_id]}
            candidate.fused += weights.get(generator, 1.0) / (k + rank)
    return list(candidates.values())


def joined(candidates: list[Candidate], found: Ranked, *, generator: str) -> list[Candidate]:
    """``candidates`` and, after them, each record a lookup of ``generator`` ``found`` that no
    generator did, fused at no weight (its rank and score in the lookup are its only match):
    the records a standing instruction's words find (core.search.standing), the user's records
    for a question about the user as a whole (core.search.profile)."""
    have = {c.record_id for c in candidates}
    return candidates + [
        Candidate(i, matches={generator: {"rank": rank, "score": score}})
        for rank, (i, score) in enumerate(found, start=1)
        if i not in have
    ]


def looked_up(candidates: list[Candidate], found: Ranked) -> list[Candidate]:
    """``candidates`` with the records a whole-person question's lookup ``found`` (the user's
    newest statements: core.search.profile.lookup): those a generator found get their place in
    the lookup as their ``profile`` match too (at no fused weight: it orders nothing; the
    answer's own order replaces it, core.search.profile.place), the others are ``joined``."""
    rank_of = {record_id: rank for rank, (record_id, _) in enumerate(found, start=1)}
    for candidate in candidates:
        if (rank := rank_of.get(candidate.record_id)) is not None:
            candidate.matches["profile"] = {"rank": rank, "score": float(rank)}
    return joined(candidates, found, generator="profile")


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


def age_days(event_at: str | None, now: datetime) -> float | None:
    """Days from ``event_at`` (canonical UTC text; None: no event time) to ``now``."""
    if event_at is None:
        return None
    return (now - parse_time(event_at, field="event_at")).total_seconds() / 86400


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


def close_first(
    candidates: list[Candidate], *, within: int
) -> tuple[list[Candidate], list[Candidate]]:
    """``candidates`` (the answer in its order) with, past its first ``within`` (0: no limit),
    only those that passed the gate on their own: one that passed only as close to the best
    one (``passed_on`` "margin") there pads an answer a model reads on every turn. Returns
    (kept, removed)."""
    if within <= 0:
        return candidates, []
    kept: list[Candidate] = []
    removed: list[Candidate] = []
    for candidate in candidates:
        if candidate.passed_on == "margin" and len(kept) >= within:
            removed.append(candidate)
        else:
            kept.append(candidate)
    return kept, removed


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


def in_turn(
    answers: Sequence[Sequence[Candidate]],
    tokens: Mapping[str, int],
    *,
    within: int,
    budget: int,
    limit: int,
) -> tuple[list[Candidate], list[Candidate], list[Candidate]]:
    """A question of several parts answered (core.search.compound): each part's answer in
    turn, its first result, then each one's second, and so on, a record already taken for an
    earlier place keeping it; past the first ``within``, only what passed on its own
    (``close_first``); then what fits ``budget`` (each record's ``tokens``), up to ``limit``.
    Returns (taken, skipped over the budget, removed as padding)."""
    placed: dict[str, Candidate] = {}
    for rank in range(max((len(answer) for answer in answers), default=0)):
        for answer in answers:
            if rank < len(answer):
                placed.setdefault(answer[rank].record_id, answer[rank])
    kept, padding = close_first(list(placed.values()), within=within)
    taken, skipped = fit_budget(
        kept, budget=budget, limit=limit, count=lambda c, _room: tokens[c.record_id]
    )
    return taken, skipped, padding


def answered(log: Mapping[str, Any], ids: Sequence[str]) -> list[Candidate]:
    """A logged search's answer ``ids`` as candidates, each with what it passed the gate on
    (its result explanation in the log)."""
    said = log["result_explanations"]
    return [Candidate(i, passed_on=said[i]["passed_on"]) for i in ids]


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
        wholes={c["id"]: c["whole"] for c in log["candidates"]["dense"] if "whole" in c},
    )
    # Records found by a standing instruction's words (core.search.standing) and the user's
    # records for a question about the user as a whole (core.search.profile).
    found = {  # absent from rows logged before they existed
        lookup: [(c["id"], c["score"]) for c in log["candidates"].get(lookup, [])]
        for lookup in ("standing", "profile")
    }
    candidates = joined(candidates, found["standing"], generator="standing")
    candidates = looked_up(candidates, found["profile"])
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


def replay(log: dict[str, Any], gate: GateConfig | None = None) -> list[str]:
    """Rebuild a search's final record ids from its search_log payload alone.

    Under ``gate`` (the calibration's sweep, api.evaluation.calibrate), the ids the search
    would have returned with that gate's floors (scaled to the records it read), margins and
    ``close_within`` in place of the logged ones, cut by the logged limit but by no token
    budget: the row counts tokens only for the records the search examined. Every other
    stage (standing instructions and dietary constraints, the profile, the duplicate
    collapse, siblings, the reranker's order, later statements first) reads the log as the
    search wrote it."""
    return [c.record_id for c in _replayed(log, gate)]


def _replayed(log: dict[str, Any], gate: GateConfig | None) -> list[Candidate]:
    """``replay``'s answer as candidates, each with the signal it passed on."""
    # Under ``gate``: no budget, every record counting no tokens.
    tokens: Mapping[str, int] = log["budget"]["tokens"] if gate is None else defaultdict(int)
    budget = log["budget"]["budget_tokens"] if gate is None else 0
    settings = log["settings"]
    if (compound := log.get("compound")) is not None:  # each part's answer, in turn
        taken, _, _ = in_turn(
            [_replayed(part, gate) for part in compound["parts"]],
            tokens,
            within=settings["close_within"] if gate is None else gate.close_within,
            budget=budget,
            limit=settings["limit"],
        )
        return taken
    if log["gate"]["decision"] == "empty" and not log["candidates"]["fused"]:
        return []
    ranked = order(logged_candidates(log))
    rule = _logged_rule(settings) if gate is None else _rule(log, gate)
    survivors = apply_gate(
        ranked,
        dense_floor=rule.dense_floor,
        lexical_floor=rule.lexical_floor,
        mode=rule.mode,
        **rule.margins,
    )
    by_id = {c.record_id: c for c in ranked}  # "standing": absent from rows before it existed
    logged_gate = log["gate"]
    if logged_gate.get("task", True):  # absent from rows before it existed, when only a task added
        chosen = [by_id[i] for i in logged_gate.get("standing", []) if i in by_id]
        survivors = standing.place(
            survivors,
            chosen,
            logged_gate.get("standing_above", {}),
            constraints=logged_gate.get("constraints", []),  # absent from rows before it existed
        )
    else:  # a question about what the user may eat: its constraints first
        constraints = [by_id[i] for i in logged_gate.get("constraints", []) if i in by_id]
        survivors = standing.first(survivors, constraints)
    profiled = [by_id[i] for i in logged_gate.get("profile", []) if i in by_id]
    survivors = profile.place(survivors, profiled)
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
            dense_floor=rule.dense_floor,
            lexical_floor=rule.lexical_floor,
            mode=settings["gate_after_reranker"],
            **rule.margins,
        )
    kept = later.replay(log, kept)
    kept, _ = close_first(kept, within=rule.close_within)
    taken, _ = fit_budget(
        kept,
        budget=budget,
        limit=settings["limit"],
        count=lambda c, _room: tokens[c.record_id],
    )
    return taken


class _Rule(NamedTuple):
    """The gate a replay applies: its floors, mode, margins and close_within."""

    dense_floor: float
    lexical_floor: float
    mode: str
    margins: dict[str, Any]
    close_within: int


def _logged_rule(settings: dict[str, Any]) -> _Rule:
    """The gate a search applied, as its log's settings keep it."""
    # Rows logged before the per-result rule have no margins (and no "result" mode).
    margins: dict[str, Any] = {
        k: settings[k] for k in ("dense_margin", "lexical_share") if k in settings
    }
    margins["dense_share"] = settings.get("dense_share", 0.0)  # none before it existed
    # Rows logged before the corroborated or subject floor have none (no such pass).
    margins["corroborated"] = settings.get("corroborated_floor")
    margins["subject"] = settings.get("subject_floor")
    margins["beside_subject"] = settings.get("beside_subject", 0)  # none before it existed
    margins["agreed_share"] = settings.get("agreed_share", 0.0)  # none before it existed
    return _Rule(
        settings["dense_floor"],
        settings["lexical_floor"],
        settings["gate_mode"],
        margins,
        settings.get("close_within", 0),  # 0 before it existed
    )


def _rule(log: dict[str, Any], gate: GateConfig) -> _Rule:
    """``gate`` as a search reading the logged number of records would apply it."""
    dense, lexical, corroborated, subject = floors(log["gate"]["floors"]["readable_records"], gate)
    margins = {
        **gate.model_dump(include=set(MARGINS)),
        "corroborated": corroborated,
        "subject": subject,
    }
    unheld = log["gate"].get("unheld")
    if unheld is None or unheld:  # words not read (no record first on both, or an older row),
        margins["agreed_share"] = 0.0  # or a query word no record holds: no agreed pass
    return _Rule(dense, lexical, gate.mode, margins, gate.close_within)

"""What a search says about itself: the full explanation and log payload, and the compact form
a model reads.

**Full.** ``results`` and ``response_explanation`` turn one search's state (core.search.request)
into what memory_search returns: per result, which generators found it at which rank, its
fused score, freshness, context credit and role prior, the gate's basis, the reranker's move,
collapsed near-duplicates and the budget; for the answer, the scopes, filter, candidate counts,
the gate and, when empty, why. ``log_payload`` is the search_log row's payload: every value
``core.search.ranking.replay`` needs to rebuild the answer.

**Compact**: ``for_model``, one pure function for every surface.

``Session.call`` is the host API and returns the full contract form (a memory_search result
carries every Record field and a full explanation; hosts and evaluation harnesses read
``evidence`` and ``source_ref`` from it). A model needs far less to use a memory, and every
character it reads costs context: one 10-record answer in the full form was 13,500
characters for 1,000 of content. So the model-facing surfaces (``api.host.MemoryHost``, used
by the Deep Agents and CrewAI adapters and by the auto/hybrid host search; later MCP and
HTTP) pass every result through ``for_model``:

- memory_search, unless the call says ``explain: true``: per record ``id``, ``type``,
  ``content``, ``status``, ``source_kind``, ``date`` (event_at or else created_at, as a day),
  ``procedure`` for a procedural record, and a one-line ``reason`` ("dense #1, lexical #2;
  over the dense floor"); for the response ``search_id`` and a one-line ``reason`` (why it
  is empty, or how many candidates were cut or over the budget).
- ``explain: true``, any other tool, and every error: unchanged.

The full explanation is never lost: the search log keeps it (``search_id`` names the row), and
memory_get of an id returns the full record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_memory.core.search import later, siblings
from agent_memory.core.store.search_reads import PROFILE_COUNTED

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate
    from agent_memory.core.search.request import Search

# Generators in the order a reason names them (core.search.ranking.GENERATORS).
_GENERATOR_ORDER = ("dense", "lexical", "entity", "time", "standing", "profile")

# How a result's gate basis (core.search.ranking: the signal it passed on) reads in a reason.
_PASSED = {
    "dense": "over the dense floor",
    "lexical": "over the lexical floor",
    "time": "over the lexical floor in the time window",
    "entity": "exact entity match",
    "corroborated": "over the shared-word floor",
    "agreed": "first on dense and lexical, near both floors",
    "subject": "names the query's subject",
    "margin": "near the best",
    "beside": "closer than the subject match",
    # A rider's reason says what it is; that the query asked a task (or about food) is the
    # model's own request. The full explanation's gate says both (core.search.standing).
    "standing": "a standing instruction",
    "constraint": "a dietary constraint",
    "profile": "one of the user's own records",
    "answer": "the answer passed on another result",
    "reranker": "kept by the reranker",
}


def _response_gate(logged: Mapping[str, Any]) -> dict[str, Any]:
    """The gate as the response tells it: the log's, without record ids (each result says
    what it passed on; the log keeps which ids passed, which named the subject and which
    passed as standing instructions)."""
    ids = ("passed", "standing", "standing_above", "constraints", "replaced", "profile")
    gate = {k: v for k, v in logged.items() if k not in ids}
    for counted in ("standing", "profile"):
        if logged.get(counted):
            gate[counted] = len(logged[counted])
    if "subject" in gate:
        named = logged["subject"]["named_by"]
        gate["subject"] = {"words": logged["subject"]["words"], "named": len(named)}
    return gate


def for_model(name: Any, arguments: Any, result: Mapping[str, Any]) -> dict[str, Any]:
    """The form of ``result`` (of tool ``name`` called with ``arguments``) a model is shown."""
    if name != "memory_search" or "error" in result or "results" not in result:
        return dict(result)
    if isinstance(arguments, Mapping) and arguments.get("explain") is True:
        return dict(result)
    return compact_search(result)


def model_text(data: Mapping[str, Any]) -> str:
    """A tool answer as the JSON text a model reads, the one serialisation every model-facing
    surface sends (MCP, the Deep Agents and CrewAI tools, their auto-search messages) and the
    personal eval measures: keys sorted, so equal answers are equal text; no spaces after
    separators; non-ASCII kept as is (an escaped emoji is 12 characters of noise to a model);
    anything JSON cannot hold (a datetime) as its string."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def compact_search(result: Mapping[str, Any]) -> dict[str, Any]:
    """A full memory_search result in its compact, model-facing form."""
    return {
        "results": [compact_record(item) for item in result["results"]],
        "search_id": result["search_id"],
        "reason": response_reason(result["explanation"], returned=len(result["results"])),
    }


def compact_record(item: Mapping[str, Any]) -> dict[str, Any]:
    """One result: what a model needs to use it, and a one-line reason it was returned."""
    compact = {
        "id": item["id"],
        "type": item["type"],
        "content": item["content"],
        "status": item["status"],
        "source_kind": item["source_kind"],
        "date": (item.get("event_at") or item["created_at"])[:10],
    }
    if item.get("procedure"):
        compact["procedure"] = item["procedure"]
    compact["reason"] = result_reason(item["explanation"])
    return compact


def result_reason(explanation: Mapping[str, Any]) -> str:
    """ "dense #1, lexical #2; over the dense floor": the generators that found the record,
    with its rank in each, then what let it through the gate."""
    generators = explanation.get("generators") or {}
    basis = explanation.get("passed_on")
    if basis == "profile":  # the user's records, whatever else found them: its place says why
        generators = {k: v for k, v in generators.items() if k == "profile"}
    found = ", ".join(
        f"{name} #{generators[name]['rank']}"
        + (" (a passage)" if generators[name].get("passage") else "")
        for name in _GENERATOR_ORDER
        if name in generators
    )
    passed = _PASSED.get(basis, "") if isinstance(basis, str) else ""
    return "; ".join(part for part in (found, passed) if part)


def response_reason(explanation: Mapping[str, Any], *, returned: int) -> str:
    """One line for the whole answer: why it is empty, or how many were returned and how
    many candidates were left out (cut by the gate, over the token budget)."""
    if not returned:
        # The gist: the figures after its colon (best cosine and BM25 against their floors)
        # are the engineer's, kept in the full explanation and the log (why_empty).
        return str(explanation.get("why_empty") or "nothing matched").split(": ", 1)[0]
    gate = explanation.get("gate") or {}
    if gate.get("profile"):  # a question about the user as a whole (core.search.profile)
        total = gate.get("profile_of", returned)
        more = "; ask about a topic for the others" if total > returned else ""
        # Counted up to PROFILE_COUNTED (core.store.search_reads): past it, "more than".
        said = f"more than {PROFILE_COUNTED:,}" if total > PROFILE_COUNTED else f"{total:,}"
        return f"{returned} of the user's {said} records{more}"
    parts = []
    # A question of several is searched as its parts (core.search.compound): the full
    # explanation says so (explanation.parts); the model has its answers, and can act on
    # nothing more in how they were found.
    # The gate's cut and the padding past the first results (explanation.padding_cut).
    cut = sum((explanation.get(k) or {}).get("count", 0) for k in ("cut", "padding_cut"))
    if cut:
        # The full explanation says why (cut.why, padding_cut.why); "weaker" is the gist, and
        # every character here is read on every turn.
        parts.append(f"{cut} weaker candidates cut")
    # What was collapsed (near-duplicates, a turn's side remarks, session summaries) stays in
    # the full explanation: the answer already holds what stands for it, and a model can act
    # on nothing in those counts, while it reads this line on every turn.
    if explanation.get("over_budget"):
        parts.append(f"{explanation['over_budget']} over the token budget")
    # How many were returned is the list's own length: said only when nothing else is.
    return "; ".join(parts) or f"{returned} result{'s' if returned != 1 else ''}"


# -- the full explanation ---------------------------------------------------------------------


def results(s: Search) -> list[dict[str, Any]]:
    """The answer's records, each with its full explanation, in answer order."""
    collapsed: dict[str, list[str]] = {}
    for duplicate in s.duplicates:
        collapsed.setdefault(duplicate.duplicate_of or "", []).append(duplicate.record_id)
    fused_rank = {c.record_id: i for i, c in enumerate(s.ordered, start=1)}
    return [
        {
            **s.records[c.record_id].to_json(),
            "explanation": result_explanation(
                s,
                c,
                s.records[c.record_id],
                rank=rank,
                fused_rank=fused_rank[c.record_id],
                collapsed=collapsed.get(c.record_id, []),
            ),
        }
        for rank, c in enumerate(s.taken, start=1)
    ]


def result_explanation(
    s: Search,
    candidate: Candidate,
    record: Record,
    *,
    rank: int,
    fused_rank: int,
    collapsed: list[str],
) -> dict[str, Any]:
    """Why one record is in the answer, and where each stage left it."""
    used = sum(c.tokens for c in s.taken[:rank])
    rerank: dict[str, Any] | str = s.rerank_log["status"]
    if s.rerank_log["applied"]:
        before = s.rerank_log["before"].index(candidate.record_id) + 1
        rerank = {
            "rank_before": before,
            "rank_after": s.rerank_log["order"].index(candidate.record_id) + 1,
            "score": s.rerank_log["scores"][candidate.record_id],
        }
    return {
        "query": s.request.query,
        "rewritten_query": s.query if s.rewrite["status"] == "rewritten" else None,
        "generators": candidate.matches,
        "rank": rank,  # in the answer
        "fused_rank": fused_rank,  # in the fused order, before gate, collapse and reranker
        "fused_score": round(candidate.fused, 8),
        "freshness": round(candidate.freshness, 8),
        "context_credit": round(candidate.credit, 8),
        "role_prior": round(candidate.prior, 8),
        "reranker": rerank,
        "source_kind": record.source_kind.value,
        "status": record.status.value,
        "created_at": record.created_at,
        "event_at": record.event_at,
        "entities": list(record.entities),
        "entity_match": [m for m in s.matched_entities if m["entity_id"] in record.entities],
        "gate": candidate.gate,
        "passed_on": candidate.passed_on,
        "duplicates": (
            f"best of its near-duplicates; collapsed into it: {', '.join(collapsed)}"
            if collapsed
            else "no near-duplicate among the results"
        ),
        "siblings": siblings.explain(candidate.record_id, s.siblings, s.summaries),
        "later_first": later.explain(s.later_log.get("moved", {}).get(candidate.record_id)),
        "budget": budget_line(candidate.tokens, used, s.request.budget_tokens),
    }


def budget_line(tokens: int, used: int, budget: int) -> str:
    """A result's place in the token budget: its own tokens, and those used up to it."""
    return f"{tokens} tokens; {used} of {budget} used"


def response_explanation(s: Search) -> dict[str, Any]:
    """The answer's explanation: what was searched, how many each stage found and left."""
    return {
        "query": s.request.query,
        "rewritten_query": s.query if s.rewrite["status"] == "rewritten" else None,
        "rewrite": s.rewrite,
        "scopes": list(s.scopes),
        "filter": s.where.describe(),
        "time_cue": s.time_cue,
        "candidates": {
            "dense": len(s.dense),
            "lexical": len(s.lexical),
            "entity": len(s.entity),
            "entity_linked": s.linked,
            "time": len(s.timed),
            "standing": len(s.standing),  # a task's lookup of standing instructions
            "profile": len(s.profile),  # the user's records, for a whole-person question
            "fused": len(s.candidates),
        },
        "gate": _response_gate(s.gate_log),
        "cut": {
            "count": len(s.cut),
            "why": "weak on every signal and far below the best"
            if s.gate_mode == "result"
            else "weak on every signal",
        },
        "padding_cut": {
            "count": len(s.padding),
            "why": "only close to the best one, past the answer's first results "
            "(gate.close_within)",
        },
        "duplicates_collapsed": len(s.duplicates),
        "siblings_collapsed": len(s.siblings),
        "summaries_collapsed": len(s.summaries),
        "later_first": {
            "applied": bool(s.later_log.get("applied")),
            "why": s.later_log.get("why"),
            "moved": len(s.later_log.get("moved", {})),
        },
        "over_budget": len(s.skipped),
        "returned": len(s.taken),
        "why_empty": why_empty(s) if not s.taken else None,
    }


def why_empty(s: Search) -> str:
    """Why the answer is empty, from the first stage that left nothing: its gist, then after a
    colon the figures that decided it, if any (the compact form a model reads keeps the gist,
    ``response_reason``)."""
    if not s.candidates and s.dropped:
        return (
            "every candidate changed after the generators read it (forgotten, superseded "
            "or moved by another writer a moment before)"
        )
    if not s.candidates:
        return "no record in the readable scopes matched the query on any generator"
    if s.gate_log["decision"] == "empty":
        floors = s.gate_log["floors"]
        dense, lexical = s.gate_log["best_dense"], s.gate_log["best_lexical"]
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
    if s.rerank_log.get("applied") and not s.rerank_log.get("order"):
        return (
            f"the reranker ({s.rerank_log.get('mode')}) scored every candidate below "
            "reranker.score_floor"
        )
    if s.skipped and not s.taken:
        return "no passing record fits the token budget"
    return "nothing survived"


def log_payload(
    s: Search,
    *,
    config: Config,
    embedder: str,
    explanation: dict[str, Any],
    answer: list[dict[str, Any]],
) -> dict[str, Any]:
    """The search_log row's payload: the request, every stage's input and outcome (enough for
    ``core.search.ranking.replay``), the ``explanation`` and the ``answer``'s explanations."""
    request, gate_cfg = s.request, config.gate
    return {
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
        "rewrite": s.rewrite,
        "query": s.query,
        "scopes": list(s.scopes),
        "filter": s.where.describe(),
        "settings": {
            "rrf_k": config.retrieval.rrf_k,
            "weights": s.weights,
            "dense_floor": s.dense_floor,
            "lexical_floor": s.lexical_floor,
            "dense_margin": gate_cfg.dense_margin,
            "dense_share": gate_cfg.dense_share,
            "lexical_share": gate_cfg.lexical_share,
            "corroborated_floor": s.corroborated,
            "subject_floor": s.subject_floor,
            "beside_subject": gate_cfg.beside_subject,
            # the share the gate applied: 0 when a query word no record holds turned it off
            "agreed_share": s.margins.get("agreed_share", 0.0),
            "close_within": gate_cfg.close_within,
            "duplicate_cosine": config.retrieval.duplicate_cosine,
            "gate_mode": s.gate_mode,
            # the gate applied after a replace_floors reranker that did not run, or None
            "gate_after_reranker": s.fallback_gate,
            "limit": request.limit,
            "depth": s.depth,
            # the dense generator's scoring by passage (core.passages); shortlist 0: off
            "passage_discount": config.retrieval.passage_discount,
            "passage_shortlist": config.retrieval.passage_shortlist,
            "embedder": embedder,
            "reranker": config.reranker.model if config.reranker.enabled else None,
            "reranker_mode": config.reranker.mode,
        },
        "candidates": {
            # "whole": the record's own cosine, when a passage's scored it (core.passages)
            "dense": [
                {"id": i, "score": score}
                | ({"whole": s.by_passage[i]} if i in s.by_passage else {})
                for i, score in s.dense
            ],
            "lexical": [{"id": i, "score": score} for i, score in s.lexical],
            "entity": [{"id": i, "score": score} for i, score in s.entity],
            "time": [{"id": i, "score": score} for i, score in s.timed],
            # For a task only: records holding a standing instruction's words (core.search.
            # standing), fused at no weight, kept only when the gate reads one in them.
            "standing": [{"id": i, "score": score} for i, score in s.standing],
            # For a question about the user as a whole: the user's records in profile order
            # (core.search.profile), fused at no weight; each passes on that signal.
            "profile": [{"id": i, "score": score} for i, score in s.profile],
            "fused": [{"id": c.record_id, "fused": round(c.fused, 8)} for c in s.ordered],
        },
        # Which BM25 ranked the lexical candidates: "memory" (core.search.bm25) or "fts5".
        "lexical_scored_by": s.lexical_scored_by,
        # Query words BM25 gives no weight (in half of all records or more), left out of the
        # FTS query (FTS5's path only: in memory every word is scored). Log only: whether a
        # word is that common across every scope is not the searching agent's to learn.
        "lexical_words_ignored": s.weightless,
        "entities_matched": s.matched_entities,
        "changed_since_generated": s.dropped,
        "freshness": s.freshness,
        # (quoting, quoted) candidate pairs: a turn whose retrieval context quotes another
        "quoting": s.quoting,
        "context_credit": s.credit,
        # The role prior (an assistant turn below the user's): factor, applied, why, adjusted.
        "role_prior": s.prior_log,
        "entity_order": s.entity_order,
        "gate": s.gate_log,
        "duplicates": {
            "pairs": s.pairs,
            "dropped": {c.record_id: c.duplicate_of for c in s.duplicates},
        },
        "reranker": s.rerank_log,
        # Candidates only close to the best one, past the answer's first gate.close_within
        # (settings.close_within; replay removes them again).
        "padding_cut": [c.record_id for c in s.padding],
        # core.search.siblings: records of one turn found only through it, and the one kept;
        # session summaries a record of their session stands for
        "siblings": {"collapsed": s.siblings, "summaries": s.summaries},
        # core.search.later: settings, pairs, statement times and what moved (replay reads it)
        "later_first": s.later_log,
        "budget": {
            "budget_tokens": request.budget_tokens,
            # Exact for what was taken; for what was skipped, a count above the room left
            # (core.search.tokens stops counting there), which is all replay needs.
            "tokens": {c.record_id: c.tokens for c in [*s.taken, *s.skipped]},
            "skipped": [c.record_id for c in s.skipped],
        },
        "final_ids": [c.record_id for c in s.taken],
        "explanation": explanation,
        "result_explanations": {r["id"]: r["explanation"] for r in answer},
    }

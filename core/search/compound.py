"""A question that asks several things at once, searched as its parts.

"What does my wife do for work, and what dish did I decide to cook for her birthday?" asks two
things. One query vector for both finds neither well, and the gate weighs every record against
words half of which are about something else. ``parts`` splits such a question where another
question starts: after "and" (with or without a comma before it) or after a question mark,
at a question word ("what", "where", "how" ...) or at an auxiliary followed by its subject
("and is he still working with me?", "and did I pass?"). The retriever (core.search.retriever)
runs its whole pipeline once per part, each part's answer its own generators, gate and order,
then ``combine`` takes the parts' answers in turn (core.search.ranking.interleave: each one's
first result, then each one's second ...), one record once, within the request's ``limit`` and
``budget_tokens``. The search log keeps every part's row whole under ``compound.parts``, so
core.search.ranking.replay rebuilds the answer from the log alone, as for any search.

A piece of fewer than ``MIN_WORDS`` words leans on the question before it and is not searched
alone: "When is Jess's bachelorette weekend, and where?" and "Who did I meet, and when and
where?" are one question. More than ``MAX_PARTS`` pieces is more likely a pasted list than a
question: it is searched whole. "And" between two names ("What do my wife and my father do for
work?") or inside a clause ("... and have a negative experience?": no subject after the
auxiliary) does not split. A part that names its subject only by a pronoun ("... and where does
she live?") is searched as written.

Measured through the public contract on the personal sets' cached stores (session 51's
simulation, then this build): 25 dev and 6 fresh questions split, none of them unanswerable;
benchmarks/README.md (sessions 51 and 52) has the figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_memory.core.search import explain, ranking
from agent_memory.core.search.request import Answer, SearchRequest

MIN_WORDS = 3  # a shorter piece ("and where?") belongs to the question before it
MAX_PARTS = 4  # more pieces: searched whole

_QUESTION_WORD = r"(?:what|where|who|whom|whose|which|when|how|why)"
_AUXILIARY = r"(?:am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)"
_SUBJECT = r"(?:i|you|he|she|it|we|they|there)"
# Where another question starts: a question word, or an auxiliary and its subject, after "and"
# or after a question mark.
_NEXT = re.compile(
    rf"(?:,?\s+and|(?<=\?))\s+(?={_QUESTION_WORD}\b|{_AUXILIARY}\s+{_SUBJECT}\b)", re.IGNORECASE
)


def parts(query: str) -> list[str]:
    """The questions ``query`` asks, in order, when it asks more than one; else ``[]``."""
    pieces: list[list[int]] = []  # [start, end] of each piece in query
    start = 0
    for cut in _NEXT.finditer(query):
        pieces.append([start, cut.start()])
        start = cut.end()
    if not pieces:
        return []
    pieces.append([start, len(query)])
    joined: list[list[int]] = []
    for piece in pieces:
        if joined and _words(query, piece) < MIN_WORDS:
            joined[-1][1] = piece[1]  # a fragment: it stays with the question before it
        else:
            joined.append(piece)
    if len(joined) > 1 and _words(query, joined[0]) < MIN_WORDS:
        joined[1][0] = joined.pop(0)[0]
    if not 1 < len(joined) <= MAX_PARTS:
        return []
    return [query[a:b].strip(" ,;") for a, b in joined]


def _words(query: str, piece: list[int]) -> int:
    return len(query[piece[0] : piece[1]].split())


def combine(request: SearchRequest, answers: Sequence[Answer]) -> Answer:
    """One answer for ``request`` from its parts' ``answers`` (each searched with the request's
    limit and budget): their results in turn, within the limit and the budget, each result's
    explanation its part's with its place in the whole; the response explanation's counts
    summed over the parts, and every part's own explanation under ``parts``."""
    tokens = {rid: n for a in answers for rid, n in a.payload["budget"]["tokens"].items()}
    taken, skipped = ranking.fit_ids(
        ranking.interleave([a.payload["final_ids"] for a in answers]),
        tokens,
        budget=request.budget_tokens,
        limit=request.limit,
    )
    # Each record as the part that placed it explains it: the one where it ranks best (the
    # first such part on a tie), as interleave takes it.
    found: dict[str, tuple[int, int, dict[str, Any]]] = {}
    for number, answer in enumerate(answers, start=1):
        for result in answer.results:
            placed = (result["explanation"]["rank"], number, result)
            if result["id"] not in found or placed[:2] < found[result["id"]][:2]:
                found[result["id"]] = placed
    results, used = [], 0
    for rank, rid in enumerate(taken, start=1):
        _, number, result = found[rid]
        used += tokens[rid]
        within = result["explanation"]
        results.append(
            {
                **result,
                "explanation": {
                    **within,
                    "rank": rank,
                    "part": number,
                    "part_rank": within["rank"],
                    "budget": explain.budget_line(tokens[rid], used, request.budget_tokens),
                },
            }
        )
    explanation = _explanation(request, [a.explanation for a in answers], results, skipped)
    fused = {c["id"]: c for a in answers for c in reversed(a.payload["candidates"]["fused"])}
    first = answers[0].payload
    payload = {
        "request": {**first["request"], "query": request.query},
        "query": request.query,
        "scopes": first["scopes"],
        "compound": {"parts": [a.payload for a in answers]},
        # every part's fused candidates, each once (the evaluation reads what was found)
        "candidates": {"fused": list(fused.values())},
        "budget": {
            "budget_tokens": request.budget_tokens,
            "tokens": {rid: tokens[rid] for rid in [*taken, *skipped]},
            "skipped": skipped,
        },
        "final_ids": taken,
        "explanation": explanation,
        "result_explanations": {r["id"]: r["explanation"] for r in results},
    }
    timings: dict[str, float] = {}
    for answer in answers:
        for stage, ms in answer.timings.items():
            timings[stage] = round(timings.get(stage, 0.0) + ms, 3)
    return Answer(results, explanation, payload, timings)


def _explanation(
    request: SearchRequest,
    parts_said: list[dict[str, Any]],
    results: list[dict[str, Any]],
    skipped: list[str],
) -> dict[str, Any]:
    """The whole answer's explanation: the keys of one search's, each count summed over the
    parts; each part's own under ``parts``."""
    first = parts_said[0]

    def summed(key: str) -> int:
        return sum(int(e[key]) for e in parts_said)

    def best(key: str) -> float | None:
        return max((e["gate"][key] for e in parts_said if e["gate"][key] is not None), default=None)

    return {
        "query": request.query,
        "rewritten_query": None,  # each part's rewrite, if any, is in its own explanation
        "rewrite": {"status": "per part"},
        "scopes": first["scopes"],
        "filter": first["filter"],
        "time_cue": next((e["time_cue"] for e in parts_said if e["time_cue"]), None),
        "candidates": {
            k: sum(int(e["candidates"][k]) for e in parts_said) for k in first["candidates"]
        },
        "gate": {
            "decision": "pass" if results else "empty",
            "best_dense": best("best_dense"),
            "best_lexical": best("best_lexical"),
            "entity_matches": sum(int(e["gate"]["entity_matches"]) for e in parts_said),
            "floors": first["gate"]["floors"],  # the same for every part: one readable set
        },
        "cut": {"count": sum(e["cut"]["count"] for e in parts_said), "why": first["cut"]["why"]},
        "padding_cut": {
            "count": sum(e["padding_cut"]["count"] for e in parts_said),
            "why": first["padding_cut"]["why"],
        },
        "duplicates_collapsed": summed("duplicates_collapsed"),
        "siblings_collapsed": summed("siblings_collapsed"),
        "summaries_collapsed": summed("summaries_collapsed"),
        "later_first": {
            "applied": any(e["later_first"]["applied"] for e in parts_said),
            "why": "per part",
            "moved": sum(e["later_first"]["moved"] for e in parts_said),
        },
        # over each part's budget, and over the whole answer's
        "over_budget": summed("over_budget") + len(skipped),
        "returned": len(results),
        "why_empty": None
        if results
        else "no part of the question found anything: "
        + "; ".join(f"part {n}: {e['why_empty']}" for n, e in enumerate(parts_said, start=1)),
        "parts": parts_said,
    }


__all__ = ["MAX_PARTS", "MIN_WORDS", "combine", "parts"]

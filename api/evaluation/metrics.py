"""The figures of the evaluations, from their answers (the data sets' READMEs say how each
question is scored).

- LoCoMo: turn-level evidence recall@5 and @10 over categories 1-4, overall and per category,
  and the share of category-5 (adversarial) questions answered empty.
- LongMemEval-S: session-level recall_any@5, recall_all@5, recall_any@10 and turn-level
  recall@10 (turns marked ``has_answer``), per question type.
- Both: candidate recall, the share of the evidence turns among the candidates the
  generators found, before the gate and the limit: what a better ordering of the candidates
  (a reranker) could reach, told apart from what no generator finds.
- Personal memory (``personal_metrics``), per path and per kind: hit@5 (any evidence turn
  matched), recall@5 (the share matched), the share answered empty; an unanswerable question
  is right only when answered empty; an update is right ("current first") when a
  current-value match ranks above every stale match, "stale shown" counts updates whose
  results (all of them, as the model sees them) match a stale turn, and "stale restated"
  those with a session summary among them that restates a record of a stale turn (a summary
  matches no turn, so "stale shown" cannot see it say a retired value).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from agent_memory.api.evaluation.datasets import Answer
from agent_memory.api.evaluation.personas import Answer as PersonalAnswer

TOP = 5  # the personal set scores the first five results


def mean(values: Sequence[float]) -> float | None:
    """The mean to four places, None for no values."""
    return round(statistics.fmean(values), 4) if values else None


# ---------------------------------------------------------------------------------------------
# LoCoMo and LongMemEval


def locomo_metrics(answers: list[Answer]) -> dict[str, Any]:
    by_category: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    adversarial_empty: list[float] = []
    for a in answers:
        q = a.question
        if not q.answerable:
            adversarial_empty.append(float(not a.refs))
            continue
        for k in (5, 10):
            hit = len(q.evidence & set(a.refs[:k])) / len(q.evidence)
            by_category[q.kind][f"recall@{k}"].append(hit)
            by_category["all"][f"recall@{k}"].append(hit)
        found = len(q.evidence & a.found) / len(q.evidence)
        by_category[q.kind]["candidate_recall"].append(found)
        by_category["all"]["candidate_recall"].append(found)
    return {
        "questions": sum(1 for a in answers if a.question.answerable),
        "overall": {m: mean(v) for m, v in by_category["all"].items()},
        "by_category": {
            c: {m: mean(v) for m, v in ms.items()} | {"n": len(ms["recall@5"])}
            for c, ms in sorted(by_category.items())
            if c != "all"
        },
        "adversarial_answered_empty": mean(adversarial_empty),
        "adversarial_questions": len(adversarial_empty),
        "latency_ms": _latency(answers),
    }


def longmemeval_metrics(answers: list[Answer], *, granularity: str) -> dict[str, Any]:
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    # The questions behind a figure under its target, by id, so a run can be looked into.
    missed: dict[str, list[str]] = {"recall_any@5": [], "abstention_answered": []}
    for a in answers:
        q = a.question
        if not q.answerable:
            by_type[q.kind]["abstention_answered_empty"].append(float(not a.refs))
            if a.refs:
                missed["abstention_answered"].append(q.id)
            continue
        sessions = list(dict.fromkeys(r.split("#")[0] for r in a.refs))
        metrics = {
            "recall_any@5": float(bool(q.evidence_sessions & set(sessions[:5]))),
            "recall_all@5": float(q.evidence_sessions <= set(sessions[:5])),
            "recall_any@10": float(bool(q.evidence_sessions & set(sessions[:10]))),
        }
        if granularity == "turn" and q.evidence:
            metrics["turn_recall@10"] = len(q.evidence & set(a.refs[:10])) / len(q.evidence)
            metrics["turn_candidate_recall"] = len(q.evidence & a.found) / len(q.evidence)
        if not metrics["recall_any@5"]:
            missed["recall_any@5"].append(q.id)
        for name, value in metrics.items():
            by_type[q.kind][name].append(value)
            by_type["all"][name].append(value)
    return {
        "granularity": granularity,
        "missed": missed,
        "overall": {m: mean(v) for m, v in by_type["all"].items()},
        "by_type": {
            t: {m: mean(v) for m, v in ms.items()}
            for t, ms in sorted(by_type.items())
            if t != "all"
        },
        "latency_ms": _latency(answers),
    }


def _latency(answers: list[Answer]) -> dict[str, float]:
    values = sorted(a.latency_ms for a in answers)
    if not values:
        return {}
    return {
        "p50": round(values[len(values) // 2], 2),
        "p95": round(values[int(len(values) * 0.95)], 2),
        "mean": round(statistics.fmean(values), 2),
    }


# ---------------------------------------------------------------------------------------------
# Personal memory


def personal_metrics(answers: list[PersonalAnswer]) -> dict[str, Any]:
    """Overall and per-kind figures of one path (README: how a question is scored)."""
    by_kind: dict[str, list[PersonalAnswer]] = defaultdict(list)
    for answer in answers:
        by_kind[answer.question.kind].append(answer)
    answerable = [a for a in answers if a.question.answerable]
    updates = by_kind.get("update", [])
    return {
        "questions": len(answers),
        "answerable": _scores(answerable),
        "unanswerable_empty": _rate(by_kind.get("unanswerable", []), _empty),
        "unanswerable_near_empty": _rate(by_kind.get("unanswerable_near", []), _empty),
        "update_current_first": _rate(updates, _current_first),
        "update_stale_shown": _rate(updates, _stale_shown),
        "update_stale_restated": _rate(updates, _stale_restated),
        "result_chars": mean([a.result_chars for a in answers]),
        "full_result_chars": mean([a.full_chars for a in answers]),
        "content_chars": mean([a.content_chars for a in answers]),
        "by_kind": {
            kind: (_scores(group) if group[0].question.answerable else {})
            | {"n": len(group), "empty": _rate(group, _empty)}
            for kind, group in sorted(by_kind.items())
        },
    }


def _scores(answers: list[PersonalAnswer]) -> dict[str, Any]:
    return {
        "n": len(answers),
        "hit@5": _rate(answers, lambda a: _recall(a) > 0),
        "recall@5": mean([_recall(a) for a in answers]),
        "empty": _rate(answers, _empty),
    }


def _recall(answer: PersonalAnswer) -> float:
    evidence = set(answer.question.evidence)
    if not evidence:
        return 0.0
    found = set().union(*answer.matches[:TOP]) if answer.matches else set()
    return len(evidence & found) / len(evidence)


def _empty(answer: PersonalAnswer) -> bool:
    return not answer.matches


def _current_first(answer: PersonalAnswer) -> bool:
    """A current-value match among the first five ranks above every stale match."""
    current, stale = set(answer.question.evidence), set(answer.question.stale)
    for matched in answer.matches[:TOP]:
        if matched & stale:
            return False
        if matched & current:
            return True
    return False


def _stale_shown(answer: PersonalAnswer) -> bool:
    stale = set(answer.question.stale)
    return any(matched & stale for matched in answer.matches)


def _stale_restated(answer: PersonalAnswer) -> bool:
    """A session summary among the results restates a record of a stale turn (not counted
    by "stale shown": a summary matches no turn)."""
    stale = set(answer.question.stale)
    return any(restated & stale for restated in answer.restated)


def _rate(answers: list[PersonalAnswer], test: Any) -> float | None:
    return mean([float(test(a)) for a in answers])

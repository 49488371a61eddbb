"""Gate calibration: sweeps of the gate's floors over the signals logged searches keep.

Two calibrations, both replays (one pass of searches serves every setting of a grid):

- **The floors on LoCoMo** (``agent-memory eval --dataset locomo --calibrate``;
  ``sweep_floors``): the dense and lexical floors (as set for ``gate.reference_records``, each
  search's scaled to the records it read: core.gate.scaled_floors) over a labelled set,
  from each search's ungated signals (its best dense and lexical score, its entity matches).
  api.evaluation.retrieval asks the questions. Positives: answerable questions searched in
  their own conversation. Negatives: the same questions searched in a different
  conversation's scope, and off-topic queries. LoCoMo's category 5 is reported separately,
  never used as negatives (it is about the conversation, wrongly attributed).

- **The small-store drop on the personal set** (``agent-memory eval --dataset personal
  --calibrate``; ``calibrate_small_store_drop``), as follows.

The gate's floors scale with the number of records a search reads
(core.search.gate.scaled_floors):
``gate.dense_floor`` and ``gate.lexical_floor`` hold at ``gate.reference_records`` (500, the
size of the LoCoMo conversations they were calibrated on); at ``gate.small_records`` (30) and
below the dense floor is ``gate.small_store_drop`` lower. That drop is calibrated on the personal
set, a user's everyday chats in a store of their own, by replaying each logged search
(its search_log row keeps every candidate with its scores) under each floor of a grid:

- the personas are split by position in the file: the odd ones (1st, 3rd, ...) choose, the
  others report, so the chosen floor is also measured on users it was not chosen on;
- the floor chosen maximises, on the choosing half and averaged over the paths measured, the
  mean of hit@5 on answerable questions and the share of unanswerable questions answered empty
  (each error counts alike, however many questions of a kind the set holds); ties go to the
  higher floor. unanswerable_near (a stored topic, a fact never given) is reported, not used:
  telling "never said" from "said" on a stored topic is the answering model's part.

The replay is the search's own (core.search.ranking.replay: fusion with the logged freshness
and context credit, the gate, standing instructions and dietary constraints, the profile, the
duplicate collapse, siblings, later statements first, ``limit``) but not the token budget,
whose counts the row keeps only for the records the search examined; and the duplicate pairs
it knows are those among the search's own survivors. At the default budget the personal set's
answers are cut by ``limit``, not the budget.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_memory.api.evaluation import datasets
from agent_memory.api.evaluation.metrics import personal_metrics
from agent_memory.api.evaluation.personas import Answer
from agent_memory.core.config import GateConfig
from agent_memory.core.search import ranking
from agent_memory.core.search.gate import scaled_floors

# ---------------------------------------------------------------------------------------------
# The floors, on LoCoMo

Signals = tuple[float | None, float | None, bool, int]  # best dense, best lexical, entity, records


def sweep_floors(
    positives: list[datasets.Answer], negatives: list[datasets.Answer], gate: GateConfig
) -> dict[str, Any]:
    """Sweep dense and lexical floors (the other gate settings as in ``gate``) over the
    answers' logged signals: every row's precision, recall and F1 of "the gate answers", and
    the row of the best F1 (ties: the better precision)."""
    signals = [(_signals(a), True) for a in positives] + [(_signals(a), False) for a in negatives]
    dense_grid = [round(0.2 + 0.025 * i, 3) for i in range(25)]
    lexical_grid = [round(x, 2) for x in (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 1e9)]
    rows = []
    for dense_floor in dense_grid:
        for lexical_floor in lexical_grid:
            tp = fp = fn = 0
            for (dense, lexical, entity, records), positive in signals:
                # The floors as a search over this many readable records applies them.
                dense_at, lexical_at = scaled_floors(
                    records,
                    dense_floor=dense_floor,
                    small_store_drop=gate.small_store_drop,
                    lexical_floor=lexical_floor,
                    reference=gate.reference_records,
                    small=gate.small_records,
                )
                says = (
                    entity
                    or (dense is not None and dense >= dense_at)
                    or (lexical is not None and lexical >= lexical_at)
                )
                tp += says and positive
                fp += says and not positive
                fn += (not says) and positive
            precision = tp / (tp + fp) if tp + fp else 0.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            rows.append(
                {
                    "dense_floor": dense_floor,
                    "lexical_floor": lexical_floor,
                    "precision": round(precision, 4),
                    "recall": round(recall, 4),
                    "f1": round(f1, 4),
                }
            )
    best = max(rows, key=lambda r: (r["f1"], r["precision"]))
    return {"sweep": rows, "chosen": best}


def _signals(answer: datasets.Answer) -> Signals:
    gate = answer.candidates
    records = gate["floors"]["readable_records"]
    return gate["best_dense"], gate["best_lexical"], bool(gate["entity_matches"]), records


# ---------------------------------------------------------------------------------------------
# The small-store drop, on the personal set

GRID = tuple(round(0.075 + 0.01 * i, 3) for i in range(21))  # small_store_drop 0.075-0.275


def final_ids(payload: dict[str, Any], gate: GateConfig) -> list[str]:
    """The record ids a logged search returns under ``gate`` (its floors, margins and mode),
    replayed from its search_log ``payload`` by the search's own replay
    (core.search.ranking.replay): every stage as logged, no token budget (each search was
    logged with the evaluation's)."""
    return ranking.replay(payload, gate)


def rescored(answers: list[Answer], gate: GateConfig) -> list[Answer]:
    """``answers`` as their searches would have answered under ``gate``."""
    out = []
    for answer in answers:
        if answer.logged is None or answer.candidates is None:
            raise ValueError("calibration needs each answer's logged search and candidates")
        ids = final_ids(answer.logged, gate)
        out.append(replace(answer, matches=tuple(answer.candidates[i] for i in ids)))
    return out


def calibrate_small_store_drop(
    by_path: dict[str, list[list[Answer]]], gate: GateConfig
) -> dict[str, Any]:
    """Sweep ``small_store_drop`` over GRID (the other gate settings as in ``gate``); returns
    every row (per path and half: hit@5, empty rates, results per answer) and the choice."""
    halves = {
        half: {
            path: [a for i, group in enumerate(personas) if i % 2 == parity for a in group]
            for path, personas in by_path.items()
        }
        for half, parity in (("choose", 0), ("report", 1))  # position 0 is the 1st persona
    }
    rows = []
    for drop in GRID:
        setting = gate.model_copy(update={"small_store_drop": drop})
        row: dict[str, Any] = {
            "small_store_drop": drop,
            "small_dense_floor": round(gate.dense_floor - drop, 3),
        }
        for half, paths in halves.items():
            for path, answers in paths.items():
                m = personal_metrics(rescored(answers, setting))
                row[f"{path}/{half}"] = {
                    "hit@5": m["answerable"]["hit@5"],
                    "answerable_empty": m["answerable"]["empty"],
                    "unanswerable_empty": m["unanswerable_empty"],
                    "unanswerable_near_empty": m["unanswerable_near_empty"],
                }
            row[f"objective/{half}"] = _objective(row, half, list(paths))
        rows.append(row)
    # Ties go to the smaller drop: the higher floor.
    chosen = max(rows, key=lambda r: (r["objective/choose"], -r["small_store_drop"]))
    return {
        "grid": "small_store_drop",
        "rule": "max mean over paths of (hit@5 + unanswerable empty) / 2 on the odd personas",
        "sweep": rows,
        "chosen": chosen,
        "configured": gate.small_store_drop,
    }


def _objective(row: dict[str, Any], half: str, paths: list[str]) -> float:
    values = [
        ((row[f"{p}/{half}"]["hit@5"] or 0.0) + (row[f"{p}/{half}"]["unanswerable_empty"] or 0.0))
        / 2
        for p in paths
    ]
    return round(sum(values) / len(values), 4) if values else 0.0

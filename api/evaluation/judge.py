"""``agent-memory eval --dataset judge``: the evidence judge measured on labelled pairs.

The data is JSON lines ``{"id", "quote", "content", "label", "why"}`` (a quote the user said,
a statement about "the user", whether the quote supports it as the user's own claim; the
format of judge-pairs-dev.jsonl in the data folder, see its README). Two measurements, both
directions:

- **judge**: the configured judge's ``entails(quote, content, context=quote)`` per pair:
  precision, recall and F1 of "entailed", the confusion matrix, milliseconds per pair, and the
  confusion per category. A pair's category is the first of these general features that it
  has (computed from the text, never from ids or labels): ``question`` (the quote asks),
  ``reported`` (a speech or belief verb: said, told, thinks, ...), ``hedge`` (maybe, might,
  probably, not sure, if, ...), ``negation`` (not, n't, never, no, except in either text),
  ``number`` (a digit or a number word in the content), ``we`` (the quote speaks as we/our),
  ``request`` (the quote is an imperative or says please), ``past`` (was, were, used to, had in
  the quote), else ``plain``.
- **memory_write**: the same pairs through the public contract: a Memory on a temporary store,
  one user and one session per pair with the quote as its user turn, and memory_write with
  ``evidence`` = the quote and ``source_kind`` = user_statement. It counts how many true pairs
  end confirmed as user statements, and how many false ones.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_memory.core.config import Config
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.judge import Judge, make_judge
from agent_memory.core.memory import Memory

DEFAULT_FILE = "judge-pairs-dev.jsonl"
_AGENT = "judge-eval"

_CATEGORIES: list[tuple[str, Callable[[str, str], bool]]] = []


def _category(name: str, pattern: str, *, on: str = "quote") -> None:
    compiled = re.compile(pattern, re.IGNORECASE)

    def test(quote: str, content: str) -> bool:
        text = {"quote": quote, "content": content, "both": f"{quote}\n{content}"}[on]
        return compiled.search(text) is not None

    _CATEGORIES.append((name, test))


_category("question", r"\?")
_category(
    "reported",
    r"\b(said|says|say|told|tells|thinks?|believes?|assum\w+|claims?|according to|apparently)\b",
)
_category(
    "hedge",
    r"\b(maybe|might|perhaps|probably|possibly|not sure|unsure|if|whether|could|would|'d|"
    r"supposed to|thinking about|considering|wish|hope|plan\w*|going to|gonna|need to)\b|'d\b",
)
_category("negation", r"\b(not|never|no|none|nobody|nothing|except|without)\b|n't\b", on="both")
_category(
    "number",
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|first|second|third)\b",
    on="content",
)
_category("we", r"\b(we|we're|we've|we'll|our|us)\b")
_category(
    "request",
    r"^\s*(please|can you|could you|keep|make|give|use|write|answer|call|don't|do not|stop)\b"
    r"|\b(please|pls)\b",
)
_category("past", r"\b(was|were|used to|had)\b")


def category(quote: str, content: str) -> str:
    """The pair's category (see the module docstring)."""
    for name, test in _CATEGORIES:
        if test(quote, content):
            return name
    return "plain"


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    quote: str
    content: str
    label: bool


def load_pairs(path: Path) -> list[Pair]:
    """The pairs of ``path`` (a .jsonl file, or a folder holding judge-pairs-dev.jsonl)."""
    file = path / DEFAULT_FILE if path.is_dir() else path
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidArgument(
            f"cannot read {file}: {exc.strerror or exc} (--data names a .jsonl file of judge "
            f"pairs or a folder holding {DEFAULT_FILE})",
            field="data",
        ) from None
    pairs: list[Pair] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            pair = Pair(str(row["id"]), row["quote"], row["content"], row["label"])
        except (ValueError, KeyError, TypeError):
            pair = None
        if pair is None or not all(isinstance(v, str) for v in (pair.quote, pair.content)):
            raise InvalidArgument(
                f"{file} line {number} is not a judge pair: expected a JSON object with "
                '"id", "quote", "content" (strings) and "label" (true or false)',
                field="data",
            )
        if not isinstance(pair.label, bool):
            raise InvalidArgument(
                f"{file} line {number}: label must be true or false", field="data"
            )
        pairs.append(pair)
    if not pairs:
        raise InvalidArgument(f"{file} holds no judge pairs", field="data")
    return pairs


def _scores(outcomes: Iterable[tuple[bool, bool]]) -> dict[str, Any]:
    """Precision, recall, F1 of "entailed" and the confusion matrix, from (label, said)."""
    tp = fp = fn = tn = 0
    for label, said in outcomes:
        if label and said:
            tp += 1
        elif said:
            fp += 1
        elif label:
            fn += 1
        else:
            tn += 1
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
    }


def judge_pairs(judge: Judge, pairs: list[Pair]) -> dict[str, Any]:
    """The judge's verdict on every pair, scored; the quote is its own turn (context)."""
    judge.entails("I like tea.", "The user likes tea.")  # load anything lazy before timing
    rows: list[dict[str, Any]] = []
    for pair in pairs:
        started = time.perf_counter()
        verdict = judge.entails(pair.quote, pair.content, context=pair.quote)
        elapsed = (time.perf_counter() - started) * 1000
        rows.append(
            {
                "id": pair.id,
                "label": pair.label,
                "entailed": verdict.holds,
                "score": verdict.score,
                "reason": verdict.reason,
                "category": category(pair.quote, pair.content),
                "ms": round(elapsed, 3),
            }
        )
    by_category = {
        name: _scores((r["label"], r["entailed"]) for r in rows if r["category"] == name)
        for name in sorted({r["category"] for r in rows})
    }
    times = sorted(r["ms"] for r in rows)
    return {
        **_scores((r["label"], r["entailed"]) for r in rows),
        "by_category": by_category,
        "ms_per_pair": {
            "mean": round(statistics.fmean(times), 3),
            "p50": round(statistics.median(times), 3),
            "max": round(times[-1], 3),
        },
        "pairs": rows,
    }


def write_pairs(config: Config, pairs: list[Pair], store_dir: Path) -> dict[str, Any]:
    """Each pair through memory_write on a real store; which ones end confirmed."""
    confirmed: dict[str, bool] = {}
    with Memory.open(store_dir / "judge-eval.db", config) as memory:
        for number, pair in enumerate(pairs):
            user = f"judge-{number}"
            memory.grant(_AGENT, f"user:{user}")
            session = memory.session(agent_id=_AGENT, user_id=user, session_id=f"s-{number}")
            session.add_turn("user", pair.quote)
            result = session.call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": pair.content,
                    "source_kind": "user_statement",
                    "evidence": pair.quote,
                },
            )
            confirmed[pair.id] = result.get("source_kind") == "user_statement" and (
                result.get("status") == "confirmed"
            )
    true_pairs = [p for p in pairs if p.label]
    false_pairs = [p for p in pairs if not p.label]
    return {
        "true_confirmed": sum(confirmed[p.id] for p in true_pairs),
        "true_total": len(true_pairs),
        "false_confirmed": sum(confirmed[p.id] for p in false_pairs),
        "false_total": len(false_pairs),
        **_scores((p.label, confirmed[p.id]) for p in pairs),
    }


def run(config: Config, data: Path, *, contract: bool = True) -> dict[str, Any]:
    """The judge report for the pairs at ``data`` (see the module docstring)."""
    pairs = load_pairs(data)
    judge = make_judge(config.judge)
    report: dict[str, Any] = {
        "dataset": "judge",
        "data": str(data),
        "judge": judge.name,
        "pairs": len(pairs),
        "judge_scores": judge_pairs(judge, pairs),
    }
    if contract:
        with tempfile.TemporaryDirectory(prefix="agent-memory-judge-eval-") as scratch:
            report["memory_write"] = write_pairs(config, pairs, Path(scratch))
    return report


def summary(report: dict[str, Any]) -> str:
    """The report as a few human-readable lines."""
    scores = report["judge_scores"]
    c = scores["confusion"]
    lines = [
        f"judge {report['judge']} on {report['pairs']} pairs ({report['data']})",
        f"  entailed: precision {scores['precision']:.3f}  recall {scores['recall']:.3f}  "
        f"F1 {scores['f1']:.3f}",
        f"  confusion: tp {c['tp']}  fp {c['fp']}  fn {c['fn']}  tn {c['tn']}",
        f"  ms per pair: mean {scores['ms_per_pair']['mean']}  p50 {scores['ms_per_pair']['p50']}"
        f"  max {scores['ms_per_pair']['max']}",
        "  by category (tp/fp/fn/tn):",
    ]
    for name, row in scores["by_category"].items():
        k = row["confusion"]
        lines.append(f"    {name:<9} {k['tp']}/{k['fp']}/{k['fn']}/{k['tn']}")
    written = report.get("memory_write")
    if written:
        lines.append(
            f"  through memory_write: {written['true_confirmed']} of {written['true_total']} "
            f"true pairs confirmed, {written['false_confirmed']} of {written['false_total']} "
            "false ones"
        )
    return "\n".join(lines)

"""Retrieval evaluation on real conversations: `agent-memory eval` and benchmarks/eval_retrieval.py.

Each conversation is imported into its own scope (``user:<conversation>``), one episodic record
per turn, with the turn's id as ``source_ref``, through ``Memory.import_conversation`` (the
product's conversation import, core.conversation), one call per session: every record carries
its retrieval context, the session's date and the turns just before it in the same session (a
general policy for conversation turns, the same for every data set and every host).
Each question is then asked through memory_search, acting for that conversation's user, with
the gate on, and the returned ``source_ref``s are scored against the labelled evidence
(api.evaluation.metrics: LoCoMo's turn recall, LongMemEval-S's session and turn recall, and
both's candidate recall, read from each search's search_log row).

``--calibrate`` asks the LoCoMo questions again, in their own conversation and in another,
and off-topic queries, and sweeps the gate floors over what those searches logged
(api.evaluation.calibrate).

The data sets' loaders are api.evaluation.datasets; nothing here knows anything about
particular conversations.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent_memory.api.evaluation.calibrate import sweep_floors
from agent_memory.api.evaluation.datasets import (
    Answer,
    Dataset,
    Question,
    conversation_turns,
    load_locomo,
    load_longmemeval,
    scope_key,
    session_records,
)
from agent_memory.api.evaluation.metrics import locomo_metrics, longmemeval_metrics
from agent_memory.core import Memory
from agent_memory.core.models import format_time

AGENT = "eval"


# ---------------------------------------------------------------------------------------------
# Importing and asking


def import_dataset(
    mem: Memory, dataset: Dataset, *, granularity: str = "turn", progress: bool = True
) -> None:
    """Import each conversation into its own scope: per turn through the product's own
    conversation import (what a host gets is what is measured), or per session."""
    for key, turns in tqdm(
        dataset.conversations.items(),
        desc=f"importing {dataset.name}",
        unit="conversation",
        disable=not progress,
    ):
        scope = f"user:{key}"
        mem.grant(AGENT, scope)
        if granularity == "session":
            mem.import_records(session_records(turns), scope=scope, agent_id=AGENT)
            continue
        sessions = conversation_turns(turns, speakers_are_people=dataset.speakers_are_people)
        for session, items in sessions:
            mem.import_conversation(
                items, scope=scope, session_id=scope_key(f"{key}-{session}"), agent_id=AGENT
            )


def ask(
    mem: Memory,
    questions: Iterable[Question],
    *,
    limit: int = 10,
    scope_of: dict[str, str] | None = None,
    progress: bool = True,
    desc: str = "asking",
) -> list[Answer]:
    """Search each question as the eval agent acting for its conversation (or for
    ``scope_of[question.id]``, to ask it somewhere it has no answer)."""
    answers = []
    sessions: dict[str, Any] = {}
    for question in tqdm(list(questions), desc=desc, unit="question", disable=not progress):
        where = (scope_of or {}).get(question.id, question.conversation)
        session = sessions.get(where)
        if session is None:
            session = sessions[where] = mem.session(
                agent_id=AGENT, user_id=where, session_id=f"eval-{where}"[:128]
            )
        started = time.perf_counter()
        result = session.call(
            "memory_search",
            {"query": question.text, "limit": limit, "budget_tokens": 100_000},
            now=question.asked_at or datetime.now(UTC),
        )
        latency = (time.perf_counter() - started) * 1000
        if "error" in result:
            raise RuntimeError(f"search failed for {question.id}: {result['error']}")
        answers.append(
            Answer(
                question,
                [r["source_ref"] for r in result["results"]],
                where,
                latency,
                result["explanation"]["gate"],
                _found(mem, result["search_id"]),
            )
        )
    return answers


def _found(mem: Memory, search_id: str) -> frozenset[str]:
    """The source_refs of every candidate a logged search fused (its search_log row keeps
    each generator's list; the response only what survived)."""
    payload = mem.store.search_log_payload(search_id)
    if payload is None:  # every search logs itself: the row was just written
        raise RuntimeError(f"search {search_id} is missing from the search log")
    records = mem.store.get_records([c["id"] for c in payload["candidates"]["fused"]])
    return frozenset(r.source_ref for r in records.values() if r.source_ref is not None)


# ---------------------------------------------------------------------------------------------
# Gate calibration

OFF_TOPIC = [
    "What is the boiling point of tungsten?",
    "How do I configure a BGP route reflector?",
    "Explain the proof of Fermat's last theorem.",
    "What is the capital of Mongolia?",
    "How many moons does Neptune have?",
    "Recommend a Kubernetes ingress controller.",
    "What is the half-life of carbon-14?",
    "How do I compile a Rust crate for WebAssembly?",
    "Who composed the Brandenburg concertos?",
    "What does the Krebs cycle produce?",
    "How do I reset a Cisco switch to factory settings?",
    "What's the GDP of Iceland?",
    "Translate 'good morning' into Swahili.",
    "What is a monad in Haskell?",
    "How do tides work?",
    "What is the syntax of a SQL window function?",
]


def calibrate(mem: Memory, dataset: Dataset, *, progress: bool = True) -> dict[str, Any]:
    """Ask the calibration searches and sweep the dense and lexical floors over them
    (api.evaluation.calibrate); positives are answerable questions in their own scope,
    negatives the same questions in another conversation's scope plus off-topic queries. The
    signals come from ungated candidates (each search logs its best dense and lexical score and
    its entity matches), so one pass serves every floor."""
    answerable = [q for q in dataset.questions if q.answerable]
    keys = sorted(dataset.conversations)
    speakers = {
        k: {t.speaker.casefold() for t in turns} for k, turns in dataset.conversations.items()
    }
    elsewhere = {
        q.id: key for q in answerable if (key := _unrelated_conversation(q, keys, speakers))
    }
    positives = ask(mem, answerable, progress=progress, desc="positives")
    negatives = ask(
        mem,
        [q for q in answerable if q.id in elsewhere],
        scope_of=elsewhere,
        progress=progress,
        desc="negatives",
    )
    off = [
        Question(f"off:{i}:{k}", k, text, "off-topic", frozenset())
        for i, text in enumerate(OFF_TOPIC)
        for k in keys
    ]
    negatives += ask(mem, off, progress=progress, desc="off-topic")
    result = sweep_floors(positives, negatives, mem.config.gate)
    return {
        "positives": len(positives),
        "negatives": len(negatives),
        "sweep": result["sweep"],
        "chosen": result["chosen"],
        "embedder": str(mem.embedder.identity),
    }


def _unrelated_conversation(
    question: Question, keys: list[str], speakers: dict[str, set[str]]
) -> str | None:
    """The next conversation (in key order) none of whose speakers the question names: a
    question about John asked where another John talks may have an answer there, so it
    would not be a true negative."""
    named = set(re.findall(r"\w+", question.text.casefold()))
    start = keys.index(question.conversation)
    for step in range(1, len(keys)):
        key = keys[(start + step) % len(keys)]
        if not speakers[key] & named:
            return key
    return None


# ---------------------------------------------------------------------------------------------
# Running


def run(
    *,
    data_dir: Path,
    store_dir: Path,
    config: Any,
    datasets: tuple[str, ...] = ("locomo", "longmemeval"),
    granularities: tuple[str, ...] = ("turn",),
    do_calibrate: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Import, ask and score; returns a JSON-ready report."""
    report: dict[str, Any] = {
        "config": config.model_dump(),
        "started": format_time(datetime.now(UTC)),
    }
    for name in datasets:
        if name == "locomo":
            dataset = load_locomo(data_dir / "locomo-dev.json")
        else:
            dataset = load_longmemeval(data_dir / "longmemeval-s-dev.json.gz")
        for granularity in granularities if name == "longmemeval" else ("turn",):
            path = store_dir / f"{name}-{granularity}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            with Memory.open(path, config) as mem:
                mem.warm()
                started = time.perf_counter()
                import_dataset(mem, dataset, granularity=granularity, progress=progress)
                imported = time.perf_counter() - started
                answers = ask(mem, dataset.questions, progress=progress, desc=f"{name} questions")
                if name == "locomo":
                    metrics = locomo_metrics(answers)
                else:
                    metrics = longmemeval_metrics(answers, granularity=granularity)
                metrics["records"] = mem.stats()["records"]
                metrics["import_s"] = round(imported, 1)
                metrics["embedder"] = str(mem.embedder.identity)
                report[f"{name}/{granularity}"] = metrics
                if do_calibrate and name == "locomo":
                    report["calibration"] = calibrate(mem, dataset, progress=progress)
    report["finished"] = format_time(datetime.now(UTC))
    return report


def summary(report: dict[str, Any]) -> str:
    """The report as a few readable lines."""
    lines = []
    for key, metrics in report.items():
        if not isinstance(metrics, dict) or "overall" not in metrics:
            continue
        overall = ", ".join(f"{k} {v}" for k, v in metrics["overall"].items())
        lines.append(f"{key}: {overall}  (search p50 {metrics['latency_ms'].get('p50')} ms)")
        groups = metrics.get("by_category") or metrics.get("by_type") or {}
        for group, values in groups.items():
            lines.append(f"    {group:<28} " + ", ".join(f"{k} {v}" for k, v in values.items()))
        if "adversarial_answered_empty" in metrics:
            lines.append(
                f"    category 5 answered empty: {metrics['adversarial_answered_empty']} "
                f"of {metrics['adversarial_questions']}"
            )
    if "calibration" in report:
        chosen = report["calibration"]["chosen"]
        lines.append(
            f"calibration ({report['calibration']['embedder']}): chosen dense_floor "
            f"{chosen['dense_floor']}, lexical_floor {chosen['lexical_floor']} "
            f"(precision {chosen['precision']}, recall {chosen['recall']}, "
            f"F1 {chosen['f1']})"
        )
    return "\n".join(lines)

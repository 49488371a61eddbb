"""Retrieval evaluation on real conversations: `agent-memory eval` and benchmarks/eval_retrieval.py.

Each conversation is imported into its own scope (``user:<conversation>``), one episodic record
per turn, with the turn's id as ``source_ref``, through ``Memory.import_conversation`` (the
product's conversation import, core.write.conversation), one call per session: every record carries
its retrieval context, the session's date and the turns just before it in the same session (a
general policy for conversation turns, the same for every data set and every host).
Each question is then asked through memory_search, acting for that conversation's user, with
the gate on, and the returned ``source_ref``s are scored against the labelled evidence.

- LoCoMo: turn-level evidence recall@5 and @10 over categories 1-4, overall and per category,
  and the share of category-5 (adversarial) questions answered empty.
- LongMemEval-S: session-level recall_any@5, recall_all@5, recall_any@10 and turn-level
  recall@10 (turns marked ``has_answer``), per question type; a record per turn or per session.
- Both: candidate recall, the share of the evidence turns among the candidates the
  generators found (each its best ``retrieval.candidates_per_generator``; read from each
  search's search_log row), before the gate and the limit: what a better ordering of the
  candidates (a reranker) could reach, told apart from what no generator finds.
- Calibration (``--calibrate``): sweeps the gate floors (as set for ``gate.reference_records``,
  each search's scaled to the records it read: core.ranking.scaled_floors) on a labelled set.
  Positives: answerable questions searched in their own conversation. Negatives: the same
  questions searched in a different conversation's scope, and off-topic queries. LoCoMo's
  category 5 is reported separately, never used as negatives (it is about the conversation,
  wrongly attributed).

Nothing here knows anything about particular conversations: the loaders only translate each
data set's file format.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent_memory.core import Memory
from agent_memory.core.models import format_time
from agent_memory.core.search.ranking import scaled_floors
from agent_memory.core.write.conversation import turn_records as conversation_records
from agent_memory.core.write.conversation import validate_turns

AGENT = "eval"
MAX_CONTENT = 8000  # the importer's limit; longer sessions are cut (the embedder reads less)


@dataclass(frozen=True, slots=True)
class Turn:
    ref: str  # the data set's id for the turn
    session: str
    speaker: str
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    conversation: str
    text: str
    kind: str  # LoCoMo category or LongMemEval question type
    evidence: frozenset[str]  # turn refs
    evidence_sessions: frozenset[str] = frozenset()
    asked_at: datetime | None = None
    answerable: bool = True


@dataclass(slots=True)
class Dataset:
    name: str
    # LoCoMo's speakers are people with names; LongMemEval's are the roles user and assistant.
    speakers_are_people: bool = False
    conversations: dict[str, list[Turn]] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Loaders


def load_locomo(path: Path) -> Dataset:
    data = json.loads(path.read_text())
    dataset = Dataset("locomo", speakers_are_people=True)
    for conversation in data:
        key = _key(conversation["sample_id"])
        sessions = conversation["conversation"]
        numbers = sorted(
            int(m.group(1)) for k in sessions if (m := re.fullmatch(r"session_(\d+)", k))
        )
        turns: list[Turn] = []
        for number in numbers:
            at = _locomo_date(sessions[f"session_{number}_date_time"])
            for turn in sessions[f"session_{number}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares an image: {turn['blip_caption']}]"
                turns.append(Turn(turn["dia_id"], f"session_{number}", turn["speaker"], text, at))
        dataset.conversations[key] = turns
        known = {t.ref for t in turns}
        for i, qa in enumerate(conversation["qa"]):
            evidence = {
                _normal_dia_id(e)
                for raw in qa.get("evidence", [])
                for e in re.split(r"[;,\s]+", raw)
                if e
            }
            evidence = {e for e in evidence if e in known}
            category = int(qa["category"])
            if category != 5 and not evidence:
                continue  # nothing to score against
            dataset.questions.append(
                Question(
                    f"{key}:{i}",
                    key,
                    qa["question"],
                    str(category),
                    frozenset(evidence),
                    asked_at=turns[-1].at + timedelta(days=1),
                    answerable=category != 5,
                )
            )
    return dataset


def load_longmemeval(path: Path) -> Dataset:
    with gzip.open(path) as handle:
        data = json.loads(handle.read())
    dataset = Dataset("longmemeval")
    for item in data:
        key = _key(item["question_id"])
        turns: list[Turn] = []
        evidence: set[str] = set()
        for session_id, date, session in zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        ):
            at = _longmemeval_date(date)
            for n, turn in enumerate(session):
                ref = f"{session_id}#{n}"
                turns.append(Turn(ref, session_id, turn["role"], turn["content"], at))
                if turn.get("has_answer"):
                    evidence.add(ref)
        dataset.conversations[key] = turns
        dataset.questions.append(
            Question(
                item["question_id"],
                key,
                item["question"],
                item["question_type"],
                frozenset(evidence),
                frozenset(item["answer_session_ids"]),
                asked_at=_longmemeval_date(item["question_date"]),
                answerable=not item["question_id"].endswith("_abs"),
            )
        )
    return dataset


def _key(raw: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@+=-]", "-", raw)[:128]


def _normal_dia_id(raw: str) -> str:
    m = re.fullmatch(r"D:?(\d+):0*(\d+)", raw.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else raw.strip()


def _locomo_date(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _longmemeval_date(text: str) -> datetime:
    return datetime.strptime(text.split(" (")[0] + text[-6:], "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------
# Importing and asking


def session_records(turns: list[Turn]) -> list[dict[str, Any]]:
    """One record per session, its turns concatenated (LongMemEval's session granularity)."""
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for turn in turns:
        by_session[turn.session].append(turn)
    return [
        {
            "type": "episodic",
            "source_kind": "system",
            "source_ref": session,
            "event_at": format_time(group[0].at),
            "content": "\n".join(f"{t.speaker}: {t.text}" for t in group)[:MAX_CONTENT],
        }
        for session, group in by_session.items()
    ]


def conversation_turns(
    turns: list[Turn], *, speakers_are_people: bool
) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each session's turns, in order, in Memory.import_conversation's shape: one entry per
    run of consecutive turns of a session (a LongMemEval haystack may hold the same session
    twice, on two dates; each copy is its own conversation). Named speakers (LoCoMo's people)
    are given as ``speaker``, so each turn is about the person who said it; role speakers
    (LongMemEval's user and assistant) are the role. A turn without text (LongMemEval has 5,
    none labelled) is left out: the import refuses blank turns, and it says nothing."""
    runs: list[tuple[str, list[dict[str, Any]]]] = []
    for turn in turns:
        if not turn.text.strip():
            continue
        item: dict[str, Any] = {"id": turn.ref, "text": turn.text, "at": format_time(turn.at)}
        if speakers_are_people:
            item |= {"role": "user", "speaker": turn.speaker}
        else:
            item["role"] = turn.speaker
        if not runs or runs[-1][0] != turn.session:
            runs.append((turn.session, []))
        runs[-1][1].append(item)
    return runs


def turn_records(turns: list[Turn], *, speakers_are_people: bool) -> list[dict[str, Any]]:
    """The records import_dataset stores per turn (for benchmarks that build stores of their
    own), in the order of ``turns``."""
    sessions = conversation_turns(turns, speakers_are_people=speakers_are_people)
    return [
        record for _, items in sessions for record in conversation_records(validate_turns(items))
    ]


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
                items, scope=scope, session_id=_key(f"{key}-{session}"), agent_id=AGENT
            )


@dataclass(slots=True)
class Answer:
    question: Question
    refs: list[str]  # source_refs of the results, best first
    searched_in: str
    latency_ms: float
    candidates: dict[str, Any]
    # source_refs of every candidate the generators found (each generator's best
    # retrieval.candidates_per_generator), before the gate, duplicate collapse and the limit.
    # Evidence missing here is evidence no reordering of the candidates could return.
    found: frozenset[str]


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
    (row,) = mem.store.query("SELECT payload FROM search_log WHERE id = ?", [search_id])
    ids = [c["id"] for c in json.loads(row["payload"])["candidates"]["fused"]]
    if not ids:
        return frozenset()
    marks = ",".join("?" * len(ids))
    rows = mem.store.query(f"SELECT source_ref FROM records WHERE id IN ({marks})", ids)
    return frozenset(r["source_ref"] for r in rows if r["source_ref"] is not None)


# ---------------------------------------------------------------------------------------------
# Metrics


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


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
        "overall": {m: _mean(v) for m, v in by_category["all"].items()},
        "by_category": {
            c: {m: _mean(v) for m, v in ms.items()} | {"n": len(ms["recall@5"])}
            for c, ms in sorted(by_category.items())
            if c != "all"
        },
        "adversarial_answered_empty": _mean(adversarial_empty),
        "adversarial_questions": len(adversarial_empty),
        "latency_ms": _latency(answers),
    }


def longmemeval_metrics(answers: list[Answer], *, granularity: str) -> dict[str, Any]:
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for a in answers:
        q = a.question
        if not q.answerable:
            by_type[q.kind]["abstention_answered_empty"].append(float(not a.refs))
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
        for name, value in metrics.items():
            by_type[q.kind][name].append(value)
            by_type["all"][name].append(value)
    return {
        "granularity": granularity,
        "overall": {m: _mean(v) for m, v in by_type["all"].items()},
        "by_type": {
            t: {m: _mean(v) for m, v in ms.items()}
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
    """Sweep dense and lexical floors; positives are answerable questions in their own scope,
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
    signals = [(_signals(a), True) for a in positives] + [(_signals(a), False) for a in negatives]
    gate = mem.config.gate
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
    return {
        "positives": len(positives),
        "negatives": len(negatives),
        "sweep": rows,
        "chosen": best,
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


def _signals(answer: Answer) -> tuple[float | None, float | None, bool, int]:
    gate = answer.candidates
    records = gate["floors"]["readable_records"]
    return gate["best_dense"], gate["best_lexical"], bool(gate["entity_matches"]), records


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

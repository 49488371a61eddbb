"""Personal-memory evaluation: `agent-memory eval --dataset personal --data FILE`.

Everyday chats of one user with an assistant (personal-memory-dev.json; its README gives the
format and the scoring), measured the way a real user's store is built, through the public
contract only (Memory, sessions, tools), each persona in a fresh store of its own:

- "extracted": each session's turns are added to a live session of the persona's agent (turn
  time: the session's started_at plus two minutes per turn), the session is ended and its
  extraction job runs to completion in-process (the worker app in immediate mode, with the
  configured extraction backend; ``auto`` is the offline one here, whatever the environment
  holds, so the figures do not depend on an API key being set).
- "turns": each session is imported as turn records (``Memory.import_conversation``).

Then every question is asked once with memory_search (gate on, the default limit, the
question text alone, at its asked_at) as the persona's agent, and the first five results are
scored as the data set's README says. A result matches a labelled turn: on the extracted path
when its ``evidence``, folded (lowercase, punctuation and runs of spaces to one space), is at
least 8 characters long and lies inside the turn's folded text; on the turns path when its
``source_ref`` is the turn's id. Per path and per kind: hit@5 (any evidence turn matched),
recall@5 (the share matched), the share answered empty; an unanswerable question is right
only when answered empty; an update is right ("current first") when a current-value match
ranks above every stale match, and "stale shown" counts updates whose results (all of them,
as the model sees them) match a stale turn. Sizes are of what the model reads, the JSON of
the compact result a model-facing surface sends (``core.compact``), beside the full form the
host API returns and the records' content.

``--calibrate`` also replays every logged search with other gate floors (api.gate_calibration)
and reports the sweep, chosen on the odd-numbered personas and reported on the others.
"""

from __future__ import annotations

import gzip
import json
import re
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tqdm import tqdm

from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.extraction import make_backend
from agent_memory.core.models import format_time, parse_time
from agent_memory.core.search.explain import for_model
from agent_memory.workers.app import WorkerApp

AGENT = "assistant"
FILE_NAME = "personal-memory-dev.json"
TOP = 5
MIN_EVIDENCE = 8  # folded characters; shorter evidence would match almost any turn
TURN_STEP = timedelta(minutes=2)
PATHS = ("extracted", "turns")
UNANSWERABLE = ("unanswerable", "unanswerable_near")


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    role: str
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    kind: str
    asked_at: datetime
    evidence: tuple[str, ...]
    stale: tuple[str, ...]

    @property
    def answerable(self) -> bool:
        return self.kind not in UNANSWERABLE


@dataclass(frozen=True, slots=True)
class Persona:
    id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    def turn(self, turn_id: str) -> Turn:
        return next(t for s in self.sessions for t in s.turns if t.id == turn_id)


@dataclass(frozen=True, slots=True)
class Answer:
    question: Question
    # For each result, best first: the labelled turns (evidence or stale) it matches.
    matches: tuple[frozenset[str], ...]
    result_chars: int  # the compact form a model reads
    full_chars: int  # the host API's full form
    content_chars: int
    logged: dict[str, Any] | None = None  # the search's search_log payload
    # Each candidate the search logged, by record id: the labelled turns it matches.
    candidates: dict[str, frozenset[str]] | None = None


# ---------------------------------------------------------------------------------------------
# Loading


def data_file(path: Path) -> Path:
    """The data file itself, or personal-memory-dev.json inside a folder."""
    return path / FILE_NAME if path.is_dir() else path


def load(path: Path) -> list[Persona]:
    """The personas of a personal-memory file, or of a LongMemEval file (``.json.gz``)."""
    file = data_file(path)
    if file.name.endswith(".gz"):
        with gzip.open(file) as handle:
            return [_longmemeval_persona(item) for item in json.loads(handle.read())]
    data = json.loads(file.read_text())
    return [_persona(p) for p in data["personas"]]


def _persona(raw: dict[str, Any]) -> Persona:
    sessions = []
    for session in raw["sessions"]:
        start = parse_time(session["started_at"], field="started_at")
        turns = tuple(
            Turn(t["id"], t["role"], t["text"], start + i * TURN_STEP)
            for i, t in enumerate(session["turns"])
        )
        sessions.append(Session(session["id"], turns))
    questions = tuple(
        Question(
            q["id"],
            q["question"],
            q["kind"],
            parse_time(q["asked_at"], field="asked_at"),
            tuple(q.get("evidence") or ()),
            tuple(q.get("stale") or ()),
        )
        for q in raw["questions"]
    )
    return Persona(raw["id"], tuple(sessions), questions)


# LongMemEval's question types as the personal set's kinds. An abstention question (its id ends
# in _abs) asks about something close to its sessions that they never state.
LONGMEMEVAL_KINDS = {
    "single-session-user": "direct",
    "single-session-assistant": "direct",
    "single-session-preference": "implicit",
    "multi-session": "multi",
    "temporal-reasoning": "temporal",
    "knowledge-update": "update",
}


def _longmemeval_persona(item: dict[str, Any]) -> Persona:
    """One LongMemEval question as a user whose store holds only its evidence sessions (the
    sessions that answer it), so the figures say what one real user's few sessions give.

    Turn ids are ``<session id>#<n>``, turn times the session's date plus two minutes a turn;
    the evidence is the turns marked has_answer. A knowledge update's turns do not say which
    value is current, so both count as evidence and none as stale."""
    question_id = str(item["question_id"])
    abstains = question_id.endswith("_abs")
    answering = set(item["answer_session_ids"])
    sessions: list[Session] = []
    evidence: list[str] = []
    for session_id, date, raw_turns in zip(
        item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
    ):
        if session_id not in answering or not raw_turns:
            continue
        start = _longmemeval_time(date)
        turns = tuple(
            Turn(f"{session_id}#{n}", t["role"], t["content"], start + n * TURN_STEP)
            for n, t in enumerate(raw_turns)
        )
        sessions.append(Session(session_id, turns))
        if not abstains:
            evidence += [
                t.id for t, raw in zip(turns, raw_turns, strict=True) if raw.get("has_answer")
            ]
    sessions.sort(key=lambda s: s.turns[0].at)
    question = Question(
        question_id,
        item["question"],
        "unanswerable_near" if abstains else LONGMEMEVAL_KINDS[item["question_type"]],
        _longmemeval_time(item["question_date"]),
        tuple(evidence),
        (),
    )
    return Persona(re.sub(r"[^A-Za-z0-9_-]", "-", question_id), tuple(sessions), (question,))


def _longmemeval_time(text: str) -> datetime:
    """LongMemEval's '2023/05/20 (Sat) 10:44' as an aware UTC time."""
    day, _, clock = text.partition(" (")
    return datetime.strptime(f"{day} {clock[-5:]}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------
# Building each persona's store


@contextmanager
def persona_store(
    persona: Persona, path: str, *, store_dir: Path, config: Config, embedder: Embedder
) -> Iterator[Memory]:
    """A fresh store holding ``persona``'s sessions the ``path`` way; the agent reads and
    writes the persona's user scope."""
    db = store_dir / f"{persona.id}-{path}.db"
    for suffix in ("", "-wal", "-shm", ".queue.db"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with Memory.open(db, config, embedder=embedder) as mem:
        mem.grant(AGENT, f"user:{persona.id}")
        if path == "extracted":
            _extract(mem, persona, config)
        else:
            _import_turns(mem, persona)
        yield mem


def _extract(mem: Memory, persona: Persona, config: Config) -> None:
    """Live sessions, ended, each extraction job run to completion in this process at the
    session's end (the worker's clock), as a worker would right after the session."""
    backend = make_backend(config.extraction, environ={})
    ended = [datetime.now(UTC)]
    app = WorkerApp(mem.path, config, immediate=True, backend=backend, clock=lambda: ended[0])
    app.attach(mem)
    for session in persona.sessions:
        live = mem.session(
            agent_id=AGENT, user_id=persona.id, session_id=session.id, now=session.turns[0].at
        )
        for turn in session.turns:
            live.add_turn(turn.role, turn.text, at=turn.at)
        ended[0] = session.turns[-1].at + TURN_STEP
        job_id = live.end(now=ended[0])
        status = mem.jobs.status(job_id)["status"]
        if status != "done":
            raise RuntimeError(f"extraction of session {session.id} ended {status}")


def _import_turns(mem: Memory, persona: Persona) -> None:
    for session in persona.sessions:
        mem.import_conversation(
            [
                {"id": t.id, "role": t.role, "text": t.text, "at": format_time(t.at)}
                for t in session.turns
            ],
            scope=f"user:{persona.id}",
            session_id=session.id,
            agent_id=AGENT,
        )


# ---------------------------------------------------------------------------------------------
# Asking and matching


def ask(mem: Memory, persona: Persona, path: str) -> list[Answer]:
    session = mem.session(agent_id=AGENT, user_id=persona.id, session_id=f"eval-{persona.id}")
    labelled = {t for q in persona.questions for t in q.evidence + q.stale}
    folded = {t: fold(persona.turn(t).text) for t in labelled}
    answers = []
    for question in persona.questions:
        arguments = {"query": question.text}
        result = session.call("memory_search", arguments, now=question.asked_at)
        if "error" in result:
            raise RuntimeError(f"search failed for {question.id}: {result['error']['code']}")
        results = result["results"]
        answers.append(
            Answer(
                question,
                tuple(_matches(r, path, folded) for r in results),
                len(json.dumps(for_model("memory_search", arguments, result))),
                len(json.dumps(result)),
                sum(len(r["content"]) for r in results),
                (logged := _logged(mem, result["search_id"])),
                {
                    record_id: _matches(record.to_json(), path, folded)
                    for record_id, record in mem.store.get_records(
                        [c["id"] for c in logged["candidates"]["fused"]]
                    ).items()
                },
            )
        )
    return answers


def _logged(mem: Memory, search_id: str) -> dict[str, Any]:
    """A search's search_log payload: every candidate, score and setting."""
    (row,) = mem.store.query("SELECT payload FROM search_log WHERE id = ?", [search_id])
    payload: dict[str, Any] = json.loads(row["payload"])
    return payload


def fold(text: str) -> str:
    """Lowercase, punctuation and runs of spaces folded to one space (the README's rule)."""
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


def _matches(result: dict[str, Any], path: str, folded: dict[str, str]) -> frozenset[str]:
    if path == "turns":
        ref = result.get("source_ref")
        return frozenset({ref}) if ref in folded else frozenset()
    evidence = fold(result.get("evidence") or "")
    if len(evidence) < MIN_EVIDENCE:
        return frozenset()
    return frozenset(t for t, text in folded.items() if evidence in text)


# ---------------------------------------------------------------------------------------------
# Metrics


def metrics(answers: list[Answer]) -> dict[str, Any]:
    """Overall and per-kind figures of one path (README: how a question is scored)."""
    by_kind: dict[str, list[Answer]] = defaultdict(list)
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
        "result_chars": _mean([a.result_chars for a in answers]),
        "full_result_chars": _mean([a.full_chars for a in answers]),
        "content_chars": _mean([a.content_chars for a in answers]),
        "by_kind": {
            kind: (_scores(group) if group[0].question.answerable else {})
            | {"n": len(group), "empty": _rate(group, _empty)}
            for kind, group in sorted(by_kind.items())
        },
    }


def _scores(answers: list[Answer]) -> dict[str, Any]:
    return {
        "n": len(answers),
        "hit@5": _rate(answers, lambda a: _recall(a) > 0),
        "recall@5": _mean([_recall(a) for a in answers]),
        "empty": _rate(answers, _empty),
    }


def _recall(answer: Answer) -> float:
    evidence = set(answer.question.evidence)
    if not evidence:
        return 0.0
    found = set().union(*answer.matches[:TOP]) if answer.matches else set()
    return len(evidence & found) / len(evidence)


def _empty(answer: Answer) -> bool:
    return not answer.matches


def _current_first(answer: Answer) -> bool:
    """A current-value match among the first five ranks above every stale match."""
    current, stale = set(answer.question.evidence), set(answer.question.stale)
    for matched in answer.matches[:TOP]:
        if matched & stale:
            return False
        if matched & current:
            return True
    return False


def _stale_shown(answer: Answer) -> bool:
    stale = set(answer.question.stale)
    return any(matched & stale for matched in answer.matches)


def _rate(answers: list[Answer], test: Any) -> float | None:
    return _mean([float(test(a)) for a in answers])


def _mean(values: list[float] | list[int]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


# ---------------------------------------------------------------------------------------------
# Running


def run(
    *,
    data: Path,
    config: Config,
    store_dir: Path | None = None,
    paths: tuple[str, ...] = PATHS,
    progress: bool = True,
    calibrate: bool = False,
) -> dict[str, Any]:
    """Build, ask and score every persona on each path; returns a JSON-ready report (with
    ``calibrate``, also the gate sweep of api.gate_calibration)."""
    personas = load(data)
    embedder = make_embedder(config.embedder)  # one model for every persona's store
    report: dict[str, Any] = {
        "dataset": "personal",
        "data": str(data_file(data)),
        "personas": len(personas),
        "started": format_time(datetime.now(UTC)),
        "embedder": str(embedder.identity),
    }
    by_path: dict[str, list[list[Answer]]] = {}  # each path's answers, persona by persona
    with tempfile.TemporaryDirectory(prefix="agent-memory-personal-") as scratch:
        where = store_dir or Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        for path in paths:
            answers: list[Answer] = []
            stored: list[int] = []
            by_path[path] = []
            for persona in tqdm(personas, desc=path, unit="persona", disable=not progress):
                with persona_store(
                    persona, path, store_dir=where, config=config, embedder=embedder
                ) as mem:
                    stored.append(mem.stats()["records"])
                    by_path[path].append(ask(mem, persona, path))
                    answers += by_path[path][-1]
            report[path] = metrics(answers) | {"records_per_persona": _mean(stored)}
    if calibrate:
        from agent_memory.api.gate_calibration import calibrate_small_store_drop

        report["calibration"] = calibrate_small_store_drop(by_path, config.gate)
    report["finished"] = format_time(datetime.now(UTC))
    return report


def summary(report: dict[str, Any]) -> str:
    """The report as a few readable lines."""
    lines = [f"personal memory: {report['personas']} personas, {report['embedder']}"]
    for path in PATHS:
        if path not in report:
            continue
        m = report[path]
        a = m["answerable"]
        lines += [
            f"{path}: hit@5 {a['hit@5']}, recall@5 {a['recall@5']}, answerable answered empty "
            f"{a['empty']} (n {a['n']}); unanswerable empty {m['unanswerable_empty']}, "
            f"unanswerable_near empty {m['unanswerable_near_empty']}",
            f"    updates: current first {m['update_current_first']}, stale shown "
            f"{m['update_stale_shown']}; mean result {m['result_chars']} chars compact, "
            f"{m['full_result_chars']} full (content {m['content_chars']}); "
            f"{m['records_per_persona']} records per persona",
        ]
        for kind, values in m["by_kind"].items():
            lines.append(f"    {kind:<18} " + ", ".join(f"{k} {v}" for k, v in values.items()))
    if "calibration" in report:
        chosen = report["calibration"]["chosen"]
        lines.append(
            f"calibration: small_store_drop {chosen['small_store_drop']} chosen (a small-store "
            f"dense floor of {chosen['small_dense_floor']}; configured "
            f"{report['calibration']['configured']}); objective "
            f"{chosen['objective/choose']} on the odd personas, {chosen['objective/report']} "
            "on the others"
        )
    return "\n".join(lines)

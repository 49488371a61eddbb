"""The personal-memory data set as the personal evaluation reads it (api.evaluation.personal).

Everyday chats of one user with an assistant (personal-memory-dev.json; its README gives the
format and the scoring), or a LongMemEval file read as one user per question: the data model
(a persona's sessions and labelled questions, the answer a search gave) and the loaders.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agent_memory.core.models import parse_time

FILE_NAME = "personal-memory-dev.json"
TURN_STEP = timedelta(minutes=2)
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
    # For each result that is a session summary, the labelled turns matched by the records it
    # restates (their content, whatever their status, inside its text); empty for the others.
    restated: tuple[frozenset[str], ...] = ()


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

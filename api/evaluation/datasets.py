"""LoCoMo and LongMemEval as the retrieval evaluation reads them (api.evaluation.retrieval).

The data model (a turn, a labelled question, a data set, the answer a search gave), the loaders,
which only translate each data set's file format (nothing here knows anything about particular
conversations), and the shapes a conversation is imported in: a record per turn through the
product's conversation import (``Memory.import_conversation``), or one per session.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from agent_memory.core.models import format_time
from agent_memory.core.write.conversation import turn_records as conversation_records
from agent_memory.core.write.conversation import validate_turns

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


@dataclass(slots=True)
class Answer:
    """What memory_search returned for one question (api.evaluation.retrieval.ask)."""

    question: Question
    refs: list[str]  # source_refs of the results, best first
    searched_in: str
    latency_ms: float
    candidates: dict[str, Any]
    # source_refs of every candidate the generators found (each generator's best
    # retrieval.candidates_per_generator), before the gate, duplicate collapse and the limit.
    # Evidence missing here is evidence no reordering of the candidates could return.
    found: frozenset[str]


# ---------------------------------------------------------------------------------------------
# Loaders


def load_locomo(path: Path) -> Dataset:
    data = json.loads(path.read_text())
    dataset = Dataset("locomo", speakers_are_people=True)
    for conversation in data:
        key = scope_key(conversation["sample_id"])
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
        key = scope_key(item["question_id"])
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


def scope_key(raw: str) -> str:
    """A data set's id as the library accepts it in a scope or session id."""
    return re.sub(r"[^A-Za-z0-9_.@+=-]", "-", raw)[:128]


def _normal_dia_id(raw: str) -> str:
    m = re.fullmatch(r"D:?(\d+):0*(\d+)", raw.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else raw.strip()


def _locomo_date(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _longmemeval_date(text: str) -> datetime:
    return datetime.strptime(text.split(" (")[0] + text[-6:], "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


# ---------------------------------------------------------------------------------------------
# The shapes a conversation is imported in


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

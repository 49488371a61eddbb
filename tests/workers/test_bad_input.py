"""One bad input never fails a job, and a stage's error never holds the session's words.

Through the worker app in Huey's immediate mode, with the real offline backend or a model
backend standing in for one that answers badly."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from huey import signals
from structlog.testing import capture_logs

from agent_memory.core import Config, Memory
from agent_memory.core.extraction import ExtractionOutput, ReviewOutput, SummaryOutput
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import (
    Candidate,
    ReviewRequest,
    SessionView,
    SummaryRequest,
)
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW
from tests.support.stores import granted_memory

CONFIG = Config(worker={"retry_delay_seconds": 0, "max_attempts": 2})
CITIES = " and ".join(f"Cityname{i}" for i in range(250))
# The code holds a letter no timestamp, process id or hex id can: "4417" was found in a
# timestamp's microseconds ("22:17:07.314417Z") and failed the check below by chance.
CODE = "44K7"
SECRET = f"my locker code is {CODE} behind the blue door"


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db", CONFIG) as memory:
        yield memory


def converse(mem: Memory, turns: list[str], session_id: str = "s1") -> str:
    s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=NOW)
    for i, text in enumerate(turns):
        s.add_turn("user", text, at=NOW + timedelta(seconds=i))
    return s.end(now=NOW + timedelta(minutes=5))


def contents(mem: Memory) -> list[str]:
    return [r["content"] for r in mem.store.query("SELECT content FROM records")]


def test_a_turn_listing_250_cities_does_not_cost_the_rest_of_the_session(mem: Memory) -> None:
    """The offline extractor meets a plan too long for the schema: that one candidate is
    dropped, the unrelated facts and the summary are written, the job is done."""
    WorkerApp(mem.path, CONFIG, immediate=True, backend=OfflineBackend()).attach(mem)
    job_id = converse(
        mem,
        [
            "I'm vegetarian.",
            f"I will visit {CITIES} next month.",
            "My favourite colour is blue.",
        ],
    )
    status = mem.jobs.status(job_id)
    assert status["status"] == "done", status["last_error"]
    stored = contents(mem)
    assert any("vegetarian" in c for c in stored) and any("blue" in c for c in stored)
    summaries = mem.store.query("SELECT 1 FROM records WHERE source_kind = 'session_summary'")
    assert len(summaries) == 1


class Model(OfflineBackend):
    """A model backend answering with raw candidates, or failing with what it read."""

    name = "model"

    def __init__(self, raw: list[dict[str, Any]], fail_with: Exception | None = None) -> None:
        super().__init__()
        self.raw = raw
        self.fail_with = fail_with

    def extract(self, session: SessionView) -> ExtractionOutput:
        return ExtractionOutput.model_validate({"candidates": self.raw})

    def review(self, request: ReviewRequest) -> ReviewOutput:
        if self.fail_with is not None:
            raise self.fail_with
        return super().review(request)

    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        return SummaryOutput(summary="The user talked about food.")


def fact(content: str, evidence: str) -> dict[str, Any]:
    return {
        "kind": "fact",
        "type": "semantic",
        "content": content,
        "evidence": evidence,
        "source_kind": "user_statement",
    }


def test_a_candidate_the_schema_refuses_is_dropped_and_counted(mem: Memory) -> None:
    """A model answer with one overlong candidate keeps the others; the extract stage's
    output counts the one dropped."""
    raw = [
        fact("The user visits " + CITIES + ".", f"I will visit {CITIES}"),
        fact("The user is vegetarian.", "I'm vegetarian"),
    ]
    WorkerApp(mem.path, CONFIG, immediate=True, backend=Model(raw)).attach(mem)
    job_id = converse(mem, ["I'm vegetarian, by the way.", f"I will visit {CITIES} soon."])
    status = mem.jobs.status(job_id)
    extract = status["stages"][0]["output"]
    assert status["status"] == "done"
    assert extract["dropped_invalid"] == 1 and len(extract["candidates"]) == 1
    assert "The user is vegetarian." in contents(mem)


@pytest.mark.parametrize(
    "failure",
    [
        ValueError(f"could not parse the turn {SECRET!r}"),
        "validation",
        KeyError(CODE),  # one word of the turn is the secret
        ValueError(f"the model answered: the code of the Locker is {CODE}"),  # in other words
    ],
)
def test_a_stage_error_never_holds_the_sessions_words(mem: Memory, failure: object) -> None:
    """A reviewer failing with the session's text in its message (a parser quoting the line,
    a schema error echoing its input) leaves the job's error, its history and the logs
    without that text, but with the kind of error."""
    if failure == "validation":
        try:
            Candidate.model_validate({**fact(SECRET * 80, SECRET), "kind": "fact"})
        except Exception as exc:  # a pydantic ValidationError, with the input in its text
            failure = exc
    assert isinstance(failure, Exception) and CODE in str(failure)
    raw = [fact("The user has a locker.", SECRET)]
    WorkerApp(mem.path, CONFIG, immediate=True, backend=Model(raw, failure)).attach(mem)
    with capture_logs() as logs:
        job_id = converse(mem, [f"Remember: {SECRET}."])
    status = mem.jobs.status(job_id)
    kept = json.dumps([status["last_error"], status["history"], status["stages"][1], logs])
    assert status["status"] == "failed"
    assert type(failure).__name__ in status["last_error"]
    assert CODE.lower() not in kept.lower() and "locker" not in kept


def test_an_error_huey_reports_is_logged_by_its_kind_not_its_words(mem: Memory) -> None:
    """An exception other than the pipeline's scrubbed ExtractionError reaching Huey (a task
    failing outside a stage) is logged by its type only: its message may quote the session."""
    app = WorkerApp(mem.path, CONFIG, immediate=True, backend=Model([]))
    task = SimpleNamespace(name="stage_review", id="t1", args=("job_1",))
    with capture_logs() as logs:
        app.huey._emit(signals.SIGNAL_ERROR, task, ValueError(f"could not parse {SECRET!r}"))
    [logged] = [e for e in logs if e["event"] == "worker.task"]
    assert logged["error"] == "ValueError"
    assert CODE.lower() not in json.dumps(logs).lower()

"""OpenTelemetry spans of the tool calls and extraction stages, read with the SDK's in-memory
exporter (the host's side of the seam: the library itself only uses the API)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agent_memory.core import Config, Memory
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW
from tests.support.stores import granted_memory

SECRET = "I keep my spare key under the blue flowerpot"
MOVED = "Update: I keep my spare key in the garage now"

# The global tracer provider can be set once per process: one provider and exporter for the
# module, emptied before each test.
_EXPORTER = InMemorySpanExporter()


@pytest.fixture(autouse=True)
def exporter() -> Iterator[InMemorySpanExporter]:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def _spans(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == name]


WRITE = {
    "type": "semantic",
    "content": "The user keeps a spare key under the blue flowerpot.",
    "source_kind": "user_statement",
    "evidence": SECRET,
}


def _session_with_a_fact(mem: Memory) -> Any:
    session = mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    session.add_turn("user", SECRET + ".", at=NOW)
    session.add_turn("user", MOVED + ".", at=NOW)
    return session


def _everything_said(span: ReadableSpan) -> str:
    values = [str(v) for v in (span.attributes or {}).values()]
    for event in span.events:
        values.append(event.name)
        values.extend(str(v) for v in (event.attributes or {}).values())
    return json.dumps(values)


def test_each_tool_call_is_one_span_named_after_the_genai_memory_operation(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    with granted_memory(tmp_path / "m.db") as mem:
        session = _session_with_a_fact(mem)
        written = session.call(
            "memory_write",
            WRITE,
            now=NOW,
        )
        found = session.call("memory_search", {"query": "where is the spare key"}, now=NOW)
        session.call("memory_get", {"ids": [written["id"]]}, now=NOW)
        revised = session.call(
            "memory_revise",
            {
                "id": written["id"],
                "action": "correct",
                "content": "The user keeps the spare key in the garage now.",
                "evidence": MOVED.removeprefix("Update: "),
                "source_kind": "user_statement",
            },
            now=NOW,
        )
        session.call("memory_forget", {"id": revised["id"], "reason": "user asked"}, now=NOW)

    (write,) = _spans(exporter, "upsert_memory")
    attributes = dict(write.attributes or {})
    assert attributes["gen_ai.operation.name"] == "upsert_memory"
    assert attributes["gen_ai.provider.name"] == "agent_memory"
    assert attributes["gen_ai.memory.store.id"] == "m.db"
    assert attributes["gen_ai.agent.id"] == "assistant"
    assert attributes["gen_ai.conversation.id"] == "s1"
    assert attributes["gen_ai.memory.record.id"] == written["id"]
    assert write.kind is trace.SpanKind.INTERNAL
    # The write's stages, from the one stage timer, in the order they ran.
    stages = [event.name for event in write.events]
    assert stages[0] == "evidence_validation" and "sqlite_transaction" in stages
    assert all(e.attributes["agent_memory.stage.duration_ms"] >= 0 for e in write.events)

    (search,) = _spans(exporter, "search_memory")
    assert search.attributes["gen_ai.memory.record.count"] == len(found["results"]) >= 1
    assert written["id"] in search.attributes["agent_memory.record.ids"]
    assert search.attributes["agent_memory.search_id"] == found["search_id"]
    searched = [event.name for event in search.events]
    assert searched[:2] == ["query_rewrite", "scope_resolution"] and "dense_candidates" in searched
    (get,) = _spans(exporter, "get_memory")
    assert get.attributes["gen_ai.memory.record.count"] == 1
    (revise,) = _spans(exporter, "update_memory")
    assert revise.attributes["gen_ai.memory.record.id"] == revised["id"]
    (forget,) = _spans(exporter, "delete_memory")
    assert forget.attributes["gen_ai.memory.record.id"] == revised["id"]

    # No content unless the host opts in: neither the query nor the record's words.
    for span in exporter.get_finished_spans():
        said = _everything_said(span)
        assert "flowerpot" not in said and "spare key" not in said and "garage" not in said


def test_content_is_attached_only_when_the_host_opts_in(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    config = Config(tracing={"capture_content": True, "store_id": "alice-prefs"})
    with granted_memory(tmp_path / "m.db", config) as mem:
        session = _session_with_a_fact(mem)
        session.call(
            "memory_write",
            WRITE,
            now=NOW,
        )
        session.call("memory_search", {"query": "where is the spare key"}, now=NOW)
    (search,) = _spans(exporter, "search_memory")
    assert search.attributes["gen_ai.memory.store.id"] == "alice-prefs"
    assert search.attributes["gen_ai.memory.query.text"] == "where is the spare key"
    records = json.loads(str(search.attributes["gen_ai.memory.records"]))
    assert "flowerpot" in records[0]["content"] and records[0]["id"]


def test_a_refused_call_marks_its_span_as_an_error_with_the_tool_error_code(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    with granted_memory(tmp_path / "m.db") as mem:
        session = _session_with_a_fact(mem)
        answer = session.call("memory_forget", {"id": "rec_missing", "reason": "x"}, now=NOW)
    (span,) = _spans(exporter, "delete_memory")
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == answer["error"]["code"] == "not_found"


def test_each_extraction_stage_is_a_span_holding_the_writes_it_made(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    config = Config(worker={"retry_delay_seconds": 0})
    with granted_memory(tmp_path / "m.db", config) as mem:
        WorkerApp(mem.path, config, immediate=True, backend=OfflineBackend()).attach(mem)
        session = _session_with_a_fact(mem)
        session.add_turn("user", "I'm vegetarian, by the way.", at=NOW + timedelta(seconds=1))
        job_id = session.end(now=NOW + timedelta(minutes=5))

    stages = [s for s in exporter.get_finished_spans() if s.name.startswith("extraction ")]
    names = [s.name for s in stages]
    assert names[:2] == ["extraction extract", "extraction review"], names
    assert all(s.attributes["agent_memory.job.id"] == job_id for s in stages)
    assert all(s.attributes["gen_ai.memory.store.id"] == "m.db" for s in stages)
    # The stage's own steps come from the one stage timer, like a search's or a write's.
    assert [event.name for event in stages[0].events][:2] == ["transcript_preparation", "model"]
    for span in stages:
        assert "flowerpot" not in _everything_said(span)

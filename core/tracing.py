"""OpenTelemetry spans for the memory tools and the extraction stages.

Only the OpenTelemetry *API* is used: without an SDK configured by the host every call here is
a no-op of a few microseconds, and nothing is exported. A host that installs the SDK and sets a
tracer provider sees one span per tool call and per extraction stage.

Names and attributes follow the GenAI memory semantic conventions (span type
``gen_ai.memory.client``, development status): the span is named after
``gen_ai.operation.name``, of kind INTERNAL (the store runs in the caller's process), with

- ``gen_ai.operation.name``: ``search_memory`` (memory_search), ``upsert_memory``
  (memory_write: it may create, reinforce or supersede without the caller choosing which, the
  convention's definition of upsert), ``update_memory`` (memory_revise), ``delete_memory``
  (memory_forget), and the custom value ``get_memory`` (memory_get, which no listed value fits);
- ``gen_ai.provider.name`` ``agent_memory``; ``gen_ai.memory.store.id`` (config
  ``tracing.store_id``, by default the store file's name); ``gen_ai.agent.id`` and
  ``gen_ai.conversation.id`` (the session);
- ``gen_ai.memory.record.id`` (the record written, revised, forgotten or read) and
  ``gen_ai.memory.record.count`` (records returned or read);
- ``error.type``: the tool's error code, with the span's status ERROR.

Content never enters a span unless the host opts in (``tracing.capture_content``): then the
query (``gen_ai.memory.query.text``) and the returned records (``gen_ai.memory.records``, id,
content and score as JSON) are attached, as the conventions' opt-in attributes.

The stages of a search, a write and an extraction stage (core.timing.StageTimer) become span
events named after the stage, with ``agent_memory.stage.duration_ms``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agent_memory.core import timing

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine

TRACER_NAME = "agent_memory"
PROVIDER = "agent_memory"

OPERATIONS: Mapping[str, str] = {
    "memory_search": "search_memory",
    "memory_write": "upsert_memory",
    "memory_revise": "update_memory",
    "memory_forget": "delete_memory",
    "memory_get": "get_memory",
}


def store_id(engine: Engine) -> str:
    """``gen_ai.memory.store.id`` of the engine's store: the setting, else the file's name."""
    return engine.config.tracing.store_id or engine.store.path.name


def _tracer() -> trace.Tracer:
    # Looked up per call, not at import: a host may set its tracer provider after importing us.
    return trace.get_tracer(TRACER_NAME)


def _stage_events(span: Span) -> timing.StageObserver:
    """A StageTimer observer that records each finished stage as an event on ``span``."""

    def observe(name: str, started: float, duration_ms: float) -> None:
        # Heard as the stage ends, so the SDK's own timestamp (now) is the stage's end.
        span.add_event(name, {"agent_memory.stage.duration_ms": round(duration_ms, 3)})

    return observe


class ToolSpan:
    """What a tool call reports to its span once it has an answer."""

    __slots__ = ("_capture", "_span")

    def __init__(self, span: Span, capture_content: bool) -> None:
        self._span = span
        self._capture = capture_content

    def query(self, text: str) -> None:
        if self._capture and self._span.is_recording():
            self._span.set_attribute("gen_ai.memory.query.text", text)

    def finish(self, result: Mapping[str, Any]) -> None:
        """Attach the answer's record ids and counts (content only when opted in); an error
        answer sets ``error.type`` and the ERROR status."""
        span = self._span
        if not span.is_recording():
            return
        error = result.get("error")
        if isinstance(error, Mapping):
            code = str(error.get("code", "error"))
            span.set_attribute("error.type", code)
            span.set_status(Status(StatusCode.ERROR, code))
            return
        records = result.get("results", result.get("records"))
        if isinstance(records, list):
            span.set_attribute("gen_ai.memory.record.count", len(records))
            ids = [str(r["id"]) for r in records if isinstance(r, Mapping) and "id" in r]
            if ids:
                span.set_attribute("agent_memory.record.ids", ids)
            if self._capture:
                span.set_attribute("gen_ai.memory.records", json.dumps(_record_content(records)))
        if "id" in result:
            span.set_attribute("gen_ai.memory.record.id", str(result["id"]))
            span.set_attribute("gen_ai.memory.record.count", 1)
        for key in ("action", "status"):
            if isinstance(result.get(key), str):
                span.set_attribute(f"agent_memory.{key}", result[key])
        if isinstance(result.get("search_id"), str):
            span.set_attribute("agent_memory.search_id", result["search_id"])


def _record_content(records: list[Any]) -> list[dict[str, Any]]:
    shown = []
    for record in records:
        if isinstance(record, Mapping):
            shown.append({k: record[k] for k in ("id", "content", "score") if k in record})
    return shown


@contextmanager
def _span(name: str, attributes: dict[str, Any]) -> Iterator[Span]:
    """An INTERNAL span made current for the block. An exception marks it ERROR with the
    exception's type as ``error.type`` and nothing of its message, which may quote a user."""
    with _tracer().start_as_current_span(
        name,
        kind=SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except BaseException as exc:
            span.set_attribute("error.type", type(exc).__name__)
            span.set_status(Status(StatusCode.ERROR))
            raise


@contextmanager
def tool_span(
    tool: str,
    *,
    store_id: str,
    agent_id: str,
    session_id: str,
    capture_content: bool = False,
) -> Iterator[ToolSpan]:
    """A span around one memory tool call; the stages timed inside it become its events."""
    operation = OPERATIONS.get(tool, tool)
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.memory.store.id": store_id,
        "gen_ai.agent.id": agent_id,
        "gen_ai.conversation.id": session_id,
        "agent_memory.tool.name": tool,
    }
    with _span(operation, attributes) as span:
        handle = ToolSpan(span, capture_content)
        if not span.is_recording():
            yield handle
            return
        with timing.observing(_stage_events(span)):
            yield handle


@contextmanager
def stage_span(stage: str, *, job_id: str, attempt: int, store_id: str) -> Iterator[None]:
    """A span around one extraction stage of one job; its memory writes nest inside it."""
    attributes: dict[str, Any] = {
        "gen_ai.provider.name": PROVIDER,
        "gen_ai.memory.store.id": store_id,
        "agent_memory.job.id": job_id,
        "agent_memory.job.stage": stage,
        "agent_memory.job.attempt": attempt,
    }
    with _span(f"extraction {stage}", attributes) as span:
        if not span.is_recording():
            yield
            return
        with timing.observing(_stage_events(span)):
            yield

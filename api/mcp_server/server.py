"""The MCP server: the memory tools over the official ``mcp`` SDK's low-level ``Server``.

A thin layer over the host API (``api.host.MemoryHost``, which runs ``Session.call`` and
gives the model-facing form of each result, ``core.compact``). Nothing here decides
behaviour: it resolves who is calling, finds that caller's memory session, runs the call in a
worker thread (the core is synchronous) and wraps the answer as an MCP tool result.

- Tools: the five memory tools with the JSON Schemas every adapter uses
  (``core.tools.schemas``), output schemas and annotations; in ``auto`` mode memory_search
  is not offered (design §7). Plus ``memory_add_turns``, a host-facing tool (see below).
- Results: exactly the model-facing answer, as JSON text content and as structuredContent.
  Every error a caller can cause is a tool result with ``isError`` and ``{"error": {"code",
  "message", "field"?}}``; never a traceback.
- Identity: bound by the server, never taken from tool arguments: from the command line over
  stdio, from the bearer token over HTTP (``api.mcp_server.tokens``).
- Sessions: a memory session per caller and transport session, started on its first call.
  Over stdio it is the process: it ends at EOF or SIGTERM/SIGINT. Over HTTP it is keyed by
  the token's binding, the user and the ``Mcp-Session-Id`` (none for the 2026 protocol's
  sessionless requests, which share one per token and user); it ends when the client ends
  its MCP session (DELETE) or the server stops, and the worker's idle sweep ends one a
  client abandoned. Ending a session with turns enqueues its extraction; the job id is
  logged on stderr (``mcp.session_ended``). A session with no turns is closed without a job.

``memory_add_turns`` records transcript turns (``{"turns": [{"role", "content", "at"?,
"tool"?}]}``) so that ``memory_write`` can quote them as evidence and extraction reads them at
the end. In ``auto`` and ``hybrid`` modes each user turn also runs the host's search, and the
answer's ``memory`` lists the non-empty results to show the model. It is meant for the host
(the client application), not the model: a model that can call it can put words in the
user's mouth and then quote them, so the tool is offered only when the operator starts the
server with ``--add-turns`` (a host that records its conversation itself). Without it writes
quote no transcript and are stored as agent_inference, which is honest.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_memory.api.host import Identity, MemoryHost
from agent_memory.api.mcp_server.tokens import USER_HEADER, Binding, TokenTable
from agent_memory.core.errors import (
    AgentMemoryError,
    InvalidArgument,
    PermissionDenied,
    internal_tool_error,
)
from agent_memory.core.logging import get_logger
from agent_memory.core.memory import Memory
from agent_memory.core.models import parse_time
from agent_memory.core.search.explain import model_text
from agent_memory.core.session import Session
from agent_memory.core.tools import TRIGGER_MODES, TriggerMode, memory_policy

log = get_logger("agent_memory.mcp")

ADD_TURNS = "memory_add_turns"
SESSION_HEADER = "mcp-session-id"

_READ = types.ToolAnnotations(
    read_only_hint=True, idempotent_hint=True, destructive_hint=False, open_world_hint=False
)
ANNOTATIONS: dict[str, types.ToolAnnotations] = {
    "memory_search": _READ.model_copy(update={"title": "Search memory"}),
    "memory_get": _READ.model_copy(update={"title": "Get memory records"}),
    "memory_write": types.ToolAnnotations(
        title="Write a memory",
        read_only_hint=False,
        destructive_hint=False,  # additive: a superseded record stays in the history
        idempotent_hint=False,
        open_world_hint=False,
    ),
    "memory_revise": types.ToolAnnotations(
        title="Revise a memory",
        read_only_hint=False,
        destructive_hint=True,  # merge_entities re-points records; not undone by a call
        idempotent_hint=False,
        open_world_hint=False,
    ),
    "memory_forget": types.ToolAnnotations(
        title="Forget a memory",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=True,
        open_world_hint=False,
    ),
    ADD_TURNS: types.ToolAnnotations(
        title="Record conversation turns (host)",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=False,
        open_world_hint=False,
    ),
}

_OBJECTS = {"type": "array", "items": {"type": "object"}}
_TEXT_OR_NULL = {"type": ["string", "null"]}


def _object(required: Iterable[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(required)}


# What each tool answers when it succeeds (an error is an isError result, not validated).
# Loose where the contract leaves room: extra fields are allowed everywhere.
OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "memory_search": _object(
        ["results"],
        results=_OBJECTS,
        search_id=_TEXT_OR_NULL,
        reason={"type": "string"},
        explanation={"type": "object"},
    ),
    "memory_get": _object(
        ["records", "missing"],
        records=_OBJECTS,
        missing={"type": "array", "items": {"type": "string"}},
    ),
    "memory_write": _object(
        ["id", "action"],
        id={"type": "string"},
        action={"type": "string"},
        status={"type": "string"},
        source_kind={"type": "string"},
        supersedes_id=_TEXT_OR_NULL,
        notes={"type": "array", "items": {"type": "string"}},
    ),
    "memory_revise": _object(
        ["id", "action"],
        id={"type": "string"},
        action={"type": "string"},
        supersedes_id=_TEXT_OR_NULL,
    ),
    "memory_forget": _object(["id", "status"], id={"type": "string"}, status={"type": "string"}),
    ADD_TURNS: _object(
        ["session_id", "turns"],
        session_id={"type": "string"},
        turns={"type": "array", "items": {"type": "integer"}},
        memory=_OBJECTS,
    ),
}


class TurnArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    role: Literal["user", "assistant", "tool", "system"]
    content: str = Field(max_length=100_000, description="The turn's text, verbatim.")
    at: str | None = Field(None, description="When it was said (ISO 8601); default now.")
    tool: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="On a tool turn, the tool whose output it is; on an assistant turn, the "
        "tool the model called (content: its arguments).",
    )


class AddTurnsArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    turns: list[TurnArgs] = Field(min_length=1, max_length=200, description="In order.")


ADD_TURNS_DESCRIPTION = (
    "For the host application, not the model: record conversation turns in this memory "
    "session, so that memory_write can quote them as evidence and the session's extraction "
    "reads them when it ends. In auto and hybrid modes each user turn also searches memory; "
    "'memory' lists the non-empty results to show the model."
)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who one request acts for, and which of its memory sessions it belongs to."""

    binding: Binding
    user_id: str
    transport_session: str | None

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.binding.name, self.user_id, self.transport_session)


class MemoryServer:
    """The state behind the MCP handlers: one ``Memory``, a ``MemoryHost`` per trigger mode,
    and the open memory sessions. Thread-safe (handlers run the core in worker threads)."""

    def __init__(
        self,
        memory: Memory,
        *,
        mode: TriggerMode,
        stdio: Binding | None = None,
        tokens: TokenTable | None = None,
        add_turns: bool = False,
        authoritative_tools: Iterable[str] = (),
    ) -> None:
        if (stdio is None) == (tokens is None):
            raise ValueError("give exactly one of stdio (a binding) and tokens")
        self.memory = memory
        self.mode = mode
        self.stdio = stdio
        self.tokens = tokens
        self.add_turns = add_turns
        tools = tuple(authoritative_tools)
        self._hosts = {
            m: MemoryHost(memory, mode=m, authoritative_tools=tools) for m in TRIGGER_MODES
        }
        self._sessions: dict[tuple[str, str, str | None], tuple[MemoryHost, Session]] = {}
        self._lock = threading.Lock()
        self._tools: dict[TriggerMode, list[types.Tool]] = {}

    # -- the MCP handlers ----------------------------------------------------------------------

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools(self._binding(ctx)))

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            caller = self._caller(ctx)
        except InvalidArgument as exc:
            return tool_result(exc.as_tool_error())
        arguments = params.arguments if params.arguments is not None else {}
        result = await anyio.to_thread.run_sync(self.call, caller, params.name, arguments)
        return tool_result(result)

    # -- what they run ---------------------------------------------------------------------------

    def tools(self, binding: Binding) -> list[types.Tool]:
        """The tools of ``binding``'s trigger mode: static, so built once per mode."""
        mode = binding.mode or self.mode
        if mode not in self._tools:
            definitions = self._hosts[mode].definitions()
            if self.add_turns:
                definitions.append(
                    {
                        "name": ADD_TURNS,
                        "description": ADD_TURNS_DESCRIPTION,
                        "input_schema": AddTurnsArgs.model_json_schema(),
                    }
                )
            self._tools[mode] = [
                types.Tool(
                    name=d["name"],
                    description=d["description"],
                    input_schema=d["input_schema"],
                    output_schema=OUTPUT_SCHEMAS[d["name"]],
                    annotations=ANNOTATIONS[d["name"]],
                )
                for d in definitions
            ]
        return list(self._tools[mode])

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """A tool's input schema by name, whatever the mode (for the SDK's header checks on
        the 2026 HTTP protocol, which would otherwise list the tools for every call)."""
        for mode in TRIGGER_MODES:
            for tool in self.tools(Binding("", "", ("",), None, mode)):
                if tool.name == name:
                    return tool.input_schema
        return None

    def call(self, caller: Caller, name: str, arguments: Any) -> dict[str, Any]:
        """One tool call for ``caller``, answered as data (never raises)."""
        try:
            host, session = self._session(caller)
            if name == ADD_TURNS and self.add_turns:
                return self._add_turns(host, session, arguments)
            return host.call(session, name, arguments)
        except InvalidArgument as exc:
            return exc.as_tool_error()
        except AgentMemoryError as exc:
            log.warning("mcp.call_failed", tool=_known(name), error=type(exc).__name__)
            return {"error": {"code": "unavailable", "message": "the memory store is unavailable"}}
        except Exception:
            log.exception("mcp.call_failed", tool=_known(name))
            return internal_tool_error()

    def _add_turns(self, host: MemoryHost, session: Session, arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            return {"error": {"code": "invalid_argument", "message": "arguments must be an object"}}
        try:
            args = AddTurnsArgs.model_validate(arguments)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            return {
                "error": {
                    "code": "invalid_argument",
                    "message": f"{where}: {first['msg']}",
                    "field": where,
                }
            }
        turns = [(t, parse_time(t.at, field="at") if t.at else None) for t in args.turns]
        seqs: list[int] = []
        shown: list[dict[str, Any]] = []
        for turn, at in turns:
            if turn.role == "user":
                auto = host.user_turn(session, turn.content, at=at)
                seqs.append(session.transcript(last=1)[0].seq)
                if auto is not None:
                    shown.append(
                        {
                            "call_id": auto.call_id,
                            "arguments": auto.arguments,
                            "result": auto.result,
                        }
                    )
            elif turn.role == "assistant" and turn.tool is not None:
                seqs.append(host.tool_call(session, turn.tool, turn.content, at=at))
            elif turn.role == "assistant":
                seqs.append(host.assistant_turn(session, turn.content, at=at))
            elif turn.role == "tool":
                seqs.append(host.tool_turn(session, turn.content, at=at, tool=turn.tool))
            else:
                seqs.append(session.add_turn(turn.role, turn.content, at=at, tool=turn.tool))
        answer: dict[str, Any] = {"session_id": session.session_id, "turns": seqs}
        if host.mode != "tool_only":
            answer["memory"] = shown
        return answer

    # -- sessions --------------------------------------------------------------------------------

    def _session(self, caller: Caller) -> tuple[MemoryHost, Session]:
        with self._lock:
            found = self._sessions.get(caller.key)
            if found is not None and not found[1].ended:
                return found
            # First call of this caller, or its session was ended by the worker's idle sweep.
            host = self._hosts[caller.binding.mode or self.mode]
            identity = Identity(
                agent_id=caller.binding.agent_id,
                user_id=caller.user_id,
                session_id=f"mcp-{uuid.uuid4().hex}",
                write_targets=caller.binding.targets_for(caller.user_id),
            )
            session = host.start(identity)
            self._sessions[caller.key] = (host, session)
            log.info(
                "mcp.session_started",
                session_id=session.session_id,
                agent_id=identity.agent_id,
                credential=caller.binding.name,
            )
            return host, session

    def end_transport_session(self, transport_session: str) -> list[str]:
        """The client ended its MCP session: end the memory sessions it held."""
        with self._lock:
            keys = [key for key in self._sessions if key[2] == transport_session]
            closing = [self._sessions.pop(key) for key in keys]
        return [job for host, session in closing if (job := _close(host, session)) is not None]

    def close_all(self) -> list[str]:
        """Server shutdown (stdio EOF, a signal, HTTP shutdown): end every open session."""
        with self._lock:
            closing = list(self._sessions.values())
            self._sessions.clear()
        return [job for host, session in closing if (job := _close(host, session)) is not None]

    # -- identity ----------------------------------------------------------------------------------

    def _binding(self, ctx: ServerRequestContext[Any]) -> Binding:
        """The credential's binding: the command line's (stdio) or the bearer token's."""
        if self.stdio is not None:
            return self.stdio
        assert self.tokens is not None
        scope = getattr(ctx.request, "scope", None)
        user = scope.get("user") if isinstance(scope, dict) else None
        token = user.access_token if isinstance(user, AuthenticatedUser) else get_access_token()
        binding = self.tokens.bindings.get(token.client_id) if token is not None else None
        if binding is None:  # the bearer middleware refuses such a request before it gets here
            raise PermissionDenied("no valid bearer token", field="authorization")
        return binding

    def _caller(self, ctx: ServerRequestContext[Any]) -> Caller:
        binding = self._binding(ctx)
        if self.stdio is not None:
            return Caller(binding, binding.users[0], None)
        headers = getattr(ctx.request, "headers", None)
        requested = headers.get(USER_HEADER) if headers is not None else None
        transport = headers.get(SESSION_HEADER) if headers is not None else None
        return Caller(binding, binding.user(requested), transport)


def _close(host: MemoryHost, session: Session) -> str | None:
    """End one memory session: extraction is enqueued (its job id logged and returned), or,
    for a session without a turn, it is closed with nothing to extract."""
    try:
        if not session.transcript(last=1):
            session.close_unused()
            log.info("mcp.session_closed", session_id=session.session_id, turns=0)
            return None
        job_id = host.end(session)
    except AgentMemoryError as exc:
        log.warning(
            "mcp.session_not_ended", session_id=session.session_id, error=type(exc).__name__
        )
        return None
    log.info("mcp.session_ended", session_id=session.session_id, job_id=job_id)
    return job_id


def _known(name: Any) -> str:
    """A tool name safe to log (a model may send anything as a name)."""
    return name if isinstance(name, str) and (name in ANNOTATIONS) else "(other)"


def tool_result(data: dict[str, Any]) -> types.CallToolResult:
    """A tool's answer as MCP wants it: JSON text for any client, structuredContent for
    clients that read it, and isError for an error answer."""
    text = model_text(data)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=data,
        is_error="error" in data,
    )


def build_server(state: MemoryServer) -> Server[MemoryServer]:
    """The SDK ``Server`` for ``state``; its lifespan ends every memory session at exit."""

    @asynccontextmanager
    async def lifespan(_server: Server[MemoryServer]) -> AsyncIterator[MemoryServer]:
        try:
            yield state
        finally:
            # Blocking on purpose: this runs once, at shutdown, possibly under cancellation.
            state.close_all()

    return Server(
        "agent-memory",
        version="0.1.0",
        instructions=memory_policy(state.mode),
        lifespan=lifespan,
        get_tool_input_schema=state.input_schema,
        on_list_tools=state.list_tools,
        on_call_tool=state.call_tool,
    )


__all__ = [
    "ADD_TURNS",
    "ANNOTATIONS",
    "OUTPUT_SCHEMAS",
    "AddTurnsArgs",
    "Caller",
    "MemoryServer",
    "build_server",
    "tool_result",
]

"""What every host integration does, once, framework-neutrally: sessions, turns, the trigger.

Framework adapters (``api.adapters.deepagents``, ``api.adapters.crewai``) only translate: how
tools are registered, where the identity comes from in the run context, how a result or an
error reaches the model. Everything that decides behaviour lives here, so every adapter (and
a host using no framework at all) runs the identical pipeline:

    host = MemoryHost(mem)                       # trigger mode from mem.config.trigger.mode
    identity = Identity(agent_id="assistant", user_id="alice", session_id="s-1")
    session = host.start(identity)               # session_started
    auto = host.user_turn(session, "What should I cook tonight?")   # turn_completed (+ search)
    if auto is not None:                         # auto/hybrid: a non-empty host search result
        ...                                      # append it as a memory_search tool result
    host.call(session, "memory_write", {...})    # a model's tool call; errors come back as data
    host.assistant_turn(session, "How about a dal?")
    host.tool_call(session, "deploy", '{"service": "billing"}')   # the model's tool call
    host.tool_turn(session, "Deploy failed.", tool="deploy")      # and the tool's output
    job_id = host.end(session)                   # session_ended: extraction is enqueued

Identity (agent id, user id, session id, write targets) is always supplied by the host; the
model only ever sees the static tool definitions and the memory-use policy.

Authoritative tools: ``MemoryHost(mem, authoritative_tools=["deploy"])`` (and each adapter's
argument of that name) adds to ``evidence.authoritative_tools``; only those tools' output can
back a confirmed tool_result. None is by default: tool output may be an attacker's text or the
model's own words handed back.

Trigger modes (``trigger.mode``; design §7): ``tool_only`` — the model searches through its
tool; ``auto`` — the host searches once per user turn (never on assistant or tool turns) and
``memory_search`` is not registered; ``hybrid`` — both.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from agent_memory.core.memory import Memory
from agent_memory.core.search.explain import for_model
from agent_memory.core.session import Session, replace_lone_surrogates
from agent_memory.core.tools import (
    MAX_QUERY,
    TOOLS,
    TriggerMode,
    memory_policy,
    tool_definitions,
    tool_names,
)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who is talking, as the host knows it. Never taken from model output."""

    agent_id: str
    user_id: str
    session_id: str
    write_targets: Mapping[str, str] | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Identity:
        """From a plain mapping, as frameworks carry it in their run context."""
        targets = data.get("write_targets")
        return cls(
            agent_id=data["agent_id"],
            user_id=data["user_id"],
            session_id=data["session_id"],
            write_targets=dict(targets) if targets is not None else None,
        )

    def to_mapping(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "user_id": self.user_id,
            "session_id": self.session_id,
            "write_targets": dict(self.write_targets) if self.write_targets else None,
        }


@dataclass(frozen=True, slots=True)
class AutoSearch:
    """The host's own memory_search for one user turn, to be shown to the model as a tool call
    named ``memory_search`` with ``arguments`` and this ``result`` (a non-empty one, in the
    compact form a model reads: ``core.search.explain``; the search log keeps the full one)."""

    call_id: str
    arguments: dict[str, Any]
    result: dict[str, Any] = field(repr=False)


class _Chat(Protocol):
    def end(self) -> str: ...


ChatT = TypeVar("ChatT", bound=_Chat)


class MemoryHost:
    """Sessions, turns and the search trigger for one ``Memory``. Thread-safe."""

    def __init__(
        self,
        memory: Memory,
        *,
        mode: TriggerMode | None = None,
        authoritative_tools: Iterable[str] = (),
    ) -> None:
        self.memory = memory
        self.mode: TriggerMode = mode or memory.config.trigger.mode
        # Added to evidence.authoritative_tools for every session this host starts.
        self.authoritative_tools = tuple(authoritative_tools)
        self.tool_names = tool_names(self.mode)  # validates the mode
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    # -- what the model sees (static for this mode) -------------------------------------------

    def definitions(self) -> list[dict[str, Any]]:
        """The tools to register: name, description, JSON Schema (no memory_search in auto)."""
        return tool_definitions(self.mode)

    def policy(self) -> str:
        """The memory-use policy for the prompt prefix."""
        return memory_policy(self.mode)

    # -- ingestion events --------------------------------------------------------------------

    def start(self, identity: Identity, *, now: datetime | None = None) -> Session:
        """session_started (or resumed after a restart): the session for ``identity``."""
        with self._lock:
            session = self._sessions.get(identity.session_id)
            if session is not None and (session.agent_id, session.user_id) == (
                identity.agent_id,
                identity.user_id,
            ):
                return session
            session = self.memory.session(
                agent_id=identity.agent_id,
                user_id=identity.user_id,
                session_id=identity.session_id,
                write_targets=identity.write_targets,
                authoritative_tools=self.authoritative_tools,
                now=now,
            )
            self._sessions[identity.session_id] = session
            return session

    def user_turn(
        self, session: Session, content: str, *, at: datetime | None = None
    ) -> AutoSearch | None:
        """turn_completed for a user turn. In auto and hybrid modes the host then searches with
        the turn's text, once, and returns the result if it is not empty."""
        content = replace_lone_surrogates(content)
        seq = session.add_turn("user", content, at=at)
        if self.mode == "tool_only" or not content.strip():
            return None
        arguments = {"query": content.strip()[:MAX_QUERY]}
        result = session.call("memory_search", arguments, now=at)
        if "error" in result or not result.get("results"):
            return None
        shown = for_model("memory_search", arguments, result)
        return AutoSearch(f"memory_auto_{session.session_id}_{seq}", arguments, shown)

    def assistant_turn(self, session: Session, content: str, *, at: datetime | None = None) -> int:
        """turn_completed for the agent's reply. Never triggers a search."""
        return session.add_turn("assistant", replace_lone_surrogates(content), at=at)

    def tool_call(
        self, session: Session, tool: str, arguments: str, *, at: datetime | None = None
    ) -> int:
        """The model called a (non-memory) tool with ``arguments``: recorded as the model's
        words, so a tool that hands them back (a file it wrote, a note, an echo) is not
        taken for an independent source."""
        return session.add_turn("assistant", replace_lone_surrogates(arguments), at=at, tool=tool)

    def tool_turn(
        self, session: Session, content: str, *, at: datetime | None = None, tool: str | None = None
    ) -> int:
        """turn_completed for a (non-memory) tool's output, so it can be quoted as evidence:
        as a confirmed tool_result only when ``tool`` is named authoritative. Never triggers
        a search."""
        return session.add_turn("tool", replace_lone_surrogates(content), at=at, tool=tool)

    def end(self, session: Session, *, now: datetime | None = None) -> str:
        """session_ended: close the transcript and enqueue extraction. Returns the job id
        (the same one if called again)."""
        with self._lock:
            self._sessions.pop(session.session_id, None)
        return session.end(now=now)

    # -- the model's tool calls --------------------------------------------------------------

    def call(
        self, session: Session, name: Any, arguments: Any, *, now: datetime | None = None
    ) -> dict[str, Any]:
        """A tool call from the model, answered in the form a model reads (``core.search.explain``:
        a memory_search result is compact unless the call says ``explain: true``). Like
        ``Session.call`` it never raises for model input; a tool not registered in this mode
        (memory_search in auto) is an ``unknown_tool``."""
        if isinstance(name, str) and name in TOOLS and name not in self.tool_names:
            known = ", ".join(self.tool_names)
            return {
                "error": {
                    "code": "unknown_tool",
                    "message": f"{name} is not available here; the tools are {known}",
                }
            }
        return for_model(name, arguments, session.call(name, arguments, now=now))


def is_memory_tool(name: str | None) -> bool:
    """Whether a tool name is one of the five memory tools (their output is not transcript)."""
    return name in TOOLS


__all__ = ["AutoSearch", "Identity", "MemoryHost", "is_memory_tool"]


class HostAdapter(ABC, Generic[ChatT]):
    """What every framework adapter shares: a ``MemoryHost`` for one ``Memory``, its mode and
    policy, ``start`` (a chat for an identity) and ``session``, which scopes one so extraction
    is enqueued even when the run fails. An adapter says how its chat wraps a session."""

    def __init__(
        self,
        memory: Memory,
        *,
        mode: TriggerMode | None = None,
        authoritative_tools: Iterable[str] = (),
    ) -> None:
        self.host = MemoryHost(memory, mode=mode, authoritative_tools=authoritative_tools)

    @property
    def mode(self) -> TriggerMode:
        return self.host.mode

    def policy(self) -> str:
        """The memory-use policy, for the system prompt (or a CrewAI agent's backstory)."""
        return self.host.policy()

    @abstractmethod
    def _chat(self, identity: Identity, session: Session) -> ChatT:
        """The framework's chat around a started session."""

    def start(
        self,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str] | None = None,
    ) -> ChatT:
        """session_started: a chat for this identity (call ``chat.end()`` when it is over)."""
        identity = Identity(agent_id, user_id, session_id, write_targets)
        return self._chat(identity, self.host.start(identity))

    @contextmanager
    def session(
        self,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str] | None = None,
    ) -> Iterator[ChatT]:
        """``start`` on entry and ``end`` (enqueue extraction) on exit, even after an error."""
        chat = self.start(
            agent_id=agent_id, user_id=user_id, session_id=session_id, write_targets=write_targets
        )
        try:
            yield chat
        finally:
            chat.end()

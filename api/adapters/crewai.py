"""The CrewAI adapter: the memory tools as CrewAI ``BaseTool`` subclasses.

crewai pins an older pydantic than the rest of this project uses: install the ``crewai`` extra
in a virtual environment of its own (``scripts/install.sh test`` builds ``.venv-crewai``).

    from crewai import Agent, Crew, Task
    from agent_memory.api.adapters.crewai import CrewAIMemory

    memory = CrewAIMemory(mem)                      # trigger mode from mem.config.trigger.mode
    with memory.session(agent_id="assistant", user_id="alice", session_id="s-1") as chat:
        agent = Agent(role="Assistant", goal="Help Alice", backstory=memory.policy(),
                      llm=..., tools=chat.tools())
        crew = Crew(agents=[agent], tasks=[Task(description="{message}",
                                                 expected_output="A reply", agent=agent)])
        chat.kickoff(crew, "I'm vegetarian, by the way.")   # one user turn, one kickoff
    chat.job_id                                     # session_ended: extraction was enqueued

- Identity is bound by the host: ``chat.tools()`` are tool instances bound to that chat's
  session, outside the model-visible schema (``args_schema`` is the core's argument model).
  Arguments go to the core unvalidated by CrewAI, so the core's strict validation decides.
- A structured error of the contract is returned as a CrewAI ``ToolFailure`` (CrewAI's tool
  failure channel): its ``message`` is the error JSON, its ``code`` the error code; the agent
  sees it and the run continues. Results are JSON strings; they are never cached.
- Turns: ``chat.kickoff`` records the user turn and the crew's final answer; a global
  after-tool-call hook records each non-memory tool call's arguments (as the model's words)
  and its output as a tool turn with the tool's name. Only tools named authoritative
  (``CrewAIMemory(mem, authoritative_tools=[...])`` or ``evidence.authoritative_tools``) back a
  confirmed tool_result. In auto
  and hybrid modes a before-LLM-call hook adds the host's search, once per kickoff, as an
  assistant tool call and its tool result message. Both hooks find the chat through the
  agent's memory tools, so crews without memory tools are untouched.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from crewai.hooks import register_after_tool_call_hook, register_before_llm_call_hook
from crewai.tools import BaseTool
from crewai.tools.tool_failure import ToolFailure, ToolFailureReason
from pydantic import ConfigDict, Field

from agent_memory.api.host import AutoSearch, HostAdapter, Identity, MemoryHost, is_memory_tool
from agent_memory.core.errors import AgentMemoryError, internal_tool_error
from agent_memory.core.logging import get_logger
from agent_memory.core.memory import Memory
from agent_memory.core.search.explain import model_text
from agent_memory.core.session import Session
from agent_memory.core.tools import TOOLS, TriggerMode

log = get_logger("agent_memory")


class CrewMemoryTool(BaseTool):  # type: ignore[misc]  # crewai is untyped here (own venv)
    """One memory tool bound to one chat. The model sees the core's description and schema."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chat: Any = Field(exclude=True)
    cache_function: Any = Field(default=lambda _args=None, _result=None: False, exclude=True)

    def _validate_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        # The core validates (strictly) and answers with a structured error; CrewAI's own
        # validation would coerce values and drop unknown arguments silently.
        return kwargs

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        chat: CrewChat = self.chat
        arguments: Any = args[0] if args and not kwargs else kwargs
        try:
            result = chat.host.call(chat.session, self.name, arguments)
        except AgentMemoryError as exc:
            # A host-side failure (embedder, store, config), not the model's doing. CrewAI would
            # hand str(exc) to the model; it gets a neutral error, the host keeps the exception.
            log.error("crewai.memory_tool_failed", tool=self.name, error=str(exc))
            chat.last_error = exc
            result = internal_tool_error()
        text = model_text(result)
        if "error" in result:
            error = result["error"]
            return ToolFailure(
                message=text,
                code=error.get("code"),
                reason=ToolFailureReason.INVALID_INPUT
                if error.get("code") == "invalid_argument"
                else ToolFailureReason.TOOL_REPORTED,
                details=error,
            )
        return text


class CrewChat:
    """One session's conversation with crews (from ``CrewAIMemory.session`` or ``start``)."""

    def __init__(self, host: MemoryHost, session: Session) -> None:
        self.host, self.session = host, session
        self.job_id: str | None = None
        # The last host-side failure of a memory tool during a kickoff, for the host to raise.
        self.last_error: AgentMemoryError | None = None
        self._pending: AutoSearch | None = None
        self._lock = threading.Lock()

    @property
    def session_id(self) -> str:
        return self.session.session_id

    def tools(self) -> list[BaseTool]:
        """The memory tools bound to this chat (no memory_search in auto mode)."""
        return [
            CrewMemoryTool(
                name=definition["name"],
                description=definition["description"],
                args_schema=TOOLS[definition["name"]].arguments,
                chat=self,
            )
            for definition in self.host.definitions()
        ]

    def kickoff(self, crew: Any, text: str, *, inputs: Mapping[str, Any] | None = None) -> Any:
        """One user turn: record it (auto/hybrid: the host searches), run the crew with
        ``inputs`` plus ``{"message": text}``, record the final answer. Returns CrewOutput."""
        auto = self.host.user_turn(self.session, text)
        with self._lock:
            self._pending = auto
        try:
            output = crew.kickoff(inputs={**(inputs or {}), "message": text})
        finally:
            with self._lock:
                self._pending = None
        raw = getattr(output, "raw", None)
        if isinstance(raw, str) and raw.strip():
            self.host.assistant_turn(self.session, raw)
        return output

    def take_auto_search(self) -> AutoSearch | None:
        with self._lock:
            auto, self._pending = self._pending, None
        return auto

    def end(self) -> str:
        """session_ended: close the transcript and enqueue extraction (idempotent)."""
        if self.job_id is None:
            self.job_id = self.host.end(self.session)
        return self.job_id


class CrewAIMemory(HostAdapter[CrewChat]):
    """The memory tools, policy and session events for CrewAI."""

    def __init__(
        self,
        memory: Memory,
        *,
        mode: TriggerMode | None = None,
        authoritative_tools: Iterable[str] = (),
    ) -> None:
        super().__init__(memory, mode=mode, authoritative_tools=authoritative_tools)
        _install_hooks()

    def _chat(self, identity: Identity, session: Session) -> CrewChat:
        return CrewChat(self.host, session)


def auto_search_messages(auto: AutoSearch) -> list[dict[str, Any]]:
    """The host's search as chat messages: an assistant tool call and its tool result."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": auto.call_id,
                    "type": "function",
                    "function": {"name": "memory_search", "arguments": json.dumps(auto.arguments)},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": auto.call_id,
            "name": "memory_search",
            "content": model_text(auto.result),
        },
    ]


def _chat_of(agent: Any) -> CrewChat | None:
    for tool in getattr(agent, "tools", None) or ():
        if isinstance(tool, CrewMemoryTool):
            chat: CrewChat = tool.chat
            return chat
    return None


def _before_llm_call(context: Any) -> None:
    chat = _chat_of(getattr(context, "agent", None))
    auto = chat.take_auto_search() if chat is not None else None
    if auto is not None:
        context.messages.extend(auto_search_messages(auto))


def _after_tool_call(context: Any) -> None:
    name = getattr(context, "tool_name", None)
    if is_memory_tool(name):
        return
    chat = _chat_of(getattr(context, "agent", None))
    if chat is None:
        return
    name = name if isinstance(name, str) and name.strip() else None
    arguments = getattr(context, "tool_input", None)
    if name and arguments:  # the model's own words, recorded before what the tool returned
        text = arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
        chat.host.tool_call(chat.session, name, text)
    result = getattr(context, "tool_result", None)
    if isinstance(result, str) and result.strip():
        chat.host.tool_turn(chat.session, result, tool=name)


_hooks_lock = threading.Lock()
_hooks_installed = False


def _install_hooks() -> None:
    """Register the two global hooks once per process (CrewAI's hooks are global)."""
    global _hooks_installed
    with _hooks_lock:
        if not _hooks_installed:
            register_before_llm_call_hook(_before_llm_call)
            register_after_tool_call_hook(_after_tool_call)
            _hooks_installed = True


__all__ = ["CrewAIMemory", "CrewChat", "CrewMemoryTool", "auto_search_messages"]

"""The Deep Agents adapter (LangChain / LangGraph): the memory tools as LangChain tools.

    from deepagents import create_deep_agent
    from agent_memory.api.adapters.deepagents import DeepAgentsMemory

    memory = DeepAgentsMemory(mem)                  # trigger mode from mem.config.trigger.mode
    agent = create_deep_agent(model=..., tools=memory.tools(), system_prompt=memory.policy())
    with memory.session(agent_id="assistant", user_id="alice", session_id="s-1") as chat:
        chat.invoke(agent, "I'm vegetarian, by the way.")   # one user turn, one agent run
    chat.job_id                                     # session_ended: extraction was enqueued

Works with any LangGraph agent whose tools run through LangChain's ``BaseTool.invoke`` (Deep
Agents, ``langchain.agents.create_agent``, a hand-built ``ToolNode`` graph).

- Identity comes from the run context: ``config["configurable"]["agent_memory"]`` holds the
  agent id, user id, session id and write targets (``chat.config`` builds it). The tools'
  JSON Schemas are the core's, so the model never sees, and cannot set, any of it.
- Tool results are JSON strings in a ``ToolMessage``. A structured error of the contract
  (``{"error": {"code", "message", "field"}}``) is raised as a ``ToolException`` that the tools
  handle themselves (``handle_tool_error=True``): it reaches the model as a ``ToolMessage`` with
  ``status="error"`` and the JSON as its content, and the run continues.
- Turns: ``chat.invoke`` records the user turn (and, in auto and hybrid modes, adds the host's
  search as an ``AIMessage`` tool call plus its ``ToolMessage``); a callback handler records
  each model reply, each non-memory tool call's arguments (as the model's words) and each
  non-memory tool output with its tool's name, as they happen, so a later ``memory_write``
  can quote them as evidence. Tool output backs a confirmed tool_result only for tools named
  authoritative (``DeepAgentsMemory(mem, authoritative_tools=[...])`` or
  ``evidence.authoritative_tools``): Deep Agents' own file tools hand back what the model
  wrote, so they never should be.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict, Field

from agent_memory.api.host import AutoSearch, HostAdapter, Identity, MemoryHost, is_memory_tool
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.search.explain import model_text
from agent_memory.core.session import Session

CONFIG_KEY = "agent_memory"


class MemoryTool(BaseTool):
    """One memory tool. The model-facing name, description and JSON Schema are the core's."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    adapter: DeepAgentsMemory = Field(exclude=True)
    handle_tool_error: bool = True

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # The model's arguments go to the core untouched, as one object: the core validates
        # them (strictly) and names any problem in a structured error.
        return (tool_input,), {}

    def _run(self, arguments: Any, config: RunnableConfig) -> str:
        session = self.adapter.session_for(config)
        result = self.adapter.host.call(session, self.name, arguments)
        text = model_text(result)
        if "error" in result:
            raise ToolException(text)
        return text


class _TurnRecorder(BaseCallbackHandler):
    """Records the model's replies and other tools' outputs as turns, as they happen."""

    run_inline = True
    raise_error = True

    def __init__(self, host: MemoryHost, session: Session) -> None:
        self.host, self.session = host, session
        self._tool_names: dict[UUID, str] = {}

    def on_tool_start(
        self, serialized: dict[str, Any], input_str: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name", "")
        self._tool_names[run_id] = name
        inputs = kwargs.get("inputs")
        arguments = json.dumps(inputs, default=str) if isinstance(inputs, dict) else input_str
        if name and not is_memory_tool(name) and arguments and arguments.strip():
            self.host.tool_call(self.session, name, arguments)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        name = self._tool_names.pop(run_id, None) or kwargs.get("name")
        if is_memory_tool(name):
            return
        content = getattr(output, "content", output)
        text = content if isinstance(content, str) else json.dumps(content, default=str)
        if text.strip():
            self.host.tool_turn(self.session, text, tool=name or None)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                message = getattr(generation, "message", None)
                text = message.text if isinstance(message, BaseMessage) else generation.text
                if text and text.strip():
                    self.host.assistant_turn(self.session, text)


class Chat:
    """One session's conversation with a LangGraph agent (from ``DeepAgentsMemory.session``)."""

    def __init__(self, adapter: DeepAgentsMemory, session: Session, identity: Identity) -> None:
        self.adapter, self.session, self.identity = adapter, session, identity
        self.job_id: str | None = None
        self._recorder = _TurnRecorder(adapter.host, session)

    @property
    def config(self) -> RunnableConfig:
        """The run config that carries the identity to the tools and records the turns."""
        return {
            "configurable": {CONFIG_KEY: self.identity.to_mapping(), "thread_id": self.session_id},
            "callbacks": [self._recorder],
        }

    @property
    def session_id(self) -> str:
        return self.session.session_id

    def messages_for(self, text: str) -> list[BaseMessage]:
        """turn_completed for a user message, and the messages to send: the user's, then, in
        auto and hybrid modes, the host's memory_search as a tool call and its result."""
        messages: list[BaseMessage] = [HumanMessage(text)]
        auto = self.adapter.host.user_turn(self.session, text)
        if auto is not None:
            messages.extend(auto_search_messages(auto))
        return messages

    def invoke(self, agent: Any, text: str, **kwargs: Any) -> Any:
        """One user turn: record it, run ``agent`` (any LangGraph graph with a ``messages``
        state) on it with this session's config, and return the agent's final state."""
        config = _merge_config(self.config, kwargs.pop("config", None))
        return agent.invoke({"messages": self.messages_for(text)}, config=config, **kwargs)

    def end(self) -> str:
        """session_ended: close the transcript and enqueue extraction (idempotent)."""
        if self.job_id is None:
            self.job_id = self.adapter.host.end(self.session)
        return self.job_id


class DeepAgentsMemory(HostAdapter[Chat]):
    """The memory tools, policy and session events for LangChain / LangGraph / Deep Agents."""

    def tools(self) -> list[BaseTool]:
        """The tools to register (no memory_search in auto mode): static for the mode."""
        return [
            MemoryTool(
                name=definition["name"],
                description=definition["description"],
                args_schema=definition["input_schema"],
                adapter=self,
            )
            for definition in self.host.definitions()
        ]

    def _chat(self, identity: Identity, session: Session) -> Chat:
        return Chat(self, session, identity)

    def session_for(self, config: RunnableConfig | None) -> Session:
        """The session named by a run's config (``configurable.agent_memory``). A tool run
        without one is the host's mistake, not the model's: it raises InvalidArgument."""
        configurable = (config or {}).get("configurable") or {}
        data = configurable.get(CONFIG_KEY)
        if not isinstance(data, Mapping):
            raise InvalidArgument(
                f"no memory identity in this run: pass config={{'configurable': "
                f"{{'{CONFIG_KEY}': {{'agent_id', 'user_id', 'session_id'}}}}}} "
                "(DeepAgentsMemory.start(...).config builds it)",
                field=CONFIG_KEY,
            )
        return self.host.start(Identity.from_mapping(data))


def auto_search_messages(auto: AutoSearch) -> list[BaseMessage]:
    """The host's search as LangChain messages: an assistant tool call and its tool result."""
    return [
        AIMessage(
            content="",
            tool_calls=[{"name": "memory_search", "args": auto.arguments, "id": auto.call_id}],
        ),
        ToolMessage(
            content=model_text(auto.result),
            tool_call_id=auto.call_id,
            name="memory_search",
        ),
    ]


def _merge_config(base: RunnableConfig, extra: RunnableConfig | None) -> RunnableConfig:
    if not extra:
        return base
    merged: dict[str, Any] = {**extra}
    merged["configurable"] = {**(extra.get("configurable") or {}), **base["configurable"]}
    own = base.get("callbacks")
    callbacks = extra.get("callbacks")
    merged["callbacks"] = [
        *(own if isinstance(own, Sequence) else []),
        *(callbacks if isinstance(callbacks, Sequence) else []),
    ]
    return merged  # type: ignore[return-value]


MemoryTool.model_rebuild()

__all__ = ["CONFIG_KEY", "Chat", "DeepAgentsMemory", "MemoryTool", "auto_search_messages"]

"""Three ways to drive the same conversation: the bare tool surface (``MemoryHost``), the Deep
Agents adapter and the CrewAI adapter, each with a scripted model (no network).

A turn is a user message plus the model's script: ``Call(name, arguments)`` steps, then a
final text reply. ``arguments`` may be a function of the results the model has seen so far,
so a script can use an id it was just given. Every driver returns the same ``TurnResult``:
what the model saw, read back from the framework's own messages.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.host import Identity, MemoryHost
from agent_memory.core import Config
from agent_memory.core.memory import Memory
from agent_memory.core.tools import TriggerMode

# A gate that passes any word match (lexical floor 0) and little else: the contract is about
# who searches and what comes back, not about ranking.
CONFIG = Config(gate={"dense_floor": 0.3, "lexical_floor": 0.0})

Arguments = dict[str, Any] | Callable[[list[dict[str, Any]]], dict[str, Any]]


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Arguments

    def resolve(self, seen: list[dict[str, Any]]) -> dict[str, Any]:
        return self.arguments(seen) if callable(self.arguments) else self.arguments


Step = Call | str


@dataclass
class TurnResult:
    offered: list[str] = field(default_factory=list)  # tool names the model was given
    results: list[dict[str, Any]] = field(default_factory=list)  # each tool result, parsed
    failed: list[bool] = field(default_factory=list)  # marked as an error by the framework
    auto: dict[str, Any] | None = None  # the host's memory_search result the model saw
    reply: str | None = None


def parse_result(text: str) -> dict[str, Any]:
    """A tool result as the model saw it: the contract's JSON (CrewAI appends "(code: ...)"
    to a failure's message; a framework's own error is kept as text)."""
    text = re.sub(r" \(code: [a-z_]+\)$", "", text.strip())
    try:
        value = json.loads(text)
    except ValueError:
        return {"framework_error": text}
    return value if isinstance(value, dict) else {"value": value}


class BareDriver:
    """The tool surface with no framework: what a host without one does."""

    name = "bare"

    def __init__(self, memory: Memory, identity: Identity, mode: TriggerMode) -> None:
        self.host = MemoryHost(memory, mode=mode)
        self.session = self.host.start(identity)

    def turn(self, text: str, script: list[Step]) -> TurnResult:
        out = TurnResult(offered=list(self.host.tool_names))
        auto = self.host.user_turn(self.session, text)
        out.auto = auto.result if auto else None
        for step in script:
            if isinstance(step, str):
                self.host.assistant_turn(self.session, step)
                out.reply = step
                break
            result = self.host.call(self.session, step.name, step.resolve(out.results))
            out.results.append(result)
            out.failed.append("error" in result)
        return out

    def end(self) -> str:
        return self.host.end(self.session)


class DeepAgentsDriver:
    """A real Deep Agents agent (``create_deep_agent``) on a scripted LangChain chat model."""

    name = "deepagents"

    def __init__(self, memory: Memory, identity: Identity, mode: TriggerMode) -> None:
        from deepagents import create_deep_agent

        from agent_memory.api.adapters.deepagents import DeepAgentsMemory

        self.adapter = DeepAgentsMemory(memory, mode=mode)
        self.model = _langchain_model()
        self.agent = create_deep_agent(
            model=self.model, tools=self.adapter.tools(), system_prompt=self.adapter.policy()
        )
        self.chat = self.adapter.start(
            agent_id=identity.agent_id,
            user_id=identity.user_id,
            session_id=identity.session_id,
            write_targets=identity.write_targets,
        )

    def turn(self, text: str, script: list[Step]) -> TurnResult:
        from langchain_core.messages import ToolMessage

        out = TurnResult()
        self.model.start(script, out)
        state = self.chat.invoke(self.agent, text)
        mine = set(self.model.call_ids)
        for message in state["messages"]:
            if not isinstance(message, ToolMessage):
                continue
            if message.tool_call_id in mine:
                out.results.append(parse_result(str(message.content)))
                out.failed.append(message.status == "error")
        return out

    def end(self) -> str:
        return self.chat.end()


def _langchain_model() -> Any:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import Field

    class ScriptedChatModel(BaseChatModel):
        """Replies from a script: each step is a tool call or the final text."""

        script: list[Any] = Field(default_factory=list)
        call_ids: list[str] = Field(default_factory=list)
        out: Any = None
        calls: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def start(self, script: list[Step], out: TurnResult) -> None:
            self.script, self.out, self.call_ids = list(script), out, []

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            names = [t.name if hasattr(t, "name") else t.get("name") for t in tools]
            self.out.offered = [n for n in names if n and n.startswith("memory_")]
            return self

        def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            seen = [
                parse_result(str(m.content))
                for m in messages
                if isinstance(m, ToolMessage) and m.tool_call_id in self.call_ids
            ]
            if self.out.auto is None:
                for m in messages:
                    if isinstance(m, ToolMessage) and m.tool_call_id.startswith("memory_auto_"):
                        self.out.auto = parse_result(str(m.content))
            step = self.script.pop(0) if self.script else "Done."
            if isinstance(step, str):
                self.out.reply = step
                message = AIMessage(content=step)
            else:
                self.calls += 1
                call_id = f"call_{self.calls}"
                self.call_ids.append(call_id)
                message = AIMessage(
                    content="",
                    tool_calls=[{"name": step.name, "args": step.resolve(seen), "id": call_id}],
                )
            return ChatResult(generations=[ChatGeneration(message=message)])

    return ScriptedChatModel()


class CrewAIDriver:
    """A real CrewAI crew (one agent, one task per user turn) on a scripted CrewAI LLM."""

    name = "crewai"

    def __init__(self, memory: Memory, identity: Identity, mode: TriggerMode) -> None:
        from agent_memory.api.adapters.crewai import CrewAIMemory

        self.adapter = CrewAIMemory(memory, mode=mode)
        self.chat = self.adapter.start(
            agent_id=identity.agent_id,
            user_id=identity.user_id,
            session_id=identity.session_id,
            write_targets=identity.write_targets,
        )
        self.llm = _crewai_llm()

    def turn(self, text: str, script: list[Step]) -> TurnResult:
        from crewai import Agent, Crew, Task

        out = TurnResult()
        self.llm.start(script, out)
        agent = Agent(
            role="Assistant",
            goal="Help the user",
            backstory=self.adapter.policy(),
            llm=self.llm,
            tools=self.chat.tools(),
            verbose=False,
            max_iter=len(script) + 3,
        )
        task = Task(description="{message}", expected_output="A reply", agent=agent)
        crew = Crew(agents=[agent], tasks=[task], verbose=False)
        self.chat.kickoff(crew, text)
        out.results, out.failed = self.llm.results, self.llm.failed
        return out

    def end(self) -> str:
        return self.chat.end()


def _crewai_llm() -> Any:
    from crewai.llms.base_llm import BaseLLM
    from pydantic import Field

    class ScriptedLLM(BaseLLM):
        """Replies from a script: each step is a tool call (OpenAI format) or the final text."""

        script: list[Any] = Field(default_factory=list)
        call_ids: list[str] = Field(default_factory=list)
        results: list[dict[str, Any]] = Field(default_factory=list)
        failed: list[bool] = Field(default_factory=list)
        out: Any = None
        calls: int = 0

        def start(self, script: list[Step], out: TurnResult) -> None:
            self.script, self.out, self.call_ids = list(script), out, []
            self.results, self.failed = [], []

        def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
            self.out.offered = [t["function"]["name"] for t in tools or []]
            self.results, self.failed = [], []
            for m in messages if isinstance(messages, list) else []:
                if m.get("role") != "tool":
                    continue
                text = str(m.get("content"))
                if m.get("tool_call_id") in self.call_ids:
                    parsed = parse_result(text)
                    self.results.append(parsed)
                    # A ToolFailure ends "(code: ...)"; CrewAI's own errors are plain text.
                    coded = re.search(r" \(code: [a-z_]+\)$", text) is not None
                    self.failed.append(coded or "framework_error" in parsed)
                elif str(m.get("tool_call_id", "")).startswith("memory_auto_"):
                    self.out.auto = parse_result(text)
            step = self.script.pop(0) if self.script else "Done."
            if isinstance(step, str):
                self.out.reply = step
                return step
            self.calls += 1
            call_id = f"call_{self.calls}"
            self.call_ids.append(call_id)
            arguments = json.dumps(step.resolve(self.results))
            return [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": step.name, "arguments": arguments},
                }
            ]

        def supports_function_calling(self) -> bool:
            return True

        def supports_stop_words(self) -> bool:
            return False

        def get_context_window_size(self) -> int:
            return 100_000

    return ScriptedLLM(model="scripted")


DRIVERS: Mapping[str, type[Any]] = {
    "bare": BareDriver,
    "deepagents": DeepAgentsDriver,
    "crewai": CrewAIDriver,
}
FRAMEWORK_MODULE = {"deepagents": "deepagents", "crewai": "crewai"}


def crewai_environment(home: str) -> dict[str, str]:
    """CrewAI writes under the home directory and phones home by default: keep it in ``home``."""
    return {
        "HOME": home,
        "CREWAI_STORAGE_DIR": os.path.join(home, "crewai"),
        "CREWAI_DISABLE_TELEMETRY": "true",
        "CREWAI_DISABLE_TRACKING": "true",
        "OTEL_SDK_DISABLED": "true",
        # A fresh home looks like a first run, which asks on a terminal to share traces.
        "CREWAI_TESTING": "true",
        "CREWAI_TRACING_ENABLED": "false",
    }


ROOT = Path(__file__).resolve().parents[2]
CREWAI_PYTHON = ROOT / os.environ.get("CREWAI_VENV", ".venv-crewai") / "bin" / "python"


def run_in_crewai_venv(
    args: list[str], home: Path, *, timeout: int
) -> subprocess.CompletedProcess[str]:
    """Run .venv-crewai's Python with ``args`` from the repository root, CrewAI kept in
    ``home``. When that venv is missing (scripts/install.sh test builds it) the test skips,
    and under CI it fails instead."""
    if not CREWAI_PYTHON.exists():
        message = f"{CREWAI_PYTHON} is missing: run scripts/install.sh test"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return subprocess.run(
        [str(CREWAI_PYTHON), *args],
        cwd=ROOT,
        env={**os.environ, **crewai_environment(str(home))},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=timeout,
    )

"""The registry of the five memory tools: ``TOOLS``, the model-facing names, descriptions and
JSON Schemas, and the handler each runs (core.tools.handlers).

The descriptions and schemas are static for a configuration: nothing from the store reaches
them, so they never break prompt caching.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core.tools import handlers
from agent_memory.core.tools.context import ToolContext
from agent_memory.core.tools.policy_text import TriggerMode, check_mode
from agent_memory.core.tools.schemas import (
    Arguments,
    ForgetArgs,
    GetArgs,
    ReviseArgs,
    SearchArgs,
    WriteArgs,
)

# A tool's handler: the call's context, the validated arguments, the time of the call.
Handler = Callable[[ToolContext, Any, datetime], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: what the model sees (name, description, schema) and what runs."""

    name: str
    description: str
    arguments: type[Arguments]
    handler: Handler
    # Whether it changes the store: on a read-only store such a tool answers ``read_only``.
    writes: bool = True

    def definition(self) -> dict[str, Any]:
        """The tool as data: name, description and JSON Schema of its input."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.arguments.model_json_schema(),
        }


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "memory_search",
            "Search your long-term memory of this user and your shared projects: facts and "
            "preferences, past events and decisions, procedures. Call it whenever earlier "
            "context could matter. An empty result is a normal answer: nothing relevant is "
            "stored. Each result says in one line why it was returned (explain: true gives the "
            "full explanation); ignore results that do not apply.",
            SearchArgs,
            handlers.search,
            writes=False,
        ),
        Tool(
            "memory_get",
            "Fetch memory records by id (for example ids mentioned in earlier results). Ids you "
            "cannot read are reported as missing.",
            GetArgs,
            handlers.get,
            writes=False,
        ),
        Tool(
            "memory_write",
            "Save one durable memory: a fact or preference (semantic), something that happened "
            "or was decided (episodic), or a reusable procedure (procedural). Quote the user's "
            "or tool's exact words as evidence; unsupported claims are stored as tentative "
            "agent_inference and expire unless confirmed. Returns the record id and what "
            "happened (created, reinforced an existing record, superseded one, conflict, or "
            "history: a newer record already says otherwise).",
            WriteArgs,
            handlers.write,
        ),
        Tool(
            "memory_revise",
            "Correct a record (a new version replaces it), confirm it (after the user confirms; "
            "quote them), or merge two entities that are the same person or thing.",
            ReviseArgs,
            handlers.revise,
        ),
        Tool(
            "memory_forget",
            "Permanently erase a record, for example when the user asks you to forget "
            "something. Only the id and reason are kept; writing it again is refused unless "
            "the user says it again.",
            ForgetArgs,
            handlers.forget,
        ),
    )
}


def tool_names(mode: TriggerMode = "tool_only") -> tuple[str, ...]:
    """The tools a host registers with the model in trigger ``mode``, in a stable order: all
    five, except in ``auto`` mode, where the host searches and ``memory_search`` is not offered."""
    check_mode(mode)
    return tuple(name for name in sorted(TOOLS) if not (mode == "auto" and name == "memory_search"))


def tool_definitions(mode: TriggerMode = "tool_only") -> list[dict[str, Any]]:
    """The tools the model sees in trigger ``mode`` (default: all five), as data, in a stable
    order. A function of the mode alone: nothing from a store can reach it."""
    return [TOOLS[name].definition() for name in tool_names(mode)]

"""The tool surface: the five memory tools as data (name, description, JSON Schema) plus handlers.

One registry, ``TOOLS`` (``registry``). Each tool's arguments are a pydantic model
(``schemas``): it validates what a model sends and generates the JSON Schema the model sees.
Handlers (``handlers``) take a ``ToolContext`` (``context``: the store's parts and the identity
the host supplied, built by ``Session.call`` once per call) and the validated arguments, and
return JSON-ready dicts. ``Session.call`` turns every error a model could cause into
``{"error": {"code", "message", "field"}}``. ``policy_text`` holds the memory-use policy for a
prompt prefix.

The descriptions, schemas and policy are static for a configuration: nothing from the store
reaches them, so they never break prompt caching.
"""

from agent_memory.core.tools.context import ToolContext
from agent_memory.core.tools.policy_text import TRIGGER_MODES, TriggerMode, memory_policy
from agent_memory.core.tools.registry import TOOLS, Handler, Tool, tool_definitions, tool_names
from agent_memory.core.tools.schemas import (
    MAX_CONTENT,
    MAX_IDS,
    MAX_QUERY,
    MAX_QUOTE,
    About,
    Arguments,
    ForgetArgs,
    GetArgs,
    ProcedureArgs,
    ReviseArgs,
    SearchArgs,
    WriteArgs,
)

__all__ = [
    "MAX_CONTENT",
    "MAX_IDS",
    "MAX_QUERY",
    "MAX_QUOTE",
    "TOOLS",
    "TRIGGER_MODES",
    "About",
    "Arguments",
    "ForgetArgs",
    "GetArgs",
    "Handler",
    "ProcedureArgs",
    "ReviseArgs",
    "SearchArgs",
    "Tool",
    "ToolContext",
    "TriggerMode",
    "WriteArgs",
    "memory_policy",
    "tool_definitions",
    "tool_names",
]

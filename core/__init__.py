"""agent-memory's in-process core: what a host embeds.

    from agent_memory.core import Memory
    mem = Memory.open("data/memory.db")

Everything public is re-exported here; the modules behind it are implementation.
"""

from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, FlagEmbedder, HashingEmbedder
from agent_memory.core.errors import AgentMemoryError, MemoryError
from agent_memory.core.memory import Memory
from agent_memory.core.models import (
    Access,
    EmbedderIdentity,
    Grant,
    MemoryType,
    Record,
    Scope,
    SourceKind,
    Status,
)
from agent_memory.core.reembed import reembed

__all__ = [
    "Access",
    "AgentMemoryError",
    "Config",
    "Embedder",
    "EmbedderIdentity",
    "FlagEmbedder",
    "Grant",
    "HashingEmbedder",
    "Memory",
    "MemoryError",
    "MemoryType",
    "Record",
    "Scope",
    "SourceKind",
    "Status",
    "reembed",
]

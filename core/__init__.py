"""agent-memory's in-process core: what a host embeds.

    from core import Memory
    mem = Memory.open("data/memory.db")

Everything public is re-exported here; the modules behind it are implementation.
"""

from core.config import Config
from core.embedder import Embedder, FlagEmbedder, HashingEmbedder
from core.errors import AgentMemoryError, MemoryError
from core.memory import Memory
from core.models import (
    Access,
    EmbedderIdentity,
    Grant,
    MemoryType,
    Record,
    Scope,
    SourceKind,
    Status,
)
from core.reembed import reembed

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

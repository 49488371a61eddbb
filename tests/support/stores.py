"""A new store with its grants, as most extraction and tool tests start."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent_memory.core import Config, Embedder, HashingEmbedder, Memory
from tests.support.clock import NOW


def granted_memory(
    path: Path,
    config: Config | None = None,
    *,
    embedder: Embedder | None = None,
    grants: Iterable[tuple[str, str]] = (("assistant", "user:alice"),),
) -> Memory:
    """A new store at ``path`` on the hashing embedder (unless given ``embedder``), opened at
    NOW, with each (agent, scope) of ``grants`` granted readwrite at NOW."""
    memory = Memory.open(path, config, embedder=embedder or HashingEmbedder(), now=NOW)
    for agent, scope in grants:
        memory.grant(agent, scope, now=NOW)
    return memory

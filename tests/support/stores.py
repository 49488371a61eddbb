"""A new store with its grants, as most extraction and tool tests start."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_memory.core import Config, Embedder, HashingEmbedder, Memory
from agent_memory.core.session import Session
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


def user_store(memory: Memory, records: list[dict[str, Any]], *, user: str = "dana") -> Session:
    """``records`` imported into ``user``'s scope at NOW, which the assistant is granted; the
    assistant's session for that user."""
    memory.grant("assistant", f"user:{user}", now=NOW)
    memory.import_records(records, scope=f"user:{user}", now=NOW)
    return memory.session(agent_id="assistant", user_id=user, session_id="s", now=NOW)


def search(session: Session, query: str) -> dict[str, Any]:
    """memory_search at NOW, which must not fail."""
    result = session.call("memory_search", {"query": query}, now=NOW)
    assert "error" not in result, result
    return result

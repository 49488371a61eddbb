"""Adversarial review of the issue-19 surfaces, in-process: the LangGraph store driven as a
hostile graph would drive it (real SQLite file, real packaged model).

A host rule may map one namespace to a different scope per user (``("memories",)`` ->
``user:<current user>``, the shape Deep Agents' store backend uses); items are addressed by
namespace and key alone, so two users' graphs then address the same item. Neither may change
or erase the other's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.api.adapters.langgraph import MemoryStore, default_scope
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from agent_memory.core.errors import PermissionDenied
from tests.support.clock import NOW

SHARED = ("memories",)


@pytest.fixture
def mem(store_path: Path, real_embedder: Embedder) -> Iterator[Memory]:
    memory = Memory.open(store_path, embedder=real_embedder, now=NOW)
    memory.grant("assistant", "user:alice", now=NOW)
    memory.grant("assistant", "user:bob", now=NOW)
    yield memory
    memory.close()


def per_user(mem: Memory, user: str) -> MemoryStore:
    """The store of one user's graph: ``("memories", ...)`` is that user's scope."""

    def rule(namespace: tuple[str, ...]) -> str | None:
        return f"user:{user}" if namespace[:1] == SHARED else default_scope(namespace)

    return MemoryStore(mem, agent_id="assistant", user_id=user, scope_for=rule, fields=["text"])


def alice_value(mem: Memory) -> dict[str, str] | None:
    item = per_user(mem, "alice").get(SHARED, "diet")
    return None if item is None else dict(item.value)


def test_a_put_cannot_take_over_another_users_item(mem: Memory) -> None:
    per_user(mem, "alice").put(SHARED, "diet", {"text": "Alice is vegetarian"})
    bob = per_user(mem, "bob")
    with pytest.raises(PermissionDenied) as refused:
        bob.put(SHARED, "diet", {"text": "Alice eats anything"})
    assert "alice" not in str(refused.value)  # whose item it is stays unsaid
    assert alice_value(mem) == {"text": "Alice is vegetarian"}
    found = mem.session(agent_id="assistant", user_id="alice", session_id="s1").call(
        "memory_search", {"query": "what does Alice eat?"}
    )
    assert [r["content"] for r in found["results"]] == ["Alice is vegetarian"]


def test_a_delete_cannot_erase_another_users_item(mem: Memory) -> None:
    per_user(mem, "alice").put(SHARED, "diet", {"text": "Alice is vegetarian"})
    with pytest.raises(PermissionDenied):
        per_user(mem, "bob").delete(SHARED, "diet")
    assert alice_value(mem) == {"text": "Alice is vegetarian"}


def test_a_put_may_still_move_an_item_between_scopes_it_can_write(mem: Memory) -> None:
    """Both scopes writable by the acting principal: the host moved it on purpose."""
    alice = per_user(mem, "alice")
    alice.put(SHARED, "diet", {"text": "Alice is vegetarian"})
    anywhere = MemoryStore(mem, agent_id="assistant", user_id="alice", fields=["text"])
    anywhere.scope_for = lambda namespace: "agent:assistant/alice"
    anywhere.put(SHARED, "diet", {"text": "Alice is vegan"})
    moved = anywhere.get(SHARED, "diet")
    assert moved is not None and moved.value == {"text": "Alice is vegan"}
    assert mem.items.get(SHARED, "diet").scope == "agent:assistant/alice"  # type: ignore[union-attr]

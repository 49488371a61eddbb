"""Adversarial review of the issue-19 surfaces: the LangGraph store driven as a hostile graph
would drive it (real SQLite file, real packaged model), and the MCP server's HTTP transport
with one token for two users (a real server process, the SDK's own client).

A host rule may map one namespace to a different scope per user (``("memories",)`` ->
``user:<current user>``, the shape Deep Agents' store backend uses); items are addressed by
namespace and key alone, so two users' graphs then address the same item. Neither may change
or erase the other's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from agent_memory.api.adapters.langgraph import MemoryStore, default_scope
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from agent_memory.core.errors import PermissionDenied
from tests.support.clock import NOW
from tests.support.http_server import free_port

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


# -- MCP over streamable HTTP: one token for two users, the 2026 sessionless protocol --------

TOKEN = "family-token-0123456789abcdef"


@pytest.fixture
def mcp_url(store_path: Path, tmp_path: Path) -> Iterator[str]:
    """``agent-memory mcp --http`` whose one token may act for alice and for bob."""
    mem = Memory.open(store_path)
    mem.grant("assistant", "user:alice")
    mem.grant("assistant", "user:bob")
    mem.close()
    tokens = tmp_path / "tokens.json"
    entry = {"name": "family", "token": TOKEN, "agent": "assistant", "users": ["alice", "bob"]}
    tokens.write_text(json.dumps({"tokens": [entry]}))
    port = free_port()
    command = [sys.executable, "-m", "agent_memory.api", "mcp", "--store", str(store_path)]
    command += ["--add-turns", "--http", f"127.0.0.1:{port}", "--tokens", str(tokens)]
    with (tmp_path / "server.log").open("w") as err:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, (tmp_path / "server.log").read_text()
            try:
                httpx2.get(url, timeout=2)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        yield url
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def _client(url: str, user: str | None) -> Client:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if user is not None:
        headers["X-Agent-Memory-User"] = user
    http = httpx2.AsyncClient(headers=headers, timeout=120)
    return Client(streamable_http_client(url, http_client=http), mode="auto")


def _answer(result: Any) -> dict[str, Any]:
    return dict(json.loads(result.content[0].text))


def test_mcp_sessionless_requests_of_two_users_never_share_a_session(mcp_url: str) -> None:
    """alice's turns are not bob's evidence; bob's searches do not see alice's record; a
    user outside the token's list, or a variant of a listed one, is refused."""
    said = "I keep the spare key under the blue flower pot."

    async def scenario() -> None:
        async with _client(mcp_url, "alice") as alice, _client(mcp_url, "bob") as bob:
            turns = {"turns": [{"role": "user", "content": said}]}
            assert not (await alice.call_tool("memory_add_turns", turns)).is_error
            write = {
                "type": "semantic",
                "content": "The spare key is under the blue flower pot.",
                "source_kind": "user_statement",
                "evidence": "spare key under the blue flower pot",
            }
            as_bob = _answer(await bob.call_tool("memory_write", write))
            assert as_bob["source_kind"] == "agent_inference"  # not quoted from bob's session
            assert not (await bob.call_tool("memory_forget", {"id": as_bob["id"]})).is_error
            as_alice = _answer(await alice.call_tool("memory_write", write))
            assert as_alice["source_kind"] == "user_statement"
            query = {"query": "where is the spare key?"}
            assert _answer(await bob.call_tool("memory_search", query))["results"] == []
            found = _answer(await alice.call_tool("memory_search", query))["results"]
            assert [r["id"] for r in found] == [as_alice["id"]]
        for user in ("carol", "Alice", "alice,bob"):
            async with _client(mcp_url, user) as stranger:
                refused = await stranger.call_tool("memory_search", {"query": "spare key"})
                assert refused.is_error
                assert _answer(refused)["error"]["code"] == "permission_denied"

    anyio.run(scenario)

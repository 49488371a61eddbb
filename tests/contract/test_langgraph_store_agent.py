"""A Deep Agents agent whose file system is MemoryStore (deepagents' StoreBackend): the files it
writes become records of the user's scope, found by memory_search, and a later run on another
thread reads them back. The chat model is langchain_core's fake list model, answering with
tool calls; no network."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent_memory.api.adapters.langgraph import MemoryStore
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from tests.support.clock import NOW

deepagents = pytest.importorskip("deepagents")
from deepagents.backends import StoreBackend  # noqa: E402

NAMESPACE = ("users", "alice", "filesystem")


class ToolCallingFake(FakeMessagesListChatModel):
    """The fake list model, accepting the agent's tools (it answers from its list anyway)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def run(store: MemoryStore, replies: list[BaseMessage], thread: str) -> list[BaseMessage]:
    agent = deepagents.create_deep_agent(
        model=ToolCallingFake(responses=replies),
        backend=StoreBackend(store=store, namespace=lambda _runtime: NAMESPACE),
        store=store,
    )
    state = agent.invoke(
        {"messages": [{"role": "user", "content": "Remember what I eat."}]},
        config={"configurable": {"thread_id": thread}},
    )
    messages: list[BaseMessage] = state["messages"]
    return messages


@pytest.fixture
def mem(store_path: Path, real_embedder: Embedder) -> Iterator[Memory]:
    memory = Memory.open(store_path, embedder=real_embedder, now=NOW)
    memory.grant("assistant", "user:alice", now=NOW)
    yield memory
    memory.close()


def test_a_deep_agent_keeps_its_files_in_the_memory_store(mem: Memory) -> None:
    store = MemoryStore(mem, agent_id="assistant", fields=["content"])
    note = "Alice is vegetarian and allergic to peanuts."
    run(
        store,
        [call("write_file", "w1", file_path="/diet.md", content=note), AIMessage("Saved.")],
        thread="t-1",
    )

    [item] = store.search(NAMESPACE)
    assert item.key == "/diet.md" and item.value["content"] == note
    record = mem.store.get_records([item.record_id])[item.record_id]
    assert (record.scope, record.content, record.source_kind.value) == (
        "user:alice",
        note,
        "system",
    )
    # One memory: the store's search and the agent tools' memory_search find the same record.
    [hit] = store.search(("users", "alice"), query="Does Alice have food allergies?")
    assert hit.key == "/diet.md" and hit.explanation is not None
    session = mem.session(agent_id="assistant", user_id="alice", session_id="s-1")
    found = session.call("memory_search", {"query": "Does Alice have food allergies?"})
    assert item.record_id in [r["id"] for r in found["results"]]

    # Another thread (a new run) reads the file back, then edits it: the edit supersedes.
    messages = run(
        store,
        [
            call("read_file", "r1", file_path="/diet.md"),
            call(
                "edit_file",
                "e1",
                file_path="/diet.md",
                old_string="vegetarian",
                new_string="vegan",
            ),
            AIMessage("Updated."),
        ],
        thread="t-2",
    )
    read = next(m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == "r1")
    assert "vegetarian and allergic to peanuts" in str(read.content)
    edited = store.get(NAMESPACE, "/diet.md")
    assert edited is not None
    assert edited.value["content"] == "Alice is vegan and allergic to peanuts."
    assert mem.store.get_records([item.record_id])[item.record_id].status.value == "superseded"
    assert json.dumps(edited.value)  # still a JSON object, as put

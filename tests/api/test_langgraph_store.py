"""api.adapters.langgraph.MemoryStore: a LangGraph BaseStore on a real SQLite store and the
real packaged model. LangGraph's own conformance cases (namespace listing, namespace
validation) are in test_langgraph_store_cases.py."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp

from agent_memory.api.adapters.langgraph import MemorySearchItem, MemoryStore, default_scope
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from agent_memory.core.errors import PermissionDenied
from tests.support.clock import NOW

PREFS = ("users", "alice", "prefs")


@pytest.fixture
def mem(store_path: Path, real_embedder: Embedder) -> Iterator[Memory]:
    memory = Memory.open(store_path, embedder=real_embedder, now=NOW)
    memory.grant("assistant", "user:alice", now=NOW)
    memory.grant("assistant", "user:bob", now=NOW)
    memory.grant("assistant", "project:apollo", access="read", now=NOW)
    yield memory
    memory.close()


@pytest.fixture
def store(mem: Memory) -> MemoryStore:
    return MemoryStore(mem, agent_id="assistant", fields=["text"])


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def test_the_default_rule_maps_the_first_two_labels_to_a_scope() -> None:
    assert default_scope(("users", "alice", "prefs")) == "user:alice"
    assert default_scope(("projects", "apollo")) == "project:apollo"
    assert default_scope(("orgs", "acme", "x")) == "org:acme"
    assert default_scope(("agents", "planner")) == "agent:planner"
    assert default_scope(("users",)) is None
    assert default_scope(("memories", "alice")) is None
    assert default_scope(("users", "a/b")) is None  # not an id: no scope


def test_put_keeps_the_value_verbatim_and_get_returns_it(store: MemoryStore) -> None:
    value = {"text": "Alice is vegetarian", "since": 2019, "tags": ["food"], "x": {"é": None}}
    store.put(PREFS, "diet", value)
    item = store.get(PREFS, "diet")
    assert item is not None
    assert (item.namespace, item.key, item.value) == (PREFS, "diet", value)
    assert item.created_at == item.updated_at and item.created_at.tzinfo is not None
    assert store.get(PREFS, "nothing") is None
    assert store.get(("users", "alice", "other"), "diet") is None


def test_an_item_is_a_host_provisioned_record_whose_content_is_its_indexed_fields(
    store: MemoryStore, mem: Memory
) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian", "n": 1})
    store.put(PREFS, "whole", {"text": "Alice likes green"}, index=["$"])
    [diet] = store.search(PREFS, filter={"n": 1})
    assert isinstance(diet, MemorySearchItem)
    record = mem.store.get_records([diet.record_id])[diet.record_id]
    assert record.content == "Alice is vegetarian"
    assert (record.scope, record.source_kind.value, record.status.value) == (
        "user:alice",
        "system",
        "confirmed",
    )
    assert record.tags == ("langgraph",) and record.creator_agent_id == "assistant"
    [whole] = store.search(PREFS, filter={"text": "Alice likes green"})
    assert mem.store.get_records([whole.record_id])[whole.record_id].content == (
        '{"text": "Alice likes green"}'
    )


def test_a_second_put_supersedes_the_record_and_keeps_created_at(
    store: MemoryStore, mem: Memory
) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian"})
    [first] = store.search(PREFS)
    store.put(PREFS, "diet", {"text": "Alice is vegan"})
    [second] = store.search(PREFS)
    assert second.value == {"text": "Alice is vegan"}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    records = mem.store.get_records([first.record_id, second.record_id])
    old, new = records[first.record_id], records[second.record_id]
    assert old.status.value == "superseded"
    assert (new.version, new.supersedes_id, new.lineage_id) == (2, old.id, old.lineage_id)
    # The same value again writes no record; only updated_at moves.
    store.put(PREFS, "diet", {"text": "Alice is vegan"})
    [third] = store.search(PREFS)
    assert third.record_id == second.record_id and third.updated_at > second.updated_at


def test_delete_erases_the_record_its_lineage_and_the_value(
    store: MemoryStore, mem: Memory, store_path: Path
) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian"})
    store.put(PREFS, "diet", {"text": "Alice is vegan"})
    store.delete(PREFS, "diet")
    assert store.get(PREFS, "diet") is None
    assert rows(store_path, "SELECT count(*) FROM items") == [(0,)]
    assert rows(store_path, "SELECT status, content FROM records") == [
        ("deleted", ""),
        ("deleted", ""),
    ]
    store.delete(PREFS, "diet")  # deleting what is gone is no error


def test_forgetting_the_record_through_the_tools_removes_the_item(
    store: MemoryStore, mem: Memory
) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian"})
    [item] = store.search(PREFS)
    session = mem.session(agent_id="assistant", user_id="alice", session_id="s-1")
    assert session.call("memory_forget", {"id": item.record_id})["status"] == "deleted"
    assert store.get(PREFS, "diet") is None


def test_forget_user_removes_the_users_items(store: MemoryStore, mem: Memory) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian"})
    store.put(("users", "bob", "prefs"), "diet", {"text": "Bob eats fish"})
    mem.forget_user("alice")
    assert store.get(PREFS, "diet") is None
    assert store.get(("users", "bob", "prefs"), "diet") is not None


def test_the_store_refuses_scopes_the_agent_may_not_reach(mem: Memory) -> None:
    store = MemoryStore(mem, agent_id="assistant")
    with pytest.raises(PermissionDenied, match="may not write user:carol"):
        store.put(("users", "carol"), "k", {"text": "x"})
    with pytest.raises(PermissionDenied, match="may not read user:carol"):
        store.get(("users", "carol"), "k")
    with pytest.raises(PermissionDenied, match="may not read user:carol"):
        store.search(("users", "carol"), query="anything")
    with pytest.raises(PermissionDenied, match="may not write project:apollo"):
        store.put(("projects", "apollo"), "k", {"text": "x"})  # granted read only
    assert store.get(("projects", "apollo"), "k") is None
    with pytest.raises(InvalidNamespaceError, match="maps to no scope"):
        store.put(("memories",), "k", {"text": "x"})
    # Acting for alice, bob's scope is out of reach although the agent holds a grant on it.
    alices = MemoryStore(mem, agent_id="assistant", user_id="alice")
    with pytest.raises(PermissionDenied, match="while acting for user 'alice'"):
        alices.get(("users", "bob"), "k")


def test_a_search_naming_no_user_reads_no_users_scope(mem: Memory) -> None:
    store = MemoryStore(mem, agent_id="assistant")
    store.put(("users", "alice"), "k", {"text": "Alice's note"})
    store.put(("users", "bob"), "k", {"text": "Bob's note"})
    assert store.search(()) == [] and store.list_namespaces() == []
    assert [i.value for i in store.search(("users", "alice"))] == [{"text": "Alice's note"}]
    alices = MemoryStore(mem, agent_id="assistant", user_id="alice")
    assert [i.namespace for i in alices.search(())] == [("users", "alice")]
    assert alices.list_namespaces() == [("users", "alice")]


def test_search_by_query_is_the_hybrid_pipeline_with_its_explanation(
    store: MemoryStore, mem: Memory
) -> None:
    store.put(PREFS, "diet", {"text": "Alice is vegetarian and never eats meat", "kind": "food"})
    store.put(PREFS, "color", {"text": "Alice's favourite colour is green", "kind": "taste"})
    store.put(PREFS, "job", {"text": "Alice works night shifts as a nurse", "kind": "work"})
    store.put(PREFS, "hidden", {"text": "Alice is vegetarian"}, index=False)
    store.put(("users", "alice", "other"), "diet", {"text": "Alice eats no meat at all"})
    # A record of the same scope written through the tools is not an item.
    session = mem.session(agent_id="assistant", user_id="alice", session_id="s-1")
    session.call(
        "memory_write",
        {"type": "semantic", "content": "Alice is vegetarian", "source_kind": "agent_inference"},
    )

    results = store.search(PREFS, query="Is Alice a vegetarian?")
    assert results and results[0].key == "diet"
    assert {r.key for r in results} <= {"diet", "color", "job"}
    top = results[0]
    assert isinstance(top, MemorySearchItem)
    assert top.value == {"text": "Alice is vegetarian and never eats meat", "kind": "food"}
    assert top.explanation is not None
    # The explanation is the pipeline's: its rank counts the tool's record ranked above.
    assert top.score == top.explanation["fused_score"] and top.explanation["rank"] >= 1
    assert set(top.explanation["generators"]) >= {"dense"}
    assert top.dict()["explanation"] == top.explanation
    assert [r.key for r in store.search(PREFS, query="meat", filter={"kind": "work"})] in (
        [],
        ["job"],
    )
    assert [r.key for r in store.search(PREFS, query="Is Alice a vegetarian?", limit=1)] == ["diet"]
    # The whole user scope: the other namespace's item too, still never the tool's record.
    keys = {(r.namespace, r.key) for r in store.search(("users", "alice"), query="meat")}
    assert (("users", "alice", "other"), "diet") in keys


def test_an_empty_answer_is_explained(store: MemoryStore) -> None:
    items, explanation = store.explain_search(("users", "alice"), query="anything")
    assert items == [] and explanation["search_id"] is None
    assert explanation["why_empty"] == "no scope this agent may read holds items under this prefix"
    store.put(PREFS, "diet", {"text": "Alice is vegetarian"})
    items, explanation = store.explain_search(("users", "alice"), query="quantum chromodynamics")
    assert explanation["search_id"].startswith("srch")
    assert explanation["returned"] == len(items)
    assert (explanation["why_empty"] is None) == bool(items)


def test_search_without_a_query_lists_with_filter_offset_and_limit(store: MemoryStore) -> None:
    for n in range(5):
        store.put(PREFS, f"k{n}", {"text": f"note {n}", "n": n, "even": n % 2 == 0})
    listed = store.search(PREFS)
    assert [i.key for i in listed] == ["k4", "k3", "k2", "k1", "k0"]  # most recent first
    assert all(i.score is None for i in listed)
    assert [i.key for i in store.search(PREFS, limit=2, offset=1)] == ["k3", "k2"]
    assert [i.key for i in store.search(PREFS, filter={"even": True})] == ["k4", "k2", "k0"]
    assert [i.key for i in store.search(PREFS, filter={"even": True}, offset=1, limit=1)] == ["k2"]
    assert [i.key for i in store.search(PREFS, filter={"n": {"$gte": 3}})] == ["k4", "k3"]
    assert [i.key for i in store.search(PREFS, filter={"n": {"$ne": 0}, "even": True})] == [
        "k4",
        "k2",
    ]
    assert [i.key for i in store.search(PREFS, query="   ", limit=1)] == ["k4"]


def test_a_batch_runs_in_order_and_abatch_runs_it_too(store: MemoryStore) -> None:
    results = store.batch(
        [
            GetOp(PREFS, "a"),
            PutOp(PREFS, "a", {"text": "one"}),
            PutOp(PREFS, "b", {"text": "two"}),
            GetOp(PREFS, "a"),
            PutOp(PREFS, "a", None),
            GetOp(PREFS, "a"),
            SearchOp(PREFS),
        ]
    )
    assert results[0] is None and results[1] is None and results[2] is None
    assert results[3] is not None and results[3].value == {"text": "one"}  # type: ignore[union-attr]
    assert results[4] is None and results[5] is None
    assert [i.key for i in results[6]] == ["b"]  # type: ignore[union-attr]

    async def run() -> None:
        await store.aput(PREFS, "c", {"text": "three"})
        item = await store.aget(PREFS, "c")
        assert item is not None and item.value == {"text": "three"}
        assert [i.key for i in await store.asearch(PREFS, limit=1)] == ["c"]
        assert await store.alist_namespaces(prefix=("users", "alice")) == [PREFS]
        await store.adelete(PREFS, "c")
        assert await store.aget(PREFS, "c") is None

    asyncio.run(run())


def test_ttls_are_not_supported(store: MemoryStore) -> None:
    with pytest.raises(NotImplementedError):
        store.put(PREFS, "k", {"text": "x"}, ttl=5)
    with pytest.raises(NotImplementedError):
        store.batch([PutOp(PREFS, "k", {"text": "x"}, ttl=5)])

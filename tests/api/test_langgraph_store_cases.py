"""LangGraph's own store cases, run against MemoryStore.

The cases (which namespaces to store, what each listing, validation and search call must
answer) are adapted from langgraph's libs/checkpoint/tests/test_store.py (MIT licence,
Copyright LangChain, Inc.), rewritten as data here. Those namespaces (("a", "b", "c"),
("users", "123")...) follow no scope layout, so every namespace maps to one project scope the
agent may write. The vector-search cases there rank with a fake character embedding; the ones
that hold for any ranking (filters restrict, index=False leaves an item out, pagination pages)
are kept, on the real model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langgraph.store.base import InvalidNamespaceError, PutOp

from agent_memory.api.adapters.langgraph import MemoryStore
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from tests.support.clock import NOW

LISTED = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("admin", "users", "789"),
]

# (prefix, suffix, max_depth, limit, offset) -> the namespaces listed (sorted when the case
# does not fix an order: the store sorts them anyway).
LISTINGS = [
    ((("a", "b"), None, None, 100, 0), LISTED[:4]),
    ((None, ("f",), None, 100, 0), [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]),
    ((("a",), ("f",), None, 100, 0), [("a", "b", "f"), ("a", "c", "f")]),
    ((("a", "b"), None, 3, 100, 0), [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]),
    ((("a", "b"), None, None, 2, 0), LISTED[:2]),
    ((("a", "b"), None, None, 100, 2), LISTED[2:4]),
    ((("a", "*", "f"), None, None, 100, 0), [("a", "b", "f"), ("a", "c", "f")]),
    ((None, ("*", "f"), None, 100, 0), [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]),
    ((("nonexistent",), None, None, 100, 0), []),
    ((("users", "123"), None, None, 100, 0), [("users", "123")]),
    ((("users", "*"), None, None, 100, 0), [("users", "123"), ("users", "456", "settings")]),
    ((("*", "users"), ("*", "settings"), None, 100, 0), []),
]


@pytest.fixture
def mem(store_path: Path, real_embedder: Embedder) -> Iterator[Memory]:
    memory = Memory.open(store_path, embedder=real_embedder, now=NOW)
    memory.grant("assistant", "project:lg", now=NOW)
    yield memory
    memory.close()


@pytest.fixture
def store(mem: Memory) -> MemoryStore:
    return MemoryStore(mem, agent_id="assistant", scope_for=lambda _ns: "project:lg")


@pytest.fixture
def listed(store: MemoryStore) -> MemoryStore:
    store.batch(
        [
            PutOp(namespace, f"id_{i}", {"data": f"value_{i:02d}"}, index=False)
            for i, namespace in enumerate(LISTED)
        ]
    )
    return store


@pytest.mark.parametrize(("arguments", "expected"), LISTINGS)
def test_list_namespaces(
    listed: MemoryStore,
    arguments: tuple[tuple[str, ...] | None, tuple[str, ...] | None, int | None, int, int],
    expected: list[tuple[str, ...]],
) -> None:
    prefix, suffix, max_depth, limit, offset = arguments
    found = listed.list_namespaces(
        prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
    )
    assert found == sorted(expected)


def test_list_namespaces_all_pages_and_depths(store: MemoryStore) -> None:
    assert store.list_namespaces() == []
    store.batch(
        [PutOp(("namespace", f"sub_{i:02d}"), f"id_{i}", {"n": i}, index=False) for i in range(20)]
    )
    for offset in (0, 5, 15):
        page = store.list_namespaces(prefix=("namespace",), limit=5, offset=offset)
        assert page == [("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)]
    for namespace in [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g")]:
        store.put(namespace, "k", {"n": 0}, index=False)
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "g")]


@pytest.mark.parametrize(
    "namespace", [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]
)
def test_invalid_namespaces_are_refused(store: MemoryStore, namespace: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "foo", {"foo": "bar"})
    with pytest.raises(InvalidNamespaceError):
        asyncio.run(store.aput(namespace, "foo", {"foo": "bar"}))


def test_langgraph_is_a_label_like_any_other_below_the_root(store: MemoryStore) -> None:
    doc = {"foo": "bar"}
    for namespace, through_batch in [
        (("foo", "langgraph", "foo"), False),
        (("langgraph", "foo"), True),
    ]:
        if through_batch:  # past put()'s root check, as LangGraph's own case does
            store.batch([PutOp(namespace, "bar", doc)])
        else:
            store.put(namespace, "bar", doc)
        item = store.get(namespace, "bar")
        assert item is not None and item.value == doc
        assert store.search(namespace)[0].value == doc
        store.delete(namespace, "bar")
        assert store.get(namespace, "bar") is None


DOCS = [
    ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
    ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
    ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
    ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
]


def test_search_with_a_query_honours_filters(store: MemoryStore) -> None:
    store.batch([PutOp(("test",), key, value, index=["text"]) for key, value in DOCS])
    red = store.search(("test",), query="apple", filter={"color": "red"})
    assert {r.key for r in red} <= {"doc1", "doc2"} and red and red[0].key == "doc1"
    cars = store.search(("test",), query="car", filter={"color": "red"})
    assert {r.key for r in cars} <= {"doc1", "doc2"} and cars and cars[0].key == "doc2"
    high = store.search(("test",), query="blue car", filter={"score": {"$gt": 3.2}})
    assert {r.key for r in high} <= {"doc1", "doc3", "doc4"} and high[0].key == "doc4"
    green = store.search(
        ("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}
    )
    assert [r.key for r in green] == ["doc3"]


def test_an_update_moves_the_item_in_search_and_index_false_leaves_it_out(
    store: MemoryStore,
) -> None:
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"}, index=["text"])
    store.put(("test",), "doc2", {"text": "something about dogs"}, index=["text"])
    store.put(("test",), "doc3", {"text": "text about birds"}, index=["text"])
    assert store.search(("test",), query="Zany Xerxes")[0].key == "doc1"
    store.put(("test",), "doc1", {"text": "new text about dogs"}, index=["text"])
    assert "doc1" not in [r.key for r in store.search(("test",), query="Zany Xerxes")]
    assert "doc1" in [r.key for r in store.search(("test",), query="new text about dogs")]
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert "doc4" not in [r.key for r in store.search(("test",), query="new text about dogs")]


def test_search_by_query_pages(store: MemoryStore) -> None:
    # Distinct documents: the pipeline collapses near-duplicates ("test document number 1",
    # "... 2") into the best of them, where LangGraph's fake embedding ranks all five.
    texts = [
        "test plan for the login page",
        "unit test results of the billing service",
        "a document on load testing the search API",
        "regression test checklist before a release",
        "notes from the test automation meeting",
    ]
    for i, text in enumerate(texts):
        store.put(("test",), f"doc{i}", {"text": text}, index=["text"])
    first = store.search(("test",), query="software testing", limit=2)
    second = store.search(("test",), query="software testing", limit=2, offset=2)
    every = store.search(("test",), query="software testing", limit=10)
    assert len(every) == 5
    assert [r.key for r in first + second] == [r.key for r in every[:4]]

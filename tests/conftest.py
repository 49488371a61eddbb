"""Shared fixtures: real SQLite files under tmp_path, the real packaged model loaded once."""

from __future__ import annotations

import os

# Tests never reach a model hub (forced, whatever the shell exports: a test that names an
# uncached model must fail at once, not download it); no progress bars. Set before anything
# imports huggingface_hub or tqdm.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TQDM_DISABLE", "1")

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from hypothesis import settings

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.embedder import FlagEmbedder, shared_embedder
from tests.support.clock import NOW

# Hypothesis fails an example slower than 200 ms by default: a timed assertion, which on
# these shared machines fails for the load, not the code. Property tests check behaviour only.
settings.register_profile("agent-memory", deadline=None)
settings.load_profile("agent-memory")


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Exported ONNX graphs go to a folder of this test run, not the user's ~/.cache; child
    processes (workers, the CLI) inherit it and reuse the one export."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def _fresh_structlog() -> Iterator[None]:
    """CLI tests run main() in-process, which configures structlog (its level, its stream);
    no test may inherit that from another."""
    yield
    structlog.reset_defaults()


@pytest.fixture(autouse=True)
def _close_opened_memories() -> Iterator[list[Memory]]:
    """Every Memory a test opens through Memory.open is closed when the test ends, whether
    or not the test closed it (closing twice is harmless): a test that forgets leaves no
    connection, WAL handle or retriever thread behind for the next.

    Memory.open is the public way in and core offers no hook on it, so for the test's
    duration the fixture wraps that classmethod (a MonkeyPatch of its own, undone before the
    closing); nothing inside core is patched. Stores opened by wider-scoped fixtures are set
    up before it, so they are not tracked and stay with their owners."""
    opened: list[Memory] = []
    original = Memory.open.__func__

    @functools.wraps(original)
    def tracked(cls: type[Memory], *args: Any, **kwargs: Any) -> Memory:
        memory = original(cls, *args, **kwargs)
        opened.append(memory)
        return memory

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Memory, "open", classmethod(tracked))
        yield opened
    for memory in reversed(opened):
        memory.close()


@pytest.fixture(scope="session")
def real_embedder() -> FlagEmbedder:
    """The packaged all-MiniLM-L6-v2 through FlagEmbedding, loaded once per test session."""
    embedder = shared_embedder(Config().embedder)
    embedder.load()
    return embedder


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory(store_path: Path, real_embedder: FlagEmbedder) -> Iterator[Memory]:
    """A new store on the real model."""
    mem = Memory.open(store_path, embedder=real_embedder, now=NOW)
    yield mem
    mem.close()


@pytest.fixture
def fast_memory(store_path: Path) -> Iterator[Memory]:
    """A new store on the deterministic hashing embedder, for property tests."""
    mem = Memory.open(store_path, embedder=HashingEmbedder(), now=NOW)
    yield mem
    mem.close()

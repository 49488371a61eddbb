"""Fixtures of the extraction tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from tests.support.extraction import extracting_memory


@pytest.fixture
def mem(tmp_path: Path, real_embedder: FlagEmbedder) -> Iterator[Memory]:
    """A new store on the packaged model whose ended sessions are extracted at once through
    the offline pipeline (tests.support.extraction.extracting_memory). A test file that needs
    another store (a stub model, the hashing embedder) defines its own ``mem``."""
    with extracting_memory(tmp_path / "m.db", real_embedder) as memory:
        yield memory

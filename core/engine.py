"""``Engine``: the parts of one open store, handed to the components that use them.

Sessions, the tool handlers, the ingestor, the retriever, extraction, import and erasure take
an Engine (or the few parts they need), never the ``Memory`` facade: ``core.memory`` builds the
Engine (it is the composition root) and no other core module imports it. The bundle is frozen:
which store, config and embedder a component works with never changes under it. The parts that
cost something to build (the vector index, the judge, the reranker and rewriter, the ingestor
and retriever) are callables that build them on first use, once, as ``Memory`` always did.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.embedder import Embedder
    from agent_memory.core.index import LiveIndex
    from agent_memory.core.jobs import Dispatcher, Jobs
    from agent_memory.core.judge import Judge
    from agent_memory.core.search.rerank import Reranker
    from agent_memory.core.search.retriever import Retriever
    from agent_memory.core.search.rewrite import QueryRewriter
    from agent_memory.core.store import Store
    from agent_memory.core.write.ingestor import Ingestor

T = TypeVar("T")


@dataclass(frozen=True, eq=False, slots=True)
class Engine:
    """One open store's parts. ``index()`` is this process's vector index, synced with the
    store on each call; ``judge()``, ``reranker()``, ``rewriter()``, ``ingestor()`` and
    ``retriever()`` are built on first call; ``dispatcher()`` is looked up on each use (a host
    attaches its worker app after opening)."""

    store: Store
    config: Config
    embedder: Embedder
    index: LiveIndex
    jobs: Jobs
    judge: Callable[[], Judge]
    reranker: Callable[[], Reranker | None]
    rewriter: Callable[[], QueryRewriter | None]
    ingestor: Callable[[], Ingestor]
    retriever: Callable[[], Retriever]
    dispatcher: Callable[[], Dispatcher | None]

    @property
    def read_only(self) -> bool:
        return self.store.read_only


class Lazy(Generic[T]):
    """A part built by ``build`` on its first call, once, even when threads race for it (a
    part may be None: no reranker configured)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._built: tuple[T] | None = None
        self._lock = threading.Lock()

    def __call__(self) -> T:
        built = self._built  # one read: another thread may reset it meanwhile
        if built is None:
            with self._lock:
                if self._built is None:
                    self._built = (self._build(),)
                built = self._built
        return built[0]

    def built(self) -> T | None:
        """The part if it has been built, without building it."""
        built = self._built
        return None if built is None else built[0]

    def reset(self) -> T | None:
        """Forget the part (its next call builds a new one); the one it held, if any."""
        with self._lock:
            built, self._built = self._built, None
        return None if built is None else built[0]


__all__ = ["Engine", "Lazy"]

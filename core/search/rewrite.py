"""The optional query rewrite (design §7): turn a raw retrieval request plus the host-supplied
current-turn context into one standalone search query. Off by default (``rewrite.enabled``).

``AnthropicRewriter`` asks a small Claude model; the Anthropic client is passed in (tests pass
one pointed at a local stub server). A rewrite that fails or returns nothing usable falls back
to the raw query, and the search log records why.

``rewrite_query`` is the retriever's stage: it runs the rewriter in a worker thread so the
search can stop waiting at ``rewrite.timeout_ms``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any

from agent_memory.core.logging import get_logger

if TYPE_CHECKING:
    from agent_memory.core.config import RewriteConfig
    from agent_memory.core.search.request import SearchRequest

log = get_logger("agent_memory")

# The stage's own pool (the reranker has another): a rewrite still running past its timeout
# (it ends at its own client timeout) can delay the next rewrite, never a rerank.
_REWRITE_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="agent-memory-rewrite")

PROMPT = (
    "Rewrite the retrieval request into one standalone search query for a memory store. "
    "Resolve pronouns and references using the conversation context. Keep names, dates and "
    "identifiers exactly. Reply with the query only, no quotes, at most 30 words."
)


class QueryRewriter(ABC):
    """Rewrites ``query`` given the current turn's ``context`` (may be empty)."""

    name: str

    @abstractmethod
    def rewrite(self, query: str, context: str) -> str:
        """The standalone query."""


class AnthropicRewriter(QueryRewriter):
    """A Claude model behind the Messages API, through an injected ``anthropic.Anthropic``."""

    def __init__(self, client: Any, *, model: str, timeout_s: float = 5.0) -> None:
        self.name = f"anthropic:{model}"
        self._client = client
        self._model = model
        self._timeout = timeout_s

    def rewrite(self, query: str, context: str) -> str:
        message = self._client.messages.create(
            model=self._model,
            max_tokens=100,
            system=PROMPT,
            messages=[
                {
                    "role": "user",
                    "content": f"Conversation context:\n{context or '(none)'}\n\n"
                    f"Retrieval request: {query}",
                }
            ],
            timeout=self._timeout,
        )
        text = "".join(
            block.text for block in message.content if getattr(block, "type", "") == "text"
        )
        return " ".join(text.split())


def rewrite_query(
    rewriter: QueryRewriter | None, settings: RewriteConfig, request: SearchRequest
) -> tuple[str, dict[str, Any]]:
    """The query to search with and what the stage did (for the explanation and the log).
    A rewrite that is off, fails, times out or comes back empty leaves the raw query."""
    if not settings.enabled:
        return request.query, {"status": "disabled"}
    if rewriter is None:
        return request.query, {"status": "no rewriter configured"}
    future = _REWRITE_POOL.submit(rewriter.rewrite, request.query, request.context)
    try:
        rewritten = future.result(timeout=settings.timeout_ms / 1000)
        if not isinstance(rewritten, str):
            raise TypeError(f"the rewriter returned {type(rewritten).__name__}, not text")
    except FutureTimeout:
        return request.query, {"status": "timeout; raw query used"}
    except Exception as exc:  # a failing rewriter must never fail the search
        log.warning("rewrite.failed", error=str(exc))
        return request.query, {"status": f"failed ({type(exc).__name__}); raw query used"}
    if not rewritten.strip():
        return request.query, {"status": "empty rewrite; raw query used"}
    return rewritten, {
        "status": "rewritten",
        "rewriter": rewriter.name,
        "raw": request.query,
        "rewritten": rewritten,
    }

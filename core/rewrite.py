"""The optional query rewrite (design §7): turn a raw retrieval request plus the host-supplied
current-turn context into one standalone search query. Off by default (``rewrite.enabled``).

``AnthropicRewriter`` asks a small Claude model; the Anthropic client is passed in (tests pass
one pointed at a local stub server). A rewrite that fails or returns nothing usable falls back
to the raw query, and the search log records why.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

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

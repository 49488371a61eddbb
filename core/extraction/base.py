"""One interface for the three model roles of session extraction: extractor, reviewer and
summary writer (design §6 Path B, §10). Implementations:

- ``core.extraction.anthropic.AnthropicBackend``: a Claude model (Haiku 4.5 by default) behind
  the Messages API; structured output through forced tools; the client is passed in.
- ``core.extraction.offline.OfflineBackend``: rules, no network, no model: the default when no
  API key is configured, so the quickstart and CI run the whole pipeline.

``core.extraction.make_backend`` picks one from the config and an environment mapping the
caller passes. Backends do not retry: a failed call raises, the stage is released, and the
queue retries it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from agent_memory.core.extraction.schema import (
    ExtractionOutput,
    ReviewOutput,
    ReviewRequest,
    SessionView,
    SummaryOutput,
    SummaryRequest,
)


class ModelBackend(ABC):
    """Extractor, reviewer and summary writer behind one object."""

    name: str
    # Whether every summary this backend writes only restates the session: the records it
    # kept and its user's own words, nothing the assistant said and nothing else. The offline
    # writer's do ("Topics: ... Remembered: ..."); a model's prose may say what the assistant
    # recommended, in words the user also used. Such summaries are tagged RESTATING, and only
    # those may be collapsed into a record of their session at search time
    # (core.search.siblings.summaries). OfflineBackend says so only for its own summary
    # writer: a subclass replacing ``summarize`` is not taken to restate unless it says so.
    summaries_restate: bool = False

    @abstractmethod
    def extract(self, session: SessionView) -> ExtractionOutput:
        """Candidate memories, each with a verbatim evidence span."""

    @abstractmethod
    def review(self, request: ReviewRequest) -> ReviewOutput:
        """One decision per candidate: accept, reject, or revise (narrow only)."""

    @abstractmethod
    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """The episodic summary of the session."""


# The tag of a summary record whose writer declared that it only restates its session.
RESTATING = "restates-session"

__all__ = ["RESTATING", "ModelBackend"]

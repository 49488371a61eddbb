"""One interface for the three model roles of session extraction: extractor, reviewer and
summary writer (design §6 Path B, §10). Implementations:

- ``core.extraction.anthropic.AnthropicBackend``: a Claude model (Haiku 4.5 by default) behind
  the Messages API; structured output through forced tools; the client is passed in.
- ``core.extraction.offline.OfflineBackend``: rules, no network, no model: the default when no
  API key is configured, so the quickstart and CI run the whole pipeline.

``make_backend`` picks one from the config and an environment mapping the caller passes.
Backends do not retry: a failed call raises, the stage is released, and the queue retries it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from core.config import ExtractionConfig
from core.errors import ConfigError
from core.extraction.schema import (
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

    @abstractmethod
    def extract(self, session: SessionView) -> ExtractionOutput:
        """Candidate memories, each with a verbatim evidence span."""

    @abstractmethod
    def review(self, request: ReviewRequest) -> ReviewOutput:
        """One decision per candidate: accept, reject, or revise (narrow only)."""

    @abstractmethod
    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        """The episodic summary of the session."""


def make_backend(
    config: ExtractionConfig, *, environ: Mapping[str, str], client: Any | None = None
) -> ModelBackend:
    """The configured backend. ``auto`` means Anthropic when ``ANTHROPIC_API_KEY`` is set in
    ``environ`` (or a client is given), else offline. The Anthropic client is created with
    ``max_retries=0`` unless one is passed: the queue owns retrying."""
    use_anthropic = config.backend == "anthropic" or (
        config.backend == "auto" and (client is not None or bool(environ.get("ANTHROPIC_API_KEY")))
    )
    if use_anthropic:
        from core.extraction.anthropic import AnthropicBackend

        keyless = not (environ.get("ANTHROPIC_API_KEY") or environ.get("ANTHROPIC_AUTH_TOKEN"))
        if client is None and keyless:
            # Refused here, at the worker's start, rather than in every job it would fail.
            raise ConfigError(
                "extraction.backend is anthropic but ANTHROPIC_API_KEY is not set: set it, or "
                "set extraction.backend to offline (or auto, which picks offline without a key)"
            )
        if client is None:
            import anthropic

            client = anthropic.Anthropic(max_retries=0)
        return AnthropicBackend(
            client,
            model=config.model,
            timeout_s=config.timeout_s,
            max_tokens=config.max_tokens,
        )
    from core.extraction.offline import OfflineBackend

    return OfflineBackend(latency_ms=config.stub_latency_ms)


__all__ = ["ModelBackend", "make_backend"]

"""Session extraction (design §6 Path B): model backends, the four stages and the validator.

The Huey tasks in workers/ are thin wrappers over ``Pipeline.run``; everything that decides
what is stored lives here, in the core.

Modules: ``base`` (the backend interface; ``make_backend`` here builds the configured one and
imports its implementation only then), ``anthropic`` and ``offline`` (the backends),
``pipeline`` (the stages), ``schema`` (what the stages exchange), ``validator``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_memory.core.errors import ConfigError
from agent_memory.core.extraction.base import ModelBackend
from agent_memory.core.extraction.pipeline import Pipeline, StageHooks, StageResult
from agent_memory.core.extraction.schema import (
    Candidate,
    ExtractionOutput,
    ReviewDecision,
    ReviewOutput,
    Revision,
    SummaryOutput,
)

if TYPE_CHECKING:
    from agent_memory.core.config import ExtractionConfig


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
        from agent_memory.core.extraction.anthropic import AnthropicBackend

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
    from agent_memory.core.extraction.offline import OfflineBackend

    return OfflineBackend(latency_ms=config.stub_latency_ms)


__all__ = [
    "Candidate",
    "ExtractionOutput",
    "ModelBackend",
    "Pipeline",
    "ReviewDecision",
    "ReviewOutput",
    "Revision",
    "StageHooks",
    "StageResult",
    "SummaryOutput",
    "make_backend",
]

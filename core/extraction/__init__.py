"""Session extraction (design §6 Path B): model backends, the four stages and the validator.

The Huey tasks in workers/ are thin wrappers over ``Pipeline.run``; everything that decides
what is stored lives here, in the core.
"""

from core.extraction.backend import ModelBackend, make_backend
from core.extraction.pipeline import Pipeline, StageHooks, StageResult
from core.extraction.schema import (
    Candidate,
    ExtractionOutput,
    ReviewDecision,
    ReviewOutput,
    Revision,
    SummaryOutput,
)

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

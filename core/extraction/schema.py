"""The structured output of the extraction, review and summary models, as pydantic models.

The same models give the JSON Schemas of the Anthropic backend's forced tools and validate the
answers back; the offline backend builds them directly. Field limits are generous on purpose:
the validator, not the schema, decides what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

from agent_memory.core.write.evidence import Turn

SourceClaim = Literal["user_statement", "tool_result", "system", "agent_inference"]
EntityKindName = Literal["person", "project", "org", "repo", "product", "other"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EntityMention(_Model):
    kind: EntityKindName
    name: str = Field(min_length=1, max_length=200)


class ProcedureDraft(_Model):
    name: str = Field(min_length=1, max_length=200)
    when: str = Field(min_length=1, max_length=1000)
    steps: list[str] = Field(min_length=1, max_length=50)
    pitfalls: list[str] = Field(default_factory=list, max_length=50)


class Candidate(_Model):
    """One proposed memory. ``evidence`` must be a verbatim span of one transcript turn."""

    kind: Literal["fact", "decision", "outcome", "procedure", "statement"] = Field(
        description="fact (semantic), decision or outcome (episodic), procedure (procedural), "
        "statement (episodic: the user's own informative words kept verbatim, content equal "
        "to evidence, when no short statement can phrase them)"
    )
    type: Literal["semantic", "episodic", "procedural"]
    content: str = Field(min_length=1, max_length=2000, description="one short statement")
    evidence: str = Field(
        min_length=1, max_length=2000, description="an exact quote from one transcript turn"
    )
    source_kind: SourceClaim = Field(
        description="user_statement only for the user's own words; tool_result for tool "
        "output; agent_inference for anything concluded"
    )
    attribute: str | None = Field(
        None, max_length=200, description="the aspect of the subject stated, e.g. diet"
    )
    target: str = Field("personal", max_length=100, description="symbolic write target")
    about: list[EntityMention] = Field(default_factory=list, max_length=10)
    valid_from: str | None = Field(None, description="ISO 8601, only if the evidence says so")
    valid_until: str | None = Field(None, description="ISO 8601, only if the evidence says so")
    review_at: str | None = Field(
        None, description="ISO 8601: when this dated claim should be reconsidered"
    )
    event_at: str | None = Field(
        None,
        description="ISO 8601: the day a planned or reported event happens, only if the "
        "evidence says so",
    )
    procedure: ProcedureDraft | None = None
    replaces: str | None = Field(
        None,
        max_length=100,
        description="the id of a stored record this corrects; only the reviewer sets it, from "
        "the related records it was shown",
    )
    retires: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="ids of further stored records the same correction makes stale; only the "
        "reviewer sets them, from the related records it was shown",
    )
    outdated_by: str | None = Field(
        None,
        max_length=100,
        description="the id of a stored record, stated after this candidate's evidence, whose "
        "words make it stale: it is stored as that record's history; only the reviewer sets "
        "it, from the related records it was shown",
    )
    # A statement kept as said because its other words qualify the claim a rule phrased of it
    # ("I quit Google, in my dreams lol."): the offline extractor's mark (not in the schema a
    # model reads); its record retires nothing (core.write.stale.QUALIFIED_TAG).
    qualified: SkipJsonSchema[bool] = False


MAX_CANDIDATES = 500
SUMMARY_CHARS = 2000  # the longest session summary a backend may return


class ExtractionOutput(_Model):
    """The extractor's candidates. One candidate the schema refuses (an overlong quote, an
    unknown kind) is dropped and counted in ``invalid``, not allowed to fail the whole
    answer: one bad line of a session must not cost the rest of it."""

    candidates: list[Candidate] = Field(max_length=MAX_CANDIDATES)
    invalid: SkipJsonSchema[int] = Field(0, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _drop_invalid(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("candidates"), list):
            return data
        kept, invalid = [], 0
        for raw in data["candidates"]:
            try:
                kept.append(raw if isinstance(raw, Candidate) else Candidate.model_validate(raw))
            except ValidationError:
                invalid += 1
        return {**data, "candidates": kept, "invalid": data.get("invalid", 0) + invalid}


class Revision(_Model):
    """A reviewer's narrowing of a candidate: only the fields it changes."""

    content: str | None = Field(None, min_length=1, max_length=2000)
    attribute: str | None = Field(None, max_length=200)
    source_kind: SourceClaim | None = None
    evidence: str | None = Field(None, min_length=1, max_length=2000)
    target: str | None = Field(None, max_length=100)
    about: list[EntityMention] | None = Field(None, max_length=10)
    valid_from: str | None = None
    valid_until: str | None = None
    review_at: str | None = None
    event_at: str | None = None
    replaces: str | None = Field(
        None,
        max_length=100,
        description="the id of one of the related records shown that the user's words correct "
        "(a changed value, a cancelled plan, a habit given up); the new record supersedes it",
    )
    retires: list[str] | None = Field(
        None,
        max_length=10,
        description="with replaces: ids of further related records shown that the same words "
        "make stale (another record of the old value); each is retired, history kept",
    )
    outdated_by: str | None = Field(
        None,
        max_length=100,
        description="the id of one of the related records shown, stated after this candidate's "
        "evidence (its stated_at), whose words change what the candidate says (the candidate "
        "is an older value, and the session was reviewed late); the new memory is stored as "
        "that record's history, not as current",
    )


class ReviewDecision(_Model):
    index: int = Field(ge=0, description="the candidate's index")
    verdict: Literal["accept", "reject", "revise"]
    reason: str = Field(min_length=1, max_length=1000)
    revision: Revision | None = None


class ReviewOutput(_Model):
    decisions: list[ReviewDecision] = Field(max_length=500)


class SummaryOutput(_Model):
    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS, description="what happened, dated")


@dataclass(frozen=True, slots=True)
class SessionView:
    """What every model call sees of the session: its turns, the labels of its write targets
    (never the scopes) and the one of them for decisions the user made with others."""

    session_id: str
    agent_id: str
    user_id: str
    turns: tuple[Turn, ...]
    targets: tuple[str, ...] = ("personal",)
    shared_target: str = "personal"


@dataclass(frozen=True, slots=True)
class ReviewItem:
    index: int
    candidate: Candidate
    surrounding: tuple[Turn, ...]
    # live records: id, content, evidence, source_kind, status, cosine (to the content) and
    # stated_at
    related: tuple[dict[str, Any], ...]
    # The words of each related record's turn, by id (its retrieval context without the day):
    # for the offline reviewer's reading of a turn that announces news; never shown to a model.
    related_turns: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReviewRequest:
    session: SessionView
    items: tuple[ReviewItem, ...]


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    session: SessionView
    # Contents of the records the session confirmed; the summary may state these as facts.
    kept: tuple[str, ...] = field(default_factory=tuple)
    # Contents stored as inferences (or disputed): never to be stated as facts.
    inferred: tuple[str, ...] = field(default_factory=tuple)


__all__ = [
    "Candidate",
    "EntityMention",
    "ExtractionOutput",
    "ProcedureDraft",
    "ReviewDecision",
    "ReviewItem",
    "ReviewOutput",
    "ReviewRequest",
    "Revision",
    "SessionView",
    "SummaryOutput",
    "SummaryRequest",
]

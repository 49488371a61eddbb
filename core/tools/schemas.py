"""The five memory tools' arguments as pydantic models (design §8).

Each model validates what a model sends (unknown arguments and wrong types are errors, nothing
is coerced silently) and generates the JSON Schema the model sees (core.tools.registry).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import canonical_time

MAX_CONTENT = 4000
MAX_QUOTE = 2000
MAX_IDS = 100

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)]
RecordId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Step = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT)
]


class Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _time(value: str | None, info: Any) -> str | None:
    if value is None:
        return None
    try:
        return canonical_time(value, field=info.field_name)
    except InvalidArgument as exc:
        raise ValueError(exc.message) from None


class About(Arguments):
    """An entity the record is about."""

    kind: Literal["person", "project", "org", "repo", "product", "other"]
    name: Name


class ProcedureArgs(Arguments):
    """The body of a procedural record."""

    name: Name = Field(description="Short name of the procedure.")
    when: Text = Field(max_length=MAX_CONTENT, description="When it applies.")
    steps: list[Step] = Field(min_length=1, max_length=50, description="The steps, in order.")
    pitfalls: list[Step] = Field(default_factory=list, max_length=50, description="Known pitfalls.")


class WriteArgs(Arguments):
    type: Literal["semantic", "episodic", "procedural"] = Field(
        description=(
            "semantic: a declarative fact or preference; episodic: a dated account of what "
            "happened or was decided; procedural: a named, reusable procedure."
        )
    )
    content: Text = Field(max_length=MAX_CONTENT, description="One self-contained statement.")
    source_kind: Literal[
        "user_statement", "tool_result", "system", "agent_inference", "session_summary"
    ] = Field(
        description=(
            "What supports it. user_statement needs a verbatim evidence quote from a user "
            "turn of this conversation, tool_result from a tool turn, system from a system "
            "turn; without one the record is stored as agent_inference."
        )
    )
    attribute: Name | None = Field(
        None,
        description=(
            "What aspect of the subject this states (e.g. answer_style, home_city). A later "
            "record with the same subject and attribute replaces this one."
        ),
    )
    target: Name = Field(
        "personal", description="Where to store it: one of the write targets you were given."
    )
    evidence: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUOTE)] | None = Field(
        None, description="A verbatim quote from this conversation that supports the content."
    )
    about: list[About] = Field(
        default_factory=list, max_length=10, description="Entities the record is about."
    )
    event_at: str | None = Field(None, description="When it happened (ISO 8601).")
    valid_from: str | None = Field(None, description="Stated start of validity (ISO 8601).")
    valid_until: str | None = Field(None, description="Stated end of validity (ISO 8601).")
    review_at: str | None = Field(None, description="When to re-check it (ISO 8601).")
    tags: list[Tag] = Field(default_factory=list, max_length=20)
    procedure: ProcedureArgs | None = Field(
        None, description="Required for procedural records: name, when, steps, pitfalls."
    )

    _times = field_validator("event_at", "valid_from", "valid_until", "review_at")(_time)


class ReviseArgs(Arguments):
    id: RecordId = Field(
        description="The record to revise (for merge_entities: the entity to merge away)."
    )
    action: Literal["correct", "confirm", "merge_entities"] = Field(
        description=(
            "correct: replace the record with a corrected version; confirm: the user confirmed "
            "it (quote them as evidence); merge_entities: two entities are the same."
        )
    )
    content: (
        Annotated[
            str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT)
        ]
        | None
    ) = None
    attribute: Name | None = None
    evidence: Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUOTE)] | None = None
    source_kind: Literal["user_statement", "tool_result", "system", "agent_inference"] | None = None
    into_entity: Name | None = Field(
        None, description="For merge_entities: the surviving entity's id or name."
    )
    reason: Annotated[str, StringConstraints(max_length=500)] | None = None


class ForgetArgs(Arguments):
    id: RecordId = Field(description="The record to forget.")
    reason: Annotated[str, StringConstraints(max_length=500)] | None = Field(
        None, description="Why (kept in the audit log; the content is erased)."
    )


MAX_QUERY = 10_000


class SearchArgs(Arguments):
    query: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUERY)
    ] = Field(description="What to look for, in plain words (names, topics, dates).")
    types: list[Literal["semantic", "episodic", "procedural"]] | None = Field(
        None, min_length=1, max_length=3, description="Only these memory types."
    )
    since: str | None = Field(None, description="Only events at or after this time (ISO 8601).")
    until: str | None = Field(None, description="Only events at or before this time (ISO 8601).")
    entities: list[Name] = Field(
        default_factory=list,
        max_length=10,
        description="Names of people, projects, ... it is about.",
    )
    include_history: bool = Field(False, description="Also superseded and expired records.")
    limit: int | None = Field(None, ge=1, le=50, description="At most this many results.")
    budget_tokens: int | None = Field(
        None, ge=1, le=100_000, description="Context budget for the results, in tokens."
    )
    explain: bool = Field(
        False,
        description=(
            "Return each result's full record and explanation (every generator's score, the "
            "gate, the budget) instead of the compact form."
        ),
    )

    _times = field_validator("since", "until")(_time)


class GetArgs(Arguments):
    ids: list[RecordId] = Field(min_length=1, max_length=MAX_IDS, description="Record ids.")
    include_history: bool = Field(False, description="Also return superseded and expired records.")

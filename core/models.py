"""The nouns of the system: memory types, source kinds, lifecycle states, scopes, records, grants.

Plain frozen dataclasses and string enums. Validation of model-facing input happens at the tool
boundary with pydantic (later, in core.tools); these types describe what is already trusted.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from agent_memory.core.errors import InvalidArgument, InvalidIdentifier


class MemoryType(StrEnum):
    """The three stored CoALA categories (design §3). Working memory belongs to the host."""

    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


class SourceKind(StrEnum):
    """What supports a record. Ranked; see core.policy.source_rank (design §4)."""

    USER_STATEMENT = "user_statement"
    SYSTEM = "system"
    TOOL_RESULT = "tool_result"
    SESSION_SUMMARY = "session_summary"
    AGENT_INFERENCE = "agent_inference"


class Status(StrEnum):
    """Lifecycle states. Only provisional and confirmed are retrievable by default."""

    PROVISIONAL = "provisional"
    CONFIRMED = "confirmed"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    DELETED = "deleted"


LIVE_STATUSES: frozenset[Status] = frozenset({Status.PROVISIONAL, Status.CONFIRMED})
HISTORY_STATUSES: frozenset[Status] = LIVE_STATUSES | {Status.SUPERSEDED, Status.EXPIRED}


class ScopeKind(StrEnum):
    """Who owns a record (design §5)."""

    AGENT = "agent"
    USER = "user"
    PROJECT = "project"
    ORG = "org"


class Access(StrEnum):
    """What a grant allows."""

    READ = "read"
    WRITE = "write"
    READWRITE = "readwrite"

    @property
    def can_read(self) -> bool:
        return self in (Access.READ, Access.READWRITE)

    @property
    def can_write(self) -> bool:
        return self in (Access.WRITE, Access.READWRITE)


class EntityKind(StrEnum):
    """Kinds of entity records can be about (design §8)."""

    PERSON = "person"
    PROJECT = "project"
    ORG = "org"
    REPO = "repo"
    PRODUCT = "product"
    OTHER = "other"


# Identifiers: printable, no '/', no whitespace, no ':' (it separates a scope's kind from its id),
# and short enough to index. '/' is reserved for the private scope agent:<agent_id>/<user_id>.
_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.@+=\-]{1,128}$")


def validate_id(value: object, *, what: str) -> str:
    """Return ``value`` if it is a usable agent, user, project or org id, else raise."""
    if not isinstance(value, str) or not value:
        raise InvalidIdentifier(f"{what} must be a non-empty string", field=what)
    if "/" in value:
        raise InvalidIdentifier(
            f"{what} {value!r} contains '/', which is reserved for private scopes "
            "(agent:<agent_id>/<user_id>)",
            field=what,
        )
    if not _ID_PATTERN.fullmatch(value):
        raise InvalidIdentifier(
            f"{what} {value!r} must be 1-128 characters of letters, digits and _ . @ + = -",
            field=what,
        )
    return value


@dataclass(frozen=True, slots=True)
class Scope:
    """An ownership scope: ``user:u1``, ``project:apollo``, ``org:acme``, ``agent:planner``,
    or the implicit private ``agent:planner/u1``."""

    kind: ScopeKind
    id: str
    # Set only for the private scope agent:<agent_id>/<user_id>.
    user_id: str | None = None

    @classmethod
    def parse(cls, text: object, *, field: str = "scope") -> Scope:
        """Parse a scope string, raising InvalidIdentifier with a clear message."""
        if not isinstance(text, str) or ":" not in text:
            raise InvalidIdentifier(
                f"scope must look like 'user:<id>', 'project:<id>', 'org:<id>', 'agent:<id>' "
                f"or 'agent:<agent_id>/<user_id>', got {text!r}",
                field=field,
            )
        kind_text, _, rest = text.partition(":")
        try:
            kind = ScopeKind(kind_text)
        except ValueError:
            known = ", ".join(k.value for k in ScopeKind)
            raise InvalidIdentifier(
                f"unknown scope kind {kind_text!r} in {text!r}; known kinds: {known}",
                field=field,
            ) from None
        if kind is ScopeKind.AGENT and "/" in rest:
            agent_id, _, user_id = rest.partition("/")
            return cls(
                kind,
                validate_id(agent_id, what="agent_id"),
                validate_id(user_id, what="user_id"),
            )
        return cls(kind, validate_id(rest, what=f"{kind.value} id"))

    @classmethod
    def private(cls, agent_id: str, user_id: str) -> Scope:
        """The implicit scope private to one agent-user pair."""
        return cls(
            ScopeKind.AGENT,
            validate_id(agent_id, what="agent_id"),
            validate_id(user_id, what="user_id"),
        )

    @property
    def is_private(self) -> bool:
        return self.user_id is not None

    def __str__(self) -> str:
        if self.user_id is not None:
            return f"{self.kind.value}:{self.id}/{self.user_id}"
        return f"{self.kind.value}:{self.id}"


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What the store records about the model that made its vectors."""

    name: str
    version: str
    dims: int

    def __str__(self) -> str:
        return f"{self.name} (version {self.version}, {self.dims} dims)"


@dataclass(frozen=True, slots=True)
class Grant:
    """One row of the grant table: ``agent_id`` may read and/or write ``scope``."""

    agent_id: str
    scope: str
    access: Access
    created_at: str


@dataclass(frozen=True, slots=True)
class Procedure:
    """The structured body of a procedural record (design §3)."""

    name: str
    when: str
    steps: tuple[str, ...]
    pitfalls: tuple[str, ...] = ()

    def parts(self) -> tuple[str, ...]:
        """Its name, trigger, steps and pitfalls: what it says besides the record's content."""
        return (self.name, self.when, *self.steps, *self.pitfalls)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "when": self.when,
            "steps": list(self.steps),
            "pitfalls": list(self.pitfalls),
        }


@dataclass(frozen=True, slots=True)
class Record:
    """A durable record with the full envelope of design §4.

    ``rowid`` is the store's internal integer key (the vector index is keyed by it); ``id`` is
    the public identifier models and hosts see.
    """

    id: str
    type: MemoryType
    content: str
    scope: str
    source_kind: SourceKind
    status: Status
    confidence: float
    created_at: str
    version: int = 1
    lineage_id: str | None = None
    subject_entity_id: str | None = None
    attribute: str | None = None
    subject: str | None = None
    procedure: Procedure | None = None
    source_ref: str | None = None
    creator_agent_id: str | None = None
    session_id: str | None = None
    evidence: str | None = None
    event_at: str | None = None
    expires_at: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    review_at: str | None = None
    review_flagged_at: str | None = None
    supersedes_id: str | None = None
    conflicts_with: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    # Retrieval context (the turns before a conversation turn; an extracted record's evidence
    # turn): searched and embedded after the content, never returned.
    context: str | None = None
    # When the statement was made: its evidence turn's time, else the write's (created_at).
    # Supersession orders statements by it (core.write.ingestor), not by when they were written.
    stated_at: str | None = None
    # "assistant": the assistant's own words in a session, kept by session extraction
    # (core.extraction.replies) and read only by a search that asks what the assistant said
    # (core.filters.RecordFilter.assistant_words). None for every other record.
    said_by: str | None = None
    rowid: int | None = field(default=None, compare=False)

    @property
    def statement_time(self) -> str:
        """When its statement was made: ``stated_at``, else when it was written (canonical UTC
        text, so times compare as strings)."""
        return self.stated_at or self.created_at

    def status_at(self, now: str | None) -> Status:
        """The status as of ``now`` (canonical UTC text; None: the stored status). A
        provisional record whose expires_at has come reads as expired: that is what the sweep
        (Store.expire_provisional) will write, and reads must not wait for the sweep."""
        if (
            now is not None
            and self.status is Status.PROVISIONAL
            and self.expires_at is not None
            and self.expires_at <= now
        ):
            return Status.EXPIRED
        return self.status

    def to_json(self) -> dict[str, Any]:
        """The Record shape of the public contract (a JSON-ready dict)."""
        return {
            "id": self.id,
            "type": self.type.value,
            "version": self.version,
            "content": self.content,
            "attribute": self.attribute,
            "subject": self.subject,
            "subject_entity_id": self.subject_entity_id,
            "procedure": self.procedure.to_json() if self.procedure else None,
            "scope": self.scope,
            "status": self.status.value,
            "source_kind": self.source_kind.value,
            "source_ref": self.source_ref,
            "creator_agent_id": self.creator_agent_id,
            "said_by": self.said_by,
            "evidence": self.evidence,
            "created_at": self.created_at,
            "stated_at": self.statement_time,
            "event_at": self.event_at,
            "expires_at": self.expires_at,
            "valid_from": self.valid_from,
            "valid_until": self.valid_until,
            "review_at": self.review_at,
            "review_flagged_at": self.review_flagged_at,
            "confidence": self.confidence,
            "supersedes_id": self.supersedes_id,
            "conflicts_with": list(self.conflicts_with),
            "entities": list(self.entities),
            "tags": list(self.tags),
        }


# ---------------------------------------------------------------------------------------------
# Time. Every timestamp is stored as fixed-width UTC ISO 8601 with microseconds and a 'Z', so
# that SQLite compares them correctly as text.


# The years a stored time may fall in (in UTC). Four digits keep the text fixed-width, so SQL
# text comparison and numpy's datetime parse (the vector index's mirror) order times alike.
MIN_YEAR, MAX_YEAR = 1000, 9999


def format_time(moment: datetime) -> str:
    """Format an aware datetime as the store's canonical UTC text. The year is always four
    digits (strftime("%Y") does not zero-pad years below 1000 on Linux)."""
    if moment.tzinfo is None:
        raise ValueError("naive datetimes are ambiguous; pass an aware datetime")
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def host_time(moment: object, *, field: str) -> datetime | None:
    """A moment a host passes in Python (a turn's ``at``, a call's ``now``): None, or an aware
    datetime within the years the store holds (parse_time). Anything else is InvalidArgument
    naming ``field``: text is the model's or a file's form, and a naive datetime (or one whose
    zone gives no offset) could be any time zone's."""
    if moment is None:
        return None
    if isinstance(moment, datetime) and moment.utcoffset() is not None:
        return parse_time(moment, field=field)  # within the years the store can hold
    if isinstance(moment, datetime):
        raise InvalidArgument(
            f"{field} is a naive datetime, which could be any time zone's; pass an aware one "
            "(e.g. datetime.now(UTC))",
            field=field,
        )
    raise InvalidArgument(
        f"{field} must be an aware datetime or None, got a {type(moment).__name__}", field=field
    )


def parse_time(text: object, *, field: str) -> datetime:
    """Parse ISO 8601 from a model, a file or a user. A date alone means midnight UTC; a time
    without an offset is taken as UTC. A time whose UTC value falls outside years
    MIN_YEAR..MAX_YEAR is refused (InvalidArgument naming ``field``), including one whose
    conversion to UTC overflows (0001-01-01T00:00:00+01:00)."""
    if isinstance(text, datetime):
        moment = text
    elif isinstance(text, str) and text.strip():
        raw = text.strip()
        if raw.endswith(("Z", "z")):
            raw = raw[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(raw)
        except ValueError:
            raise InvalidArgument(
                f"{field} must be an ISO 8601 date or time such as 2026-07-01 or "
                f"2026-07-01T09:30:00Z, got {text!r}",
                field=field,
            ) from None
    else:
        raise InvalidArgument(f"{field} must be an ISO 8601 string, got {text!r}", field=field)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        year: int | None = moment.astimezone(UTC).year
    except OverflowError:
        year = None
    if year is None or not MIN_YEAR <= year <= MAX_YEAR:
        raise InvalidArgument(
            f"{field} must fall between years {MIN_YEAR} and {MAX_YEAR} (in UTC), got {text!r}",
            field=field,
        )
    return moment


def canonical_time(text: object, *, field: str) -> str:
    """Parse and re-format a timestamp into the store's canonical text."""
    return format_time(parse_time(text, field=field))


def utcnow() -> datetime:
    """The current time. Called only at the edges (CLI, tool handlers); logic takes ``now``."""
    return datetime.now(UTC)


def new_id(prefix: str, now: datetime) -> str:
    """A sortable, unique id: prefix, 12 hex digits of milliseconds, 12 random hex digits."""
    millis = int(now.timestamp() * 1000)
    return f"{prefix}_{millis:012x}{secrets.token_hex(6)}"

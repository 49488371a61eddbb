"""Policy: who may read and write which scope, how much a source is trusted, when things expire.

Pure functions over their arguments and the config. Time is passed in as ``now``; nothing here
reads the clock, the environment or the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from agent_memory.core.config import Config
from agent_memory.core.errors import InvalidIdentifier, PermissionDenied
from agent_memory.core.models import (
    Access,
    Grant,
    Scope,
    ScopeKind,
    SourceKind,
    Status,
    validate_id,
)

# Design §4: a record can only supersede a record of equal or lower source rank.
SOURCE_RANK: dict[SourceKind, int] = {
    SourceKind.USER_STATEMENT: 4,
    SourceKind.SYSTEM: 3,
    SourceKind.TOOL_RESULT: 2,
    SourceKind.SESSION_SUMMARY: 2,
    SourceKind.AGENT_INFERENCE: 1,
}

# Stored confidence by source. Retrieval does not rank on confidence (design §4); it records
# how much the source was trusted and how often the record was reinforced.
INITIAL_CONFIDENCE: dict[SourceKind, float] = {
    SourceKind.USER_STATEMENT: 0.95,
    SourceKind.SYSTEM: 0.95,
    SourceKind.TOOL_RESULT: 0.9,
    SourceKind.SESSION_SUMMARY: 0.9,
    SourceKind.AGENT_INFERENCE: 0.5,
}


def source_rank(kind: SourceKind) -> int:
    """The trust rank of a source kind (4 is the highest)."""
    return SOURCE_RANK[kind]


def initial_status(kind: SourceKind) -> Status:
    """Evidenced user statements, system facts, tool results and summaries start confirmed;
    inferences start provisional."""
    return Status.PROVISIONAL if kind is SourceKind.AGENT_INFERENCE else Status.CONFIRMED


def initial_confidence(kind: SourceKind) -> float:
    return INITIAL_CONFIDENCE[kind]


def expires_at(status: Status, *, now: datetime, config: Config) -> datetime | None:
    """Provisional records expire after ``policy.provisional_ttl_days``; others never do."""
    if status is Status.PROVISIONAL:
        return now + timedelta(days=config.policy.provisional_ttl_days)
    return None


def can_supersede(new: SourceKind, old: SourceKind) -> bool:
    """A record may replace another only when its source ranks equal or higher."""
    return source_rank(new) >= source_rank(old)


# ---------------------------------------------------------------------------------------------
# Scopes and grants


@dataclass(frozen=True, slots=True)
class Principal:
    """The agent acting and the user it acts for. Always supplied by the host."""

    agent_id: str
    user_id: str

    def __post_init__(self) -> None:
        validate_id(self.agent_id, what="agent_id")
        validate_id(self.user_id, what="user_id")

    @property
    def private_scope(self) -> str:
        return str(Scope.private(self.agent_id, self.user_id))


def check_grantable(agent_id: str, scope: str) -> Scope:
    """Validate a grant request. Private agent-user scopes are implicit and cannot be granted:
    granting one would let a second agent read a pair's private memory."""
    validate_id(agent_id, what="agent_id")
    parsed = Scope.parse(scope)
    if parsed.is_private:
        raise PermissionDenied(
            f"{scope} is a private agent-user scope; it is implicit for agent "
            f"{parsed.id!r} acting for user {parsed.user_id!r} and cannot be granted",
            field="scope",
        )
    return parsed


def _applicable(grants: Iterable[Grant], principal: Principal) -> Iterator[Grant]:
    for grant in grants:
        if grant.agent_id != principal.agent_id:
            continue
        try:
            scope = Scope.parse(grant.scope)
        except InvalidIdentifier:
            continue  # a malformed row written directly into the store grants nothing
        if scope.is_private:
            # check_grantable refuses these; a row written directly into the store is ignored,
            # whatever its user suffix (design §5).
            continue
        if scope.kind is ScopeKind.USER and scope.id != principal.user_id:
            # A user's scope is reachable only while acting for that user. An agent serving
            # many users holds a grant on each of their scopes; without this rule it would read
            # Bob's memory while answering Alice.
            continue
        yield grant


def readable_scopes(principal: Principal, grants: Iterable[Grant]) -> tuple[str, ...]:
    """The scopes ``principal`` may read: its private scope plus every scope granted read,
    where a ``user:`` scope counts only if it is the principal user's own. No inheritance: a
    user grant implies nothing about projects or orgs."""
    scopes = {principal.private_scope}
    scopes.update(g.scope for g in _applicable(grants, principal) if g.access.can_read)
    return tuple(sorted(scopes))


def writable_scopes(principal: Principal, grants: Iterable[Grant]) -> tuple[str, ...]:
    """The scopes ``principal`` may write: its private scope plus every scope granted write,
    with the same own-user rule as ``readable_scopes``."""
    scopes = {principal.private_scope}
    scopes.update(g.scope for g in _applicable(grants, principal) if g.access.can_write)
    return tuple(sorted(scopes))


def merge_access(current: Access | None, added: Access) -> Access:
    """Granting read to an agent that may already write yields readwrite, and so on."""
    if current is None or current is added:
        return added
    return Access.READWRITE


__all__ = [
    "INITIAL_CONFIDENCE",
    "SOURCE_RANK",
    "Principal",
    "can_supersede",
    "check_grantable",
    "expires_at",
    "initial_confidence",
    "initial_status",
    "merge_access",
    "readable_scopes",
    "source_rank",
    "writable_scopes",
]

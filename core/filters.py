"""The hard filter: which records a search or a duplicate check may consider at all.

Scope, lifecycle status, memory type, an event-time window, and whether the assistant's own
words pass (``assistant_words``: what the assistant told the user in a session, kept by session
extraction, is read only by a search that asks what the assistant said; core.extraction.replies).
It is never a ranking signal:
every generator applies it before ranking. It has three compilations of the same predicate:

- ``sql()`` for the lexical and entity generators (a WHERE clause over ``records``),
- ``VectorIndex.mask()`` for the dense generator, over the scope, status, type and time the
  index mirrors for each vector (kept current by the same records_version delta as the vectors),
- ``rejects()`` on one fetched Record, for the retriever's check that a candidate's row still
  passes when it is read (another process may have changed it since the generators ran).

A property test holds the three to the same answer on random stores and filters.

The time window applies to a record's event time, which is ``event_at`` when it has one and its
``created_at`` otherwise (a semantic fact "happened" when it was recorded).

With ``now`` set, status is read as of ``now`` (core.models.Record.status_at): a provisional
record whose ``expires_at`` has come counts as expired whether or not the worker's sweep
(Store.expire_provisional) has written that yet, so a host that runs no worker never serves
lapsed inferences. Without ``now`` the stored status is taken as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_memory.core.models import LIVE_STATUSES, MemoryType, Record, Status

STATUS_ORDER: tuple[Status, ...] = tuple(Status)
TYPE_ORDER: tuple[MemoryType, ...] = tuple(MemoryType)


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Records in one of ``scopes``, with one of ``statuses`` as of ``now``, of one of
    ``types`` (None: any), whose event time lies in [since, until], and, only with
    ``assistant_words``, the assistant's own words (core.models.Record.said_by). Times are
    canonical UTC text; None: unbounded, and for ``now``, the stored status as it is."""

    scopes: tuple[str, ...]
    statuses: frozenset[Status] = LIVE_STATUSES
    types: frozenset[MemoryType] | None = None
    since: str | None = None
    until: str | None = None
    now: str | None = None
    assistant_words: bool = False

    @property
    def lapse_rule(self) -> str | None:
        """How a provisional record past expires_at changes the status test: "exclude" when
        the statuses admit provisional but not expired, "include" when the reverse, None when
        it changes nothing (no ``now``, or both or neither status admitted)."""
        if self.now is None:
            return None
        provisional = Status.PROVISIONAL in self.statuses
        if provisional == (Status.EXPIRED in self.statuses):
            return None
        return "exclude" if provisional else "include"

    def sql(self, alias: str = "r") -> tuple[str, list[Any]]:
        """The predicate as an SQL condition on ``alias`` (the records table) and its params."""
        if not self.scopes or not self.statuses or (self.types is not None and not self.types):
            return "0", []
        status = f"{alias}.status IN ({_marks(self.statuses)})"
        params: list[Any] = [*self.scopes, *sorted(s.value for s in self.statuses)]
        rule = self.lapse_rule
        if rule is not None:
            lapsed = (
                f"{alias}.status = 'provisional' AND {alias}.expires_at IS NOT NULL "
                f"AND {alias}.expires_at <= ?"
            )
            if rule == "exclude":
                status = f"{status} AND NOT ({lapsed})"
            else:
                status = f"({status} OR ({lapsed}))"
            params.append(self.now)
        clauses = [f"{alias}.scope IN ({_marks(self.scopes)})", status]
        if self.types is not None:
            clauses.append(f"{alias}.type IN ({_marks(self.types)})")
            params += sorted(t.value for t in self.types)
        if self.since is not None:
            clauses.append(f"coalesce({alias}.event_at, {alias}.created_at) >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append(f"coalesce({alias}.event_at, {alias}.created_at) <= ?")
            params.append(self.until)
        if not self.assistant_words:
            clauses.append(f"{alias}.said_by IS NULL")
        return " AND ".join(clauses), params

    def rejects(self, record: Record | None) -> str | None:
        """Why ``record`` (None: gone from the store) fails the predicate; None when it passes."""
        if record is None:
            return "forgotten"
        if record.scope not in self.scopes:
            return "scope changed"
        status = record.status_at(self.now)
        if status not in self.statuses:
            return f"now {status.value}"
        if self.types is not None and record.type not in self.types:
            return "type changed"
        at = record.event_at or record.created_at
        if (self.since is not None and at < self.since) or (
            self.until is not None and at > self.until
        ):
            return "event time outside the window"
        if record.said_by is not None and not self.assistant_words:
            return "the assistant's words, and the search does not ask what it said"
        return None

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description, for logs and explanations."""
        return {
            "scopes": list(self.scopes),
            "statuses": sorted(s.value for s in self.statuses),
            "types": None if self.types is None else sorted(t.value for t in self.types),
            "since": self.since,
            "until": self.until,
            "now": self.now,
            "assistant_words": self.assistant_words,
        }


def _marks(values: Any) -> str:
    return ",".join("?" * len(values))

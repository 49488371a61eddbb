"""The hard filter: which records a search or a duplicate check may consider at all.

Scope, lifecycle status, memory type and an event-time window. It is never a ranking signal:
every generator applies it before ranking. It has two compilations of the same predicate:

- ``sql()`` for the lexical and entity generators (a WHERE clause over ``records``), and
- ``VectorIndex.mask()`` for the dense generator, over the scope, status, type and time the
  index mirrors for each vector (kept current by the same records_version delta as the vectors).

A property test holds the two to the same answer on random stores and filters.

The time window applies to a record's event time, which is ``event_at`` when it has one and its
``created_at`` otherwise (a semantic fact "happened" when it was recorded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.models import LIVE_STATUSES, MemoryType, Status

STATUS_ORDER: tuple[Status, ...] = tuple(Status)
TYPE_ORDER: tuple[MemoryType, ...] = tuple(MemoryType)


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Records in one of ``scopes``, with one of ``statuses``, of one of ``types`` (None: any),
    whose event time lies in [since, until] (canonical UTC text; None: unbounded)."""

    scopes: tuple[str, ...]
    statuses: frozenset[Status] = LIVE_STATUSES
    types: frozenset[MemoryType] | None = None
    since: str | None = None
    until: str | None = None

    def sql(self, alias: str = "r") -> tuple[str, list[Any]]:
        """The predicate as an SQL condition on ``alias`` (the records table) and its params."""
        if not self.scopes or not self.statuses or (self.types is not None and not self.types):
            return "0", []
        clauses = [
            f"{alias}.scope IN ({_marks(self.scopes)})",
            f"{alias}.status IN ({_marks(self.statuses)})",
        ]
        params: list[Any] = [*self.scopes, *sorted(s.value for s in self.statuses)]
        if self.types is not None:
            clauses.append(f"{alias}.type IN ({_marks(self.types)})")
            params += sorted(t.value for t in self.types)
        if self.since is not None:
            clauses.append(f"coalesce({alias}.event_at, {alias}.created_at) >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append(f"coalesce({alias}.event_at, {alias}.created_at) <= ?")
            params.append(self.until)
        return " AND ".join(clauses), params

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description, for logs and explanations."""
        return {
            "scopes": list(self.scopes),
            "statuses": sorted(s.value for s in self.statuses),
            "types": None if self.types is None else sorted(t.value for t in self.types),
            "since": self.since,
            "until": self.until,
        }


def _marks(values: Any) -> str:
    return ",".join("?" * len(values))

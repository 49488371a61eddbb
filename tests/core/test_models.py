"""Scopes, identifiers and timestamps: the parsing every boundary relies on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent_memory.core.errors import InvalidArgument, InvalidIdentifier
from agent_memory.core.models import (
    Scope,
    ScopeKind,
    canonical_time,
    format_time,
    new_id,
    parse_time,
)


@pytest.mark.parametrize(
    ("text", "kind", "ident", "user"),
    [
        ("user:u1", ScopeKind.USER, "u1", None),
        ("project:apollo", ScopeKind.PROJECT, "apollo", None),
        ("org:acme-inc", ScopeKind.ORG, "acme-inc", None),
        ("agent:planner", ScopeKind.AGENT, "planner", None),
        ("agent:planner/u1", ScopeKind.AGENT, "planner", "u1"),
    ],
)
def test_scopes_round_trip(text: str, kind: ScopeKind, ident: str, user: str | None) -> None:
    """Every scope form parses to its parts and prints back unchanged."""
    scope = Scope.parse(text)
    assert (scope.kind, scope.id, scope.user_id) == (kind, ident, user)
    assert str(scope) == text
    assert scope.is_private == (user is not None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("team:x", "unknown scope kind 'team'"),
        ("user", "scope must look like"),
        ("user:", "must be a non-empty string"),
        ("user:a/b", "contains '/'"),
        ("project:a/b", "contains '/'"),
        ("agent:a/b/c", "contains '/'"),
        ("user:has space", "must be 1-128 characters"),
        ("user:" + "x" * 129, "must be 1-128 characters"),
        (42, "scope must look like"),
    ],
)
def test_bad_scopes_are_rejected_clearly(text: object, message: str) -> None:
    """Unknown kinds, '/' outside private scopes and odd characters raise InvalidIdentifier."""
    with pytest.raises(InvalidIdentifier, match=message):
        Scope.parse(text)


def test_private_scope_requires_valid_ids() -> None:
    """Agent and user ids cannot contain '/', so no two pairs share a private scope."""
    assert str(Scope.private("planner", "u1")) == "agent:planner/u1"
    with pytest.raises(InvalidIdentifier, match="'/'"):
        Scope.private("plan/ner", "u1")
    with pytest.raises(InvalidIdentifier, match="'/'"):
        Scope.private("planner", "u/1")


def test_times_are_canonical_utc_text_that_sorts() -> None:
    """Any offset is stored as fixed-width UTC, so text order is time order."""
    a = canonical_time("2026-07-01T09:30:00+02:00", field="t")
    b = canonical_time("2026-07-01T08:00:00Z", field="t")
    assert a == "2026-07-01T07:30:00.000000Z"
    assert a < b
    assert canonical_time("2026-07-01", field="t") == "2026-07-01T00:00:00.000000Z"
    tz = timezone(timedelta(hours=-5))
    assert format_time(datetime(2026, 1, 1, 19, tzinfo=tz)) == "2026-01-02T00:00:00.000000Z"


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "", "  ", 20260101, None])
def test_bad_times_name_the_field(bad: object) -> None:
    """Unparseable times raise InvalidArgument naming the field."""
    with pytest.raises(InvalidArgument) as info:
        parse_time(bad, field="event_at")
    assert info.value.field == "event_at"


@pytest.mark.parametrize(
    "bad",
    [
        "0999-12-31T23:59:59Z",
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC: astimezone overflows
        "9999-12-31T23:00:00-05:00",  # after year 9999 in UTC: astimezone overflows
        "1000-01-01T00:30:00+01:00",  # 0999-12-31 in UTC
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),
    ],
)
def test_times_outside_years_1000_to_9999_are_refused(bad: object) -> None:
    """Canonical text is four-digit years in UTC: anything else is InvalidArgument naming the
    field (never an OverflowError), so SQL text order and numpy's parse can never disagree."""
    with pytest.raises(InvalidArgument) as info:
        canonical_time(bad, field="since")
    assert info.value.field == "since"


def test_the_edge_years_are_accepted_and_four_digits_wide() -> None:
    """Years 1000 and 9999 (in UTC) are fine; formatting zero-pads any year to four digits."""
    assert canonical_time("1000-01-01T01:00:00+01:00", field="t") == "1000-01-01T00:00:00.000000Z"
    assert canonical_time("9999-12-31T23:59:59Z", field="t") == "9999-12-31T23:59:59.000000Z"
    assert format_time(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000000Z"
    assert format_time(datetime(5, 6, 7, 8, tzinfo=UTC)) == "0005-06-07T08:00:00.000000Z"


def test_naive_datetimes_are_refused_when_formatting() -> None:
    """Formatting a naive datetime would guess a zone; it is refused."""
    with pytest.raises(ValueError, match="naive"):
        format_time(datetime(2026, 1, 1))


def test_ids_are_unique_and_time_ordered() -> None:
    """Record ids sort by creation time and never collide."""
    t = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [new_id("mem", t + timedelta(milliseconds=i)) for i in range(200)]
    assert ids == sorted(ids)
    assert len(set(ids)) == 200

"""Policy: grants to readable and writable scopes, source ranks, status and expiry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_memory.core import policy
from agent_memory.core.config import Config
from agent_memory.core.errors import InvalidIdentifier, PermissionDenied
from agent_memory.core.models import Access, Grant, SourceKind, Status

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def grant(agent: str, scope: str, access: str = "readwrite") -> Grant:
    return Grant(agent, scope, Access(access), "2026-01-01T00:00:00.000000Z")


def test_the_private_scope_is_implicit() -> None:
    """With no grants an agent reads and writes only its private agent:<agent>/<user> scope."""
    me = policy.Principal("planner", "u1")
    assert policy.readable_scopes(me, []) == ("agent:planner/u1",)
    assert policy.writable_scopes(me, []) == ("agent:planner/u1",)


def test_grants_give_exactly_what_they_say() -> None:
    """read grants reading, write grants writing, readwrite both; nothing is inherited."""
    me = policy.Principal("planner", "u1")
    grants = [
        grant("planner", "user:u1", "readwrite"),
        grant("planner", "project:apollo", "read"),
        grant("planner", "org:acme", "write"),
        grant("someone-else", "project:zeus", "readwrite"),
    ]
    assert policy.readable_scopes(me, grants) == ("agent:planner/u1", "project:apollo", "user:u1")
    assert policy.writable_scopes(me, grants) == ("agent:planner/u1", "org:acme", "user:u1")


def test_a_user_scope_is_reachable_only_while_acting_for_that_user() -> None:
    """An agent granted user:alice and user:bob reads only Alice's while acting for Alice."""
    grants = [grant("assistant", "user:alice"), grant("assistant", "user:bob")]
    alice = policy.Principal("assistant", "alice")
    assert "user:bob" not in policy.readable_scopes(alice, grants)
    assert "user:bob" not in policy.writable_scopes(alice, grants)
    assert "user:alice" in policy.readable_scopes(alice, grants)


def test_private_scope_grants_written_into_the_store_are_ignored() -> None:
    """A private-scope grant row, for any user suffix, grants nothing (design §5)."""
    me = policy.Principal("spy", "u1")
    grants = [
        grant("spy", "agent:planner/u1"),
        grant("spy", "agent:planner/u2"),
        grant("spy", "not a scope"),
    ]
    assert policy.readable_scopes(me, grants) == ("agent:spy/u1",)


def test_granting_a_private_scope_is_refused() -> None:
    """check_grantable refuses agent:<agent>/<user> and bad ids."""
    with pytest.raises(PermissionDenied, match="private"):
        policy.check_grantable("spy", "agent:planner/u1")
    with pytest.raises(InvalidIdentifier):
        policy.check_grantable("a/b", "user:u1")
    assert str(policy.check_grantable("planner", "agent:planner")) == "agent:planner"


def test_principal_ids_cannot_contain_a_slash() -> None:
    """Agent and user ids with '/' are refused before any scope is computed."""
    with pytest.raises(InvalidIdentifier):
        policy.Principal("a/b", "u1")
    with pytest.raises(InvalidIdentifier):
        policy.Principal("a", "u/1")


def test_source_ranks_and_initial_status_follow_the_design_table() -> None:
    """user 4 > system 3 > tool and summary 2 > inference 1; only inference is provisional."""
    ranks = {k: policy.source_rank(k) for k in SourceKind}
    assert ranks == {
        SourceKind.USER_STATEMENT: 4,
        SourceKind.SYSTEM: 3,
        SourceKind.TOOL_RESULT: 2,
        SourceKind.SESSION_SUMMARY: 2,
        SourceKind.AGENT_INFERENCE: 1,
    }
    for kind in SourceKind:
        expected = Status.PROVISIONAL if kind is SourceKind.AGENT_INFERENCE else Status.CONFIRMED
        assert policy.initial_status(kind) is expected


@given(st.sampled_from(list(SourceKind)), st.sampled_from(list(SourceKind)))
def test_supersession_needs_equal_or_higher_rank(new: SourceKind, old: SourceKind) -> None:
    """can_supersede is exactly rank(new) >= rank(old)."""
    assert policy.can_supersede(new, old) == (policy.source_rank(new) >= policy.source_rank(old))


def test_agent_inference_cannot_supersede_a_user_statement() -> None:
    """The design's example: a lower-rank source cannot replace what the user said."""
    assert not policy.can_supersede(SourceKind.AGENT_INFERENCE, SourceKind.USER_STATEMENT)
    assert policy.can_supersede(SourceKind.USER_STATEMENT, SourceKind.AGENT_INFERENCE)


def test_only_provisional_records_expire_after_the_configured_days() -> None:
    """Provisional records expire after policy.provisional_ttl_days; confirmed never do."""
    config = Config()
    assert policy.expires_at(Status.PROVISIONAL, now=NOW, config=config) == NOW + timedelta(30)
    assert policy.expires_at(Status.CONFIRMED, now=NOW, config=config) is None
    short = Config(policy={"provisional_ttl_days": 7})
    assert policy.expires_at(Status.PROVISIONAL, now=NOW, config=short) == NOW + timedelta(7)


def test_merging_access_widens_it() -> None:
    """read then write is readwrite; repeating a grant keeps it."""
    assert policy.merge_access(None, Access.READ) is Access.READ
    assert policy.merge_access(Access.READ, Access.READ) is Access.READ
    assert policy.merge_access(Access.READ, Access.WRITE) is Access.READWRITE
    assert policy.merge_access(Access.READWRITE, Access.READ) is Access.READWRITE

"""A time a host passes in Python (a turn's ``at``, a call's, a session's or an end's ``now``)
is an aware datetime or None; anything else is the host's error, raised as InvalidArgument
naming the argument, and changes nothing. Before: a string raised a bare AttributeError, a
naive datetime a ValueError, and a call's string ``now`` answered internal_error with a
traceback in the log."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.stores import granted_memory


class _NoOffset(tzinfo):
    """A time zone that gives no offset: such a time is as ambiguous as a naive one."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None


BAD = [
    "yesterday",
    "2026-05-02T10:00:00Z",
    1_700_000_000,
    datetime(2026, 5, 2, 10),
    datetime(2026, 5, 2, 10, tzinfo=_NoOffset()),
    datetime(500, 5, 2, tzinfo=UTC),  # before the years the store holds
    datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5))),  # past them in UTC
]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db") as memory:
        yield memory


@pytest.fixture
def session(mem: Memory) -> Session:
    return mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)


def _turns(mem: Memory) -> int:
    return int(mem.store.query("SELECT count(*) AS n FROM turns")[0]["n"])


@pytest.mark.parametrize("at", BAD)
def test_a_turn_time_that_is_not_an_aware_datetime(mem: Memory, session: Session, at: Any) -> None:
    with pytest.raises(InvalidArgument) as raised:
        session.add_turn("user", "hello there", at=at)
    assert raised.value.field == "at"
    assert _turns(mem) == 0


@pytest.mark.parametrize("now", BAD)
def test_a_call_time_that_is_not_an_aware_datetime(session: Session, now: Any) -> None:
    with pytest.raises(InvalidArgument) as raised:
        session.call("memory_search", {"query": "hello"}, now=now)
    assert raised.value.field == "now"


@pytest.mark.parametrize("now", BAD)
def test_a_session_or_end_time_that_is_not_an_aware_datetime(
    mem: Memory, session: Session, now: Any
) -> None:
    with pytest.raises(InvalidArgument):
        mem.session(agent_id="assistant", user_id="alice", session_id="s2", now=now)
    session.add_turn("user", "hello there", at=NOW)
    with pytest.raises(InvalidArgument):
        session.end(now=now)
    assert not session.ended


def test_an_aware_time_in_any_zone_is_taken(session: Session) -> None:
    paris = timezone(timedelta(hours=2))
    assert session.add_turn("user", "hello there", at=NOW.astimezone(paris)) == 1
    assert "error" not in session.call("memory_search", {"query": "hello"}, now=NOW)

"""Forget covers what the record stands for (issue 16, item 2): every version of its lineage is
erased and reported; near-duplicates a search would collapse into it are returned, not erased,
so the caller decides; forgetting again is idempotent; bad input changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.stores import granted_memory


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db") as memory:
        yield memory


@pytest.fixture
def session(mem: Memory) -> Session:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    s.add_turn("user", "My PIN hint is the name of my first dog, Rex.", at=NOW)
    s.add_turn("user", "Sorry, my PIN hint is the name of my first cat, Tom.", at=NOW)
    return s


def call(session: Session, tool: str, **args: Any) -> dict[str, Any]:
    return session.call(tool, args, now=NOW)


def pin_lineage(session: Session) -> tuple[str, str]:
    first = call(
        session,
        "memory_write",
        type="semantic",
        content="The user's PIN hint is their first dog, Rex.",
        source_kind="user_statement",
        evidence="my PIN hint is the name of my first dog",
        attribute="pin hint",
    )
    second = call(
        session,
        "memory_revise",
        id=first["id"],
        action="correct",
        content="The user's PIN hint is their first cat, Tom.",
        source_kind="user_statement",
        evidence="my PIN hint is the name of my first cat",
    )
    assert second["supersedes_id"] == first["id"]
    return first["id"], second["id"]


def test_forget_erases_every_version_of_the_lineage(session: Session) -> None:
    """Forgetting the current PIN hint takes the superseded one with it; a history search
    finds neither, and the answer names both."""
    old, new = pin_lineage(session)
    forgot = call(session, "memory_forget", id=new, reason="user asked")
    assert forgot == {"id": new, "status": "deleted", "erased": [old, new]}
    found = call(session, "memory_search", query="PIN hint dog cat", include_history=True)
    assert found["results"] == []
    got = call(session, "memory_get", ids=[old, new], include_history=True)
    assert got["missing"] == [old, new]
    rows = session.memory.store.query(
        "SELECT record_id FROM events WHERE kind = 'record.forgotten' ORDER BY rowid"
    )
    assert [r["record_id"] for r in rows] == [old, new]


def test_forgetting_an_old_version_takes_the_current_one_too(session: Session) -> None:
    """The lineage is one statement over time, whichever version is named."""
    old, new = pin_lineage(session)
    assert call(session, "memory_forget", id=old)["erased"] == [old, new]


def test_the_host_may_erase_one_version_alone(mem: Memory, session: Session) -> None:
    """Memory.erase(lineage=False) erases the named version only."""
    old, new = pin_lineage(session)
    assert mem.erase(old, lineage=False, now=NOW) == [old]
    assert mem.store.get_records([new])[new].status.value != "deleted"


def test_forgetting_again_answers_deleted_and_changes_nothing(session: Session) -> None:
    """A retry after a lost answer is not an error: deleted, with nothing left to erase."""
    _old, new = pin_lineage(session)
    call(session, "memory_forget", id=new)
    before = session.memory.store.records_version
    assert call(session, "memory_forget", id=new) == {
        "id": new,
        "status": "deleted",
        "erased": [],
    }
    assert session.memory.store.records_version == before


def test_near_duplicates_are_returned_for_the_caller_to_decide(
    mem: Memory, session: Session
) -> None:
    """The same fact imported twice: forgetting one names the other (which a search had
    collapsed into it) and leaves it live; forgetting it too leaves nothing."""
    fact = "The user's locker code is kept in the blue notebook."
    one, two = (
        mem.import_records([{"content": fact, "source_ref": ref}], scope="user:alice", now=NOW)[0]
        for ref in ("a", "b")
    )
    assert one != two
    forgot = call(session, "memory_forget", id=one)
    assert forgot["erased"] == [one] and forgot["similar"] == [two]
    assert [r["id"] for r in call(session, "memory_search", query=fact)["results"]] == [two]
    assert call(session, "memory_forget", id=two)["erased"] == [two]
    assert call(session, "memory_search", query=fact)["results"] == []


def test_a_record_saying_it_in_one_of_its_sentences_is_returned_too(
    mem: Memory, session: Session
) -> None:
    """A longer record that says the forgotten fact in one sentence is found by that passage
    (a search for the fact returns it); forgetting the fact names it among ``similar``, which
    compared whole records only (its whole vector is far below the duplicate cosine)."""
    fact = "My sister Marta lives in Lisbon."
    longer = (
        "Thanks for the packing list, that helps a lot. Work has been crazy this month. "
        "My sister Marta lives in Lisbon."
    )
    other = "My brother Tomas lives in Porto and works at a bank."
    one, two, three = mem.import_records(
        [{"content": text} for text in (fact, longer, other)], scope="user:alice", now=NOW
    )
    forgot = call(session, "memory_forget", id=one)
    assert forgot["erased"] == [one] and forgot["similar"] == [two]
    assert two in [r["id"] for r in call(session, "memory_search", query=fact)["results"]]
    assert three not in forgot["similar"]


def test_bad_input_changes_nothing(mem: Memory, session: Session) -> None:
    """An unknown id and another user's record get not_found, with identical messages."""
    pin_lineage(session)
    [bobs] = mem.import_records([{"content": "Bob's PIN hint is Rex."}], scope="user:bob", now=NOW)
    before = mem.store.records_version
    unknown = call(session, "memory_forget", id="mem_nope")
    other = call(session, "memory_forget", id=bobs)
    assert unknown["error"]["code"] == other["error"]["code"] == "not_found"
    assert mem.erase("mem_nope", now=NOW) == []
    assert mem.store.records_version == before

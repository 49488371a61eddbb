"""memory_revise (correct, confirm, merge_entities) and memory_forget through the tool surface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.session import Session
from tests.support.clock import NOW


@pytest.fixture
def session(memory: Memory) -> Session:
    memory.grant("assistant", "user:u1", now=NOW)
    memory.grant("assistant", "project:apollo", now=NOW)
    memory.grant("assistant", "org:acme", access="read", now=NOW)
    s = memory.session(
        agent_id="assistant",
        user_id="u1",
        session_id="s-1",
        now=NOW,
        write_targets={"personal": "user:u1", "project": "project:apollo"},
    )
    s.add_turn("user", "Yes, that's right: I am vegetarian.", at=NOW)
    return s


def call(session: Session, tool: str, **args: Any) -> dict[str, Any]:
    return session.call(tool, args, now=NOW)


def test_correct_makes_a_new_version_that_supersedes_the_old(session: Session) -> None:
    """A correction is version 2 of the same lineage; the old version leaves default reads."""
    old = call(
        session,
        "memory_write",
        type="semantic",
        content="The user eats fish.",
        source_kind="agent_inference",
        attribute="diet",
    )
    fixed = call(
        session,
        "memory_revise",
        id=old["id"],
        action="correct",
        content="The user is vegetarian.",
        source_kind="user_statement",
        evidence="I am vegetarian",
    )
    assert fixed["action"] == "correct" and fixed["supersedes_id"] == old["id"]
    assert fixed["status"] == "confirmed"
    records = call(session, "memory_get", ids=[old["id"], fixed["id"]], include_history=True)
    by_id = {r["id"]: r for r in records["records"]}
    assert by_id[old["id"]]["status"] == "superseded"
    assert by_id[fixed["id"]]["version"] == 2
    assert by_id[fixed["id"]]["subject"] == by_id[old["id"]]["subject"]


def test_a_correction_cannot_come_from_a_weaker_source(session: Session) -> None:
    """An unevidenced correction of a user statement is refused and changes nothing."""
    stated = call(
        session,
        "memory_write",
        type="semantic",
        content="The user is vegetarian.",
        source_kind="user_statement",
        evidence="I am vegetarian",
    )
    before = session.memory.store.records_version
    result = call(
        session, "memory_revise", id=stated["id"], action="correct", content="The user eats meat."
    )
    assert result["error"]["code"] == "invalid_argument"
    assert result["error"]["field"] == "source_kind"
    assert session.memory.store.records_version == before


def test_a_user_confirmation_confirms_a_provisional_record(session: Session) -> None:
    """confirm with the user's quote turns a provisional inference into a confirmed fact."""
    guess = call(
        session,
        "memory_write",
        type="semantic",
        content="The user is vegetarian.",
        source_kind="agent_inference",
    )
    assert guess["status"] == "provisional"
    confirmed = call(
        session, "memory_revise", id=guess["id"], action="confirm", evidence="I am vegetarian"
    )
    assert (confirmed["status"], confirmed["source_kind"]) == ("confirmed", "user_statement")
    [record] = call(session, "memory_get", ids=[guess["id"]])["records"]
    assert record["status"] == "confirmed" and record["expires_at"] is None


def test_confirm_without_the_users_words_only_reinforces(session: Session) -> None:
    """An agent's own confirmation raises confidence but does not promote."""
    guess = call(
        session,
        "memory_write",
        type="semantic",
        content="The user likes jazz.",
        source_kind="agent_inference",
    )
    result = call(session, "memory_revise", id=guess["id"], action="confirm")
    assert result["status"] == "provisional"
    rows = session.memory.store.query("SELECT confidence FROM records")
    assert rows[0]["confidence"] > 0.5


def test_merge_entities_repoints_records_subjects_and_search_text(session: Session) -> None:
    """Merging 'Apollo program' into 'Apollo' moves links, subjects, aliases and FTS text."""
    a = call(
        session,
        "memory_write",
        type="semantic",
        content="Apollo ships on Fridays.",
        source_kind="agent_inference",
        target="project",
        attribute="ship_day",
        about=[{"kind": "project", "name": "Apollo"}],
    )
    b = call(
        session,
        "memory_write",
        type="semantic",
        content="The program's budget is 2M.",
        source_kind="agent_inference",
        target="project",
        attribute="budget",
        about=[{"kind": "project", "name": "Apollo program"}],
    )
    records = call(session, "memory_get", ids=[a["id"], b["id"]])["records"]
    survivor, loser = records[0]["entities"][0], records[1]["entities"][0]
    assert survivor != loser
    merged = call(
        session,
        "memory_revise",
        id=loser,
        action="merge_entities",
        into_entity="apollo",
        reason="same project",
    )
    assert merged["id"] == survivor and merged["records_repointed"] == 1
    [moved] = call(session, "memory_get", ids=[b["id"]])["records"]
    assert moved["entities"] == [survivor]
    assert moved["subject"] == f"{survivor}:budget"
    store = session.memory.store
    fts = store.query("SELECT rowid FROM records_fts WHERE records_fts MATCH 'aliases:program'")
    assert len(fts) == 2  # both records now carry the merged aliases
    event = store.query("SELECT payload FROM events WHERE kind = 'entity.merged'")
    assert "same project" in event[0]["payload"]


def test_merge_never_crosses_scopes(memory: Memory, session: Session) -> None:
    """An entity in another scope cannot be the survivor, even with the same name."""
    bob = memory.session(agent_id="assistant", user_id="bob", session_id="s-b", now=NOW)
    memory.grant("assistant", "user:bob", now=NOW)
    theirs = call(
        bob,
        "memory_write",
        type="semantic",
        content="Sam is a pilot.",
        source_kind="agent_inference",
        about=[{"kind": "person", "name": "Sam"}],
    )
    mine = call(
        session,
        "memory_write",
        type="semantic",
        content="Sam is a dentist.",
        source_kind="agent_inference",
        about=[{"kind": "person", "name": "Sam"}],
    )
    my_sam = call(session, "memory_get", ids=[mine["id"]])["records"][0]["entities"][0]
    their_sam = call(bob, "memory_get", ids=[theirs["id"]])["records"][0]["entities"][0]
    result = call(
        session, "memory_revise", id=my_sam, action="merge_entities", into_entity=their_sam
    )
    assert result["error"]["code"] == "not_found"


def note_about(session: Session, content: str, person: str, target: str | None = None) -> str:
    """Write an agent_inference about ``person``; return the entity the note links to."""
    args = {"target": target} if target else {}
    made = call(
        session,
        "memory_write",
        type="semantic",
        content=content,
        source_kind="agent_inference",
        about=[{"kind": "person", "name": person}],
        **args,
    )
    [entity] = call(session, "memory_get", ids=[made["id"]])["records"][0]["entities"]
    return str(entity)


def test_a_merge_into_an_entity_of_another_readable_scope_is_refused(session: Session) -> None:
    """Even by id and with both scopes readable and writable, a merge stays inside one scope:
    it moves aliases, and aliases belong to their scope."""
    mine = note_about(session, "Sam is a dentist.", "Sam")
    theirs = note_about(session, "Samuel reviews the launch plan.", "Samuel", target="project")
    result = call(session, "memory_revise", id=theirs, action="merge_entities", into_entity=mine)
    assert result["error"]["code"] == "invalid_argument"
    assert result["error"]["field"] == "into_entity"


def test_aliases_of_an_entity_in_another_scope_never_find_a_record(
    memory: Memory, session: Session
) -> None:
    """A project note may link to a person in the user's scope, but a reader of the project
    alone must not find it by that person's aliases, before or after a merge in the user's
    scope adds more of them."""
    aditya = note_about(session, "Aditya likes tea.", "Aditya")
    nickname = note_about(session, "Zorblax Quux is a nickname.", "Zorblax Quux")
    linked = note_about(session, "The deploy budget was approved.", "Aditya", target="project")
    assert linked == aditya  # the project note really links to the user's entity
    merged = call(
        session, "memory_revise", id=nickname, action="merge_entities", into_entity=aditya
    )
    assert merged["id"] == aditya
    memory.grant("reader", "project:apollo", access="read", now=NOW)
    reader = memory.session(agent_id="reader", user_id="u2", session_id="s-r", now=NOW)
    for query in ("Zorblax", "Aditya"):
        result = call(reader, "memory_search", query=query)
        assert result["results"] == []
        assert result["explanation"]["candidates"]["lexical"] == 0, query
    # The project note's own full-text row holds none of the person's aliases.
    (note,) = memory.store.query(
        "SELECT f.aliases FROM records_fts AS f JOIN records AS r ON r.rowid = f.rowid "
        "WHERE r.scope = 'project:apollo'"
    )
    assert "Zorblax" not in note["aliases"] and "Aditya" not in note["aliases"]


def test_forget_erases_a_unique_sentence_from_the_database_files(
    tmp_path: Path, session: Session
) -> None:
    """memory_forget: the sentence no longer occurs in any byte of the store's files."""
    sentence = "The blue heron of Quarry Lane hums exactly 8841 notes."
    made = call(
        session,
        "memory_write",
        type="semantic",
        content=sentence,
        source_kind="agent_inference",
        tags=["heron"],
    )
    assert call(session, "memory_forget", id=made["id"], reason="user asked") == {
        "id": made["id"],
        "status": "deleted",
        "erased": [made["id"]],
    }
    store_dir = session.memory.path.parent
    for file in store_dir.iterdir():
        if file.name.startswith(session.memory.path.name):
            data = file.read_bytes()
            assert sentence.encode() not in data, file.name
            assert b"Quarry Lane" not in data, file.name
    assert call(session, "memory_get", ids=[made["id"]], include_history=True)["missing"] == [
        made["id"]
    ]
    events = session.memory.store.query(
        "SELECT kind, record_id, payload FROM events WHERE kind = 'record.forgotten'"
    )
    assert events[0]["record_id"] == made["id"] and "user asked" in events[0]["payload"]


def test_forget_respects_scopes(memory: Memory, session: Session) -> None:
    """Unreadable records are not found; readable but read-only ones cannot be forgotten."""
    [org_record] = memory.import_records(
        [
            {
                "content": "ACME's fiscal year starts in April.",
                "about": [{"kind": "org", "name": "ACME"}],
            }
        ],
        scope="org:acme",
        now=NOW,
    )
    [other] = memory.import_records([{"content": "Bob's secret."}], scope="user:bob", now=NOW)
    denied = call(session, "memory_forget", id=org_record)
    assert denied["error"]["code"] == "permission_denied"
    hidden = call(session, "memory_forget", id=other)
    unknown = call(session, "memory_forget", id="mem_does_not_exist")
    assert hidden["error"]["code"] == unknown["error"]["code"] == "not_found"
    assert hidden["error"]["message"].replace(other, "X") == unknown["error"]["message"].replace(
        "mem_does_not_exist", "X"
    )

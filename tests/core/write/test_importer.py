"""Bulk import: validated up front, batched, source_ref verbatim, nothing written on error."""

from __future__ import annotations

import numpy as np
import pytest

from agent_memory.core import Memory
from agent_memory.core.errors import InvalidArgument, InvalidIdentifier
from tests.support.clock import NOW


def test_import_keeps_order_source_ref_and_fields(memory: Memory) -> None:
    """Ids come back in input order and each record keeps what it was given."""
    items = [
        {"content": "Alice prefers tea.", "source_ref": "crm:42/Ä", "tags": ["drinks", "drinks"]},
        {
            "content": "Met Bob in Berlin.",
            "type": "episodic",
            "event_at": "2026-05-01T10:00:00+02:00",
            "source_kind": "session_summary",
            "source_ref": "D1:3",
        },
        {"content": "Alice might like jazz.", "source_kind": "agent_inference"},
    ]
    ids = memory.import_records(
        items, scope="user:alice", agent_id="importer", batch_size=2, now=NOW
    )
    records = memory.store.get_records(ids)
    tea, met, jazz = (records[i] for i in ids)
    assert tea.source_ref == "crm:42/Ä" and tea.tags == ("drinks",)
    assert tea.status.value == "confirmed" and tea.creator_agent_id == "importer"
    assert met.type.value == "episodic" and met.event_at == "2026-05-01T08:00:00.000000Z"
    assert jazz.status.value == "provisional"
    assert jazz.expires_at == "2026-12-29T12:00:00.000000Z"  # 30 days after NOW
    assert tea.expires_at is None
    assert memory.store.records_version == 3


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"content": ""}, "content"),
        ({"content": "   "}, "blank"),
        ({"content": "x" * 8001}, "content"),
        ({"content": "ok", "type": "working"}, "type"),
        ({"content": "ok", "source_kind": "rumour"}, "source_kind"),
        ({"content": "ok", "event_at": "last tuesday"}, "event_at"),
        ({"content": "ok", "tags": "not-a-list"}, "tags"),
        ({"content": "ok", "about": [{"kind": "planet", "name": "Mars"}]}, "about"),
        ({"content": "ok", "about": [{"kind": "person"}]}, "about"),
        ({"content": "ok", "scope": "user:other"}, "scope"),
        ({"text": "wrong key"}, "content"),
        ("not an object", "JSON object"),
    ],
)
def test_one_bad_record_rejects_the_whole_import(
    fast_memory: Memory, bad: object, message: str
) -> None:
    """A bad item raises InvalidArgument naming its position and field; nothing is written."""
    good = {"content": "fine"}
    with pytest.raises(InvalidArgument, match="record 1") as info:
        fast_memory.import_records([good, bad, good], scope="user:u1", now=NOW)  # type: ignore[list-item]
    assert message in str(info.value)
    assert fast_memory.stats()["records"] == 0
    assert fast_memory.store.records_version == 0


def test_import_into_a_malformed_scope_is_refused(fast_memory: Memory) -> None:
    """The scope is validated before any work."""
    with pytest.raises(InvalidIdentifier):
        fast_memory.import_records([{"content": "x"}], scope="team:x", now=NOW)
    assert fast_memory.stats()["records"] == 0


def test_a_long_context_never_pushes_the_content_out_of_the_vector(memory: Memory) -> None:
    """Two records with the same 300-word context but different content must not get the
    same vector: the embedder keeps 256 tokens, so the content has to come first."""
    context = "We talked about the weather and the garden for a long while. " * 25
    ids = memory.import_records(
        [
            {"content": "Alice is allergic to peanuts.", "type": "episodic", "context": context},
            {
                "content": "The staging database is in Frankfurt.",
                "type": "episodic",
                "context": context,
            },
        ],
        scope="user:alice",
        agent_id="importer",
        now=NOW,
    )
    peanuts, database = (
        np.frombuffer(
            memory.store.query(
                "SELECT e.vector FROM embeddings AS e JOIN records AS r "
                "ON r.rowid = e.record_rowid WHERE r.id = ?",
                [record_id],
            )[0]["vector"],
            np.float32,
        )
        for record_id in ids
    )
    assert float(peanuts @ database) < 0.9


def test_an_import_run_again_converges_without_duplicates(fast_memory: Memory) -> None:
    """Each item is imported once: a second run (after a crash, or by mistake) returns the
    same ids and writes nothing; new items in it are written; the same item twice in one call
    is stored twice, and converges too; a changed content is a new item."""
    from agent_memory.core.write.importer import import_items

    items = [
        {"type": "episodic", "content": f"Note {i}.", "source_ref": f"row-{i}"} for i in range(5)
    ]
    first = import_items(fast_memory.engine, items[:3], scope="user:alice", batch_size=2, now=NOW)
    assert (first.created, first.already_stored) == (3, 0)
    again = import_items(fast_memory.engine, items, scope="user:alice", batch_size=2, now=NOW)
    assert again.ids[:3] == first.ids and (again.created, again.already_stored) == (2, 3)
    edited = {**items[0], "content": "Note 0, corrected."}
    twice = import_items(fast_memory.engine, [edited, edited], scope="user:alice", now=NOW)
    assert twice.ids[0] != twice.ids[1] and twice.created == 2
    assert (
        import_items(fast_memory.engine, [edited, edited], scope="user:alice", now=NOW).ids
        == twice.ids
    )
    other_scope = fast_memory.import_records(items[:1], scope="user:bob", now=NOW)
    assert other_scope[0] not in again.ids
    rows = fast_memory.store.query(
        "SELECT source_ref, count(*) AS n FROM records GROUP BY scope, source_ref, content "
        "HAVING n > 1"
    )
    assert [tuple(r) for r in rows] == [("row-0", 2)]  # the edited copy, imported twice
    assert fast_memory.store.query("SELECT count(*) AS n FROM records")[0]["n"] == 8


def test_an_item_is_stated_when_the_host_says(fast_memory: Memory) -> None:
    """``stated_at`` is stored as given (search orders what was said by it); without it a
    record is stated when imported. An item stated when it happened keys as it did before
    the field existed, so importing it again after an upgrade stores nothing twice; stated at
    another time, it is another item. A bad time is refused, naming the field."""
    from agent_memory.core.write.importer import import_items

    said = {"type": "episodic", "content": "user: I moved to Leeds.", "source_ref": "t7"}
    at = "2026-03-02T09:30:00Z"
    before = import_items(
        fast_memory.engine, [{**said, "event_at": at}], scope="user:alice", now=NOW
    )
    dated = import_items(
        fast_memory.engine, [{**said, "event_at": at, "stated_at": at}], scope="user:alice", now=NOW
    )
    assert dated.ids == before.ids and dated.already_stored == 1
    later = import_items(
        fast_memory.engine,
        [{**said, "event_at": at, "stated_at": "2026-04-01T00:00:00+02:00"}],
        scope="user:alice",
        now=NOW,
    )
    assert later.created == 1
    records = fast_memory.store.get_records([*before.ids, *later.ids])
    assert records[before.ids[0]].statement_time == "2026-11-29T12:00:00.000000Z"  # NOW
    assert records[later.ids[0]].statement_time == "2026-03-31T22:00:00.000000Z"
    with pytest.raises(InvalidArgument, match="stated_at") as refused:
        fast_memory.import_records([{**said, "stated_at": "last spring"}], scope="user:alice")
    assert refused.value.field == "stated_at"
    assert fast_memory.store.query("SELECT count(*) AS n FROM records")[0]["n"] == 2


def test_an_item_of_the_assistants_words_is_marked_and_keys_apart(fast_memory: Memory) -> None:
    """``said_by`` "assistant" marks the assistant's own words (read only when a search asks
    what it said: core.filters); an item without it keys as it did before the field existed,
    so importing it again after an upgrade stores nothing twice."""
    from agent_memory.core.write.importer import import_items

    said = {"type": "episodic", "content": "assistant: Try the Nasi Goreng.", "source_ref": "t8"}
    plain = import_items(fast_memory.engine, [said], scope="user:alice", now=NOW)
    again = import_items(
        fast_memory.engine, [{**said, "said_by": None}], scope="user:alice", now=NOW
    )
    assert again.ids == plain.ids and again.already_stored == 1
    marked = import_items(
        fast_memory.engine, [{**said, "said_by": "assistant"}], scope="user:alice", now=NOW
    )
    assert marked.created == 1
    records = fast_memory.store.get_records([*plain.ids, *marked.ids])
    assert records[plain.ids[0]].said_by is None
    assert records[marked.ids[0]].said_by == "assistant"
    with pytest.raises(InvalidArgument, match="said_by"):
        fast_memory.import_records([{**said, "said_by": "user"}], scope="user:alice")

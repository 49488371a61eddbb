"""The audit events keep the stored shape they always had: old stores read the same."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from agent_memory.core import events
from agent_memory.core.store import Store
from agent_memory.core.store.log import append, append_event
from tests.support.clock import NOW

# Each event, the kind and the payload keys it has always been stored with.
STORED_SHAPES: list[tuple[events.Event, str, set[str]]] = [
    (
        events.RecordCreated(type="semantic", scope="u", status="confirmed", source_kind="system"),
        "record.created",
        {"type", "scope", "status", "source_kind"},
    ),
    (
        events.RecordImported(type="semantic", scope="u", status="confirmed", source_kind="system"),
        "record.imported",
        {"type", "scope", "status", "source_kind"},
    ),
    (events.RecordForgotten(reason=None), "record.forgotten", {"reason"}),
    (events.RecordExpired(), "record.expired", set()),
    (events.RecordReviewDue(review_at="2026"), "record.review_due", {"review_at", "reason"}),
    (events.RecordSuperseded(by="mem_1"), "record.superseded", {"by"}),
    (events.RecordSuperseded(by="mem_1", reason="r"), "record.superseded", {"by", "reason"}),
    (
        events.RecordReinforced(
            session_id="s",
            source_kind="user_statement",
            status="provisional",
            confidence=0.5,
            evidence_turn=None,
        ),
        "record.reinforced",
        {"session_id", "source_kind", "status", "confidence", "evidence_turn"},
    ),
    (
        events.RecordConfirmed(
            session_id="s",
            source_kind="agent_inference",
            status="provisional",
            confidence=0.5,
            evidence_turn=None,
        ),
        "record.confirmed",
        {"session_id", "source_kind", "status", "confidence", "evidence_turn"},
    ),
    (
        events.RecordPromoted(
            session_id="s",
            source_kind="user_statement",
            status="confirmed",
            confidence=0.7,
            evidence_turn={"session_id": "s", "seq": 1},
            reason="r",
            turns=[["s", 1], ["s", 2]],
        ),
        "record.promoted",
        {"session_id", "source_kind", "status", "confidence", "evidence_turn", "reason", "turns"},
    ),
    (
        events.RecordRedacted(reason=None, scope="u", turns_redacted=0),
        "record.redacted",
        {"reason", "scope", "turns_redacted"},
    ),
    (
        events.RecordSuppressed(reason=None, scope="u", turns_redacted=0),
        "record.suppressed",
        {"reason", "scope", "turns_redacted"},
    ),
    (
        events.RecordTracesErased(rows={"search_log": 1}, summaries=[], entities=[]),
        "record.traces_erased",
        {"search_log", "summaries", "entities"},
    ),
    (
        events.RecordContextErased(forgotten="mem_1"),
        "record.context_erased",
        {"forgotten"},
    ),
    (
        events.RecordContextNarrowed(retired="mem_1"),
        "record.context_narrowed",
        {"retired"},
    ),
    (
        events.RecordSummaryNarrowed(retired="mem_1"),
        "record.summary_narrowed",
        {"retired"},
    ),
    (
        events.RecordPartKept(retired="mem_1", by="mem_2"),
        "record.part_kept",
        {"retired", "by"},
    ),
    (
        events.TurnRedacted(session_id="s", seq=1, reason="forgotten"),
        "turn.redacted",
        {"session_id", "seq", "reason"},
    ),
    (
        events.EntityCreated(entity_id="ent_1", entity_kind="person", scope="u"),
        "entity.created",
        {"entity_id", "kind", "scope"},
    ),
    (
        events.EntityMerged(merged="a", into="b", records=0, reason=None),
        "entity.merged",
        {"merged", "into", "records", "reason"},
    ),
    (events.GrantPut(scope="u", access="read"), "grant.put", {"scope", "access"}),
    (events.GrantRevoked(scope="u", existed=True), "grant.revoked", {"scope", "existed"}),
    (
        events.SessionStarted(session_id="s", user_id="u"),
        "session.started",
        {"session_id", "user_id"},
    ),
    (
        events.SessionEnded(session_id="s", job_id="j", reason="ended"),
        "session.ended",
        {"session_id", "job_id", "reason"},
    ),
    (events.JobDone(job_id="j", session_id="s"), "job.done", {"job_id", "session_id"}),
    (
        events.JobFailed(job_id="j", stage="extract", error="x"),
        "job.failed",
        {"job_id", "stage", "error"},
    ),
    (
        events.StoreEmbedderBound(embedder=None, previous=None),
        "store.embedder_bound",
        {"embedder", "previous"},
    ),
    (
        events.StoreReembedded(embedder=None, previous=None, records=0),
        "store.reembedded",
        {"embedder", "previous", "records"},
    ),
    (events.StoreRestored(source="snap.db"), "store.restored", {"source"}),
    (events.RetentionApplied(deleted={"turns": 1}), "retention.applied", {"deleted"}),
    (
        events.UserForgotten(user_id="u", counts={"records": 1}, sessions=0),
        "user.forgotten",
        {"user_id", "counts", "sessions"},
    ),
]


def test_each_kind_keeps_its_name_and_payload_keys() -> None:
    for event, kind, keys in STORED_SHAPES:
        assert event.kind == kind
        assert set(event.payload()) == keys, kind
    assert len(events.JobFailed(job_id="j", stage="s", error="x" * 900).payload()["error"]) == 500


def test_an_event_is_stored_as_the_same_row_as_one_given_by_name(tmp_path: Path) -> None:
    """``append`` of a dataclass writes byte for byte the row ``append_event`` writes for the
    same kind, ids and payload (the way every event was written before the dataclasses)."""
    store = Store.open(tmp_path / "m.db")
    try:
        merged = events.EntityMerged(agent_id="a", merged="x", into="y", records=2, reason=None)
        with store.transaction() as conn:
            append(conn, merged, at=NOW)
            append_event(
                conn,
                kind="entity.merged",
                at=NOW,
                agent_id="a",
                payload={"merged": "x", "into": "y", "records": 2, "reason": None},
            )
        rows = store.query("SELECT at, kind, record_id, agent_id, payload FROM events")
    finally:
        store.close()
    first, second = (tuple(r) for r in rows[-2:])
    assert first == second
    assert json.loads(first[4]) == {"merged": "x", "into": "y", "records": 2, "reason": None}
    assert isinstance(rows[0], sqlite3.Row)

"""The lifecycle sweeps over records: provisional records past their expiry, and reviews that
fell due (design §6 Path C). Each claims its rows and records the change in one transaction,
so two workers sweeping at once never both act on a record.
"""

from __future__ import annotations

from datetime import datetime

from agent_memory.core import events
from agent_memory.core.models import Record, format_time
from agent_memory.core.store.base import StoreBase
from agent_memory.core.store.log import append
from agent_memory.core.store.records import changed, select_records


class SweepsMixin(StoreBase):
    """The Store's sweeps: ``expire_provisional``, ``due_reviews``, ``flag_due_reviews``."""

    def expire_provisional(self, *, now: datetime) -> list[str]:
        """Set provisional records past expires_at to expired, with events, atomically. Reads
        do not wait for this: a RecordFilter with ``now`` and Record.status_at already treat
        such a record as expired; the sweep makes the stored status say so."""
        at = format_time(now)
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT rowid, id FROM records WHERE status = 'provisional' "
                "AND expires_at IS NOT NULL AND expires_at <= ?",
                (at,),
            ).fetchall()
            if not rows:
                return []
            conn.executemany(
                "UPDATE records SET status = 'expired', updated_at = ? WHERE rowid = ?",
                [(at, rowid) for rowid, _ in rows],
            )
            expired = [events.RecordExpired(record_id=record_id) for _, record_id in rows]
            changed(conn, [rowid for rowid, _ in rows], *expired, at=now)
        return [record_id for _, record_id in rows]

    def due_reviews(self, *, now: datetime, limit: int) -> list[Record]:
        """Live records whose review_at is due and not yet flagged, oldest first."""
        with self._lock:
            return select_records(
                self._connection(),
                "r.review_at IS NOT NULL AND r.review_at <= ? AND r.review_flagged_at IS NULL "
                "AND r.status IN ('provisional', 'confirmed') ORDER BY r.review_at LIMIT ?",
                (format_time(now), limit),
            )

    def flag_due_reviews(self, *, now: datetime, limit: int) -> list[str]:
        """Claim due reviews atomically: review_flagged_at set and a record.review_due event
        appended in one transaction; the flag is the claim, so a second sweep finds nothing.
        Nothing else about the record changes (design §6 Path C)."""
        at = format_time(now)
        with self.transaction() as conn:
            rows = conn.execute(
                "SELECT rowid, id, review_at FROM records WHERE review_at IS NOT NULL "
                "AND review_at <= ? AND review_flagged_at IS NULL "
                "AND status IN ('provisional', 'confirmed') ORDER BY review_at LIMIT ?",
                (at, limit),
            ).fetchall()
            for rowid, record_id, review_at in rows:
                conn.execute(
                    "UPDATE records SET review_flagged_at = ? WHERE rowid = ? "
                    "AND review_flagged_at IS NULL",
                    (at, rowid),
                )
                # Not a change the indexes replay (nothing they hold moved): the event alone.
                append(
                    conn, events.RecordReviewDue(record_id=record_id, review_at=review_at), at=now
                )
        return [record_id for _, record_id, _ in rows]

"""Retention of the personal text that accumulates beside the records (issue 16, item 5).

The search log keeps every query and its explanation, the write log every request, and the
turns of every session stay after extraction. ``retention.*_days`` bound each (0, the default,
keeps everything, as before); the worker's sweep calls ``apply``, which deletes what is older
in one transaction, then merges nothing (these tables have no FTS) but checkpoints the WAL so
the deleted text leaves both files (``secure_delete`` zeroes the freed pages). Transcripts go
only for sessions that ended before the cut-off and whose extraction job is done or failed, or
that were closed without one (a CLI command's): a transcript still waiting for its job is
what the job reads. The session row stays, so a later
``end()`` of the same id is still refused. An event counts what went, never what it said.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agent_memory.core import events
from agent_memory.core.config import RetentionConfig
from agent_memory.core.store import Store, log


def apply(store: Store, config: RetentionConfig, *, now: datetime) -> dict[str, int]:
    """Delete what is past its retention; rows deleted per table (empty: nothing to do)."""
    cuts = {
        "search_log": config.search_log_days,
        "write_log": config.write_log_days,
        "turns": config.transcript_days,
    }
    cuts = {table: days for table, days in cuts.items() if days > 0}
    if not cuts:
        return {}
    deleted: dict[str, int] = {}
    with store.transaction() as conn:
        for table, days in cuts.items():
            deleted[table] = log.delete_before(conn, table, now - timedelta(days=days))
        deleted = {t: n for t, n in deleted.items() if n}
        if deleted:
            log.append(conn, events.RetentionApplied(deleted=deleted), at=now)
    if deleted:
        store.purge()
    return deleted


__all__ = ["apply"]

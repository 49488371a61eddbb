"""Idempotency keys of the HTTP server (api.http.idempotency): the first answer to a
write-like request, kept per agent, so that a retry with the same key is answered again
instead of written again.

A request first *claims* its key (one write transaction): a new key is reserved (status 0,
in progress) before the work runs, so a concurrent retry, in this process or another one on
the same store, waits its turn instead of writing a second time; the answer is then
*completed* into the row. A claim left in progress longer than ``stale_seconds`` (its
process died) may be taken over. Rows older than ``ttl_seconds`` are dropped on each claim.
A second backend implements each function here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from agent_memory.core.models import format_time
from agent_memory.core.store.base import StoreBase as Store

ClaimState = Literal["new", "replay", "mismatch", "in_progress"]


@dataclass(frozen=True, slots=True)
class Claim:
    """What a claim found: ``new`` (reserved: do the work, then ``complete``), ``replay``
    (the first answer, ``status`` and ``body``), ``mismatch`` (the key was used for another
    request) or ``in_progress`` (the first request is still being answered)."""

    state: ClaimState
    status: int = 0
    body: str | None = None


def claim(
    store: Store,
    agent_id: str,
    key: str,
    *,
    request_digest: str,
    user_id: str | None,
    now: datetime,
    ttl_seconds: float,
    stale_seconds: float,
) -> Claim:
    at = format_time(now)
    with store.transaction() as conn:
        conn.execute(
            "DELETE FROM idempotency WHERE created_at < ?",
            (format_time(now - timedelta(seconds=ttl_seconds)),),
        )
        row = conn.execute(
            "SELECT request_digest, status, body, created_at FROM idempotency "
            "WHERE agent_id = ? AND key = ?",
            (agent_id, key),
        ).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO idempotency (agent_id, key, user_id, request_digest, status, "
                "created_at) VALUES (?, ?, ?, ?, 0, ?)",
                (agent_id, key, user_id, request_digest, at),
            )
            return Claim("new")
        if row[0] != request_digest:
            return Claim("mismatch")
        if row[1] != 0:
            return Claim("replay", int(row[1]), row[2])
        if row[3] >= format_time(now - timedelta(seconds=stale_seconds)):
            return Claim("in_progress")
        conn.execute(  # abandoned by a process that died: this request answers it
            "UPDATE idempotency SET created_at = ? WHERE agent_id = ? AND key = ?",
            (at, agent_id, key),
        )
        return Claim("new")


def complete(store: Store, agent_id: str, key: str, *, status: int, body: str) -> None:
    """Keep the answer of a claimed request."""
    with store.transaction() as conn:
        conn.execute(
            "UPDATE idempotency SET status = ?, body = ? WHERE agent_id = ? AND key = ?",
            (status, body, agent_id, key),
        )


def release(store: Store, agent_id: str, key: str) -> None:
    """Give a claim up (the request failed without an answer worth keeping): a retry runs."""
    with store.transaction() as conn:
        conn.execute(
            "DELETE FROM idempotency WHERE agent_id = ? AND key = ? AND status = 0",
            (agent_id, key),
        )


__all__ = ["Claim", "claim", "complete", "release"]

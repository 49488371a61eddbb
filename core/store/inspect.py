"""What the inspector (api.http.inspector) reads: a user's records in every status, and the
searches made for that user, newest first. Reads only. A second backend implements each
function here."""

from __future__ import annotations

import json
from typing import Any

from agent_memory.core.models import Record, validate_id
from agent_memory.core.store.base import StoreBase as Store
from agent_memory.core.store.records import select_records

_USER_SCOPES = (
    "(r.scope = ? OR (substr(r.scope, 1, 6) = 'agent:' AND substr(r.scope, -length(?) - 1) "
    "= '/' || ?))"
)


def user_records(store: Store, user_id: str, *, limit: int = 500) -> list[Record]:
    """The user's records (user:<id> and the private agent:<agent>/<id> scopes), every
    status, tombstones included, newest first."""
    user = validate_id(user_id, what="user_id")
    with store.reading() as conn:
        return select_records(
            conn,
            f"{_USER_SCOPES} ORDER BY r.rowid DESC LIMIT ?",
            (f"user:{user}", user, user, int(limit)),
        )


def user_searches(store: Store, user_id: str, *, limit: int = 20) -> list[dict[str, Any]]:
    """The search log's rows for the user, newest first: the request, the results and the
    explanation kept for each."""
    user = validate_id(user_id, what="user_id")
    rows = store.query(
        "SELECT id, at, agent_id, session_id, query, result_ids, total_ms, payload "
        "FROM search_log WHERE user_id = ? ORDER BY at DESC, rowid DESC LIMIT ?",
        (user, int(limit)),
    )
    return [
        {
            "id": r["id"],
            "at": r["at"],
            "agent_id": r["agent_id"],
            "session_id": r["session_id"],
            "query": r["query"],
            "result_ids": json.loads(r["result_ids"]),
            "total_ms": r["total_ms"],
            "payload": json.loads(r["payload"]),
        }
        for r in rows
    ]


__all__ = ["user_records", "user_searches"]

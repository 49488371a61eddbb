"""API keys of the HTTP server (api.http): a key decides the agent a request acts as.

A key is ``amk_<key_id>_<secret>``: ``key_id`` is public (listed, used to revoke), the secret
is 256 random bits. Only the SHA-256 of the whole token is stored, and it is compared in
constant time; the token itself is shown once, by ``add_key``. A second backend implements
each function here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent_memory.core.errors import NotFound
from agent_memory.core.models import format_time, validate_id
from agent_memory.core.store.base import StoreBase as Store

PREFIX = "amk_"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """Who a request is: the key's id, its agent, and whether it may use the admin routes."""

    key_id: str
    agent_id: str
    admin: bool


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def add_key(store: Store, agent_id: str, *, admin: bool, now: datetime) -> tuple[ApiKey, str]:
    """A new key for ``agent_id``: the stored key and the token, which is not kept."""
    agent = validate_id(agent_id, what="agent_id")
    key_id = secrets.token_hex(6)
    token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO api_keys (key_id, agent_id, admin, digest, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (key_id, agent, int(admin), digest(token), format_time(now)),
        )
    return ApiKey(key_id, agent, admin), token


def authenticate(store: Store, token: str) -> ApiKey | None:
    """The live key ``token`` is, or None (malformed, unknown, revoked, or a wrong secret)."""
    if not token.startswith(PREFIX):
        return None
    key_id, sep, _ = token[len(PREFIX) :].partition("_")
    if not sep or not key_id:
        return None
    rows = store.query(
        "SELECT key_id, agent_id, admin, digest FROM api_keys "
        "WHERE key_id = ? AND revoked_at IS NULL",
        (key_id,),
    )
    if not rows or not hmac.compare_digest(rows[0]["digest"], digest(token)):
        return None
    return ApiKey(rows[0]["key_id"], rows[0]["agent_id"], bool(rows[0]["admin"]))


def list_keys(store: Store, *, agent_id: str | None = None) -> list[dict[str, Any]]:
    """Every key (never its secret or digest), oldest first."""
    sql = "SELECT key_id, agent_id, admin, created_at, revoked_at FROM api_keys"
    params: tuple[str, ...] = ()
    if agent_id is not None:
        sql += " WHERE agent_id = ?"
        params = (validate_id(agent_id, what="agent_id"),)
    return [_key_json(r) for r in store.query(sql + " ORDER BY created_at, key_id", params)]


def revoke_key(store: Store, key_id: str, *, now: datetime) -> bool:
    """Revoke a key (by its id, or the whole token). Returns whether it was live; an unknown
    id is NotFound."""
    if key_id.startswith(PREFIX):
        key_id = key_id[len(PREFIX) :].partition("_")[0]
    with store.transaction() as conn:
        row = conn.execute("SELECT revoked_at FROM api_keys WHERE key_id = ?", (key_id,)).fetchone()
        if row is None:
            raise NotFound(f"no API key {key_id!r}", field="key_id")
        if row[0] is not None:
            return False
        conn.execute(
            "UPDATE api_keys SET revoked_at = ? WHERE key_id = ?", (format_time(now), key_id)
        )
    return True


def _key_json(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "key_id": row["key_id"],
        "agent_id": row["agent_id"],
        "admin": bool(row["admin"]),
        "created_at": row["created_at"],
        "revoked_at": row["revoked_at"],
    }


__all__ = ["PREFIX", "ApiKey", "add_key", "authenticate", "digest", "list_keys", "revoke_key"]

"""Grants: which agent may read or write which scope (design §4).

A second backend implements GrantsMixin's methods.
"""

from __future__ import annotations

from datetime import datetime

from agent_memory.core import events
from agent_memory.core.models import Access, Grant, Scope, format_time
from agent_memory.core.store.base import StoreBase
from agent_memory.core.store.log import append


class GrantsMixin(StoreBase):
    """The Store's grants; each change is audited in its own transaction."""

    def put_grant(self, agent_id: str, scope: Scope, access: Access, *, now: datetime) -> Grant:
        """Insert or replace one grant, with an audit event, in one transaction."""
        at = format_time(now)
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO grants (agent_id, scope, scope_kind, access, created_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent_id, scope) "
                "DO UPDATE SET access = excluded.access",
                (agent_id, str(scope), scope.kind.value, access.value, at),
            )
            put = events.GrantPut(agent_id=agent_id, scope=str(scope), access=access.value)
            append(conn, put, at=now)
            row = conn.execute(
                "SELECT created_at FROM grants WHERE agent_id = ? AND scope = ?",
                (agent_id, str(scope)),
            ).fetchone()
        return Grant(agent_id, str(scope), access, row[0])

    def delete_grant(self, agent_id: str, scope: Scope, *, now: datetime) -> bool:
        """Remove a grant. Returns whether there was one; the audit event is written either way."""
        with self.transaction() as conn:
            removed = conn.execute(
                "DELETE FROM grants WHERE agent_id = ? AND scope = ?", (agent_id, str(scope))
            ).rowcount
            revoked = events.GrantRevoked(
                agent_id=agent_id, scope=str(scope), existed=bool(removed)
            )
            append(conn, revoked, at=now)
        return bool(removed)

    def grants(self, agent_id: str | None = None) -> list[Grant]:
        sql = "SELECT agent_id, scope, access, created_at FROM grants"
        params: tuple[str, ...] = ()
        if agent_id is not None:
            sql += " WHERE agent_id = ?"
            params = (agent_id,)
        rows = self.query(sql + " ORDER BY agent_id, scope", params)
        return [
            Grant(r["agent_id"], r["scope"], Access(r["access"]), r["created_at"]) for r in rows
        ]


__all__ = ["GrantsMixin"]

"""The erasure ledger survives a restore (issue 16, item 6).

Restoring a snapshot replaces the whole store file, so a record forgotten after the snapshot was
taken would come back with it. Every erasure therefore leaves a ledger row (``erasures``: the
record id and the digest of its content, or the user id of a ``forget_user``; never content),
and ``restore`` reads the ledger and the erasure events of the store it replaces, then, in the
restored store, erases again every record the ledger names that is not already a tombstone
(with its suppression and redactions, as memory_forget would, its lineage left alone: a version
the user did not ask to forget is not in the ledger), forgets again every user it names, and
copies back the ledger rows and erasure events the snapshot lacks. It answers what it re-erased.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_memory.core import erasure, users
from agent_memory.core.store import erasure as stored
from agent_memory.core.store.erasure import ERASURE_EVENTS

if TYPE_CHECKING:
    from agent_memory.core.embedder import Embedder
    from agent_memory.core.store import Store


def read(store: Store) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The ledger rows and erasure events of the store as it is now."""
    return stored.ledger(store)


def reapply(
    store: Store,
    ledger: list[tuple[Any, ...]],
    events: list[tuple[Any, ...]],
    *,
    source: str | Path,
    now: datetime,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """In the restored store: erase again what the ledger names, restore the ledger and the
    erasure events the snapshot lacks; what was re-erased."""
    re_erased: list[str] = []
    forgotten: list[str] = []
    for _, record_id, user_id, _digest in ledger:
        if record_id is not None:
            re_erased += erasure.erase(
                store,
                record_id,
                reason="erased before the restore",
                lineage=False,
                now=now,
                embedder=embedder,
            )
        elif users.forget_user(store, user_id, now=now)["counts"]:
            forgotten.append(user_id)
    with store.transaction() as conn:
        stored.copy_missing(conn, ledger, events)
    return {"re_erased": re_erased, "users_re_erased": forgotten, "source": str(source)}


__all__ = ["ERASURE_EVENTS", "read", "reapply"]

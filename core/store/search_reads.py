"""What a search reads beyond its candidates (core.search): the words of the live records a
session wrote into a scope, which tell whether its summary says anything they do not
(core.search.siblings.summaries). Reads only. A second backend implements each function here.
"""

from __future__ import annotations

from agent_memory.core.store.base import StoreBase as Store


def session_texts(store: Store, scope: str, session_id: str) -> list[str]:
    """The content and retrieval context of each live record (provisional or confirmed)
    session ``session_id`` wrote into ``scope``, its summaries aside."""
    with store.reading() as conn:
        rows = conn.execute(
            "SELECT content, coalesce(context, '') AS context FROM records WHERE scope = ? "
            "AND session_id = ? AND status IN ('provisional', 'confirmed') "
            "AND source_kind != 'session_summary'",
            (scope, session_id),
        ).fetchall()
    return [f"{content} {context}" for content, context in rows]


__all__ = ["session_texts"]

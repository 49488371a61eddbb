"""The stored records the reviewer is shown beside each candidate (``extraction.related_records``).

For each candidate, the live records nearest its content and as many nearest its whole turn: a
correction is often closer to what it corrects as a turn than as one clause
(core.extraction.corrections). Each probe reads twice ``k`` records from the index, ranked
again by content (a stored vector also reads its record's retrieval context:
core.write.dedup.content_scored), and the cosine shown is always to the candidate's content.
Beside them, the words of each one's turn (its retrieval context without the day), which the
offline reviewer reads and no model is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from agent_memory.core.extraction.validator import turn_words
from agent_memory.core.filters import RecordFilter
from agent_memory.core.write.dedup import content_scored
from agent_memory.core.write.evidence import Turn

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine
    from agent_memory.core.extraction.schema import Candidate


class Related(NamedTuple):
    """The records related to one candidate, most similar first (id, content, evidence,
    source_kind, status, cosine to the candidate's content and when it was stated), and the
    words of each one's turn, by id, for those with a retrieval context."""

    records: tuple[dict[str, Any], ...]
    turns: dict[str, str]


def related_records(
    engine: Engine,
    candidates: Sequence[Candidate],
    turns: Sequence[Turn | None],
    *,
    where: RecordFilter,
    k: int,
) -> list[Related]:
    """For each of ``candidates`` (``turns``: its evidence turn, if found), the records of
    ``where`` related to it (module docstring)."""
    texts = list(dict.fromkeys(t.content for t in turns if t is not None))
    vectors = engine.embedder.embed([c.content for c in candidates] + texts)
    by_turn = dict(zip(texts, vectors[len(candidates) :], strict=True))
    index = engine.index()
    related = []
    for vector, turn in zip(vectors[: len(candidates)], turns, strict=True):
        rowids = [h.rowid for h in index.search(vector, 2 * k, where=where)]
        if turn is not None:
            rowids += [h.rowid for h in index.search(by_turn[turn.content], 2 * k, where=where)]
        rowids = list(dict.fromkeys(rowids))
        stored = index.vectors(rowids)
        found = engine.store.records_by_rowid(rowids)
        scored = content_scored(
            engine,
            vector,
            [
                (found[r], float(np.dot(stored[r], vector)))
                for r in rowids
                if r in stored and r in found
            ],
        )
        shown = scored[: 2 * k]
        records = tuple(
            {
                "id": record.id,
                "content": record.content,
                "evidence": record.evidence,
                "source_kind": record.source_kind.value,
                "status": record.status.value,
                "cosine": round(cosine, 3),
                "stated_at": record.statement_time,
            }
            for record, cosine in shown
        )
        said = {r.id: turn_words(r.context) for r, _ in shown if r.context is not None}
        related.append(Related(records, said))
    return related


__all__ = ["Related", "related_records"]

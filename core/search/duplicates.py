"""Near-duplicate pairs among a search's candidates: the duplicate-collapse stage's input
(core.search.ranking.collapse keeps the first of each group; the search log keeps the pairs,
so replay collapses again without vectors)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core.store.records import comparison_text
from agent_memory.core.write.dedup import swapped_words, words_of

if TYPE_CHECKING:
    from agent_memory.core.embedder import Embedder
    from agent_memory.core.index import VectorIndex
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate


def similar_pairs(
    index: VectorIndex,
    candidates: list[Candidate],
    records: dict[str, Record],
    threshold: float,
    embedder: Embedder,
) -> list[tuple[str, str, float]]:
    """(earlier id, later id, cosine) for every candidate pair at or above threshold, from the
    vectors the index holds (synced by this search). A record with retrieval context has a
    stored vector that also reads the context, and two records of one turn share it: a pair
    holding one stays a pair only if their contents are that similar too (embedded now)."""
    if len(candidates) < 2:
        return []
    rowid_of = {c.record_id: records[c.record_id].rowid or 0 for c in candidates}
    vectors = index.vectors(list(rowid_of.values()))
    present = [i for i, r in rowid_of.items() if r in vectors]
    if len(present) < 2:
        return []
    matrix = np.vstack([vectors[rowid_of[i]] for i in present])
    sims = matrix @ matrix.T
    # Pairs above the diagonal, in row-major order (a < b), as a nested loop would list them.
    above = [(a, b) for a, b in np.argwhere(np.triu(sims >= threshold, k=1)).tolist()]
    # Two records with the same words are that similar whatever their context: only the
    # other pairs with a context need their contents embedded (a store holding the same
    # conversation twice has many of the first kind).
    same = {(a, b) for a, b in above if _words(records[present[a]]) == _words(records[present[b]])}
    redo = sorted(
        {i for pair in above if pair not in same for i in pair if records[present[i]].context}
    )
    if redo:
        embedded = embedder.embed([comparison_text(records[present[i]]) for i in redo])
        for i, vector in zip(redo, embedded, strict=True):
            matrix[i] = vector
        sims = matrix @ matrix.T
        above = [(a, b) for a, b in above if (a, b) in same or sims[a, b] >= threshold]
    # The same words swapped around "never" / "to" / "over" say the opposite: no duplicates
    # ("I prefer cats to dogs." / "I prefer dogs to cats.": the write kept both as well).
    # Equal contents are never swapped; each other one is split into words once.
    words: dict[int, list[str]] = {}

    def split(i: int) -> list[str]:
        if i not in words:
            words[i] = words_of(records[present[i]].content)
        return words[i]

    above = [(a, b) for a, b in above if (a, b) in same or not swapped_words(split(a), split(b))]
    return [
        (present[a], present[b], 1.0 if (a, b) in same else round(float(sims[a, b]), 6))
        for a, b in above
    ]


def _words(record: Record) -> str:
    """What a record says, for telling equal contents apart from merely similar ones."""
    return " ".join(comparison_text(record).casefold().split())


__all__ = ["similar_pairs"]

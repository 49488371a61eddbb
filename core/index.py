"""The vector index: an in-memory float32 matrix of unit vectors and a record-id map.

A rebuildable projection of the store's embedding blobs (design §2). Search is exact cosine
(a matrix-vector product) restricted to an allowed set of record rowids, which the retriever
computes from the hard filter. Before each search, ``sync`` replays the durable delta of record
changes made since the last one, by this process or any other (``records_version``), so every
process sees every other's writes and forgets without restarting.

Every record that still has a vector is in the matrix, including superseded and expired ones
(history search can reach them). Beside each vector the index mirrors the record's scope,
status, type, event time and expires_at, so the hard filter (core.filters.RecordFilter) becomes one
vectorised mask instead of an SQL round trip returning thousands of rowids. Forgotten records
lose their vector in the store, so ``sync`` removes their row here.

A record that says several things also has one vector per passage (core.passages), held beside
its row. A search that asks for them (``passage_discount``) scores each record of its
shortlist (the best ``shortlist`` on the whole-record vector) by the best of its whole vector
and its best passage less the discount; the others keep their whole-record score.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agent_memory.core.errors import StoreClosedError
from agent_memory.core.filters import STATUS_ORDER, TYPE_ORDER, RecordFilter
from agent_memory.core.models import Status
from agent_memory.core.store import IndexDelta, IndexEntry, Store

_INITIAL_CAPACITY = 1024
# Below this share of live rows allowed, gather those rows and score only them; above it,
# score the whole matrix and mask (one contiguous matvec beats a gather of most rows).
_GATHER_BELOW = 0.25
# Filter codes up to this many are matched by comparisons, more by a lookup table (_member).
_COMPARE_AT_MOST = 4
# The per-row arrays, which move together when a row is removed or the capacity grows.
_COLUMNS = ("_matrix", "_rowids", "_scope", "_status", "_type", "_time", "_expires", "_said")


@dataclass(frozen=True, slots=True)
class Hit:
    rowid: int
    score: float
    # Set when the score is a passage's (core.passages): the whole record's cosine.
    whole: float | None = None


class VectorIndex:
    """Exact cosine top-k over unit vectors, keyed by record rowid. Thread-safe."""

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self._matrix = np.zeros((_INITIAL_CAPACITY, dims), dtype=np.float32)
        self._rowids = np.zeros(_INITIAL_CAPACITY, dtype=np.int64)  # matrix row -> rowid
        # rowid -> matrix row, -1 where absent. SQLite rowids are small dense integers, so an
        # array indexed by rowid turns an allowed set into rows with one vectorised lookup.
        self._position = np.full(_INITIAL_CAPACITY, -1, dtype=np.int64)
        # Per row: the record's scope (as a code), status, type, event time, expires_at (NaT
        # when it has none) and whether it holds the assistant's words (Record.said_by).
        self._scope_codes: dict[str, int] = {}
        self._scope = np.full(_INITIAL_CAPACITY, -1, dtype=np.int32)
        self._status = np.full(_INITIAL_CAPACITY, -1, dtype=np.int8)
        self._type = np.full(_INITIAL_CAPACITY, -1, dtype=np.int8)
        self._time = np.zeros(_INITIAL_CAPACITY, dtype="datetime64[us]")
        self._expires = np.full(_INITIAL_CAPACITY, np.datetime64("NaT"), dtype="datetime64[us]")
        self._said = np.zeros(_INITIAL_CAPACITY, dtype=bool)
        self._size = 0
        # rowid -> its passages' vectors (core.passages), for the records that have some.
        self._passages: dict[int, np.ndarray] = {}
        self._lock = threading.RLock()
        self.epoch: str | None = None
        self.version = -1

    def __len__(self) -> int:
        return self._size

    def __contains__(self, rowid: object) -> bool:
        return isinstance(rowid, int) and self._row(rowid) >= 0

    def _row(self, rowid: int) -> int:
        return int(self._position[rowid]) if 0 <= rowid < len(self._position) else -1

    # -- building and syncing ------------------------------------------------------------------

    @classmethod
    def build(cls, store: Store, dims: int) -> VectorIndex:
        """A new index holding every vector in ``store``."""
        index = cls(dims)
        index.rebuild(store)
        return index

    def rebuild(self, store: Store) -> None:
        """Replace the whole content with the store's current vectors."""
        snapshot = store.index_snapshot()
        rowids, matrix, n = snapshot.rowids, snapshot.matrix, len(snapshot.rowids)
        if n and matrix.shape[1] != self.dims:
            raise ValueError(f"store vectors have {matrix.shape[1]} dims, index has {self.dims}")
        with self._lock:
            capacity = max(_INITIAL_CAPACITY, 1 << n.bit_length())
            self._matrix = np.zeros((capacity, self.dims), dtype=np.float32)
            self._matrix[:n] = matrix
            self._rowids = np.zeros(capacity, dtype=np.int64)
            self._rowids[:n] = rowids
            top = int(rowids.max()) + 1 if n else 0
            self._position = np.full(max(_INITIAL_CAPACITY, 2 * top), -1, dtype=np.int64)
            self._position[rowids] = np.arange(n, dtype=np.int64)
            self._scope_codes = {}
            self._scope = np.full(capacity, -1, dtype=np.int32)
            self._scope[:n] = [self._scope_code(s) for s in snapshot.scopes]
            self._status = np.full(capacity, -1, dtype=np.int8)
            self._status[:n] = [_STATUS_CODE[s] for s in snapshot.statuses]
            self._type = np.full(capacity, -1, dtype=np.int8)
            self._type[:n] = [_TYPE_CODE[t] for t in snapshot.types]
            self._time = np.zeros(capacity, dtype="datetime64[us]")
            self._time[:n] = _times(snapshot.times)
            self._expires = np.full(capacity, np.datetime64("NaT"), dtype="datetime64[us]")
            self._expires[:n] = _times(snapshot.expires)
            self._said = np.zeros(capacity, dtype=bool)
            self._said[:n] = snapshot.said
            self._size = n
            self._passages = dict(snapshot.passages)
            self.epoch, self.version = snapshot.epoch, snapshot.records_version

    def sync(self, store: Store) -> int:
        """Catch up with the store. Cheap when nothing changed (one small read). Returns the
        number of changes applied; a new store epoch (restore, reembed) triggers a rebuild."""
        epoch, version = store.index_version()
        if epoch == self.epoch and version == self.version:
            return 0
        if epoch != self.epoch:
            self.rebuild(store)
            return len(self)
        delta = store.index_delta(self.version)
        return self.apply(delta)

    def apply(self, delta: IndexDelta) -> int:
        """Apply one delta: upsert each changed vector, remove each record that lost its own."""
        with self._lock:
            for rowid, entry in delta.changes.items():
                if entry is None:
                    self.remove(rowid)
                else:
                    self.upsert(rowid, entry.vector, entry, passages=entry.passages)
            self.version = max(self.version, delta.records_version)
            return len(delta.changes)

    # -- mutation --------------------------------------------------------------------------

    def upsert(
        self,
        rowid: int,
        vector: np.ndarray,
        meta: IndexEntry | None = None,
        *,
        passages: np.ndarray | None = None,
    ) -> None:
        """Add or replace a record's vector, its passages' (none when None) and, when given,
        its filter metadata (a row without metadata matches no RecordFilter)."""
        vector = np.asarray(vector, dtype=np.float32)
        if vector.shape != (self.dims,):
            raise ValueError(f"vector shape {vector.shape}, index dims {self.dims}")
        if passages is not None and (passages.ndim != 2 or passages.shape[1] != self.dims):
            raise ValueError(f"passages shape {passages.shape}, index dims {self.dims}")
        with self._lock:
            if rowid < 0:
                raise ValueError(f"rowids are positive, got {rowid}")
            row = self._row(rowid)
            if row < 0:
                if self._size == len(self._matrix):
                    self._grow()
                if rowid >= len(self._position):
                    grown = np.full(2 * rowid + 1, -1, dtype=np.int64)
                    grown[: len(self._position)] = self._position
                    self._position = grown
                row = self._size
                self._size += 1
                self._position[rowid] = row
                self._rowids[row] = rowid
            self._matrix[row] = vector
            if passages is not None and len(passages):
                self._passages[rowid] = np.asarray(passages, dtype=np.float32)
            else:
                self._passages.pop(rowid, None)
            if meta is None:
                self._scope[row], self._status[row], self._type[row] = -1, -1, -1
                self._expires[row] = np.datetime64("NaT")
                self._said[row] = False
            else:
                self._scope[row] = self._scope_code(meta.scope)
                self._status[row] = _STATUS_CODE[meta.status]
                self._type[row] = _TYPE_CODE[meta.type]
                self._time[row], self._expires[row] = _times([meta.time, meta.expires_at])
                self._said[row] = meta.said

    def _scope_code(self, scope: str) -> int:
        return self._scope_codes.setdefault(scope, len(self._scope_codes))

    def remove(self, rowid: int) -> bool:
        """Drop a record's vector: the last row moves into its slot, so the live rows stay one
        contiguous block and search never has to mask dead rows."""
        with self._lock:
            row = self._row(rowid)
            if row < 0:
                return False
            self._position[rowid] = -1
            self._passages.pop(rowid, None)
            last = self._size - 1
            if row != last:
                moved = int(self._rowids[last])
                for column in self._columns():
                    column[row] = column[last]
                self._position[moved] = row
            self._matrix[last] = 0.0
            self._size = last
            return True

    def _columns(self) -> tuple[np.ndarray, ...]:
        """Every per-row array, in the order of ``_COLUMNS``."""
        return tuple(getattr(self, name) for name in _COLUMNS)

    def _grow(self) -> None:
        capacity = len(self._matrix) * 2
        for name, column in zip(_COLUMNS, self._columns(), strict=True):
            new = np.zeros((capacity, *column.shape[1:]), dtype=column.dtype)
            new[: self._size] = column[: self._size]
            setattr(self, name, new)

    # -- the hard filter ---------------------------------------------------------------------

    def mask(self, where: RecordFilter) -> np.ndarray:
        """A boolean per live row: does the record pass ``where``? (core.filters documents
        that this and ``RecordFilter.sql`` are the same predicate.)"""
        with self._lock:
            n = self._size
            codes = [self._scope_codes[s] for s in where.scopes if s in self._scope_codes]
            keep = _member(self._scope[:n], codes, len(self._scope_codes))
            statuses = [_STATUS_CODE[s] for s in where.statuses]
            status = _member(self._status[:n], statuses, len(STATUS_ORDER))
            rule, now = where.lapse_rule, where.now
            if rule is not None and now is not None:  # lapsed provisional reads as expired
                lapsed = self._status[:n] == _STATUS_CODE[Status.PROVISIONAL]
                lapsed &= self._expires[:n] <= _times([now])[0]  # NaT compares False
                status = status & ~lapsed if rule == "exclude" else status | lapsed
            keep &= status
            if where.types is not None:
                types = [_TYPE_CODE[t] for t in where.types]
                keep &= _member(self._type[:n], types, len(TYPE_ORDER))
            if where.since is not None:
                keep &= self._time[:n] >= _times([where.since])[0]
            if where.until is not None:
                keep &= self._time[:n] <= _times([where.until])[0]
            if not where.assistant_words:
                keep &= ~self._said[:n]
            return keep

    def count(self, where: RecordFilter) -> int:
        """How many indexed records pass ``where``."""
        return int(self.mask(where).sum())

    def share(self, where: RecordFilter) -> float:
        """The fraction of indexed records that pass ``where`` (0.0 for an empty index)."""
        keep = self.mask(where)
        return float(keep.mean()) if len(keep) else 0.0

    # -- search ----------------------------------------------------------------------------

    def vectors(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """The stored vectors of those rowids that are in the index (copies)."""
        with self._lock:
            return {r: self._matrix[row].copy() for r in rowids if (row := self._row(r)) >= 0}

    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        where: RecordFilter | None = None,
        allowed: np.ndarray | None = None,
        passage_discount: float | None = None,
        shortlist: int = 0,
    ) -> list[Hit]:
        """The ``k`` records most similar to ``query`` (a unit vector), best first.

        ``where`` restricts the search to records passing the hard filter; ``allowed`` to
        those record rowids (an int64 array; rowids not in the index are ignored). Both may be
        given; neither means every record in the index. With ``passage_discount``, each of the
        best ``shortlist`` (at least ``k``) scores the better of its whole vector and its best
        passage (``discounted``); a Hit scored by its passage keeps its ``whole``.
        """
        query = np.asarray(query, dtype=np.float32).reshape(self.dims)
        with self._lock:
            live = self._matrix[: self._size]
            if where is None and allowed is None:
                rows = None
                scores = live @ query
            else:
                keep = np.ones(self._size, dtype=bool) if where is None else self.mask(where)
                if allowed is not None:
                    keep &= self._rows_mask(allowed)
                rows = np.flatnonzero(keep)
                if len(rows) == 0:
                    return []
                if len(rows) < _GATHER_BELOW * self._size:
                    scores = live[rows] @ query
                else:
                    full = live @ query
                    scores = full[rows]
            candidate_rowids = self._rowids[: self._size] if rows is None else self._rowids[rows]
            if passage_discount is None or not self._passages:
                return top_k(scores, candidate_rowids, k)
            hits = top_k(scores, candidate_rowids, max(k, shortlist))
            return self._by_passage(hits, query, passage_discount)[:k]

    def _by_passage(self, hits: list[Hit], query: np.ndarray, discount: float) -> list[Hit]:
        """``hits`` each scored by the better of its whole vector and its best passage less
        ``discount`` (``discounted``), best first (equal scores by lowest rowid)."""
        held = [
            (i, p) for i, h in enumerate(hits) if (p := self._passages.get(h.rowid)) is not None
        ]
        if not held:
            return hits
        counts = np.fromiter((len(p) for _, p in held), dtype=np.int64, count=len(held))
        cosines = np.vstack([p for _, p in held]) @ query
        best = np.maximum.reduceat(cosines, np.cumsum(counts) - counts)  # each record's best
        scores = discounted(best, counts, discount)
        rescored = list(hits)
        for (i, _), score in zip(held, scores.tolist(), strict=True):
            if score > hits[i].score:
                rescored[i] = Hit(hits[i].rowid, score, whole=hits[i].score)
        return sorted(rescored, key=lambda h: (-h.score, h.rowid))

    def latest(
        self, rowids: np.ndarray, weights: np.ndarray, k: int, *, where: RecordFilter
    ) -> tuple[list[tuple[int, int]], int]:
        """Of ``rowids`` (each with an integer weight), those passing ``where``: the ``k`` with
        the highest weight, then the latest event time, then the highest rowid, as (rowid,
        weight); and how many passed. Rowids not in the index (no vector: forgotten) never
        pass."""
        rowids = np.asarray(rowids, dtype=np.int64)
        weights = np.asarray(weights, dtype=np.int64)
        with self._lock:
            rows, found = self._rows_of(rowids)
            rowids, weights = rowids[found], weights[found]
            passing = self.mask(where)[rows]
            rows, rowids, weights = rows[passing], rowids[passing], weights[passing]
            times = self._time[rows].astype(np.int64)
        order = np.lexsort((-rowids, -times, -weights))[: max(k, 0)]
        return [(int(rowids[i]), int(weights[i])) for i in order], len(rowids)

    def rowids_passing(self, where: RecordFilter) -> np.ndarray:
        """The rowids of the records that pass ``where``."""
        with self._lock:
            passing: np.ndarray = self._rowids[: self._size][self.mask(where)]
            return passing

    def passes(self, rowids: np.ndarray, where: RecordFilter) -> np.ndarray:
        """Per rowid, whether its record passes ``where`` (False when the index does not
        hold it: a forgotten record has no vector)."""
        rowids = np.asarray(rowids, dtype=np.int64)
        passing = np.zeros(len(rowids), dtype=bool)
        with self._lock:
            rows, found = self._rows_of(rowids)
            passing[found] = self.mask(where)[rows]
        return passing

    def _rows_mask(self, rowids: np.ndarray) -> np.ndarray:
        rows, _ = self._rows_of(np.asarray(rowids, dtype=np.int64))
        mask = np.zeros(self._size, dtype=bool)
        mask[rows] = True
        return mask

    def _rows_of(self, rowids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The matrix rows of those ``rowids`` the index holds, and where in ``rowids`` each
        of them was (positions, so callers can take the values that go with them)."""
        found = np.flatnonzero((rowids >= 0) & (rowids < len(self._position)))
        rows = self._position[rowids[found]]
        held = rows >= 0
        return rows[held], found[held]


class LiveIndex:
    """This process's vector index of one store: built on first call and synced with the store
    (and so with every other process) on each call after. Thread-safe."""

    def __init__(self, store: Store, dims: Callable[[], int]) -> None:
        self._store = store
        self._dims = dims  # read at build: an embedder may learn its size when it loads
        self._index: VectorIndex | None = None
        self._lock = threading.Lock()

    def __call__(self) -> VectorIndex:
        if self._store.closed:
            raise StoreClosedError(f"the store {self._store.path} is closed")
        with self._lock:
            if self._index is None:
                self._index = VectorIndex.build(self._store, self._dims())
            else:
                self._index.sync(self._store)
            return self._index

    def built(self) -> VectorIndex | None:
        """The index if it has been built, without building or syncing it."""
        return self._index

    def drop(self) -> None:
        """Forget the index (the store closed); a later call builds it again."""
        self._index = None


def _member(column: np.ndarray, codes: list[int], distinct: int) -> np.ndarray:
    """Per row, whether ``column`` (codes 0..distinct-1, or -1 for a row without metadata)
    holds one of ``codes``. np.isin is slow on these small integer columns (benchmarks/
    README.md, "Figures moved from code comments"): a few codes are compared one by one, more
    go through a lookup table."""
    if len(codes) <= _COMPARE_AT_MOST:
        keep = np.zeros(len(column), dtype=bool)
        for code in codes:
            keep |= column == code
        return keep
    table = np.zeros(distinct + 1, dtype=bool)  # the extra last slot is where -1 lands
    table[codes] = True
    return table.take(column)


def top_k(scores: np.ndarray, rowids: np.ndarray, k: int) -> list[Hit]:
    """The ``k`` best (rowid, score) pairs, best first; equal scores by lowest rowid."""
    if k <= 0 or len(scores) == 0:
        return []
    if k < len(scores):
        # Everything scoring at least the k-th best: ties at the boundary are then settled by
        # rowid, not by where argpartition happened to put them, so results are deterministic.
        kth = scores[np.argpartition(-scores, k - 1)[k - 1]]
        top = np.flatnonzero(scores >= kth)
    else:
        top = np.arange(len(scores))
    order = np.lexsort((rowids[top], -scores[top]))  # best first, then lowest rowid
    top = top[order][:k]
    return [Hit(int(rowids[i]), float(scores[i])) for i in top]


def discounted(best: np.ndarray, counts: np.ndarray, discount: float) -> np.ndarray:
    """The scores of records whose best of ``counts`` passages is at cosine ``best``: less
    ``discount`` times sqrt(2 ln (count + 1)), how far the largest of count + 1 draws (the
    passages and the whole record, the better of which is its score) lies above one draw, in
    standard deviations, so that a long record's many chances do not lift it above an
    unrelated query's floor, nor a record's own words alone beside its context (one passage)
    lift it for free."""
    scores: np.ndarray = best - discount * np.sqrt(2 * np.log(counts + 1))
    return scores


_STATUS_CODE = {status: code for code, status in enumerate(STATUS_ORDER)}
_TYPE_CODE = {memory_type: code for code, memory_type in enumerate(TYPE_ORDER)}


def _times(texts: Sequence[str | None]) -> np.ndarray:
    """Canonical UTC text (``...Z``) as numpy datetimes (numpy wants no zone suffix); None as
    NaT, which every comparison rejects."""
    return np.array(
        ["NaT" if t is None else t[:-1] if t.endswith("Z") else t for t in texts],
        dtype="datetime64[us]",
    )

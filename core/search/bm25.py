"""BM25 over the full-text index's own postings, computed in memory.

FTS5 computes BM25 for every row that matches any word of an OR query, and a question that
names a speaker or says "photo" matches about half of a conversation store's turns, so FTS5's
ranking was most of an all-scopes search. This index computes the same function with numpy
over posting lists read from FTS5 itself, an order of magnitude faster (benchmarks/README.md,
the read path's results of 2026-11-30 07:42, has the figures).

The function is fts5_aux.c's ``bm25()``: for each query phrase (here: each query word, a
single index term) with ``n`` of the ``N`` rows holding it,
``idf = log((N - n + 0.5) / (n + 0.5))``, clamped to 1e-6 where it is <= 0, and a row with
column-weighted term frequency ``f`` and length ``D`` (tokens over all columns) scores
``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))`` summed over the query's words,
with k1 = 1.2, b = 0.75 and avgdl the mean length over all rows.
FTS5 is still the source of every number: row lengths come from its docsize table, postings from
fts5vocab, and changed rows are tokenized by its own tokenizer (core.search.lexical.Tokenizer).
Over the whole table the scores are FTS5's: the same operations in the same order, so identical
to the last bit (tests/core/search/test_bm25.py holds them equal on generated stores). A search
counts N, n and avgdl over the rows of the scopes its agent may read instead
(``scores(within=...)``), so that no score depends on records it may not read.

What it keeps: every row's length (read from docsize when the index is built) and the postings
of the terms queries have used, read on first use (the costly part, once a term) and kept, the
least recently used dropped past ``postings_kept`` (row, term) entries (16 bytes each); a query
whose words are all cached reads no SQL. Like the vector index it catches up with every
process's writes from ``record_changes`` before each search: a changed row's text is tokenized
again by FTS5's tokenizer, and a cached term's postings are patched with the changed rows when a
query next uses it. A new store epoch (a restore), or more changed rows than ``delta_at_most``
at once (a bulk import), starts it afresh.

A query word the tokenizer splits into several terms ("well_known", "e-mail", "node.js" as one
word) is a phrase to FTS5: it matches where its terms sit at consecutive offsets of one
column, and BM25 counts it as one phrase (``n`` the rows holding it, ``f`` its weighted
occurrences). Its postings are built here from its terms' positional postings (fts5vocab's
offsets), so a phrase is scored in memory too, over the readable rows' statistics, and equals
FTS5's over the whole table. A phrase's postings are not patched: after any write they are
read again on its next use (phrase words are rare, so the read is small).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agent_memory.core.search.lexical import FTS_COLUMNS, Tokenizer
from agent_memory.core.store import Store, TextIndexSnapshot

K1 = 1.2
B = 0.75
_IDF_FLOOR = 1e-6
# (row, term) entries kept in cached postings, 16 bytes each (an int64 rowid, a float64
# frequency): at most ~64 MB.
_POSTINGS_KEPT = 4_000_000
# A sync that would re-tokenize more rows than this rebuilds instead (a bulk import); the
# change log cached postings are patched from keeps at most this many rows.
_DELTA_AT_MOST = 2_000


@dataclass(frozen=True, slots=True)
class Within:
    """The rows a search may read, for ``BM25Index.scores``: ``rowids()`` lists them, and
    ``key`` names them (equal keys, equal rows), so consecutive searches over the same scopes
    share one count of their statistics."""

    key: Hashable
    rowids: Callable[[], np.ndarray]


# A query word's key in the postings cache: its index term, or the terms of a phrase.
Key = str | tuple[str, ...]


@dataclass(slots=True)
class _Term:
    """One term's postings: the rows holding it (ascending) and its weighted frequency in
    each, as of records_version ``version``."""

    rowids: np.ndarray  # int64
    frequency: np.ndarray  # float64
    version: int


class BM25Index:
    """FTS5's BM25 of a store's records, in memory. Thread-safe."""

    def __init__(
        self,
        store: Store,
        *,
        weights: Sequence[float],
        tokenizer: Tokenizer | None = None,
        postings_kept: int = _POSTINGS_KEPT,
        delta_at_most: int = _DELTA_AT_MOST,
    ) -> None:
        if len(weights) != len(FTS_COLUMNS):
            raise ValueError(f"one weight per column of {FTS_COLUMNS}, got {len(weights)}")
        self.store = store
        self._weights = np.asarray(weights, dtype=np.float64)
        self._own_tokenizer = tokenizer is None
        self._tokenizer = tokenizer or Tokenizer()
        self._postings_kept = postings_kept
        self._delta_at_most = delta_at_most
        self._lock = threading.Lock()
        self.epoch: str | None = None
        self.version = -1
        self._length = np.zeros(0, dtype=np.float64)  # by rowid; 0 where no row
        self._present = np.zeros(0, dtype=bool)  # by rowid
        self._rows = 0
        self._tokens = 0  # sum of lengths
        self._terms: OrderedDict[str, _Term] = OrderedDict()  # least recently used first
        self._phrases: OrderedDict[tuple[str, ...], _Term] = OrderedDict()  # the same
        self._held = 0  # (row, term) entries in self._terms
        # rowid -> (version it changed by, its weighted term frequencies, or None when gone);
        # ordered by that version, so a term patches with the tail newer than itself.
        self._changed: OrderedDict[int, tuple[int, dict[str, float] | None]] = OrderedDict()
        # The last search's readable rows and their statistics (see _counted).
        self._within: tuple[tuple[Hashable, int], tuple[np.ndarray, int, float]] | None = None

    @property
    def held(self) -> int:
        """(row, term) entries held in cached postings."""
        return self._held

    def close(self) -> None:
        """Close the tokenizer if this created it."""
        if self._own_tokenizer:
            self._tokenizer.close()

    # -- scoring ---------------------------------------------------------------------------

    def scores(
        self,
        words: Sequence[str],
        *,
        within: Within | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every row matching any of ``words`` (query words, each quoted as one phrase in an
        FTS5 OR query) and its BM25 score (higher is better): (rowids, scores).

        ``within`` limits the rows: only those are scored, and the statistics (N, each
        word's n, avgdl) are theirs. A search passes the scopes its agent may read, so that
        no score depends on records it may not (FTS5's own bm25() counts the whole table).
        Without it, the whole table, as FTS5."""
        with self._lock:
            keys = [key for _, key in self.keys(words)]
            self._sync()
            postings = self._postings(keys)
            if within is None:
                counted, rows_counted, tokens = self._present, self._rows, float(self._tokens)
            else:
                counted, rows_counted, tokens = self._counted(within)
            if not keys or rows_counted == 0:
                return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
            average = tokens / rows_counted
            total = np.zeros(len(self._length), dtype=np.float64)
            matched = np.zeros(len(self._length), dtype=bool)
            for key in keys:  # one phrase per word: a repeated word counts again, as in FTS5
                entry = postings[key]
                rows, f = entry.rowids, entry.frequency
                if rows_counted < self._rows:  # some rows are not the search's to count
                    admitted = counted[rows]
                    rows, f = rows[admitted], f[admitted]
                n = len(rows)
                idf = math.log((rows_counted - n + 0.5) / (n + 0.5))
                idf = idf if idf > 0 else _IDF_FLOOR
                norm = K1 * (1 - B + B * self._length[rows] / average)
                total[rows] += idf * ((f * (K1 + 1.0)) / (f + norm))
                matched[rows] = True
            rowids = np.flatnonzero(matched)
            return rowids, total[rowids]

    def unheld(self, words: Sequence[str], *, within: Within) -> list[str]:
        """Those of ``words`` (query words, as ``scores`` reads them) that no row ``within``
        holds: what the rows never mention. A word without terms is left out."""
        with self._lock:
            keyed = self.keys(words)
            self._sync()
            postings = self._postings([key for _, key in keyed])
            counted = self._counted(within)[0]
            return [word for word, key in keyed if not counted[postings[key].rowids].any()]

    def keys(self, words: Sequence[str]) -> list[tuple[str, Key]]:
        """Each of ``words`` with its postings key: its term, or its terms as a phrase; a word
        without terms (it matches nothing) left out."""
        return [
            (word, terms[0] if len(terms) == 1 else terms)
            for word, terms in zip(words, self._tokenizer.terms(words), strict=True)
            if terms
        ]

    def _counted(self, within: Within) -> tuple[np.ndarray, int, float]:
        """The rows ``within`` admits (a boolean per rowid), their number and their tokens;
        kept for the next search with the same key at the same version."""
        key = (within.key, self.version)
        if self._within is not None and self._within[0] == key:
            return self._within[1]
        rowids = within.rowids()
        counted = np.zeros(len(self._present), dtype=bool)
        counted[rowids[(rowids >= 0) & (rowids < len(counted))]] = True
        counted &= self._present
        found = (counted, int(np.count_nonzero(counted)), float(self._length[counted].sum()))
        self._within = (key, found)
        return found

    # -- postings --------------------------------------------------------------------------

    def _postings(self, keys: Sequence[Key]) -> dict[Key, _Term]:
        """Each key's postings as of ``self.version``: cached terms patched, missing ones read
        from FTS5, phrases read again unless current (and the index synced to at least the
        version they were read at)."""
        wanted = list(dict.fromkeys(keys))
        terms = [k for k in wanted if isinstance(k, str)]
        phrases = [k for k in wanted if isinstance(k, tuple)]
        while True:  # a read at a newer version syncs, which may make a phrase stale again
            if missing := [t for t in terms if t not in self._terms]:
                self._read_terms(missing)
            elif stale := [
                p
                for p in phrases
                if p not in self._phrases or self._phrases[p].version != self.version
            ]:
                self._read_phrases(stale)
            else:
                break
        found: dict[Key, _Term] = {}
        for term in terms:
            entry = self._terms[term]
            self._terms.move_to_end(term)
            if entry.version < self.version:
                self._patch(term, entry)
            found[term] = entry
        for phrase in phrases:
            self._phrases.move_to_end(phrase)
            found[phrase] = self._phrases[phrase]
        self._evict(keep=set(found))
        return found

    def _read_terms(self, terms: Sequence[str]) -> None:
        """Read ``terms``' postings from FTS5 into the cache."""
        read = self.store.postings(terms)
        if read.epoch != self.epoch:  # restored since the sync: start afresh
            self._rebuild(self.store.text_index_snapshot())
            return
        for term, occurrences in read.occurrences.items():
            rowids, frequency = self._weigh(occurrences)
            self._terms[term] = _Term(rowids, frequency, read.records_version)
            self._held += len(rowids)
        if read.records_version > self.version:
            self._sync()  # (a rebuild drops what was just read: the caller reads it again)

    def _read_phrases(self, phrases: Sequence[tuple[str, ...]]) -> None:
        """Build ``phrases``' postings from their terms' positional postings in FTS5."""
        read = self.store.postings(sorted({t for p in phrases for t in p}), positions=True)
        if read.epoch != self.epoch:
            self._rebuild(self.store.text_index_snapshot())
            return
        for phrase in phrases:
            if (old := self._phrases.pop(phrase, None)) is not None:
                self._held -= len(old.rowids)
            rowids, frequency = self._weigh(_phrase_occurrences(phrase, read.occurrences))
            self._phrases[phrase] = _Term(rowids, frequency, read.records_version)
            self._held += len(rowids)
        if read.records_version > self.version:
            self._sync()

    def _weigh(self, occurrences: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(row, column) occurrences -> the rows and their column-weighted frequencies."""
        rowids, inverse = np.unique(occurrences[:, 0], return_inverse=True)
        frequency = np.bincount(
            inverse, weights=self._weights[occurrences[:, 1]], minlength=len(rowids)
        )
        return rowids, frequency

    def _patch(self, term: str, entry: _Term) -> None:
        """Bring ``entry`` from its version to ``self.version`` with the rows changed since."""
        changed: list[int] = []
        added: dict[int, float] = {}
        for rowid, (version, frequencies) in reversed(self._changed.items()):
            if version <= entry.version:
                break
            changed.append(rowid)
            if frequencies is not None and term in frequencies:
                added[rowid] = frequencies[term]
        keep = ~np.isin(entry.rowids, changed)
        rowids = np.concatenate([entry.rowids[keep], np.fromiter(added, np.int64, len(added))])
        frequency = np.concatenate(
            [entry.frequency[keep], np.fromiter(added.values(), np.float64, len(added))]
        )
        order = np.argsort(rowids, kind="stable")
        self._held += len(rowids) - len(entry.rowids)
        entry.rowids, entry.frequency, entry.version = rowids[order], frequency[order], self.version

    def _evict(self, *, keep: set[Key]) -> None:
        """Drop the least recently used postings while more than the cap are held, phrases
        first (they are read again after any write anyway)."""
        cached: list[OrderedDict[Any, _Term]] = [self._phrases, self._terms]
        for entries in cached:
            for key in list(entries):
                if self._held <= self._postings_kept:
                    return
                if key not in keep:
                    self._held -= len(entries.pop(key).rowids)

    # -- syncing ---------------------------------------------------------------------------

    def sync(self) -> None:
        """Catch up with the store (cheap when nothing changed: one small read)."""
        with self._lock:
            self._sync()

    def _sync(self) -> None:
        epoch, version = self.store.index_version()
        if epoch == self.epoch and version == self.version:
            return
        if epoch != self.epoch:
            self._rebuild(self.store.text_index_snapshot())
            return
        delta = self.store.text_index_delta(self.version, at_most=self._delta_at_most)
        if delta is None or delta.epoch != self.epoch:
            self._rebuild(self.store.text_index_snapshot())
            return
        texts = {rowid: text for rowid, text in delta.changes.items() if text is not None}
        counted: dict[int, dict[str, float]] = {rowid: {} for rowid in texts}
        lengths = dict.fromkeys(texts, 0)
        for rowid, column, term in self._tokenizer.instances(texts):
            frequencies = counted[rowid]
            frequencies[term] = frequencies.get(term, 0.0) + float(self._weights[column])
            lengths[rowid] += 1
        for rowid in delta.changes:
            self._grow(rowid)
            if self._present[rowid]:
                self._rows -= 1
                self._tokens -= int(self._length[rowid])
            self._present[rowid] = rowid in texts
            self._length[rowid] = lengths.get(rowid, 0)
            if rowid in texts:
                self._rows += 1
                self._tokens += lengths[rowid]
            self._changed.pop(rowid, None)
            self._changed[rowid] = (delta.records_version, counted.get(rowid))
        self.version = delta.records_version
        if len(self._changed) > self._delta_at_most:
            self._trim()

    def _trim(self) -> None:
        """Shorten the change log: first the changes every cached term has already applied,
        then, if it is still too long, the older half, with the terms that still needed it
        (read again on their next use: cheaper than patching with this many rows)."""
        needed = min((entry.version for entry in self._terms.values()), default=self.version)
        versions = [version for version, _ in self._changed.values()]
        cut = needed
        if sum(v > needed for v in versions) > self._delta_at_most:
            cut = max(needed, versions[len(versions) - self._delta_at_most // 2 - 1])
            for term in [t for t, entry in self._terms.items() if entry.version < cut]:
                self._held -= len(self._terms.pop(term).rowids)
        for rowid in [r for r, (version, _) in self._changed.items() if version <= cut]:
            del self._changed[rowid]

    def _rebuild(self, snapshot: TextIndexSnapshot) -> None:
        top = int(snapshot.rowids.max()) + 1 if len(snapshot.rowids) else 0
        self._length = np.zeros(max(1024, 2 * top), dtype=np.float64)
        self._present = np.zeros(len(self._length), dtype=bool)
        self._length[snapshot.rowids] = snapshot.lengths
        self._present[snapshot.rowids] = True
        self._rows = len(snapshot.rowids)
        self._tokens = int(snapshot.lengths.sum())
        self._terms.clear()
        self._phrases.clear()
        self._changed.clear()
        self._held = 0
        self.epoch, self.version = snapshot.epoch, snapshot.records_version

    def _grow(self, rowid: int) -> None:
        if rowid >= len(self._length):
            size = 2 * rowid + 1
            self._length = np.concatenate([self._length, np.zeros(size - len(self._length))])
            self._present = np.concatenate(
                [self._present, np.zeros(size - len(self._present), dtype=bool)]
            )


def unheld_in_table(store: Store, keyed: Sequence[tuple[str, Key]]) -> list[str]:
    """Those words of ``keyed`` (each with its key, ``BM25Index.keys``) that no row of the
    whole full-text index holds: a term by FTS5's vocabulary, a phrase by its terms' positions
    as ``_read_phrases`` reads them. What ``BM25Index.unheld`` answers when every row counts,
    without the in-memory index (a whole-table agent with lexical_scoring "fts5" never needs
    it otherwise)."""
    terms = sorted({key for _, key in keyed if isinstance(key, str)})
    documents = store.term_documents(terms)[3] if terms else {}
    phrases = {t for _, key in keyed if not isinstance(key, str) for t in key}
    positions = store.postings(sorted(phrases), positions=True).occurrences if phrases else {}
    return [
        word
        for word, key in keyed
        if not (
            documents.get(key, 0)
            if isinstance(key, str)
            else len(_phrase_occurrences(key, positions))
        )
    ]


def _phrase_occurrences(phrase: tuple[str, ...], positions: Mapping[str, np.ndarray]) -> np.ndarray:
    """(row, column) of every place ``phrase`` starts: its first term at some offset of a
    column and each following term at the next offsets of the same column, as FTS5 matches a
    phrase (overlapping places each count). ``positions``: each term's (row, column, offset)
    occurrences."""
    found = [positions.get(term, np.zeros((0, 3), dtype=np.int64)) for term in phrase]
    if any(len(f) == 0 for f in found):
        return np.zeros((0, 2), dtype=np.int64)
    # One integer per place: (row * columns + column) * span + offset, span past every offset.
    span = max(int(f[:, 2].max()) for f in found) + len(phrase) + 1
    columns = len(FTS_COLUMNS)

    def places(f: np.ndarray) -> np.ndarray:
        flat: np.ndarray = (f[:, 0] * columns + f[:, 1]) * span + f[:, 2]
        return flat

    starts = places(found[0])
    for step, following in enumerate(found[1:], start=1):
        starts = starts[np.isin(starts + step, places(following))]
    rows, column = np.divmod(starts // span, columns)
    return np.stack([rows, column], axis=1)

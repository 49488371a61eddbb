"""The full-text index (``records_fts``, FTS5) as the lexical search reads it.

core.search.bm25 keeps its own in-memory statistics and postings and catches up from here: a
snapshot of the rows and their lengths, the delta since a version, document frequencies and
postings read through fts5vocab. Rows are written with their record (core.store.records).

The lexical generator's FTS5 path (retrieval.lexical_scoring "fts5") ranks here too:
``fts_ranked`` and ``fts_ranked_passing``.

A second backend implements FullTextMixin's methods (the dataclasses are the answers).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core.search.lexical import FTS_COLUMNS
from agent_memory.core.store.base import StoreBase, changed_since, epoch_and_version, rows_in

if TYPE_CHECKING:
    from agent_memory.core.filters import RecordFilter


@dataclass(frozen=True, slots=True)
class TextIndexSnapshot:
    """The full-text index's rows and their lengths (tokens over all columns), at a version."""

    epoch: str
    records_version: int
    rowids: np.ndarray  # int64
    lengths: np.ndarray  # int64, one per rowid


@dataclass(frozen=True, slots=True)
class TextIndexDelta:
    """The full-text rows added, changed or removed since a version."""

    epoch: str
    records_version: int
    # rowid -> the text of each records_fts column, or None when the row is gone (forgotten).
    changes: dict[int, tuple[str, ...] | None]


@dataclass(frozen=True, slots=True)
class Postings:
    """Where index terms occur in the full-text index, at a version: per term, one
    (rowid, column number) pair per occurrence, in the order fts5vocab gives them (by rowid,
    then column and position), with the token offset in its column as a third value when
    positions were asked for."""

    epoch: str
    records_version: int
    occurrences: dict[str, np.ndarray]  # term -> int64 array of shape (n, 2) or (n, 3)


class FullTextMixin(StoreBase):
    """The Store's reads of the full-text index."""

    def term_documents(self, terms: Sequence[str]) -> tuple[str, int, int, dict[str, int]]:
        """The store epoch and records_version, the number of rows in the full-text index,
        and for each of ``terms`` (index terms, as records_fts's tokenizer stores them) the
        number of rows holding it; one snapshot."""
        with self._lock:
            conn = self._connection()
            terms_table = _fts_vocabulary(conn, "row")
            with self.reading():
                epoch, version = epoch_and_version(conn)
                # One row per indexed record in FTS5's docsize table (columnsize is on).
                (rows,) = conn.execute("SELECT count(*) FROM records_fts_docsize").fetchone()
                documents: dict[str, int] = {}
                for term in terms:
                    found = conn.execute(
                        f"SELECT doc FROM {terms_table} WHERE term = ?", (term,)
                    ).fetchone()
                    documents[term] = int(found[0]) if found else 0
        return epoch, version, int(rows), documents

    def fts_ranked(
        self, match: str, *, context_weight: float, limit: int
    ) -> list[tuple[int, float]]:
        """The ``limit`` best rows for the FTS5 query ``match`` as (rowid, score), best first
        (ties by rowid): FTS5's bm25() negated, so higher is better, with column weights 1,
        0.5, 0.5 and ``context_weight`` (content, subject, aliases, context). Unfiltered: the
        caller keeps the rows that pass its filter (``ids_passing``)."""
        with self._lock:
            rows = self._connection().execute(
                """
                SELECT rowid, -bm25(records_fts, 1.0, 0.5, 0.5, ?) AS score
                  FROM records_fts WHERE records_fts MATCH ?
                 ORDER BY score DESC, rowid LIMIT ?
                """,
                (context_weight, match, limit),
            )
            return rows.fetchall()

    def fts_ranked_passing(
        self, match: str, where: RecordFilter, *, context_weight: float, limit: int
    ) -> list[tuple[str, float]]:
        """``fts_ranked`` among the records passing ``where``, as (record id, score).

        The filter is a rowid list from the records index (IN subquery, evaluated once), not
        a join: a join reads every matching record's row, which at 50,000 records costs more
        than BM25 itself when the filter keeps one scope. "+rowid" keeps SQLite from handing
        the IN list to FTS5 as rowid lookups (one full-text query per rowid)."""
        condition, params = where.sql("r")
        with self._lock:
            rows = self._connection().execute(
                f"""
                SELECT r.id AS id, m.score AS score
                  FROM (SELECT rowid, -bm25(records_fts, 1.0, 0.5, 0.5, ?) AS score
                          FROM records_fts
                         WHERE records_fts MATCH ?
                           AND +rowid IN (SELECT r.rowid FROM records AS r WHERE {condition})
                         ORDER BY score DESC, rowid LIMIT ?) AS m
                  JOIN records AS r ON r.rowid = m.rowid
                 ORDER BY m.score DESC, r.rowid
                """,
                [context_weight, match, *params, limit],
            )
            return rows.fetchall()

    def text_index_snapshot(self) -> TextIndexSnapshot:
        """Every row of the full-text index with its length, from FTS5's docsize table (one
        varint token count per column; columnsize is on)."""
        with self.reading() as conn:
            epoch, version = epoch_and_version(conn)
            rows = conn.execute("SELECT id, sz FROM records_fts_docsize ORDER BY id").fetchall()
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        lengths = np.fromiter((_varint_sum(r[1]) for r in rows), dtype=np.int64, count=len(rows))
        return TextIndexSnapshot(epoch, version, rowids, lengths)

    def text_index_delta(self, since_version: int, *, at_most: int) -> TextIndexDelta | None:
        """The full-text rows changed since ``since_version``, with their current text; None
        when more than ``at_most`` rows changed (cheaper to rebuild than to read them all)."""
        with self.reading() as conn:
            epoch, version = epoch_and_version(conn)
            changes: dict[int, tuple[str, ...] | None] = {}
            if version > since_version:
                rowids = changed_since(conn, since_version, at_most=at_most + 1)
                if len(rowids) > at_most:
                    return None
                changes = dict.fromkeys(rowids)
                columns = ", ".join(FTS_COLUMNS)
                select = f"SELECT rowid, {columns} FROM records_fts WHERE rowid"
                for rowid, *texts in rows_in(conn, select, rowids):
                    changes[rowid] = tuple(t or "" for t in texts)
        return TextIndexDelta(epoch, version, changes)

    def postings(self, terms: Sequence[str], *, positions: bool = False) -> Postings:
        """Every occurrence of each of ``terms`` (index terms, as records_fts's tokenizer
        stores them) in the full-text index, read through fts5vocab; one snapshot. With
        ``positions``, each occurrence also carries its token offset in its column (a phrase
        matches where its terms sit at consecutive offsets).

        Each occurrence travels as one integer, rowid * columns + column number, in one text per
        term: less than half the cost of a row per occurrence, for which Python builds a
        tuple each."""
        number = " ".join(f"WHEN '{name}' THEN {i}" for i, name in enumerate(FTS_COLUMNS))
        columns = len(FTS_COLUMNS)
        offsets = ", group_concat(offset, ' ')" if positions else ""
        with self._lock:
            conn = self._connection()
            instances_table = _fts_vocabulary(conn, "instance")
            occurrences: dict[str, np.ndarray] = {}
            with self.reading():
                epoch, version = epoch_and_version(conn)
                for term in terms:
                    # Both aggregates see the rows in the same order: one scan.
                    (codes, *at) = conn.execute(
                        f"SELECT group_concat(doc * {columns} + CASE col {number} END, ' ')"
                        f"{offsets} FROM {instances_table} WHERE term = ?",
                        (term,),
                    ).fetchone()
                    code = np.fromstring(codes or "", dtype=np.int64, sep=" ")
                    found = [*np.divmod(code, columns)]
                    if positions:
                        found.append(np.fromstring(at[0] or "", dtype=np.int64, sep=" "))
                    occurrences[term] = np.stack(found, axis=1)
        return Postings(epoch, version, occurrences)


def _fts_vocabulary(conn: sqlite3.Connection, kind: str) -> str:
    """The name of a temp fts5vocab table of ``kind`` (row, instance) over records_fts, made on
    this connection if it has none yet: it reads records_fts's own index."""
    name = f"temp.records_fts_{kind}"
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab (main, records_fts, {kind})"
    )
    return name


def _varint_sum(blob: bytes) -> int:
    """The sum of the SQLite varints in ``blob`` (big-endian groups of 7 bits, the high bit
    set on every byte but the last, a ninth byte contributing all 8 bits)."""
    if max(blob, default=0) < 0x80:  # every count below 128: one byte each
        return sum(blob)
    total = i = 0
    while i < len(blob):
        value = 0
        for position in range(9):
            byte = blob[i]
            i += 1
            if position == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        total += value
    return total


__all__ = ["FullTextMixin", "Postings", "TextIndexDelta", "TextIndexSnapshot"]

"""What a draft meets before it is written: its neighbours, a duplicate, the records it
contradicts, the records it makes stale, and a duplicate another writer committed meanwhile.

Stages 4 and 5 of the write (core.write.ingestor), outside any transaction (the judge is a
model call), and the race check inside it:

- ``neighbours``: the nearest live records of the draft's scope and type (``kin``) by cosine of
  what they state, at or above ``ingest.conflict_floor``. A record's stored vector also reads
  its retrieval context (the turn it came from, core.store.records.embedding_text), so two
  sentences of one turn lie close in the index; every cosine here compares contents instead
  (``Vectors.probe`` against ``content_scored``), as it did before records had context;
- ``find_duplicate``: a neighbour at or above ``ingest.duplicate_floor``, of the same occasion
  (subject entity; for an episode, the same day), holding the words it shares with the draft
  on the same sides of a word that orders them ("never", "to", ...: ``swapped``), that the
  judge does not call contradictory;
  ``outdated``: a duplicate that a record stated after the draft contradicts is not reinforced
  (a late restatement must not strengthen what a newer one replaced);
- ``lexical_neighbours`` and ``find_contradicted``: up to eight FTS5 matches on the draft's
  words and its relation's words (core.judge.contradiction.relation_words) join the dense
  neighbours, and those about the same subject entity go to the judge (episodes are never
  contradicted);
- ``find_stale``: the older records the user's words make stale (core.write.stale);
- ``committed_since``: inside the write's transaction, a likely duplicate committed after the
  write's search (``Raced``: the write rolls back and searches again, ``RACE_RETRIES`` times).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from agent_memory.core import policy
from agent_memory.core.filters import RecordFilter
from agent_memory.core.judge.contradiction import relation_words
from agent_memory.core.models import MemoryType, Record, format_time, parse_time
from agent_memory.core.search.lexical import STOPWORDS, fts_match, query_tokens
from agent_memory.core.store import write_reads as reads
from agent_memory.core.store.records import comparison_text
from agent_memory.core.store.vectors import vectors_of
from agent_memory.core.write import stale, supersession

if TYPE_CHECKING:
    from agent_memory.core.config import Config
    from agent_memory.core.engine import Engine
    from agent_memory.core.judge.base import Judge

NEIGHBOURS = 8
LEXICAL_NEIGHBOURS = 8
_WORD = re.compile(r"\w+")
# Words that order the words around them: swapped around one, a statement says the opposite.
_PIVOTS = frozenset(
    "never not no over than instead rather to from versus vs except without unlike".split()
)
# Below this many records every word may go to FTS5 (matching them all is cheap); above it
# the words in half of the records are left out (core.lexical.TermStats), or a word like
# "user" would make FTS5 score nearly every row. In a small store nearly every word is in
# half of it.
SMALL_STORE = 2000
# How many times a write starts again after a likely duplicate was committed between its
# duplicate search and its transaction; after that it writes (a store this contended is
# better served by a second record than by a write that never lands).
RACE_RETRIES = 3


class Raced(Exception):
    """Raised inside a write's transaction (rolling it back) when another writer committed
    a likely duplicate, ``record_id``, since the write's duplicate search."""

    def __init__(self, record_id: str) -> None:
        super().__init__(record_id)
        self.record_id = record_id


@dataclass(frozen=True, slots=True)
class Vectors:
    """A draft's two vectors: ``stored``, of its embedding text (content and retrieval context;
    what search reads), and ``probe``, of what it states (core.store.records.comparison_text;
    what the write path compares). The same array when the draft has no context. And
    ``passages``, of the passages of its content (core.passages; None: it has none)."""

    stored: np.ndarray
    probe: np.ndarray
    passages: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Restart:
    """An attempt rolled back for ``record_id`` (see Raced); ``vectors`` are its draft's."""

    record_id: str
    vectors: Vectors


def content_scored(
    engine: Engine, probe: np.ndarray, found: Sequence[tuple[Record, float]]
) -> list[tuple[Record, float]]:
    """``found`` (record, cosine to ``probe`` of its stored vector), the cosine of each record
    with retrieval context replaced by its content's (embedded now: a handful of records), most
    similar first. Records without context keep their score: their stored vector is their
    content's."""
    redo = [i for i, (record, _) in enumerate(found) if record.context]
    scored = list(found)
    if redo:
        texts = [comparison_text(found[i][0]) for i in redo]
        for i, vector in zip(redo, engine.embedder.embed(texts), strict=True):
            scored[i] = (found[i][0], float(vector @ probe))
    return sorted(scored, key=lambda pair: -pair[1])


def kin(draft: Record, now: datetime) -> RecordFilter:
    """The records a write's duplicate and conflict checks consider: live records of its
    scope and type, live as of ``now`` (a provisional record past expires_at is expired even
    before the sweep, so it is neither reinforced back to life nor flagged as a conflict)."""
    return RecordFilter(scopes=(draft.scope,), types=frozenset({draft.type}), now=format_time(now))


def neighbours(
    engine: Engine, draft: Record, probe: np.ndarray, *, now: datetime
) -> list[tuple[Record, float]]:
    """The nearest records of ``kin`` (live, same scope and type) to the draft's ``probe``
    vector by what they state (``content_scored``), most similar first. Twice as many are
    looked at in the index as kept: a record's stored vector also holds its context, so its
    rank there is only a first guess; below the floor only records with context are read (a
    record without context scores there what it scores by content)."""
    floor = engine.config.ingest.conflict_floor
    found = saying_alike(engine, probe, where=kin(draft, now), k=2 * NEIGHBOURS, floor=floor)
    return found[:NEIGHBOURS]


def saying_alike(
    engine: Engine,
    probe: np.ndarray,
    *,
    where: RecordFilter,
    k: int,
    floor: float,
    exclude: int | None = None,
) -> list[tuple[Record, float]]:
    """Of the ``k`` records of ``where`` nearest ``probe`` in the index (but the one at rowid
    ``exclude``), those whose content is at least ``floor`` similar to it
    (``content_scored``), most similar first. A stored vector also reads its record's
    retrieval context, so a hit below the floor by stored vector is read only if it has
    context (the same words stored with their turn lie below it); one without context
    scores there what it scores by content."""
    hits = [h for h in engine.index().search(probe, k, where=where) if h.rowid != exclude]
    below = [h.rowid for h in hits if h.score < floor]
    keep = {h.rowid for h in hits if h.score >= floor} | engine.store.with_context(below)
    found = engine.store.records_by_rowid([h.rowid for h in hits if h.rowid in keep])
    scored = content_scored(
        engine, probe, [(found[h.rowid], h.score) for h in hits if h.rowid in found]
    )
    return [(record, cosine) for record, cosine in scored if cosine >= floor]


def find_duplicate(
    judge: Judge, config: Config, draft: Record, near: list[tuple[Record, float]]
) -> Record | None:
    """The first neighbour close enough to be the record ``draft`` repeats."""
    for record, cosine in near:
        if cosine < config.ingest.duplicate_floor:
            continue
        if not same_occasion(record, draft):
            continue
        if swapped(record.content, draft.content):
            continue
        if judge.contradicts(record.content, draft.content).holds:
            continue
        return record
    return None


def swapped(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` put the words they share on opposite sides of a word that
    orders them ("never", "to", "over", "than", "instead", ...): "Please always use miles,
    never kilometres." and "Please always use kilometres from now on, never miles." hold the
    same words at a duplicate's cosine and say the opposite. Words in another order around
    no such word (or around one said twice in either) are a restatement ("In May the user
    hikes." / "The user hikes in May."; "penicillin and peanuts" / "peanuts and penicillin";
    "... drives to work but takes the train home" / "... takes the train home but drives to
    work")."""
    return swapped_words(words_of(a), words_of(b))


def words_of(text: str) -> list[str]:
    """``text``'s words as ``swapped_words`` compares them."""
    return _WORD.findall(text.casefold())


def swapped_words(words_a: list[str], words_b: list[str]) -> bool:
    """``swapped`` over texts already split into words (``words_of``)."""
    both = _PIVOTS.intersection(words_a, words_b)
    if not both:
        return False  # the common case: decided without a set of shared words
    # A word said twice ("goes to the gym before going to work") orders nothing one can read.
    pivots = [p for p in both if words_a.count(p) == 1 and words_b.count(p) == 1]
    shared = (set(words_a) & set(words_b)) - STOPWORDS - _PIVOTS
    for pivot in pivots:
        i, j = words_a.index(pivot), words_b.index(pivot)
        before_a, after_a = set(words_a[:i]) & shared, set(words_a[i + 1 :]) & shared
        before_b, after_b = set(words_b[:j]) & shared, set(words_b[j + 1 :]) & shared
        if before_a & after_b and after_a & before_b:
            return True
    return False


def lexical_neighbours(
    engine: Engine, draft: Record, near: list[tuple[Record, float]], *, now: datetime
) -> list[Record]:
    """Live records of ``kin`` about the draft's subject entity that share its rarer words
    or the words of the relation it states (core.judge.contradiction): a correction ("moved
    to Porto") is often far from what it corrects ("lives in Lisbon") in embedding space.
    FTS5's BM25 over the words that are not in at least half of the records (those weigh
    nothing and would make FTS5 score nearly every row)."""
    if draft.subject_entity_id is None:
        return []
    words = list(dict.fromkeys([*query_tokens(draft.content), *relation_words(draft.content)]))
    index = engine.index()
    if len(index) >= SMALL_STORE:
        terms = engine.retriever().terms
        weightless = terms.weightless(words, epoch=index.epoch, version=index.version)
        words = [w for w in words if w not in weightless]
    match = fts_match(words)
    if match is None:
        return []
    known = {r.id for r, _ in near}
    with engine.store.reading() as conn:
        found = reads.text_matches(
            conn,
            match,
            kin(draft, now),
            subject_entity_id=draft.subject_entity_id,
            limit=LEXICAL_NEIGHBOURS,
        )
    return [r for r in found if r.id not in known]


def find_contradicted(
    judge: Judge, draft: Record, candidates: list[Record], duplicate: Record | None
) -> list[Record]:
    """The candidates about the draft's subject entity that the judge calls contradictory
    (the duplicate, if any, the judge has already cleared). Same subject (entity and
    attribute) needs no judge: the holder is among the rivals (core.write.supersession)."""
    found: dict[str, Record] = {}
    if draft.type is MemoryType.EPISODIC:
        return []  # events are each their own: "moved to Lisbon" then "moved to Porto"
    for record in candidates:
        if record.id in found or (duplicate is not None and record.id == duplicate.id):
            continue
        if record.subject_entity_id != draft.subject_entity_id:
            continue
        if judge.contradicts(record.content, draft.content).holds:
            found[record.id] = record
    return list(found.values())


def outdated(judge: Judge, duplicate: Record, draft: Record, contradicted: list[Record]) -> bool:
    """Whether a record stated after the draft contradicts the draft's duplicate: then
    reinforcing it would strengthen what a newer statement replaced."""
    return any(
        supersession.stated_after(record, draft)
        and judge.contradicts(record.content, duplicate.content).holds
        for record in contradicted
    )


def find_stale(
    engine: Engine,
    judge: Judge,
    draft: Record,
    probe: np.ndarray,
    contradicted: list[Record],
    *,
    replaces: Record | None,
    named: Record | None = None,
    now: datetime,
) -> Staleness:
    """The older records the user's words in ``draft`` make stale (core.write.stale): a fact
    of the draft's type joins ``contradicted`` (the supersession rule, lineage), any other is
    to be retired; and the newer record that makes the draft itself stale as it arrives (the
    one an extraction's reviewer ``named``, when it may: ``_outdates``; else
    ``Finder.read``'s), which joins ``contradicted`` too if it is a fact of the draft's type
    (not for a correction: its lineage is the record it replaces)."""
    known = {r.id for r in contradicted}
    if replaces is not None:
        known.add(replaces.id)
    found, newer = stale.Finder(engine, judge).read(draft, probe, now=now)
    retired: list[Record] = []
    for record in found:
        if record.id in known:
            continue
        if _lineage_kin(record, draft):
            contradicted = [*contradicted, record]
        else:
            retired.append(record)
    if named is not None and _outdates(named, draft):
        newer = named  # the reviewer's reading, which says what of the draft stays (keeps)
    if newer is not None and replaces is None and _lineage_kin(newer, draft):
        if newer.id not in known:  # the supersession rule makes the draft its history
            contradicted = [*contradicted, newer]
        newer = None
    return Staleness(contradicted, retired, newer)


class Staleness(NamedTuple):
    """What ``find_stale`` found: the records the supersession rule settles with the draft,
    those it retires, and the newer record it is superseded history of (or None)."""

    contradicted: list[Record]
    retired: list[Record]
    outdated_by: Record | None


def _outdates(named: Record, draft: Record) -> bool:
    """Whether the record a reviewer named may make the draft its history: stated after it,
    the user's own claim (as for ``Finder.read``: not a report, not a qualified one) and
    ranking no lower."""
    return (
        supersession.stated_after(named, draft)
        and stale.speaks_for_user(named)
        and policy.can_supersede(named.source_kind, draft.source_kind)
    )


def _lineage_kin(record: Record, draft: Record) -> bool:
    """A fact of the draft's type about its subject: the supersession rule settles the two
    in one lineage."""
    same_kind = record.type is draft.type and draft.type is not MemoryType.EPISODIC
    return same_kind and record.subject_entity_id == draft.subject_entity_id


def committed_since(
    conn: sqlite3.Connection,
    engine: Engine,
    seen: int,
    judged: frozenset[str],
    draft: Record,
    probe: np.ndarray,
    now: datetime,
) -> str | None:
    """Inside the write's transaction: the id of a record added after rowid ``seen`` (a
    handful of rows, not the scope) and not among the ``judged`` neighbours that the
    duplicate search would take to the judge: live as of ``now``, close enough (the
    neighbour and duplicate floors), and of the same occasion. None if there is none."""
    ingest = engine.config.ingest
    floor = max(ingest.conflict_floor, ingest.duplicate_floor)
    added = {r.rowid: r for r in reads.added_since(conn, seen, kin(draft, now))}
    if not added:
        return None
    rowids = [rowid for rowid in added if rowid is not None]
    stored = vectors_of(conn, rowids, engine.embedder.identity)
    scored = content_scored(engine, probe, [(added[r], float(v @ probe)) for r, v in stored])
    for record, cosine in scored:
        if record.id not in judged and cosine >= floor and same_occasion(record, draft):
            return record.id
    return None


def same_occasion(record: Record, draft: Record) -> bool:
    """Whether ``record`` can be the one ``draft`` repeats: about the same subject entity,
    and for an episode, on the same day."""
    if record.subject_entity_id != draft.subject_entity_id:
        return False
    return draft.type is not MemoryType.EPISODIC or _same_day(record.event_at, draft.event_at)


def _same_day(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return a == b
    gap = abs(parse_time(a, field="event_at") - parse_time(b, field="event_at"))
    return gap < timedelta(days=1)


__all__ = [
    "RACE_RETRIES",
    "Raced",
    "Restart",
    "Vectors",
    "committed_since",
    "content_scored",
    "find_contradicted",
    "find_duplicate",
    "find_stale",
    "kin",
    "lexical_neighbours",
    "neighbours",
    "outdated",
    "same_occasion",
    "saying_alike",
]

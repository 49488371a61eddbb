"""The supersession rule: what a new record does to the live records it meets.

A record's rivals (``rivals``, read inside the write's transaction: the record a correction
names, else the live holder of the same subject and the live records the judge calls
contradictory, core.write.dedup) are settled by when each statement was made (``stated_at``:
the evidence turn's time, else the write's) and by source rank (design §4):

- a rival stated after the new record that ranks equal or higher wins: the new record is
  superseded history, placed in the rival's lineage at the time it was stated, so a lineage
  read in version order is in statement order (action ``history``);
- the new record supersedes rivals stated before it of equal or lower rank (the newest gives
  the lineage: version + 1);
- every other rival stays, and the new record is stored beside it with ``conflicts_with``
  (action ``conflict``): one that outranks it, or a newer one that ranks below it.

Ties in time go to the later write: it is the only order left. A correction
(memory_revise correct) replaces the record it names whatever the times, and needs equal or
higher rank; the further records an extraction's correction names (``retirable``) are retired
beside it when stated before it and ranking no higher. Episodes are never superseded otherwise.

A draft that a newer record makes stale (core.write.stale.Finder.read, or the extraction
reviewer's ``outdated_by``: the record would have retired it, had the draft been written
first) is stored as superseded history too, with a ``record.superseded`` event naming it: in
that record's lineage when the reviewer read it as corrected by it (as the correction would
have joined the draft's), else beside it (a fact made stale by the user's verbatim words). A
late correction is history of a newer record too, beside it: its lineage is the record it
replaces. The order statements were extracted in does not decide which one is current.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from agent_memory.core import events, passages, policy
from agent_memory.core.embedder import SINGLE_PASS_MAX
from agent_memory.core.errors import InvalidArgument, NotFound
from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import MemoryType, Record, SourceKind, Status, format_time, new_id
from agent_memory.core.store import erasure as context_store
from agent_memory.core.store import observations
from agent_memory.core.store import records as stored
from agent_memory.core.store import write_reads as reads
from agent_memory.core.store.blobs import passages_blob, vector_blob
from agent_memory.core.write import remembered

if TYPE_CHECKING:
    from agent_memory.core.embedder import Embedder


@dataclass(slots=True)
class Plan:
    """What a new record does to the live records it meets (``_settle``)."""

    draft: Record
    action: str = "created"
    replaced: list[Record] = field(default_factory=list)  # superseded by the draft
    successor: Record | None = None  # action "history": the newer record it goes before
    # Action "history" outside a lineage: the newer record that makes the draft stale as it
    # arrives (core.write.stale.Finder.read).
    outdated_by: Record | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def superseded_by(self) -> Record | None:
        """The newer record the draft is stored as history of, if any."""
        return self.successor or self.outdated_by


def statement_order(record: Record) -> tuple[str, str, int]:
    """Statements in the order they were made; a tie goes to the later write."""
    return (record.statement_time, record.created_at, record.rowid or 0)


def stated_after(record: Record, draft: Record) -> bool:
    """Whether ``record`` was stated after the draft. A tie is not: the draft is written
    later, and write order is all that is left to go by."""
    return record.statement_time > draft.statement_time


def settle(
    draft: Record,
    rivals: list[Record],
    *,
    correcting: bool,
    outdated_by: Record | None = None,
    lineage: bool = False,
) -> Plan:
    """The rule (module docstring) over ``rivals``, in statement order; ``correcting``: the
    write is a correction and ``rivals`` is the one record it names; ``outdated_by``: a newer
    record that makes the draft stale (core.write.stale), when no rival's lineage takes it,
    the draft placed in its lineage with ``lineage`` (a correction read the other way, as the
    newer record would have gone into the draft's had the draft come first), else beside it;
    a correction is the history of ``outdated_by`` too, beside it (its lineage is the
    record it replaces)."""
    plan = Plan(draft)
    if correcting:
        [replaced] = rivals
        if not policy.can_supersede(draft.source_kind, replaced.source_kind):
            raise InvalidArgument(
                f"a correction from {draft.source_kind.value} cannot replace a "
                f"{replaced.source_kind.value} record; quote the user's words as "
                "evidence, or write a new record",
                field="source_kind",
            )
        plan.replaced = [replaced]
        plan.draft = _successor_of(draft, replaced)
        plan.action = "superseded"
        return plan if outdated_by is None else _history(plan, outdated_by, lineage=False)
    if draft.type is MemoryType.EPISODIC:
        if outdated_by is not None:
            return _history(plan, outdated_by, lineage=lineage)
        return _conflicts(plan, rivals, "")
    newer = [r for r in rivals if stated_after(r, draft)]
    older = [r for r in rivals if not stated_after(r, draft)]
    successor = next(
        (r for r in newer if policy.can_supersede(r.source_kind, draft.source_kind)), None
    )
    if successor is not None:
        return _history(plan, successor, lineage=True)
    if outdated_by is not None:
        return _history(plan, outdated_by, lineage=lineage)
    _conflicts(plan, newer, f", was stated after it and ranks below {draft.source_kind.value}")
    plan.replaced = [r for r in older if policy.can_supersede(draft.source_kind, r.source_kind)]
    if plan.replaced:
        plan.draft = _successor_of(plan.draft, plan.replaced[-1])
        plan.action = "superseded"
    outranking = [r for r in older if r not in plan.replaced]
    return _conflicts(plan, outranking, f" and outranks {draft.source_kind.value}")


def retirable(draft: Record, named: Sequence[Record], known: Sequence[Record]) -> list[Record]:
    """The records a correction names beside the one it replaces (``WriteRequest.retires``)
    that it may retire: stated before it, ranking no higher, and not already in ``known``."""
    seen = {r.id for r in known}
    return [
        r
        for r in named
        if r.id not in seen
        and r.id != draft.id
        and not stated_after(r, draft)
        and policy.can_supersede(draft.source_kind, r.source_kind)
    ]


def _history(plan: Plan, later: Record, *, lineage: bool) -> Plan:
    """The draft as superseded history of ``later``, stated after it: placed in its lineage,
    or beside it (``outdated_by``)."""
    if lineage:
        plan.successor = later
    else:
        plan.outdated_by = later
    plan.draft = replace(plan.draft, status=Status.SUPERSEDED, expires_at=None)
    plan.action = "history"
    plan.notes.append(
        f"{later.id} ({later.source_kind.value}) was stated after this and says otherwise; "
        "stored as superseded history before it"
    )
    return plan


def _successor_of(draft: Record, old: Record) -> Record:
    return replace(
        draft, supersedes_id=old.id, version=old.version + 1, lineage_id=old.lineage_id or old.id
    )


def _conflicts(plan: Plan, records: list[Record], why: str) -> Plan:
    """Store the draft beside ``records`` as a conflict, a note for each."""
    if not records:
        return plan
    ids = tuple(r.id for r in records)
    plan.draft = replace(plan.draft, conflicts_with=(*plan.draft.conflicts_with, *ids))
    if plan.action == "created":
        plan.action = "conflict"
    for record in records:
        lead = "holds this subject" if record.subject == plan.draft.subject else "contradicts this"
        plan.notes.append(
            f"{record.id} ({record.source_kind.value}) {lead}{why}; stored beside it as a conflict"
        )
    return plan


def rivals(
    conn: sqlite3.Connection,
    draft: Record,
    *,
    replaces: Record | None,
    contradicted: tuple[str, ...],
    kin: RecordFilter,
    sees: bool,
    now: datetime,
) -> list[Record]:
    """Inside the transaction: the live records the draft may replace or clash with: the one
    being corrected (``replaces``), else the holder of its subject and the records the judge
    found contradictory, read again through ``kin`` (live as of ``now``, not only when
    judged). ``sees`` False: the writer cannot read the scope, so it meets no record."""
    holder = current_holder(conn, draft, replaces=replaces, now=now) if sees else None
    if replaces is not None or not contradicted:
        return [holder] if holder is not None else []
    found = {r.id: r for r in reads.live_in(conn, contradicted, kin)}
    if holder is not None:
        found[holder.id] = holder
    return sorted(found.values(), key=statement_order)


def current_holder(
    conn: sqlite3.Connection, draft: Record, *, replaces: Record | None, now: datetime
) -> Record | None:
    """The live record this write would replace: the one being corrected, else the live
    record holding the same subject in the same scope. Live as of ``now``: a provisional
    record past expires_at is expired already (Record.status_at), swept or not."""
    at = format_time(now)
    if replaces is not None:
        live = RecordFilter(scopes=(replaces.scope,), now=at)
        rows = reads.live_in(conn, [replaces.id], live)
        if not rows:
            raise NotFound(
                f"{replaces.id} is no longer live (superseded, expired or deleted)", field="id"
            )
        return rows[0]
    if draft.subject is None or draft.type is MemoryType.EPISODIC:
        return None
    return reads.subject_holder(conn, draft.subject, RecordFilter(scopes=(draft.scope,), now=at))


def into_lineage(
    conn: sqlite3.Connection, draft: Record, successor: Record, *, now: datetime
) -> Record:
    """Inside the transaction: place a history record in ``successor``'s lineage at the
    time it was stated (before the first member stated after it), renumbering the versions
    after it, so that a lineage read in version order is in statement order."""
    lineage = successor.lineage_id or successor.id
    members = reads.lineage_members(conn, lineage)
    at = next(i for i, m in enumerate(members) if m.id == successor.id or stated_after(m, draft))
    after = members[at]
    before = members[at - 1] if at > 0 else None
    assert after.rowid is not None
    stored.insert_into_lineage(
        conn,
        lineage,
        at_version=after.version,
        history_id=draft.id,
        next_rowid=after.rowid,
        moved=[m.rowid for m in members[at:] if m.rowid is not None],
        now=now,
    )
    return replace(
        draft,
        lineage_id=lineage,
        version=after.version,
        supersedes_id=before.id if before is not None else None,
    )


def mark_superseded(
    conn: sqlite3.Connection, record: Record, *, by: str, agent_id: str, now: datetime
) -> None:
    """Inside the transaction: retire ``record``, superseded by the record ``by``."""
    assert record.rowid is not None
    superseded = events.RecordSuperseded(record_id=record.id, agent_id=agent_id, by=by)
    stored.supersede(conn, record.rowid, superseded, now=now)


def narrow_siblings(
    conn: sqlite3.Connection, record: Record, embedder: Embedder, *, now: datetime
) -> list[str]:
    """Inside the transaction that supersedes ``record``: the other live records of its turn
    (same scope and session, their context still holding its quote; not imported turns) lose
    its quoted words from their context and are re-embedded. An extracted record carries its
    whole turn as context, so without this
    the retired value ("ship the migration on Friday") kept finding the turn's side remarks
    ("flying to Lisbon next week") after the correction. A second statement of the turn
    retired later narrows them again. Returns their ids."""
    quote = (record.evidence or "").strip()
    if not quote or record.session_id is None or record.context is None:
        return []
    siblings = context_store.turn_siblings(conn, record, quote)
    return _rewrite(
        conn,
        [replace(s, context=_without(s.context, quote)) for s in siblings],
        embedder,
        lambda s: events.RecordContextNarrowed(record_id=s.id, retired=record.id),
        now=now,
    )


def narrow_summaries(
    conn: sqlite3.Connection, record: Record, embedder: Embedder, *, now: datetime
) -> list[str]:
    """Inside the transaction that supersedes ``record``: the live summaries that list its
    content among what their session remembered drop it (core.write.remembered) and are
    re-embedded, so that no summary goes on restating a retired value ("Remembered: The user
    is doing 16:8 intermittent fasting" after "I stopped the intermittent fasting"): the
    pipeline's summaries of every session that created or reinforced it, whatever scope they
    went to (core.store.erasure.summaries_saying). Nothing while a live
    record of its scope still says the same (a correction that re-states it, word for word).
    Returns their ids."""
    words = remembered.item(record.content)
    if not words or reads.says_already(conn, record.scope, record.content):
        return []
    narrowed = [
        replace(summary, content=text)
        for summary in context_store.summaries_saying(conn, record, words)
        if (text := remembered.without(summary.content, record.content)) is not None
    ]
    return _rewrite(
        conn,
        narrowed,
        embedder,
        lambda s: events.RecordSummaryNarrowed(record_id=s.id, retired=record.id),
        now=now,
    )


# Texts re-embedded per call: the embedder's single-pass size. Above it the embedder takes its
# bulk path, whose first use loads torch (seconds) while the write transaction holds the lock.
_REWRITE_BATCH = SINGLE_PASS_MAX


def _batches(records: Sequence[Record]) -> Iterator[Sequence[Record]]:
    """``records`` in runs of at most ``_REWRITE_BATCH`` texts to embed, each record's passages
    counted (core.passages; one record alone may hold no more)."""
    start, texts = 0, 0
    for i, record in enumerate(records):
        in_context = passages.reads_context(stored.embedding_text(record), record.content)
        count = 1 + len(passages.passages(record.content, in_context=in_context))
        if i > start and texts + count > _REWRITE_BATCH:
            yield records[start:i]
            start, texts = i, 0
        texts += count
    if start < len(records):
        yield records[start:]


def _rewrite(
    conn: sqlite3.Connection,
    rewritten: Sequence[Record],
    embedder: Embedder,
    event: Callable[[Record], events.Event],
    *,
    now: datetime,
) -> list[str]:
    """Inside the transaction: each of ``rewritten`` (a live record, read from its row, with
    new content or context) stored with its new text and vectors, and ``event`` of it appended.
    Returns their ids."""
    for batch in _batches(rewritten):
        embedded = passages.embed(
            embedder, [stored.embedding_text(r) for r in batch], [r.content for r in batch]
        )
        for record, (vector, parts) in zip(batch, embedded, strict=True):
            assert record.rowid is not None  # read from its row
            context_store.replace_text(conn, record, vector_blob(vector), passages_blob(parts))
            stored.changed(conn, [record.rowid], event(record), at=now)
    return [r.id for r in rewritten]


def narrowed_context(record: Record) -> str | None:
    """``record``'s retrieval context without its evidence quote, as its turn's other records
    keep it once it is retired (``narrow_siblings``); None when the context does not hold it."""
    quote = (record.evidence or "").strip()
    if record.context is None or not quote or quote not in record.context:
        return None
    return _without(record.context, quote)


def _without(context: str | None, quote: str) -> str | None:
    """``context`` without ``quote``, its spaces folded."""
    return None if context is None else " ".join(context.replace(quote, " ").split())


def outside_retired(conn: sqlite3.Connection, draft: Record) -> Record:
    """``draft`` with the quotes of its turn's retired statements out of its retrieval
    context, as ``narrow_siblings`` leaves a turn's live records when one of its statements is
    retired: a record of the turn written after that (an older session extracted late, a
    model's candidates out of turn order) must not find the turn by the retired words either."""
    if draft.context is None or draft.session_id is None or draft.source_kind is SourceKind.SYSTEM:
        return draft
    context: str | None = draft.context
    for quote in context_store.retired_quotes(conn, draft):
        if quote.strip() and quote.strip() != (draft.evidence or "").strip():
            context = _without(context, quote.strip())
    return draft if context == draft.context else replace(draft, context=context)


def retire(
    conn: sqlite3.Connection,
    records: Sequence[Record],
    by: str,
    replaced: Collection[str],
    keeps: Mapping[str, Sequence[str]],
    agent_id: str,
    embedder: Embedder,
    *,
    now: datetime,
) -> list[str]:
    """Inside the transaction that writes the record ``by``: retire each of ``records`` (read
    again: retiring an earlier one may have narrowed its context), superseded by it, then
    ``leave`` it with what ``keeps`` says the new words left of it. Returns the notes: a
    record retired beside those ``replaced``, and each part kept."""
    notes: list[str] = []
    for stale in records:
        old = reads.stored_live(conn, stale.id)
        if old is None:
            continue
        mark_superseded(conn, old, by=by, agent_id=agent_id, now=now)
        narrow_summaries(conn, old, embedder, now=now)
        if old.id not in replaced:
            notes.append(f"{old.id} said otherwise before this; retired (superseded)")
        notes += leave(conn, old, by, keeps.get(old.id, ()), agent_id, embedder, now=now)
    return notes


def leave(
    conn: sqlite3.Connection,
    record: Record,
    by: str,
    parts: Sequence[str],
    agent_id: str,
    embedder: Embedder,
    *,
    now: datetime,
) -> list[str]:
    """Inside the transaction that makes ``record`` (as it was when live) history of the
    record ``by``: the other records of its turn forget its words (``narrow_siblings``) and
    each of ``parts``, the words ``by`` left as they were, stays a live record of its own
    (``keep_part``). Returns a note per part kept."""
    narrow_siblings(conn, record, embedder, now=now)
    notes = []
    for words in parts:
        kept = keep_part(conn, record, words, embedder, by=by, agent_id=agent_id, now=now)
        if kept is not None:
            notes.append(f"{kept} keeps what {by} left unchanged of {record.id}")
    return notes


def keep_part(
    conn: sqlite3.Connection,
    record: Record,
    words: str,
    embedder: Embedder,
    *,
    by: str,
    agent_id: str,
    now: datetime,
) -> str | None:
    """Inside the transaction that retires ``record``: ``words``, a span of its evidence that
    the correction ``by`` left as it was (WriteRequest.keeps), as a live record of its own,
    the retired record's envelope otherwise (type, scope, source, status, confidence, session,
    turn and statement time, the turn it was observed in), and the retrieval context its
    turn's other records keep (``narrowed_context``), so that a later correction of one of
    them narrows it too. Returns its id; None when the words are not a part of the record's
    evidence (only its own words are kept) or a live record of the scope already says them
    (letter case and closing mark aside)."""
    quote = record.evidence or ""
    if not words or words == quote or words not in quote:
        return None
    if reads.says_already(conn, record.scope, words):
        return None
    kept = replace(
        record,
        id=new_id("mem", now),
        content=words,
        evidence=words,
        context=narrowed_context(record),
        created_at=format_time(now),
        version=1,
        lineage_id=None,
        supersedes_id=None,
        conflicts_with=(),
        entities=(),
        subject_entity_id=None,
        attribute=None,
        subject=None,
        rowid=None,
    )
    (vector, parts) = passages.embed(embedder, [stored.embedding_text(kept)], [kept.content])[0]
    rowid = stored.insert_record(
        conn, stored.NewRecord(kept, vector, parts), embedder=embedder.identity, now=now
    )
    assert record.rowid is not None  # read from its row
    observations.copy_first(conn, record.rowid, rowid, now=now)
    part = events.RecordPartKept(record_id=kept.id, agent_id=agent_id, retired=record.id, by=by)
    stored.changed(conn, [], part, at=now)
    return kept.id


__all__ = [
    "Plan",
    "current_holder",
    "into_lineage",
    "keep_part",
    "leave",
    "mark_superseded",
    "narrow_siblings",
    "narrow_summaries",
    "narrowed_context",
    "outside_retired",
    "retirable",
    "retire",
    "rivals",
    "settle",
    "stated_after",
    "statement_order",
]

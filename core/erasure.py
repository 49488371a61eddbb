"""What memory_forget leaves behind so that a forgotten fact stays gone (issue 16).

Erasing a record is not enough when the words are still in a transcript that a session's
extraction has yet to read: the job would write the fact again. So forgetting a record also

1. redacts its evidence turns: every stored turn of the record's user that contains the
   record's evidence quote, or its content, verbatim (compared normalised, as evidence is
   found) has its text replaced by a fill of the same length; its role, time and place in the
   transcript are kept, and a ``turn.redacted`` event records the session, the turn and the
   record, never the words. An extraction that runs later cannot quote those turns, so the
   validator rejects any candidate resting on them;
2. leaves a suppression in the record's scope: a digest of its normalised content and the
   record's own embedding (with the embedder's name, never the text; for a record with
   retrieval context, the embedding of its content alone, which is what the candidates'
   embeddings are compared with: core.write.dedup.Vectors). A candidate of a session
   that can read that scope is suppressed when its normalised content has the same digest, or
   when its embedding is at least ``ingest.duplicate_floor`` similar to the forgotten one:
   exactly where the ingestor would have merged it into the forgotten record as a duplicate
   (without asking the judge whether they contradict: forgetting errs on the side of less).
   A looser paraphrase is not caught by the suppression; it is caught only when it rests on a
   redacted turn, which is where a session's extraction finds its evidence;
3. erases the copies of its words in other records' retrieval context (``erase_copies``): an
   extracted record carries its whole evidence turn, an imported turn the turns before it, so
   a sibling of one turn holds the forgotten sentence and would be found by it. A live record
   whose context quotes the forgotten record (its evidence quote, its content or a phrase of
   it, or its excerpt as an imported turn) loses its context, in the full-text index too, and
   its vector becomes its content's alone (embedded before the transaction); an imported turn
   keeps the first line of its context, its session's date, so that it is still read as a
   turn (core.write.conversation.dated_only);
4. erases the assistant's own words kept from its sessions (core.extraction.replies) that
   say it again (core.suppressions.echoes: "Got it, your new address is ..."), as a session
   summary quoting it is erased, without a suppression of their own.

The extraction pipeline asks ``Suppressions.matching`` (core.suppressions) at every stage:
candidates are dropped after the extractor, kept from the reviewer, rejected by the validator,
and the summary loses every sentence that matches, so a forget that lands between two stages
still holds.

The digest and the vector are not anonymous: someone holding the store could test a guessed
sentence against them. They are what matching a restatement needs, and they hold no text.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from agent_memory.core import events, traces
from agent_memory.core.embedder import Embedder
from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import format_time, utcnow
from agent_memory.core.store import erasure as stored
from agent_memory.core.store import log
from agent_memory.core.store.blobs import vector_blob
from agent_memory.core.store.records import changed, comparison_text
from agent_memory.core.suppressions import content_digest, echoes, scope_user
from agent_memory.core.traces import Scrubbed
from agent_memory.core.write.conversation import (
    CONTEXT_EXCERPT,
    dated_only,
    is_imported_turn,
    quotes,
)
from agent_memory.core.write.dedup import saying_alike
from agent_memory.core.write.evidence import normalise

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine
    from agent_memory.core.models import Record
    from agent_memory.core.store import Store

# What a redacted turn's text becomes: one fill character per character of the original.
REDACTION_FILL = "\u2588"


def redacted(text: str) -> str:
    """The stored form of a redacted turn: its length kept, none of its characters."""
    return REDACTION_FILL * len(text)


def is_redacted(text: str) -> bool:
    return bool(text) and set(text) == {REDACTION_FILL}


def leave_suppression(
    conn: sqlite3.Connection,
    rowid: int,
    *,
    reason: str | None,
    now: datetime,
    suppress: bool = True,
    content_vectors: Mapping[str, tuple[str, bytes]] | None = None,
) -> Scrubbed:
    """In the forget's transaction, while the record still holds its content: write its
    suppression (unless ``suppress`` is False: a summary erased because it quoted a forgotten
    record is not itself a fact to suppress), redact its evidence turns and erase its words
    from the side tables (core.traces). Returns what the side tables lost. ``content_vectors``
    (record id -> (model name, vector)) replaces the stored vector of a record with retrieval
    context in its suppression (``content_vectors``)."""
    record_id, scope, content, evidence, model_name, vector = stored.erased_record(conn, rowid)
    if content_vectors and record_id in content_vectors:
        model_name, vector = content_vectors[record_id]
    stored.add_to_ledger(conn, record_id, content_digest(content), now)
    if suppress:
        stored.add_suppression(
            conn, record_id, scope, content_digest(content), model_name, vector, now
        )
    turns = redact_turns(
        conn,
        record_id,
        scope,
        (evidence or "", content),
        reason,
        now,
        evidence_turns=stored.evidence_turns(conn, rowid),
    )
    erased = events.RecordSuppressed if suppress else events.RecordRedacted
    log.append(
        conn,
        erased(record_id=record_id, reason=reason, scope=scope, turns_redacted=len(turns)),
        at=now,
    )
    return traces.scrub(
        conn,
        record_id=record_id,
        rowid=rowid,
        scope=scope,
        user_id=scope_user(scope),
        needles=traces.phrases(content, evidence),
        now=now,
        said=[t for t in (content, evidence) if t],
    )


def content_vectors(
    store: Store, record_ids: Sequence[str], embedder: Embedder
) -> dict[str, tuple[str, bytes]]:
    """For each of ``record_ids`` with retrieval context: (model name, the vector of its
    content alone). Its stored vector also reads the context (the turn it came from), and a
    suppression is compared with candidates' contents (``Suppressions.matching``)."""
    found = [r for r in store.get_records(list(record_ids)).values() if r.context]
    if not found:
        return {}
    embedded = embedder.embed([comparison_text(r) for r in found])
    return {
        r.id: (embedder.model_name, vector_blob(v)) for r, v in zip(found, embedded, strict=True)
    }


def holds_words(context: str, content: str, evidence: str | None) -> bool:
    """Whether a retrieval ``context`` holds the words of a record stored with ``content`` and
    ``evidence``: its evidence quote (of any length: it is verbatim in the turn the context
    copies), a phrase of its content (``traces.phrases``), or its excerpt as an imported turn
    (core.write.conversation.quotes)."""
    return _Forgotten(content, evidence).held_by(context)


class _Forgotten:
    """What ``holds_words`` looks for of one record, normalised once for many contexts."""

    def __init__(self, content: str, evidence: str | None) -> None:
        self.content = content
        self.needles = _needles(content, evidence)

    def held_by(self, context: str, normal: str | None = None) -> bool:
        if quotes(context, self.content):
            return True
        normal = normalise(context) if normal is None else normal
        return any(n in normal for n in self.needles)


def _holders(
    contexts: Sequence[tuple[int, str]], forgotten: Sequence[_Forgotten], skip: Collection[int]
) -> list[int]:
    """The rowids of ``contexts`` (but ``skip``) that hold the words of one of ``forgotten``."""
    found = []
    for rowid, context in contexts:
        if rowid in skip:
            continue
        normal = normalise(context)
        if any(f.held_by(context, normal) for f in forgotten):
            found.append(rowid)
    return found


def _needles(content: str, evidence: str | None) -> list[str]:
    needles = traces.phrases(content, evidence)
    if evidence and (quote := normalise(evidence)):
        needles.append(quote)
    return needles


def _probe_words(forgotten: Sequence[tuple[str, str | None]]) -> list[list[str]] | None:
    """For each text ``holds_words`` looks for, its longest runs of ASCII letters and digits
    (at most ``_PROBE_RUNS``), all of which a plain-ASCII context holding it contains
    (``stored.live_contexts`` reads only those, and every context with other characters);
    None when a text has none, and every context is read."""
    probes = []
    for content, evidence in forgotten:
        for text in (normalise(content[:CONTEXT_EXCERPT]), *_needles(content, evidence)):
            runs = sorted(set(_ASCII_WORD.findall(text)), key=lambda w: (-len(w), w))
            if not runs:
                return None
            probes.append(runs[:_PROBE_RUNS])
    return probes


_PROBE_RUNS = 6


_ASCII_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Copies:
    """What ``context_copies`` read before the forget's transaction: the newest rowid it saw,
    and the records whose context held the words, each with its content's vector (None
    without an embedder)."""

    seen: int
    vectors: dict[int, bytes | None]


def context_copies(store: Store, record_ids: Sequence[str], embedder: Embedder | None) -> Copies:
    """Before the forget's transaction: the live records whose retrieval context holds the
    words of one of ``record_ids`` (``holds_words``), each with the vector of its content
    alone, which replaces its stored one (``erase_copies``). The one read of every context."""
    forgotten = list(store.get_records(list(record_ids)).values())
    probes = _probe_words([(r.content, r.evidence) for r in forgotten])
    with store.reading() as conn:
        seen = store.last_rowid()
        contexts = stored.live_contexts(conn, probes)
    mine = {r.rowid for r in forgotten if r.rowid is not None}
    holders = _holders(contexts, [_Forgotten(r.content, r.evidence) for r in forgotten], mine)
    found = store.records_by_rowid(holders)
    rowids = [r for r in holders if r in found]
    vectors: dict[int, bytes | None] = dict.fromkeys(rowids)
    if rowids and embedder is not None:
        embedded = embedder.embed([comparison_text(found[r]) for r in rowids])
        for r, v in zip(rowids, embedded, strict=True):
            vectors[r] = vector_blob(v)
    return Copies(seen, vectors)


def erase_copies(
    conn: sqlite3.Connection,
    rowid: int,
    copies: Copies,
    embedder: Embedder | None,
    *,
    now: datetime,
) -> list[int]:
    """In the forget's transaction, while the record at ``rowid`` still holds its words: every
    other live record whose context holds them loses it and takes its vector from ``copies``.
    Only the records ``copies`` found and those written since are read again; one written
    since is embedded here, and without an embedder its vector goes (the record is still
    found by its words). Returns the rowids changed."""
    record_id, _, content, evidence, *_ = stored.erased_record(conn, rowid)
    contexts = [
        *stored.contexts_of(conn, list(copies.vectors)),
        *stored.live_contexts(conn, _probe_words([(content, evidence)]), after=copies.seen),
    ]
    holders = _holders(contexts, [_Forgotten(content, evidence)], {rowid})
    for holder in holders:
        record = stored.record_at(conn, holder)
        vector = copies.vectors.get(holder)
        if vector is None and embedder is not None:
            (embedded,) = embedder.embed([comparison_text(record)])
            vector = vector_blob(embedded)
        # An imported turn keeps its session's date: were its context dropped, it would stop
        # reading as a turn, and an assistant's turn would count as the user's own record.
        kept = dated_only(record) if is_imported_turn(record) else None
        stored.replace_context(conn, holder, kept, vector)
        changed(
            conn,
            [holder],
            events.RecordContextErased(record_id=record.id, forgotten=record_id),
            at=now,
        )
    return holders


def redact_turns(
    conn: sqlite3.Connection,
    record_id: str,
    scope: str,
    quotes: Sequence[str],
    reason: str | None,
    now: datetime,
    *,
    evidence_turns: Sequence[tuple[str, int]] = (),
) -> list[tuple[str, int]]:
    """Redact every turn of the sessions that could write into ``scope`` (those of its user,
    for a user scope or an agent's private one; every session otherwise) that contains one of
    ``quotes`` verbatim, compared normalised, and every one of ``evidence_turns`` (the turns
    the record's quotes were found in). Quotes shorter than three words are not looked for
    elsewhere, a two-word phrase being too common to identify the fact; the turn such a quote
    was found in is redacted all the same."""
    needles = traces.phrases(*quotes)
    named = set(evidence_turns)
    if not needles and not named:
        return []
    user = scope_user(scope)
    rows = stored.turns_of(conn, user)
    hits = [
        (session_id, seq, text)
        for session_id, seq, text in rows
        if not is_redacted(text)
        and ((session_id, seq) in named or any(n in normalise(text) for n in needles))
    ]
    for session_id, seq, text in hits:
        turn = events.TurnRedacted(
            record_id=record_id, session_id=session_id, seq=seq, reason=reason or "forgotten"
        )
        stored.redact_turn(conn, redacted(text), turn, now=now)
    return [(session_id, seq) for session_id, seq, _ in hits]


def erase(
    store: Store,
    record_id: str,
    *,
    reason: str | None = None,
    agent_id: str | None = None,
    lineage: bool = True,
    now: datetime | None = None,
    embedder: Embedder | None = None,
) -> list[str]:
    """Erase a record and, with ``lineage``, every not yet erased version of its lineage, and
    the records sharing its words through a kept part (``kept_with``)
    (``Memory.erase``, memory_forget): each becomes a tombstone and leaves its suppression and
    redactions (``leave_suppression``); a session summary that quoted one is erased too.
    Returns the ids erased, empty when nothing was left to erase. With ``embedder`` (the
    store's), a record with retrieval context leaves its content's vector as its suppression,
    embedded here, before the transaction (``content_vectors``); without it, its stored one.
    Every other live record whose context holds an erased record's words loses it
    (``erase_copies``), its content's vector embedded here too."""
    at = now or utcnow()
    erased: list[str] = []
    quoting: list[str] = []  # session summaries that quoted an erased record

    def before(conn: sqlite3.Connection, rowid: int, *, suppress: bool = True) -> None:
        erase_copies(conn, rowid, copies, embedder, now=at)
        scrubbed = leave_suppression(
            conn, rowid, reason=reason, now=at, suppress=suppress, content_vectors=vectors
        )
        quoting.extend(scrubbed.summaries)

    tombstone = partial(store.tombstone, agent_id=agent_id, now=at, purge=False)
    # The record's id, or every not yet erased version of its lineage in its scope (the
    # scope the caller was allowed to erase in), oldest first.
    targets = store.lineage_ids(record_id) if lineage else [record_id]
    # A part kept of a retired statement holds its words, and the statement holds the part's:
    # forgetting either forgets both (core.write.supersession.keep_part). Only of the record
    # named: a newer version of the statement (its correction) says other words.
    targets += [t for t in stored.kept_with(store, record_id) if t not in targets]
    vectors = content_vectors(store, targets, embedder) if embedder is not None else {}
    copies = context_copies(store, targets, embedder)
    forgotten = list(store.get_records(targets).values())  # their words, before they go
    for target in targets:
        if tombstone(target, reason=reason, before=before):
            erased.append(target)
    quoted = partial(before, suppress=False)  # erased for what it said, no fact of its own
    for summary in dict.fromkeys(quoting):
        if tombstone(summary, reason="quoted a forgotten record", before=quoted):
            erased.append(summary)
    if erased:  # the assistant's words repeating it (``echoes``)
        for echo in echoes(store, embedder, forgotten):
            if tombstone(echo, reason="restated a forgotten record", before=quoted):
                erased.append(echo)
    if erased:  # one FTS merge and checkpoint for the whole lineage
        store.purge()
    return erased


def near_duplicates(
    engine: Engine, record: Record, scopes: Sequence[str], *, now: datetime
) -> list[str]:
    """Live records in ``scopes`` that say what ``record`` says (cosine at or above
    ``retrieval.duplicate_cosine``, of the contents where a vector also holds retrieval
    context), best first, then those that say it in one of their passages (core.passages: "...
    Also my sister Marta lives in Lisbon." for "My sister Marta lives in Lisbon.", which a
    search finds by that passage). memory_forget returns them rather than
    erasing them: they are other statements, perhaps from other sources, that the caller has
    not been shown, and near is not the same (a PIN hint one digit apart is near). Limit: a
    record is read by its passages only among the ``retrieval.passage_shortlist`` closest on
    their whole vector, as a search reads it."""
    if record.rowid is None:
        return []
    index = engine.index()
    vector = index.vectors([record.rowid]).get(record.rowid)
    if vector is None:
        return []
    threshold = engine.config.retrieval.duplicate_cosine
    # The assistant's words too: what it told the user is a record the caller may forget.
    where = RecordFilter(scopes=tuple(scopes), now=format_time(now), assistant_words=True)
    if record.context:  # its stored vector also reads its context: compare its content
        vector = engine.embedder.embed([comparison_text(record)])[0]
    near = saying_alike(engine, vector, where=where, k=16, floor=threshold, exclude=record.rowid)
    said = [r.id for r, _ in near]
    shortlist = engine.config.retrieval.passage_shortlist
    if not shortlist:  # passages off: a search finds no record by one either
        return said
    hits = index.search(vector, 16, where=where, passage_discount=0.0, shortlist=shortlist)
    in_passage = [
        hit.rowid
        for hit in hits
        if hit.whole is not None and hit.score >= threshold and hit.rowid != record.rowid
    ]
    found = engine.store.records_by_rowid(in_passage)
    return said + [found[r].id for r in in_passage if r in found and found[r].id not in said]


__all__ = [
    "REDACTION_FILL",
    "Copies",
    "content_vectors",
    "context_copies",
    "erase",
    "erase_copies",
    "holds_words",
    "is_redacted",
    "leave_suppression",
    "near_duplicates",
    "redact_turns",
    "redacted",
]

"""The five memory tools' handlers: memory_search, memory_get, memory_write, memory_revise and
memory_forget, each over the ``ToolContext`` that ``Session.call`` builds for the call.

A handler gets validated arguments (core.tools.schemas) and the call's time, and returns a
JSON-ready dict; it raises InvalidArgument (NotFound, PermissionDenied) for what the model got
wrong, which ``Session.call`` turns into a structured tool error. Scopes come from the grant
table and the host's write targets, never from the model.
"""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime
from typing import Any

from agent_memory.core import erasure
from agent_memory.core.errors import InvalidArgument, NotFound, PermissionDenied
from agent_memory.core.models import (
    HISTORY_STATUSES,
    LIVE_STATUSES,
    EntityKind,
    MemoryType,
    Procedure,
    Record,
    SourceKind,
    Status,
    format_time,
)
from agent_memory.core.search.request import SearchRequest
from agent_memory.core.store import write_reads as reads
from agent_memory.core.tools.context import ToolContext
from agent_memory.core.tools.schemas import ForgetArgs, GetArgs, ReviseArgs, SearchArgs, WriteArgs
from agent_memory.core.write import entities, reinforce
from agent_memory.core.write.drafts import WriteOutcome, WriteRequest
from agent_memory.core.write.entities import EntityRef


def resolve_target(ctx: ToolContext, target: str) -> str:
    """The scope a symbolic write target names, if this agent may write it."""
    scope = ctx.write_targets.get(target)
    if scope is None:
        known = ", ".join(sorted(ctx.write_targets)) or "none"
        raise InvalidArgument(
            f"unknown write target {target!r}; this session's targets are: {known}",
            field="target",
        )
    if scope not in ctx.writable_scopes():
        raise PermissionDenied(
            f"this agent may not write the {target!r} target; ask the host for a grant",
            field="target",
        )
    return scope


def write(ctx: ToolContext, args: WriteArgs, now: datetime) -> dict[str, Any]:
    """memory_write: one record into the scope the write target names (core.write.ingestor)."""
    scope = resolve_target(ctx, args.target)
    memory_type = MemoryType(args.type)
    procedure = None
    if memory_type is MemoryType.PROCEDURAL:
        if args.procedure is None:
            raise InvalidArgument(
                "procedural records need procedure: {name, when, steps, pitfalls}",
                field="procedure",
            )
        procedure = Procedure(
            args.procedure.name,
            args.procedure.when,
            tuple(args.procedure.steps),
            tuple(args.procedure.pitfalls),
        )
    elif args.procedure is not None:
        raise InvalidArgument("procedure is only for procedural records", field="procedure")
    _check_window(args.valid_from, args.valid_until)
    request = WriteRequest(
        type=memory_type,
        content=args.content,
        source_kind=SourceKind(args.source_kind),
        scope=scope,
        agent_id=ctx.agent_id,
        user_id=ctx.user_id,
        session_id=ctx.session_id,
        attribute=args.attribute,
        evidence=args.evidence,
        about=tuple(EntityRef(EntityKind(a.kind), a.name) for a in args.about),
        event_at=args.event_at,
        valid_from=args.valid_from,
        valid_until=args.valid_until,
        review_at=args.review_at,
        tags=tuple(dict.fromkeys(args.tags)),
        procedure=procedure,
    )
    outcome = ctx.engine.ingestor().write(
        request,
        readable=ctx.readable_scopes(),
        transcript=ctx.transcript(),
        now=now,
        honour_forgets=True,
    )
    return outcome.to_json()


def revise(ctx: ToolContext, args: ReviseArgs, now: datetime) -> dict[str, Any]:
    """memory_revise: correct (a new version supersedes the record), confirm, or merge two
    entities."""
    if args.action == "merge_entities":
        return _merge_entities(ctx, args, now=now)
    record = writable_record(ctx, args.id, now=now)
    if record.said_by is not None:  # core.extraction.replies
        raise InvalidArgument(
            f"{record.id} keeps what the assistant said, which is neither corrected nor "
            "confirmed: write what is true as a record of its own, or forget it",
            field="id",
        )
    if args.action == "correct":
        if args.content is None and args.attribute is None:
            raise InvalidArgument(
                "correct needs the corrected content (or attribute)", field="content"
            )
        request = WriteRequest(
            type=record.type,
            content=args.content or record.content,
            source_kind=SourceKind(args.source_kind or "agent_inference"),
            scope=record.scope,
            agent_id=ctx.agent_id,
            user_id=ctx.user_id,
            session_id=ctx.session_id,
            attribute=args.attribute or record.attribute,
            evidence=args.evidence,
            event_at=record.event_at,
            valid_from=record.valid_from,
            valid_until=record.valid_until,
            review_at=record.review_at,
            tags=record.tags,
            procedure=record.procedure,
            replaces=record,
        )
        outcome = ctx.engine.ingestor().write(
            request,
            readable=ctx.readable_scopes(),
            transcript=ctx.transcript(),
            now=now,
            honour_forgets=True,
        )
        return {
            "id": outcome.id,
            "action": "correct",
            "supersedes_id": outcome.supersedes_id,
            "status": outcome.status.value,
            "source_kind": outcome.source_kind.value,
            "notes": outcome.notes,
        }
    return _confirm(ctx, record, args, now=now)


def _confirm(
    ctx: ToolContext, record: Record, args: ReviseArgs, *, now: datetime
) -> dict[str, Any]:
    started = time.perf_counter()
    ingestor = ctx.engine.ingestor()
    claimed = SourceKind(
        args.source_kind or ("user_statement" if args.evidence else "agent_inference")
    )
    request = WriteRequest(
        type=record.type,
        content=record.content,
        source_kind=claimed,
        scope=record.scope,
        agent_id=ctx.agent_id,
        user_id=ctx.user_id,
        session_id=ctx.session_id,
        evidence=args.evidence,
    )
    checked = ingestor.check_evidence(request, ctx.transcript())
    source_kind, evidence, notes = checked.source_kind, checked.evidence, checked.notes
    # An agent's word alone never promotes: only a quote can (core.write.reinforce).
    witness = ingestor.witness(checked, request)
    with ctx.engine.store.transaction() as conn:
        current = reads.stored_live(conn, record.id)
        if current is None or current.status_at(format_time(now)) not in LIVE_STATUSES:
            raise NotFound(f"{record.id} is no longer live", field="id")
        status, kind, _ = reinforce.reinforce_in(
            conn,
            ctx.engine.config,
            current,
            request,
            new_source=source_kind,
            evidence=evidence,
            witness=witness,
            stated_at=ingestor.stated_at(checked, now) if witness is not None else None,
            now=now,
            kind="confirmed",
        )
    ctx.engine.index()
    result = {
        "id": record.id,
        "action": "confirm",
        "supersedes_id": None,
        "status": status.value,
        "source_kind": kind.value,
        "notes": notes,
    }
    ingestor.log(
        request,
        WriteOutcome(record.id, status, kind, "confirmed", notes=notes),
        total_ms=round((time.perf_counter() - started) * 1000, 3),
        now=now,
        tool="memory_revise",
    )
    return result


def _merge_entities(ctx: ToolContext, args: ReviseArgs, *, now: datetime) -> dict[str, Any]:
    if not args.into_entity:
        raise InvalidArgument(
            "merge_entities needs into_entity (the survivor's id or name)", field="into_entity"
        )
    writable = set(ctx.writable_scopes())
    readable = ctx.readable_scopes()
    with ctx.engine.store.transaction() as conn:
        loser = entities.find(conn, args.id, readable)
        if loser is None:
            raise NotFound(f"no entity {args.id!r} that this agent can read", field="id")
        survivor = entities.find(conn, args.into_entity, readable, kind=loser[1], scope=loser[2])
        if survivor is None:
            raise NotFound(
                f"no {loser[1]} entity {args.into_entity!r} in {loser[2]} to merge into",
                field="into_entity",
            )
        if survivor[0] == loser[0]:
            raise InvalidArgument("an entity cannot be merged into itself", field="into_entity")
        if survivor[2] != loser[2]:  # a merge moves aliases: never across scopes
            raise InvalidArgument(
                f"{args.into_entity!r} is in another scope; entities merge only within one scope",
                field="into_entity",
            )
        if loser[2] not in writable:
            raise PermissionDenied(f"this agent may not write {loser[2]}", field="id")
        merged = entities.merge(
            conn,
            loser=loser[0],
            survivor=survivor[0],
            agent_id=ctx.agent_id,
            reason=args.reason,
            now=now,
        )
    ctx.engine.index()
    return {
        "id": survivor[0],
        "action": "merge_entities",
        "supersedes_id": None,
        "merged": loser[0],
        "records_repointed": merged,
    }


def forget(ctx: ToolContext, args: ForgetArgs, now: datetime) -> dict[str, Any]:
    """memory_forget: the record and its lineage are erased (``erased``: every id), and
    the turns that said it are redacted; a deferred session's turns are stored first so
    that they are redacted too. ``similar``: live records a search would have collapsed
    into it, left for the caller to forget as well or keep (core.erasure). Forgetting a
    forgotten record again answers deleted (and erases what its lineage still had): a
    retry after a lost answer must not read as not_found."""
    record = ctx.engine.store.get_records([args.id]).get(args.id)
    if record is None or record.status is not Status.DELETED:
        record = writable_record(ctx, args.id, now=now, live_only=False)
    elif record.scope not in ctx.writable_scopes():
        raise NotFound(f"no record {args.id!r}", field="id")
    ctx.store_pending()
    similar = erasure.near_duplicates(ctx.engine, record, ctx.readable_scopes(), now=now)
    erased = erasure.erase(
        ctx.engine.store,
        record.id,
        reason=args.reason,
        agent_id=ctx.agent_id,
        now=now,
        embedder=ctx.engine.embedder,
    )
    result: dict[str, Any] = {"id": record.id, "status": "deleted", "erased": erased}
    if similar := [i for i in similar if i not in erased]:
        result["similar"] = similar
    if ctx.engine.store.purge_pending:  # the text is gone from every table, not yet the WAL
        result["purge_pending"] = True
    return result


def search(ctx: ToolContext, args: SearchArgs, now: datetime) -> dict[str, Any]:
    """memory_search: the retrieval pipeline over the scopes this agent may read for this
    user. With ``rewrite.enabled``, the last turns the host recorded are the current-turn
    context the rewriter sees."""
    if args.since and args.until and args.until < args.since:
        raise InvalidArgument("until is before since", field="until")
    config = ctx.engine.config.retrieval
    request = SearchRequest(
        query=args.query,
        agent_id=ctx.agent_id,
        user_id=ctx.user_id,
        session_id=ctx.session_id,
        types=frozenset(MemoryType(t) for t in args.types) if args.types else None,
        since=args.since,
        until=args.until,
        entities=tuple(args.entities),
        include_history=args.include_history,
        limit=min(args.limit or config.default_limit, config.max_limit),
        budget_tokens=args.budget_tokens or config.budget_tokens,
        context=ctx.recent_turns() if ctx.engine.config.rewrite.enabled else "",
    )
    return ctx.engine.retriever().search(request, readable=ctx.readable_scopes(), now=now)


def get(ctx: ToolContext, args: GetArgs, now: datetime) -> dict[str, Any]:
    """memory_get: the records this agent may read, by id; the rest are ``missing``.

    Status is read as of ``now`` (Record.status_at): a provisional record whose expires_at
    has come is expired whether or not the worker's sweep has run. So it is missing unless
    include_history, and then its status reads "expired", which is what the sweep will
    write (a read writes nothing; the stored row changes when the sweep runs)."""
    allowed = HISTORY_STATUSES if args.include_history else LIVE_STATUSES
    readable = set(ctx.readable_scopes())
    at = format_time(now)
    found = ctx.engine.store.get_records(list(dict.fromkeys(args.ids)))
    records, missing = [], []
    for record_id in dict.fromkeys(args.ids):
        record = found.get(record_id)
        status = None if record is None else record.status_at(at)
        if record is None or record.scope not in readable or status not in allowed:
            missing.append(record_id)
        else:
            records.append(replace(record, status=status).to_json())
    return {"records": records, "missing": missing}


def writable_record(
    ctx: ToolContext, record_id: str, *, now: datetime, live_only: bool = True
) -> Record:
    """A record this agent may read and write; otherwise NotFound or PermissionDenied
    (an unreadable record is reported exactly like an absent one). Status is read as of
    ``now``, as memory_get reads it: a lapsed provisional record is expired."""
    record = ctx.engine.store.get_records([record_id]).get(record_id)
    statuses = LIVE_STATUSES if live_only else HISTORY_STATUSES
    if record is None or record.scope not in ctx.readable_scopes():
        raise NotFound(f"no record {record_id!r}", field="id")
    status = record.status_at(format_time(now))
    if status not in statuses:
        raise NotFound(f"{record_id} is {status.value}; it cannot be changed", field="id")
    if record.scope not in ctx.writable_scopes():
        raise PermissionDenied(f"this agent may read but not change {record_id}", field="id")
    return record


def _check_window(valid_from: str | None, valid_until: str | None) -> None:
    if valid_from and valid_until and valid_until < valid_from:
        raise InvalidArgument("valid_until is before valid_from", field="valid_until")


__all__ = ["forget", "get", "resolve_target", "revise", "search", "writable_record", "write"]

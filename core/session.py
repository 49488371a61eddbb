"""Sessions: one agent acting for one user in one conversation, with identity from the host.

    s = mem.session(agent_id="planner", user_id="u1", session_id="s-001",
                    write_targets={"personal": "user:u1", "current_project": "project:apollo"})
    s.add_turn("user", "Please keep answers concise.")
    s.call("memory_write", {...})

The model never names a scope: it picks a symbolic write target, and the session resolves it
through the host-supplied ``write_targets`` (default ``{"personal": "user:<user_id>"}``) and then
checks the grant table. The transcript is kept in the store, so evidence can be checked against
it and it survives a crash of the host.

Each tool turn names the tool that produced it (``add_turn("tool", ..., tool="deploy")``), and
the session keeps which tools the host names authoritative (``evidence.authoritative_tools`` plus
the ``authoritative_tools`` given here; none by default). Only their output can back a confirmed
tool_result (core.evidence).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from core import entities, erasure, policy
from core.entities import EntityRef
from core.errors import (
    AgentMemoryError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ReadOnlyStoreError,
    StoreError,
    internal_tool_error,
)
from core.evidence import Turn
from core.ingestor import WriteOutcome, WriteRequest
from core.logging import get_logger
from core.models import (
    HISTORY_STATUSES,
    LIVE_STATUSES,
    EntityKind,
    MemoryType,
    Procedure,
    Record,
    Scope,
    SourceKind,
    Status,
    format_time,
    utcnow,
    validate_id,
)
from core.records import append_event, select_records
from core.retriever import SearchRequest
from core.tools import TOOLS, ForgetArgs, GetArgs, ReviseArgs, SearchArgs, WriteArgs

if TYPE_CHECKING:
    from core.memory import Memory

log = get_logger("agent_memory")

ROLES = ("user", "assistant", "tool", "system")


class Session:
    """A conversation between one agent and one user. Create with ``Memory.session``.

    Opening a stored session again (after a restart) checks that it belongs to the same agent
    and user (else StoreError) and keeps its write targets current. An ended session's write
    targets never change: it keeps the stored ones when none are given, and giving others is
    an InvalidArgument.

    ``deferred=True`` (for one-shot callers such as the command line) stores nothing until a
    tool call succeeds or ``end()`` is called: the session row (or its new write targets) and
    the turns added so far are then stored in one transaction, after that tool's own writes.
    A call that fails leaves the store as it was.

    On a read-only store (``Memory.open(read_only=True)``) every session is deferred and is
    never stored: its turns stay in memory, the write tools answer ``read_only``, and
    ``end()`` raises ReadOnlyStoreError.
    """

    def __init__(
        self,
        memory: Memory,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str] | None = None,
        authoritative_tools: Iterable[str] = (),
        now: datetime | None = None,
        deferred: bool = False,
    ) -> None:
        self.memory = memory
        self.principal = policy.Principal(agent_id, user_id)
        self.session_id = validate_id(session_id, what="session_id")
        targets = dict(write_targets or {"personal": f"user:{user_id}"})
        for label, scope in targets.items():
            if not isinstance(label, str) or not label:
                raise InvalidArgument("write target labels must be non-empty strings")
            Scope.parse(scope, field=f"write_targets.{label}")
        self.write_targets: dict[str, str] = targets
        self._targets_given = bool(write_targets)
        self.authoritative_tools = _tool_names(
            (*memory.config.evidence.authoritative_tools, *authoritative_tools)
        )
        self._started = now or utcnow()
        # Deferred: the turns added but not yet stored; None once stored (or never deferred).
        self._pending: list[tuple[str, str, str, str | None]] | None = None
        if deferred or memory.read_only:
            with self.memory.store.reading() as conn:
                self._check_stored(conn)
            self._pending = []
        else:
            self._persist(self._started)

    @classmethod
    def resume(
        cls,
        memory: Memory,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str],
        authoritative_tools: Iterable[str] = (),
    ) -> Session:
        """A stored session as it is, without writing anything: for the worker, which reads
        ended sessions (and their stored authoritative tools, not its own config's)."""
        session = cls.__new__(cls)
        session.memory = memory
        session.principal = policy.Principal(agent_id, user_id)
        session.session_id = session_id
        session.write_targets = dict(write_targets)
        session.authoritative_tools = _tool_names(authoritative_tools)
        session._targets_given = True
        session._started = utcnow()
        session._pending = None
        return session

    @property
    def agent_id(self) -> str:
        return self.principal.agent_id

    @property
    def user_id(self) -> str:
        return self.principal.user_id

    def _persist(self, now: datetime) -> None:
        with self.memory.store.transaction() as conn:
            self._save(conn, now)

    def _check_stored(self, conn: sqlite3.Connection) -> sqlite3.Row | None:
        """The stored row of this session, if any, after checking it against this session:
        the same principal, and for an ended session the same write targets (adopted when
        none were given). Reads only."""
        row = conn.execute(
            "SELECT agent_id, user_id, write_targets, ended_at, authoritative_tools "
            "FROM sessions WHERE session_id = ?",
            (self.session_id,),
        ).fetchone()
        if row is None:
            return None
        if (row[0], row[1]) != (self.agent_id, self.user_id):
            raise StoreError(
                f"session {self.session_id!r} belongs to agent {row[0]!r} and user "
                f"{row[1]!r}; session ids cannot be reused by another principal"
            )
        if row[3] is not None:
            stored = json.loads(row[2])
            if self._targets_given and self.write_targets != stored:
                raise InvalidArgument(
                    f"session {self.session_id!r} ended at {row[3]}; its write targets cannot "
                    "change (start a new session for a new conversation)",
                    field="write_targets",
                )
            self.write_targets = stored
            self.authoritative_tools = _tool_names(json.loads(row[4]))
        return row

    def _save(self, conn: sqlite3.Connection, now: datetime) -> None:
        row = self._check_stored(conn)
        if row is None:
            conn.execute(
                "INSERT INTO sessions (session_id, agent_id, user_id, write_targets, "
                "authoritative_tools, started_at, last_active_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    self.session_id,
                    self.agent_id,
                    self.user_id,
                    json.dumps(self.write_targets, sort_keys=True),
                    json.dumps(sorted(self.authoritative_tools)),
                    format_time(now),
                    format_time(now),
                ),
            )
            append_event(
                conn,
                kind="session.started",
                at=now,
                agent_id=self.agent_id,
                payload={"session_id": self.session_id, "user_id": self.user_id},
            )
        elif row[3] is None:  # resumed, e.g. after a host restart: keep the targets current
            conn.execute(
                "UPDATE sessions SET write_targets = ?, authoritative_tools = ? "
                "WHERE session_id = ?",
                (
                    json.dumps(self.write_targets, sort_keys=True),
                    json.dumps(sorted(self.authoritative_tools)),
                    self.session_id,
                ),
            )

    def _flush(self) -> None:
        """Store what a deferred session held back, in one transaction; then it is an
        ordinary session."""
        if self._pending is None or self.memory.read_only:
            return
        with self.memory.store.transaction() as conn:
            self._save(conn, self._started)
            if self._pending:
                _touch(conn, self.session_id)
                seq = self._next_seq(conn)
                conn.executemany(
                    "INSERT INTO turns (session_id, seq, role, content, at, tool) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        (self.session_id, seq + i, role, content, at, tool)
                        for i, (role, content, at, tool) in enumerate(self._pending)
                    ],
                )
        self._pending = None

    def _next_seq(self, conn: sqlite3.Connection) -> int:
        """The next turn's sequence number; refuses if the session has ended."""
        row = conn.execute(
            "SELECT ended_at, (SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE session_id = ?) "
            "FROM sessions WHERE session_id = ?",
            (self.session_id, self.session_id),
        ).fetchone()
        if row is None:  # deferred and not stored yet
            return 1
        if row[0] is not None:
            raise InvalidArgument(
                f"session {self.session_id!r} ended at {row[0]}; its transcript is closed "
                "(start a new session for a new conversation)",
                field="session_id",
            )
        return int(row[1])

    # -- transcript (the turn_completed event) -----------------------------------------------

    def add_turn(
        self, role: str, content: str, *, at: datetime | None = None, tool: str | None = None
    ) -> int:
        """Append one turn to the transcript and return its sequence number. ``tool``: for a
        tool turn, the tool whose output it is (only an authoritative tool's output can back
        a confirmed tool_result); for an assistant turn, the tool the model called, with its
        arguments as ``content`` (so output that hands them back is known as the model's)."""
        if role not in ROLES:
            raise InvalidArgument(
                f"role must be one of {', '.join(ROLES)}; got {role!r}", field="role"
            )
        if not isinstance(content, str):
            raise InvalidArgument("turn content must be a string", field="content")
        if (bad := _LONE_SURROGATE.search(content)) is not None:
            raise InvalidArgument(
                f"turn content is not valid Unicode text: a lone surrogate at character "
                f"{bad.start()} (bytes that are not UTF-8?); replace it, e.g. with U+FFFD",
                field="content",
            )
        if tool is not None and (
            not isinstance(tool, str) or not tool.strip() or role not in ("tool", "assistant")
        ):
            raise InvalidArgument(
                "tool must be a non-empty tool name, on a tool or assistant turn", field="tool"
            )
        at_text = format_time(at or utcnow())
        if self._pending is not None:
            with self.memory.store.reading() as conn:
                seq = self._next_seq(conn) + len(self._pending)
            self._pending.append((role, content, at_text, tool))
            return seq
        with self.memory.store.transaction() as conn:
            seq = self._next_seq(conn)
            conn.execute(
                "INSERT INTO turns (session_id, seq, role, content, at, tool) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (self.session_id, seq, role, content, at_text, tool),
            )
            _touch(conn, self.session_id)
        return seq

    def end(self, *, now: datetime | None = None, reason: str = "ended") -> str:
        """session_ended: close the transcript, persist the extraction job in the store, then
        send the queue message (through the Memory's dispatcher, if it has one). Returns the
        job id. Calling it again returns the same job: a session is extracted once, and gets
        exactly one session summary.

        The job row is written first, so a crash, or a queue that cannot be reached, loses
        nothing: a worker's next sweep sends the message for a job whose message was not
        sent (no dispatcher, or it failed). A deferred session is stored first.

        Refused (PermissionDenied, field ``write_targets``; nothing changes, the session stays
        open) while a write target names a scope the agent may not write: extraction would
        reject everything bound there and send the summary elsewhere, silently."""
        if not self.ended:
            self._check_write_targets()
        self._flush()
        dispatcher = self.memory.dispatcher
        job_id, created = self.memory.jobs.create_for_session(
            self.session_id, now=now or utcnow(), will_send=dispatcher is not None, reason=reason
        )
        if created and dispatcher is not None:
            try:
                dispatcher.dispatch(job_id, "extract")
            except Exception as exc:  # the job is safe in the store; the sweep sends it
                self.memory.jobs.mark_unsent(job_id, "extract")
                log.warning(
                    "session.dispatch_failed",
                    session_id=self.session_id,
                    job_id=job_id,
                    error=f"{type(exc).__name__}: {exc}",
                )
        return job_id

    def _check_write_targets(self) -> None:
        writable = set(self.writable_scopes())
        missing = [
            f"{label} ({scope})"
            for label, scope in sorted(self.write_targets.items())
            if scope not in writable
        ]
        if missing:
            raise PermissionDenied(
                f"agent {self.agent_id!r} may not write its write target(s) {', '.join(missing)}"
                ": extraction would reject every memory bound there. Grant write access first "
                f"(mem.grant({self.agent_id!r}, SCOPE, access='write'), or agent-memory grant), "
                "or leave the target out; the session is still open",
                field="write_targets",
            )

    def close_unused(self, *, now: datetime | None = None) -> None:
        """For a one-off session (a CLI command's): leave nothing to extract or sweep. With
        no turn, its row goes (the session.started audit event stays); with turns (the
        evidence of a record it wrote), it is closed without an extraction job, reason
        ``cli``. A session with a job is left as it is."""
        if self._pending is not None:
            return  # never stored: nothing to remove
        at = now or utcnow()
        with self.memory.store.transaction() as conn:
            if conn.execute(
                "SELECT 1 FROM jobs WHERE session_id = ?", (self.session_id,)
            ).fetchone():
                return
            if conn.execute(
                "SELECT 1 FROM turns WHERE session_id = ? LIMIT 1", (self.session_id,)
            ).fetchone():
                conn.execute(
                    "UPDATE sessions SET ended_at = ?, end_reason = 'cli' "
                    "WHERE session_id = ? AND ended_at IS NULL",
                    (format_time(at), self.session_id),
                )
            else:
                conn.execute("DELETE FROM sessions WHERE session_id = ?", (self.session_id,))

    @property
    def ended(self) -> bool:
        rows = self.memory.store.query(
            "SELECT ended_at FROM sessions WHERE session_id = ?", (self.session_id,)
        )
        return bool(rows and rows[0]["ended_at"])

    def transcript(self, *, last: int | None = None) -> list[Turn]:
        """The session's turns in order; with ``last`` (>= 0), only the final ``last``."""
        if last is not None and last < 0:
            raise ValueError(f"last must be >= 0, got {last}")
        pending = self._pending or []
        rows = self.memory.store.query(
            "SELECT * FROM (SELECT seq, role, content, at, tool FROM turns "
            "WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq",
            # SQLite: LIMIT -1 is no limit
            (self.session_id, -1 if last is None or pending else last),
        )
        turns = [self._turn(r["seq"], r["role"], r["content"], r["at"], r["tool"]) for r in rows]
        if pending:  # a deferred session's turns, after the stored ones
            first = (turns[-1].seq if turns else 0) + 1
            turns += [self._turn(first + i, *turn) for i, turn in enumerate(pending)]
            if last is not None:
                turns = turns[len(turns) - last :]
        return turns

    def _turn(self, seq: int, role: str, content: str, at: str, tool: str | None) -> Turn:
        trusted = role == "tool" and tool is not None and tool in self.authoritative_tools
        return Turn(seq, role, content, at, tool, trusted)

    # -- the tools ---------------------------------------------------------------------------

    def call(self, name: str, arguments: Any, *, now: datetime | None = None) -> dict[str, Any]:
        """Run one tool. Never raises for anything a model could cause: bad input returns
        ``{"error": {"code", "message", "field"}}`` and writes nothing."""
        tool = TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(sorted(TOOLS))
            # Only a string is echoed (clipped): the repr of any other value the model sent
            # could be arbitrarily deep (a RecursionError) or large.
            shown = repr(_clip(name)) if isinstance(name, str) else f"(a {type(name).__name__})"
            return _error("unknown_tool", f"unknown tool {shown}; the tools are {known}")
        if not isinstance(arguments, dict):
            return _error("invalid_argument", "arguments must be a JSON object")
        try:
            args = tool.arguments.model_validate(arguments)
        except ValidationError as exc:
            return _validation_error(exc)
        if tool.writes and self.memory.read_only:
            return ReadOnlyStoreError(
                f"{name} cannot run: the memory store is open read-only; nothing was written"
            ).as_tool_error()
        try:
            result = tool.handler(self, args, now or utcnow())
        except (InvalidArgument, ReadOnlyStoreError) as exc:
            return exc.as_tool_error()
        except AgentMemoryError:
            raise  # the host's problem (closed store, misuse): raise to the host
        except Exception:
            log.exception("tool.failed", tool=name, session_id=self.session_id)
            return internal_tool_error()
        self._flush()  # a deferred session is stored once a call has succeeded
        return result

    def readable_scopes(self) -> tuple[str, ...]:
        return policy.readable_scopes(self.principal, self.memory.store.grants(self.agent_id))

    def writable_scopes(self) -> tuple[str, ...]:
        return policy.writable_scopes(self.principal, self.memory.store.grants(self.agent_id))

    def resolve_target(self, target: str) -> str:
        """The scope a symbolic write target names, if this agent may write it."""
        scope = self.write_targets.get(target)
        if scope is None:
            known = ", ".join(sorted(self.write_targets)) or "none"
            raise InvalidArgument(
                f"unknown write target {target!r}; this session's targets are: {known}",
                field="target",
            )
        if scope not in self.writable_scopes():
            raise PermissionDenied(
                f"this agent may not write the {target!r} target; ask the host for a grant",
                field="target",
            )
        return scope

    def write(self, args: WriteArgs, *, now: datetime) -> dict[str, Any]:
        scope = self.resolve_target(args.target)
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
            agent_id=self.agent_id,
            user_id=self.user_id,
            session_id=self.session_id,
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
        outcome = self.memory.ingestor().write(
            request, readable=self.readable_scopes(), transcript=self.transcript(), now=now
        )
        return outcome.to_json()

    def revise(self, args: ReviseArgs, *, now: datetime) -> dict[str, Any]:
        if args.action == "merge_entities":
            return self._merge_entities(args, now=now)
        record = self.writable_record(args.id, now=now)
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
                agent_id=self.agent_id,
                user_id=self.user_id,
                session_id=self.session_id,
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
            outcome = self.memory.ingestor().write(
                request, readable=self.readable_scopes(), transcript=self.transcript(), now=now
            )
            return {
                "id": outcome.id,
                "action": "correct",
                "supersedes_id": outcome.supersedes_id,
                "status": outcome.status.value,
                "source_kind": outcome.source_kind.value,
                "notes": outcome.notes,
            }
        return self._confirm(record, args, now=now)

    def _confirm(self, record: Record, args: ReviseArgs, *, now: datetime) -> dict[str, Any]:
        started = time.perf_counter()
        ingestor = self.memory.ingestor()
        claimed = SourceKind(
            args.source_kind or ("user_statement" if args.evidence else "agent_inference")
        )
        request = WriteRequest(
            type=record.type,
            content=record.content,
            source_kind=claimed,
            scope=record.scope,
            agent_id=self.agent_id,
            user_id=self.user_id,
            session_id=self.session_id,
            evidence=args.evidence,
        )
        checked = ingestor.check_evidence(request, self.transcript())
        source_kind, evidence, notes = checked.source_kind, checked.evidence, checked.notes
        # An agent's word alone never promotes: only a quote can (Ingestor.reinforce_in).
        witness = ingestor.witness(checked, request)
        with self.memory.store.transaction() as conn:
            current = select_records(
                conn, "r.id = ? AND r.status IN ('provisional', 'confirmed')", (record.id,)
            )
            if not current or current[0].status_at(format_time(now)) not in LIVE_STATUSES:
                raise NotFound(f"{record.id} is no longer live", field="id")
            status, kind, _ = ingestor.reinforce_in(
                conn,
                current[0],
                request,
                new_source=source_kind,
                evidence=evidence,
                witness=witness,
                stated_at=ingestor.stated_at(checked, now) if witness is not None else None,
                now=now,
                kind="confirmed",
            )
        self.memory.index()
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

    def _merge_entities(self, args: ReviseArgs, *, now: datetime) -> dict[str, Any]:
        if not args.into_entity:
            raise InvalidArgument(
                "merge_entities needs into_entity (the survivor's id or name)", field="into_entity"
            )
        writable = set(self.writable_scopes())
        readable = self.readable_scopes()
        with self.memory.store.transaction() as conn:
            loser = entities.find(conn, args.id, readable)
            if loser is None:
                raise NotFound(f"no entity {args.id!r} that this agent can read", field="id")
            survivor = entities.find(
                conn, args.into_entity, readable, kind=loser[1], scope=loser[2]
            )
            if survivor is None:
                raise NotFound(
                    f"no {loser[1]} entity {args.into_entity!r} in {loser[2]} to merge into",
                    field="into_entity",
                )
            if survivor[0] == loser[0]:
                raise InvalidArgument("an entity cannot be merged into itself", field="into_entity")
            if survivor[2] != loser[2]:  # a merge moves aliases: never across scopes
                raise InvalidArgument(
                    f"{args.into_entity!r} is in another scope; entities merge only within "
                    "one scope",
                    field="into_entity",
                )
            if loser[2] not in writable:
                raise PermissionDenied(f"this agent may not write {loser[2]}", field="id")
            merged = entities.merge(
                conn,
                loser=loser[0],
                survivor=survivor[0],
                agent_id=self.agent_id,
                reason=args.reason,
                now=now,
            )
        self.memory.index()
        return {
            "id": survivor[0],
            "action": "merge_entities",
            "supersedes_id": None,
            "merged": loser[0],
            "records_repointed": merged,
        }

    def forget(self, args: ForgetArgs, *, now: datetime) -> dict[str, Any]:
        """memory_forget: the record and its lineage are erased (``erased``: every id), and
        the turns that said it are redacted; a deferred session's turns are stored first so
        that they are redacted too. ``similar``: live records a search would have collapsed
        into it, left for the caller to forget as well or keep (core.erasure). Forgetting a
        forgotten record again answers deleted (and erases what its lineage still had): a
        retry after a lost answer must not read as not_found."""
        record = self.memory.store.get_records([args.id]).get(args.id)
        if record is None or record.status is not Status.DELETED:
            record = self.writable_record(args.id, now=now, live_only=False)
        elif record.scope not in self.writable_scopes():
            raise NotFound(f"no record {args.id!r}", field="id")
        self._flush()
        similar = erasure.near_duplicates(self.memory, record, self.readable_scopes(), now=now)
        erased = self.memory.erase(record.id, reason=args.reason, agent_id=self.agent_id, now=now)
        result: dict[str, Any] = {"id": record.id, "status": "deleted", "erased": erased}
        if similar := [i for i in similar if i not in erased]:
            result["similar"] = similar
        if self.memory.store.purge_pending:  # the text is gone from every table, not yet the WAL
            result["purge_pending"] = True
        return result

    def search(self, args: SearchArgs, *, now: datetime) -> dict[str, Any]:
        """memory_search: the retrieval pipeline over the scopes this agent may read for this
        user. With ``rewrite.enabled``, the last turns the host recorded are the current-turn
        context the rewriter sees."""
        if args.since and args.until and args.until < args.since:
            raise InvalidArgument("until is before since", field="until")
        config = self.memory.config.retrieval
        request = SearchRequest(
            query=args.query,
            agent_id=self.agent_id,
            user_id=self.user_id,
            session_id=self.session_id,
            types=frozenset(MemoryType(t) for t in args.types) if args.types else None,
            since=args.since,
            until=args.until,
            entities=tuple(args.entities),
            include_history=args.include_history,
            limit=min(args.limit or config.default_limit, config.max_limit),
            budget_tokens=args.budget_tokens or config.budget_tokens,
            context=self._recent_turns() if self.memory.config.rewrite.enabled else "",
        )
        return self.memory.retriever().search(request, readable=self.readable_scopes(), now=now)

    def _recent_turns(self, count: int = 4) -> str:
        turns = self.transcript(last=count)  # a long session's whole transcript is not read
        return "\n".join(f"{t.role}: {t.content}" for t in turns)

    def get(self, args: GetArgs, *, now: datetime) -> dict[str, Any]:
        """memory_get: the records this agent may read, by id; the rest are ``missing``.

        Status is read as of ``now`` (Record.status_at): a provisional record whose expires_at
        has come is expired whether or not the worker's sweep has run. So it is missing unless
        include_history, and then its status reads "expired", which is what the sweep will
        write (a read writes nothing; the stored row changes when the sweep runs)."""
        allowed = HISTORY_STATUSES if args.include_history else LIVE_STATUSES
        readable = set(self.readable_scopes())
        at = format_time(now)
        found = self.memory.store.get_records(list(dict.fromkeys(args.ids)))
        records, missing = [], []
        for record_id in dict.fromkeys(args.ids):
            record = found.get(record_id)
            status = None if record is None else record.status_at(at)
            if record is None or record.scope not in readable or status not in allowed:
                missing.append(record_id)
            else:
                records.append(replace(record, status=status).to_json())
        return {"records": records, "missing": missing}

    def writable_record(self, record_id: str, *, now: datetime, live_only: bool = True) -> Record:
        """A record this agent may read and write; otherwise NotFound or PermissionDenied
        (an unreadable record is reported exactly like an absent one). Status is read as of
        ``now``, as memory_get reads it: a lapsed provisional record is expired."""
        record = self.memory.store.get_records([record_id]).get(record_id)
        statuses = LIVE_STATUSES if live_only else HISTORY_STATUSES
        if record is None or record.scope not in self.readable_scopes():
            raise NotFound(f"no record {record_id!r}", field="id")
        status = record.status_at(format_time(now))
        if status not in statuses:
            raise NotFound(f"{record_id} is {status.value}; it cannot be changed", field="id")
        if record.scope not in self.writable_scopes():
            raise PermissionDenied(f"this agent may read but not change {record_id}", field="id")
        return record


def _tool_names(names: Iterable[str]) -> frozenset[str]:
    """The authoritative tool names, checked: a host's mistake raises InvalidArgument."""
    names = (names,) if isinstance(names, str) else tuple(names)
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise InvalidArgument(
            "authoritative tools must be non-empty tool names", field="authoritative_tools"
        )
    return frozenset(names)


def _check_window(valid_from: str | None, valid_until: str | None) -> None:
    if valid_from and valid_until and valid_until < valid_from:
        raise InvalidArgument("valid_until is before valid_from", field="valid_until")


def _error(code: str, message: str, field: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return {"error": error}


MAX_ECHO = 80
# A code point UTF-8 cannot encode (half of a UTF-16 pair, or an undecodable byte Python kept
# as surrogateescape): SQLite cannot store it.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: what a recorder of other
    software's text (a tool's output) stores instead of refusing the turn."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def _clip(text: str) -> str:
    """``text`` cut to MAX_ECHO characters (with an ellipsis), for echoing a model's input."""
    return text if len(text) <= MAX_ECHO else text[: MAX_ECHO - 1] + "…"


def _validation_error(exc: ValidationError) -> dict[str, Any]:
    """The first problem pydantic found, as a structured tool error naming the argument
    (a name longer than MAX_ECHO characters is cut, in the message and the field)."""
    first = exc.errors()[0]
    location = _clip(".".join(str(part) for part in first["loc"]))
    if first["type"] == "extra_forbidden":
        message = f"unknown argument {location!r}"
    elif first["type"] == "missing":
        message = f"missing required argument {location!r}"
    else:
        message = f"{location}: {first['msg']}".removeprefix(": ")
    more = len(exc.errors()) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    return _error("invalid_argument", message, location or None)


__all__ = ["Session"]


def _touch(conn: sqlite3.Connection, session_id: str) -> None:
    """Note activity on a session, by the store's clock (the idle sweep reads it)."""
    conn.execute(
        "UPDATE sessions SET last_active_at = ? WHERE session_id = ?",
        (format_time(utcnow()), session_id),
    )

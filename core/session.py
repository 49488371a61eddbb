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
tool_result (core.write.evidence).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from agent_memory.core import events, policy, tracing
from agent_memory.core.engine import Engine
from agent_memory.core.errors import (
    AgentMemoryError,
    InvalidArgument,
    PermissionDenied,
    ReadOnlyStoreError,
    StoreError,
    internal_tool_error,
)
from agent_memory.core.logging import get_logger
from agent_memory.core.models import (
    Scope,
    format_time,
    host_time,
    utcnow,
    validate_id,
)
from agent_memory.core.store import sessions as stored
from agent_memory.core.tools import TOOLS, ToolContext
from agent_memory.core.tools.registry import Tool
from agent_memory.core.tools.schemas import SearchArgs
from agent_memory.core.write.evidence import Turn

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

    ``host``: the facade the session was opened through (``Memory.session`` passes itself),
    kept as ``session.memory`` for the host's own use; nothing in the session reads it.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str] | None = None,
        authoritative_tools: Iterable[str] = (),
        now: datetime | None = None,
        deferred: bool = False,
        host: Any = None,
    ) -> None:
        self.engine = engine
        self.memory = host
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
            (*self.engine.config.evidence.authoritative_tools, *authoritative_tools)
        )
        self._started = host_time(now, field="now") or utcnow()
        # Deferred: the turns added but not yet stored; None once stored (or never deferred).
        self._pending: list[tuple[str, str, str, str | None]] | None = None
        if deferred or self.engine.read_only:
            with self.engine.store.reading() as conn:
                self._check_stored(conn)
            self._pending = []
        else:
            self._persist(self._started)

    @classmethod
    def resume(
        cls,
        engine: Engine,
        *,
        agent_id: str,
        user_id: str,
        session_id: str,
        write_targets: Mapping[str, str],
        authoritative_tools: Iterable[str] = (),
        host: Any = None,
    ) -> Session:
        """A stored session as it is, without writing anything: for the worker, which reads
        ended sessions (and their stored authoritative tools, not its own config's)."""
        session = cls.__new__(cls)
        session.engine = engine
        session.memory = host
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
        with self.engine.store.transaction() as conn:
            self._save(conn, now)

    def _check_stored(self, conn: sqlite3.Connection) -> stored.StoredSession | None:
        """The stored row of this session, if any, after checking it against this session:
        the same principal, and for an ended session the same write targets (adopted when
        none were given). Reads only."""
        row = stored.stored(conn, self.session_id)
        if row is None:
            return None
        if (row.agent_id, row.user_id) != (self.agent_id, self.user_id):
            raise StoreError(
                f"session {self.session_id!r} belongs to agent {row.agent_id!r} and user "
                f"{row.user_id!r}; session ids cannot be reused by another principal"
            )
        if row.ended_at is not None:
            if self._targets_given and self.write_targets != row.write_targets:
                raise InvalidArgument(
                    f"session {self.session_id!r} ended at {row.ended_at}; its write targets "
                    "cannot change (start a new session for a new conversation)",
                    field="write_targets",
                )
            self.write_targets = row.write_targets
            self.authoritative_tools = _tool_names(row.authoritative_tools)
        return row

    def _save(self, conn: sqlite3.Connection, now: datetime) -> None:
        row = self._check_stored(conn)
        if row is None:
            started = events.SessionStarted(
                agent_id=self.agent_id, session_id=self.session_id, user_id=self.user_id
            )
            stored.start(
                conn,
                started,
                write_targets=self.write_targets,
                authoritative_tools=sorted(self.authoritative_tools),
                now=now,
            )
        elif row.ended_at is None:  # resumed, e.g. after a host restart: keep targets current
            stored.update_settings(
                conn,
                self.session_id,
                write_targets=self.write_targets,
                authoritative_tools=sorted(self.authoritative_tools),
            )

    def _flush(self) -> None:
        """Store what a deferred session held back, in one transaction; then it is an
        ordinary session."""
        if self._pending is None or self.engine.read_only:
            return
        with self.engine.store.transaction() as conn:
            self._save(conn, self._started)
            if self._pending:
                stored.add_turns(conn, self.session_id, self._next_seq(conn), self._pending)
        self._pending = None

    def _next_seq(self, conn: sqlite3.Connection) -> int:
        """The next turn's sequence number; refuses if the session has ended."""
        found = stored.next_seq(conn, self.session_id)
        if found is None:  # deferred and not stored yet
            return 1
        ended_at, seq = found
        if ended_at is not None:
            raise InvalidArgument(
                f"session {self.session_id!r} ended at {ended_at}; its transcript is closed "
                "(start a new session for a new conversation)",
                field="session_id",
            )
        return seq

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
        at_text = format_time(host_time(at, field="at") or utcnow())
        if self._pending is not None:
            with self.engine.store.reading() as conn:
                seq = self._next_seq(conn) + len(self._pending)
            self._pending.append((role, content, at_text, tool))
            return seq
        with self.engine.store.transaction() as conn:
            seq = self._next_seq(conn)
            stored.add_turns(conn, self.session_id, seq, [(role, content, at_text, tool)])
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
        now = host_time(now, field="now")
        if not self.ended:
            self._check_write_targets()
        self._flush()
        dispatcher = self.engine.dispatcher()
        job_id, created = self.engine.jobs.create_for_session(
            self.session_id,
            now=now or utcnow(),
            will_send=dispatcher is not None,
            reason=reason,
        )
        if created and dispatcher is not None:
            try:
                dispatcher.dispatch(job_id, "extract")
            except Exception as exc:  # the job is safe in the store; the sweep sends it
                self.engine.jobs.mark_unsent(job_id, "extract")
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
        with self.engine.store.transaction() as conn:
            stored.close_unused(conn, self.session_id, at=now or utcnow())

    @property
    def ended(self) -> bool:
        return bool(stored.ended_at(self.engine.store, self.session_id))

    def transcript(self, *, last: int | None = None) -> list[Turn]:
        """The session's turns in order; with ``last`` (>= 0), only the final ``last``."""
        if last is not None and last < 0:
            raise ValueError(f"last must be >= 0, got {last}")
        pending = self._pending or []
        rows = stored.transcript(self.engine.store, self.session_id, last=None if pending else last)
        turns = [self._turn(r.seq, r.role, r.content, r.at, r.tool) for r in rows]
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
        """Run one tool: validate the arguments, build this call's ToolContext and run the
        tool's handler (core.tools.handlers). Never raises for anything a model could cause:
        bad input returns ``{"error": {"code", "message", "field"}}`` and writes nothing. A
        ``now`` that is not an aware datetime is the host's error: InvalidArgument."""
        now = host_time(now, field="now")
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
        if tool.writes and self.engine.read_only:
            return ReadOnlyStoreError(
                f"{name} cannot run: the memory store is open read-only; nothing was written"
            ).as_tool_error()
        with self._span(name) as span:
            if isinstance(args, SearchArgs):
                span.query(args.query)
            result = self._run(tool, args, now)
            span.finish(result)
        return result

    def _run(self, tool: Tool, args: Any, now: datetime | None) -> dict[str, Any]:
        try:
            result = tool.handler(self.tool_context(), args, now or utcnow())
        except (InvalidArgument, ReadOnlyStoreError) as exc:
            return exc.as_tool_error()
        except AgentMemoryError:
            raise  # the host's problem (closed store, misuse): raise to the host
        except Exception:
            log.exception("tool.failed", tool=tool.name, session_id=self.session_id)
            return internal_tool_error()
        self._flush()  # a deferred session is stored once a call has succeeded
        return result

    def _span(self, tool: str) -> AbstractContextManager[tracing.ToolSpan]:
        """The OpenTelemetry span of one tool call (a no-op without a host's SDK)."""
        return tracing.tool_span(
            tool,
            store_id=tracing.store_id(self.engine),
            agent_id=self.principal.agent_id,
            session_id=self.session_id,
            capture_content=self.engine.config.tracing.capture_content,
        )

    def tool_context(self) -> ToolContext:
        """What a tool call runs with: this session's identity, write targets and transcript
        over the engine's parts (core.tools.context). ``call`` builds one per call."""
        return ToolContext(
            engine=self.engine,
            principal=self.principal,
            session_id=self.session_id,
            write_targets=self.write_targets,
            transcript=self.transcript,
            store_pending=self._flush,
        )

    def readable_scopes(self) -> tuple[str, ...]:
        return policy.readable_scopes(self.principal, self.engine.store.grants(self.agent_id))

    def writable_scopes(self) -> tuple[str, ...]:
        return policy.writable_scopes(self.principal, self.engine.store.grants(self.agent_id))


def _tool_names(names: Iterable[str]) -> frozenset[str]:
    """The authoritative tool names, checked: a host's mistake raises InvalidArgument."""
    names = (names,) if isinstance(names, str) else tuple(names)
    if any(not isinstance(n, str) or not n.strip() for n in names):
        raise InvalidArgument(
            "authoritative tools must be non-empty tool names", field="authoritative_tools"
        )
    return frozenset(names)


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

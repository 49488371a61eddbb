"""What every route shares: the open ``Memory``, the caller (its API key), and sessions.

Sessions across requests and processes: a session's identity (agent, user, write targets,
authoritative tools) and its transcript live in the store from ``POST /v1/sessions`` on, so
each request rebuilds its ``Session`` from the stored row (``Session.resume``, which writes
nothing; one indexed read). No process keeps a session of its own: a session opened through
one server process is used, and ended, through any other on the same store file, and a
restart loses nothing. The row also decides who may use it: only the agent that opened it
(another agent's key gets 404, as for a session that does not exist).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from agent_memory.api.http.problems import Problem
from agent_memory.core.memory import Memory
from agent_memory.core.session import Session
from agent_memory.core.store.api_keys import ApiKey, authenticate
from agent_memory.core.store.sessions import session_row


@dataclass
class Server:
    """One server process's state: the store it serves and the idempotency settings."""

    memory: Memory
    idempotency_ttl_seconds: float = 24 * 3600
    idempotency_stale_seconds: float = 300
    _reader: Memory | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reader(self) -> Memory:
        """A read-only Memory of the same file (sharing the embedder), opened on first use:
        the inspector's searches cannot write, nor are they logged."""
        with self._lock:
            if self._reader is None:
                mem = self.memory
                self._reader = Memory.open(
                    mem.path, mem.config, embedder=mem.embedder, read_only=True
                )
            return self._reader

    def close(self) -> None:
        with self._lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None


def server(request: Request) -> Server:
    found: Server = request.app.state.server
    return found


async def server_dep(request: Request) -> Server:
    """``server`` as a dependency: async, because FastAPI runs a plain function dependency in
    its thread pool, a hop (a thread hand-off each way) per dependency per request."""
    return server(request)


bearer = HTTPBearer(
    auto_error=False,
    bearerFormat="agent-memory API key",
    description="An API key from `agent-memory keys add --agent AGENT`; it decides the agent.",
)


async def caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> ApiKey:
    """The live API key of the request, else 401. Looked up in the store on every request,
    so a key revoked through any process stops working at once everywhere.

    Async on purpose: the lookup is one indexed read (tens of microseconds), cheaper than the
    thread-pool hop FastAPI makes for a plain function, which measured about 1 ms of CPU per
    request (and more wall time on a loaded machine; benchmarks/bench_http.py)."""
    if credentials is None:
        raise Problem(401, "unauthorized", "send the header Authorization: Bearer <API key>")
    key = authenticate(server(request).memory.store, credentials.credentials)
    if key is None:
        raise Problem(401, "unauthorized", "the API key is not valid (unknown or revoked)")
    return key


async def admin(key: Annotated[ApiKey, Depends(caller)]) -> ApiKey:
    """An admin key, else 403."""
    if not key.admin:
        raise Problem(403, "forbidden", "this route needs an admin key (keys add --admin)")
    return key


Caller = Annotated[ApiKey, Depends(caller)]
Admin = Annotated[ApiKey, Depends(admin)]
ServerDep = Annotated[Server, Depends(server_dep)]


def stored_session(memory: Memory, key: ApiKey, session_id: str) -> Session:
    """The session ``session_id`` as stored, for ``key``'s agent; 404 if there is none or it
    is another agent's (whose existence is not revealed)."""
    row = session_row(memory.store, session_id)
    if row is None or row["agent_id"] != key.agent_id:
        raise Problem(404, "not_found", f"no session {session_id!r} for this key's agent")
    return Session.resume(
        memory.engine,
        host=memory,
        agent_id=row["agent_id"],
        user_id=row["user_id"],
        session_id=row["session_id"],
        write_targets=row["write_targets"],
        authoritative_tools=row["authoritative_tools"],
    )


__all__ = ["Admin", "Caller", "Server", "ServerDep", "admin", "caller", "stored_session"]

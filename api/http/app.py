"""The FastAPI application: ``create_app(memory)``; ``agent-memory serve`` runs it on uvicorn.

    mem = Memory.open("data/memory.db")
    app = create_app(mem)          # GET /healthz, /openapi.json, the /v1 routes

Route handlers are plain functions (FastAPI runs them in its thread pool); ``Memory`` is
thread-safe, and several server processes may serve one store file (api.http.deps).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from agent_memory.api.http import admin, inspector, problems, routes
from agent_memory.api.http.deps import Server
from agent_memory.api.http.limits import MAX_BODY_BYTES, BoundedBodies
from agent_memory.core.memory import Memory

DESCRIPTION = """Durable, scoped memory for LLM agents, over HTTP.

Send an API key (`agent-memory keys add --agent AGENT`) as `Authorization: Bearer KEY`: the
key decides the agent. Open a session for a user, add its turns, call the five memory tools,
end it (extraction runs in `agent-memory worker`). Errors are RFC 9457 problem details
carrying the tool's error code. Write-like requests take an `Idempotency-Key`."""


def create_app(memory: Memory, *, max_body_bytes: int = MAX_BODY_BYTES, **settings: Any) -> FastAPI:
    """The application over an open ``memory``; ``settings`` are ``Server``'s fields (the
    idempotency window); a body over ``max_body_bytes`` is refused (api.http.limits)."""
    state = Server(memory, **settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        state.close()

    app = FastAPI(
        lifespan=lifespan,
        title="agent-memory",
        version="0.1.0",
        description=DESCRIPTION,
        docs_url=None,  # no page that loads scripts from a CDN; /openapi.json is the spec
        redoc_url=None,
    )
    app.state.server = state
    problems.install(app)
    app.add_middleware(BoundedBodies, max_body_bytes=max_body_bytes)  # outermost: first

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """Liveness, without a key."""
        return {"status": "ok"}

    app.include_router(routes.router)
    app.include_router(admin.router)
    app.include_router(inspector.router)
    return app


__all__ = ["create_app"]

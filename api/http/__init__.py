"""The HTTP API (issue 19): ``agent-memory serve --store PATH --host 127.0.0.1 --port 8080``.

A thin layer over the same core calls a Python host makes (``Memory.session``,
``Session.call``, ``Session.end``, ``mem.jobs``): see api.http.app (the application),
api.http.routes (sessions, turns, tools, jobs), api.http.admin (grants, stats,
forget-user), api.http.deps (keys and sessions across processes), api.http.problems (errors)
and api.http.idempotency. Needs the ``server`` extra (FastAPI, uvicorn).
"""

from agent_memory.api.http.app import create_app

__all__ = ["create_app"]

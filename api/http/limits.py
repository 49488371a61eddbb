"""A bound on request bodies: ``max_body_bytes`` (8 MiB by default, ``create_app(memory,
max_body_bytes=...)``), answered 413 ``body_too_large``.

FastAPI reads and parses a JSON body before any dependency runs, the API key's check
included: without a bound, anyone who can reach the port could make the server read and
parse (and a key holder store, as one turn) as many bytes as it sends. A declared
``Content-Length`` over the bound is refused before a byte is read; a body sent without one
(chunked) is cut off where it crosses the bound.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_memory.api.http.problems import Problem

MAX_BODY_BYTES = 8 * 1024 * 1024


class BoundedBodies:
    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max:
            await self._refused().response()(scope, receive, send)
            return
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max:
                    # An HTTPException: FastAPI re-raises it from its body parsing (any
                    # other error there becomes a 400), and the problem handler answers it.
                    raise HTTPException(413, self._refused().detail)
            return message

        await self.app(scope, bounded, send)

    def _refused(self) -> Problem:
        return Problem(413, "body_too_large", f"the request body is over {self.max} bytes")


__all__ = ["MAX_BODY_BYTES", "BoundedBodies"]

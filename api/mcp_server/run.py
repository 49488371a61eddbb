"""Running the MCP server: over stdio (the default) or streamable HTTP.

stdio: the process's real stdout carries MCP messages and nothing else. ``protect_stdout``
is called first, before the store is opened or a model loaded: it keeps a private copy of
file descriptor 1 for the protocol and points descriptor 1 (and so ``print``, C libraries'
output, child processes) at stderr for the rest of the process. Logs go to stderr
(core.logging). EOF on stdin, SIGTERM or SIGINT stop the server; every memory session is
ended on the way out.

HTTP: the SDK's streamable HTTP app on uvicorn, behind its bearer-token middleware with
``tokens.TokenTable`` as the verifier (401 without a known token). When a client ends its MCP
session (DELETE with its Mcp-Session-Id), its memory sessions end; uvicorn's graceful
shutdown (SIGTERM, SIGINT) ends the rest.
"""

from __future__ import annotations

import io
import os
import signal
from typing import Any, BinaryIO

import anyio
from mcp.server import Server
from mcp.server.auth.settings import AuthSettings
from mcp.server.stdio import stdio_server
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_memory.api.mcp_server.server import SESSION_HEADER, MemoryServer
from agent_memory.api.mcp_server.tokens import TokenTable
from agent_memory.core.logging import get_logger

log = get_logger("agent_memory.mcp")


def protect_stdout() -> BinaryIO:
    """Take descriptor 1 for the protocol: returns a binary file on a private duplicate of it,
    and points descriptor 1 at stderr, so whatever else writes to stdout lands on stderr."""
    protocol_fd = os.dup(1)
    os.set_inheritable(protocol_fd, False)
    os.dup2(2, 1)
    return os.fdopen(protocol_fd, "wb", buffering=0)


def run_stdio(server: Server[MemoryServer], protocol: BinaryIO) -> None:
    anyio.run(_serve_stdio, server, protocol)


async def _serve_stdio(server: Server[MemoryServer], protocol: BinaryIO) -> None:
    stdout = anyio.wrap_file(io.TextIOWrapper(protocol, encoding="utf-8", newline="\n"))
    async with (
        stdio_server(stdout=stdout) as (read_stream, write_stream),
        anyio.create_task_group() as group,
    ):

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(stop_on_signal)
        await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()  # EOF: the client is gone


def run_http(
    server: Server[MemoryServer], state: MemoryServer, tokens: TokenTable, host: str, port: int
) -> None:
    import uvicorn

    app = server.streamable_http_app(
        host=host,
        # One JSON body per answer rather than an SSE stream: nothing here streams, and the
        # stream's separate small writes cost a delayed-ACK wait (~40 ms) per call on loopback.
        json_response=True,
        token_verifier=tokens,
        # Resource-server settings only: no OAuth routes, no metadata; the verifier decides.
        auth=AuthSettings(issuer_url=f"http://{_url_host(host)}:{port}", resource_server_url=None),
    )
    config = uvicorn.Config(
        EndSessionsOnDelete(app, state),
        host=host,
        port=port,
        log_config=None,  # uvicorn's own config prints access lines to stdout
        access_log=False,
        lifespan="on",
    )
    log.info("mcp.http_listening", host=host, port=port, path="/mcp")
    anyio.run(uvicorn.Server(config).serve)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class EndSessionsOnDelete:
    """ASGI wrapper: after a DELETE that ended an MCP session (a 2xx answer), end the memory
    sessions that MCP session held."""

    def __init__(self, app: ASGIApp, state: MemoryServer) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "DELETE":
            await self.app(scope, receive, send)
            return
        wanted = SESSION_HEADER.encode("ascii")
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == wanted), None)
        status: dict[str, Any] = {}

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        await self.app(scope, receive, watch)
        if session and 200 <= status.get("code", 500) < 300:
            await anyio.to_thread.run_sync(self.state.end_transport_session, session)


__all__ = ["EndSessionsOnDelete", "protect_stdout", "run_http", "run_stdio"]

"""A client of ``agent-memory mcp`` over stdio, with the SDK's own ``Client``: what the
quickstart uses to show the server's tool list (and a host can copy)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client


def server_parameters(
    store: str | Path, *, agent: str, user: str, extra: Sequence[str] = ()
) -> StdioServerParameters:
    """How to start ``agent-memory mcp`` over stdio with this interpreter, passing the whole
    environment on (the SDK passes only a few variables by default; the settings and the
    offline flags live in the environment)."""
    return StdioServerParameters(
        command=sys.executable,
        args=[
            *("-m", "agent_memory.api", "mcp", "--store", str(store)),
            *("--agent", agent, "--user", user, *extra),
        ],
        env=dict(os.environ),
    )


def tool_names(store: str | Path, *, agent: str, user: str, timeout: float = 120.0) -> list[str]:
    """Start the server over stdio, list its tools, stop it (its stderr is discarded)."""

    async def listing() -> list[str]:
        params = server_parameters(store, agent=agent, user=user, extra=("--log-level", "ERROR"))
        with open(os.devnull, "w") as errlog, anyio.fail_after(timeout):
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                return [tool.name for tool in (await client.list_tools()).tools]

    return anyio.run(listing)


__all__ = ["server_parameters", "tool_names"]

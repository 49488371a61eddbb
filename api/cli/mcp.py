"""mcp: serve the memory tools to MCP clients (api.mcp_server), over stdio or HTTP."""

from __future__ import annotations

import argparse
import sys

from agent_memory.api.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    Subcommands,
    add_command,
    load_config,
    open_memory,
    pairs,
    write_target_flag,
)
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.logging import configure_logging
from agent_memory.core.models import validate_id
from agent_memory.core.tools import TRIGGER_MODES


def _http_address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidArgument(f"--http must look like HOST:PORT, got {text!r}", field="--http")
    return host.strip("[]"), int(port)


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from agent_memory.api.mcp_server import run as transports
        from agent_memory.api.mcp_server.server import MemoryServer, build_server
        from agent_memory.api.mcp_server.tokens import Binding, load_tokens
    except ModuleNotFoundError as exc:
        if exc.name is None or not exc.name.startswith("mcp"):
            raise
        print(
            "agent-memory: error: the MCP server needs the mcp extra: "
            "pip install 'agent-memory[mcp]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    # Whatever runs from here on logs to stderr only (uvicorn and the SDK included).
    configure_logging(level=args.log_level, stdlib=("uvicorn", "mcp"))
    config = load_config(args)
    mode = args.mode or config.trigger.mode
    targets = dict(pairs(args.write_target, what="--write-target")) or None
    if args.http is None:
        if args.tokens is not None:
            raise InvalidArgument("--tokens is for --http; stdio takes --agent and --user")
        if args.agent is None or args.user is None:
            raise InvalidArgument("stdio needs --agent and --user (over HTTP, --tokens)")
        binding = Binding(
            "stdio",
            validate_id(args.agent, what="--agent"),
            (validate_id(args.user, what="--user"),),
            targets,
            mode,
        )
        protocol = transports.protect_stdout()  # before anything can print
        memory = open_memory(args, config)
        state = MemoryServer(
            memory,
            mode=mode,
            stdio=binding,
            add_turns=args.add_turns,
            authoritative_tools=args.authoritative_tool or (),
        )
        try:
            transports.run_stdio(build_server(state), protocol)
        finally:
            memory.close()
        return EXIT_OK
    host, port = _http_address(args.http)
    if args.tokens is None:
        raise InvalidArgument("--http needs --tokens FILE: who each bearer token acts for")
    if args.agent is not None or args.user is not None or targets is not None:
        raise InvalidArgument("over HTTP the tokens file binds agent, users and write targets")
    tokens = load_tokens(args.tokens)
    memory = open_memory(args, config)
    state = MemoryServer(
        memory,
        mode=mode,
        tokens=tokens,
        add_turns=args.add_turns,
        authoritative_tools=args.authoritative_tool or (),
    )
    try:
        transports.run_http(build_server(state), state, tokens, host, port)
    finally:
        memory.close()
    return EXIT_OK


def add_mcp(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "mcp",
        cmd_mcp,
        "Serve the memory tools to MCP clients, over stdio (default) or streamable HTTP. "
        "Identity is bound here, never by a tool's arguments: --agent/--user over stdio, "
        "the bearer token's entry in --tokens over HTTP. Closing the connection ends the "
        "memory session (extraction job id on stderr).",
        "agent-memory mcp --store memory.db --agent assistant --user alice\n"
        "agent-memory mcp --store memory.db --http 127.0.0.1:8765 --tokens tokens.toml",
        json_flag=False,
    )
    p.add_argument("--agent", default=None, help="the agent the client acts as (stdio)")
    p.add_argument("--user", default=None, help="the user it acts for (stdio)")
    write_target_flag(p)
    p.add_argument(
        "--mode",
        choices=TRIGGER_MODES,
        default=None,
        help="trigger mode (default: trigger.mode of the settings, tool_only)",
    )
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    p.add_argument(
        "--tokens",
        metavar="FILE",
        default=None,
        help="JSON or TOML file of bearer tokens and whom each acts for (HTTP; format in "
        "the README's MCP section)",
    )
    p.add_argument(
        "--add-turns",
        action="store_true",
        help="also offer memory_add_turns, for a host that records its conversation itself "
        "(off by default: a model that sees it could invent user turns and quote them)",
    )
    p.add_argument(
        "--authoritative-tool",
        action="append",
        metavar="NAME",
        help="a tool whose output may back a confirmed tool_result; repeatable",
    )
    # The session's start and end (its extraction job id) are info events.
    p.set_defaults(log_level="INFO")


COMMANDS = {"mcp": add_mcp}

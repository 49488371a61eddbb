"""The ``agent-memory`` command line. A thin surface over ``core``: parsing, printing, exit codes.

Every command takes ``--store PATH`` (default: $AGENT_MEMORY_STORE, else
./agent-memory/memory.db) and ``--config FILE`` (default: $AGENT_MEMORY_CONFIG); settings may
also come from AGENT_MEMORY_<SECTION>__<NAME> variables. Commands that print results take
``--json``. Errors print one line (or a JSON object with --json) and exit 2, and the store is
left as it was; a store file that does not exist yet is created on opening, as by ``init``,
even when the command then fails. The tool commands (write, get, forget, search) run their
tool on a deferred session (core.session.Session), so a refused call stores no session and no
``--said`` turn; ingest likewise stores the session, its turns and its job only after every
check. A malformed command line (argparse) prints the usage and an error line, and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agent_memory.api.cli import admin, data, jobs, mcp, measure, quickstart, server, tools
from agent_memory.api.cli.common import EXIT_ERROR, EXIT_OK, default_store
from agent_memory.core.errors import AgentMemoryError, InvalidArgument
from agent_memory.core.logging import configure_logging

__all__ = ["build_parser", "main"]

# The order `agent-memory --help` lists the commands in: the tour, the store and its grants,
# data in, maintenance, an operator's tool calls and a user's data, extraction, measuring,
# what a host registers, and the HTTP server. Each group's module adds its own commands (COMMANDS).
ORDER = (
    "quickstart init grant revoke grants stats import import-conversation reembed snapshot "
    "restore write get forget forget-user export-user search ingest jobs sessions worker eval "
    "bench tools mcp config serve keys"
).split()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-memory",
        description="Durable, attributable, scoped memory for LLM agents.",
        epilog="Start with: agent-memory quickstart",
    )
    parser.add_argument("--version", action="version", version="agent-memory 0.1.0")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    groups = (quickstart, admin, data, tools, jobs, measure, mcp, server)
    adders = {name: add for group in groups for name, add in group.COMMANDS.items()}
    if sorted(adders) != sorted(ORDER):
        raise AssertionError(f"ORDER and the groups' commands differ: {sorted(adders)}")
    for name in ORDER:
        adders[name](sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.store_given = args.store is not None or "AGENT_MEMORY_STORE" in os.environ
    args.store = args.store or default_store()
    # The worker's Huey lines (consumer start, task retries, errors) go through the same
    # renderer as its own events: one JSON line each, on stderr, without exception content.
    configure_logging(level=args.log_level, stdlib=("huey",) if args.command == "worker" else ())
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # The reader went away (`| head`): the work is done, only its output was cut. Point
        # stdout at /dev/null so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except AgentMemoryError as exc:
        if getattr(args, "json", False):
            error: dict[str, Any] = {"type": type(exc).__name__, "message": str(exc)}
            if isinstance(exc, InvalidArgument):
                error = {**exc.as_tool_error()["error"], "type": type(exc).__name__}
            print(json.dumps({"error": error}, indent=2), file=sys.stderr)
        else:
            print(f"agent-memory: error: {exc}", file=sys.stderr)
        return EXIT_ERROR

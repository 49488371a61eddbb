"""quickstart: the guided tour on a fresh demo store (api.quickstart)."""

from __future__ import annotations

import argparse

from agent_memory.api.cli.common import Subcommands, add_command, load_config


def cmd_quickstart(args: argparse.Namespace) -> int:
    from agent_memory.api.quickstart import run

    return run(args.store if args.store_given else None, load_config(args), as_json=args.json)


def add_quickstart(sub: Subcommands) -> None:
    add_command(
        sub,
        "quickstart",
        cmd_quickstart,
        "Run a guided tour on a fresh demo store: provisioning, import, search, forget.",
        "agent-memory quickstart    # uses ./agent-memory/quickstart.db, recreated each run",
    )


COMMANDS = {"quickstart": add_quickstart}

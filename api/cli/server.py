"""The HTTP API from the command line: ``serve`` runs it, ``keys`` makes and revokes the API
keys it accepts (api.http; needs the ``server`` extra)."""

from __future__ import annotations

import argparse
import os
import sys

from agent_memory.api.cli.common import (
    EXIT_OK,
    Subcommands,
    add_command,
    emit,
    load_config,
    open_memory,
    table,
)
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import utcnow
from agent_memory.core.store import api_keys as keys


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from agent_memory.api.http import create_app
    except ImportError as exc:
        raise InvalidArgument(
            f"serve needs the server extra ({exc.name} is missing): "
            "pip install 'agent-memory[server]'"
        ) from None
    from agent_memory.workers.app import WorkerApp

    config = load_config(args)
    with open_memory(args, config) as mem:
        # An ended session's job goes to the worker's queue beside the store
        # (`agent-memory worker --store PATH` runs it).
        WorkerApp(args.store, config, environ=os.environ).attach(mem)
        mem.warm()  # the first search is as fast as the rest
        app = create_app(mem)
        print(
            f"agent-memory: serving {args.store} on http://{args.host}:{args.port} "
            "(the spec: /openapi.json)",
            file=sys.stderr,
            flush=True,
        )
        uvicorn.run(
            app,
            host=args.host,
            port=args.port,
            log_level=args.log_level.lower(),
            access_log=args.log_level in ("DEBUG", "INFO"),
        )
    return EXIT_OK


def add_serve(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "serve",
        cmd_serve,
        "Serve the HTTP API (sessions, the five tools, jobs; admin routes) with uvicorn. "
        "Several processes may serve one store.",
        "agent-memory serve --store data/memory.db --host 127.0.0.1 --port 8080",
        json_flag=False,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on")
    p.add_argument("--port", type=int, default=8080, help="port to listen on")


def cmd_keys(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        if args.action == "add":
            if not args.agent or args.key_id:
                raise InvalidArgument("keys add takes --agent AGENT (and no key id)", field="agent")
            key, token = keys.add_key(mem.store, args.agent, admin=args.admin, now=utcnow())
            data = {
                "key": token,
                "key_id": key.key_id,
                "agent_id": key.agent_id,
                "admin": key.admin,
            }
            kind = "admin key" if key.admin else "key"
            emit(
                args,
                data,
                f"{token}\n{kind} {key.key_id} for agent {key.agent_id}: shown "
                "once, only its hash is stored; send it as Authorization: Bearer <key>",
            )
        elif args.action == "list":
            found = keys.list_keys(mem.store, agent_id=args.agent)
            emit(
                args,
                {"keys": found},
                lambda: table(
                    [
                        (
                            k["key_id"],
                            k["agent_id"],
                            "yes" if k["admin"] else "no",
                            k["created_at"],
                            k["revoked_at"] or "",
                        )
                        for k in found
                    ],
                    ["key_id", "agent", "admin", "created", "revoked"],
                ),
            )
        else:
            if not args.key_id:
                raise InvalidArgument("keys revoke takes a key id", field="key_id")
            revoked = keys.revoke_key(mem.store, args.key_id, now=utcnow())
            emit(
                args,
                {"key_id": args.key_id, "revoked": revoked},
                f"revoked {args.key_id}" if revoked else f"{args.key_id} was already revoked",
            )
    return EXIT_OK


def add_keys(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "keys",
        cmd_keys,
        "API keys of the HTTP server: add (prints the key once), list, revoke. The key "
        "decides the agent; --admin keys may also use the admin routes.",
        "agent-memory keys add --store data/memory.db --agent planner\n"
        "agent-memory keys list --store data/memory.db\n"
        "agent-memory keys revoke 3f2a9c01d4e5 --store data/memory.db",
    )
    p.add_argument("action", choices=["add", "list", "revoke"])
    p.add_argument("key_id", nargs="?", help="for revoke: the key's id (or the key)")
    p.add_argument("--agent", help="the agent the key acts as (add); filter (list)")
    p.add_argument("--admin", action="store_true", help="add: may use the admin routes")


COMMANDS = {"serve": add_serve, "keys": add_keys}

"""The store's administration: init, grant, revoke, grants, stats, reembed, snapshot, restore
and config."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent_memory.api.cli.common import (
    EXIT_OK,
    Subcommands,
    add_command,
    batch_size_flag,
    check_store,
    emit,
    load_config,
    open_memory,
    read_only_flag,
    table,
)
from agent_memory.core.config import settings


def cmd_init(args: argparse.Namespace) -> int:
    existed = Path(args.store).exists()
    with open_memory(args) as mem:
        stats = mem.stats()
    data = {
        "store": str(mem.path),
        "created": not existed,
        "schema_version": stats["schema_version"],
        "embedder": stats["embedder"],
    }
    verb = "created" if not existed else "opened"
    emit(
        args,
        data,
        f"{verb} {mem.path} (schema version {stats['schema_version']}, "
        f"embedder {stats['embedder']['name']}, {stats['embedder']['dims']} dims)",
    )
    return EXIT_OK


def add_init(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "init",
        cmd_init,
        "Create (or migrate) a store file.",
        "agent-memory init --store data/memory.db",
    )
    p.add_argument(
        "--initialise",
        action="store_true",
        help="add a store's tables to an existing SQLite database of another application "
        "(refused without it)",
    )


def cmd_grant(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        grant = mem.grant(args.agent, args.scope, access=args.access)
    data = {"agent_id": grant.agent_id, "scope": grant.scope, "access": grant.access.value}
    emit(args, data, f"{grant.agent_id} may now {grant.access.value} {grant.scope}")
    return EXIT_OK


def add_grant(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "grant",
        cmd_grant,
        "Let an agent read and/or write a scope.",
        "agent-memory grant planner user:u1 --access readwrite",
    )
    p.add_argument("agent", help="agent id")
    p.add_argument("scope", help="user:<id>, project:<id>, org:<id> or agent:<id>")
    p.add_argument("--access", default="readwrite", choices=["read", "write", "readwrite"])


def cmd_revoke(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        existed = mem.revoke(args.agent, args.scope)
    data = {"agent_id": args.agent, "scope": args.scope, "revoked": existed}
    emit(
        args,
        data,
        f"revoked {args.agent} on {args.scope}"
        if existed
        else f"{args.agent} had no grant on {args.scope}; nothing to revoke",
    )
    return EXIT_OK


def add_revoke(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "revoke",
        cmd_revoke,
        "Remove an agent's access to a scope.",
        "agent-memory revoke planner project:apollo",
    )
    p.add_argument("agent", help="agent id")
    p.add_argument("scope", help="the scope to revoke")


def cmd_grants(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        grants = mem.grants(args.agent)
    data = [
        {
            "agent_id": g.agent_id,
            "scope": g.scope,
            "access": g.access.value,
            "created_at": g.created_at,
        }
        for g in grants
    ]
    emit(
        args,
        data,
        lambda: (
            table(
                [(g.agent_id, g.scope, g.access.value, g.created_at) for g in grants],
                ("agent", "scope", "access", "granted at"),
            )
            if grants
            else "no grants"
        ),
    )
    return EXIT_OK


def add_grants(sub: Subcommands) -> None:
    p = add_command(
        sub, "grants", cmd_grants, "List grants.", "agent-memory grants --agent planner --json"
    )
    p.add_argument("--agent", default=None, help="only this agent's grants")
    p.set_defaults(existing_store=True)  # it only reads: a mistyped --store is an error


def cmd_stats(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        stats = mem.stats()

    def text() -> str:
        e = stats["embedder"]
        lines = [
            f"store            {stats['path']} ({stats['file_bytes']:,} bytes)",
            f"schema version   {stats['schema_version']}",
            f"records version  {stats['records_version']}",
            f"embedder         {e['name']} {e['version']} ({e['dims']} dims)"
            if e
            else "embedder         none yet",
            f"records          {stats['records']}: "
            + ", ".join(f"{n} {s}" for s, n in stats["records_by_status"].items() if n),
            "by type          "
            + ", ".join(f"{n} {t}" for t, n in stats["records_by_type"].items()),
            f"scopes           {stats['scopes_with_records']} with records",
            f"entities         {stats['entities']}",
            f"grants           {stats['grants']}",
            f"events           {stats['events']}",
            f"searches logged  {stats['search_log']}",
            f"writes logged    {stats['write_log']}",
        ]
        return "\n".join(lines)

    emit(args, stats, text)
    return EXIT_OK


def add_stats(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "stats",
        cmd_stats,
        "Show counts, versions and the embedder of a store.",
        "agent-memory stats --store data/memory.db",
    )
    read_only_flag(p)


def cmd_reembed(args: argparse.Namespace) -> int:
    from agent_memory.core.reembed import reembed

    config = load_config(args)
    check_store(args.store)
    count = reembed(args.store, config, batch_size=args.batch_size, progress=not args.json)
    emit(
        args,
        {"store": args.store, "reembedded": count},
        f"re-embedded {count} records; re-calibrate the gate floors for the new model",
    )
    return EXIT_OK


def add_reembed(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "reembed",
        cmd_reembed,
        "Re-embed the whole store with the configured embedder (after a model change).",
        "AGENT_MEMORY_EMBEDDER__MODEL=BAAI/bge-m3 agent-memory reembed --store data/memory.db",
    )
    batch_size_flag(p)


def cmd_snapshot(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        path = mem.snapshot(args.destination)
    emit(
        args,
        {"snapshot": str(path), "bytes": path.stat().st_size},
        f"snapshot written to {path} ({path.stat().st_size:,} bytes)",
    )
    return EXIT_OK


def add_snapshot(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "snapshot",
        cmd_snapshot,
        "Copy the whole store to a new file, consistently.",
        "agent-memory snapshot backups/memory-2026-11-29.db",
    )
    p.add_argument("destination", help="a new file")


def cmd_restore(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        again = mem.restore(args.source)
        stats = mem.stats()
    erased = again["re_erased"]
    users_erased = again["users_re_erased"]
    emit(
        args,
        {
            "store": str(mem.path),
            "restored_from": args.source,
            "records": stats["records"],
            "re_erased": erased,
            "users_re_erased": users_erased,
        },
        f"{mem.path} now holds the snapshot {args.source} ({stats['records']} records); "
        f"erased again: {len(erased)} records ({', '.join(erased) or 'none'}), "
        f"{len(users_erased)} users ({', '.join(users_erased) or 'none'})",
    )
    return EXIT_OK


def add_restore(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "restore",
        cmd_restore,
        "Replace the whole store with a snapshot.",
        "agent-memory restore backups/memory-2026-11-29.db",
    )
    p.add_argument("source", help="a snapshot file")


def cmd_config(args: argparse.Namespace) -> int:
    config = load_config(args)
    values = config.to_toml_dict()
    rows = []
    for setting in settings():
        section, name = setting.name.split(".", 1)
        rows.append(
            {
                "name": setting.name,
                "value": values[section][name],
                "default": setting.default,
                "env": setting.env,
                "help": setting.help,
            }
        )
    emit(
        args,
        rows,
        lambda: "\n".join(
            f"{r['name']} = {json.dumps(r['value'])}\n    {r['help']}\n    env {r['env']}"
            for r in rows
        ),
    )
    return EXIT_OK


def add_config(sub: Subcommands) -> None:
    add_command(
        sub,
        "config",
        cmd_config,
        "Show every setting: value, default, help and variable.",
        "agent-memory config --json",
    )


COMMANDS = {
    "init": add_init,
    "grant": add_grant,
    "revoke": add_revoke,
    "grants": add_grants,
    "stats": add_stats,
    "reembed": add_reembed,
    "snapshot": add_snapshot,
    "restore": add_restore,
    "config": add_config,
}

"""Data in and out in bulk: import, import-conversation, export-user and forget-user."""

from __future__ import annotations

import argparse
from typing import Any

from agent_memory.api.cli.common import (
    EXIT_OK,
    Subcommands,
    add_command,
    batch_size_flag,
    emit,
    open_memory,
    read_json,
    read_jsonl,
    table,
)
from agent_memory.core import users
from agent_memory.core.errors import InvalidArgument


def cmd_import(args: argparse.Namespace) -> int:
    from agent_memory.core.write.importer import import_items

    records, lines = read_jsonl(args.file)
    if records and isinstance(records[0], dict) and users.is_export(records[0]):
        return _import_user_export(args, records)
    if not args.scope:
        raise InvalidArgument("--scope is required (except for an export-user file)", field="scope")
    with open_memory(args) as mem:
        outcome = import_items(
            mem.engine, records, scope=args.scope, batch_size=args.batch_size, labels=lines
        )
    data = {
        "scope": args.scope,
        "ids": outcome.ids,
        "created": outcome.created,
        "already_stored": outcome.already_stored,
    }
    text = f"imported {outcome.created} records into {args.scope}"
    if outcome.already_stored:
        text += f" ({outcome.already_stored} already stored by an earlier run, skipped)"
    emit(args, data, text)
    return EXIT_OK


def _import_user_export(args: argparse.Namespace, lines: list[Any]) -> int:
    """An ``export-user`` file: its live records go back into the scopes they came from (or
    all into --scope), validated whole before anything is written (core.users)."""
    from agent_memory.core.write.importer import import_records, validate_items

    by_scope = users.import_items(lines)
    if args.scope:
        by_scope = {args.scope: [item for items in by_scope.values() for item in items]}
    for items in by_scope.values():
        validate_items(items)
    with open_memory(args) as mem:
        ids = {
            scope: import_records(mem.engine, items, scope=scope, batch_size=args.batch_size)
            for scope, items in by_scope.items()
        }
    count = sum(len(v) for v in ids.values())
    emit(args, {"scopes": ids}, f"imported {count} records into {', '.join(ids) or 'no scope'}")
    return EXIT_OK


def add_import(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "import",
        cmd_import,
        "Import records from a JSON-lines file into one scope.",
        "agent-memory import notes.jsonl --scope user:u1\n"
        '# each line: {"content": "...", "type": "semantic", "source_kind": "system",\n'
        '#              "source_ref": "crm:42", "event_at": "2026-07-01", "tags": ["crm"]}',
    )
    p.add_argument("file", help="JSON lines, one record per line (or an export-user file)")
    p.add_argument(
        "--scope",
        help="the scope every record goes into (required, except for an export-user file, "
        "whose records go back to their own scopes)",
    )
    batch_size_flag(p)


def cmd_import_conversation(args: argparse.Namespace) -> int:
    from agent_memory.core.write.conversation import import_conversation

    turns, labels = _read_turns(args.file)
    with open_memory(args) as mem:
        ids = import_conversation(
            mem.engine,
            turns,
            scope=args.scope,
            session_id=args.session,
            batch_size=args.batch_size,
            labels=labels,
        )
    emit(
        args,
        {"scope": args.scope, "session_id": args.session, "ids": ids},
        f"imported {len(ids)} turns into {args.scope}",
    )
    return EXIT_OK


def _read_turns(path: str) -> tuple[list[Any], list[str]]:
    """The turns of a conversation file and a label naming each in errors: JSON lines (a
    ``.jsonl`` file, one turn a line) or JSON (a list of turns, or ``{"turns": [...]}``)."""
    if path.endswith(".jsonl"):
        turns, labels = read_jsonl(path)
    else:
        data = read_json(path)
        found = data.get("turns") if isinstance(data, dict) else data
        if not isinstance(found, list):
            raise InvalidArgument(
                f'{path} must hold a list of turns or {{"turns": [...]}}', field="file"
            )
        turns = found
        labels = [f"{path} turn {number}" for number in range(1, len(turns) + 1)]
    if not turns:
        raise InvalidArgument(f"{path} holds no turns", field="file")
    return turns, labels


def add_import_conversation(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "import-conversation",
        cmd_import_conversation,
        "Import one conversation session, a record per turn with its retrieval context.",
        "agent-memory import-conversation chat.json --scope user:u1 --session s-042\n"
        '# chat.json: [{"id": "t1", "role": "user", "text": "I moved to Lyon.",\n'
        '#              "at": "2026-07-01T09:00:00Z"}, ...]   (or chat.jsonl, a turn a line;\n'
        '#              "speaker": "Ann" names who said it)',
    )
    p.add_argument("file", help="JSON (a list of turns) or JSON lines (.jsonl, a turn a line)")
    p.add_argument("--scope", required=True, help="the scope every turn record goes into")
    p.add_argument("--session", help="the session id stored on every record (optional)")
    batch_size_flag(p)


def cmd_forget_user(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        receipt = mem.forget_user(args.user)
    emit(args, receipt, lambda: _receipt_text(receipt))
    return EXIT_OK


def _receipt_text(receipt: dict[str, Any]) -> str:
    counts = {k: v for k, v in receipt["counts"].items() if v}
    if not counts:
        return f"nothing stored for user {receipt['user_id']}; nothing changed"
    rows = table(sorted(counts.items()), ("table", "rows erased"))
    pending = "\npurge pending: a reader holds the WAL; the worker's sweep finishes it"
    return f"erased user {receipt['user_id']}\n{rows}" + (
        pending if receipt.get("purge_pending") else ""
    )


def add_forget_user(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "forget-user",
        cmd_forget_user,
        "Erase everything stored of a user (records, sessions, transcripts, logs, entities); "
        "prints a receipt.",
        "agent-memory forget-user u1 --json",
    )
    p.add_argument("user", help="user id")


def cmd_export_user(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        counts = mem.export_user(args.user, args.out)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    emit(args, {"out": args.out, **counts}, f"exported {summary} to {args.out}")
    return EXIT_OK


def add_export_user(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "export-user",
        cmd_export_user,
        "Write everything stored of a user to one JSON-lines file that import reads again.",
        "agent-memory export-user u1 --out u1.jsonl",
    )
    p.add_argument("user", help="user id")
    p.add_argument("--out", required=True, help="the file to write")
    p.set_defaults(existing_store=True)  # it only reads: a mistyped --store is an error


COMMANDS = {
    "import": add_import,
    "import-conversation": add_import_conversation,
    "forget-user": add_forget_user,
    "export-user": add_export_user,
}

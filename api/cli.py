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
import io
import json
import os
import sqlite3
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from core import Memory, users
from core.config import Config, settings
from core.errors import AgentMemoryError, InvalidArgument, StoreError
from core.logging import configure_logging
from core.models import utcnow
from core.session import Session
from core.store.connection import unwritable_reason

DEFAULT_STORE = Path("agent-memory") / "memory.db"
EXIT_OK, EXIT_ERROR = 0, 2

Handler = Callable[[argparse.Namespace], int]


# ---------------------------------------------------------------------------------------------
# Shared plumbing


def default_store() -> str:
    return os.environ.get("AGENT_MEMORY_STORE") or str(DEFAULT_STORE)


def load_config(args: argparse.Namespace) -> Config:
    path = args.config or os.environ.get("AGENT_MEMORY_CONFIG") or None
    return Config.load(path, environ=os.environ)


SQLITE_HEADER = b"SQLite format 3\x00"


def check_store(path: str) -> str:
    """``path`` if it can be a store: refuses a directory, or a file that is not a SQLite
    database, with a StoreError before anything opens it. A missing file is fine (opening
    creates it)."""
    store = Path(path)
    if store.is_dir():
        raise StoreError(f"--store {path} is a directory; give the store's file")
    if store.exists():
        try:
            with store.open("rb") as handle:
                header = handle.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise StoreError(f"cannot read the store {path}: {exc.strerror}") from None
        if header and header != SQLITE_HEADER:
            raise StoreError(f"{path} is not an agent-memory store (not a SQLite database)")
    return path


@contextmanager
def opening_store(path: str) -> Iterator[None]:
    """Checks ``path`` (check_store), then reports what SQLite or the file system refuses
    while the store is opened as a StoreError."""
    check_store(path)
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the store {path}: {exc}") from None
    except OSError as exc:
        raise StoreError(f"cannot open the store {path}: {exc.strerror or exc}") from None


def open_memory(args: argparse.Namespace, config: Config | None = None) -> Memory:
    with opening_store(args.store):
        return Memory.open(
            args.store,
            config or load_config(args),
            initialise=getattr(args, "initialise", False),
            read_only=read_only(args),
        )


def read_only(args: argparse.Namespace) -> bool:
    """Whether to open the store read-only: asked with --read-only, or chosen for a command
    that only reads (search, get, stats: the ones with the flag) when the store's file or
    folder cannot be written, e.g. on read-only media, with a note on stderr."""
    if not hasattr(args, "read_only"):
        return False  # a command that writes: a read-only store is refused at open
    if args.read_only:
        return True
    path = Path(args.store)
    reason = unwritable_reason(path) if path.is_file() else None
    if reason is not None:
        print(f"agent-memory: note: opened read-only ({reason})", file=sys.stderr)
    return reason is not None


def read_only_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--read-only",
        action="store_true",
        help="open the store read-only: nothing is written, the search is not logged "
        "(chosen by itself when the store's file or folder is not writable)",
    )


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print ``data`` as JSON with --json, else the human-readable ``text``."""
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        print(text() if callable(text) else text)


def _table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [list(map(str, headers))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Commands


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


def cmd_grant(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        grant = mem.grant(args.agent, args.scope, access=args.access)
    data = {"agent_id": grant.agent_id, "scope": grant.scope, "access": grant.access.value}
    emit(args, data, f"{grant.agent_id} may now {grant.access.value} {grant.scope}")
    return EXIT_OK


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
            _table(
                [(g.agent_id, g.scope, g.access.value, g.created_at) for g in grants],
                ("agent", "scope", "access", "granted at"),
            )
            if grants
            else "no grants"
        ),
    )
    return EXIT_OK


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


def cmd_reembed(args: argparse.Namespace) -> int:
    from core.reembed import reembed

    config = load_config(args)
    check_store(args.store)
    count = reembed(args.store, config, batch_size=args.batch_size, progress=not args.json)
    emit(
        args,
        {"store": args.store, "reembedded": count},
        f"re-embedded {count} records; re-calibrate the gate floors for the new model",
    )
    return EXIT_OK


def cmd_snapshot(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        path = mem.snapshot(args.destination)
    emit(
        args,
        {"snapshot": str(path), "bytes": path.stat().st_size},
        f"snapshot written to {path} ({path.stat().st_size:,} bytes)",
    )
    return EXIT_OK


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


def cmd_import(args: argparse.Namespace) -> int:
    from core.importer import import_items

    records, lines = _read_jsonl(args.file)
    if records and isinstance(records[0], dict) and users.is_export(records[0]):
        return _import_user_export(args, records)
    if not args.scope:
        raise InvalidArgument("--scope is required (except for an export-user file)", field="scope")
    with open_memory(args) as mem:
        outcome = import_items(
            mem, records, scope=args.scope, batch_size=args.batch_size, labels=lines
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
    from core.importer import import_records, validate_items

    by_scope = users.import_items(lines)
    if args.scope:
        by_scope = {args.scope: [item for items in by_scope.values() for item in items]}
    for items in by_scope.values():
        validate_items(items)
    with open_memory(args) as mem:
        ids = {
            scope: import_records(mem, items, scope=scope, batch_size=args.batch_size)
            for scope, items in by_scope.items()
        }
    count = sum(len(v) for v in ids.values())
    emit(args, {"scopes": ids}, f"imported {count} records into {', '.join(ids) or 'no scope'}")
    return EXIT_OK


def cmd_forget_user(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        receipt = mem.forget_user(args.user)
    emit(args, receipt, lambda: _receipt_text(receipt))
    return EXIT_OK


def _receipt_text(receipt: dict[str, Any]) -> str:
    counts = {k: v for k, v in receipt["counts"].items() if v}
    if not counts:
        return f"nothing stored for user {receipt['user_id']}; nothing changed"
    rows = _table(sorted(counts.items()), ("table", "rows erased"))
    pending = "\npurge pending: a reader holds the WAL; the worker's sweep finishes it"
    return f"erased user {receipt['user_id']}\n{rows}" + (
        pending if receipt.get("purge_pending") else ""
    )


def cmd_export_user(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        counts = mem.export_user(args.user, args.out)
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    emit(args, {"out": args.out, **counts}, f"exported {summary} to {args.out}")
    return EXIT_OK


def cmd_import_conversation(args: argparse.Namespace) -> int:
    from core.conversation import import_conversation

    turns, labels = _read_turns(args.file)
    with open_memory(args) as mem:
        ids = import_conversation(
            mem,
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
        turns, labels = _read_jsonl(path)
    else:
        data = _read_json(path)
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


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", field="file") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"{path} is not UTF-8 text", field="file") from None
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"{path} is not JSON: {exc.msg} (line {exc.lineno})", field="file"
        ) from None
    except RecursionError:
        raise InvalidArgument(f"{path} is not JSON: nested too deeply", field="file") from None


def _read_jsonl(path: str) -> tuple[list[Any], list[str]]:
    """The records of a JSON-lines file and, for each, ``"<path> line N"`` (1-based, blank
    lines counted), which names it in every error, from reading to validation."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", field="file") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        raise InvalidArgument(f"{path} line {number}: not UTF-8 text", field="file") from None
    records, lines = [], []
    for number, line in enumerate(io.StringIO(text, newline=None), start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InvalidArgument(f"{where}: not JSON: {exc.msg}", field="file") from None
        except RecursionError:
            raise InvalidArgument(f"{where}: not JSON: nested too deeply", field="file") from None
        lines.append(where)
    return records, lines


def _tool_call(
    args: argparse.Namespace, name: str, arguments: dict[str, Any], *, said: str | None = None
) -> dict[str, Any]:
    """Run one tool for an operator, with identity from the flags (never from input), on a
    deferred session: the session and the ``said`` user turn are stored only if the call
    succeeds, so a refused call changes nothing."""
    targets = dict(_pairs(args.write_target, what="--write-target")) or None
    session_id = args.session or f"cli-{utcnow().strftime('%Y%m%dT%H%M%S%f')}"
    with open_memory(args) as mem:
        session = Session(
            mem,
            agent_id=args.agent,
            user_id=args.user,
            session_id=session_id,
            write_targets=targets,
            deferred=True,
        )
        if said:
            session.add_turn("user", said)
        result = session.call(name, arguments)
        if not args.session:  # a one-off session: nothing left open for the idle sweep
            session.close_unused()
        return result


def _pairs(values: Sequence[str] | None, *, what: str) -> list[tuple[str, str]]:
    pairs = []
    for value in values or ():
        key, sep, rest = value.partition("=" if what == "--write-target" else ":")
        if not sep or not key or not rest:
            form = "LABEL=SCOPE" if what == "--write-target" else "KIND:NAME"
            raise InvalidArgument(f"{what} must look like {form}, got {value!r}", field=what)
        pairs.append((key, rest))
    return pairs


def _tool_result(args: argparse.Namespace, result: dict[str, Any], text: Callable[[], str]) -> int:
    if "error" in result:
        error = result["error"]
        if args.json:
            print(json.dumps(result, indent=2), file=sys.stderr)
        else:
            where = f" ({error['field']})" if error.get("field") else ""
            print(f"agent-memory: error: {error['message']}{where}", file=sys.stderr)
        return EXIT_ERROR
    emit(args, result, text)
    return EXIT_OK


def cmd_write(args: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {
        "type": args.type,
        "content": args.content,
        "source_kind": args.source_kind,
        "target": args.target,
    }
    optional = {
        "attribute": args.attribute,
        "evidence": args.evidence,
        "event_at": args.event_at,
        "valid_from": args.valid_from,
        "valid_until": args.valid_until,
        "review_at": args.review_at,
    }
    arguments.update({k: v for k, v in optional.items() if v is not None})
    if args.about:
        arguments["about"] = [
            {"kind": kind, "name": name} for kind, name in _pairs(args.about, what="--about")
        ]
    if args.tag:
        arguments["tags"] = list(args.tag)
    result = _tool_call(args, "memory_write", arguments, said=args.said)

    def text() -> str:
        lines = [f"{result['action']} {result['id']} ({result['status']}, {result['source_kind']})"]
        if result.get("supersedes_id"):
            lines.append(f"supersedes {result['supersedes_id']}")
        lines += [f"note: {note}" for note in result["notes"]]
        return "\n".join(lines)

    return _tool_result(args, result, text)


def cmd_get(args: argparse.Namespace) -> int:
    result = _tool_call(
        args, "memory_get", {"ids": list(args.ids), "include_history": args.include_history}
    )

    def text() -> str:
        lines = [
            f"{r['id']}  {r['type']:<10} {r['status']:<11} {r['scope']:<16} {r['content']}"
            for r in result["records"]
        ]
        lines += [f"{missing}  not found" for missing in result["missing"]]
        return "\n".join(lines)

    return _tool_result(args, result, text)


def cmd_forget(args: argparse.Namespace) -> int:
    arguments = {"id": args.id}
    if args.reason:
        arguments["reason"] = args.reason
    result = _tool_call(args, "memory_forget", arguments)
    return _tool_result(args, result, lambda: f"forgot {result['id']}")


def cmd_search(args: argparse.Namespace) -> int:
    arguments: dict[str, Any] = {"query": args.query}
    optional = {
        "since": args.since,
        "until": args.until,
        "limit": args.limit,
        "budget_tokens": args.budget_tokens,
    }
    arguments.update({k: v for k, v in optional.items() if v is not None})
    if args.type:
        arguments["types"] = list(args.type)
    if args.entity:
        arguments["entities"] = list(args.entity)
    if args.include_history:
        arguments["include_history"] = True
    result = _tool_call(args, "memory_search", arguments)

    def text() -> str:
        if not result["results"]:
            return f"nothing: {result['explanation']['why_empty']}"
        return "\n".join(
            f"{r['explanation']['rank']:>2}. {r['content']}\n"
            f"    {r['id']}  {r['type']} {r['status']}  {r['explanation']['gate']}"
            for r in result["results"]
        )

    return _tool_result(args, result, text)


def _read_transcript(path: str) -> list[tuple[str, str, datetime | None]]:
    """The turns of a transcript file, all checked before anything is written:
    {"turns": [...]} or a bare list of turns, each {"role", "content", "at" (optional)}."""
    from core.models import parse_time
    from core.session import ROLES

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise InvalidArgument(f"cannot read {path}: {exc.strerror}", field="file") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"{path} is not UTF-8 text", field="file") from None
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"{path} is not JSON: {exc.msg} (line {exc.lineno})", field="file"
        ) from None
    except RecursionError:
        raise InvalidArgument(f"{path} is not JSON: nested too deeply", field="file") from None
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list) or not turns:
        raise InvalidArgument(
            f'{path} must hold {{"turns": [...]}} or a list of turns, with at least one turn',
            field="file",
        )
    parsed = []
    for number, turn in enumerate(turns, start=1):
        where = f"{path} turn {number}"
        if not isinstance(turn, dict):
            raise InvalidArgument(
                f'{where}: expected an object {{"role", "content", "at"}}', field="file"
            )
        if unknown := sorted(set(turn) - {"role", "content", "at"}):
            raise InvalidArgument(
                f'{where}: unknown field {", ".join(map(repr, unknown))}; a turn has "role", '
                '"content" and optionally "at"',
                field="file",
            )
        if not isinstance(turn.get("content"), str):
            raise InvalidArgument(f"{where}: content must be a string", field="file")
        if turn.get("role") not in ROLES:
            raise InvalidArgument(
                f"{where}: role must be one of {', '.join(ROLES)}; got {turn.get('role')!r}",
                field="file",
            )
        at = parse_time(turn["at"], field=f"{where}: at") if turn.get("at") is not None else None
        parsed.append((turn["role"], turn["content"], at))
    return parsed


def cmd_ingest(args: argparse.Namespace) -> int:
    from workers.app import WorkerApp

    turns = _read_transcript(args.file)
    targets = dict(_pairs(args.write_target, what="--write-target")) or None
    config = load_config(args)
    with open_memory(args, config) as mem:
        # Deferred: every check comes first, and the session, its turns and its job are
        # stored only at end(), so a refused ingest changes nothing.
        session = Session(
            mem,
            agent_id=args.agent,
            user_id=args.user,
            session_id=args.session,
            write_targets=targets,
            deferred=True,
        )
        if session.transcript() or session.ended:
            raise InvalidArgument(
                f"session {args.session!r} already has a transcript or has ended; ingest "
                "each session once",
                field="session",
            )
        for role, content, at in turns:
            session.add_turn(role, content, at=at)
        app = WorkerApp(args.store, config, immediate=args.inline, environ=os.environ)
        app.attach(mem)
        job_id = session.end()
        status = mem.jobs.status(job_id)
    data = {
        "job_id": job_id,
        "session_id": args.session,
        "turns": len(turns),
        "status": status["status"],
        "queue": None if args.inline else str(app.queue_path),
        "records": status["records"],
    }
    if args.inline:
        text = f"ingested {len(turns)} turns; job {job_id} {status['status']}" + (
            f", {len(status['records'])} records" if status["records"] else ""
        )
    else:
        text = (
            f"ingested {len(turns)} turns; job {job_id} queued in {app.queue_path}\n"
            f"run: agent-memory worker --store {args.store}"
        )
    emit(args, data, text)
    return EXIT_OK


def _job_text(job: dict[str, Any]) -> str:
    lines = [
        f"job       {job['job_id']} ({job['kind']})",
        f"session   {job['session_id']} (agent {job['agent_id']}, user {job['user_id']})",
        f"status    {_status_text(job)} at stage {job['stage']}"
        + (" (retryable)" if job["retryable"] else ""),
        f"created   {job['created_at']}"
        + (f", finished {job['finished_at']}" if job["finished_at"] else ""),
    ]
    if job["last_error"]:
        lines.append(f"error     {job['last_error']}")
    if job["records"]:
        lines.append(f"records   {len(job['records'])} committed: {', '.join(job['records'][:10])}")
    rows = []
    for stage in job["stages"]:
        output = stage["output"] or {}
        if stage["stage"] == "extract" and output:
            result = f"{len(output['candidates'])} candidates"
            if output.get("dropped_over_limit"):
                result += f", {output['dropped_over_limit']} cut"
            if output.get("dropped_invalid"):
                result += f", {output['dropped_invalid']} invalid"
        elif stage["stage"] == "review" and output:
            result = f"{len(output['accepted'])} of {len(output['decisions'])} accepted"
        elif stage["stage"] == "validate" and output:
            result = f"{len(output['written'])} written, {len(output['rejected'])} rejected"
        elif stage["stage"] == "summarize" and output:
            result = f"summary {output['summary_id']}"
        else:
            result = ""
        rows.append(
            (
                stage["stage"],
                _status_text(stage),
                stage["attempts"],
                (stage["claimed_by"] or "") + (" (gone?)" if stage.get("lease_expired") else ""),
                f"{stage['duration_ms']:.0f} ms" if stage["duration_ms"] is not None else "",
                result,
                (stage["last_error"] or "")[:80],
            )
        )
    lines.append("")
    lines.append(
        _table(rows, ("stage", "status", "attempts", "claimed by", "took", "result", "last error"))
    )
    extract = job["stages"][0]["output"] if job["stages"] else None
    if extract and extract.get("cut"):
        lines += ["", _cut_text(extract["cut"])]
    if extract and extract.get("dropped_invalid"):
        lines.append(
            f"{extract['dropped_invalid']} candidate(s) the schema refused were dropped "
            "(an overlong or malformed one does not fail the job)"
        )
    if job.get("history"):
        lines += ["", "history"] + [f"  {_history_line(step)}" for step in job["history"]]
    return "\n".join(lines)


def _status_text(item: dict[str, Any]) -> str:
    """A job's or stage's status, saying when a running one's lease has lapsed: its worker
    stopped or hung, and the sweep will hand it to another."""
    if item.get("lease_expired"):
        return "lease expired, will be reclaimed"
    return str(item["status"])


def _cut_text(cut: dict[str, Any]) -> str:
    """What extraction.max_candidates dropped from a long session, and where it came from."""
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(cut["dropped_by_source_kind"].items()))
    turns = cut["dropped_turns"]
    shown = ", ".join(str(t) for t in turns[:20]) + (
        f" and {len(turns) - 20} more" if len(turns) > 20 else ""
    )
    return (
        f"cut       kept {cut['proposed'] - cut['dropped']} of {cut['proposed']} candidates "
        f"(extraction.max_candidates = {cut['limit']}, the user's statements first); dropped "
        f"{cut['dropped']} ({kinds}) from turns {shown or 'unknown'}"
    )


def _history_line(step: dict[str, Any]) -> str:
    """One step of a job's history: when, what, at which stage and attempt, and why."""
    where = f" {step['stage']}" if step.get("stage") else ""
    if step.get("attempt"):
        where += f" attempt {step['attempt']}"
    detail = ""
    if step.get("retry_at"):
        detail += f", retry at {step['retry_at']}"
    if step.get("attempts_spent") is not None:
        detail += f", after {step['attempts_spent']} attempts"
    if step.get("error"):
        detail += f": {step['error'][:100]}"
    return f"{step['at']}  {step['event']}{where}{detail}"


def cmd_jobs_retry(args: argparse.Namespace) -> int:
    """`jobs retry JOB` or `jobs retry --failed`: queue failed jobs again for the worker."""
    from workers.app import WorkerApp

    if (args.target is None) == (not args.failed):
        raise InvalidArgument("jobs retry takes a job id or --failed", field="job")
    config = load_config(args)
    with open_memory(args, config) as mem:
        WorkerApp(args.store, config, environ=os.environ).attach(mem)  # sends to its queue
        retried = mem.jobs.retry(status="failed") if args.failed else mem.jobs.retry(args.target)
    emit(
        args,
        {"retried": retried},
        f"queued again: {len(retried)} job(s)" + "".join(f"\n  {j}" for j in retried),
    )
    return EXIT_OK


def cmd_jobs(args: argparse.Namespace) -> int:
    if args.job == "retry":
        return cmd_jobs_retry(args)
    if args.target is not None or args.failed:
        raise InvalidArgument("a second job id and --failed go with `jobs retry`", field="job")
    with open_memory(args) as mem:
        if args.job:
            job = mem.jobs.status(args.job)
            emit(args, job, lambda: _job_text(job))
            return EXIT_OK
        jobs = mem.jobs.list(
            status=args.status, session_id=args.session, agent_id=args.agent, limit=args.limit
        )
    emit(
        args,
        jobs,
        lambda: (
            _table(
                [
                    (
                        j["job_id"],
                        j["session_id"],
                        _status_text(j),
                        j["stage"],
                        j["attempts"],
                        j["created_at"],
                        (j["last_error"] or "")[:60],
                    )
                    for j in jobs
                ],
                ("job", "session", "status", "stage", "attempts", "created", "last error"),
            )
            if jobs
            else "no jobs"
        ),
    )
    return EXIT_OK


def cmd_sessions(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        sessions = mem.sessions(
            open=True if args.open else None,
            agent_id=args.agent,
            user_id=args.user,
            limit=args.limit,
        )
    emit(
        args,
        sessions,
        lambda: (
            _table(
                [
                    (
                        s["session_id"],
                        s["agent_id"],
                        s["user_id"],
                        s["turns"],
                        s["last_active_at"] or s["started_at"],
                        f"ended ({s['end_reason']})" if s["ended_at"] else "open",
                        s["job_id"] or "",
                    )
                    for s in sessions
                ],
                ("session", "agent", "user", "turns", "last active", "state", "job"),
            )
            if sessions
            else ("no open sessions" if args.open else "no sessions")
        ),
    )
    return EXIT_OK


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.app import WorkerApp
    from workers.consumer import PauseHooks, run_consumer

    config = load_config(args)
    check_store(args.store)
    app = WorkerApp(
        args.store, config, hooks=PauseHooks.from_environ(os.environ), environ=os.environ
    )
    run_consumer(app, threads=args.threads or config.worker.threads)
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    import tempfile

    if args.dataset == "judge":
        return cmd_eval_judge(args)
    from api.evaluation import run, summary

    if args.dataset == "personal":
        return _eval_personal(args)
    datasets = ("locomo", "longmemeval") if args.dataset == "all" else (args.dataset,)
    granularities = ("turn", "session") if args.granularity == "both" else (args.granularity,)
    config = load_config(args)
    if not Path(args.data).is_dir():
        raise InvalidArgument(
            f"--data {args.data} is not a folder (it names the folder with the data set files)",
            field="data",
        )
    with tempfile.TemporaryDirectory(prefix="agent-memory-eval-") as scratch:
        try:
            report = run(
                data_dir=Path(args.data),
                store_dir=Path(args.work_dir or scratch),
                config=config,
                datasets=datasets,
                granularities=granularities,
                do_calibrate=args.calibrate,
                progress=not args.json,
            )
        except FileNotFoundError as exc:
            raise InvalidArgument(
                f"cannot read {exc.filename}: {exc.strerror} (--data names the folder with the "
                "data set files)",
                field="data",
            ) from None
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    if args.calibrate and not args.json:
        sweep = report["calibration"]["sweep"]
        print("dense_floor  lexical_floor  precision  recall  f1")
        for row in sorted(sweep, key=lambda r: -r["f1"])[:15]:
            print(
                f"{row['dense_floor']:>11}  {row['lexical_floor']:>13}  "
                f"{row['precision']:>9}  {row['recall']:>6}  {row['f1']}"
            )
    emit(args, report, lambda: summary(report))
    return EXIT_OK


def _eval_personal(args: argparse.Namespace) -> int:
    """The personal-memory evaluation (api.personal_eval); --data is the file or its folder."""
    from api import personal_eval

    data = Path(args.data)
    if not personal_eval.data_file(data).is_file():
        raise InvalidArgument(
            f"--data {args.data}: no {personal_eval.FILE_NAME} there (it names the file or "
            "the folder holding it)",
            field="data",
        )
    report = personal_eval.run(
        data=data,
        config=load_config(args),
        store_dir=Path(args.work_dir) if args.work_dir else None,
        progress=not args.json,
        calibrate=args.calibrate,
    )
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    emit(args, report, lambda: personal_eval.summary(report))
    return EXIT_OK


def cmd_eval_judge(args: argparse.Namespace) -> int:
    """The evidence judge on labelled (quote, content) pairs (api/judge_eval.py)."""
    from api import judge_eval

    report = judge_eval.run(load_config(args), Path(args.data))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    emit(args, report, lambda: judge_eval.summary(report))
    return EXIT_OK


BENCHMARKS = ("search", "write", "worker", "index")


def cmd_bench(args: argparse.Namespace) -> int:
    """Run benchmarks/bench_<name>.py of this source checkout in a process of its own (it
    measures that process's RSS and cold starts), with this interpreter."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    script = root / "benchmarks" / f"bench_{args.name}.py"
    if not script.is_file():
        raise InvalidArgument(
            f"{script} not found: the benchmarks ship with a source checkout "
            "(scripts/install.sh installs it editable), not with the package",
            field="name",
        )
    # argparse drops a leading "--" itself on some Python versions, not on others.
    passed = args.args[1:] if args.args[:1] == ["--"] else args.args
    # The caller's working directory, so a relative --out means what they typed; the scripts
    # find the repository from their own path.
    return subprocess.run([sys.executable, str(script), *passed]).returncode


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


def cmd_tools(args: argparse.Namespace) -> int:
    from core.tools import memory_policy, tool_definitions

    mode = args.mode or load_config(args).trigger.mode
    definitions = tool_definitions(mode)
    policy = memory_policy(mode)
    if args.policy:
        emit(args, {"trigger_mode": mode, "policy": policy}, policy)
        return EXIT_OK

    def text() -> str:
        tools = "\n".join(
            f"{d['name']}\n{textwrap.indent(textwrap.fill(d['description'], 92), '    ')}"
            for d in definitions
        )
        return f"trigger mode: {mode}\n\n{tools}\n\nmemory-use policy:\n{policy}"

    emit(args, definitions, text)
    return EXIT_OK


def cmd_quickstart(args: argparse.Namespace) -> int:
    from api.quickstart import run

    return run(args.store if args.store_given else None, load_config(args), as_json=args.json)


# ---------------------------------------------------------------------------------------------
# The parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-memory",
        description="Durable, attributable, scoped memory for LLM agents.",
        epilog="Start with: agent-memory quickstart",
    )
    parser.add_argument("--version", action="version", version="agent-memory 0.1.0")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, handler: Handler, help: str, example: str, *, json_flag: bool = True
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            help=help,
            description=help,
            epilog="example:\n" + textwrap.indent(example, "  "),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.add_argument(
            "--store",
            default=None,
            metavar="PATH",
            help=f"store file (default: $AGENT_MEMORY_STORE, else {DEFAULT_STORE})",
        )
        p.add_argument(
            "--config",
            default=None,
            metavar="FILE",
            help="TOML settings file (default: $AGENT_MEMORY_CONFIG)",
        )
        p.add_argument(
            "--log-level",
            default="WARNING",
            choices=["DEBUG", "INFO", "WARNING", "ERROR"],
            help="log verbosity",
        )
        if json_flag:
            p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(handler=handler)
        return p

    add(
        "quickstart",
        cmd_quickstart,
        "Run a guided tour on a fresh demo store: provisioning, import, search, forget.",
        "agent-memory quickstart    # uses ./agent-memory/quickstart.db, recreated each run",
    )
    p = add(
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
    p = add(
        "grant",
        cmd_grant,
        "Let an agent read and/or write a scope.",
        "agent-memory grant planner user:u1 --access readwrite",
    )
    p.add_argument("agent", help="agent id")
    p.add_argument("scope", help="user:<id>, project:<id>, org:<id> or agent:<id>")
    p.add_argument("--access", default="readwrite", choices=["read", "write", "readwrite"])
    p = add(
        "revoke",
        cmd_revoke,
        "Remove an agent's access to a scope.",
        "agent-memory revoke planner project:apollo",
    )
    p.add_argument("agent", help="agent id")
    p.add_argument("scope", help="the scope to revoke")
    p = add("grants", cmd_grants, "List grants.", "agent-memory grants --agent planner --json")
    p.add_argument("--agent", default=None, help="only this agent's grants")
    p = add(
        "stats",
        cmd_stats,
        "Show counts, versions and the embedder of a store.",
        "agent-memory stats --store data/memory.db",
    )
    read_only_flag(p)
    p = add(
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
    p.add_argument(
        "--batch-size", type=positive_int, default=256, help="records per embedding batch"
    )
    p = add(
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
    p.add_argument(
        "--batch-size", type=positive_int, default=256, help="records per embedding batch"
    )
    p = add(
        "reembed",
        cmd_reembed,
        "Re-embed the whole store with the configured embedder (after a model change).",
        "AGENT_MEMORY_EMBEDDER__MODEL=BAAI/bge-m3 agent-memory reembed --store data/memory.db",
    )
    p.add_argument(
        "--batch-size", type=positive_int, default=256, help="records per embedding batch"
    )
    p = add(
        "snapshot",
        cmd_snapshot,
        "Copy the whole store to a new file, consistently.",
        "agent-memory snapshot backups/memory-2026-11-29.db",
    )
    p.add_argument("destination", help="a new file")
    p = add(
        "restore",
        cmd_restore,
        "Replace the whole store with a snapshot.",
        "agent-memory restore backups/memory-2026-11-29.db",
    )
    p.add_argument("source", help="a snapshot file")

    def principal(p: argparse.ArgumentParser) -> None:
        p.add_argument("--agent", required=True, help="the agent acting")
        p.add_argument("--user", required=True, help="the user it acts for")
        p.add_argument("--session", default=None, help="session id (default: a new cli-... id)")
        p.add_argument(
            "--write-target",
            action="append",
            metavar="LABEL=SCOPE",
            help="a symbolic write target (default: personal=user:<user>); repeatable",
        )

    p = add(
        "write",
        cmd_write,
        "Write one record through memory_write, exactly as a model's tool call would.",
        "agent-memory write --agent planner --user u1 --type semantic \\\n"
        '    --content "The user prefers concise answers." --source-kind user_statement \\\n'
        '    --said "Please keep answers concise." --evidence "keep answers concise"',
    )
    principal(p)
    p.add_argument("--type", required=True, choices=["semantic", "episodic", "procedural"])
    p.add_argument("--content", required=True)
    p.add_argument(
        "--source-kind",
        required=True,
        choices=["user_statement", "tool_result", "system", "agent_inference"],
    )
    p.add_argument("--target", default="personal", help="symbolic write target")
    p.add_argument("--attribute", help="the aspect of the subject this states")
    p.add_argument("--evidence", help="verbatim quote from the session transcript")
    p.add_argument(
        "--said", help="first record this as a user turn of the session (so it can be quoted)"
    )
    p.add_argument("--about", action="append", metavar="KIND:NAME", help="entity; repeatable")
    p.add_argument("--event-at", help="ISO 8601")
    p.add_argument("--valid-from", help="ISO 8601")
    p.add_argument("--valid-until", help="ISO 8601")
    p.add_argument("--review-at", help="ISO 8601")
    p.add_argument("--tag", action="append", help="repeatable")
    p = add(
        "get",
        cmd_get,
        "Fetch records by id through memory_get, as the given agent and user may see them.",
        "agent-memory get mem_01a2... --agent planner --user u1 --include-history",
    )
    principal(p)
    read_only_flag(p)
    p.add_argument("ids", nargs="+", help="record ids")
    p.add_argument("--include-history", action="store_true", help="also superseded and expired")
    p = add(
        "forget",
        cmd_forget,
        "Erase a record through memory_forget (content, vector and FTS entry are erased).",
        'agent-memory forget mem_01a2... --agent planner --user u1 --reason "user asked"',
    )
    principal(p)
    p.add_argument("id", help="record id")
    p.add_argument("--reason", help="kept in the audit log")
    p = add(
        "forget-user",
        cmd_forget_user,
        "Erase everything stored of a user (records, sessions, transcripts, logs, entities); "
        "prints a receipt.",
        "agent-memory forget-user u1 --json",
    )
    p.add_argument("user", help="user id")
    p = add(
        "export-user",
        cmd_export_user,
        "Write everything stored of a user to one JSON-lines file that import reads again.",
        "agent-memory export-user u1 --out u1.jsonl",
    )
    p.add_argument("user", help="user id")
    p.add_argument("--out", required=True, help="the file to write")
    p = add(
        "search",
        cmd_search,
        "Search through memory_search as the given agent and user, with explanations.",
        'agent-memory search "how does the user like answers?" --agent planner --user u1',
    )
    principal(p)
    read_only_flag(p)
    p.add_argument("query")
    p.add_argument("--type", action="append", choices=["semantic", "episodic", "procedural"])
    p.add_argument("--since", help="ISO 8601")
    p.add_argument("--until", help="ISO 8601")
    p.add_argument("--entity", action="append", help="entity name hint; repeatable")
    p.add_argument("--limit", type=int)
    p.add_argument("--budget-tokens", type=int)
    p.add_argument("--include-history", action="store_true")
    p = add(
        "ingest",
        cmd_ingest,
        "Record a finished session's transcript from a JSON file and enqueue its extraction.",
        "agent-memory ingest chat.json --agent assistant --user alice --session s-042\n"
        '# chat.json: {"turns": [{"role": "user", "content": "I\'m vegetarian.",\n'
        '#                        "at": "2026-11-29T12:00:00Z"}, ...]}\n'
        "agent-memory ingest chat.json --agent assistant --user alice --session s-043 --inline",
    )
    p.add_argument("file", help='a JSON file: {"turns": [{"role", "content", "at"}, ...]}')
    p.add_argument("--agent", required=True, help="the agent of the session")
    p.add_argument("--user", required=True, help="the user it acted for")
    p.add_argument("--session", required=True, help="the session id (each is ingested once)")
    p.add_argument(
        "--write-target",
        action="append",
        metavar="LABEL=SCOPE",
        help="a symbolic write target (default: personal=user:<user>); repeatable",
    )
    p.add_argument(
        "--inline",
        action="store_true",
        help="run the extraction pipeline here and now instead of queueing it for a worker",
    )
    p = add(
        "jobs",
        cmd_jobs,
        "List extraction jobs, show one job's stages with attempts, claims, errors, timings "
        "and history, or retry failed jobs (`jobs retry JOB`, `jobs retry --failed`).",
        "agent-memory jobs --status failed\nagent-memory jobs job_01a2... --json\n"
        "agent-memory jobs retry job_01a2...\nagent-memory jobs retry --failed",
    )
    p.add_argument("job", nargs="?", help="a job id: show its stages; or `retry`")
    p.add_argument("target", nargs="?", help="with `retry`: the failed job to queue again")
    p.add_argument("--failed", action="store_true", help="with `retry`: every failed job")
    p.add_argument("--status", choices=["queued", "running", "done", "failed"])
    p.add_argument("--session", help="only this session's job")
    p.add_argument("--agent", help="only this agent's sessions")
    p.add_argument("--limit", type=int, default=50, help="at most this many (newest first)")
    p = add(
        "sessions",
        cmd_sessions,
        "List sessions, most recently active first: turns, last activity, how each ended "
        "(ended, idle, cli) and its extraction job. --open lists those not ended yet, which the "
        "worker's sweep ends after worker.session_idle_seconds without activity.",
        "agent-memory sessions --open\nagent-memory sessions --agent planner --json",
    )
    p.add_argument("--open", action="store_true", help="only sessions not ended yet")
    p.add_argument("--agent", help="only this agent's sessions")
    p.add_argument("--user", help="only this user's sessions")
    p.add_argument("--limit", type=int, default=100, help="at most this many")
    p = add(
        "worker",
        cmd_worker,
        "Run the Huey consumer that extracts ended sessions (stop with SIGTERM or Ctrl-C).",
        "agent-memory worker --store data/memory.db --threads 4",
        json_flag=False,
    )
    p.add_argument("--threads", type=int, help="worker threads (default: worker.threads)")
    p.set_defaults(log_level="INFO")
    p = add(
        "eval",
        cmd_eval,
        "Measure retrieval on LoCoMo and LongMemEval-S (recall@k, empty answers, latency), or "
        "on everyday personal chats (--dataset personal: extracted and turn records), or the "
        "evidence judge on labelled quote/content pairs (--dataset judge).",
        "agent-memory eval --data ../shared/data --dataset locomo --out eval.json\n"
        "agent-memory eval --data ../shared/data --dataset locomo --calibrate\n"
        "agent-memory eval --dataset personal --data ../shared/data/personal-memory-dev.json\n"
        "agent-memory eval --dataset judge --data ../shared/data/judge-pairs-dev.jsonl",
    )
    p.add_argument(
        "--data",
        default="../shared/data",
        help="folder with the data set files (personal: the file itself, or its folder, or "
        "a LongMemEval .json.gz, each question a user holding only its evidence sessions; "
        "judge: a .jsonl file or a folder holding it)",
    )
    p.add_argument(
        "--dataset",
        default="all",
        choices=["locomo", "longmemeval", "all", "personal", "judge"],
        help="'all' is LoCoMo and LongMemEval",
    )
    p.add_argument(
        "--granularity",
        default="turn",
        choices=["turn", "session", "both"],
        help="LongMemEval: a record per turn or per session",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="sweep the gate floors (LoCoMo: the floors; personal: the small-store dense floor)",
    )
    p.add_argument("--work-dir", help="keep the evaluation stores here (default: temporary)")
    p.add_argument("--out", help="write the full JSON report here")
    p = add(
        "bench",
        cmd_bench,
        "Run a benchmark of benchmarks/ (search, write, worker or index): the rest of the line "
        "is its own arguments. Each builds its own stores (--store and --config are not used) "
        "and writes its report under benchmarks/results/ unless given --out.",
        "agent-memory bench search --sizes 1000,10000 --queries 50\n"
        "agent-memory bench write --help",
        json_flag=False,
    )
    p.add_argument("name", choices=BENCHMARKS, help="which benchmark")
    p.add_argument(
        "args",
        nargs=argparse.REMAINDER,
        help="its arguments (agent-memory bench NAME --help lists them)",
    )
    p = add(
        "tools",
        cmd_tools,
        "Print the tool definitions a host registers (name, description, JSON Schema) and the "
        "memory-use policy for the prompt prefix; both are static for a configuration.",
        "agent-memory tools --json > tools.json\nagent-memory tools --policy --mode hybrid",
    )
    p.add_argument(
        "--mode",
        choices=["tool_only", "auto", "hybrid"],
        help="trigger mode (default: trigger.mode); auto omits memory_search",
    )
    p.add_argument("--policy", action="store_true", help="print only the memory-use policy")
    add(
        "config",
        cmd_config,
        "Show every setting: value, default, help and variable.",
        "agent-memory config --json",
    )
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

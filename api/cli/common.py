"""What every command group shares: opening the store, the common flags, reading input files,
printing results (text or --json), and the one way a command is added to the parser."""

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
from pathlib import Path
from typing import Any, TypeAlias

from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.errors import InvalidArgument, StoreError
from agent_memory.core.store.connection import unwritable_reason

DEFAULT_STORE = Path("agent-memory") / "memory.db"
EXIT_OK, EXIT_ERROR = 0, 2

Handler = Callable[[argparse.Namespace], int]
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


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
    """The store ``args.store`` names, opened for the command. A command that only reads (one
    with ``--read-only``: search, get, stats; and export-user, sessions, grants) opens
    an existing store only
    (a file that is not empty): a mistyped path would otherwise make a new, empty store and
    answer as if the memory held nothing."""
    reads_only = hasattr(args, "read_only") or getattr(args, "existing_store", False)
    store = Path(args.store)
    if reads_only and (not store.exists() or (store.is_file() and store.stat().st_size == 0)):
        raise StoreError(
            f"no store at {args.store}; this command reads an existing store (check the path, "
            "or create one with `agent-memory init`)"
        )
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


def batch_size_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--batch-size", type=positive_int, default=256, help="records per embedding batch"
    )


def write_target_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--write-target",
        action="append",
        metavar="LABEL=SCOPE",
        help="a symbolic write target (default: personal=user:<user>); repeatable",
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


def pairs(values: Sequence[str] | None, *, what: str) -> list[tuple[str, str]]:
    """``--write-target LABEL=SCOPE`` or ``--about KIND:NAME`` values, split in two."""
    found = []
    for value in values or ():
        key, sep, rest = value.partition("=" if what == "--write-target" else ":")
        if not sep or not key or not rest:
            form = "LABEL=SCOPE" if what == "--write-target" else "KIND:NAME"
            raise InvalidArgument(f"{what} must look like {form}, got {value!r}", field=what)
        found.append((key, rest))
    return found


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print ``data`` as JSON with --json, else the human-readable ``text``."""
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        print(text() if callable(text) else text)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [list(map(str, headers))] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def read_json(path: str) -> Any:
    """A JSON file's content; what cannot be read or parsed is an InvalidArgument on "file"."""
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


def read_jsonl(path: str) -> tuple[list[Any], list[str]]:
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


def add_command(
    sub: Subcommands,
    name: str,
    handler: Handler,
    help: str,
    example: str,
    *,
    json_flag: bool = True,
) -> argparse.ArgumentParser:
    """Add the command ``name``, run by ``handler``, with the flags every command takes
    (--store, --config, --log-level, and --json unless ``json_flag`` is false); its
    description is ``help`` and its epilog the ``example``."""
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

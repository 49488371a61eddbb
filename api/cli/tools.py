"""The tool surface from the command line: write, get, forget and search run one tool call
as an operator, exactly as a model's call would; tools prints what a host registers."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from typing import Any

from agent_memory.api.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    Subcommands,
    add_command,
    emit,
    load_config,
    open_memory,
    pairs,
    read_only_flag,
    write_target_flag,
)
from agent_memory.core.models import utcnow
from agent_memory.core.session import Session


def _tool_call(
    args: argparse.Namespace, name: str, arguments: dict[str, Any], *, said: str | None = None
) -> dict[str, Any]:
    """Run one tool for an operator, with identity from the flags (never from input), on a
    deferred session: the session and the ``said`` user turn are stored only if the call
    succeeds, so a refused call changes nothing."""
    targets = dict(pairs(args.write_target, what="--write-target")) or None
    session_id = args.session or f"cli-{utcnow().strftime('%Y%m%dT%H%M%S%f')}"
    with open_memory(args) as mem:
        session = Session(
            mem.engine,
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


def _principal(p: argparse.ArgumentParser) -> None:
    """Who makes the call: the agent, the user it acts for, the session and write targets."""
    p.add_argument("--agent", required=True, help="the agent acting")
    p.add_argument("--user", required=True, help="the user it acts for")
    p.add_argument("--session", default=None, help="session id (default: a new cli-... id)")
    write_target_flag(p)


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
            {"kind": kind, "name": name} for kind, name in pairs(args.about, what="--about")
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


def add_write(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "write",
        cmd_write,
        "Write one record through memory_write, exactly as a model's tool call would.",
        "agent-memory write --agent planner --user u1 --type semantic \\\n"
        '    --content "The user prefers concise answers." --source-kind user_statement \\\n'
        '    --said "Please keep answers concise." --evidence "keep answers concise"',
    )
    _principal(p)
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


def add_get(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "get",
        cmd_get,
        "Fetch records by id through memory_get, as the given agent and user may see them.",
        "agent-memory get mem_01a2... --agent planner --user u1 --include-history",
    )
    _principal(p)
    read_only_flag(p)
    p.add_argument("ids", nargs="+", help="record ids")
    p.add_argument("--include-history", action="store_true", help="also superseded and expired")


def cmd_forget(args: argparse.Namespace) -> int:
    arguments = {"id": args.id}
    if args.reason:
        arguments["reason"] = args.reason
    result = _tool_call(args, "memory_forget", arguments)
    return _tool_result(args, result, lambda: f"forgot {result['id']}")


def add_forget(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "forget",
        cmd_forget,
        "Erase a record through memory_forget (content, vector and FTS entry are erased).",
        'agent-memory forget mem_01a2... --agent planner --user u1 --reason "user asked"',
    )
    _principal(p)
    p.add_argument("id", help="record id")
    p.add_argument("--reason", help="kept in the audit log")


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


def add_search(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "search",
        cmd_search,
        "Search through memory_search as the given agent and user, with explanations.",
        'agent-memory search "how does the user like answers?" --agent planner --user u1',
    )
    _principal(p)
    read_only_flag(p)
    p.add_argument("query")
    p.add_argument("--type", action="append", choices=["semantic", "episodic", "procedural"])
    p.add_argument("--since", help="ISO 8601")
    p.add_argument("--until", help="ISO 8601")
    p.add_argument("--entity", action="append", help="entity name hint; repeatable")
    p.add_argument("--limit", type=int)
    p.add_argument("--budget-tokens", type=int)
    p.add_argument("--include-history", action="store_true")


def cmd_tools(args: argparse.Namespace) -> int:
    from agent_memory.core.tools import memory_policy, tool_definitions

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


def add_tools(sub: Subcommands) -> None:
    p = add_command(
        sub,
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


COMMANDS = {
    "write": add_write,
    "get": add_get,
    "forget": add_forget,
    "search": add_search,
    "tools": add_tools,
}

"""Sessions and their extraction: ingest, jobs, sessions and worker."""

from __future__ import annotations

import argparse
import os
from datetime import datetime
from typing import Any

from agent_memory.api.cli.common import (
    EXIT_OK,
    Subcommands,
    add_command,
    check_store,
    emit,
    load_config,
    open_memory,
    pairs,
    read_json,
    table,
    write_target_flag,
)
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.session import Session


def _read_transcript(path: str) -> list[tuple[str, str, datetime | None]]:
    """The turns of a transcript file, all checked before anything is written:
    {"turns": [...]} or a bare list of turns, each {"role", "content", "at" (optional)}."""
    from agent_memory.core.models import parse_time
    from agent_memory.core.session import ROLES

    data = read_json(path)
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
    from agent_memory.workers.app import WorkerApp

    turns = _read_transcript(args.file)
    targets = dict(pairs(args.write_target, what="--write-target")) or None
    config = load_config(args)
    with open_memory(args, config) as mem:
        # Deferred: every check comes first, and the session, its turns and its job are
        # stored only at end(), so a refused ingest changes nothing.
        session = Session(
            mem.engine,
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


def add_ingest(sub: Subcommands) -> None:
    p = add_command(
        sub,
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
    write_target_flag(p)
    p.add_argument(
        "--inline",
        action="store_true",
        help="run the extraction pipeline here and now instead of queueing it for a worker",
    )


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
        table(rows, ("stage", "status", "attempts", "claimed by", "took", "result", "last error"))
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
    from agent_memory.workers.app import WorkerApp

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
            table(
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


def add_jobs(sub: Subcommands) -> None:
    p = add_command(
        sub,
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
            table(
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


def add_sessions(sub: Subcommands) -> None:
    p = add_command(
        sub,
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
    p.set_defaults(existing_store=True)  # it only reads: a mistyped --store is an error


def cmd_worker(args: argparse.Namespace) -> int:
    from agent_memory.workers.app import WorkerApp
    from agent_memory.workers.consumer import PauseHooks, run_consumer

    config = load_config(args)
    check_store(args.store)
    app = WorkerApp(
        args.store, config, hooks=PauseHooks.from_environ(os.environ), environ=os.environ
    )
    run_consumer(app, threads=args.threads or config.worker.threads)
    return EXIT_OK


def add_worker(sub: Subcommands) -> None:
    p = add_command(
        sub,
        "worker",
        cmd_worker,
        "Run the Huey consumer that extracts ended sessions (stop with SIGTERM or Ctrl-C).",
        "agent-memory worker --store data/memory.db --threads 4",
        json_flag=False,
    )
    p.add_argument("--threads", type=int, help="worker threads (default: worker.threads)")
    p.set_defaults(log_level="INFO")


COMMANDS = {
    "ingest": add_ingest,
    "jobs": add_jobs,
    "sessions": add_sessions,
    "worker": add_worker,
}

"""Does the order sessions are extracted in change what a search answers? The personal sets'
extracted path built twice, sessions extracted in the order said and newest first.

    python benchmarks/extraction_order.py --data DATA/personal-memory-dev.json
                                          [--out FILE.json] [--show-differing]

A worker's backlog, a job retried after a crash or a session ended late extracts an older
session after a newer one. Each persona's sessions are added to live sessions and ended, each
extraction run at once (the worker app in Huey's immediate mode, the offline backend), as the
personal eval does (api.evaluation.personal); newest first, the worker's clock still moves
forward (each session is extracted after every turn was said). Both stores are asked every
question, and the report gives each order's figures (api.evaluation.metrics.personal_metrics)
and the questions whose first five results match other labelled turns. The rule that makes the
two agree, and the figures: core.write.stale, core.extraction.corrections.outdating,
benchmarks/README.md ("Session 59").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.api.evaluation import personal
from agent_memory.api.evaluation.metrics import TOP, personal_metrics
from agent_memory.api.evaluation.personas import TURN_STEP, Answer, Persona, load
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.extraction import make_backend
from agent_memory.workers.app import WorkerApp

ORDERS = ("as said", "newest first")


def answers(persona: Persona, order: str, *, config: Config, embedder: Embedder) -> list[Answer]:
    """``persona``'s questions asked of a store whose sessions were extracted in ``order``."""
    sessions = list(persona.sessions)
    last = max(s.turns[-1].at for s in sessions) + TURN_STEP
    if order == "newest first":
        sessions.reverse()
    with (
        tempfile.TemporaryDirectory() as folder,
        Memory.open(Path(folder) / "m.db", config, embedder=embedder) as mem,
    ):
        mem.grant(personal.AGENT, f"user:{persona.id}")
        clock = [last]
        backend = make_backend(config.extraction, environ={})
        app = WorkerApp(mem.path, config, immediate=True, backend=backend, clock=lambda: clock[0])
        app.attach(mem)
        for index, session in enumerate(sessions):
            live = mem.session(
                agent_id=personal.AGENT,
                user_id=persona.id,
                session_id=session.id,
                now=session.turns[0].at,
            )
            for turn in session.turns:
                live.add_turn(turn.role, turn.text, at=turn.at)
            as_said = order == "as said"
            clock[0] = session.turns[-1].at + TURN_STEP if as_said else last + TURN_STEP * index
            status = mem.jobs.status(live.end(now=clock[0]))["status"]
            if status != "done":
                raise RuntimeError(f"extraction of session {session.id} ended {status}")
        return personal.ask(mem, persona, "extracted")


def differing(first: Sequence[Answer], second: Sequence[Answer]) -> list[dict[str, Any]]:
    """The questions whose first five results match other labelled turns in the two orders."""
    out = []
    for a, b in zip(first, second, strict=True):
        if a.matches[:TOP] != b.matches[:TOP]:
            out.append(
                {
                    "question": a.question.id,
                    "kind": a.question.kind,
                    ORDERS[0]: [sorted(m) for m in a.matches[:TOP]],
                    ORDERS[1]: [sorted(m) for m in b.matches[:TOP]],
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a personal-memory data file")
    parser.add_argument("--out", type=Path, help="write the report as JSON here")
    parser.add_argument("--show-differing", action="store_true")
    args = parser.parse_args()
    config = Config()
    embedder = make_embedder(config.embedder)
    by_order: dict[str, list[Answer]] = {order: [] for order in ORDERS}
    for persona in tqdm(load(args.data), desc="personas", unit="persona"):
        for order in ORDERS:
            by_order[order] += answers(persona, order, config=config, embedder=embedder)
    report: dict[str, Any] = {"data": str(args.data)}
    for order in ORDERS:
        m = personal_metrics(by_order[order])
        report[order] = m
        a = m["answerable"]
        print(
            f"{order:>12}: hit@5 {a['hit@5']}, recall@5 {a['recall@5']}, answered empty "
            f"{a['empty']}; current first {m['update_current_first']}, stale shown "
            f"{m['update_stale_shown']}"
        )
    report["differing"] = differing(*by_order.values())
    asked = len(by_order[ORDERS[0]])
    print(f"questions whose first five differ: {len(report['differing'])} of {asked}")
    if args.show_differing:
        for row in report["differing"]:
            print(json.dumps(row))
    if args.out:
        args.out.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()

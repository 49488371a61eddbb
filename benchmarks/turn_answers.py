"""Score how search ranks imported turns: the conversations of
``benchmarks/data/turn_answers.json``, each imported into a store of its own and asked its
labelled questions, alone and among generic filler sessions.

    python benchmarks/turn_answers.py [--items benchmarks/data/turn_answers.json]
                                      [--sizes alone,half,all] [--out FILE.json] [--show-wrong]
                                      [--by-kind]

Two review sessions wrote these 78 conversations (486 questions) in session 44 to test rules
that rank a turn by what its neighbours say, and labelled each question with the turn ids
that answer it (for an update, also the turns it makes stale) before any code ran. They are
adversarial by design: 242 answers are terse replies or details that mean what the turns
before them say ("Arup. Structural team, start on the 16th." after "Handed in my notice
today."), 168 say the answer in full, and 76 questions have none. The store sizes are the
conversation alone (about 10 records: the subject signal's floor is 0 there), with 6 of the
filler sessions (52 turns) and with all 12 (102 turns); the floors scale with the records.

Each store is a real SQLite file on the packaged embedder; turns go in through
``Memory.import_conversation`` (a session per call, so each turn's retrieval context is its
date and the turns before it) and questions through ``memory_search`` at the tests' clock
(2026-11-29 12:00 UTC, after every turn). A result is a turn by its ``source_ref``. Per size:
hit@1, @5, @10 (the first answering turn within that rank), answerable answered empty,
unanswerable answered empty, and for updates whether a stale turn is in the top 5 above every
current one.
The rules measured against it: benchmarks/README.md, "Session 44".

A second set, ``--items benchmarks/data/assistant_answers.json`` (session 47, a review of the
role prior), holds 30 conversations whose 198 questions are asked in the user's voice: 106
answered only by an assistant turn (a booking confirmed, a sum worked out), 92 by the user's
own; and ``benchmarks/data/assistant_acts.json`` 26 conversations whose 186 questions test
assistant turns reporting what they did ("Booked: ...") against the user's turns and against
the later turns that change, cancel or refuse them. ``--by-kind`` prints each kind of question
apart (benchmarks/README.md, "Session 47").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from tests.support.clock import NOW
from tests.support.stores import granted_memory

ITEMS = Path(__file__).resolve().parent / "data" / "turn_answers.json"
SIZES = {"alone": 0, "half": 6, "all": 12}  # filler sessions added to each conversation
SCOPE = "user:dana"


def filler_sessions(filler: list[list[list[str]]], count: int) -> list[dict[str, Any]]:
    """The first ``count`` filler sessions as import_conversation sessions, spread over 2026."""
    sessions = []
    for i, said in enumerate(filler[:count]):
        at = f"2026-{i % 10 + 1:02d}-{i * 7 % 27 + 1:02d}T15:00:00Z"
        turns = [
            {"id": f"f{i}_{j}", "role": role, "text": text, "at": at}
            for j, (role, text) in enumerate(said)
        ]
        sessions.append({"session_id": f"filler{i}", "turns": turns})
    return sessions


def ranks(
    conversation: dict[str, Any], extra: list[dict[str, Any]], embedder: Embedder
) -> list[list[str]]:
    """For each question, the turns its answer returned, in order (each result's source_ref)."""
    with (
        tempfile.TemporaryDirectory() as folder,
        granted_memory(
            Path(folder) / "m.db", embedder=embedder, grants=[("assistant", SCOPE)]
        ) as memory,
    ):
        for session in [*conversation["sessions"], *extra]:
            memory.import_conversation(
                session["turns"], scope=SCOPE, session_id=session["session_id"], now=NOW
            )
        asking = memory.session(agent_id="assistant", user_id="dana", session_id="q", now=NOW)
        found = []
        for question in conversation["questions"]:
            result = asking.call("memory_search", {"query": question["q"]}, now=NOW)
            if "error" in result:
                raise RuntimeError(f"{conversation['id']}: {result['error']['code']}")
            found.append([r["source_ref"] for r in result["results"]])
        return found


def outcome(question: dict[str, Any], found: list[str]) -> dict[str, Any]:
    """The rank of the first answering turn (None: not returned), and for an update whether
    a stale turn is in the top 5 above every current one."""
    rank = next((i for i, turn in enumerate(found, 1) if turn in question["answer"]), None)
    stale = next((i for i, turn in enumerate(found[:5], 1) if turn in question["stale"]), None)
    return {
        "rank": rank,
        "empty": not found,
        "stale_first": stale is not None and (rank is None or stale < rank),
    }


def summary(rows: list[dict[str, Any]]) -> str:
    answerable = [r for r in rows if r["answer"]]
    unanswerable = [r for r in rows if not r["answer"]]
    updates = [r for r in rows if r["stale"]]

    def hits(k: int) -> int:
        return sum(r["rank"] is not None and r["rank"] <= k for r in answerable)

    return (
        f"hit@1 {hits(1)}, hit@5 {hits(5)}, hit@10 {hits(10)} of {len(answerable)}; "
        f"answered empty {sum(r['empty'] for r in answerable)}; unanswerable answered empty "
        f"{sum(r['empty'] for r in unanswerable)} of {len(unanswerable)}; stale first "
        f"{sum(r['stale_first'] for r in updates)} of {len(updates)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=Path, default=ITEMS)
    parser.add_argument("--sizes", default="alone,half,all", help="of: " + ", ".join(SIZES))
    parser.add_argument("--out", type=Path, help="write each question's outcome as JSON here")
    parser.add_argument("--show-wrong", action="store_true", help="print each answer missed")
    parser.add_argument("--by-kind", action="store_true", help="also a line per kind of question")
    args = parser.parse_args()
    data = json.loads(args.items.read_text(encoding="utf-8"))
    sizes = [s for s in args.sizes.split(",") if s]
    if unknown := set(sizes) - SIZES.keys():
        parser.error(f"unknown size {sorted(unknown)[0]!r}; sizes are {', '.join(SIZES)}")
    embedder = make_embedder(Config().embedder)
    rows = []
    for size in sizes:
        extra = filler_sessions(data["filler"], SIZES[size])
        for conversation in tqdm(data["conversations"], desc=size, unit="conversation"):
            found = ranks(conversation, extra, embedder)
            for question, turns in zip(conversation["questions"], found, strict=True):
                row = {"size": size, "conversation": conversation["id"], **question}
                rows.append({**row, **outcome(question, turns), "found": turns[:10]})
    for size in sizes:
        print(f"{size:5}: {summary([r for r in rows if r['size'] == size])}")
        if args.by_kind:
            for kind in sorted({r.get("kind", "") for r in rows}):
                kept = [r for r in rows if r["size"] == size and r.get("kind", "") == kind]
                print(f"  {kind or '-':9}: {summary(kept)}")
    if args.show_wrong:
        for r in rows:
            if r["answer"] and (r["rank"] is None or r["rank"] > 5):
                print(
                    f"  {r['size']} {r['conversation']} {r['q']!r}: {r['answer']} -> {r['found']}"
                )
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()

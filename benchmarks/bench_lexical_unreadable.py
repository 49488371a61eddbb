"""Does the lexical stage's time depend on records the agent cannot read?

    python benchmarks/bench_lexical_unreadable.py [--steps 0,1000,10000,50000] [--runs 50]

Bob's agent reads ``user:bob`` (1,000 records, 100 holding the query words). Alice's scope
(unreadable to it) grows through ``--steps`` records holding the same words: the plain word
"quokka", the phrase word "tea_quokka" (FTS5 splits it: a phrase) and, as a control, "zebra",
which only Bob's records hold (the store grows for it as well). At each step the script times
the search log's ``lexical_candidates`` stage of ``memory_search``: cold (the word's postings
read from FTS5, the first search after Alice's records were written) and warm (p50 of
``--runs`` repeats). It checks that every lexical score stays the same at every step. The
embedder is HashingEmbedder (the lexical stage does not use it). Prints one JSON line per
step and word.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_memory.core import Config, HashingEmbedder, Memory

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
QUERIES = {"plain": "quokka", "phrase": "tea_quokka", "control": "zebra"}


def lexical_ms(session, query: str) -> tuple[float, list[float]]:
    result = session.call("memory_search", {"query": query, "limit": 10}, now=NOW)
    scores = sorted(
        r["explanation"]["generators"]["lexical"]["score"]
        for r in result["results"]
        if "lexical" in r["explanation"]["generators"]
    )
    return float(result["explanation"]["timings_ms"]["lexical_candidates"]), scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", default="0,1000,10000,50000")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--scoring", choices=["memory", "fts5"], default="memory")
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    config = Config(
        gate={"dense_floor": -1.0, "lexical_floor": 0.0},
        retrieval={"lexical_scoring": args.scoring},
    )
    with tempfile.TemporaryDirectory() as folder:
        mem = Memory.open(Path(folder) / "m.db", config, embedder=HashingEmbedder(), now=NOW)
        mem.grant("a1", "user:bob", now=NOW)
        bob = [f"bob note {i} about tea quokka zebra" for i in range(100)]
        bob += [f"bob filler note {i}" for i in range(900)]
        mem.import_records([{"content": c} for c in bob], scope="user:bob", now=NOW)
        session = mem.session(agent_id="a1", user_id="bob", session_id="s", now=NOW)
        first: dict[str, list[float]] = {}
        held = 0
        for step in steps:
            more = step - held
            alice = [{"content": f"alice note {held + i} tea quokka"} for i in range(more)]
            if alice:
                mem.import_records(alice, scope="user:alice", now=NOW)
            held = step
            for name, query in QUERIES.items():
                cold, scores = lexical_ms(session, query)
                warm = [lexical_ms(session, query)[0] for _ in range(args.runs)]
                same = first.setdefault(name, scores) == scores
                print(
                    json.dumps(
                        {
                            "unreadable_holding_word": step if name != "control" else 0,
                            "store_records": 1000 + step,
                            "word": name,
                            "cold_ms": round(cold, 3),
                            "warm_p50_ms": round(statistics.median(warm), 3),
                            "scores_unchanged": same,
                        }
                    ),
                    flush=True,
                )
        mem.close()


if __name__ == "__main__":
    main()

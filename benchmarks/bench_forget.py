"""Benchmark erasure (issue 16): memory_forget with lineages in a 50,000-record store, and
forget_user / export_user for a user holding 10,000 records.

    python benchmarks/bench_forget.py [--records 50000] [--user-records 10000] [--forgets 50]
                                      [--lineages 200] [--out benchmarks/results]

1. **Store.** ``--user-records`` records for user ``big`` and the rest of ``--records`` spread
   over 40 other users, through the public bulk import (batches of 256), with the hashing
   embedder: erasure neither embeds nor compares vectors beyond one index lookup (the
   near-duplicates memory_forget returns), so the embedder's quality does not enter; its
   dimensions (64 rather than the packaged model's 384) make that lookup somewhat cheaper.
   ``--lineages`` records of user ``u0000`` get two corrections each through memory_revise,
   so each such lineage has three versions, and user ``u0000`` gets a session whose transcript
   quotes them.
2. **memory_forget.** ``--forgets`` calls through a Session on the newest version of a lineage
   (each erases three records, redacts turns, scrubs the logs, merges the FTS index and
   checkpoints the WAL): ``perf_counter`` around ``Session.call``.
3. **forget_user / export_user** of user ``big`` (10,000 records, on a copy of the store):
   ``export_user`` first, then ``forget_user``. Target: each under 2 s.

The results go to ``bench_forget.json`` / ``.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from _common import RESULTS_DIR, machine_info, summarise, utc_now, write_report

from agent_memory.core import HashingEmbedder, Memory


def build(path: Path, records: int, user_records: int, lineages: int) -> list[str]:
    """The store; returns the newest id of each lineage of u0000."""
    mem = Memory.open(path, embedder=HashingEmbedder())
    try:
        big = [
            {"content": f"Big fact number {i}: the user noted item {i * 7919 % 100003}."}
            for i in range(user_records)
        ]
        mem.import_records(big, scope="user:big")
        rest = records - user_records
        for u in range(40):
            items = [
                {"content": f"User {u} remembers thing {i}, coded {i * 104729 % 99991}."}
                for i in range(rest // 40)
            ]
            mem.import_records(items, scope=f"user:u{u:04d}")
        mem.grant("bench", "user:u0000")
        s = mem.session(agent_id="bench", user_id="u0000", session_id="bench-1")
        newest = []
        for i in range(lineages):
            gym = _word(i)
            s.add_turn("user", f"My locker number for the {gym} gym is {1000 + i}.")
            first = s.call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": f"The user's {gym} gym locker is {1000 + i}.",
                    "source_kind": "user_statement",
                    "evidence": f"locker number for the {gym} gym is {1000 + i}",
                    "attribute": "locker",
                    # each gym its own subject: lineages of one subject would supersede each other
                    "about": [{"kind": "other", "name": f"{gym} gym"}],
                },
            )
            current = first["id"]
            for v in (1, 2):
                s.add_turn("user", f"Sorry, the {gym} gym locker is now {2000 + i + v}.")
                fixed = s.call(
                    "memory_revise",
                    {
                        "id": current,
                        "action": "correct",
                        "content": f"The user's {gym} gym locker is {2000 + i + v}.",
                        "source_kind": "user_statement",
                        "evidence": f"the {gym} gym locker is now {2000 + i + v}",
                    },
                )
                current = fixed["id"]
            newest.append(current)
        return newest
    finally:
        mem.close()


def _word(i: int) -> str:
    """A distinct made-up name per lineage (digits alone would not tell attributes apart)."""
    letters = "bcdfghjklmnprstvz"
    vowels = "aeiou"
    return "".join(letters[(i >> (3 * k)) % 17] + vowels[(i + k) % 5] for k in range(3)).title()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--user-records", type=int, default=10_000)
    parser.add_argument("--forgets", type=int, default=50)
    parser.add_argument("--lineages", type=int, default=200)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-forget-"))
    try:
        store = work / "m.db"
        started = time.perf_counter()
        newest = build(store, args.records, args.user_records, args.lineages)
        build_s = time.perf_counter() - started
        copy = work / "copy.db"
        shutil.copy(store, copy)
        with Memory.open(store, embedder=HashingEmbedder()) as mem:
            s = mem.session(agent_id="bench", user_id="u0000", session_id="bench-2")
            s.call("memory_search", {"query": "warm the index"})
            samples, erased = [], []
            for record_id in newest[: args.forgets]:
                t = time.perf_counter()
                result = s.call("memory_forget", {"id": record_id, "reason": "bench"})
                samples.append(time.perf_counter() - t)
                erased.append(len(result["erased"]))
        with Memory.open(copy, embedder=HashingEmbedder()) as mem:
            t = time.perf_counter()
            exported = mem.export_user("big", work / "big.jsonl")
            export_s = time.perf_counter() - t
            t = time.perf_counter()
            receipt = mem.forget_user("big")
            forget_user_s = time.perf_counter() - t
        result = {
            "at": utc_now(),
            "machine": machine_info(),
            "records": args.records,
            "build_s": round(build_s, 1),
            "memory_forget": summarise(samples),
            "records_erased_per_forget": sorted(set(erased)),
            "export_user": {"records": exported["records"], "seconds": round(export_s, 3)},
            "forget_user": {
                "records": receipt["counts"]["records"],
                "seconds": round(forget_user_s, 3),
                "purge_pending": receipt.get("purge_pending"),
            },
        }
        f = result["memory_forget"]
        markdown = "\n".join(
            [
                "# Erasure benchmark",
                "",
                f"- store: {args.records} records; memory_forget of {len(samples)} three-version "
                f"lineages: p50 {f['p50_ms']:.1f} ms, p95 {f['p95_ms']:.1f} ms",
                f"- export_user of {exported['records']} records: {export_s:.3f} s",
                f"- forget_user of {receipt['counts']['records']} records: {forget_user_s:.3f} s",
            ]
        )
        write_report(args.out, "bench_forget", result, markdown)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

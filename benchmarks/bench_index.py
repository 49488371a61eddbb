"""Benchmark the vector index: search latency against bare numpy, and store open + rebuild.

    python benchmarks/bench_index.py [--records 50000] [--dims 384] [--out benchmarks/results]

Two acceptance targets of the vector-index issue are measured, with their numbers reported
whatever they are:

1. **Search.** ``core.index.VectorIndex.search(query, 30)`` over ``--records`` random float32
   unit vectors must stay within 1.5x of the bare numpy it wraps::

       scores = matrix @ q
       top = np.argpartition(-scores, 29)[:30]
       top = top[np.argsort(-scores[top])]

   The index adds a lock, the allowed-set handling, a deterministic tie-break and the ``Hit``
   objects; this measures what that costs. Searches restricted with ``allowed=`` (all records,
   a random 10 % and a random 1 % of them) are measured too, each also against the numpy
   equivalent (gather the rows, then the same top-k). Every variant runs on the same queries,
   interleaved query by query in a rotating order, in this one process, so machine noise hits
   all of them alike. p50, p95 and mean are over ``--queries`` queries after a warm-up.

2. **Open + rebuild.** A host restarting on a ``--records`` store must be searchable in under
   2 s: ``Memory.open(path, embedder=HashingEmbedder(dims))`` plus ``mem.index()``, which reads
   every stored embedding blob and builds the matrix. Each measurement runs in a fresh
   subprocess, so nothing built by this process helps; the time starts after the imports (no
   model loads: the hashing embedder has none). The resident memory of that subprocess after
   the build (VmRSS) and its peak (VmHWM) are reported too. Runs are made with the store file
   in the OS page cache (a restart right after a shutdown) and with its pages evicted first
   with ``posix_fadvise(DONTNEED)`` (closer to a cold boot; the disk is still the same).

   The store is filled through the public bulk import, ``Memory.import_records``, with
   synthetic sentences (random words from a fixed pseudo-word vocabulary, fixed seed) embedded
   by ``HashingEmbedder``, so no neural model is needed. That import is timed too (records/s).
   The built store is cached in ``benchmarks/.cache/`` (gitignored), keyed by size, schema and
   generator version, so reruns skip it; ``--rebuild-store`` forces a fresh build.

Results go to ``<out>/index.json`` (machine, versions, every number) and a markdown table is
printed. This is a benchmark, not a timed unit test: numbers depend on the machine and its
load, and nothing here fails when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    REPO,
    cached_store,
    code_version,
    cpu_snapshot,
    evict_from_page_cache,
    machine_info,
    other_load,
    proc_status_kb,
    summarise,
    utc_now,
    write_report,
)

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.index import VectorIndex
from agent_memory.core.store.migrations import LATEST_VERSION

K = 30
SEARCH_TARGET_RATIO = 1.5
OPEN_TARGET_S = 2.0
# Bump when the synthetic corpus or the way the store is built changes, to invalidate caches.
CORPUS_VERSION = 1

Search = Callable[[np.ndarray], Any]  # a query vector -> its top K, best first


# ---------------------------------------------------------------------------------------------
# 1. Search: VectorIndex against bare numpy


def numpy_top_k(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The baseline of the issue, verbatim: row indices of the top K, best first."""
    scores = matrix @ q
    top = np.argpartition(-scores, K - 1)[:K]
    return top[np.argsort(-scores[top])]


def numpy_top_k_rows(matrix: np.ndarray, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The same restricted to ``rows`` (sorted row indices): gather, then score and rank."""
    scores = matrix[rows] @ q
    top = np.argpartition(-scores, K - 1)[:K]
    return rows[top[np.argsort(-scores[top])]]


def numpy_rows_search(matrix: np.ndarray, rows: np.ndarray) -> Search:
    return lambda q: numpy_top_k_rows(matrix, rows, q) + 1


def index_search(index: VectorIndex, allowed: np.ndarray) -> Search:
    return lambda q: index.search(q, K, allowed=allowed)


def bench_search(records: int, dims: int, queries: int, warmup: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((records, dims), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)

    # Record rowid r lives in matrix row r - 1, as in a store filled in order.
    index = VectorIndex(dims)
    started = time.perf_counter()
    for row in range(records):
        index.upsert(row + 1, matrix[row])
    upsert_s = time.perf_counter() - started

    subsets = {
        "all": np.arange(records),
        "10%": np.sort(rng.choice(records, size=max(K, records // 10), replace=False)),
        "1%": np.sort(rng.choice(records, size=max(K, records // 100), replace=False)),
    }
    allowed = {name: (rows + 1).astype(np.int64) for name, rows in subsets.items()}

    # Each variant maps a query to its top K, best first: numpy ones as an array of rowids,
    # index ones as Hits. ``references`` pairs each index variant with its numpy equivalent.
    variants: dict[str, Search] = {
        "numpy": lambda q: numpy_top_k(matrix, q) + 1,
        "index": lambda q: index.search(q, K),
    }
    references = {"index": "numpy"}
    for name, rows in subsets.items():
        if name == "all":  # the numpy equivalent of "all" is the baseline itself
            references[f"index allowed {name}"] = "numpy"
        else:
            variants[f"numpy rows {name}"] = numpy_rows_search(matrix, rows)
            references[f"index allowed {name}"] = f"numpy rows {name}"
        variants[f"index allowed {name}"] = index_search(index, allowed[name])

    qs = rng.standard_normal((warmup + queries, dims), dtype=np.float32)
    qs /= np.linalg.norm(qs, axis=1, keepdims=True)

    # Sanity: the index must return exactly what its numpy equivalent returns.
    for name, reference in references.items():
        for q in qs[:20]:
            got = [hit.rowid for hit in variants[name](q)]
            want = variants[reference](q).tolist()
            if got != want:
                raise AssertionError(f"{name} disagrees with {reference}: {got[:5]} vs {want[:5]}")

    names = list(variants)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i, q in enumerate(qs):
        shift = i % len(names)  # rotate the order so no variant always runs first
        for name in names[shift:] + names[:shift]:
            search = variants[name]
            started = time.perf_counter()
            search(q)
            elapsed = time.perf_counter() - started
            if i >= warmup:
                samples[name].append(elapsed)

    stats: dict[str, dict[str, Any]] = {name: summarise(samples[name]) for name in names}
    baseline_p50 = stats["numpy"]["p50_ms"]
    for name in names:
        stats[name]["ratio_to_numpy_full_p50"] = stats[name]["p50_ms"] / baseline_p50
        if name in references:
            stats[name]["reference"] = references[name]
            stats[name]["ratio_to_reference_p50"] = (
                stats[name]["p50_ms"] / stats[references[name]]["p50_ms"]
            )
    index_ratio = stats["index"]["ratio_to_numpy_full_p50"]
    return {
        "records": records,
        "dims": dims,
        "k": K,
        "queries": queries,
        "warmup_queries": warmup,
        "allowed_sizes": {name: len(ids) for name, ids in allowed.items()},
        "upsert_all_s": upsert_s,
        "results_checked_equal": True,
        "variants": stats,
        "target": f"index p50 <= {SEARCH_TARGET_RATIO}x numpy p50",
        "target_met": bool(index_ratio <= SEARCH_TARGET_RATIO),
    }


# ---------------------------------------------------------------------------------------------
# 2. Store: bulk import, then open + rebuild in fresh subprocesses

_SYLLABLES = [c + v for c in "bdfghklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou")]


def synthetic_sentences(count: int, seed: int) -> list[str]:
    """``count`` varied sentences of 6-18 words from a fixed 4,000 pseudo-word vocabulary."""
    rnd = random.Random(seed)
    vocabulary = sorted(
        {"".join(rnd.choice(_SYLLABLES) for _ in range(rnd.randint(2, 4))) for _ in range(4200)}
    )[:4000]
    return [
        " ".join(rnd.choice(vocabulary) for _ in range(rnd.randint(6, 18))).capitalize() + "."
        for _ in range(count)
    ]


def build_store(path: Path, records: int, dims: int, seed: int) -> dict:
    """Fill a new store at ``path`` through ``Memory.import_records``; returns the timings."""
    started = time.perf_counter()
    items = [
        {"content": text, "source_kind": "system"} for text in synthetic_sentences(records, seed)
    ]
    generate_s = time.perf_counter() - started
    mem = Memory.open(path, embedder=HashingEmbedder(dims))
    try:
        started = time.perf_counter()
        ids = mem.import_records(items, scope="user:bench", batch_size=1000)
        import_s = time.perf_counter() - started
    finally:
        mem.close()
    assert len(ids) == records
    return {
        "records": records,
        "generate_sentences_s": generate_s,
        "import_s": import_s,
        "import_records_per_s": records / import_s,
        "batch_size": 1000,
        "file_mb": path.stat().st_size / 1e6,
        "built_at": utc_now(),
    }


def cached_store_for(records: int, dims: int, seed: int, rebuild: bool) -> tuple[Path, dict]:
    """The store for this size, built now or reused from the cache (``_common.cached_store``)."""
    stem = f"store-v{CORPUS_VERSION}-schema{LATEST_VERSION}-n{records}-d{dims}-s{seed}"

    def build(path: Path) -> dict:
        print(f"building a {records}-record store (cached for later runs) ...", flush=True)
        return build_store(path, records, dims, seed)

    return cached_store(stem, build, rebuild=rebuild)


def child_open_and_build(path: str, dims: int) -> None:
    """Runs in the fresh subprocess: time open + index build, report memory, print JSON."""
    embedder = HashingEmbedder(dims)
    rss_before = proc_status_kb("VmRSS")
    started = time.perf_counter()
    mem = Memory.open(path, embedder=embedder)
    opened = time.perf_counter()
    index = mem.index()
    built = time.perf_counter()
    result = {
        "open_s": opened - started,
        "index_build_s": built - opened,
        "open_plus_build_s": built - started,
        "vectors": len(index),
        "rss_before_open_mb": rss_before / 1024,
        "rss_after_build_mb": proc_status_kb("VmRSS") / 1024,
        "peak_rss_mb": proc_status_kb("VmHWM") / 1024,
    }
    mem.close()
    print(json.dumps(result))


def bench_open(path: Path, records: int, dims: int, runs: int) -> dict:
    def one_run(cold: bool) -> dict:
        if cold:
            evict_from_page_cache(path)
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child-open",
            str(path),
            "--dims",
            str(dims),
        ]
        started = time.perf_counter()
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - started
        result = json.loads(output.strip().splitlines()[-1])
        if result["vectors"] != records:
            raise AssertionError(f"index holds {result['vectors']} vectors, not {records}")
        result["subprocess_wall_s"] = wall
        return result

    one_run(cold=False)  # warm the page cache and the interpreter's own files once
    summary: dict = {"runs_per_mode": runs}
    for mode, cold in (("page_cache_warm", False), ("page_cache_evicted", True)):
        results = [one_run(cold) for _ in range(runs)]
        summary[mode] = {
            "runs": results,
            "median": {key: float(np.median([r[key] for r in results])) for key in results[0]},
            "max_open_plus_build_s": max(r["open_plus_build_s"] for r in results),
        }
    worst_median = max(
        summary[m]["median"]["open_plus_build_s"] for m in ("page_cache_warm", "page_cache_evicted")
    )
    summary["target"] = f"open + index build < {OPEN_TARGET_S} s (median per mode)"
    summary["target_met"] = bool(worst_median < OPEN_TARGET_S)
    return summary


# ---------------------------------------------------------------------------------------------
# Reporting


def markdown_tables(result: dict) -> str:
    search, store = result["search"], result["store"]
    v = search["variants"]
    lines = [
        f"Search, top-{K} over {search['records']:,} x {search['dims']} float32 unit vectors, "
        f"{search['queries']} queries after {search['warmup_queries']} warm-up "
        f"(allowed sets: {', '.join(f'{n} = {s:,}' for n, s in search['allowed_sizes'].items())} "
        f"rowids; other processes kept {search['machine_load']['other_processes_avg_cores']:.2f} "
        "cores busy on average meanwhile):",
        "",
        "| variant | p50 ms | p95 ms | mean ms | min ms | p50 / numpy full scan "
        "| p50 / numpy equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    labels = {
        "numpy": "numpy baseline (full scan)",
        "index": "`index.search(q, 30)`",
        "index allowed all": "`allowed=` all records",
        "numpy rows 10%": "numpy, gather 10 % rows",
        "index allowed 10%": "`allowed=` 10 %",
        "numpy rows 1%": "numpy, gather 1 % rows",
        "index allowed 1%": "`allowed=` 1 %",
    }
    for name, label in labels.items():
        s = v[name]
        equivalent = f"{s['ratio_to_reference_p50']:.2f}x" if "reference" in s else "-"
        lines.append(
            f"| {label} | {s['p50_ms']:.3f} | {s['p95_ms']:.3f} | {s['mean_ms']:.3f} "
            f"| {s['min_ms']:.3f} | {s['ratio_to_numpy_full_p50']:.2f}x | {equivalent} |"
        )

    warm = store["open"]["page_cache_warm"]["median"]
    cold = store["open"]["page_cache_evicted"]["median"]
    build = store["build"]
    lines += [
        "",
        f"Store of {store['records']:,} records, open + index rebuild in a fresh subprocess "
        f"(median of {store['open']['runs_per_mode']} runs each; other processes kept "
        f"{store['open']['machine_load']['other_processes_avg_cores']:.2f} cores busy on average):",
        "",
        "| page cache | open s | index build s | open + build s | process wall s | "
        "RSS after build MB | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, m in (("warm", warm), ("evicted", cold)):
        lines.append(
            f"| {label} | {m['open_s']:.3f} | {m['index_build_s']:.3f} "
            f"| {m['open_plus_build_s']:.3f} | {m['subprocess_wall_s']:.2f} "
            f"| {m['rss_after_build_mb']:.0f} | {m['peak_rss_mb']:.0f} |"
        )
    cached = " (store reused from cache; timed when it was built)" if build["from_cache"] else ""
    lines += [
        "",
        f"Bulk import (`import_records`, batch 1000, HashingEmbedder): {build['import_s']:.1f} s, "
        f"{build['import_records_per_s']:,.0f} records/s; store file {build['file_mb']:.0f} MB"
        f"{cached}.",
        "",
        "| target | measured | result |",
        "|---|---|---|",
        f"| index top-{K} p50 within {SEARCH_TARGET_RATIO}x of numpy | "
        f"{v['index']['ratio_to_numpy_full_p50']:.2f}x | "
        f"{'pass' if search['target_met'] else 'FAIL'} |",
        f"| open + rebuild of {store['records']:,} records under {OPEN_TARGET_S:g} s | "
        f"{warm['open_plus_build_s']:.2f} s warm, {cold['open_plus_build_s']:.2f} s evicted | "
        f"{'pass' if store['open']['target_met'] else 'FAIL'} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument(
        "--open-runs", type=int, default=5, help="fresh subprocesses per page-cache mode"
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument(
        "--rebuild-store",
        action="store_true",
        help="ignore the cached store in benchmarks/.cache and build it again",
    )
    parser.add_argument("--child-open", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child_open:
        child_open_and_build(args.child_open, args.dims)
        return

    result: dict = {
        "command": " ".join(["python", "benchmarks/bench_index.py", *sys.argv[1:]]),
        "machine": machine_info(),
        "code": code_version(),
    }
    print(f"search benchmark: {args.records} x {args.dims}, {args.queries} queries ...", flush=True)
    start = cpu_snapshot()
    result["search"] = bench_search(args.records, args.dims, args.queries, args.warmup, args.seed)
    result["search"]["machine_load"] = other_load(start)

    path, build = cached_store_for(args.records, args.dims, args.seed, args.rebuild_store)
    print(f"open + rebuild benchmark on {path.name} ...", flush=True)
    start = cpu_snapshot()
    result["store"] = {
        "records": args.records,
        "dims": args.dims,
        "embedder": "HashingEmbedder",
        "build": build,
        "open": bench_open(path, args.records, args.dims, args.open_runs),
    }
    result["store"]["open"]["machine_load"] = other_load(start)

    write_report(args.out, "index", result, markdown_tables(result))


if __name__ == "__main__":
    main()

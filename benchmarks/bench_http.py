"""Benchmark what the HTTP API adds to a memory_search over the in-process call.

    python benchmarks/bench_http.py [--records 10000] [--queries 300] [--out benchmarks/results]

Issue 19 sets the target: **each surface adds <= 3 ms p50 over the in-process call for
memory_search at 10,000 records** (ratio in one run).

1. A store of ``--records`` records (synthetic one-sentence facts of a few hundred people,
   places and things, seeded) in one user scope, so every search runs over all of them; built
   through ``Memory.import_records`` with the default embedder and cached in
   ``benchmarks/.cache/``.
2. A copy of it is served by a real ``agent-memory serve`` process on 127.0.0.1 (default
   config, warmed), and opened in this process with ``Memory.open`` (warmed too).
3. ``--queries`` questions, each searched both ways, the order alternating query by query so
   load on the machine falls on both alike: ``Session.call("memory_search", ...)`` here, and
   ``POST /v1/sessions/{id}/tools/memory_search`` over one keep-alive httpx connection. Times
   are wall clock around each call (the HTTP one includes the client's JSON encoding and
   decoding). The overhead is reported as the difference of the p50s and as the p50 of the
   per-query differences; and, more robust to the machine's load, as what is left of each
   call's wall time once the pipeline's own logged stage times are taken away, and as CPU
   time per call (the server's from /proc, this client's, and memory_get of a missing id,
   whose own work is ~0.03 ms: the surface's fixed cost).

OpenBLAS: numpy's OpenBLAS keeps its worker threads spinning for a while after each call. On
a 2-core machine, two processes that both search (this one in-process, the server over HTTP)
then take the cores from each other, and every search is slower (measured 2026-12-02: p50
31-53 ms in-process by default, 11.6 ms with ``OPENBLAS_NUM_THREADS=1`` for both). Run it
both ways; results/http-10000.json is the default, results/http-10000-openblas1.json the
latter.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from shutil import copyfile
from typing import Any

from _common import RESULTS_DIR, cached_store, machine_info, summarise, utc_now, write_report

from agent_memory.core import Memory
from agent_memory.core.models import utcnow
from agent_memory.core.store import api_keys as keys
from agent_memory.core.store.migrations import LATEST_VERSION

PEOPLE = "Ana Ben Chen Dara Eli Fay Gus Hana Ivo Jun Kai Lea Mo Noor Omar Pia Raj Sol Tao Uma"
THINGS = (
    "cello bike garden kayak novel piano recipe marathon chess pottery camera tent violin "
    "lantern compass telescope sourdough espresso scarf puzzle"
)
PLACES = "Lisbon Oslo Kyoto Lima Cairo Quito Hanoi Porto Riga Turin Accra Perth Bergen Cusco"
VERBS = "bought borrowed repaired sold lost found painted gifted packed cleaned"
WHEN = "on Monday|last spring|in March|yesterday|after the trip|before the exam|at dawn".split("|")


def sentences(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    people, things, places, verbs = (s.split() for s in (PEOPLE, THINGS, PLACES, VERBS))
    return [
        f"{rng.choice(people)} {rng.choice(verbs)} a {rng.choice(things)} in "
        f"{rng.choice(places)} {rng.choice(WHEN)} (note {i})."
        for i in range(n)
    ]


def questions(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    people, things, places = (s.split() for s in (PEOPLE, THINGS, PLACES))
    forms = (
        "What did {p} do with the {t}?",
        "Who was in {c} with a {t}?",
        "Where did {p} go {w}?",
        "Which {t} did someone buy in {c}?",
    )
    return [
        rng.choice(forms).format(
            p=rng.choice(people), t=rng.choice(things), c=rng.choice(places), w=rng.choice(WHEN)
        )
        for _ in range(n)
    ]


def build(path: Path, records: int) -> dict:
    started = time.perf_counter()
    with Memory.open(path) as mem:
        mem.grant("bench", "user:alice", access="read")
        rows = [{"type": "semantic", "content": text} for text in sentences(records)]
        mem.import_records(rows, scope="user:alice", batch_size=512)
    return {"records": records, "build_s": round(time.perf_counter() - started, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    import httpx  # the server extra's client, as a non-Python service would use any

    stem = f"http-v1-schema{LATEST_VERSION}-n{args.records}"
    cached, info = cached_store(stem, lambda p: build(p, args.records), rebuild=False)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "memory.db"
        copyfile(cached, store)
        mem = Memory.open(store)
        mem.warm()
        _, token = keys.add_key(mem.store, "bench", admin=False, now=utcnow())
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "agent_memory.api", "serve", "--store", str(store),
             "--port", str(port)],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            client = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"})
            _wait(client)
            session = client.post("/v1/sessions", json={"user_id": "alice"}).json()["session_id"]
            local = mem.session(agent_id="bench", user_id="alice", session_id="bench-local")
            url = f"/v1/sessions/{session}/tools/memory_search"
            found = []
            ids: dict[str, list[str]] = {"local": [], "http": []}

            def in_process(query: str) -> float:
                started = time.perf_counter()
                result = local.call("memory_search", {"query": query})
                took = time.perf_counter() - started
                ids["local"].append(result["search_id"])
                return took

            def over_http(query: str) -> float:
                started = time.perf_counter()
                answer = client.post(url, json={"query": query})
                answer.raise_for_status()
                body = answer.json()
                took = time.perf_counter() - started
                found.append(len(body["results"]))
                ids["http"].append(body["search_id"])
                return took

            for query in questions(args.warmup, seed=3):
                in_process(query)
                over_http(query)
            local_s, http_s = [], []
            for i, query in enumerate(questions(args.queries)):
                if i % 2:
                    local_s.append(in_process(query))
                    http_s.append(over_http(query))
                else:
                    http_s.append(over_http(query))
                    local_s.append(in_process(query))
            # CPU time per call, which the machine's load inflates far less than wall
            # time: this process's for the in-process searches; the server's (from /proc)
            # and this client's for the HTTP ones; and for memory_get of a missing id,
            # whose own work is ~0.03 ms, so its HTTP CPU is the surface's fixed cost.
            cpu = _cpu_costs(args.queries, local, client, url, server.pid)
            # The pipeline's own stage times, as logged: what is left of each call's wall
            # time is outside the search (the surface, the session, the tool call's shell).
            outside = {
                way: [
                    wall - _stages_s(mem, search_id)
                    for wall, search_id in zip(walls, ids[way][args.warmup :], strict=True)
                ]
                for way, walls in (("local", local_s), ("http", http_s))
            }
        finally:
            server.terminate()
            server.wait(timeout=30)
            mem.close()
    local_stats, http_stats = summarise(local_s), summarise(http_s)
    outside_paired = (
        statistics.median(h - x for h, x in zip(outside["http"], outside["local"], strict=True))
        * 1000
    )
    paired = statistics.median(h - x for h, x in zip(http_s, local_s, strict=True)) * 1000
    result = {
        "when": utc_now(),
        "machine": machine_info(),
        "store": info,
        "queries": args.queries,
        "in_process": local_stats,
        "http": http_stats,
        "overhead_p50_ms": http_stats["p50_ms"] - local_stats["p50_ms"],
        "overhead_paired_p50_ms": paired,
        "ratio_p50": http_stats["p50_ms"] / local_stats["p50_ms"],
        "mean_results": statistics.mean(found[args.warmup :]) if found else 0,
        "outside_pipeline_ms": {w: summarise(v) for w, v in outside.items()},
        "overhead_outside_pipeline_paired_p50_ms": outside_paired,
        "cpu_ms_per_call": cpu,
        "load_average": os.getloadavg(),
    }
    md = "\n".join(
        [
            f"memory_search at {args.records:,} records, {args.queries} queries each way",
            "",
            "| path | p50 ms | p95 ms | mean ms |",
            "|---|---:|---:|---:|",
            *(
                f"| {name} | {s['p50_ms']:.2f} | {s['p95_ms']:.2f} | {s['mean_ms']:.2f} |"
                for name, s in (("in-process Session.call", local_stats), ("HTTP", http_stats))
            ),
            "",
            f"overhead p50: {result['overhead_p50_ms']:.2f} ms (per-query paired p50 "
            f"{paired:.2f} ms), ratio {result['ratio_p50']:.2f}; target <= 3 ms",
            f"outside the search pipeline (wall minus its logged stage times), per-query "
            f"paired p50: {outside_paired:.2f} ms (in-process "
            f"{result['outside_pipeline_ms']['local']['p50_ms']:.2f} ms, HTTP "
            f"{result['outside_pipeline_ms']['http']['p50_ms']:.2f} ms)",
            "",
            "CPU ms per call: " + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()),
            f"load average during the run: {os.getloadavg()[0]:.1f} (2 cores)",
        ]
    )
    write_report(args.out, f"http-{args.records}", result, md)


def _cpu_costs(n: int, local: Any, client: Any, url: str, pid: int) -> dict[str, float]:
    queries = questions(n, seed=5)
    started = time.process_time()
    for query in queries:
        local.call("memory_search", {"query": query})
    local_search = (time.process_time() - started) / n
    server_before, started = _proc_cpu(pid), time.process_time()
    for query in queries:
        client.post(url, json={"query": query}).raise_for_status()
    client_search = (time.process_time() - started) / n
    server_search = (_proc_cpu(pid) - server_before) / n
    get_url = url.replace("memory_search", "memory_get")
    server_before, started = _proc_cpu(pid), time.process_time()
    for _ in range(n):
        client.post(get_url, json={"ids": ["mem_missing"]}).raise_for_status()
    client_get = (time.process_time() - started) / n
    server_get = (_proc_cpu(pid) - server_before) / n
    ms = {
        "search_in_process": local_search,
        "search_http_server": server_search,
        "search_http_client": client_search,
        "search_http_overhead": server_search + client_search - local_search,
        "get_http_server": server_get,
        "get_http_client": client_get,
    }
    return {k: v * 1000 for k, v in ms.items()}


def _stages_s(mem: Memory, search_id: str) -> float:
    payload = mem.store.search_log_payload(search_id) or {}
    return float(sum(payload.get("timings_ms", {}).values())) / 1000


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(client: object) -> None:
    import httpx

    assert isinstance(client, httpx.Client)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if client.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


if __name__ == "__main__":
    main()

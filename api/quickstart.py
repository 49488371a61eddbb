"""`agent-memory quickstart`: a guided tour of what has landed, on a fresh demo store.

It uses the embedded default (a store file in ./agent-memory/ and the packaged offline model)
and only public API, so it doubles as an example of embedding the core in a host.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_memory.api.host import Identity, MemoryHost
from agent_memory.api.quickstart_data import (
    ALICE,
    ASKED_THE_ASSISTANT,
    BOB,
    BROTHER_FACT,
    CAROL_TURNS,
    CORRECTION_TURN,
    EXTRACTION_CHAT,
    LATE_SESSIONS,
    MOVED_TURN,
    PROJECT,
    SAID_AGAIN,
    TWO_CLAIMS_TURN,
    WRITES,
)
from agent_memory.api.quickstart_http import http_search
from agent_memory.api.quickstart_printer import Printer, backend_label, show_search, stage_result
from agent_memory.core import Config, Memory
from agent_memory.core.amend import opens_correction
from agent_memory.core.sentences import sentences
from agent_memory.core.store.erasure import kept_parts, summaries_narrowed
from agent_memory.core.tools import memory_policy, tool_definitions
from agent_memory.core.write.stale import QUALIFIED_TAG
from agent_memory.workers.app import WorkerApp

if TYPE_CHECKING:
    from agent_memory.core.session import Session

_BM25_LABEL = {"memory": "computed in memory over FTS5's postings", "fts5": "FTS5's bm25()"}

DEMO_STORE = Path("agent-memory") / "quickstart.db"


def run(store: str | Path | None, config: Config, *, as_json: bool = False) -> int:
    """The tour, a step per numbered section, on a demo store made afresh at ``store``
    (default ./agent-memory/quickstart.db); prints it, or with ``as_json`` one JSON document."""
    path = Path(store) if store else DEMO_STORE
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    out = Printer(as_json)
    mem = open_store(path, config, out)
    try:
        tour = _Tour(mem, path, config, out)
        provision_access(tour)
        load_embedder(tour)
        ids = import_records(tour)
        alice = write_from_a_conversation(tour)
        bob = search(tour, alice)
        forget(tour, bob, ids)
        extract_an_ended_session(tour)
        integrate_a_host(tour)
        snapshot_and_stats(tour)
        http_search(mem, out, title="11. The HTTP API")
    finally:
        mem.close()
    next_steps(out, path)
    return 0


@dataclass(frozen=True)
class _Tour:
    """What every step uses: the open store, its file and settings, and the printer."""

    mem: Memory
    path: Path
    config: Config
    out: Printer


def open_store(path: Path, config: Config, out: Printer) -> Memory:
    """1. The store file, created and migrated."""
    out.section("1. Open a store", "One SQLite file is the source of truth (WAL, migrations).")
    mem = Memory.open(path, config)
    try:
        stats = mem.stats()
        out.line(
            f"store     {path} (schema version {stats['schema_version']})",
            store=str(path),
            schema_version=stats["schema_version"],
        )
    except BaseException:
        mem.close()
        raise
    return mem


def provision_access(tour: _Tour) -> None:
    """2. The assistant's grants on two users and a project."""
    mem, out = tour.mem, tour.out
    out.section(
        "2. Provision access",
        "Grants say which agent may read or write which "
        "scope; nothing is inherited. Each agent-user pair also has an implicit "
        "private scope.",
    )
    mem.grant("assistant", "user:alice", access="readwrite")
    mem.grant("assistant", "user:bob", access="readwrite")
    mem.grant("assistant", "project:apollo", access="read")
    for g in mem.grants():
        out.line(
            f"grant     {g.agent_id} -> {g.scope} ({g.access.value})",
            grant={"agent_id": g.agent_id, "scope": g.scope, "access": g.access.value},
        )
    readable = mem.readable_scopes("assistant", "alice")
    out.line(f"readable  assistant for alice: {', '.join(readable)}", readable=list(readable))


def load_embedder(tour: _Tour) -> None:
    """3. The packaged model, loaded now rather than on the first search."""
    mem, out = tour.mem, tour.out
    out.section(
        "3. Load the embedder",
        "FlagEmbedding's BGEM3FlagModel on the packaged "
        "all-MiniLM-L6-v2 (offline; configure BAAI/bge-m3 where its weights exist).",
    )
    started = time.perf_counter()
    mem.warm()
    identity = mem.embedder.identity
    out.line(
        f"embedder  {identity.name} ({identity.dims} dims, {identity.version}) loaded "
        f"in {time.perf_counter() - started:.1f} s",
        embedder=str(identity),
    )


def import_records(tour: _Tour) -> list[str]:
    """4. Records in bulk, then a conversation a record per turn; the records' ids."""
    mem, out = tour.mem, tour.out
    out.section(
        "4. Import records",
        "Bulk import validates every item first, embeds in "
        "batches and writes one transaction per batch; source_ref is kept verbatim.",
    )
    started = time.perf_counter()
    counts: dict[str, int] = {}
    ids: list[str] = []
    for scope, items, agent in (
        ("user:alice", ALICE, "assistant"),
        ("user:bob", BOB, "assistant"),
        ("project:apollo", PROJECT, None),
    ):
        added = mem.import_records(items, scope=scope, agent_id=agent)
        counts[scope] = len(added)
        ids += added
    per_scope = ", ".join(f"{scope} {n}" for scope, n in counts.items())
    out.line(
        f"import    {len(ids)} records in {(time.perf_counter() - started) * 1000:.0f} "
        f"ms ({per_scope})",
        imported=len(ids),
    )
    # A conversation imported as it was said: one record per turn, with the session date
    # and the turns before it as retrieval context, so a short reply is still found.
    mem.grant("assistant", "user:carol", access="readwrite")
    conversation = mem.import_conversation(CAROL_TURNS, scope="user:carol", session_id="carol-1")
    out.line(
        f"import    a conversation of {len(conversation)} turns into user:carol "
        "(source_ref = the turn id)",
        imported_turns=len(conversation),
    )
    return ids


def write_from_a_conversation(tour: _Tour) -> Session:
    """5. A session's turns, and the model's memory_write calls checked against them; the
    session (alice's)."""
    mem, out = tour.mem, tour.out
    out.section(
        "5. A conversation writes memory",
        "The host opens a session (identity and write targets come from the host, never "
        "the model) and records each turn; the model calls memory_write. A claimed user "
        "statement must quote the transcript and the quote must entail it; otherwise it "
        "is stored as a provisional agent_inference that expires in 30 days.",
    )
    s = mem.session(agent_id="assistant", user_id="alice", session_id="demo-1")
    s.add_turn("user", "I'm vegetarian, by the way. And please keep answers short.")
    s.add_turn("assistant", "Noted: vegetarian, short answers.")
    s.add_turn("user", "Actually, I now prefer detailed answers with examples.")
    s.add_turn("user", "I'm not sure I'm moving to Berlin, we'll see.")
    results = {}
    for label, template in WRITES:
        arguments = dict(template)
        result = s.call("memory_write", arguments)
        results[label] = result
        detail = f"{result['action']:<10} {result['status']:<11} {result['source_kind']}"
        out.line(f"write     {arguments['content']:<36} -> {detail}", call=arguments, result=result)
        for note in result["notes"]:
            out.line(f"            note: {note}")
    history = s.call("memory_get", {"ids": [results["style"]["id"]], "include_history": True})
    current = s.call("memory_get", {"ids": [results["style"]["id"]]})
    out.line(
        f"get       {results['style']['id']}: default read -> missing "
        f"({current['missing'] == [results['style']['id']]}); with history -> "
        f"{history['records'][0]['status']}",
        get=history,
    )
    return s


def search(tour: _Tour, alice: Session) -> Session:
    """6. Searches as three users, explained, and the last one's timings; bob's session."""
    mem, out = tour.mem, tour.out
    out.section(
        "6. Search",
        "memory_search runs dense, lexical and entity generators under a hard scope filter "
        "(and a time generator when the query names a time), fuses them by rank, and returns "
        "nothing when every candidate is weak; a task also gets the user's standing "
        "instructions, a food task or a question about what the user may eat the dietary "
        "constraints, a question about the user as a whole the user's records (or turns). A "
        "record is found by the sentence asked about; a question of several, by its parts. "
        "Each result explains why it was returned; every search is logged.",
    )
    bob = mem.session(agent_id="assistant", user_id="bob", session_id="demo-2")
    carol = mem.session(agent_id="assistant", user_id="carol", session_id="demo-carol")
    searches = [
        (alice, "alice", "How does the user like answers?"),
        (alice, "alice", "Which project database is used for staging?"),
        (alice, "alice", "Which database did Alice's team choose in September 2026?"),
        (bob, "bob", "Does the user prefer short or detailed answers?"),
        (bob, "bob", "Is Alice allergic to anything?"),
        (bob, "bob", "What is my dog called?"),
        (bob, "bob", "What do you know about me?"),
        (bob, "bob", "Plan me a cycling route around the lake."),
        (alice, "alice", "Suggest a quick snack for my afternoon break."),
        (alice, "alice", "Is there any food I can't eat?"),
        (carol, "carol", "Which cafe has oat milk, and where does my brother live?"),
        (carol, "carol", "Who am I?"),
        (alice, "alice", "What is the boiling point of tungsten?"),
    ]
    for session, user, query in searches:
        result = session.call("memory_search", {"query": query, "limit": 2})
        show_search(out, user, query, result)
    timings = result["explanation"]["timings_ms"]
    scored_by = (mem.store.search_log_payload(result["search_id"]) or {})["lexical_scored_by"]
    out.line(
        f"timings   last search: {sum(timings.values()):.0f} ms in total, query embedding "
        f"{timings['query_embedding']:.0f} ms ({mem.embedder.runtime}), lexical BM25 "
        f"{timings['lexical_candidates']:.1f} ms ({_BM25_LABEL.get(scored_by, scored_by)})",
    )
    return bob


def forget(tour: _Tour, bob: Session, ids: list[str]) -> None:
    """7. A record forgotten through the tool, then a whole user exported and erased."""
    mem, out = tour.mem, tour.out
    out.section(
        "7. Forget",
        "memory_forget makes a tombstone: content, evidence, FTS entry and vector are "
        "erased from the files, in every process's index too, with every older version "
        "of the record; the audit log keeps the id and the reason, and neither extraction "
        "nor the model will write it again unless the user says it again. A whole user can "
        "be exported, then erased, on request.",
    )
    imported = mem.store.get_records(ids)
    address = next(i for i in ids if imported[i].content.startswith("Bob's home address"))
    forgotten = bob.call("memory_forget", {"id": address, "reason": "user asked"})
    found = bob.call("memory_search", {"query": "Where does Bob live?"})["results"]
    still = any("Elm Street" in r["content"] for r in found)
    out.line(
        f"forget    {address}: {forgotten['status']}, {len(forgotten['erased'])} version(s) "
        f"erased; address found afterwards: {still}",
        forgotten=address,
        erased=forgotten["erased"],
        found_afterwards=still,
    )
    # A model that still holds the address in its context cannot write it back.
    again = bob.call(
        "memory_write",
        {
            "type": "semantic",
            "content": imported[address].content,
            "source_kind": "agent_inference",
        },
    )
    code = again.get("error", {}).get("code", again.get("action"))
    out.line(f"write     the forgotten address again: {code}", write_back=code)
    # The same fact said again inside a longer record (carol's imported turn c4): forgetting
    # one names the other as similar, found by that sentence (its passage); the caller decides.
    (fact,) = mem.import_records([{"content": BROTHER_FACT}], scope="user:carol")
    carol = mem.session(agent_id="assistant", user_id="carol", session_id="demo-carol-forget")
    forgot = carol.call("memory_forget", {"id": fact, "reason": "user asked"})
    said = mem.store.get_records(forgot["similar"])
    turns = ", ".join(str(said[i].source_ref) for i in forgot["similar"] if i in said)
    out.line(
        f"forget    {BROTHER_FACT!r}: similar -> turn {turns or 'none'} says it in one of its "
        "sentences (for the caller to decide)",
        similar=forgot["similar"],
    )
    export = tour.path.with_name("quickstart-carol.jsonl")
    export.unlink(missing_ok=True)  # the tour's own file from an earlier run
    exported = mem.export_user("carol", export)
    receipt = mem.forget_user("carol")
    gone = ", ".join(f"{table} {n}" for table, n in sorted(receipt["counts"].items()) if n)
    out.line(f"export    user carol -> {export} ({exported['records']} records)", exported=exported)
    out.line(f"forget    user carol: {gone}", receipt=receipt["counts"])


def extract_an_ended_session(tour: _Tour) -> None:
    """8. A session ended: its extraction job run here (Huey in immediate mode), stage by
    stage, and the records it wrote."""
    mem, out = tour.mem, tour.out
    out.section(
        "8. End a session: extraction as a job",
        "Session.end() persists the job in the store, then sends a Huey message. A worker "
        "(agent-memory worker) runs four leased, retryable stages: the extractor proposes "
        "memories with verbatim evidence, a separate reviewer accepts, rejects or narrows "
        "them, the validator writes survivors through the same path as memory_write, and "
        "the summary writer adds one episodic summary; the assistant's own words are kept "
        "for questions about what it said. Here Huey runs in immediate mode, "
        f"in this process, with the {backend_label(tour.config)} model backend.",
    )
    app = WorkerApp(tour.path, tour.config, immediate=True, environ=os.environ)
    app.attach(mem)
    # The host names which tools' output it trusts; none is by default (README).
    chat = mem.session(
        agent_id="assistant",
        user_id="alice",
        session_id="demo-3",
        authoritative_tools=["migration_runner"],
    )
    for role, text in EXTRACTION_CHAT:
        chat.add_turn(role, text, tool="migration_runner" if role == "tool" else None)
        out.line(f"turn      {role:<9} {text}", turn={"role": role, "content": text})
    started = time.perf_counter()
    job_id = chat.end()
    job = mem.jobs.status(job_id)
    out.line(
        f"job       {job_id} {job['status']} in {(time.perf_counter() - started) * 1000:.0f} ms",
        job=job,
    )
    for stage in job["stages"]:
        out.line(
            f"stage     {stage['stage']:<10} {stage['status']:<5} attempt "
            f"{stage['attempts']}  {stage_result(stage['output'] or {})}"
        )
        for decision in (stage["output"] or {}).get("decisions", []):
            if decision["verdict"] == "reject":
                out.line(f"            rejected {decision['content']!r}: {decision['reason']}")
    produced = mem.store.get_records(job["records"])
    for record_id in job["records"]:
        r = produced[record_id]
        detail = f"{r.type.value:<9} {r.status.value:<11} {r.source_kind.value:<15}"
        out.line(f"record    {detail} {r.content}", record=r.to_json())
        if r.review_at:
            out.line(f"            review_at {r.review_at[:10]} (from the evidence {r.evidence!r})")
        if QUALIFIED_TAG in r.tags:
            out.line("            kept as said: its other words qualify the claim; retires nothing")
        if r.evidence and opens_correction([*sentences(r.evidence)][-1]):
            out.line(f"            amended by the correction after it (evidence {r.evidence!r})")
    # The assistant's own words are kept too, read only by a question about what it said.
    result = chat.call("memory_search", {"query": ASKED_THE_ASSISTANT, "limit": 2})
    show_search(out, "alice", ASKED_THE_ASSISTANT, result)
    _a_later_session_corrects(tour)


def _a_later_session_corrects(tour: _Tour) -> None:
    """A later session's correction retires the record it changes, and a search answers with
    the correction first."""
    mem, out = tour.mem, tour.out
    chat = mem.session(agent_id="assistant", user_id="alice", session_id="demo-4")
    chat.add_turn("user", CORRECTION_TURN)
    out.line(f"turn      user      {CORRECTION_TURN}   (a later session)")
    job = mem.jobs.status(chat.end())
    for record in mem.store.get_records(job["records"]).values():
        if record.supersedes_id:
            old = mem.store.get_records([record.supersedes_id])[record.supersedes_id]
            out.line(f"corrects  {old.content!r} -> {old.status.value}", retired=old.id)
            for summary in mem.store.get_records(summaries_narrowed(mem.store, old.id)).values():
                listed = summary.content.partition(" Remembered: ")[2] or "nothing"
                line = f"summary   of {summary.session_id} now lists: {listed}"
                out.line(line, summary=summary.id)
    query = "When do we ship the billing migration?"
    result = chat.call("memory_search", {"query": query, "limit": 2})
    show_search(out, "alice", query, result)
    _a_correction_keeps_the_rest(tour)


def _a_correction_keeps_the_rest(tour: _Tour) -> None:
    """A correction retires the claim it changes; what the same sentence said about someone
    else stays, as a record of its own."""
    mem, out = tour.mem, tour.out
    for session_id, text, note in (
        ("demo-5", TWO_CLAIMS_TURN, "a session"),
        ("demo-6", MOVED_TURN, "a later session"),
    ):
        chat = mem.session(agent_id="assistant", user_id="alice", session_id=session_id)
        chat.add_turn("user", text)
        out.line(f"turn      user      {text}   ({note})")
        chat.end()  # extracted at once: the worker runs in immediate mode here
    for record_id, retired_id in kept_parts(mem.store).items():
        found = mem.store.get_records([record_id, retired_id])
        kept, retired = found[record_id], found[retired_id]
        out.line(f"corrects  {retired.content!r} -> {retired.status.value}", retired=retired.id)
        out.line(f"keeps     {kept.content!r} ({kept.status.value})", kept=kept.id)
    query = "What is my son's name?"
    result = chat.call("memory_search", {"query": query, "limit": 2})
    show_search(out, "alice", query, result)
    _a_late_session(tour)


def _a_late_session(tour: _Tour) -> None:
    """An older session extracted after a newer one (a worker's backlog): its old value
    arrives as history of the newer words, and a search answers with them."""
    mem, out = tour.mem, tour.out
    for session_id, (text, days_ago) in zip(("demo-7", "demo-8"), LATE_SESSIONS, strict=True):
        at = datetime.now(UTC) - timedelta(days=days_ago)
        chat = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=at)
        chat.add_turn("user", text, at=at)
        said = f"said {days_ago} days before it, extracted after it" if days_ago else "a session"
        out.line(f"turn      user      {text}   ({said})")
        job = mem.jobs.status(chat.end())
    for record in mem.store.get_records(job["records"]).values():
        if record.status.value == "superseded":
            out.line(f"late      {record.content!r} -> history of what was said after it")
    query = "What car do I drive?"
    show_search(out, "alice", query, chat.call("memory_search", {"query": query, "limit": 2}))
    _said_again(tour)


def _said_again(tour: _Tour) -> None:
    """What step 7 forgot, told again by the user in a later session, is theirs again."""
    chat = tour.mem.session(agent_id="assistant", user_id="bob", session_id="demo-9")
    chat.add_turn("user", SAID_AGAIN)
    tour.out.line(f"turn      user      {SAID_AGAIN}   (bob, after step 7's forget)")
    job = tour.mem.jobs.status(chat.end())
    for record in tour.mem.store.get_records(job["records"]).values():
        if record.attribute:
            line = f"again     {record.content!r} -> {record.status.value}: the user said it again"
            tour.out.line(line, record=record.id)


def integrate_a_host(tour: _Tour) -> None:
    """9. The tool definitions and policy a host registers, and auto mode's search per user
    turn."""
    mem, out = tour.mem, tour.out
    out.section(
        "9. Host integration",
        "Static tool definitions and a memory-use policy for the prompt; in auto mode the "
        "host searches once per user turn and the model gets no search tool.",
    )
    for mode in ("tool_only", "auto"):
        names = ", ".join(d["name"] for d in tool_definitions(mode))
        out.line(f"tools     {mode:<9} {names}", mode=mode, tools=names.split(", "))
    out.line(f"policy    {len(memory_policy('tool_only'))} characters, the same every turn")
    host = MemoryHost(mem, mode="auto")
    chat = host.start(Identity(agent_id="assistant", user_id="alice", session_id="s-host"))
    question = "When is the billing service deployed?"
    auto = host.user_turn(chat, question)
    shown: dict[str, Any] = auto.result if auto else {"results": [], "reason": "nothing found"}
    out.line(
        f"auto      user turn {question!r} -> host searched; the model reads "
        f"{len(json.dumps(shown))} characters: {len(shown['results'])} "
        f"result{'s' if len(shown['results']) != 1 else ''} ({shown['reason']})"
    )
    for item in shown["results"][:2]:
        out.line(f"            {item['content']}")
        out.line(f"              ({item['type']}, {item['date']}; {item['reason']})")
    host.assistant_turn(chat, "How about hummus and crackers?")
    logged_searches = mem.store.searches_in_session("s-host")
    out.line(f"          the assistant turn searched nothing: {logged_searches} search in the log")
    _mcp_tools(tour)


def _mcp_tools(tour: _Tour) -> None:
    """The same tools served over MCP: `agent-memory mcp` started over stdio by the SDK's
    client, which lists them (skipped without the mcp extra)."""
    try:
        from agent_memory.api.mcp_server.client import tool_names
    except ModuleNotFoundError:
        tour.out.line("mcp       skipped: the mcp extra is not installed (agent-memory[mcp])")
        return
    names = tool_names(tour.path, agent="assistant", user="alice")
    tour.out.line(
        f"mcp       agent-memory mcp --store {tour.path.name} --agent assistant --user alice "
        f"(stdio) lists: {', '.join(names)}",
        mcp_tools=names,
    )


def snapshot_and_stats(tour: _Tour) -> None:
    """10. A snapshot, the store's counts, and the snapshot opened read-only."""
    mem, out = tour.mem, tour.out
    out.section(
        "10. Snapshot and stats",
        "Snapshots copy the whole store consistently, "
        "for backups and for tests that start from a known state; a store on read-only "
        "media opens read-only and still answers searches.",
    )
    snapshot = tour.path.with_name("quickstart-snapshot.db")
    snapshot.unlink(missing_ok=True)
    mem.snapshot(snapshot)
    stats = mem.stats()
    out.line(f"snapshot  {snapshot} ({snapshot.stat().st_size:,} bytes)", snapshot=str(snapshot))
    by_status = ", ".join(f"{n} {s}" for s, n in stats["records_by_status"].items() if n)
    out.line(
        f"stats     {stats['records']} records ({by_status}), {stats['events']} audit "
        f"events, records_version {stats['records_version']}",
        stats=stats,
    )
    # A snapshot on read-only media still answers searches (nothing is written to it).
    with Memory.open(snapshot, mem.config, embedder=mem.embedder, read_only=True) as frozen:
        reader = frozen.session(agent_id="assistant", user_id="alice", session_id="ro")
        found = reader.call("memory_search", {"query": "What is Alice allergic to?"})
        refused = reader.call("memory_forget", {"id": found["results"][0]["id"]})
    out.line(
        f"read-only {snapshot.name}: search found '{found['results'][0]['content']}' "
        f"(logged: {found['explanation']['logged']}); memory_forget -> "
        f"{refused['error']['code']}",
        read_only={"results": len(found["results"]), "forget": refused["error"]["code"]},
    )


def next_steps(out: Printer, path: Path) -> None:
    """What to run next on the demo store; then the JSON document, if asked for."""
    out.section("Next", "")
    out.line(f"agent-memory stats --store {path}")
    out.line(f"agent-memory grants --store {path} --json")
    out.line(f"agent-memory jobs --store {path}")
    out.line("agent-memory --help")
    out.finish()

"""Stores whose sessions are extracted through the real pipeline, for the extraction tests.

A session ended in such a store runs its extraction job at once in this process (the worker
app in Huey's immediate mode, the configured backend: offline here), so a test reads the
records the product would have written, through the same stages."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import Embedder
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import Candidate, SessionView
from agent_memory.core.models import Record, SourceKind, Status, format_time
from agent_memory.core.write.evidence import Turn
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW
from tests.support.stores import granted_memory

CONFIG = Config(worker={"retry_delay_seconds": 0, "max_attempts": 3})


@contextmanager
def extracting_memory(
    path: Path, embedder: Embedder, config: Config = CONFIG, **grants: Any
) -> Iterator[Memory]:
    """A granted store (tests.support.stores.granted_memory) whose ended sessions are
    extracted at once."""
    memory = granted_memory(path, config, embedder=embedder, **grants)
    WorkerApp(memory.path, config, immediate=True).attach(memory)
    try:
        yield memory
    finally:
        memory.close()


def extracted_session(
    mem: Memory, session_id: str, *user_turns: str, days: int = 0
) -> dict[str, Any]:
    """One session of alice's turns (each answered "Okay."), two minutes apart from ``days``
    after NOW, ended and extracted; the job's status, which must be done."""
    start = NOW + timedelta(days=days)
    s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=start)
    for i, text in enumerate(user_turns):
        s.add_turn("user", text, at=start + timedelta(minutes=2 * i))
        s.add_turn("assistant", "Okay.", at=start + timedelta(minutes=2 * i + 1))
    status = mem.jobs.status(s.end(now=start + timedelta(minutes=2 * len(user_turns))))
    assert status["status"] == "done"
    return status


def proposed(*user_turns: str, shared: str = "personal") -> list[Candidate]:
    """What the offline extractor proposes for alice's ``user_turns``, said at NOW, the
    session writing to "personal" and ``shared`` (its target for shared decisions)."""
    turns = tuple(Turn(i, "user", text, format_time(NOW)) for i, text in enumerate(user_turns))
    targets = tuple(dict.fromkeys(("personal", shared)))
    view = SessionView("s", "assistant", "alice", turns, targets, shared)
    return list(OfflineBackend().extract(view).candidates)


def stated_records(mem: Memory) -> list[Record]:
    """Every record of the store but the session summaries, in the order written, history
    included: what the sessions' words gave."""
    rows = mem.store.query("SELECT id FROM records ORDER BY rowid")
    found = mem.store.get_records([row["id"] for row in rows])
    return [
        found[row["id"]]
        for row in rows
        if found[row["id"]].source_kind is not SourceKind.SESSION_SUMMARY
    ]


def status_of(mem: Memory, words: str) -> Status:
    """The status of the one record whose evidence (or content) holds ``words``."""
    [found] = [r for r in stated_records(mem) if words in (r.evidence or r.content)]
    return found.status

"""One scripted conversation, run through any driver, and the semantic records it leaves.

python -m tests.contract.equivalence DRIVER OUT.json     (used to run CrewAI in its venv)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent_memory.api.host import Identity
from agent_memory.core import HashingEmbedder, Memory
from tests.contract.drivers import CONFIG, DRIVERS, Call
from tests.support.clock import NOW

TARGETS = {"personal": "user:alice", "current_project": "project:apollo"}

CONVERSATION: list[tuple[str, list[Any]]] = [
    (
        "Please keep your answers concise. I'm vegetarian.",
        [
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user wants concise answers.",
                    "source_kind": "user_statement",
                    "attribute": "answer_style",
                    "evidence": "Please keep your answers concise.",
                },
            ),
            Call(
                "memory_write",
                {"type": "semantic", "content": "x", "source_kind": "system", "target": "user:bob"},
            ),
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user is vegetarian.",
                    "source_kind": "user_statement",
                    "attribute": "diet",
                    "evidence": "I'm vegetarian",
                    "about": [{"kind": "person", "name": "Alice"}],
                },
            ),
            "Understood.",
        ],
    ),
    (
        "Apollo's launch moved to May 12, we decided on Tuesday.",
        [
            Call(
                "memory_write",
                {
                    "type": "episodic",
                    "content": "The Apollo launch moved to May 12.",
                    "source_kind": "user_statement",
                    "evidence": "Apollo's launch moved to May 12",
                    "target": "current_project",
                    "about": [{"kind": "project", "name": "Apollo"}],
                },
            ),
            Call(
                "memory_write",
                {
                    "type": "semantic",
                    "content": "The user probably works on Apollo.",
                    "source_kind": "agent_inference",
                    "about": [{"kind": "project", "name": "Apollo"}],
                },
            ),
            Call("memory_search", {"query": "Apollo launch"}),
            "Noted the new date.",
        ],
    ),
    (
        "Actually, forget that I'm vegetarian.",
        [
            Call("memory_search", {"query": "vegetarian diet"}),
            Call("memory_forget", lambda seen: {"id": seen[0]["results"][0]["id"]}),
            "Forgotten.",
        ],
    ),
]

FIELDS = ("content", "type", "scope", "status", "source_kind", "subject")


def run(driver: str, directory: Path) -> dict[str, Any]:
    """Run the conversation with ``driver`` on a new store; return what it left behind."""
    with Memory.open(
        directory / f"{driver}.db", CONFIG, embedder=HashingEmbedder(), now=NOW
    ) as mem:
        mem.grant("assistant", "user:alice")
        mem.grant("assistant", "project:apollo", access="readwrite")
        chat = DRIVERS[driver](mem, Identity("assistant", "alice", "s-eq", TARGETS), "tool_only")
        failed = [chat.turn(text, script).failed for text, script in CONVERSATION]
        job = mem.jobs.status(chat.end())
        rows = mem.store.query(f"SELECT {', '.join(FIELDS)} FROM records ORDER BY rowid")
        return {
            "records": [dict(row) for row in rows],
            "failed": failed,
            "job": {k: job[k] for k in ("status", "session_id", "agent_id", "user_id")},
        }


if __name__ == "__main__":
    name, out = sys.argv[1], Path(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        out.write_text(json.dumps(run(name, Path(tmp)), indent=2, sort_keys=True))

"""Extraction writes through the same lifecycle as memory_write (issue 14, items 5 and 6): a
correction in the transcript supersedes what it corrects, whatever order the candidates come
in, and a live record it contradicts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_memory.core import Memory
from tests.support.clock import NOW
from tests.support.stores import granted_memory
from tests.workers.test_pipeline import CONFIG, Scripted, attach, candidate, converse

SAID = [
    ("user", "I live in Lisbon."),
    ("assistant", "Nice city."),
    ("user", "Sorry, I moved to Porto in May."),
]


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db", CONFIG) as memory:
        yield memory


def live(mem: Memory) -> set[str]:
    rows = mem.store.query(
        "SELECT content FROM records WHERE status IN ('provisional', 'confirmed') "
        "AND type = 'semantic'"
    )
    return {r["content"] for r in rows}


def test_extracting_the_corrected_sentence_after_its_correction_keeps_the_correction(
    mem: Memory,
) -> None:
    """The extractor proposes the correction first and the sentence it corrected second:
    the earlier sentence is stored as history, not as the current home."""
    attach(
        mem,
        Scripted(
            candidates=[
                candidate("The user moved to Porto.", "I moved to Porto"),
                candidate("The user lives in Lisbon.", "I live in Lisbon."),
            ]
        ),
    )
    converse(mem, SAID)
    assert live(mem) == {"The user moved to Porto."}
    [old] = mem.store.query(
        "SELECT status FROM records WHERE content = 'The user lives in Lisbon.'"
    )
    assert old["status"] == "superseded"


def test_an_extracted_correction_supersedes_a_live_record_without_an_attribute(
    mem: Memory,
) -> None:
    """A record written earlier with no attribute is superseded by the correction the next
    session's extraction finds."""
    first = mem.session(agent_id="assistant", user_id="alice", session_id="s0", now=NOW)
    first.add_turn("user", "I live in Lisbon.", at=NOW)
    written = first.call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user lives in Lisbon.",
            "source_kind": "user_statement",
            "evidence": "I live in Lisbon.",
        },
        now=NOW,
    )
    assert written["status"] == "confirmed"
    attach(mem, Scripted(candidates=[candidate("The user moved to Porto.", "I moved to Porto")]))
    converse(mem, [("user", "Actually I moved to Porto last week.")], session_id="s1")
    assert live(mem) == {"The user moved to Porto."}

"""Nothing is dropped without a trace: extraction.max_candidates keeps the user's own
statements first, and the job says how many it dropped and from which turns."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.cli import main
from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.extraction import ExtractionOutput
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import SessionView
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW

CONFIG = Config(worker={"retry_delay_seconds": 0}, extraction={"max_candidates": 4})


class Inferring(OfflineBackend):
    """A model that infers something from every assistant turn before it gets to the user's
    one statement at the end."""

    def extract(self, session: SessionView) -> ExtractionOutput:
        raw: list[dict[str, Any]] = []
        for turn in session.turns:
            own = turn.role == "user"
            raw.append(
                {
                    "kind": "fact",
                    "type": "semantic",
                    "content": "The user prefers dark mode." if own else f"Topic {turn.seq}.",
                    "evidence": turn.content,
                    "source_kind": "user_statement" if own else "agent_inference",
                }
            )
        return ExtractionOutput.model_validate({"candidates": raw})


def test_a_long_session_keeps_the_users_statement_and_reports_the_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "m.db"
    with Memory.open(store, CONFIG, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.grant("assistant", "user:alice", now=NOW)
        WorkerApp(mem.path, CONFIG, immediate=True, backend=Inferring()).attach(mem)
        s = mem.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
        for i in range(8):
            s.add_turn("assistant", f"Here is a long answer about subject {i}.", at=NOW)
        s.add_turn("user", "I prefer dark mode in every editor.", at=NOW + timedelta(seconds=9))
        job_id = s.end(now=NOW + timedelta(minutes=1))
        extract = mem.jobs.status(job_id)["stages"][0]["output"]
    kept = [c["content"] for c in extract["candidates"]]
    assert len(kept) == 4 and "The user prefers dark mode." in kept
    assert extract["dropped_over_limit"] == 5
    cut = extract["cut"]
    assert cut["dropped"] == 5 and cut["dropped_by_source_kind"] == {"agent_inference": 5}
    assert cut["dropped_turns"] == [4, 5, 6, 7, 8]
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACTION__MAX_CANDIDATES", "4")
    assert main(["jobs", job_id, "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "4 candidates, 5 cut" in out
    assert "kept 4 of 9 candidates" in out and "from turns 4, 5, 6, 7, 8" in out

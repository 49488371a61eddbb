"""agent-memory ingest and jobs: a transcript file becomes a queued or finished job."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run

TRANSCRIPT = {
    "turns": [
        {
            "role": "user",
            "content": "I'm vegetarian. My favourite colour is blue.",
            "at": "2026-11-29T12:00:00Z",
        },
        {"role": "assistant", "content": "Noted.", "at": "2026-11-29T12:00:05Z"},
        {"role": "user", "content": "I am flying to Lisbon next Friday."},
    ]
}


@pytest.fixture(autouse=True)
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline, not the embedder, is under test here."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    monkeypatch.setenv("AGENT_MEMORY_EXTRACTION__BACKEND", "offline")


def test_ingest_inline_runs_the_pipeline_and_jobs_shows_its_stages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--inline extracts in-process; `jobs JOB` prints each stage, and --json the details."""
    store = str(tmp_path / "m.db")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(TRANSCRIPT))
    assert run(capsys, "grant", "assistant", "user:alice", "--store", store)[0] == 0
    code, out, err = run(
        capsys, "ingest", str(chat), "--agent", "assistant", "--user", "alice",
        "--session", "s1", "--inline", "--store", store, "--json",
    )  # fmt: skip
    assert code == 0, err
    ingested = json.loads(out)
    assert ingested["status"] == "done" and len(ingested["records"]) == 4
    code, out, _ = run(capsys, "jobs", ingested["job_id"], "--store", store)
    assert code == 0
    for stage in ("extract", "review", "validate", "summarize"):
        assert stage in out
    assert "3 written, 0 rejected" in out
    code, out, _ = run(capsys, "jobs", ingested["job_id"], "--store", store, "--json")
    job = json.loads(out)
    assert [s["attempts"] for s in job["stages"]] == [1, 1, 1, 1]
    assert job["session_id"] == "s1" and job["user_id"] == "alice"


def test_ingest_queues_for_a_worker_and_jobs_lists_with_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --inline the job waits in the store, its message in the queue file beside it."""
    store = tmp_path / "m.db"
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(TRANSCRIPT["turns"]))  # a bare list of turns works too
    assert run(capsys, "grant", "assistant", "user:alice", "--store", str(store))[0] == 0
    code, out, err = run(
        capsys, "ingest", str(chat), "--agent", "assistant", "--user", "alice",
        "--session", "s1", "--store", str(store),
    )  # fmt: skip
    assert code == 0, err
    assert "agent-memory worker --store" in out
    assert (tmp_path / "m.db.queue.db").exists()
    code, out, _ = run(capsys, "jobs", "--store", str(store), "--status", "queued", "--json")
    [job] = json.loads(out)
    assert job["stage"] == "extract" and job["attempts"] == 0
    code, out, _ = run(capsys, "jobs", "--store", str(store), "--status", "done")
    assert out.strip() == "no jobs"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ('{"turns": []}', "at least one turn"),
        ('[{"role": "user", "text": "hi"}]', "turn 1: unknown field 'text'"),
        ('["hi"]', "turn 1: expected an object"),
        ('[{"role": "user"}]', "turn 1: content must be a string"),
        ('[{"role": "robot", "content": "hi"}]', "role must be one of"),
        ('[{"role": "user", "content": "hi", "at": "yesterday"}]', "turn 1: at must be an ISO"),
        ('[{"role": "user", "content": "hi", "at": ""}]', "turn 1: at must be an ISO"),
    ],
)
def test_a_bad_transcript_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    """Malformed files are refused with one clear line; no job is created."""
    store = str(tmp_path / "m.db")
    chat = tmp_path / "chat.json"
    chat.write_text(content)
    code, out, err = run(
        capsys, "ingest", str(chat), "--agent", "a", "--user", "u", "--session", "s1",
        "--store", store,
    )  # fmt: skip
    assert code == 2 and out == "" and err.startswith("agent-memory: error:")
    assert message in err and "Traceback" not in err
    code, out, _ = run(capsys, "jobs", "--store", store, "--json")
    assert json.loads(out) == []


def test_an_unknown_job_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`jobs JOB` for a job that does not exist is an error, not an empty answer."""
    code, _, err = run(capsys, "jobs", "job_nope", "--store", str(tmp_path / "m.db"))
    assert code == 2 and "no job" in err

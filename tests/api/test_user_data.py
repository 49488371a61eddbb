"""A user's data on request (issue 16, item 4): forget-user erases everything of one user and
answers with a receipt; export-user writes one JSON-lines file that import reads again."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.cli import main
from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.embedder import Embedder
from agent_memory.core.errors import InvalidIdentifier
from tests.support.clock import NOW

MARKER = "qz" + secrets.token_hex(12)


def populate(path: Path, embedder: Embedder) -> dict[str, Any]:
    """Alice: records in her scope and her agent's private scope, a session with a transcript,
    a search; Bob: one record, which must survive."""
    with Memory.open(path, embedder=embedder, now=NOW) as mem:
        mem.grant("assistant", "user:alice", now=NOW)
        mem.grant("assistant", "user:bob", now=NOW)
        s = mem.session(
            agent_id="assistant",
            user_id="alice",
            session_id="a1",
            now=NOW,
            write_targets={"personal": "user:alice", "private": "agent:assistant/alice"},
        )
        s.add_turn("user", f"My gym locker is {MARKER}, near the pool.", at=NOW)
        mine = s.call(
            "memory_write",
            {
                "type": "semantic",
                "content": f"The user's gym locker is {MARKER}.",
                "source_kind": "user_statement",
                "evidence": f"My gym locker is {MARKER}",
            },
            now=NOW,
        )
        private = s.call(
            "memory_write",
            {
                "type": "semantic",
                "content": "The user prefers short answers.",
                "source_kind": "agent_inference",
                "target": "private",
                "about": [{"kind": "person", "name": "Alice"}],
            },
            now=NOW,
        )
        s.call("memory_search", {"query": f"gym locker {MARKER}"}, now=NOW)
        [bobs] = mem.import_records([{"content": "Bob likes tea."}], scope="user:bob", now=NOW)
    return {"alice": [mine["id"], private["id"]], "bob": bobs}


def test_forget_user_erases_everything_of_that_user_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], real_embedder: Embedder
) -> None:
    store = tmp_path / "m.db"
    ids = populate(store, real_embedder)
    code = main(["forget-user", "alice", "--store", str(store), "--json"])
    receipt = json.loads(capsys.readouterr().out)
    assert code == 0
    assert sorted(receipt["record_ids"]) == sorted(ids["alice"])
    assert receipt["session_ids"] == ["a1"]
    counts = receipt["counts"]
    assert counts["records"] == 2 and counts["turns"] == 1 and counts["sessions"] == 1
    assert counts["search_log"] == 1 and counts["write_log"] == 2 and counts["entities"] >= 1
    for file in tmp_path.iterdir():
        assert MARKER.encode() not in file.read_bytes(), file.name
    with Memory.open(store, embedder=real_embedder, now=NOW) as mem:
        live = mem.store.query("SELECT id FROM records WHERE status != 'deleted'")
        assert [r["id"] for r in live] == [ids["bob"]]
        events = mem.store.query("SELECT payload FROM events WHERE kind = 'user.forgotten'")
        assert len(events) == 1 and MARKER not in events[0]["payload"]


def test_forget_user_with_no_data_or_a_bad_id_changes_nothing(tmp_path: Path) -> None:
    ids_file = tmp_path / "m.db"
    populate(ids_file, HashingEmbedder())
    with Memory.open(ids_file, embedder=HashingEmbedder(), now=NOW) as mem:
        before = mem.store.query("SELECT count(*) AS n FROM events")[0]["n"]
        assert mem.forget_user("carol") == {
            "user_id": "carol",
            "counts": {},
            "record_ids": [],
            "session_ids": [],
        }
        with pytest.raises(InvalidIdentifier):
            mem.forget_user("alice/../bob")
        assert mem.store.query("SELECT count(*) AS n FROM events")[0]["n"] == before


def record_of(lines: list[dict[str, Any]], marker: str) -> dict[str, Any]:
    """The exported record whose content holds ``marker``."""
    return next(
        line["record"]
        for line in lines
        if line["kind"] == "record" and marker in line["record"]["content"]
    )


def test_export_user_writes_a_documented_file_that_import_reads_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], real_embedder: Embedder
) -> None:
    store = tmp_path / "m.db"
    populate(store, real_embedder)
    out = tmp_path / "alice.jsonl"
    assert main(["export-user", "alice", "--store", str(store), "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["user_id"] == "alice"
    kinds = [line["kind"] for line in lines]
    assert kinds.count("record") == 2 and kinds.count("session") == 1 and "entity" in kinds
    record = next(line["record"] for line in lines if line["kind"] == "record")
    for field in ("id", "lineage_id", "status", "created_at", "stated_at", "evidence", "scope"):
        assert field in record
    [session] = [line for line in lines if line["kind"] == "session"]
    assert MARKER in session["turns"][0]["content"]
    assert "bob" not in out.read_text().lower()
    capsys.readouterr()
    fresh = tmp_path / "fresh.db"
    code = main(["import", str(out), "--store", str(fresh), "--json"])
    assert code == 0, capsys.readouterr().err
    imported = json.loads(capsys.readouterr().out)["scopes"]
    assert sorted(imported) == ["agent:assistant/alice", "user:alice"]
    with Memory.open(fresh, embedder=real_embedder, now=NOW) as mem:
        stated = {
            r["content"]: r["stated_at"]
            for r in mem.store.query("SELECT content, stated_at FROM records")
        }
    # restored as said when it was said (its turn's time), not when it was imported
    assert stated[f"The user's gym locker is {MARKER}."] == record_of(lines, MARKER)["stated_at"]


@pytest.mark.parametrize("target", ["store", "existing", "folder", "unwritable"])
def test_export_user_never_overwrites_a_file_and_says_why_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    target: str,
) -> None:
    """`--out` naming the store itself truncated it (the store was lost); any existing file
    was overwritten. Like snapshot, export refuses an existing path, and a path it cannot
    write is one line on stderr, exit 2; the store is untouched and no file is left."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    store = tmp_path / "m.db"
    populate(store, HashingEmbedder())
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me")
    out = {
        "store": store,
        "existing": existing,
        "folder": tmp_path,
        "unwritable": tmp_path / "missing" / "deeper" / "x.jsonl",
    }[target]
    if target == "unwritable":
        (tmp_path / "missing").write_text("a file, not a folder")
    before = store.read_bytes()
    code = main(["export-user", "alice", "--out", str(out), "--store", str(store)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.startswith("agent-memory: error:") and captured.err.count("\n") == 1
    assert store.read_bytes() == before and existing.read_text() == "keep me"
    assert (
        sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("m.db"))
        == [
            "missing",
            "notes.txt",
        ][1 - (target == "unwritable") :]
    )


@pytest.mark.parametrize(
    "line",
    [
        {"kind": "record"},
        {"kind": "record", "scope": "user:u", "record": "not an object"},
        {"kind": "record", "scope": ["user:u"], "record": {"status": "confirmed"}},
        {"kind": "record", "scope": "user:u", "record": {"status": ["confirmed"]}},
        [1, 2],
    ],
)
def test_a_malformed_line_of_an_export_file_is_one_line_error_and_imports_nothing(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    line: Any,
) -> None:
    """An export file edited by hand (or cut short) gave KeyError / AttributeError tracebacks:
    the line is named, nothing is imported."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")
    store = tmp_path / "m.db"
    header = {"kind": "header", "format": "agent-memory-user-export", "version": 1}
    good = {
        "kind": "record",
        "scope": "user:u",
        "record": {"status": "confirmed", "type": "semantic", "content": "The user likes tea."},
    }
    file = tmp_path / "u.jsonl"
    file.write_text("".join(json.dumps(x) + "\n" for x in (header, good, line)))
    code = main(["import", str(file), "--store", str(store)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "", captured.err
    assert captured.err.startswith("agent-memory: error:") and "line 3" in captured.err
    assert captured.err.count("\n") == 1
    with Memory.open(store, embedder=HashingEmbedder(), now=NOW) as mem:
        assert mem.store.query("SELECT count(*) AS n FROM records")[0]["n"] == 0

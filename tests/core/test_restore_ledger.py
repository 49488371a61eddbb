"""A restored snapshot does not resurrect erased data (issue 16, item 6): restore re-applies
the erasure ledger (ids and content digests, never content) and keeps the erasure events."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from agent_memory.api.cli import main
from agent_memory.core import Memory
from agent_memory.core.embedder import Embedder
from tests.support.clock import NOW

MARKER = "qr" + secrets.token_hex(12)


def fill(path: Path, embedder: Embedder) -> list[str]:
    with Memory.open(path, embedder=embedder, now=NOW) as mem:
        return mem.import_records(
            [
                {"content": f"The user's spare key is under {MARKER}."},
                {"content": "The user likes tea."},
            ],
            scope="user:alice",
            now=NOW,
        ) + mem.import_records([{"content": "Bob likes chess."}], scope="user:bob", now=NOW)


def test_restore_erases_again_what_was_forgotten_after_the_snapshot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], real_embedder: Embedder
) -> None:
    store = tmp_path / "m.db"
    secret, tea, bobs = fill(store, real_embedder)
    snapshot = tmp_path / "snap.db"
    with Memory.open(store, embedder=real_embedder, now=NOW) as mem:
        mem.snapshot(snapshot)
        assert mem.forget(secret, reason="user asked", now=NOW)
        assert mem.forget_user("bob", now=NOW)["record_ids"] == [bobs]
    code = main(["restore", str(snapshot), "--store", str(store), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["re_erased"] == [secret] and report["users_re_erased"] == ["bob"]
    with Memory.open(store, embedder=real_embedder, now=NOW) as mem:
        status = {r["id"]: r["status"] for r in mem.store.query("SELECT id, status FROM records")}
        events = mem.store.query(
            "SELECT record_id, payload FROM events WHERE kind = 'record.forgotten'"
        )
        ledger = mem.store.query("SELECT * FROM erasures")
    assert status[secret] == "deleted" and status[bobs] == "deleted" and status[tea] != "deleted"
    assert secret in [e["record_id"] for e in events]
    assert any(e["payload"] == '{"reason": "user asked"}' for e in events)
    assert all(MARKER not in json.dumps(dict(r)) for r in ledger)
    for file in tmp_path.iterdir():
        if file.name.startswith("m.db"):
            assert MARKER.encode() not in file.read_bytes(), file.name


def test_a_restore_with_nothing_erased_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], real_embedder: Embedder
) -> None:
    store = tmp_path / "m.db"
    fill(store, real_embedder)
    snapshot = tmp_path / "snap.db"
    with Memory.open(store, embedder=real_embedder, now=NOW) as mem:
        mem.snapshot(snapshot)
    assert main(["restore", str(snapshot), "--store", str(store)]) == 0
    assert "erased again: 0 records (none), 0 users (none)" in capsys.readouterr().out

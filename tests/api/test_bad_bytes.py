"""Bad bytes and bad files: refused with one clear line, nothing changed (issue 17 item 8)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.errors import StoreError
from tests.api.test_cli_input import assert_one_line_error, rows, run
from tests.support.clock import NOW

AGENT_MEMORY = Path(sys.executable).parent / "agent-memory"
WHO = ["--agent", "a", "--user", "u"]


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")


@pytest.mark.parametrize(
    "argv",
    [
        ["jobs", "x\udcffy"],
        ["jobs", "retry", "x\udcffy"],
        ["jobs", "--session", "x\udcffy"],
        ["jobs", "--agent", "x\udcffy"],
        ["sessions", "--agent", "x\udcffy"],
        ["sessions", "--user", "x\udcffy"],
    ],
)
def test_ids_with_bytes_that_are_not_utf8_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """A job, session, agent or user id from a non-UTF-8 shell argument reaches Python as a
    lone surrogate, which SQLite cannot take: one line naming the id, not a traceback."""
    store = str(tmp_path / "m.db")
    assert run(capsys, "grant", "a", "user:u", "--store", store)[0] == 0
    before = rows(Path(store))
    code, out, err = run(capsys, *argv, "--store", store)
    assert_one_line_error(code, out, err, "must be 1-128 characters")
    assert rows(Path(store)) == before


def test_write_said_with_bytes_that_are_not_utf8_refuses_before_it_commits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`write --said $'\\xff'` reaches Python as a lone surrogate: refused, nothing stored."""
    store = str(tmp_path / "m.db")
    assert run(capsys, "grant", "a", "user:u", "--store", store)[0] == 0
    before = rows(Path(store))
    argv = ["write", "--type", "semantic", "--content", "The user likes tea."]
    argv += ["--source-kind", "user_statement", "--said", "I like tea \udcff", *WHO]
    code, out, err = run(capsys, *argv, "--store", store)
    assert_one_line_error(code, out, err, "lone surrogate")
    assert rows(Path(store)) == before


def test_an_ingest_file_with_a_lone_surrogate_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "m.db")
    assert run(capsys, "grant", "a", "user:u", "--store", store)[0] == 0
    before = rows(Path(store))
    chat = tmp_path / "chat.json"
    chat.write_text('{"turns": [{"role": "user", "content": "hi \\ud800 there"}]}')
    code, out, err = run(capsys, "ingest", str(chat), *WHO, "--session", "s1", "--store", store)
    assert_one_line_error(code, out, err, "lone surrogate")
    assert rows(Path(store)) == before


def test_a_snapshot_to_an_unwritable_path_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = str(tmp_path / "m.db")
    assert run(capsys, "init", "--store", store)[0] == 0
    code, out, err = run(capsys, "snapshot", "/proc/no-such-dir/snap.db", "--store", store)
    assert_one_line_error(code, out, err, "cannot write the snapshot")


def test_output_piped_to_a_reader_that_went_away_ends_quietly(tmp_path: Path) -> None:
    """`agent-memory ... | head` whose reader closed: exit 0, nothing on stderr."""
    env = {**os.environ, "AGENT_MEMORY_EMBEDDER__MODEL": "hashing"}
    process = subprocess.Popen(
        [str(AGENT_MEMORY), "tools", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before the first line is written
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0 and err == ""


def test_memory_open_refuses_a_corrupt_or_foreign_file_and_leaves_it_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that is not SQLite, and another application's SQLite database, raise the
    library's StoreError and stay byte for byte as they were (no WAL, no tables added);
    initialise=True adopts the database on purpose."""
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"\x00\x01garbage" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Memory.open(corrupt, embedder=HashingEmbedder(), now=NOW)
    foreign = tmp_path / "crm.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.close()
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match=r"not an agent-memory store \(its tables: customers\)"):
        Memory.open(foreign, embedder=HashingEmbedder(), now=NOW)
    assert foreign.read_bytes() == before and not Path(f"{foreign}-wal").exists()
    code, out, err = run(capsys, "search", "tea", *WHO, "--store", str(foreign))
    assert_one_line_error(code, out, err, "not an agent-memory store")
    assert foreign.read_bytes() == before
    with Memory.open(foreign, embedder=HashingEmbedder(), now=NOW, initialise=True) as mem:
        assert mem.store.schema_version > 0
    with Memory.open(foreign, embedder=HashingEmbedder(), now=NOW) as mem:  # a store now
        assert mem.store.query("SELECT count(*) AS n FROM customers")[0]["n"] == 0


def test_a_deep_agents_tool_output_with_a_lone_surrogate_is_recorded_replaced(
    tmp_path: Path,
) -> None:
    """The turn recorder of the framework adapters stores other software's text with U+FFFD
    in place of a lone surrogate instead of aborting the run; the core refuses it as input."""
    from agent_memory.api.host import Identity, MemoryHost

    mem = Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW)
    mem.grant("a", "user:u", now=NOW)
    host = MemoryHost(mem)
    session = host.start(Identity(agent_id="a", user_id="u", session_id="s1"))
    host.tool_turn(session, "listing: caf\udce9 menu", tool="ls")
    host.assistant_turn(session, "Found the caf\ud800 menu.")
    turns = [t.content for t in session.transcript()]
    mem.close()
    assert turns == ["listing: caf\ufffd menu", "Found the caf\ufffd menu."]
    assert json.dumps(turns)

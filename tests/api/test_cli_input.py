"""Bad input to the command line (arguments, files, settings, --store) gets one clear line and
exit 2, and a refused command leaves the store as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent_memory.api.cli import build_parser, main
from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.reembed import reembed
from agent_memory.core.write.importer import import_records
from tests.support.cli import run
from tests.support.clock import NOW


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every store here uses the hashing embedder: no model to load."""
    monkeypatch.setenv("AGENT_MEMORY_EMBEDDER__MODEL", "hashing")


def rows(store: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(store) as conn:
        return {
            table: conn.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
            for table in ("sessions", "turns", "events", "records", "jobs", "grants")
        }


def assert_one_line_error(code: int, out: str, err: str, message: str) -> None:
    assert code == 2 and out == ""
    assert err.startswith("agent-memory: error:") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err


TRANSCRIPT = {"turns": [{"role": "user", "content": "I am vegetarian."}]}


def test_a_refused_ingest_changes_nothing(tmp_path: Path, capsys) -> None:
    """Ingesting a session again, even with other write targets, exits 2 and leaves the
    stored session (its write targets) and its job as they were."""
    store = tmp_path / "m.db"
    chat = tmp_path / "ok.json"
    chat.write_text(json.dumps(TRANSCRIPT))
    who = ["--agent", "a", "--user", "u", "--session", "sX", "--store", str(store)]
    assert run(capsys, "grant", "a", "user:u", "--store", str(store))[0] == 0
    code, _, err = run(capsys, "ingest", str(chat), *who)
    assert code == 0, err
    before = rows(store)
    assert json.loads(before["sessions"][0][3]) == {"personal": "user:u"}

    code, out, err = run(
        capsys, "ingest", str(chat), *who, "--write-target", "personal=project:evil"
    )
    assert_one_line_error(code, out, err, "write targets cannot change")
    code, out, err = run(capsys, "ingest", str(chat), *who)
    assert_one_line_error(code, out, err, "ingest each session once")
    assert rows(store) == before


def test_a_refused_ingest_of_a_new_session_stores_nothing(tmp_path: Path, capsys) -> None:
    """A bad write target or a session id of another principal is refused before anything
    of the session is stored."""
    store = tmp_path / "m.db"
    chat = tmp_path / "ok.json"
    chat.write_text(json.dumps(TRANSCRIPT))
    assert run(capsys, "init", "--store", str(store))[0] == 0
    before = rows(store)
    who = ["--agent", "a", "--user", "u", "--session", "s1", "--store", str(store)]
    code, out, err = run(capsys, "ingest", str(chat), *who, "--write-target", "p=team:x")
    assert_one_line_error(code, out, err, "unknown scope kind")
    assert rows(store) == before


def test_an_ingest_into_a_target_the_agent_cannot_write_is_refused(tmp_path: Path, capsys) -> None:
    """Without a write grant on a write target, extraction would reject every candidate and
    send the summary to the private scope: ingest refuses up front and stores nothing; once
    granted, the same ingest goes through."""
    store = tmp_path / "m.db"
    chat = tmp_path / "ok.json"
    chat.write_text(json.dumps(TRANSCRIPT))
    assert run(capsys, "grant", "a", "user:u", "--store", str(store))[0] == 0
    before = rows(store)
    who = ["--agent", "a", "--user", "u", "--session", "s1", "--store", str(store)]
    shared = ["--write-target", "personal=user:u", "--write-target", "team=project:apollo"]
    code, out, err = run(capsys, "ingest", str(chat), *who, *shared)
    assert_one_line_error(code, out, err, "may not write its write target(s) team (project:apollo)")
    assert rows(store) == before
    code, out, err = run(capsys, "ingest", str(chat), *who, *shared, "--json")
    assert json.loads(err)["error"]["field"] == "write_targets"
    assert json.loads(err)["error"]["code"] == "permission_denied"
    assert run(capsys, "grant", "a", "project:apollo", "--store", str(store))[0] == 0
    assert run(capsys, "ingest", str(chat), *who, *shared)[0] == 0


@pytest.mark.parametrize("value", ["0", "-1"])
@pytest.mark.parametrize("command", ["import", "reembed"])
def test_batch_size_must_be_at_least_one(command: str, value: str, capsys) -> None:
    """--batch-size below 1 (which looped forever, or imported nothing) is a usage error."""
    extra = ["x.jsonl", "--scope", "user:u"] if command == "import" else []
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([command, *extra, "--batch-size", value])
    assert info.value.code == 2
    assert "--batch-size" in capsys.readouterr().err
    assert build_parser().parse_args([command, *extra, "--batch-size", "1"]).batch_size == 1


@pytest.mark.parametrize("dataset", ["locomo", "personal", "judge"])
def test_eval_without_data_is_a_usage_error(dataset: str, capsys) -> None:
    """--data has no default (it pointed outside the repository): leaving it out exits 2 and
    says that it is required, whichever data set is asked for."""
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["eval", "--dataset", dataset])
    assert info.value.code == 2
    assert "the following arguments are required: --data" in capsys.readouterr().err


def test_import_with_batch_size_zero_exits_2_and_imports_nothing(tmp_path: Path, capsys) -> None:
    source = tmp_path / "one.jsonl"
    source.write_text('{"content": "Alice prefers tea."}\n')
    store = tmp_path / "m.db"
    with pytest.raises(SystemExit) as info:
        main(
            ["import", str(source), "--scope", "user:u", "--batch-size", "0", "--store", str(store)]
        )
    assert info.value.code == 2 and not store.exists()


@pytest.mark.parametrize("batch_size", [0, -3])
def test_the_library_refuses_a_batch_size_below_one(tmp_path: Path, batch_size: int) -> None:
    """import_records and reembed raise InvalidArgument (field batch_size), writing nothing."""
    path = tmp_path / "m.db"
    with Memory.open(path, embedder=HashingEmbedder(), now=NOW) as mem:
        with pytest.raises(InvalidArgument, match="at least 1") as info:
            import_records(mem.engine, [{"content": "tea"}], scope="user:u", batch_size=batch_size)
        assert info.value.field == "batch_size"
        assert mem.stats()["records"] == 0
    with pytest.raises(InvalidArgument, match="at least 1"):
        reembed(path, Config(), embedder=HashingEmbedder(), batch_size=batch_size, progress=False)


def test_reembed_accepts_the_hashing_model(tmp_path: Path, capsys) -> None:
    """embedder.model = "hashing" is understood by reembed, as by every other command."""
    store = tmp_path / "m.db"
    with Memory.open(store, embedder=HashingEmbedder(), now=NOW) as mem:
        mem.import_records([{"content": "tea"}, {"content": "coffee"}], scope="user:u")
    code, out, err = run(capsys, "reembed", "--store", str(store), "--json")
    assert code == 0, err
    assert json.loads(out)["reembedded"] == 2


def test_import_errors_name_the_files_line(tmp_path: Path, capsys) -> None:
    """A field error names the same 1-based file line as a JSON error would (blank lines
    counted), and nothing is imported."""
    store = tmp_path / "m.db"
    source = tmp_path / "notes.jsonl"
    source.write_text('{"content": "fine"}\n\n{"content": ""}\n')
    code, out, err = run(capsys, "import", str(source), "--scope", "user:u", "--store", str(store))
    assert_one_line_error(code, out, err, f"{source} line 3: content:")
    source.write_text('{"content": "fine", "type": "episodic"}\n\n\n{"content": "no about"}\n')
    code, out, err = run(
        capsys, "import", str(source), "--scope", "project:p", "--store", str(store)
    )
    assert_one_line_error(code, out, err, f"{source} line 4: a semantic record")
    assert rows(store)["records"] == []


def _not_utf8(tmp_path: Path) -> Path:
    path = tmp_path / "bad.bin"
    path.write_bytes(b'{"content": "caf\xe9"}\n')
    return path


def _deep(tmp_path: Path) -> Path:
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "\n")
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (lambda t: ["import", str(_not_utf8(t)), "--scope", "user:u"], "line 1: not UTF-8"),
        (lambda t: ["import", str(_deep(t)), "--scope", "user:u"], "line 1: not JSON"),
        (
            lambda t: [
                "ingest",
                str(_not_utf8(t)),
                "--agent",
                "a",
                "--user",
                "u",
                "--session",
                "s",
            ],
            "not UTF-8",
        ),
        (
            lambda t: ["ingest", str(_deep(t)), "--agent", "a", "--user", "u", "--session", "s"],
            "nested too deeply",
        ),
        (lambda t: ["stats", "--config", str(_not_utf8(t))], "not UTF-8"),
        (lambda t: ["stats", "--config", str(t)], "is a directory"),
        (lambda t: ["eval", "--data", str(t / "missing"), "--dataset", "locomo"], "not a folder"),
        (lambda t: ["eval", "--data", str(t), "--dataset", "locomo"], "locomo-dev.json"),
    ],
    ids=[
        "import-not-utf8",
        "import-deep",
        "ingest-not-utf8",
        "ingest-deep",
        "config-not-utf8",
        "config-a-folder",
        "eval-no-folder",
        "eval-no-file",
    ],
)
def test_bad_files_exit_2_with_one_line(tmp_path: Path, capsys, argv, message: str) -> None:
    store = tmp_path / "m.db"
    assert run(capsys, "init", "--store", str(store))[0] == 0
    before = rows(store)
    code, out, err = run(capsys, *argv(tmp_path), "--store", str(store))
    assert_one_line_error(code, out, err, message)
    assert rows(store) == before


@pytest.mark.parametrize("command", [["stats"], ["init"], ["reembed"], ["grants"]])
@pytest.mark.parametrize("kind", ["folder", "text file"])
def test_a_store_that_is_not_a_store_exits_2(tmp_path: Path, capsys, command, kind) -> None:
    """--store naming a folder or a file that is not SQLite is a one-line StoreError, and the
    file is left alone."""
    store = tmp_path / "store"
    if kind == "folder":
        store.mkdir()
    else:
        store.write_text("hello\n")
    code, out, err = run(capsys, *command, "--store", str(store))
    assert_one_line_error(code, out, err, str(store))
    assert store.is_dir() if kind == "folder" else store.read_text() == "hello\n"
    code, _, err = run(capsys, *command, "--store", str(store), "--json")
    assert code == 2 and json.loads(err)["error"]["type"] == "StoreError"


WRITE = ["--type", "semantic", "--source-kind", "user_statement"]


@pytest.mark.parametrize(
    "argv",
    [
        ["write", *WRITE, "--content", "", "--said", "hello there"],
        ["write", *WRITE, "--content", "The user likes tea.", "--said", "I like tea"],
        ["write", *WRITE, "--content", "x", "--target", "nowhere", "--said", "x"],
        ["get", "m" * 81],
        ["forget", "mem_missing"],
        ["search", "tea", "--since", "2026-02-01", "--until", "2026-01-01"],
        ["search", "tea", "--limit", "0"],
    ],
    ids=["empty-content", "no-grant", "unknown-target", "get-long-id", "forget", "until", "lim"],
)
def test_a_refused_tool_command_stores_nothing(tmp_path: Path, capsys, argv) -> None:
    """write, get, forget and search store no session, no --said turn and no event when the
    call is refused, whether or not the session exists already."""
    store = tmp_path / "m.db"
    assert run(capsys, "init", "--store", str(store))[0] == 0
    who = ["--agent", "a", "--user", "u1", "--store", str(store)]
    for session in ([], ["--session", "s-open"]):
        before = rows(store)
        code, out, err = run(capsys, *argv, *who, *session)
        assert code == 2 and out == "" and err.startswith("agent-memory: error:"), err
        assert rows(store) == before
        # an open session of this principal, for the second round
        if not session:
            run(capsys, "grant", "a", "user:u1", "--store", str(store))
            code, _, err = run(
                capsys, "get", "mem_x", *who, "--session", "s-open", "--write-target", "p=user:u1"
            )
            assert code == 0, err
            run(capsys, "revoke", "a", "user:u1", "--store", str(store))


def test_a_successful_write_stores_its_session_and_turn(tmp_path: Path, capsys) -> None:
    """--said's turn is stored with the session once the write succeeds, and it is the
    write's evidence."""
    store = tmp_path / "m.db"
    run(capsys, "grant", "a", "user:u1", "--store", str(store))
    code, out, err = run(
        capsys,
        "write",
        *WRITE,
        "--content",
        "The user likes tea.",
        "--said",
        "I like tea",
        "--evidence",
        "I like tea",
        "--agent",
        "a",
        "--user",
        "u1",
        "--session",
        "s1",
        "--store",
        str(store),
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["status"] == "confirmed"
    stored = rows(store)
    assert [row[0] for row in stored["sessions"]] == ["s1"]
    assert [row[3] for row in stored["turns"]] == ["I like tea"]

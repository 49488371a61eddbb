"""The agent-memory command line: every command works, explains itself, and fails cleanly."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.api.cli import build_parser, main
from tests.support.cli import run
from tests.support.outside import CONTRACT, needs_contract

README = Path(__file__).resolve().parents[2] / "README.md"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sorted(sub.choices)  # type: ignore[arg-type]


@pytest.mark.parametrize("command", commands())
def test_every_command_has_help_with_an_example(command: str, capsys) -> None:
    """`agent-memory COMMAND --help` describes the command and shows an example."""
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "example:" in out and f"agent-memory {command}" in out
    assert "--store" in out


@pytest.mark.parametrize("command", commands())
def test_every_command_is_documented_in_the_readme(command: str) -> None:
    """The README mentions each command by its full name."""
    assert f"agent-memory {command}" in README.read_text()


# The commands the design's CONTRACT.md says exist ("At least: ..."); others may be added.
CONTRACT_COMMANDS = (
    "quickstart init grant revoke grants import search get write forget ingest jobs worker "
    "stats reembed snapshot restore eval bench tools"
).split()


def test_every_command_of_the_contract_exists() -> None:
    assert set(CONTRACT_COMMANDS) <= set(commands())


@needs_contract
def test_the_contracts_command_list_is_the_one_checked_here() -> None:
    """CONTRACT_COMMANDS is the contract's list as it stands (so a command it adds is caught)."""
    listed = CONTRACT.read_text().split("At least:", 1)[1].split("Every command", 1)[0]
    assert sorted(w.split()[0] for w in re.findall(r"`([^`]+)`", listed)) == sorted(
        CONTRACT_COMMANDS
    )


def test_bench_runs_the_named_benchmark_with_the_rest_of_the_line(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """`agent-memory bench NAME ARGS` is benchmarks/bench_NAME.py ARGS in a process of its
    own; its exit code is the command's."""
    assert main(["bench", "index", "--", "--help"]) == 0
    assert "usage: bench_index.py" in capfd.readouterr().out
    assert main(["bench", "index", "--no-such-option"]) == 2
    assert "unrecognized arguments: --no-such-option" in capfd.readouterr().err


def test_bench_search_children_run_without_the_data_folder(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """bench_search's searching children are not passed --data (they read the store and the
    plan), so they must not be refused for lacking it: a child with a missing plan file gets
    as far as reading the plan."""
    monkeypatch.delenv("AGENT_MEMORY_DATA", raising=False)
    plan = tmp_path / "no-plan.json"
    child = ["--child-rerank", str(tmp_path / "no.db"), "--plan", str(plan)]
    assert main(["bench", "search", *child]) != 0
    err = capfd.readouterr().err
    assert "must name the data folder" not in err
    assert "FileNotFoundError" in err and "no-plan.json" in err


def test_provisioning_round_trip(tmp_path: Path, capsys) -> None:
    """init, grant, grants, revoke and stats work on one store, in text and JSON."""
    store = str(tmp_path / "m.db")
    code, out, _ = run(capsys, "init", "--store", store)
    assert code == 0 and "created" in out
    assert run_json(
        capsys, "grant", "planner", "user:u1", "--access", "read", "--store", store
    ) == {"agent_id": "planner", "scope": "user:u1", "access": "read"}
    run(capsys, "grant", "planner", "project:apollo", "--store", store)
    grants = run_json(capsys, "grants", "--store", store)
    assert [(g["scope"], g["access"]) for g in grants] == [
        ("project:apollo", "readwrite"),
        ("user:u1", "read"),
    ]
    code, out, _ = run(capsys, "grants", "--store", store)
    assert "project:apollo" in out and "readwrite" in out
    assert run_json(capsys, "revoke", "planner", "user:u1", "--store", store)["revoked"] is True
    stats = run_json(capsys, "stats", "--store", store)
    assert stats["grants"] == 1 and stats["records"] == 0
    code, out, _ = run(capsys, "stats", "--store", store)
    assert "schema version" in out


def test_import_snapshot_restore(tmp_path: Path, capsys) -> None:
    """Records imported from JSON lines survive a snapshot and come back on restore."""
    store = str(tmp_path / "m.db")
    source = tmp_path / "notes.jsonl"
    source.write_text(
        '{"content": "Alice prefers tea.", "source_ref": "crm:1"}\n\n'
        '{"content": "Deploys are on Tuesdays.", "tags": ["ops"]}\n'
    )
    result = run_json(capsys, "import", str(source), "--scope", "user:alice", "--store", store)
    assert len(result["ids"]) == 2
    snapshot = str(tmp_path / "snap.db")
    run_json(capsys, "snapshot", snapshot, "--store", store)
    again = run_json(capsys, "import", str(source), "--scope", "user:alice", "--store", store)
    assert (again["created"], again["already_stored"]) == (0, 2)  # an import converges
    source.write_text('{"content": "Alice moved to Lisbon.", "source_ref": "crm:2"}\n')
    run_json(capsys, "import", str(source), "--scope", "user:alice", "--store", store)
    assert run_json(capsys, "stats", "--store", store)["records"] == 3
    restored = run_json(capsys, "restore", snapshot, "--store", store)
    assert restored["records"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["grant", "planner", "agent:planner/u1"], "private"),
        (["grant", "plan/ner", "user:u1"], "'/'"),
        (["grant", "planner", "team:x"], "unknown scope kind"),
        (["revoke", "planner", "user"], "scope must look like"),
        (["restore", "/nonexistent/snap.db"], "does not exist"),
        (["import", "/nonexistent/x.jsonl", "--scope", "user:u1"], "cannot read"),
    ],
)
def test_errors_exit_2_with_one_clear_line(
    tmp_path: Path, capsys, argv: list[str], message: str
) -> None:
    """Bad input prints 'agent-memory: error: ...' (no traceback) and exits 2."""
    code, out, err = run(capsys, *argv, "--store", str(tmp_path / "m.db"))
    assert code == 2 and out == ""
    assert err.startswith("agent-memory: error:") and message in err
    assert "Traceback" not in err


def test_errors_are_json_with_json(tmp_path: Path, capsys) -> None:
    """With --json an error is a JSON object carrying the structured code and field."""
    code, _, err = run(
        capsys, "grant", "planner", "team:x", "--store", str(tmp_path / "m.db"), "--json"
    )
    assert code == 2
    error = json.loads(err)["error"]
    assert error["code"] == "invalid_identifier" and error["field"] == "scope"


def test_a_bad_jsonl_line_names_its_line_and_writes_nothing(tmp_path: Path, capsys) -> None:
    """Import reports the first malformed line and leaves the store empty."""
    store = str(tmp_path / "m.db")
    source = tmp_path / "bad.jsonl"
    source.write_text('{"content": "fine"}\n{"content": \n')
    code, _, err = run(capsys, "import", str(source), "--scope", "user:u1", "--store", store)
    assert code == 2 and "line 2" in err
    assert not Path(store).exists()  # refused before the store was made


WHO = ["--agent", "planner", "--user", "u1"]


@pytest.mark.parametrize(
    "command",
    [
        ["search", "hello", *WHO],
        ["get", "mem_x", *WHO],
        ["stats"],
        ["export-user", "u1", "--out"],
        ["sessions"],
        ["grants"],
    ],
)
def test_a_command_that_reads_refuses_a_store_that_is_not_there(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: list[str]
) -> None:
    """Before: a mistyped path made a new, empty store and the search answered "nothing"."""
    store = tmp_path / "typo" / "m.db"
    if command[-1] == "--out":
        command = [*command, str(tmp_path / "u1.jsonl")]
    code, out, err = run(capsys, *command, "--store", str(store))
    assert code == 2
    assert "no store at" in err and "Traceback" not in err + out
    assert not store.exists() and not store.parent.exists()


def test_a_command_that_reads_refuses_an_empty_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Before: stats made an empty file into a new store and answered with no records."""
    store = tmp_path / "z.db"
    store.touch()
    code, _, err = run(capsys, "stats", "--store", str(store))
    assert code == 2 and "no store at" in err
    assert store.stat().st_size == 0


def test_config_lists_every_setting_and_honours_variables(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """`agent-memory config --json` shows each setting's value, default, help and variable."""
    monkeypatch.setenv("AGENT_MEMORY_RERANKER__ENABLED", "true")
    rows = run_json(capsys, "config")
    by_name = {r["name"]: r for r in rows}
    assert by_name["reranker.enabled"]["value"] is True
    assert by_name["reranker.enabled"]["default"] is False
    assert by_name["reranker.enabled"]["env"] == "AGENT_MEMORY_RERANKER__ENABLED"
    monkeypatch.setenv("AGENT_MEMORY_RERANKER__ENABLD", "true")
    code, _, err = run(capsys, "config")
    assert code == 2 and "AGENT_MEMORY_RERANKER__ENABLD" in err


def test_the_store_defaults_to_the_environment_variable(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    """Without --store, AGENT_MEMORY_STORE names the store."""
    store = tmp_path / "from-env.db"
    monkeypatch.setenv("AGENT_MEMORY_STORE", str(store))
    assert run_json(capsys, "init")["store"] == str(store)
    assert store.exists()


@pytest.mark.slow
def test_quickstart_runs_end_to_end_as_a_console_script(tmp_path: Path) -> None:
    """The installed `agent-memory quickstart` runs on the packaged model and shows each step."""
    exe = Path(sys.executable).with_name("agent-memory")
    # The offline backend, whatever the developer's shell holds (an ANTHROPIC_API_KEY would
    # otherwise make the tour call the real API).
    env = {**os.environ, "AGENT_MEMORY_EXTRACTION__BACKEND": "offline"}
    # What an earlier run left behind: the tour makes its files afresh.
    earlier = tmp_path / "agent-memory"
    earlier.mkdir()
    for name in ("quickstart.db", "quickstart-carol.jsonl", "quickstart-snapshot.db"):
        (earlier / name).write_bytes(b"from an earlier run")
    result = subprocess.run(
        [str(exe), "quickstart"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for step in (
        "Open a store",
        "Provision access",
        "Load the embedder",
        "Import records",
        "Forget",
        "End a session: extraction as a job",
        "Host integration",
        "Snapshot",
        "The HTTP API",
    ):
        assert step in out
    assert "address found afterwards: False" in out
    assert "write     the forgotten address again: forgotten" in out  # the model cannot
    # ... but the user may: bob tells it again in a later session, and it is extracted.
    said_again = 'again     "The user\'s home address is 12 Elm Street." -> confirmed'
    assert f"{said_again}: the user said it again" in out
    # An older session extracted after a newer one: its old value arrives as history.
    assert "late      'The user drives a 2015 Mazda 3.' -> history of what was said after it" in out
    car = out.split("'What car do I drive?'")[1].split("\n\n")[0]
    assert "Subaru Outback" in car and "The user drives a 2015 Mazda 3." not in car
    # A fact said again in a sentence of a longer record: forget names it as similar.
    assert "similar -> turn c4 says it in one of its sentences" in out
    # A record naming what the question asks about answers it in a small store, alone.
    dog = out.split("'What is my dog called?'")[1].splitlines()
    assert "Rusty, our kelpie" in dog[1] and "naming what the query asks about" in dog[2]
    assert "search    as assistant" in dog[3]
    # A question about the user as a whole gets the user's own records.
    profile = out.split("'What do you know about me?'")[1].splitlines()
    assert "user:bob" in profile[1] and "one of the user's own records" in profile[2]
    # Carol has nothing but an imported conversation: her answer is the turns she said.
    turns = out.split("for carol: 'Who am I?'")[1].splitlines()
    assert "user:carol      user: " in turns[1] and "one of the user's own records" in turns[2]
    # A task gets the user's standing instruction, however far its words are from it.
    task = out.split("'Plan me a cycling route around the lake.'")[1].splitlines()
    assert "Please always give me distances in kilometres." in task[1]
    assert "a standing instruction of the user's, for a task" in task[2]
    # A food task gets the user's dietary constraint.
    food = out.split("'Suggest a quick snack for my afternoon break.'")[1].splitlines()
    assert "Alice is allergic to peanuts." in food[1]
    assert "a dietary constraint the user stated, for a food task or question" in food[2]
    # So does a question about what she may eat, the constraints first.
    asked = out.split('"Is there any food I can\'t eat?"')[1].splitlines()
    assert {"The user is vegetarian.", "Alice is allergic to peanuts."} <= {
        line.split("user:alice")[1].strip() for line in asked[1:5:2]
    }
    assert re.search(r"forget    user carol: [^\n]*records 4\b", out)  # the imported conversation
    # A question of two is searched as its parts, one answer each; the second part finds a
    # long turn by the one sentence it asks about (its passage).
    both = out.split("and where does my brother live?'")[1].splitlines()
    assert "asked as 2: Which cafe has oat milk | where does my brother live?" in both[1]
    assert "user: Lantern, they have oat milk." in both[2]
    assert "user: Thanks, booked" in both[4] and "found by dense #1 (a passage)" in both[5]
    # Either of Alice's two allergies answers "What is Alice allergic to?"; the snapshot must
    # answer from what it holds, and log nothing.
    assert re.search(
        r"search found '[^']*allergic to (shellfish|peanuts)\.' \(logged: False\)", out
    )
    assert "memory_forget -> read_only" in out  # the read-only snapshot refuses writes
    decided = out.split("choose in September 2026?")[1].split("search ")[0].splitlines()
    assert "time cue 'september 2026': event time 2026-09-01 to 2026-09-30" in decided[1]
    assert "chose SQLite" in decided[2] and "time #1" in decided[3]  # the first result
    assert "stage     summarize  done" in out and "session_summary" in out
    # The assistant's own words are kept, and a question about what it said finds them.
    reminded = out.split("which tram did you recommend in Lisbon?'")[1].splitlines()
    assert "agent:assistant/alice assistant: Noted. For Lisbon, take tram 28" in reminded[1]
    assert "rejected 'The user is the account owner.'" in out
    extracted = out.split("stage     extract")[1].split("9. Host integration")[0]
    assert "admin" not in extracted  # the injected turn produced no record
    # A clause no rule phrased, opening a sentence a rule phrased, is kept in the user's words.
    assert "The user is allergic to shellfish." in extracted
    assert "semantic  confirmed   user_statement  The user's name is Alice." in extracted
    assert "user_statement  I carry an EpiPen everywhere\n" in extracted
    # A sentence whose other words qualify its claim is kept as said, and retires nothing.
    assert "My favourite editor is Helix, mostly for Rust.\n               kept as said" in out
    # A wish right after a claim takes it back: nothing of the sailboat is stored.
    assert "sailboat" not in extracted
    # A claim with a condition after it is kept as said, condition and all; it retires nothing.
    assert "in March, if my knee holds up.\n               kept as said" in out
    # A self-correction in the turn amends its sentence: the day over the day, not the name.
    assert (
        "The team retro is on Thursday at Dana's\n               amended by the correction" in out
    )
    # A later session's correction retires the plan it changes and answers first.
    assert "corrects  'We decided to ship the billing migration on Friday.' -> superseded" in out
    # The earlier session's summary no longer lists the retired plan, and keeps the rest.
    listed = out.split("summary   of demo-3 now lists: ")[1].splitlines()[0]
    assert "ship the billing" not in listed and "flying to Lisbon next week" in listed
    shipped = extracted.split("When do we ship the billing migration?'")[1].splitlines()
    assert "billing migration moved to Tuesday" in shipped[1]
    # The retired plan's turn no longer finds its other record through the plan's words.
    assert not any("Lisbon" in line for line in shipped[:5])
    # A correction of one claim keeps what the same sentence said about someone else.
    assert "keeps     'our son Leo was born in May and he hates naps' (confirmed)" in out
    son = out.split('"What is my son\'s name?"')[1].splitlines()
    assert "our son Leo was born in May" in son[1]
    assert "auto      memory_forget, memory_get, memory_revise, memory_write\n" in out
    auto = out.split("host searched; the model reads ")[1].splitlines()
    assert re.match(r"\d+ characters: \d+ results?", auto[0]), auto[0]  # compact, not empty
    assert "over the" in auto[2]  # each result's one-line reason
    assert "the assistant turn searched nothing: 1 search in the log" in out
    # The MCP server, started over stdio by the SDK's client, lists the same tools.
    assert "(stdio) lists: memory_forget, memory_get, memory_revise, memory_search, " in out
    # One search over a real socket, served by the HTTP API in-process.
    assert re.search(r"-> \d+ result\(s\) in \d+ ms: [^\n]*allergic to", out)
    assert "Traceback" not in result.stderr
    assert (tmp_path / "agent-memory" / "quickstart.db").exists()


def test_write_get_forget_go_through_the_tools(tmp_path: Path, capsys) -> None:
    """write, get and forget run the model's tools with identity from the flags."""
    store = str(tmp_path / "m.db")
    who = ["--agent", "planner", "--user", "u1", "--store", store]
    run(capsys, "grant", "planner", "user:u1", "--store", store)
    written = run_json(
        capsys,
        "write",
        *who,
        "--type",
        "semantic",
        "--source-kind",
        "user_statement",
        "--content",
        "The user prefers concise answers.",
        "--attribute",
        "answer_style",
        "--said",
        "Please keep answers concise.",
        "--evidence",
        "keep answers concise",
        "--tag",
        "style",
    )
    assert (written["action"], written["status"]) == ("created", "confirmed")
    got = run_json(capsys, "get", written["id"], "missing-id", *who)
    assert [r["id"] for r in got["records"]] == [written["id"]]
    assert got["records"][0]["tags"] == ["style"] and got["missing"] == ["missing-id"]
    code, out, _ = run(capsys, "get", written["id"], *who)
    assert code == 0 and "The user prefers concise answers." in out
    assert run_json(capsys, "forget", written["id"], *who, "--reason", "asked") == {
        "id": written["id"],
        "status": "deleted",
        "erased": [written["id"]],
    }
    assert run_json(capsys, "get", written["id"], *who)["missing"] == [written["id"]]


def test_tool_errors_from_the_cli_exit_2(tmp_path: Path, capsys) -> None:
    """A write the agent may not make prints the tool's message and exits 2."""
    store = str(tmp_path / "m.db")
    code, out, err = run(
        capsys,
        "write",
        "--agent",
        "planner",
        "--user",
        "u1",
        "--store",
        store,
        "--type",
        "semantic",
        "--source-kind",
        "agent_inference",
        "--content",
        "x y z",
    )
    assert code == 2 and out == ""
    assert "may not write the 'personal' target" in err
    code, _, err = run(
        capsys,
        "write",
        "--agent",
        "planner",
        "--user",
        "u1",
        "--store",
        store,
        "--type",
        "semantic",
        "--source-kind",
        "agent_inference",
        "--content",
        "x y z",
        "--about",
        "nonsense",
    )
    assert code == 2 and "KIND:NAME" in err


def test_search_prints_results_with_reasons_or_why_nothing(tmp_path: Path, capsys) -> None:
    """`agent-memory search` runs memory_search for the given agent and user."""
    store = str(tmp_path / "m.db")
    who = ["--agent", "planner", "--user", "u1", "--store", store]
    run(capsys, "grant", "planner", "user:u1", "--store", store)
    source = tmp_path / "notes.jsonl"
    source.write_text('{"content": "The user is allergic to peanuts."}\n')
    run_json(capsys, "import", str(source), "--scope", "user:u1", "--store", store)
    found = run_json(capsys, "search", "peanut allergy", *who)
    assert [r["content"] for r in found["results"]] == ["The user is allergic to peanuts."]
    code, out, _ = run(capsys, "search", "peanut allergy", *who)
    assert code == 0 and "allergic to peanuts" in out and "floor" in out
    code, out, _ = run(capsys, "search", "boiling point of tungsten", *who)
    assert code == 0 and out.startswith("nothing:")

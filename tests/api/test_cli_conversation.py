"""`agent-memory import-conversation`: JSON or JSON lines in, ids in order out, and a bad
file refused with a one-line error that names the turn, leaving the store empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.core import Memory
from tests.support.cli import run

TURNS = [
    {"id": "t1", "role": "user", "text": "My sister Jess is getting married.", "at": "2026-02-24"},
    {"id": "t2", "role": "assistant", "text": "Congratulations to her!", "at": "2026-02-24"},
]


@pytest.mark.parametrize("form", ["json", "jsonl"])
def test_a_conversation_file_is_imported_a_record_per_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    store = tmp_path / "m.db"
    source = tmp_path / f"chat.{form}"
    if form == "json":
        source.write_text(json.dumps({"turns": TURNS}))
    else:
        source.write_text("\n".join(json.dumps(t) for t in TURNS) + "\n")
    code, out, err = run(
        capsys, "import-conversation", str(source), "--scope", "user:dana",
        "--session", "s1", "--store", str(store), "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["scope"] == "user:dana" and len(result["ids"]) == 2
    with Memory.open(store) as mem:
        records = mem.store.get_records(result["ids"])
        assert [records[i].source_ref for i in result["ids"]] == ["t1", "t2"]
        assert records[result["ids"][1]].context is not None
        assert "Jess" in (records[result["ids"][1]].context or "")


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        ([TURNS[0], TURNS[0]], "chat.json", "chat.json turn 2: id repeats the id of turn 0"),
        ([TURNS[0] | {"role": "bot"}], "chat.json", "chat.json turn 1: role"),
        ({"lines": []}, "chat.json", "must hold a list of turns"),
        ([], "chat.json", "holds no turns"),
        ("{not json", "chat.json", "is not JSON"),
        (json.dumps(TURNS[0]) + "\n{oops\n", "chat.jsonl", "chat.jsonl line 2: not JSON"),
        (json.dumps(TURNS[0] | {"at": "soon"}), "chat.jsonl", "chat.jsonl line 1: at"),
    ],
)
def test_a_bad_file_is_refused_and_nothing_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, name: str, message: str
) -> None:
    store = tmp_path / "m.db"
    source = tmp_path / name
    source.write_text(content if isinstance(content, str) else json.dumps(content))
    code, out, err = run(
        capsys, "import-conversation", str(source), "--scope", "user:dana", "--store", str(store)
    )
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert "married" not in err  # no turn text in errors
    with Memory.open(store) as mem:
        assert mem.stats()["records"] == 0

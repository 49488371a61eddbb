"""`agent-memory eval --dataset judge`: the evidence judge on labelled pairs, both directions,
on the judge itself and through memory_write on a real temporary store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.api.cli import main
from agent_memory.api.evaluation.judge import category

PAIRS = [
    {"id": "p1", "quote": "I'm a nurse.", "content": "The user is a nurse.", "label": True},
    {
        "id": "p2",
        "quote": "My boss is Ana Lima.",
        "content": "The user's manager is Ana Lima.",
        "label": True,
    },
    {
        "id": "p3",
        "quote": "My sister is a nurse.",
        "content": "The user is a nurse.",
        "label": False,
    },
    {
        "id": "p4",
        "quote": "Should I become a nurse?",
        "content": "The user is a nurse.",
        "label": False,
    },
]


def _write_pairs(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_eval_judge_prints_the_figures_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write_pairs(tmp_path / "pairs.jsonl", PAIRS)
    out = tmp_path / "report.json"
    code = main(["eval", "--dataset", "judge", "--data", str(data), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert "precision 1.000  recall 1.000" in printed
    assert "confusion: tp 2  fp 0  fn 0  tn 2" in printed
    assert "through memory_write: 2 of 2 true pairs confirmed, 0 of 2 false ones" in printed
    report = json.loads(out.read_text())
    assert report["judge_scores"]["confusion"] == {"tp": 2, "fp": 0, "fn": 0, "tn": 2}
    assert report["memory_write"]["true_confirmed"] == 2
    assert report["memory_write"]["false_confirmed"] == 0
    assert report["judge_scores"]["ms_per_pair"]["p50"] >= 0
    assert {row["category"] for row in report["judge_scores"]["pairs"]} <= set(
        report["judge_scores"]["by_category"]
    )


def test_eval_judge_reads_a_folder_holding_the_dev_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_pairs(tmp_path / "judge-pairs-dev.jsonl", PAIRS[:2])
    assert main(["eval", "--dataset", "judge", "--data", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"] == 2 and report["judge_scores"]["recall"] == 1.0


@pytest.mark.parametrize(
    "text",
    ['{"id": "x", "quote": "I am", "content": "c"}\n', "not json\n", ""],
)
def test_eval_judge_refuses_a_bad_file_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(text)
    code = main(["eval", "--dataset", "judge", "--data", str(data)])
    captured = capsys.readouterr()
    assert code != 0
    assert "Traceback" not in captured.out + captured.err
    assert "judge pair" in captured.err


def test_categories_come_from_general_features() -> None:
    assert category("Should I go keto?", "The user is keto.") == "question"
    assert category("My mum says I'm stubborn.", "The user is stubborn.") == "reported"
    assert category("I might move.", "The user is moving.") == "hedge"
    assert category("I don't eat meat.", "The user does not eat meat.") == "negation"
    assert category("I have 3 kids.", "The user has 3 children.") == "number"
    assert category("We adopted a dog.", "The user has a dog.") == "we"
    assert category("Please be brief.", "The user wants brief answers.") == "request"
    assert category("I was in Porto.", "The user was in Porto.") == "past"
    assert category("I like tea.", "The user likes tea.") == "plain"

"""The personal-memory evaluation: a tiny hand-written file, two personas, every path, and
figures checked against the data set README's scoring rule applied to what search returned."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_memory.api.cli import main
from agent_memory.api.evaluation import personal, personas
from agent_memory.api.evaluation.calibrate import final_ids
from agent_memory.api.evaluation.metrics import personal_metrics
from agent_memory.api.evaluation.person import third_person
from agent_memory.api.evaluation.personal import fold
from agent_memory.api.evaluation.personas import Answer, Question
from agent_memory.core import Config, Memory

AT = "2026-04-01T10:00:00Z"


def turn(tid: str, role: str, text: str) -> dict[str, str]:
    return {"id": tid, "role": role, "text": text}


def question(qid: str, text: str, kind: str, evidence=(), stale=()) -> dict[str, Any]:
    return {
        "id": qid,
        "asked_at": AT,
        "question": text,
        "kind": kind,
        "evidence": list(evidence),
        "answer": None,
        "stale": list(stale),
    }


DATA = {
    "version": 1,
    "personas": [
        {
            "id": "P1",
            "user_name": "Dana",
            "sessions": [
                {
                    "id": "P1-s1",
                    "started_at": "2026-02-03T18:20:00Z",
                    "turns": [
                        turn("P1-s1-t1", "user", "My favourite colour is teal."),
                        turn("P1-s1-t2", "assistant", "Teal is a lovely colour."),
                        turn("P1-s1-t3", "user", "I work as a nurse at Mercy Hospital."),
                        turn("P1-s1-t4", "assistant", "That sounds demanding."),
                    ],
                },
                {
                    "id": "P1-s2",
                    "started_at": "2026-03-10T09:00:00Z",
                    "turns": [
                        turn("P1-s2-t1", "user", "My favourite colour is orange these days."),
                        turn("P1-s2-t2", "assistant", "Orange it is."),
                    ],
                },
            ],
            "questions": [
                question("P1-q1", "Where do I work as a nurse?", "direct", ["P1-s1-t3"]),
                question(
                    "P1-q2", "What is my favourite colour?", "update", ["P1-s2-t1"], ["P1-s1-t1"]
                ),
                question("P1-q3", "What is the boiling point of tungsten?", "unanswerable"),
            ],
        },
        {
            "id": "P2",
            "user_name": "Omar",
            "sessions": [
                {
                    "id": "P2-s1",
                    "started_at": "2026-01-05T20:00:00Z",
                    "turns": [
                        turn("P2-s1-t1", "user", "I am allergic to peanuts."),
                        turn("P2-s1-t2", "assistant", "Good to know, I will keep that in mind."),
                    ],
                },
            ],
            "questions": [
                question("P2-q1", "Am I allergic to peanuts?", "paraphrase", ["P2-s1-t1"]),
                question("P2-q2", "How do I configure a BGP route reflector?", "unanswerable_near"),
            ],
        },
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    folder = tmp_path_factory.mktemp("personal")
    (folder / "personal-memory-dev.json").write_text(json.dumps(DATA))
    stores = folder / "stores"
    report = personal.run(
        data=folder, config=Config(), store_dir=stores, progress=False, calibrate=True
    )
    return report, stores


def by_readme(
    stores: Path, path: str, asked_as: Callable[[str], str] = lambda text: text
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each question (worded by ``asked_as``) with the first five results of the same search,
    asked again in the store the eval built."""
    asked = []
    for persona in DATA["personas"]:
        with Memory.open(stores / f"{persona['id']}-{path}.db") as mem:
            session = mem.session(agent_id="assistant", user_id=persona["id"], session_id="x")
            for q in persona["questions"]:
                query = asked_as(q["question"])
                result = session.call("memory_search", {"query": query}, now=None)
                asked.append((q | {"turns": _texts(persona)}, result["results"][:5]))
    return asked


def _texts(persona: dict[str, Any]) -> dict[str, str]:
    return {t["id"]: t["text"] for s in persona["sessions"] for t in s["turns"]}


def _matched(q: dict[str, Any], result: dict[str, Any], path: str) -> set[str]:
    """The README's rule, written out plainly."""
    labelled = set(q["evidence"]) | set(q["stale"])
    if path == "turns":
        return {result["source_ref"]} & labelled
    quote = " ".join("".join(c if c.isalnum() else " " for c in result["evidence"] or "").split())
    quote = quote.lower()
    if len(quote) < 8:
        return set()
    return {t for t in labelled if quote in fold(q["turns"][t])}


@pytest.mark.parametrize("path", ["extracted", "turns"])
def test_reported_figures_follow_the_readme_rule_on_what_search_returned(
    run: tuple[dict[str, Any], Path], path: str
) -> None:
    report, stores = run
    figures = report[path]
    answerable = [(q, r) for q, r in by_readme(stores, path) if not q["kind"].startswith("un")]
    hits = [any(_matched(q, x, path) & set(q["evidence"]) for x in r) for q, r in answerable]
    empty = [not r for _, r in answerable]
    assert figures["answerable"]["n"] == 3
    assert figures["answerable"]["hit@5"] == pytest.approx(sum(hits) / 3, abs=1e-4)
    assert figures["answerable"]["empty"] == pytest.approx(sum(empty) / 3, abs=1e-4)
    assert figures["by_kind"]["update"]["n"] == 1 and figures["questions"] == 5


@pytest.mark.parametrize("path", ["extracted", "turns"])
def test_the_questions_asked_about_the_user_are_scored_alike(
    run: tuple[dict[str, Any], Path], path: str
) -> None:
    """Every question is asked a second time as an agent asks it ("Where does the user work
    as a nurse?"), on the same stores, and scored by the same rule."""
    report, stores = run
    figures = report[path]["third_person"]
    answerable = [
        (q, r)
        for q, r in by_readme(stores, path, asked_as=third_person)
        if not q["kind"].startswith("un")
    ]
    hits = [any(_matched(q, x, path) & set(q["evidence"]) for x in r) for q, r in answerable]
    assert figures["answerable"]["n"] == 3 and figures["questions"] == 5
    assert figures["answerable"]["hit@5"] == pytest.approx(sum(hits) / 3, abs=1e-4)
    assert "by_kind" not in figures
    assert 'asked about "the user": hit@5' in personal.summary(report)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Where do I live?", "Where does the user live?"),
        ("How old am I?", "How old is the user?"),
        ("What car do we drive?", "What car does the user drive?"),
        ("What's my dog's name?", "What's the user's dog's name?"),
        ("Suggest a dinner I can cook.", "Suggest a dinner the user can cook."),
        ("I'm bored, what should I read?", "the user is bored, what should the user read?"),
    ],
)
def test_a_question_asked_about_the_user(question: str, asked: str) -> None:
    assert third_person(question) == asked


def test_counts_that_do_not_depend_on_ranking(run: tuple[dict[str, Any], Path]) -> None:
    """The turns path stores every turn (8 turns, 2 personas); the superseded colour is never
    shown on the extracted path; off-topic questions in a tiny store come back empty."""
    report, _ = run
    assert report["personas"] == 2
    assert report["turns"]["records_per_persona"] == 4.0
    assert report["extracted"]["update_stale_shown"] == 0.0
    assert report["extracted"]["update_stale_restated"] == 0.0
    assert report["extracted"]["update_current_first"] == 1.0
    for path in ("extracted", "turns"):
        assert report[path]["unanswerable_empty"] == 1.0
        assert report[path]["unanswerable_near_empty"] == 1.0
        assert report[path]["result_chars"] > report[path]["content_chars"]
        assert report[path]["result_chars"] < report[path]["full_result_chars"]


@pytest.mark.parametrize("path", ["extracted", "turns"])
def test_the_calibration_replays_each_logged_search_as_it_answered(
    run: tuple[dict[str, Any], Path], path: str
) -> None:
    """Under the configured gate the calibration's replay of each logged search returns what
    the search returned (the sweep's other rows differ only by the small-store drop), and the
    sweep reports a choice made on the first persona and measured on the second."""
    report, stores = run
    for persona in DATA["personas"]:
        with Memory.open(stores / f"{persona['id']}-{path}.db") as mem:
            rows = mem.store.query("SELECT payload FROM search_log")
            assert rows
            for row in rows:
                payload = json.loads(row["payload"])
                assert final_ids(payload, Config().gate) == payload["final_ids"]
    calibration = report["calibration"]
    assert calibration["configured"] == Config().gate.small_store_drop
    assert calibration["chosen"] in calibration["sweep"]
    assert {f"{path}/choose", f"{path}/report"} <= set(calibration["chosen"])


def _answer(kind: str, matches: list[set[str]], evidence=(), stale=()) -> Answer:
    q = Question("q", "?", kind, None, tuple(evidence), tuple(stale))  # type: ignore[arg-type]
    return Answer(q, tuple(frozenset(m) for m in matches), 100, 400, 10)


def test_update_ordering_recall_and_empty_rates() -> None:
    """Current first only when a current match ranks above every stale one within the
    first five; stale shown counts any stale match; recall is the share of evidence."""
    answers = [
        _answer("update", [{"new"}, {"old"}], ["new"], ["old"]),  # right, stale shown
        _answer("update", [{"old"}, {"new"}], ["new"], ["old"]),  # wrong
        _answer("update", [set()] * 5 + [{"new"}], ["new"], ["old"]),  # past the fifth
        _answer("multi", [{"a"}], ["a", "b"]),
        _answer("unanswerable", []),
        _answer("unanswerable_near", [set()]),
    ]
    m = personal_metrics(answers)
    assert m["update_current_first"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["update_stale_shown"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["by_kind"]["multi"]["recall@5"] == 0.5 and m["by_kind"]["multi"]["hit@5"] == 1.0
    assert m["unanswerable_empty"] == 1.0 and m["unanswerable_near_empty"] == 0.0
    assert (
        m["answerable"]["n"] == 4 and m["answerable"]["hit@5"] == 0.75
    )  # the 2nd update still holds the current value


def test_a_summary_restating_a_stale_record_counts_apart_from_stale_shown() -> None:
    """A summary matches no turn, so "stale shown" cannot see it; "stale restated" counts an
    update whose results hold a summary restating a record of a stale turn."""
    q = Question("q", "?", "update", None, ("new",), ("old",))  # type: ignore[arg-type]
    restating = Answer(
        q,
        (frozenset({"new"}), frozenset()),
        100,
        400,
        10,
        restated=(frozenset(), frozenset({"old"})),
    )
    current = Answer(
        q,
        (frozenset({"new"}), frozenset()),
        100,
        400,
        10,
        restated=(frozenset(), frozenset({"new"})),
    )
    m = personal_metrics([restating, current])
    assert m["update_stale_shown"] == 0.0
    assert m["update_stale_restated"] == 0.5


def test_evidence_matches_inside_a_labelled_turn_only_when_long_enough() -> None:
    folded = {"t1": fold("My favourite colour is TEAL, honestly!"), "t2": fold("Orange it is.")}
    assert personal._matches({"evidence": "colour is teal,  honestly"}, "extracted", folded)
    assert not personal._matches({"evidence": "teal!"}, "extracted", folded)  # < 8
    assert not personal._matches({"evidence": "teal honestly orange"}, "extracted", folded)
    assert not personal._matches({"evidence": None}, "extracted", folded)
    assert personal._matches({"source_ref": "t2"}, "turns", folded) == {"t2"}
    assert not personal._matches({"source_ref": "t9"}, "turns", folded)


def test_the_command_prints_a_summary_and_refuses_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "tiny.json"
    source.write_text(json.dumps(DATA))
    out_file = tmp_path / "report.json"
    assert (
        main(["eval", "--dataset", "personal", "--data", str(source), "--out", str(out_file)]) == 0
    )
    out = capsys.readouterr().out
    assert "extracted: hit@5" in out and "turns: hit@5" in out and "current first" in out
    assert json.loads(out_file.read_text())["personas"] == 2
    assert main(["eval", "--dataset", "personal", "--data", str(tmp_path / "none")]) == 2
    assert "personal-memory-dev.json" in capsys.readouterr().err


def _longmemeval_item(question_id: str, question_type: str) -> dict[str, Any]:
    """A LongMemEval-S item: a distractor session and an answering one, out of date order."""
    return {
        "question_id": question_id,
        "question_type": question_type,
        "question": "What colour is my bike?",
        "question_date": "2023/05/30 (Tue) 22:53",
        "answer": "red",
        "answer_session_ids": ["answer_1"],
        "haystack_session_ids": ["answer_1", "noise_1"],
        "haystack_dates": ["2023/05/21 (Sun) 17:01", "2023/05/20 (Sat) 10:44"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "Hi there."},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "I painted my bike red.", "has_answer": True},
            ],
            [{"role": "user", "content": "Tell me about Toulouse."}],
        ],
    }


def test_longmemeval_questions_become_users_holding_only_their_evidence_sessions(
    tmp_path: Path,
) -> None:
    import gzip

    source = tmp_path / "lme.json.gz"
    items = [
        _longmemeval_item("q1", "single-session-user"),
        _longmemeval_item("q2_abs", "single-session-user"),
        _longmemeval_item("q3", "knowledge-update"),
    ]
    source.write_bytes(gzip.compress(json.dumps(items).encode()))
    first, abstains, update = personas.load(source)
    assert [s.id for s in first.sessions] == ["answer_1"]  # the distractor is not stored
    [turn1, _, turn3] = first.sessions[0].turns
    assert (turn1.id, turn3.id) == ("answer_1#0", "answer_1#2")
    assert turn3.at - turn1.at == 2 * personas.TURN_STEP
    [question] = first.questions
    assert (question.kind, question.evidence, question.stale) == ("direct", ("answer_1#2",), ())
    assert abstains.questions[0].kind == "unanswerable_near"
    assert abstains.questions[0].evidence == ()
    assert update.questions[0].kind == "update"

    report = personal.run(data=source, config=Config(), paths=("turns",), progress=False)
    assert report["personas"] == 3
    assert report["turns"]["answerable"]["hit@5"] == 1.0  # the painted-bike turn is found

"""The evaluation harness: loaders read the real files correctly and metrics count correctly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_memory.api.evaluation.datasets import (
    Answer,
    Dataset,
    Question,
    Turn,
    _normal_dia_id,
    load_locomo,
    load_longmemeval,
    session_records,
    turn_records,
)
from agent_memory.api.evaluation.metrics import locomo_metrics, longmemeval_metrics
from agent_memory.api.evaluation.retrieval import _unrelated_conversation, ask, import_dataset
from agent_memory.core import Memory
from agent_memory.core.write.conversation import CONTEXT_EXCERPT
from tests.support.outside import DATA, needs_data


@needs_data
def test_locomo_loads_every_conversation_with_clean_evidence() -> None:
    """Six conversations; every scored question's evidence names turns that exist."""
    dataset = load_locomo(DATA / "locomo-dev.json")
    assert len(dataset.conversations) == 6
    for question in dataset.questions:
        turns = {t.ref for t in dataset.conversations[question.conversation]}
        assert question.evidence <= turns
        assert question.answerable == (question.kind != "5")
    answerable = [q for q in dataset.questions if q.answerable]
    assert len(answerable) >= 900
    first = dataset.conversations[sorted(dataset.conversations)[0]][0]
    assert first.at.tzinfo is UTC and first.ref.startswith("D1:")


@pytest.mark.parametrize(
    ("raw", "normal"),
    [("D8:6", "D8:6"), ("D:11:26", "D11:26"), ("D30:05", "D30:5"), (" D1:3 ", "D1:3")],
)
def test_malformed_locomo_evidence_ids_are_normalised(raw: str, normal: str) -> None:
    """The data set's nine odd evidence strings map to real dialogue ids."""
    assert _normal_dia_id(raw) == normal


@needs_data
def test_longmemeval_loads_haystacks_answers_and_dates() -> None:
    """30 questions, each with its haystack; answer sessions exist; abstentions are marked."""
    dataset = load_longmemeval(DATA / "longmemeval-s-dev.json.gz")
    assert len(dataset.questions) == 30
    for question in dataset.questions:
        sessions = {t.session for t in dataset.conversations[question.conversation]}
        assert question.evidence_sessions <= sessions
        assert question.asked_at is not None
        assert question.answerable == (not question.id.endswith("_abs"))


def test_turn_records_carry_preceding_turns_of_the_same_session_as_context() -> None:
    """Context holds the session date and up to two earlier turns, never another session's;
    named speakers become the person each turn is about."""
    at = datetime(2023, 5, 8, tzinfo=UTC)
    turns = [
        Turn("D1:1", "s1", "A", "hello", at),
        Turn("D1:2", "s1", "B", "hi there", at),
        Turn("D2:1", "s2", "A", "new day", at),
    ]
    records = turn_records(turns, speakers_are_people=True)
    assert records[1]["content"] == "B: hi there" and "A: hello" in records[1]["context"]
    assert "08 May 2023" in records[1]["context"]
    assert "hello" not in records[2]["context"] and records[2]["source_ref"] == "D2:1"
    assert records[1]["about"] == [{"kind": "person", "name": "B"}]
    sessions = session_records(turns)
    assert [r["source_ref"] for r in sessions] == ["s1", "s2"]
    roles = [Turn("s1#0", "s1", "user", "hello", at), Turn("s1#1", "s1", "assistant", "hi", at)]
    by_role = turn_records(roles, speakers_are_people=False)
    assert "about" not in by_role[0] and by_role[1]["content"] == "assistant: hi"


def test_a_long_preceding_turn_enters_the_context_as_an_excerpt() -> None:
    """A 2,000-character answer before a short reply contributes its first CONTEXT_EXCERPT
    characters, so its vocabulary does not make the reply match everything it covered."""
    at = datetime(2023, 5, 8, tzinfo=UTC)
    long_answer = "word " * 400
    turns = [Turn("D1:1", "s1", "B", long_answer, at), Turn("D1:2", "s1", "A", "thanks", at)]
    [_, reply] = turn_records(turns, speakers_are_people=True)
    assert reply["context"].endswith(f"B: {long_answer}"[:CONTEXT_EXCERPT])
    assert len(reply["context"]) == len("08 May 2023\n") + CONTEXT_EXCERPT


def _answer(
    kind: str,
    evidence: set[str],
    refs: list[str],
    *,
    answerable: bool = True,
    sessions: frozenset[str] = frozenset(),
    found: set[str] | None = None,
    qid: str = "q",
) -> Answer:
    question = Question(qid, "c", "?", kind, frozenset(evidence), sessions, answerable=answerable)
    return Answer(question, refs, "c", 10.0, {}, frozenset(refs if found is None else found))


def test_locomo_recall_counts_evidence_turns_in_the_top_k() -> None:
    """recall@k is the share of a question's evidence turns among the first k results."""
    answers = [
        _answer("1", {"a", "b"}, ["a", "x", "y", "z", "w", "b"]),  # @5: 1/2, @10: 2/2
        _answer("4", {"c", "d"}, [], found={"d", "e"}),  # a candidate, emptied by the gate
        _answer("5", set(), [], answerable=False),  # adversarial, answered empty
        _answer("5", set(), ["q"], answerable=False),
    ]
    metrics = locomo_metrics(answers)
    assert metrics["overall"] == {"recall@5": 0.25, "recall@10": 0.5, "candidate_recall": 0.75}
    assert metrics["by_category"]["1"]["recall@10"] == 1.0
    assert metrics["adversarial_answered_empty"] == 0.5


def test_longmemeval_session_recall_dedupes_turns_into_sessions() -> None:
    """Turn results map to their sessions, in order, before any@k and all@k are computed."""
    answer = _answer(
        "multi-session",
        {"s2#1"},
        ["s1#0", "s1#3", "s2#1", "s3#0"],
        sessions=frozenset({"s2", "s9"}),
    )
    metrics = longmemeval_metrics([answer], granularity="turn")["overall"]
    assert metrics["recall_any@5"] == 1.0 and metrics["recall_all@5"] == 0.0
    assert metrics["turn_recall@10"] == 1.0 and metrics["turn_candidate_recall"] == 1.0


def test_longmemeval_names_the_questions_under_their_target() -> None:
    """The report lists the answerable questions with no evidence session in the first five
    and the abstentions answered, so a run's misses can be looked into."""
    hit = _answer("multi-session", {"s2#1"}, ["s2#1"], sessions=frozenset({"s2"}), qid="a")
    miss = _answer("temporal-reasoning", {"s2#1"}, ["s1#0"], sessions=frozenset({"s2"}), qid="b")
    answered = _answer("multi-session", set(), ["s1#0"], answerable=False, qid="c_abs")
    empty = _answer("single-session-user", set(), [], answerable=False, qid="d_abs")
    report = longmemeval_metrics([hit, miss, answered, empty], granularity="turn")
    assert report["missed"] == {"recall_any@5": ["b"], "abstention_answered": ["c_abs"]}


def test_candidate_recall_reads_what_the_generators_found_from_the_search_log(
    memory: Memory,
) -> None:
    """ask() records every candidate of each search, results or not: with limit 1, the
    second record about the question is found but not returned, and candidate recall counts
    it while recall@k does not."""
    asked = datetime(2024, 5, 2, tzinfo=UTC)
    turns = [
        Turn("D1:1", "S1", "Ann", "I adopted a grey kitten called Pixel.", asked),
        Turn("D1:2", "S1", "Ann", "Pixel the kitten sleeps on my keyboard.", asked),
        Turn("D1:3", "S1", "Ann", "The train to Lyon was late again.", asked),
    ]
    dataset = Dataset("tiny", speakers_are_people=True, conversations={"c1": turns})
    import_dataset(memory, dataset, progress=False)
    question = Question(
        "q1", "c1", "What is my kitten called?", "1", frozenset({"D1:1", "D1:2"}), asked_at=asked
    )
    (answer,) = ask(memory, [question], limit=1, progress=False)
    assert len(answer.refs) == 1
    assert {"D1:1", "D1:2"} <= answer.found
    metrics = locomo_metrics([answer])["overall"]
    assert metrics["recall@10"] == 0.5 and metrics["candidate_recall"] == 1.0


def test_calibration_negatives_skip_conversations_where_a_named_person_also_talks() -> None:
    """A question about John is no negative where another John talks: it may be answered."""
    speakers = {"a": {"john", "maria"}, "b": {"john", "tim"}, "c": {"deborah", "jolene"}}
    about_john = Question("q1", "a", "What music events has John attended?", "1", frozenset())
    about_maria = Question("q2", "a", "Where has Maria made friends?", "1", frozenset())
    assert _unrelated_conversation(about_john, ["a", "b", "c"], speakers) == "c"
    assert _unrelated_conversation(about_maria, ["a", "b", "c"], speakers) == "b"
    everyone = {"a": {"john"}, "b": {"john"}}
    assert _unrelated_conversation(about_john, ["a", "b"], everyone) is None


def test_a_session_repeated_in_a_haystack_is_imported_once_per_copy(memory: Memory) -> None:
    """LongMemEval haystacks may hold one session twice, on two dates: each copy is its own
    conversation (same turn ids, no refusal for repeated ids); blank turns are left out."""
    first, later = datetime(2023, 5, 20, tzinfo=UTC), datetime(2023, 5, 29, tzinfo=UTC)
    turns = [
        Turn("s1#0", "s1", "user", "I bought a red kayak.", first),
        Turn("s1#1", "s1", "assistant", "  ", first),
        Turn("s2#0", "s2", "user", "Unrelated chat.", first),
        Turn("s1#0", "s1", "user", "I bought a red kayak.", later),
    ]
    dataset = Dataset("tiny", conversations={"c1": turns})
    import_dataset(memory, dataset, progress=False)
    rows = memory.store.query("SELECT source_ref, event_at FROM records ORDER BY rowid")
    assert [(r["source_ref"], r["event_at"][:10]) for r in rows] == [
        ("s1#0", "2023-05-20"),
        ("s2#0", "2023-05-20"),
        ("s1#0", "2023-05-29"),
    ]

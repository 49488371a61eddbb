"""What a session's summary and its retired statements leave in the answers to later
questions: memory_search puts a fact's own record before the session summary restating it
(the role prior's summary part, core.search.ranking.role_prior) and collapses the summary
into that record (core.search.siblings.summaries), and a statement a later one supersedes
takes its words out of its turn's other records' retrieval context
(core.write.supersession.narrow_siblings), so the old value no longer finds them."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.extraction.base import RESTATING
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import SummaryOutput, SummaryRequest
from agent_memory.core.models import SourceKind
from agent_memory.core.search.ranking import replay
from agent_memory.workers.app import WorkerApp
from tests.support.clock import NOW
from tests.support.extraction import CONFIG, extracted_session, extracting_memory
from tests.support.stores import granted_memory

ASKED = NOW + timedelta(days=10)


def retrieval(**settings: Any) -> Config:
    """The extraction tests' config with these retrieval settings."""
    return CONFIG.model_copy(update={"retrieval": CONFIG.retrieval.model_copy(update=settings)})


# The role prior alone: the summary stays in the answer, so where it ranks can be seen.
UNCOLLAPSED = retrieval(summary_collapse=False)


def ask(memory: Memory, query: str) -> tuple[dict[str, Any], dict[str, Any]]:
    session = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=ASKED)
    result = session.call("memory_search", {"query": query, "limit": 3}, now=ASKED)
    assert "error" not in result
    [row] = memory.store.query(
        "SELECT payload FROM search_log WHERE id = ?", (result["search_id"],)
    )
    log = json.loads(row["payload"])
    assert replay(log) == [r["id"] for r in result["results"]]
    return result, log


def corrected_store(memory: Memory) -> None:
    extracted_session(
        memory,
        "s1",
        "We decided to ship the billing migration on Friday. I am flying to Lisbon next week.",
    )
    extracted_session(
        memory,
        "s2",
        "Update: the billing migration moved to Tuesday because the dry run found a slow index.",
        days=8,
    )


# Two facts asked in one question (not two questions: core.search.compound searches those apart).
TWO_FACTS = "When are the billing migration and my flight to Lisbon?"


def one_session(memory: Memory) -> None:
    extracted_session(
        memory,
        "s1",
        "We decided to ship the billing migration on Friday. I am flying to Lisbon next week.",
        "My favourite editor is Helix and I'm allergic to shellfish.",
    )


def summary_last(result: dict[str, Any]) -> list[bool]:
    return [r["source_kind"] == SourceKind.SESSION_SUMMARY.value for r in result["results"]]


def test_the_sessions_own_records_rank_before_its_summary(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A question over two facts matches the summary that lists both better than either
    fact's own record; with the prior the records come first, each stating one fact."""
    with extracting_memory(store_path, real_embedder, UNCOLLAPSED) as memory:
        one_session(memory)
        result, log = ask(memory, TWO_FACTS)
        assert summary_last(result) == [False, False, True]
        summary = result["results"][2]
        assert summary["explanation"]["role_prior"] < 0
        assert all(r["explanation"]["role_prior"] == 0 for r in result["results"][:2])
        assert log["role_prior"]["roles"]["summary"]["applied"] is True
        assert log["role_prior"]["adjusted"] == {
            summary["id"]: summary["explanation"]["role_prior"]
        }


def test_a_question_about_a_conversation_keeps_the_summaries_scores(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with extracting_memory(store_path, real_embedder) as memory:
        corrected_store(memory)
        result, log = ask(memory, "What did we talk about regarding the billing migration?")
        assert log["role_prior"]["roles"]["summary"]["applied"] is False
        # ... and none gives way to its session's records (core.search.siblings.summaries).
        assert "session_summary" in [r["source_kind"] for r in result["results"]]
        assert log["siblings"]["summaries"] == {}
        assert log["role_prior"]["adjusted"] == {}
        assert all(r["explanation"]["role_prior"] == 0 for r in result["results"])


def test_a_summary_beside_its_sessions_records_is_collapsed_into_them(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The same question with the collapse on (the default): the summary restates what the
    two records say, so the answer keeps the records and names the summary they stand for;
    the log replays it."""
    with extracting_memory(store_path, real_embedder) as memory:
        one_session(memory)
        [summary] = memory.store.query(
            "SELECT id FROM records WHERE source_kind = 'session_summary'"
        )
        result, log = ask(memory, TWO_FACTS)
        assert summary_last(result) == [False, False]
        assert log["siblings"]["summaries"] == {summary["id"]: result["results"][0]["id"]}
        assert result["explanation"]["summaries_collapsed"] == 1
        assert summary["id"] in result["results"][0]["explanation"]["siblings"]


def test_a_summary_saying_what_its_sessions_results_do_not_stays(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The session's second turn is a question, so no record holds its words, and only the
    summary's topic list says the user asked about Rust crates: asked about both, the answer
    keeps the summary beside the shellfish record."""
    with extracting_memory(store_path, real_embedder) as memory:
        extracted_session(
            memory,
            "s1",
            "I'm allergic to shellfish.",
            "Which crates should I use for parsing? Crates crates parsing, parsing crates?",
        )
        [summary] = memory.store.query(
            "SELECT id, content FROM records WHERE source_kind = 'session_summary'"
        )
        assert "crates" in summary["content"]
        result, log = ask(memory, "shellfish allergy and parsing crates")
        assert summary["id"] in [r["id"] for r in result["results"]]
        assert any(r["source_kind"] != "session_summary" for r in result["results"])
        assert log["siblings"]["summaries"] == {}


def test_off_the_summary_ranks_first_and_stays(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The case the prior is for: with retrieval.summary_factor 1 (off) the summary comes
    first, above the records that state its facts. It is then the first thing the answer
    shows of its session, so nothing stands for it and it stays (collapsing it into a record
    ranked lower could drop it from an answer cut at the limit)."""
    with extracting_memory(store_path, real_embedder, retrieval(summary_factor=1.0)) as memory:
        one_session(memory)
        result, log = ask(memory, TWO_FACTS)
        assert summary_last(result) == [True, False, False]
        assert log["role_prior"] == {}
        assert log["siblings"]["summaries"] == {}


class ProseSummaries(OfflineBackend):
    """The offline extractor and reviewer, with a model's prose summary: it says what the
    assistant advised, in words the user also used, so no word test can tell it from a
    restatement; the backend does not declare that its summaries only restate."""

    summaries_restate = False

    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        return SummaryOutput(
            summary="Alice is going winter camping in Norway in February and asked which "
            "tent to take, the Nammatj or the Soulo; the assistant said the Nammatj tent."
        )


class OwnSummaries(OfflineBackend):
    """A subclass that writes summaries of its own and says nothing about them."""

    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        return SummaryOutput(summary="Alice is going winter camping in Norway in February.")


def test_only_a_writer_that_declares_it_has_its_summaries_tagged_as_restating() -> None:
    """The offline writer restates; a subclass replacing it inherits no such claim unless it
    makes it (ProseSummaries says False outright)."""
    assert OfflineBackend().summaries_restate is True
    assert OwnSummaries().summaries_restate is False
    assert ProseSummaries().summaries_restate is False


def test_a_summary_whose_writer_may_add_to_its_session_stays(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Every word of the summary is in the user's turn, yet only the summary says which tent
    the assistant advised: a summary is collapsed only when its writer declared that it
    restates (the offline writer does), so this one stays below the Norway record."""
    memory = granted_memory(store_path, CONFIG, embedder=real_embedder)
    WorkerApp(memory.path, CONFIG, immediate=True, backend=ProseSummaries()).attach(memory)
    with memory:
        extracted_session(
            memory,
            "s1",
            "I'm going winter camping in Norway in February. Should I take the Nammatj tent "
            "or the Soulo tent?",
        )
        [summary] = memory.store.query(
            "SELECT id, tags FROM records WHERE source_kind = 'session_summary'"
        )
        assert RESTATING not in json.loads(summary["tags"])
        result, log = ask(memory, "Which tent should I take winter camping in Norway?")
        assert summary["id"] in [r["id"] for r in result["results"]]
        assert log["siblings"]["summaries"] == {}


def test_a_retired_statements_words_leave_its_turns_other_records(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The correction supersedes "ship the billing migration on Friday"; the Lisbon record,
    extracted from the same turn, carried that turn as its retrieval context. Its context
    loses the retired words (an event names both), and the old plan no longer finds it."""
    with extracting_memory(store_path, real_embedder) as memory:
        corrected_store(memory)
        [retired] = memory.store.query(
            "SELECT id FROM records WHERE status = 'superseded' AND content LIKE '%Friday%'"
        )
        [lisbon] = memory.store.query(
            "SELECT id, context FROM records WHERE content LIKE '%Lisbon%' "
            "AND source_kind != 'session_summary'"
        )
        assert "Lisbon" in lisbon["context"] and "Friday" not in lisbon["context"]
        [event] = memory.store.query(
            "SELECT record_id, payload FROM events WHERE kind = 'record.context_narrowed'"
        )
        assert event["record_id"] == lisbon["id"]
        assert json.loads(event["payload"])["retired"] == retired["id"]
        result, _ = ask(memory, "When do we ship the billing migration?")
        assert lisbon["id"] not in [r["id"] for r in result["results"]]

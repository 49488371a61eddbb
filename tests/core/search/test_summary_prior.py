"""memory_search puts a fact's own record before the session summary restating it (the role
prior's summary part, core.search.ranking.role_prior): a summary lists what its session
remembered, and goes on listing a value that a later correction retired."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import SourceKind
from agent_memory.core.search.ranking import replay
from tests.support.clock import NOW
from tests.support.extraction import CONFIG, extracted_session, extracting_memory

ASKED = NOW + timedelta(days=10)


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


def kinds(result: dict[str, Any]) -> list[str]:
    """Each result as "summary", "update" (the correction) or "lisbon" (the first session's
    other statement, which its summary also restates)."""
    out = []
    for r in result["results"]:
        if r["source_kind"] == SourceKind.SESSION_SUMMARY.value:
            out.append("summary")
        elif r["content"].startswith("Update: the billing migration moved to Tuesday"):
            out.append("update")
        elif "Lisbon" in r["content"]:
            out.append("lisbon")
    return out


def test_the_facts_own_records_rank_before_the_summary_restating_them(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with extracting_memory(store_path, real_embedder) as memory:
        corrected_store(memory)
        result, log = ask(memory, "When do we ship the billing migration?")
        assert kinds(result) == ["update", "lisbon", "summary"]
        by_kind = dict(zip(kinds(result), result["results"], strict=True))
        assert by_kind["summary"]["explanation"]["role_prior"] < 0
        assert by_kind["update"]["explanation"]["role_prior"] == 0
        assert log["role_prior"]["roles"]["summary"]["applied"] is True


def test_off_the_old_sessions_summary_ranks_above_a_record_it_restates(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The case the prior is for: with retrieval.summary_factor 1 (off) the first session's
    summary, which still lists "ship the billing migration on Friday", comes second, above
    the Lisbon statement it also restates."""
    config = CONFIG.model_copy(
        update={"retrieval": CONFIG.retrieval.model_copy(update={"summary_factor": 1.0})}
    )
    assert isinstance(config, Config)
    with extracting_memory(store_path, real_embedder, config) as memory:
        corrected_store(memory)
        result, log = ask(memory, "When do we ship the billing migration?")
        assert kinds(result) == ["update", "summary", "lisbon"]
        assert "on Friday" in result["results"][1]["content"]
        assert "summary" not in log["role_prior"].get("roles", {})


def test_a_question_about_a_conversation_keeps_the_summaries_scores(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    with extracting_memory(store_path, real_embedder) as memory:
        corrected_store(memory)
        result, log = ask(memory, "What did we talk about regarding the billing migration?")
        assert log["role_prior"]["roles"]["summary"]["applied"] is False
        assert log["role_prior"]["adjusted"] == {}
        assert all(r["explanation"]["role_prior"] == 0 for r in result["results"])

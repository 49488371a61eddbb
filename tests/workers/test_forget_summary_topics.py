"""A forgotten record's words do not stay in its session's offline summary: the summary's
topic list is single words of the user's turns ("Topics: sorry, slow, replies, tobias, ..."),
no quote of the record, so the forget path erases the summary of the record's own session
whose topics name one of the record's words (core.traces), through the offline pipeline on a
real store."""

from __future__ import annotations

from agent_memory.core import Memory
from agent_memory.core.models import SourceKind
from tests.support.extraction import extracted_session


def summaries(mem: Memory) -> list[str]:
    rows = mem.store.query("SELECT id FROM records WHERE status != 'deleted' ORDER BY rowid")
    found = mem.store.get_records([r["id"] for r in rows]).values()
    return [r.content for r in found if r.source_kind is SourceKind.SESSION_SUMMARY]


def forget(mem: Memory, words: str) -> None:
    rows = mem.store.query("SELECT id, content FROM records WHERE status != 'deleted'")
    [record_id] = [r["id"] for r in rows if words in r["content"]]
    s = mem.session(agent_id="assistant", user_id="alice", session_id="f")
    assert "error" not in s.call("memory_forget", {"id": record_id, "reason": "asked"})


def test_a_summary_naming_a_forgotten_word_in_its_topics_is_erased(mem: Memory) -> None:
    extracted_session(mem, "s1", "Sorry for the slow replies, our son Tobias was born in May.")
    extracted_session(mem, "s2", "Our dog Biscuit chews every shoe we own lol.", days=3)
    assert any("tobias" in s for s in summaries(mem))
    forget(mem, "Tobias")
    assert not any("tobias" in s.lower() for s in summaries(mem))
    assert any("biscuit" in s for s in summaries(mem))  # another session's summary stays


def test_a_name_written_with_a_curly_apostrophe_goes_too(mem: Memory) -> None:
    """The summary writer reads "Tobias\u2019s" as "tobias"; the forget path reads it the same way,
    not only as its normalised quote ("tobias's")."""
    extracted_session(
        mem,
        "s1",
        "My son Tobias\u2019s favourite food is pasta.",
        "The tomato plants in the shady garden need better tools.",
        "Which garden tools do tomato plants in shade need?",
    )
    assert any("tobias" in s for s in summaries(mem))
    forget(mem, "Tobias")
    assert not any("tobias" in s.lower() for s in summaries(mem))

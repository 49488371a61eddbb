"""A retired value does not live on in a session summary: the offline summary lists what its
session confirmed ("Remembered: X; Y."), and when a later statement retires X, every summary of
the scope listing it drops it, in its content, its full-text row and its vector
(core.write.remembered, core.write.supersession.narrow_summaries); a summary written after a
later turn of its own session retired X never lists it. Through the offline pipeline on a real
store, and the list's own rules on their own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import SourceKind
from agent_memory.core.session import Session
from agent_memory.core.write.remembered import remembered, without
from agent_memory.workers.app import WorkerApp
from tests.support.extraction import CONFIG, extracted_session, extracting_memory
from tests.support.stores import granted_memory

OPENING = "On 2 May 2026, assistant and the user had a conversation of 4 turns. Topics: tea."


def live(mem: Memory) -> list[tuple[str, str, str]]:
    rows = mem.store.query(
        "SELECT id, source_kind, content FROM records WHERE status IN ('confirmed', "
        "'provisional') ORDER BY rowid"
    )
    return [(r["id"], r["source_kind"], r["content"]) for r in rows]


def summary_of(mem: Memory, session_id: str) -> tuple[str, str]:
    rows = mem.store.query(
        "SELECT id, content FROM records WHERE session_id = ? AND source_kind = ? "
        "AND status = 'confirmed'",
        (session_id, SourceKind.SESSION_SUMMARY.value),
    )
    [(summary_id, content)] = [(r["id"], r["content"]) for r in rows]
    return summary_id, content


def search(mem: Memory, query: str) -> list[str]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="ask")
    result = s.call("memory_search", {"query": query})
    assert "error" not in result
    return [r["content"] for r in result["results"]]


def correct(session: Session, record_id: str, content: str, evidence: str) -> dict[str, Any]:
    """memory_revise's correct of ``record_id``, the user's own words as evidence."""
    return session.call(
        "memory_revise",
        {
            "id": record_id,
            "action": "correct",
            "content": content,
            "evidence": evidence,
            "source_kind": "user_statement",
        },
    )


def test_a_later_correction_drops_the_retired_value_from_the_earlier_summary(
    mem: Memory,
) -> None:
    extracted_session(
        mem,
        "s1",
        "I'm doing 16:8 intermittent fasting, eating window 12-8pm.",
        "My manager is Priya Raman.",
    )
    summary_id, before = summary_of(mem, "s1")
    assert "Remembered: The user is doing 16:8 intermittent fasting;" in before
    extracted_session(mem, "s2", "Update: I stopped the intermittent fasting last month.", days=30)

    _, after = summary_of(mem, "s1")
    assert after.endswith("Remembered: The user's manager is Priya Raman.")
    assert after.startswith(before.split(" Remembered: ")[0])  # date and topics as they were
    # Its full-text row and vector moved with it: the words of the retired value find the new
    # statement, never a summary restating the old one.
    found = search(mem, "Is the user doing 16:8 intermittent fasting?")
    assert not any("doing 16:8" in text for text in found)
    matched = mem.store.query(
        "SELECT r.id FROM records_fts AS f JOIN records AS r ON r.rowid = f.rowid "
        "WHERE records_fts MATCH '\"16:8\"'"
    )
    assert summary_id not in [m["id"] for m in matched]
    events = mem.store.query(
        "SELECT record_id, json_extract(payload, '$.retired') AS retired FROM events "
        "WHERE kind = 'record.summary_narrowed'"
    )
    assert [e["record_id"] for e in events] == [summary_id]
    [old] = mem.store.query(
        "SELECT status, content FROM records WHERE id = ?", (events[0]["retired"],)
    )
    assert (old["status"], old["content"]) == (
        "superseded",
        "The user is doing 16:8 intermittent fasting.",
    )


def test_a_value_retired_within_its_own_session_is_never_listed(mem: Memory) -> None:
    extracted_session(
        mem,
        "s1",
        "My manager is Priya Raman.",
        "Our dog Biscuit is a beagle.",
        "Actually my manager is Tom Berger now, Priya left.",
    )
    _, summary = summary_of(mem, "s1")
    assert "Remembered: The user's manager is Tom Berger now." in summary
    assert "Priya Raman" not in summary.split(" Remembered: ")[1]


def test_every_session_that_said_it_drops_it(mem: Memory) -> None:
    """A later session that says it again reinforces the same record and lists it too."""
    extracted_session(mem, "s1", "My manager is Priya Raman.", "Our dog Biscuit is a beagle.")
    # Its own sentence: "..., she wants the report by Friday." is read as qualifying the
    # claim (the judge's "wants" after the quote), and such a sentence is kept as said,
    # reinforcing nothing (core.extraction.phrasing.qualified).
    extracted_session(
        mem, "s2", "My manager is Priya Raman. She wants the report by Friday.", days=2
    )
    assert all("Priya Raman." in summary_of(mem, s)[1] for s in ("s1", "s2"))
    extracted_session(mem, "s3", "My new manager is Tom Berger, Priya left.", days=9)
    for session in ("s1", "s2"):
        assert "Remembered" not in summary_of(mem, session)[1]
    assert summary_of(mem, "s3")[1].endswith("Remembered: The user's new manager is Tom Berger.")


def test_a_session_that_said_it_in_other_words_lists_the_stored_words(mem: Memory) -> None:
    """A later session's rewording reinforces the stored record; its summary lists the
    record's own words, which the retiring write finds."""
    extracted_session(mem, "s1", "I'm doing 16:8 intermittent fasting, eating window 12-8pm.")
    extracted_session(mem, "s2", "I'm doing 16:8 intermittent fasting these days.", days=2)
    listed = "Remembered: The user is doing 16:8 intermittent fasting."
    assert all(summary_of(mem, s)[1].endswith(listed) for s in ("s1", "s2"))
    extracted_session(mem, "s3", "Update: I stopped the intermittent fasting last month.", days=9)
    assert not any("16:8" in summary_of(mem, s)[1] for s in ("s1", "s2"))


def test_a_correction_saying_the_same_words_leaves_the_lists(mem: Memory) -> None:
    """A correction whose new record says what the old one said (a source upgrade, a
    re-confirmation) retires the old record, but the value is still live: no list drops it."""
    extracted_session(mem, "s1", "My manager is Priya Raman.")
    [(record_id, _, _)] = [r for r in live(mem) if r[2] == "The user's manager is Priya Raman."]
    s = mem.session(agent_id="assistant", user_id="alice", session_id="s2")
    s.add_turn("user", "Yes, my manager is still Priya Raman.")
    revised = correct(
        s, record_id, "The user's manager is Priya Raman.", "my manager is still Priya Raman"
    )
    assert revised.get("supersedes_id") == record_id
    assert summary_of(mem, "s1")[1].endswith("Remembered: The user's manager is Priya Raman.")


def test_a_shared_decision_leaves_the_personal_summary_of_its_session(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A session's decision goes to the project it concerns, its summary to the user's own
    scope; the summary lists the decision, and drops it when the decision is corrected."""
    targets = {"personal": "user:alice", "current_project": "project:apollo"}
    grants = (("assistant", "user:alice"), ("assistant", "project:apollo"))
    with extracting_memory(tmp_path / "m.db", real_embedder, grants=grants) as memory:
        s = memory.session(
            agent_id="assistant", user_id="alice", session_id="s1", write_targets=targets
        )
        s.add_turn("user", "We decided to ship the migration on Friday.")
        s.add_turn("user", "My manager is Priya Raman.")
        assert memory.jobs.status(s.end())["status"] == "done"
        [decision] = memory.store.query(
            "SELECT id FROM records WHERE scope = 'project:apollo' AND status = 'confirmed'"
        )
        assert "ship the migration on Friday" in summary_of(memory, "s1")[1]
        s2 = memory.session(
            agent_id="assistant", user_id="alice", session_id="s2", write_targets=targets
        )
        s2.add_turn("user", "No wait, we decided to ship the migration on Monday.")
        revised = correct(
            s2,
            decision["id"],
            "We decided to ship the migration on Monday.",
            "we decided to ship the migration on Monday",
        )
        assert revised.get("supersedes_id") == decision["id"]
        assert summary_of(memory, "s1")[1].endswith(
            "Remembered: The user's manager is Priya Raman."
        )


class _WhileWriting:
    """A stage hook (the pipeline's seam) that, once the summary writer has returned and before
    the summary is stored, runs ``action`` on the store once, as another process could."""

    def __init__(self, memory: Memory, action: Callable[[Memory], None]) -> None:
        self.memory, self.action, self.fired = memory, action, False

    def at(self, stage: str, point: str) -> None:
        if (stage, point) == ("summarize", "model_done") and not self.fired:
            self.fired = True
            self.action(self.memory)


@contextmanager
def hooked(
    path: Path, embedder: FlagEmbedder, action: Callable[[Memory], None]
) -> Iterator[_WhileWriting]:
    memory = granted_memory(path, CONFIG, embedder=embedder)
    hook = _WhileWriting(memory, action)
    WorkerApp(memory.path, CONFIG, immediate=True, hooks=hook).attach(memory)
    with memory:
        yield hook


def _retire_the_fasting(memory: Memory) -> None:
    [(record_id, _, _)] = [r for r in live(memory) if "16:8" in r[2]]
    s = memory.session(agent_id="assistant", user_id="alice", session_id="other")
    s.add_turn("user", "I stopped the intermittent fasting.")
    revised = correct(
        s,
        record_id,
        "The user stopped the intermittent fasting.",
        "I stopped the intermittent fasting",
    )
    assert revised.get("supersedes_id") == record_id


def _forget_the_manager(memory: Memory) -> None:
    [(record_id, _, _)] = [r for r in live(memory) if "Priya" in r[2]]
    s = memory.session(agent_id="assistant", user_id="alice", session_id="other")
    assert "error" not in s.call("memory_forget", {"id": record_id, "reason": "asked"})


def test_a_record_retired_while_the_summary_is_written_is_not_listed(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    with hooked(tmp_path / "m.db", real_embedder, _retire_the_fasting) as hook:
        extracted_session(
            hook.memory, "s1", "I'm doing 16:8 intermittent fasting.", "My manager is Priya Raman."
        )
        assert hook.fired
        _, summary = summary_of(hook.memory, "s1")
    assert summary.endswith("Remembered: The user's manager is Priya Raman.")


def test_a_forget_while_the_summary_is_written_sends_it_back_to_be_written_again(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The view the summary was written from still held the forgotten record's turn."""
    with hooked(tmp_path / "m.db", real_embedder, _forget_the_manager) as hook:
        status = extracted_session(
            hook.memory, "s1", "My manager is Priya Raman.", "Our dog Biscuit is a beagle."
        )
        assert hook.fired
        [summarize] = [s for s in status["stages"] if s["stage"] == "summarize"]
        assert summarize["attempts"] == 2
        _, summary = summary_of(hook.memory, "s1")
    assert "priya" not in summary.lower() and "raman" not in summary.lower()


def test_an_agents_note_tagged_like_a_summary_is_not_edited(mem: Memory) -> None:
    extracted_session(mem, "s1", "My manager is Priya Raman.")
    s = mem.session(agent_id="assistant", user_id="alice", session_id="s1")
    note = "Handover note. Remembered: The user's manager is Priya Raman; Call on Monday."
    written = s.call(
        "memory_write",
        {
            "type": "episodic",
            "content": note,
            "source_kind": "agent_inference",
            "tags": ["session-summary"],
        },
    )
    assert "error" not in written
    extracted_session(mem, "s2", "My new manager is Tom Berger, Priya left.", days=9)
    assert [c for i, _, c in live(mem) if i == written["id"]] == [note]


def test_a_summary_without_the_retired_value_is_left_as_it_was(mem: Memory) -> None:
    extracted_session(mem, "s1", "My manager is Priya Raman.")
    extracted_session(mem, "s2", "Our dog Biscuit is a beagle.", days=2)
    _, other = summary_of(mem, "s2")
    extracted_session(mem, "s3", "My new manager is Tom Berger, Priya left.", days=9)
    assert summary_of(mem, "s2")[1] == other
    assert not any("Priya Raman" in content for _, _, content in live(mem))


# -- the list's own rules ------------------------------------------------------------------


def summary(*kept: str) -> str:
    return OPENING + remembered(kept)


@pytest.mark.parametrize(
    ("kept", "dropped", "left"),
    [
        (("A b c.", "D e f.", "G h i."), "D e f.", " Remembered: A b c; G h i."),
        (("A b c.", "D e f."), "A b c.", " Remembered: D e f."),
        (("A b c.", "D e f."), "D e f.", " Remembered: A b c."),
        (("A b c.",), "A b c.", ""),
        # An item holding the separator is matched whole; a part of it is not an item.
        (("Tea; no sugar.", "D e f."), "Tea; no sugar.", " Remembered: D e f."),
        # An item keeps no separator of its own: "tea; no sugar" is listed "tea, no sugar".
        (
            ("I drink tea; no sugar.", "I drink tea."),
            "I drink tea.",
            " Remembered: I drink tea, no sugar.",
        ),
        # The items beyond the listed five are counted, and the count stays.
        (tuple(f"Fact {i}." for i in range(7)), "Fact 2.", None),
    ],
)
def test_an_item_leaves_the_list_whole(
    kept: tuple[str, ...], dropped: str, left: str | None
) -> None:
    narrowed = without(summary(*kept), dropped)
    assert narrowed is not None
    if left is None:
        assert narrowed.endswith("Fact 0; Fact 1; Fact 3; Fact 4 (and 2 more).")
    else:
        assert narrowed == OPENING + left


def test_the_last_listed_item_leaves_the_count() -> None:
    narrowed = summary(*(f"Fact {i}." for i in range(6)))
    for i in range(5):
        narrowed = without(narrowed, f"Fact {i}.") or ""
    assert narrowed == OPENING + " Remembered: 1 more."


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (summary("A b c.", "D e f."), "b c."),
        (summary("A b c."), "A b c d."),
        (OPENING, "A b c."),  # nothing listed
        ("The user and the agent talked about tea and a b c.", "A b c."),  # a model's prose
    ],
)
def test_what_is_not_a_whole_item_is_left(text: str, content: str) -> None:
    assert without(text, content) is None


def test_a_list_capped_in_length_ends_on_a_whole_item() -> None:
    """A summary has a length cap (core.extraction.schema.SUMMARY_CHARS): the list gives up
    items, counted, rather than end inside one, which no retiring write could find."""
    kept = [f"Fact {i} " + "x" * 440 + "." for i in range(5)]
    clause = remembered(kept, room=1000)
    assert len(clause) <= 1000 and clause.endswith("(and 3 more).")
    narrowed = without(OPENING + clause, kept[1])
    assert narrowed == OPENING + f" Remembered: {kept[0][:-1]} (and 3 more)."
    assert remembered(kept, room=40) == " Remembered: 5 more."

"""A forgotten fact does not come back at session end (issue 16, item 1): memory_forget
redacts the turns that said it and leaves a suppression (a digest and a vector, no text)
that the extractor's output, the reviewer, the validator and the summary honour, also when
the forget lands before an earlier session's job runs or between two stages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import shared_embedder
from agent_memory.core.erasure import REDACTION_FILL
from agent_memory.core.extraction.schema import ReviewOutput, ReviewRequest
from agent_memory.core.session import Session
from agent_memory.core.suppressions import told_again
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory, stated_records
from tests.support.stores import granted_memory
from tests.workers.test_pipeline import CONFIG, Scripted, accept_all, attach, candidate

SAID = "I'm HIV positive, I found out last week."
FACT = "The user is HIV positive."


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with granted_memory(tmp_path / "m.db", CONFIG) as memory:
        yield memory


def open_session(mem: Memory, session_id: str, *turns: tuple[str, str]) -> Session:
    s = mem.session(agent_id="assistant", user_id="alice", session_id=session_id, now=NOW)
    for i, (role, text) in enumerate(turns):
        s.add_turn(role, text, at=NOW + timedelta(seconds=i))
    return s


def write_and_forget(s: Session) -> dict[str, Any]:
    written = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": FACT,
            "source_kind": "user_statement",
            "evidence": "I'm HIV positive",
        },
        now=NOW,
    )
    assert written["status"] == "confirmed"
    return s.call("memory_forget", {"id": written["id"], "reason": "user asked"}, now=NOW)


def kept(mem: Memory) -> list[str]:
    """The content of every record that is not a tombstone."""
    rows = mem.store.query("SELECT content FROM records WHERE status != 'deleted'")
    return [r["content"] for r in rows]


def mentions_hiv(texts: list[str]) -> list[str]:
    return [t for t in texts if "hiv" in t.lower()]


def test_a_forgotten_fact_is_not_extracted_again_at_session_end(mem: Memory) -> None:
    """The real offline extractor over the same session: neither a record nor the summary
    says it again, and the turn that said it is redacted (its role and length kept)."""
    attach(mem)
    s = open_session(
        mem,
        "s1",
        ("user", SAID),
        ("assistant", "Thank you for telling me."),
        ("user", "My favourite colour is blue."),
    )
    forgot = write_and_forget(s)
    assert forgot["status"] == "deleted" and forgot["erased"] == [forgot["id"]]
    s.end(now=NOW + timedelta(minutes=5))
    texts = kept(mem)
    assert mentions_hiv(texts) == []
    assert any("blue" in t for t in texts)  # the rest of the session is still extracted
    first = mem.store.query("SELECT role, content FROM turns WHERE seq = 1")[0]
    assert first["role"] == "user" and first["content"] == REDACTION_FILL * len(SAID)
    [event] = mem.store.query("SELECT payload FROM events WHERE kind = 'turn.redacted'")
    assert json.loads(event["payload"]) == {"reason": "user asked", "seq": 1, "session_id": "s1"}


def test_a_forget_before_an_earlier_sessions_job_runs_holds(mem: Memory) -> None:
    """Session s0 ended while no worker ran; the user repeats the fact in s1 and has it
    forgotten; when s0's job then runs, its turn is already redacted."""
    s0 = open_session(mem, "s0", ("user", SAID), ("user", "I like hiking in the Alps."))
    s0.end(now=NOW + timedelta(minutes=1))  # no dispatcher: the job waits in the store
    write_and_forget(open_session(mem, "s1", ("user", SAID)))
    app = attach(mem)
    app.sweep(now=NOW + timedelta(minutes=10), resend_queued=True)
    assert mem.jobs.counts().get("done") == 1
    texts = kept(mem)
    assert mentions_hiv(texts) == [] and any("hiking" in t for t in texts)


def test_a_restatement_resting_on_another_turn_is_suppressed(mem: Memory) -> None:
    """A model proposes the forgotten content again with evidence from a turn that was not
    redacted: the suppression drops it before the reviewer ever sees it."""
    seen: list[str] = []

    def review(request: ReviewRequest) -> ReviewOutput:
        seen.extend(item.candidate.content for item in request.items)
        return accept_all(request)

    backend = Scripted(
        candidates=[
            candidate(FACT, "the clinic called with my results"),
            candidate("The user likes hiking.", "I like hiking"),
        ],
        review=review,
        summary=f"{FACT} The user likes hiking.",
    )
    attach(mem, backend)
    s = open_session(
        mem,
        "s1",
        ("user", SAID),
        ("user", "Today the clinic called with my results. I like hiking."),
    )
    write_and_forget(s)
    s.end(now=NOW + timedelta(minutes=5))
    assert seen == ["The user likes hiking."]
    assert mentions_hiv(kept(mem)) == []
    [summary] = mem.store.query("SELECT content FROM records WHERE source_kind = 'session_summary'")
    assert summary["content"] == "The user likes hiking."


def test_a_forget_between_review_and_validate_is_honoured(mem: Memory) -> None:
    """The forget lands while the reviewer is thinking: the validator rejects the candidate it
    accepted, and its output keeps no words of it."""
    s = open_session(mem, "s1", ("user", SAID), ("user", "I like hiking in the Alps."))
    written = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": FACT,
            "source_kind": "user_statement",
            "evidence": "I'm HIV positive",
        },
        now=NOW,
    )

    def review(request: ReviewRequest) -> ReviewOutput:
        mem.forget(written["id"], reason="user asked", now=NOW)
        return accept_all(request)

    backend = Scripted(
        candidates=[
            candidate(FACT, "I'm HIV positive"),
            candidate("The user likes hiking.", "I like hiking"),
        ],
        review=review,
    )
    attach(mem, backend)
    job_id = s.end(now=NOW + timedelta(minutes=5))
    assert mentions_hiv(kept(mem)) == []
    validated = mem.jobs.stage_output(job_id, "validate")
    assert validated["rejected"] == [{"index": 0, "reason": "restates a forgotten record"}]


def test_a_suppression_holds_no_text(mem: Memory) -> None:
    """What the suppression keeps: a digest and a vector, never the words."""
    write_and_forget(open_session(mem, "s1", ("user", SAID)))
    [row] = mem.store.query("SELECT * FROM suppressions")
    assert row["record_id"] and row["scope"] == "user:alice"
    held = " ".join(str(v) for v in dict(row).values() if not isinstance(v, bytes)).lower()
    assert "hiv" not in held and "positive" not in held


def test_suppressions_stay_in_their_user(mem: Memory) -> None:
    """Bob's sessions do not lose the same words because Alice forgot them."""
    mem.grant("assistant", "user:bob", now=NOW)
    write_and_forget(open_session(mem, "s1", ("user", SAID)))
    attach(mem, Scripted(candidates=[candidate(FACT, "I'm HIV positive")]))
    bob = mem.session(agent_id="assistant", user_id="bob", session_id="b1", now=NOW)
    bob.add_turn("user", SAID, at=NOW)
    bob.end(now=NOW + timedelta(minutes=5))
    assert mentions_hiv(kept(mem)) == [FACT]


def test_the_evidence_turn_is_redacted_whatever_the_length_of_the_quote(mem: Memory) -> None:
    """A two-word quote ("HIV positive") is too short to look for in other turns, but the
    turn it was found in is known (the record's observation names it): that turn is
    redacted, so the session's extraction cannot say the fact again from it."""
    attach(mem)
    s = open_session(mem, "s1", ("user", SAID), ("user", "My favourite colour is blue."))
    written = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": FACT,
            "source_kind": "user_statement",
            "evidence": "HIV positive",
        },
        now=NOW,
    )
    assert written["status"] == "confirmed"
    s.call("memory_forget", {"id": written["id"]}, now=NOW)
    turns = [r["content"] for r in mem.store.query("SELECT content FROM turns ORDER BY seq")]
    assert turns == [REDACTION_FILL * len(SAID), "My favourite colour is blue."]
    s.end(now=NOW + timedelta(minutes=5))
    texts = kept(mem)
    assert mentions_hiv(texts) == [] and any("blue" in t for t in texts)


def test_a_summary_that_lists_the_fact_among_others_is_erased_with_it(mem: Memory) -> None:
    """The offline summary joins what it remembered with semicolons ("Remembered: The user
    is HIV positive; The user's favourite colour is blue."): the record's content ends with
    a period there is not, and the summary quoting it survived the forget."""
    attach(mem)
    s = open_session(mem, "s1", ("user", SAID), ("user", "My favourite colour is blue."))
    s.end(now=NOW + timedelta(minutes=5))
    [fact] = mem.store.query("SELECT id FROM records WHERE content = ?", (FACT,))
    [summary] = mem.store.query("SELECT id FROM records WHERE source_kind = 'session_summary'")
    later = open_session(mem, "s2")
    forgot = later.call("memory_forget", {"id": fact["id"]}, now=NOW + timedelta(days=1))
    assert summary["id"] in forgot["erased"]
    assert mentions_hiv(kept(mem)) == [] and any("blue" in t for t in kept(mem))


def test_a_summary_clause_restating_the_fact_is_dropped(mem: Memory) -> None:
    """A model's summary that says the forgotten fact as one clause of a longer sentence
    ("...; the user is HIV positive, and ...") loses that sentence: the summary is checked
    clause by clause, and a clause's missing end period does not make it another text."""
    backend = Scripted(
        candidates=[candidate("The user likes hiking.", "I like hiking")],
        summary="They talked about plans. The user likes hiking; the user is HIV positive, "
        "and prefers tea",
    )
    attach(mem, backend)
    s = open_session(mem, "s1", ("user", SAID), ("user", "I like hiking and tea."))
    write_and_forget(s)
    s.end(now=NOW + timedelta(minutes=5))
    assert mentions_hiv(kept(mem)) == []
    [summary] = mem.store.query("SELECT content FROM records WHERE source_kind = 'session_summary'")
    assert summary["content"] == "They talked about plans."


# A later session's words, extracted through the offline pipeline on the packaged model.
DENTIST = "My dentist is Dr. Priya Patel."


def forget_extracted(mem: Memory, words: str, *, days: int) -> None:
    """Forget, ``days`` after NOW, the one live record whose evidence lies in ``words``."""
    [record] = [r for r in stated_records(mem) if r.evidence and r.evidence in words]
    s = mem.session(agent_id="assistant", user_id="alice", session_id="f", now=NOW)
    forgot = s.call("memory_forget", {"id": record.id}, now=NOW + timedelta(days=days))
    assert forgot["status"] == "deleted"


def dentist_records(memory: Memory) -> list[str]:
    rows = memory.store.query("SELECT content FROM records WHERE status != 'deleted'")
    return [r["content"] for r in rows if "Patel" in r["content"]]


def test_what_the_user_says_again_after_the_forget_is_extracted(tmp_path: Path) -> None:
    """The user has their dentist forgotten, then tells it again in a later session: it is
    theirs to keep, as a model's write quoting that turn is (core.suppressions.restated).
    Before, the suppression dropped it for good, and "Who is my dentist?" found only the
    later session's summary of topics."""
    with extracting_memory(tmp_path / "m.db", shared_embedder(Config().embedder)) as memory:
        extracted_session(memory, "s1", DENTIST, "I like hiking in the Alps.", days=-30)
        forget_extracted(memory, DENTIST, days=-20)
        assert dentist_records(memory) == []
        extracted_session(memory, "s2", f"Oh by the way, {DENTIST}", days=-10)
        assert dentist_records(memory) == ["The user's dentist is Dr. Priya Patel."]
        asked = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=NOW)
        found = asked.call("memory_search", {"query": "Who is my dentist?"}, now=NOW)
        assert found["results"][0]["content"] == "The user's dentist is Dr. Priya Patel."


def test_what_only_the_assistant_says_again_stays_forgotten(tmp_path: Path) -> None:
    """A later session where the model brings the forgotten fact up and the user only agrees:
    no user turn says it, so nothing of it is written (the user did not say it again)."""
    with extracting_memory(tmp_path / "m.db", shared_embedder(Config().embedder)) as memory:
        extracted_session(memory, "s1", DENTIST, days=-30)
        forget_extracted(memory, DENTIST, days=-20)
        start = NOW + timedelta(days=-10)
        s = memory.session(agent_id="assistant", user_id="alice", session_id="s2", now=start)
        s.add_turn("assistant", "Your dentist is Dr. Priya Patel, right?", at=start)
        s.add_turn("user", "Yes, that's right, thanks for checking.", at=start)
        assert memory.jobs.status(s.end(now=start))["status"] == "done"
        assert dentist_records(memory) == []  # nor the model's words, which echo it


@pytest.mark.parametrize(
    "pasted",
    [
        "Why do you still have this? The user's dentist is Dr. Priya Patel.",
        "Please delete: my dentist is Dr. Priya Patel.",
        "My notes say my dentist is Dr. Priya Patel.",
        "old memory:\nMy dentist is Dr. Priya Patel.",  # pasted under a header (fourth review)
        "My dentist is Dr. Priya Patel. Not anymore though.",  # taken back after it
    ],
)
def test_the_fact_pasted_or_wrapped_is_not_the_user_saying_it_again(
    tmp_path: Path, pasted: str
) -> None:
    """Two reviews': the memory's own words pasted back in a complaint, or the user's quoted
    inside a request or a report, brought the forgotten fact back. Only a sentence of its own,
    in the first person, says it again (core.suppressions.told_again)."""
    with extracting_memory(tmp_path / "m.db", shared_embedder(Config().embedder)) as memory:
        extracted_session(memory, "s1", DENTIST, days=-30)
        forget_extracted(memory, DENTIST, days=-20)
        extracted_session(memory, "s2", pasted, days=-10)
        assert dentist_records(memory) == []


@pytest.mark.parametrize(
    ("quote", "said", "again"),
    [
        ("My dentist is Dr. Patel", "My dentist is Dr. Patel.", True),
        ("Oh, and my dentist is Dr. Patel.", "Oh, and my dentist is Dr. Patel.", True),
        ("My dentist is Dr. Patel", "I still see her every spring. My dentist is Dr. Patel.", True),
        ("I'm pregnant", "Actually it's fine to remember: I'm pregnant.", True),
        ("My dentist is Dr. Patel", "This is wrong:\nA line.\nMy dentist is Dr. Patel.", False),
        ("My dentist is Dr. Patel", "My dentist is Dr. Patel. Well, was, until last year.", False),
        ("is my dentist still Dr. Patel", "is my dentist still Dr. Patel", False),
        ("My dentist is Dr. Patel", "\u2018My dentist is Dr. Patel.\u2019", False),
        ("my dentist is Dr. Patel", "Not true: my dentist is Dr. Patel.", False),
    ],
)
def test_what_counts_as_told_again(quote: str, said: str, again: bool) -> None:
    """The fourth review's: a quote with its lead ("Oh, and ...") was refused to a model's
    write, a plain sentence after one holding "still" was refused, and pasted, taken back,
    questioned or quoted restatements counted (core.suppressions.told_again)."""
    assert told_again(quote, said) is again

"""Passages (core.passages): a record that says several things is found by the one asked about.

Against real SQLite files and the packaged model: a question about one sentence of a long
turn finds the turn (a whole-record vector alone leaves it under the gate's floor), the
result says a passage found it, and the passages' vectors live and die with the record's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from structlog.testing import capture_logs

from agent_memory.core import Config, HashingEmbedder, Memory, reembed
from agent_memory.core.embedder import SINGLE_PASS_MAX, FlagEmbedder
from agent_memory.core.index import discounted
from agent_memory.core.models import MemoryType, Record, SourceKind, Status
from agent_memory.core.passages import MAX_PASSAGES, embed, passages
from agent_memory.core.search.explain import for_model
from agent_memory.core.write import supersession
from tests.support.clock import NOW
from tests.support.stores import search, user_store

SISTER = (
    "Thanks for the packing list, that helps a lot. Work has been crazy this month because "
    "of the audit. Also my sister Marta just moved to Lisbon for a job at a bank."
)
OTHERS = [
    "Can you suggest a weekend hike near Denver that is good for beginners?",
    "I'm trying to cut down on coffee, any tips for afternoon slumps?",
    "What's a good beginner sourdough recipe?",
    "My landlord wants to raise the rent by 8 percent, is that legal in Colorado?",
    "I started learning the cello in January and I practise every evening.",
    "Could you help me write a birthday message for my colleague Dana?",
    "We adopted a rescue cat last spring and she hates the vacuum cleaner.",
    "Any ideas for a cheap anniversary dinner at home?",
    "I need a reminder system for taking my vitamins.",
]


def test_a_passage_is_a_sentence_or_a_pronoun_led_one_with_the_one_before() -> None:
    assert passages("Her name is Priya Raman.") == []  # one passage: the record's own vector
    assert passages("Perfect. Thanks!") == []  # one-word sentences are no passage
    assert passages("I saw Dr. Patel about my knee, e.g. the left one.") == []  # one sentence
    assert passages("I moved to Oslo last May. My sister lives in Bergen.\nShe is a nurse.") == [
        "I moved to Oslo last May.",
        "My sister lives in Bergen. She is a nurse.",
    ]
    assert passages("Can you email my manager? Her name is Priya Raman. Thanks a lot!") == [
        "Can you email my manager? Her name is Priya Raman.",
        "Thanks a lot!",
    ]
    many = " ".join(f"Fact number {i} is here." for i in range(MAX_PASSAGES + 5))
    assert len(passages(many)) == MAX_PASSAGES
    # A record whose vector also reads its context: its own words are a passage too.
    assert passages("Her name is Priya Raman.", in_context=True) == ["Her name is Priya Raman."]
    assert passages("Perfect.", in_context=True) == []


def test_a_passage_leaves_out_a_question_tagged_onto_its_statement() -> None:
    ask = "I do reformer pilates 3x a week, will that help with ski legs?"
    assert passages(ask, in_context=True) == ["I do reformer pilates 3x a week"]
    assert passages(f"user: {ask}", in_context=True) == ["user: I do reformer pilates 3x a week"]
    assert passages("I'm 6'0 165 lbs. I'm on a cut now - what's a good calorie target?") == [
        "I'm 6'0 165 lbs.",
        "I'm on a cut now",
    ]
    # The question is the last clause: a name set off by commas stays with its statement.
    sam = "user: My brother Sam, who owes me 3000, keeps asking for money; how do I say no?"
    assert passages(sam, in_context=True) == [sam.split(";")[0]]
    # A question alone, one that opens its sentence, one after a greeting or an opener, a
    # statement without a question: each is what it says.
    for said in (
        "Should I negotiate?",
        "user: Is it normal, or should I see a doctor?",
        "user: Where should I take my parents, who are visiting, for dinner?",
        "user: Hey, can dogs eat watermelon?",
        "user: Quick question, can I swap butter for coconut oil?",
        "user: To be honest, is it a bad idea to tell Keith?",
        "I moved to Oslo, and I love it.",
    ):
        assert passages(said, in_context=True) == [said]


def test_embed_returns_each_records_vector_and_passages_in_order() -> None:
    embedder = HashingEmbedder(32)
    texts = ["one record.", "A first sentence. A second sentence.", "three"]
    out = embed(embedder, texts, texts)
    assert [e.passages is None for e in out] == [True, False, True]
    assert np.allclose(out[1].vector, embedder.embed([texts[1]])[0])
    assert np.allclose(out[1].passages, embedder.embed(["A first sentence.", "A second sentence."]))
    with pytest.raises(ValueError, match="contents"):
        embed(embedder, texts, texts[:2])


def test_the_discount_grows_with_the_passages_a_record_has() -> None:
    one, two, six = discounted(np.array([0.5, 0.5, 0.5]), np.array([1, 2, 6]), 0.08)
    assert 0.5 > one > two > six > 0.5 - 0.2


def test_embed_gives_a_record_read_with_its_context_its_own_words_as_a_passage() -> None:
    """Not a procedure: its name and trigger are its description, before its content."""
    embedder = HashingEmbedder(32)
    contents = ["I do reformer pilates 3x a week", "Perfect.", "Run pytest -x first."]
    texts = [
        f"{contents[0]}\n12 May 2026\nI do reformer pilates 3x a week, ok?",
        contents[1],
        f"Test fix: when a test fails\n{contents[2]}",
    ]
    with_context, plain, procedure = embed(embedder, texts, contents)
    assert np.allclose(with_context.passages, embedder.embed(contents[:1]))
    assert plain.passages is None and procedure.passages is None


# An extracted sentence as the offline extractor keeps it: its turn is its retrieval context.
PILATES = "I do reformer pilates 3x a week"
PILATES_TURN = "12 May 2026\nI do reformer pilates 3x a week, will that help with ski legs?"


def test_a_sentence_read_with_its_turn_is_found_by_its_own_words(memory: Memory) -> None:
    """With its turn the record is at cosine 0.34 from the question, under a small store's
    floor (0.35), and the answer was empty; its own words are at 0.50, a passage of one less
    the discount (0.08 x sqrt(2 ln 2))."""
    facts = [
        {"content": PILATES, "context": PILATES_TURN, "source_kind": "user_statement"},
        *({"content": text, "source_kind": "user_statement"} for text in OTHERS),
    ]
    session = user_store(memory, facts)
    result = search(session, "What kind of workout do I do regularly?")
    assert [r["content"] for r in result["results"]][:1] == [PILATES]
    dense = result["results"][0]["explanation"]["generators"]["dense"]
    assert dense["passage"] is True and dense["whole"] < 0.35 <= dense["score"]


def test_a_turn_that_asks_after_its_statement_is_found_by_the_statement(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """The turn's own sentence is at cosine 0.35 from the question, under a small store's
    floor once discounted (the answer was empty); its statement without the question tagged
    onto it is at 0.50."""
    texts = [*OTHERS, PILATES_TURN.split("\n")[1]]
    turns = [
        {"id": f"t{i}", "role": "user", "text": text, "at": f"2026-03-{i + 1:02d}T10:00:00Z"}
        for i, text in enumerate(texts)
    ]
    with Memory.open(tmp_path / "m.db", embedder=real_embedder, now=NOW) as mem:
        ids = mem.import_conversation(turns, scope="user:u1", session_id="s1", now=NOW)
        mem.grant("a", "user:u1", now=NOW)
        session = mem.session(agent_id="a", user_id="u1", session_id="q", now=NOW)
        result = search(session, "What kind of workout do I do regularly?")
    found = {r["id"]: r["explanation"] for r in result["results"]}
    assert found[ids[-1]]["passed_on"] == "dense"  # empty before: the question dragged it down
    assert found[ids[-1]]["generators"]["dense"]["passage"] is True


@pytest.fixture
def conversation(tmp_path: Path, real_embedder: FlagEmbedder) -> Iterator[tuple[Memory, Any]]:
    with Memory.open(tmp_path / "m.db", embedder=real_embedder, now=NOW) as mem:
        turns = [
            {"id": f"t{i}", "role": "user", "text": text, "at": f"2026-03-{i + 1:02d}T10:00:00Z"}
            for i, text in enumerate([SISTER, *OTHERS])
        ]
        ids = mem.import_conversation(turns, scope="user:u1", session_id="s1", now=NOW)
        mem.grant("a", "user:u1", now=NOW)
        session = mem.session(agent_id="a", user_id="u1", session_id="q", now=NOW)
        yield mem, (session, ids[0])


def test_a_question_about_one_sentence_of_a_long_turn_finds_the_turn(
    conversation: tuple[Memory, Any],
) -> None:
    """The turn's whole vector is at cosine 0.19 from the question, under every floor of a
    store this size; its last sentence at 0.43. Without passages the answer is empty."""
    mem, (session, sister) = conversation
    question = {"query": "Where does my sister live?"}
    result = session.call("memory_search", question, now=NOW)
    assert result["results"] and result["results"][0]["id"] == sister
    dense = result["results"][0]["explanation"]["generators"]["dense"]
    assert dense["passage"] is True and dense["whole"] < 0.25 < dense["score"]
    reason = for_model("memory_search", question, result)["results"][0]["reason"]
    assert reason.startswith("dense #1 (a passage)")
    # The subject signal finds it too ("my sister ... moved to Lisbon" says where she lives):
    # off as well, the whole-record vector alone leaves it out.
    off = Config(retrieval={"passage_shortlist": 0}, gate={"subject_drop": 0.0})
    with Memory.open(mem.path, off, embedder=mem.embedder, now=NOW) as plain:
        plain_session = plain.session(agent_id="a", user_id="u1", session_id="q2", now=NOW)
        answer = plain_session.call("memory_search", {"query": "Where does my sister live?"})
        assert sister not in [r["id"] for r in answer["results"]]


def test_a_forgotten_record_leaves_no_passage_behind(conversation: tuple[Memory, Any]) -> None:
    mem, (session, sister) = conversation
    # Every imported turn reads the turns before it as context: each has its own words too.
    assert _passage_rows(mem) == 1 + len(OTHERS)
    mem.forget(sister, now=NOW)
    # The turns after it lose the context that quoted it, and with it their own words as a
    # passage: their vector is their own words now.
    rows = mem.store.query(
        "SELECT r.context IS NULL AS bare, length(e.passages) = 4 * e.dims AS own_words "
        "FROM embeddings AS e JOIN records AS r ON r.rowid = e.record_rowid "
        "WHERE e.passages IS NOT NULL"
    )
    assert len(rows) < len(OTHERS) and not any(row["bare"] and row["own_words"] for row in rows)
    result = session.call("memory_search", {"query": "Where does my sister live?"}, now=NOW)
    assert sister not in [r["id"] for r in result["results"]]
    assert sister not in [h.rowid for h in mem.index().search(mem.embedder.embed_one("Lisbon"), 20)]


def test_reembed_makes_passages_for_a_store_written_before_them(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """A version-14 store (no passages column) opens, its records without passages, and is
    searched as before; ``reembed`` gives its long records their passages."""
    path = tmp_path / "m.db"
    with Memory.open(path, embedder=real_embedder, now=NOW) as mem:
        mem.import_records([{"content": SISTER}, {"content": OTHERS[0]}], scope="user:u1")
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE embeddings DROP COLUMN passages")
        conn.execute("ALTER TABLE embeddings_staging DROP COLUMN passages")
        conn.execute("DROP INDEX records_said")  # migrations 16 to 18
        conn.execute("DROP INDEX records_turn_said")
        conn.execute("ALTER TABLE records DROP COLUMN said_by")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 15")
    conn.close()
    with capture_logs() as logs, Memory.open(path, embedder=real_embedder, now=NOW) as mem:
        assert _passage_rows(mem) == 0
        [notice] = [e for e in logs if e["event"] == "store.migrated"]
        assert notice["version"] == 15 and "agent-memory reembed" in notice["notice"]
        assert len(mem.index().search(real_embedder.embed_one("sister"), 5)) == 2
    assert reembed(path, Config(), embedder=real_embedder, now=NOW, progress=False) == 2
    with Memory.open(path, embedder=real_embedder, now=NOW) as mem:
        assert _passage_rows(mem) == 1
        [row] = mem.store.query(
            "SELECT length(passages) AS n FROM embeddings WHERE passages IS NOT NULL"
        )
        assert row["n"] == 3 * 384 * 4


def _passage_rows(mem: Memory) -> int:
    rows = mem.store.query("SELECT count(*) AS n FROM embeddings WHERE passages IS NOT NULL")
    return int(rows[0]["n"])


def test_a_rewrite_embeds_in_batches_of_the_single_pass_size_passages_counted() -> None:
    """A rewrite embeds inside the write transaction: a batch over the embedder's single-pass
    size takes the bulk path, whose first use loads torch while the lock is held (3.8 s
    against 0.02 s for two summaries of a few sentences, when batches counted records only)."""
    long = " ".join(f"Fact number {i} is here." for i in range(MAX_PASSAGES))
    texts = [long, long, "One sentence.", long, "Two here. And more."]
    records = [
        Record(
            id=f"mem_{i}",
            type=MemoryType.EPISODIC,
            content=text,
            scope="user:u1",
            source_kind=SourceKind.SYSTEM,
            status=Status.CONFIRMED,
            confidence=1.0,
            created_at="2026-03-01T10:00:00.000000Z",
        )
        for i, text in enumerate(texts)
    ]
    batches = list(supersession._batches(records))
    assert [r for batch in batches for r in batch] == records
    for batch in batches:
        embedded = sum(1 + len(passages(r.content)) for r in batch)
        assert embedded <= SINGLE_PASS_MAX or len(batch) == 1


def test_forgetting_drops_what_an_unfinished_reembed_staged(tmp_path: Path) -> None:
    """A re-embedding stopped after staging left a forgotten record's vector and passages in
    ``embeddings_staging``, where a guessed sentence matched its passage at cosine 1.0; a
    forget and a user's erasure now take them too."""
    embedder = HashingEmbedder(32)
    with Memory.open(tmp_path / "m.db", embedder=embedder, now=NOW) as mem:
        first, _ = mem.import_records(
            [{"content": SISTER}, {"content": f"{OTHERS[0]} {OTHERS[1]}"}], scope="user:u1"
        )
        rows = mem.store.query("SELECT rowid FROM records ORDER BY rowid")
        texts = [SISTER, f"{OTHERS[0]} {OTHERS[1]}"]
        mem.store.stage_vectors([r["rowid"] for r in rows], embed(embedder, texts, texts))
        mem.forget(first, now=NOW)
        assert _staged(mem) == 1
        mem.forget_user("u1", now=NOW)
        assert _staged(mem) == 0


def _staged(mem: Memory) -> int:
    return int(mem.store.query("SELECT count(*) AS n FROM embeddings_staging")[0]["n"])


def test_a_keyed_item_with_several_sentences_has_passages(tmp_path: Path) -> None:
    """An item's searchable text gets passages like any record's; put again with a text of
    one sentence, its new record has none (the superseded one keeps its own, as history)."""
    with Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(32), now=NOW) as mem:
        first = mem.items.put("project:p", ("notes",), "k", {"a": 1}, text=SISTER, now=NOW)
        second = mem.items.put("project:p", ("notes",), "k", {"a": 2}, text="A note.", now=NOW)
        rows = mem.store.query(
            "SELECT r.id FROM embeddings AS e JOIN records AS r ON r.rowid = e.record_rowid "
            "WHERE e.passages IS NOT NULL"
        )
        assert [r["id"] for r in rows] == [first] != [second]

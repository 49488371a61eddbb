"""A record's retrieval context is a copy of its evidence turn (or, for an imported turn, of
the turns before it), so it holds the words of the records written beside it. Forgetting one
of them must not leave its words searchable, embedded or stored in another record's context;
and a context never carries the user's turn into a scope other users read. Through the
offline pipeline, memory_forget and memory_search, on a real store and the packaged model."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import Record, SourceKind
from tests.support.clock import NOW
from tests.support.extraction import extracting_memory

LATER = NOW + timedelta(hours=1)
PRIVATE_TURN = "I have a dog named Rex. My therapist is Dr. Okonkwo."


def wide(text: str) -> str:
    """``text`` in fullwidth letters (NFKC folds them back to ASCII)."""
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


@pytest.fixture
def mem(tmp_path: Path, real_embedder: FlagEmbedder) -> Iterator[Memory]:
    grants = (("assistant", "user:alice"), ("assistant", "project:apollo"))
    with extracting_memory(tmp_path / "m.db", real_embedder, grants=grants) as memory:
        yield memory


def session(mem: Memory, text: str, **targets: str) -> None:
    """One session of alice's ``text`` (answered), ended and extracted offline."""
    s = mem.session(
        agent_id="assistant",
        user_id="alice",
        session_id="s1",
        write_targets={"personal": "user:alice", **targets},
        now=NOW,
    )
    s.add_turn("user", text, at=NOW)
    s.add_turn("assistant", "Okay.", at=NOW + timedelta(minutes=1))
    assert mem.jobs.status(s.end(now=NOW + timedelta(minutes=2)))["status"] == "done"


def stated(mem: Memory, word: str) -> Record:
    """The one live record the user's words gave whose content holds ``word``."""
    rows = mem.store.query("SELECT id FROM records WHERE status != 'deleted'")
    found = mem.store.get_records([r["id"] for r in rows]).values()
    (record,) = [
        r for r in found if word in r.content and r.source_kind is not SourceKind.SESSION_SUMMARY
    ]
    return record


def call(mem: Memory, tool: str, args: dict[str, Any], user: str = "alice") -> dict[str, Any]:
    s = mem.session(
        agent_id="assistant",
        user_id=user,
        session_id=f"ask-{user}",
        write_targets={"personal": f"user:{user}", "current_project": "project:apollo"},
        now=LATER,
    )
    result = s.call(tool, args, now=LATER + timedelta(minutes=1))
    assert "error" not in result, result
    return result


def found_ids(mem: Memory, query: str, user: str = "alice") -> list[str]:
    return [r["id"] for r in call(mem, "memory_search", {"query": query}, user)["results"]]


def fts_context(mem: Memory, record: Record) -> str:
    (row,) = mem.store.query("SELECT context FROM records_fts WHERE rowid = ?", [record.rowid])
    return str(row["context"])


def stored_vector(mem: Memory, record: Record) -> np.ndarray:
    (row,) = mem.store.query("SELECT vector FROM embeddings WHERE record_rowid = ?", [record.rowid])
    return np.frombuffer(row["vector"], dtype=np.float32)


def test_a_forgotten_sentence_does_not_live_on_in_its_siblings_context(mem: Memory) -> None:
    """The dog's record carried the whole turn, the therapist's name included: after the
    therapist's record is forgotten, the dog's record keeps its content, loses the turn
    (stored, full-text and embedded), and a query for the name no longer finds it."""
    session(mem, PRIVATE_TURN)
    private, dog = stated(mem, "Okonkwo"), stated(mem, "Rex")
    assert dog.context is not None and "Okonkwo" in dog.context
    call(mem, "memory_forget", {"id": private.id, "reason": "asked"})

    after = mem.store.get_records([dog.id])[dog.id]
    assert after.content == dog.content and after.status is dog.status
    assert after.context is None
    assert "Okonkwo" not in fts_context(mem, dog)
    # Its vector is now its content's alone, so nothing of the turn is embedded either.
    (alone,) = mem.engine.embedder.embed([dog.content])
    assert float(stored_vector(mem, dog) @ alone) == pytest.approx(1.0, abs=1e-4)
    (event,) = mem.store.query("SELECT payload FROM events WHERE kind = 'record.context_erased'")
    assert "Okonkwo" not in event["payload"] and private.id in event["payload"]
    for query in ("Okonkwo", "therapist Dr. Okonkwo"):
        assert dog.id not in found_ids(mem, query), query
    assert dog.id in found_ids(mem, "dog named Rex")


def test_a_short_quote_is_erased_from_a_siblings_context_too(mem: Memory) -> None:
    """'I'm vegetarian' is two words, too short to look for in other turns, but it is the
    quote the forgotten record rested on, and the sibling's context holds it verbatim."""
    session(mem, "I have a dog named Rex. I'm vegetarian.")
    veg, dog = stated(mem, "vegetarian"), stated(mem, "Rex")
    call(mem, "memory_forget", {"id": veg.id})
    assert mem.store.get_records([dog.id])[dog.id].context is None
    assert "vegetarian" not in fts_context(mem, dog)


def test_an_unrelated_context_is_kept(mem: Memory) -> None:
    """Only contexts that hold the forgotten words lose them."""
    session(mem, PRIVATE_TURN)
    s = mem.session(agent_id="assistant", user_id="alice", session_id="s2", now=NOW)
    s.add_turn("user", "My sister Hanna is visiting from Stockholm next week.", at=NOW)
    assert mem.jobs.status(s.end(now=NOW + timedelta(minutes=1)))["status"] == "done"
    hanna = stated(mem, "Hanna")
    call(mem, "memory_forget", {"id": stated(mem, "Okonkwo").id})
    assert mem.store.get_records([hanna.id])[hanna.id].context == hanna.context


@pytest.mark.parametrize(
    ("said", "secret"),
    [
        ("My SSN is 123-45-6789, keep it.", "6789"),
        # Fullwidth: only its normal form (NFKC) is ASCII, so no plain word finds the copy.
        (f"My {wide('PIN')} hint: {wide('zebrastripes')}", wide("z")),
    ],
)
def test_a_forgotten_imported_turn_leaves_no_quote_in_the_turns_after_it(
    mem: Memory, said: str, secret: str
) -> None:
    """An imported turn's context quotes the turns before it: forgetting a turn takes its
    words out of the contexts of the turns that quoted it."""
    ids = mem.import_conversation(
        [
            {"id": "t1", "role": "user", "text": said, "at": NOW},
            {"id": "t2", "role": "assistant", "text": "Noted, I will.", "at": NOW},
            {"id": "t3", "role": "user", "text": "Thanks a lot.", "at": NOW},
        ],
        scope="user:alice",
        agent_id="assistant",
        now=NOW,
    )
    quoting = mem.store.get_records(ids[1:])
    assert all(secret in (r.context or "") for r in quoting.values())
    call(mem, "memory_forget", {"id": ids[0]})
    for record in mem.store.get_records(ids[1:]).values():
        assert secret not in (record.context or "") and secret not in fts_context(mem, record)
    assert not set(ids) & set(found_ids(mem, said))


def test_a_record_in_a_shared_scope_does_not_carry_the_users_turn(mem: Memory) -> None:
    """A team plan goes to the project scope, which bob's sessions read too; the turn it came
    from also names alice's therapist. Only her own records carry the turn, so bob's query
    for the name finds nothing. (A credential, "My SSN is ...", is not kept at all:
    tests/workers/test_forget_requests.py.)"""
    session(
        mem,
        "We're moving the launch to March. My therapist is Dr. Okonkwo.",
        current_project="project:apollo",
    )
    plan = stated(mem, "launch")
    assert plan.scope == "project:apollo" and plan.context is None
    assert "Okonkwo" not in fts_context(mem, plan)
    assert stated(mem, "Okonkwo").context is not None  # alice's own record keeps its turn
    assert plan.id not in found_ids(mem, "Okonkwo therapist", user="bob")
    assert plan.id in found_ids(mem, "launch in March", user="bob")


def test_a_restore_erases_the_copies_again(mem: Memory, tmp_path: Path) -> None:
    """A snapshot taken before the forget still holds the sibling's context; restoring it
    re-applies the forget (core.ledger), copies included."""
    session(mem, PRIVATE_TURN)
    private, dog = stated(mem, "Okonkwo"), stated(mem, "Rex")
    snapshot = mem.snapshot(tmp_path / "before.db")
    call(mem, "memory_forget", {"id": private.id})
    mem.restore(snapshot, now=LATER + timedelta(hours=1))
    assert mem.store.get_records([dog.id])[dog.id].context is None
    (alone,) = mem.engine.embedder.embed([dog.content])  # re-embedded, not left without one
    assert float(stored_vector(mem, dog) @ alone) == pytest.approx(1.0, abs=1e-4)
    assert dog.id not in found_ids(mem, "Okonkwo")

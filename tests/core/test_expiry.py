"""A provisional record past expires_at is expired at read time, whether or not the worker's
sweep (Memory.expire_provisional) has run: an embedded host without a worker never serves it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.filters import RecordFilter
from agent_memory.core.models import HISTORY_STATUSES, Status, format_time
from agent_memory.core.search.lexical import fts_match, query_tokens
from agent_memory.core.session import Session
from tests.support.clock import NOW

LATER = NOW + timedelta(days=90)  # the provisional TTL is 30 days
QUERY = "Which database does Apollo staging run on?"
GUESS = {
    "type": "semantic",
    "content": "Apollo staging probably runs on the Postgres database.",
    "source_kind": "agent_inference",
    "about": [{"kind": "project", "name": "Apollo"}],
}


@pytest.fixture
def session(memory: Memory) -> Session:
    memory.grant("assistant", "user:alice", now=NOW)
    return memory.session(agent_id="assistant", user_id="alice", session_id="s-a", now=NOW)


@pytest.fixture
def guess(session: Session) -> str:
    """An agent inference written at NOW: provisional, expiring 30 days later."""
    result = session.call("memory_write", GUESS, now=NOW)
    assert result["status"] == "provisional", result
    return str(result["id"])


def get(session: Session, record_id: str, *, at: datetime, history: bool = False) -> Any:
    arguments = {"ids": [record_id], "include_history": history}
    return session.call("memory_get", arguments, now=at)


def rowid_of(memory: Memory, record_id: str) -> int:
    return int(memory.store.get_records([record_id])[record_id].rowid or 0)


def test_every_generator_drops_a_lapsed_provisional_record(
    memory: Memory, session: Session, guess: str
) -> None:
    """With the request's now in the hard filter, the dense mask, the lexical (FTS) and the
    entity generator all skip the lapsed record, with no sweep having run; while it is live,
    each of them finds it."""
    rowid = rowid_of(memory, guess)
    scopes = session.readable_scopes()
    retriever = memory.retriever()
    vector = memory.embedder.embed_one(QUERY)
    match = fts_match(query_tokens(QUERY))

    def found(at: datetime | None, **extra: Any) -> dict[str, bool]:
        where = RecordFilter(scopes=scopes, now=None if at is None else format_time(at), **extra)
        return {
            "dense": rowid in {h.rowid for h in memory.index().search(vector, 10, where=where)},
            # The filter inside the FTS query, and ranked first then filtered (most of the
            # store readable): both placements apply the same predicate.
            "lexical": guess
            in {i for i, _ in retriever.generators.ranked_fts5(match, where, 10, share=0.0)},
            "lexical, filter after": guess
            in {i for i, _ in retriever.generators.ranked_fts5(match, where, 10, share=1.0)},
            "entity": guess
            in {
                i
                for i, _ in retriever.generators.entity(
                    QUERY, (), where, scopes, 10, index=memory.index(), relevance={}
                )[0]
            },
        }

    generators = ("dense", "lexical", "lexical, filter after", "entity")
    everywhere = dict.fromkeys(generators, True)
    nowhere = dict.fromkeys(generators, False)
    assert found(NOW) == everywhere
    assert found(LATER) == nowhere
    assert found(NOW + timedelta(days=30)) == nowhere  # expires_at itself: expired
    assert found(None) == everywhere  # no now: the stored status, as before
    assert found(LATER, statuses=HISTORY_STATUSES) == everywhere  # history: expired is in
    assert found(LATER, statuses=frozenset({Status.EXPIRED})) == everywhere  # reads as expired
    assert memory.store.get_records([guess])[guess].status == "provisional"  # nothing written


def test_memory_search_skips_a_lapsed_provisional_record(session: Session, guess: str) -> None:
    """Found by dense, lexical and entity matching while live; 90 days later, with no sweep,
    memory_search no longer returns it."""
    live = session.call("memory_search", {"query": QUERY}, now=NOW)
    [hit] = [r for r in live["results"] if r["id"] == guess]
    assert {"dense", "lexical", "entity"} <= set(hit["explanation"]["generators"])
    later = session.call("memory_search", {"query": QUERY}, now=LATER)
    assert guess not in [r["id"] for r in later["results"]]
    history = session.call("memory_search", {"query": QUERY, "include_history": True}, now=LATER)
    [old] = [r for r in history["results"] if r["id"] == guess]
    assert old["status"] == old["explanation"]["status"] == "expired"


def test_memory_get_reads_a_lapsed_provisional_record_as_expired(
    memory: Memory, session: Session, guess: str
) -> None:
    """90 days later with no sweep: missing by default, "expired" with include_history, and the
    read writes nothing; after the sweep the answers are the same."""
    assert get(session, guess, at=NOW)["records"][0]["status"] == "provisional"
    version = memory.store.records_version
    assert get(session, guess, at=LATER) == {"records": [], "missing": [guess]}
    [record] = get(session, guess, at=LATER, history=True)["records"]
    assert record["status"] == "expired"
    assert memory.store.records_version == version
    assert memory.store.get_records([guess])[guess].status == "provisional"
    assert memory.expire_provisional(now=LATER) == [guess]
    assert get(session, guess, at=LATER) == {"records": [], "missing": [guess]}
    assert get(session, guess, at=LATER, history=True)["records"][0]["status"] == "expired"


def test_a_lapsed_provisional_record_cannot_be_revived(
    memory: Memory, session: Session, guess: str
) -> None:
    """As after the sweep: confirming it is NotFound, and writing the same guess again makes a
    new record instead of reinforcing the lapsed one (which would extend its expiry)."""
    confirm = session.call("memory_revise", {"id": guess, "action": "confirm"}, now=LATER)
    assert confirm["error"]["code"] == "not_found" and "expired" in confirm["error"]["message"]
    again = session.call("memory_write", GUESS, now=LATER)
    assert again["action"] == "created" and again["id"] != guess, again
    assert memory.store.get_records([guess])[guess].expires_at == format_time(
        NOW + timedelta(days=30)
    )


def test_reinforcing_extends_expiry_in_the_index_mirror(
    memory: Memory, session: Session, guess: str
) -> None:
    """Reinforcement moves expires_at and bumps records_version, so the index's mirror follows
    and the dense generator keeps the record past its first expiry."""
    rowid = rowid_of(memory, guess)
    vector = memory.embedder.embed_one(QUERY)
    memory.index()  # built now, so the reinforcement reaches it through the delta
    again = session.call("memory_write", GUESS, now=NOW + timedelta(days=20))
    assert again["action"] == "reinforced" and again["id"] == guess, again
    where = RecordFilter(
        scopes=session.readable_scopes(), now=format_time(NOW + timedelta(days=40))
    )
    assert rowid in {h.rowid for h in memory.index().search(vector, 10, where=where)}
    assert get(session, guess, at=NOW + timedelta(days=40))["missing"] == []


def test_a_new_fact_does_not_supersede_a_lapsed_guess_on_its_subject(session: Session) -> None:
    """A write on the subject of a lapsed provisional record is a new record, as it would be
    after the sweep, not version 2 of the expired guess."""
    guess = {**GUESS, "attribute": "staging_database"}
    old = session.call("memory_write", guess, now=NOW)
    assert old["status"] == "provisional", old
    fact = {
        **guess,
        "content": "Apollo staging runs on SQLite.",
        "source_kind": "agent_inference",
    }
    new = session.call("memory_write", fact, now=LATER)
    assert new["action"] == "created" and new["supersedes_id"] is None, new
    [kept] = get(session, old["id"], at=LATER, history=True)["records"]
    assert kept["status"] == "expired"

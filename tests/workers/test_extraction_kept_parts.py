"""A correction retires the claim it changes, not the rest of the sentence it was said in
(core.extraction.verbatim.unchanged, core.write.supersession.keep_part): through the offline
extractor and reviewer, the whole pipeline, a real store and the packaged model.

A verbatim statement often says several things at once ("our son was born in May and he
sleeps fine, and our flat in Hackney is tiny"); when a later turn changes one of them ("we
moved ... bye bye Hackney flat"), the record of the statement is retired, and the words the
correction left as they were come back as a live record of their own, with the retired
record's turn, session and statement time, and an audit event naming both records."""

from __future__ import annotations

import json

import pytest

from agent_memory.core import Memory
from agent_memory.core.extraction.verbatim import unchanged
from agent_memory.core.models import Record, Status
from tests.support.extraction import extracted_session, stated_records

BORN = (
    "Sorry for the slow replies, our son Tobias was born five weeks ago and he hates naps, "
    "and our apartment in Hackney is far too small for the three of us lol"
)
MOVED = (
    "Big news, we moved! Got the keys to a house in Walthamstow on Saturday. "
    "Bye bye tiny Hackney apartment."
)


records = stated_records


def search(mem: Memory, query: str) -> list[str]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="q")
    return [r["content"] for r in s.call("memory_search", {"query": query})["results"]]


def test_the_unchanged_claims_of_a_retired_statement_stay_live(mem: Memory) -> None:
    extracted_session(mem, "s1", BORN)
    extracted_session(mem, "s2", MOVED, days=30)
    by_content = {r.content: r for r in records(mem)}
    old = next(r for r in by_content.values() if r.content.startswith("Sorry for the slow"))
    assert "Hackney" in old.content and old.status is Status.SUPERSEDED
    kept_words = "our son Tobias was born five weeks ago and he hates naps"
    kept = by_content[kept_words]
    assert kept.status is Status.CONFIRMED
    assert kept.evidence == kept_words and kept_words in old.evidence
    # The retired record's turn and time: a question about then still finds it then.
    assert (kept.session_id, kept.stated_at, kept.event_at) == (
        old.session_id,
        old.stated_at,
        old.event_at,
    )
    # The context the turn's other records keep once the statement is retired: no Hackney.
    assert kept.context is not None and "Hackney" not in kept.context
    [event] = mem.store.query(
        "SELECT payload FROM events WHERE kind = 'record.part_kept' AND record_id = ?", (kept.id,)
    )
    payload = json.loads(event["payload"])
    assert payload["retired"] == old.id
    assert payload["by"] in {r.id for r in records(mem) if r.session_id == "s2"}
    assert any("Tobias" in c for c in search(mem, "What is my son's name?"))
    assert not any("Tobias" in c for c in search(mem, "Where do we live?"))


def test_a_correction_that_touches_every_claim_keeps_nothing(mem: Memory) -> None:
    """ "We cancelled the Lisbon trip" leaves nothing of a sentence that is only the trip."""
    extracted_session(
        mem, "s1", "In June we fly to Lisbon for ten days, and the Lisbon flat is booked."
    )
    extracted_session(mem, "s2", "Update: we cancelled the Lisbon trip, the flat too.", days=20)
    live = [r.content for r in records(mem) if r.status is Status.CONFIRMED]
    assert not any("June" in c for c in live)


@pytest.mark.parametrize(
    ("statement", "correction", "kept"),
    [
        # A clause without its own subject and verb belongs to the one before it: the trip's
        # cities and length go with the trip; the children's ages are kept.
        (
            "In July we go to Portugal, Lisbon and Porto, 12 days, with my wife Ana and the "
            "kids, Leo is 7 and Mia is 3.",
            "We go to Chile instead, 6 days, from July 14.",
            ["Leo is 7 and Mia is 3."],
        ),
        # "he" points back: it joins the clause naming Tobias.
        (
            "our son Tobias was born in May and he hates naps, and our flat in Hackney is tiny",
            "we moved out of the Hackney flat",
            ["our son Tobias was born in May and he hates naps"],
        ),
        # What follows "so" hangs on what went before: one clause, retired whole.
        (
            "I cover REITs at Harbourline so I do this every week",
            "I cover banks instead of REITs",
            [],
        ),
        # No shared word: linked by meaning alone, so no reading of what changed.
        ("I drive a grey Passat, it eats diesel", "Picked up an electric Skoda on Saturday", []),
        # Every clause touched.
        ("Adam is 15, he plays hockey", "Adam quit hockey", []),
        # A kept part must tell something on its own and not point back.
        ("We switched to the blue sofa, and that was that", "the sofa went back", []),
        ("The gym is on Elm Street, it's open late", "the gym on Elm Street closed", []),
        # The same subject goes on about the changed claim: nothing is kept.
        (
            "I've just done my third night shift in a row and I can't sleep during the day.",
            "I moved to day shifts, no more night shifts.",
            [],
        ),
        (
            "I work at Paylane and my wife Ana is a nurse.",
            "I quit Paylane last month",
            ["my wife Ana is a nurse."],
        ),
        # A colon spells out what went before it: one clause.
        (
            "Our flat in Hackney is tiny: the kids share a room",
            "we moved out of the Hackney flat",
            [],
        ),
        # "Ana and I": two subjects of one clause, not a clause "I are getting married".
        (
            "Ana and I are getting married in June, and my brother Tom is the best man.",
            "Ana and I broke up, the wedding is off.",
            [],
        ),
        # A thing, place or role beside the changed claim goes with it.
        ("We booked Rome for May, and the hotel is near the Pantheon.", "Rome is cancelled", []),
        ("I work at Paylane and my manager is Tom Reyes.", "I left Paylane last month", []),
        # A plan or arrangement hangs on what changed.
        (
            "Our flight to Cancun is on December 20, and my sister Jo is watching the dog.",
            "The Cancun trip is cancelled.",
            [],
        ),
        # A thing pointed at that the kept words do not name.
        ("The launch is on Sept 30 and Marco is leading it.", "the launch slipped", []),
        # "he" goes on with the clause before it, whatever follows.
        (
            "our son Tobias was born in May and he hates naps and our flat in Hackney is tiny",
            "we moved out of the Hackney flat",
            ["our son Tobias was born in May and he hates naps"],
        ),
        # Someone as an object, or a place by where the user lived, is lost without its turn.
        ("Our puppy Rufus is 3, and our cat Luna hates him.", "Rufus is 4 now, not 3.", []),
        ("We sold the flat in Lyon, my parents live two streets away.", "we moved from Lyon", []),
        # "Dr." does not end a sentence.
        (
            "We live in Leeds, and my spouse Dr. Elena Petrova is a cardiologist.",
            "we moved out of Leeds",
            ["my spouse Dr. Elena Petrova is a cardiologist."],
        ),
        # "3,500" is one number, not two parts.
        (
            "The course costs 3,500 dollars and my sister Rita pays half",
            "the course moved online",
            ["my sister Rita pays half"],
        ),
    ],
)
def test_unchanged_reads_clauses(statement: str, correction: str, kept: list[str]) -> None:
    assert unchanged(statement, correction) == kept
    for words in kept:
        assert words in statement


def kept_and_retired(mem: Memory) -> tuple[Record, Record]:
    extracted_session(mem, "s1", BORN)
    extracted_session(mem, "s2", MOVED, days=30)
    found = records(mem)
    retired = next(r for r in found if r.content.startswith("Sorry for the slow"))
    kept = next(r for r in found if r.content.startswith("our son Tobias"))
    return kept, retired


def forget(mem: Memory, record_id: str) -> dict[str, object]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="f")
    return s.call("memory_forget", {"id": record_id, "reason": "asked"})


def holding(mem: Memory, word: str) -> int:
    """Records but summaries (any status but erased) whose content, evidence or context holds
    ``word``. A summary's topic words are a limit of forgetting of their own (README)."""
    [row] = mem.store.query(
        "SELECT count(*) AS n FROM records WHERE status != 'deleted' "
        "AND source_kind != 'session_summary' "
        "AND (content LIKE ? OR evidence LIKE ? OR context LIKE ?)",
        (f"%{word}%",) * 3,
    )
    return int(row["n"])


@pytest.mark.parametrize("which", ["kept", "retired"])
def test_forgetting_a_kept_part_or_its_statement_forgets_both(mem: Memory, which: str) -> None:
    """The kept part holds the retired statement's words and the statement the part's: either
    forgotten, no record keeps "Tobias", live or history."""
    kept, retired = kept_and_retired(mem)
    assert holding(mem, "Tobias") == 2
    forget(mem, kept.id if which == "kept" else retired.id)
    assert holding(mem, "Tobias") == 0
    assert not any("Tobias" in c for c in search(mem, "What is my son's name?"))


def test_a_kept_part_never_restates_a_forgotten_record(mem: Memory) -> None:
    """Said on its own and forgotten, then said again beside a claim a later turn changes:
    the retired statement's part is not written back."""
    extracted_session(mem, "s0", "Our son Tobias was born five weeks ago and he hates naps.")
    [first] = [r for r in records(mem) if "Tobias" in r.content]
    forget(mem, first.id)
    extracted_session(mem, "s1", BORN, days=1)
    extracted_session(mem, "s2", MOVED, days=30)
    live = [r.content for r in records(mem) if r.status is Status.CONFIRMED]
    assert not any("Tobias" in c for c in live)


def test_retiring_two_records_of_one_turn_narrows_what_is_left(mem: Memory) -> None:
    """One correction retires two records of a turn: the turn's other record loses both
    quotes from its context (the second read again after the first narrowed it)."""
    extracted_session(
        mem,
        "s1",
        "The Hackney flat has mould again. The Hackney landlord never answers. "
        "Biscuit loves the park by the canal.",
    )
    extracted_session(
        mem, "s2", "Big news, we moved out of the Hackney flat, the landlord too!", days=20
    )
    [biscuit] = [r for r in records(mem) if r.content.startswith("Biscuit")]
    assert biscuit.status is Status.CONFIRMED
    retired = [r for r in records(mem) if r.status is Status.SUPERSEDED]
    assert biscuit.context is not None
    for record in retired:
        assert (record.evidence or "") not in biscuit.context


SIBLINGS = (
    "Sorry for the slow replies, our son Tobias was born five weeks ago, our apartment in "
    "Hackney is far too small for the three of us, and our dog Biscuit chews every shoe lol"
)


def test_forgetting_a_part_leaves_the_other_parts_and_the_correction(mem: Memory) -> None:
    """Forgetting the Tobias part erases its statement, not Biscuit's part kept beside it nor
    the correction; forgetting the correction leaves both parts (their words are their own)."""
    extracted_session(mem, "s1", SIBLINGS)
    extracted_session(mem, "s2", MOVED, days=30)
    found = records(mem)
    tobias = next(r for r in found if r.content.startswith("our son Tobias"))
    biscuit = next(r for r in found if r.content.startswith("our dog Biscuit"))
    moved = next(r for r in found if r.content.startswith("Big news"))
    forget(mem, tobias.id)
    assert holding(mem, "Tobias") == 0
    assert holding(mem, "Biscuit") == 1  # the part; the statement is erased
    forget(mem, moved.id)
    left = {r.id: r.status for r in records(mem)}
    assert left[biscuit.id] is Status.CONFIRMED


def test_a_forgotten_clause_inside_a_longer_part_is_not_kept(mem: Memory) -> None:
    extracted_session(mem, "s0", "My sister Kate just had a baby girl called Poppy.")
    [poppy] = [r for r in records(mem) if "Poppy" in r.content]
    forget(mem, poppy.id)
    extracted_session(
        mem,
        "s1",
        "My brother Sam lives in Denver, my sister Kate just had a baby girl called Poppy "
        "and my cousin Mark swims every morning.",
        days=1,
    )
    extracted_session(mem, "s2", "Update: Sam moved from Denver to Austin.", days=30)
    [statement] = [r for r in records(mem) if r.content.startswith("My brother Sam")]
    assert statement.status is Status.SUPERSEDED  # retired: its parts were weighed
    live = [r.content for r in records(mem) if r.status is Status.CONFIRMED]
    assert not any("Poppy" in c for c in live)


def test_a_part_said_again_is_not_kept_twice(mem: Memory) -> None:
    """The same statement and correction in two later sessions: one live part."""
    for day, session_id in ((0, "s1"), (30, "s2")):
        extracted_session(mem, session_id, BORN, days=day)
        extracted_session(mem, f"{session_id}-moved", MOVED, days=day + 10)
    live = [r.content.lower() for r in records(mem) if r.status is Status.CONFIRMED]
    assert live.count("our son tobias was born five weeks ago and he hates naps") <= 1

"""The order sessions are extracted in does not decide which value is current (issue 15,
updates; core.write.stale, core.extraction.corrections.outdating). A worker's backlog, a job
retried after a crash or a late-ended session extracts an older session after a newer one:
its old value must arrive as history of the newer words, as it would have been retired had it
come first, and a value the newer words leave alone must stay current. Through the offline
extractor, reviewer and judge, the whole pipeline, a real store and the packaged model."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import Status
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory, stated_records
from tests.workers.test_extraction_kept_parts import BORN, MOVED

# Sessions said before the tests' clock, so that every one is in the past of the worker's
# clock (the wall clock, later still), as a backlog's sessions are: a statement stated after
# the worker's now is one the late-extraction rule does not look at.
EARLIER, LATER = -80, -40

# (said first, said forty days later). The first six were current after an out-of-order
# extraction before this rule (the two announcing their news through the newer turn); the
# rest are ones it must leave as they were.
PAIRS = [
    ("I drive a 2015 Mazda 3.", "I sold the Mazda and bought a Subaru Outback last week."),
    ("I live in Denver with my partner.", "We moved to Boulder last weekend, finally unpacked."),
    ("I'm running the Berlin Marathon on 21 September.", "So Berlin is off, I hurt my knee."),
    ("I work at Google as a product manager.", "I quit Google last month and joined a startup."),
    ("I drive a 2015 Mazda 3.", "Update: I drive a Subaru Outback."),
    ("We're going to Lisbon in June.", "There's been a change. We're going to Porto in June."),
    ("My boss is Dr. Weber.", "My new boss is Katrin Vogel."),
    ("I drive a 2015 Mazda 3.", "We moved to Boulder last weekend, finally unpacked."),
    ("My sister Anna works at Microsoft.", "Update: Jack scored two goals on Saturday!"),
    ("I play tennis on Thursdays.", "I started learning the piano this month."),
]


def statuses(mem: Memory, words: str) -> list[Status]:
    """The statuses of the records whose evidence (or content) lies in ``words``."""
    return [r.status for r in stated_records(mem) if (r.evidence or r.content) in words]


def written(status: dict[str, Any]) -> list[dict[str, Any]]:
    """The validate stage's written records of an extraction job's status."""
    [validate] = [s for s in status["stages"] if s["stage"] == "validate"]
    return list(validate["output"]["written"])


@pytest.mark.parametrize(("before", "after"), PAIRS, ids=[p[0][:24] for p in PAIRS])
def test_the_older_session_extracted_last_ends_as_it_would_in_order(
    mem: Memory, tmp_path: Path, real_embedder: FlagEmbedder, before: str, after: str
) -> None:
    """Each pair extracted newest first leaves the older words' records with the statuses
    they have when extracted in the order said: history where the later words change them,
    current where they do not."""
    extracted_session(mem, "new", after, days=LATER)
    extracted_session(mem, "old", before, days=EARLIER)
    with extracting_memory(tmp_path / "in-order.db", real_embedder) as in_order:
        extracted_session(in_order, "old", before, days=EARLIER)
        extracted_session(in_order, "new", after, days=LATER)
        expected = statuses(in_order, before)
    assert expected
    assert statuses(mem, before) == expected


def test_an_old_value_arrives_as_history_of_the_words_that_changed_it(mem: Memory) -> None:
    """The old fact is stored superseded (action "history", a note naming the newer record),
    retires nothing of the newer session, and a search shows the new value, not the old."""
    extracted_session(
        mem, "new", "I sold the Mazda and bought a Subaru Outback last week.", days=LATER
    )
    [newer] = [r for r in stated_records(mem) if "Subaru" in r.content]
    job = extracted_session(mem, "old", "I drive a 2015 Mazda 3.", days=EARLIER)
    [old] = [w for w in written(job) if "Mazda 3" in w["content"]]
    assert old["action"] == "history" and old["status"] == "superseded"
    assert any(newer.id in note for note in old["notes"])
    assert mem.store.get_records([newer.id])[newer.id].status is Status.CONFIRMED
    s = mem.session(agent_id="assistant", user_id="alice", session_id="q")
    found = s.call("memory_search", {"query": "What car do I drive?"})["results"]
    assert old["id"] not in [r["id"] for r in found]
    assert newer.id in [r["id"] for r in found]
    history = s.call("memory_search", {"query": "What car do I drive?", "include_history": True})
    assert old["id"] in [r["id"] for r in history["results"]]


def test_the_order_of_a_sessions_own_turns_needs_no_rule(mem: Memory) -> None:
    """Within one session, extracted at once, the later turn retires the earlier as before."""
    extracted_session(mem, "s", "I drive a 2015 Mazda 3.", "I sold the Mazda and got a Subaru.")
    assert statuses(mem, "I drive a 2015 Mazda 3.") == [Status.SUPERSEDED]


def test_what_the_newer_words_leave_of_a_late_statement_stays_current(mem: Memory) -> None:
    """A verbatim statement extracted after the words that change one of its claims arrives
    as their history, and the claims they leave come back as a live record of its own, as
    when the statement is retired in order (test_extraction_kept_parts)."""
    extracted_session(mem, "s2", MOVED, days=LATER)
    extracted_session(mem, "s1", BORN, days=EARLIER)
    by_content = {r.content: r for r in stated_records(mem)}
    old = next(r for r in by_content.values() if r.content.startswith("Sorry for the slow"))
    assert old.status is Status.SUPERSEDED
    kept = by_content["our son Tobias was born five weeks ago and he hates naps"]
    assert kept.status is Status.CONFIRMED and kept.stated_at == old.stated_at
    assert kept.context is not None and "Hackney" not in kept.context
    s = mem.session(agent_id="assistant", user_id="alice", session_id="q")
    son = s.call("memory_search", {"query": "What is my son's name?"})["results"]
    assert any("Tobias" in r["content"] for r in son)
    home = s.call("memory_search", {"query": "Where do we live?"})["results"]
    assert not any("Tobias" in r["content"] or "Hackney" in r["content"] for r in home)


def test_a_record_written_after_its_turns_retired_statement_does_not_hold_its_words(
    mem: Memory,
) -> None:
    """A record's retrieval context is its turn; once a statement of the turn is retired the
    turn's other records lose its words (core.write.supersession.narrow_siblings), and so
    does one written after it (``outside_retired``): the retired value must not find them."""
    extracted_session(mem, "new", "We moved to Boulder last weekend, finally unpacked.", days=LATER)
    extracted_session(
        mem, "old", "I live in Denver. My sister Kate is a nurse in Chicago.", days=EARLIER
    )
    [denver] = [r for r in stated_records(mem) if "Denver" in r.content]
    assert denver.status is Status.SUPERSEDED
    [kate] = [r for r in stated_records(mem) if "Kate" in r.content]
    assert kate.status is Status.CONFIRMED
    assert kate.context is not None and "Denver" not in kate.context


def test_words_said_before_a_record_never_retire_it(mem: Memory) -> None:
    """An older sentence with a change word ("now"), extracted after the newer words, is no
    correction of them: the reviewer neither replaces nor retires a record stated after its
    candidate (core.extraction.corrections.corrected ``at``, the validator's check)."""
    later = "Diego left to open his own bar, so now Bianca is my sous-chef."
    extracted_session(mem, "new", later, days=LATER)
    extracted_session(
        mem,
        "old",
        "We are 9 people now in the restaurant, and Diego, my sous-chef, will train.",
        days=EARLIER,
    )
    newer = [r for r in stated_records(mem) if "Bianca" in r.content]
    assert newer and all(r.status is Status.CONFIRMED for r in newer)


CHAINS = [
    ["I live in Denver.", "We moved to Boulder last weekend.", "We moved from Boulder to Austin."],
    ["I work at Initech.", "I quit Initech and joined Acme.", "I quit Acme last week."],
    [
        "The party is on Friday.",
        "The party moved to Saturday.",
        "The Saturday party moved to Sunday.",
    ],
]


@pytest.mark.parametrize("chain", CHAINS, ids=[c[0][:20] for c in CHAINS])
@pytest.mark.parametrize("order", [(0, 2, 1), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
def test_a_chain_of_changes_ends_the_same_in_any_extraction_order(
    mem: Memory,
    tmp_path: Path,
    real_embedder: FlagEmbedder,
    chain: list[str],
    order: tuple[int, ...],
) -> None:
    """Three sessions twenty days apart, each changing the one before: whichever order they
    are extracted in, each session's records end with the statuses they have in order. A
    late statement still retires what it would have when said, and one superseded since
    still outdates what was said before it (Denver extracted last is stale by Boulder, which
    Austin retired)."""
    for index in order:
        extracted_session(mem, f"s{index}", chain[index], days=20 * index + EARLIER)
    with extracting_memory(tmp_path / "in-order.db", real_embedder) as in_order:
        for index, said in enumerate(chain):
            extracted_session(in_order, f"s{index}", said, days=20 * index + EARLIER)
        expected = [statuses(in_order, said) for said in chain]
    assert [statuses(mem, said) for said in chain] == expected
    assert expected[-1] and expected[-1][0] is Status.CONFIRMED


def test_a_late_value_the_reviewer_reads_as_corrected_joins_the_correction_lineage(
    mem: Memory, tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """In order, the correction goes into the old record's lineage (it replaces it), so a
    lineage read or a forget of the correction takes the old value with it; extracted late,
    the old value is placed in the correction's lineage, before it, to the same effect."""
    before, after = "My girlfriend is Sarah.", "Sarah and I broke up last week."

    def lineages(memory: Memory) -> tuple[set[str], set[str]]:
        records = stated_records(memory)
        old = {r.lineage_id or r.id for r in records if (r.evidence or r.content) in before}
        new = {r.lineage_id or r.id for r in records if (r.evidence or r.content) in after}
        return old, new

    extracted_session(mem, "new", after, days=LATER)
    extracted_session(mem, "old", before, days=EARLIER)
    with extracting_memory(tmp_path / "in-order.db", real_embedder) as in_order:
        extracted_session(in_order, "old", before, days=EARLIER)
        extracted_session(in_order, "new", after, days=LATER)
        old, new = lineages(in_order)
        assert old and old <= new
    old, new = lineages(mem)
    assert old and old <= new
    assert statuses(mem, before) == [Status.SUPERSEDED] * len(old)


def test_every_retired_statement_of_a_turn_leaves_its_other_records(
    mem: Memory, tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Two statements of one turn retired, in order or late: the turn's other record keeps
    neither's words in its context, the same text in both orders."""
    before = "I live in Denver. I drive a Honda Civic. My dog is called Rex."
    after = "We moved to Boulder last weekend. I sold the Honda Civic."

    def dog_context(memory: Memory) -> str | None:
        [dog] = [r for r in stated_records(memory) if "Rex" in r.content]
        return dog.context

    extracted_session(mem, "new", after, days=LATER)
    extracted_session(mem, "old", before, days=EARLIER)
    with extracting_memory(tmp_path / "in-order.db", real_embedder) as in_order:
        extracted_session(in_order, "old", before, days=EARLIER)
        extracted_session(in_order, "new", after, days=LATER)
        expected = dog_context(in_order)
    assert expected is not None and "Denver" not in expected and "Honda" not in expected
    assert dog_context(mem) == expected


def test_a_turn_restated_later_still_loses_its_retired_words(mem: Memory) -> None:
    """A restatement in a later session moves a record's statement time to it; the turn's
    other records still lose the words of a statement of that turn once it is retired."""
    extracted_session(
        mem, "s1", "I live in Denver. My sister Kate is a nurse in Chicago.", days=EARLIER
    )
    extracted_session(mem, "s2", "I live in Denver.", days=EARLIER + 10)
    extracted_session(mem, "s3", "We moved to Boulder last weekend, finally unpacked.", days=LATER)
    [kate] = [r for r in stated_records(mem) if "Kate" in r.content]
    assert kate.context is not None and "Denver" not in kate.context


def test_an_imported_turn_keeps_the_words_it_quotes(mem: Memory) -> None:
    """An imported conversation's records quote the turns before them as said (their context,
    which credits neighbouring turns); a statement of the same session retired later leaves
    them as they were."""
    extracted_session(mem, "s1", "I live in Denver.", days=EARLIER)
    at = (NOW + timedelta(days=EARLIER)).isoformat()
    turns = [
        {"id": "t1", "role": "user", "text": "I live in Denver.", "at": at},
        {"id": "t2", "role": "user", "text": "My sister Kate is a nurse in Chicago.", "at": at},
    ]
    ids = mem.import_conversation(turns, scope="user:alice", session_id="s1")
    before = mem.store.get_records(ids)
    extracted_session(mem, "s3", "We moved to Boulder last weekend, finally unpacked.", days=LATER)
    after = mem.store.get_records(ids)
    assert [after[i].context for i in ids] == [before[i].context for i in ids]
    assert "Denver" in (after[ids[1]].context or "")

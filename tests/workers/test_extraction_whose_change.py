"""A change one of the user's people made does not retire what the user said of themself
(core.judge.change.theirs, core.extraction.corrections): "My colleague Orla left St Brigid's"
leaves "I'm a primary school teacher at St Brigid's" live, "Our neighbours moved out" leaves
"We live in a flat on Marchmont Road". Through the offline extractor and reviewer, the whole
pipeline, a real store and the packaged model. The user's own change said beside theirs still
retires what it changes, and their change still retires what was said of them."""

from __future__ import annotations

import pytest

from agent_memory.core import Memory
from agent_memory.core.extraction.whose import person_word
from agent_memory.core.judge.change import theirs
from agent_memory.core.judge.offline import OfflineJudge
from agent_memory.core.models import Status
from tests.support.extraction import extracted_session, status_of


def a_month_apart(mem: Memory, before: str, after: str) -> None:
    extracted_session(mem, "s1", before)
    extracted_session(mem, "s2", after, days=30)


def answers(mem: Memory, query: str) -> list[str]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="q")
    return [r["content"] for r in s.call("memory_search", {"query": query})["results"]]


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (
            "I'm a primary school teacher at St Brigid's in Cork.",
            "My colleague Orla left St Brigid's for a school in Kinsale, so I'm taking over "
            "her after-school coding club.",
            "primary school teacher",
        ),
        (
            "We live in a ground-floor flat on Marchmont Road in Edinburgh.",
            "Our neighbours moved out last week so our flat is finally quiet!",
            "ground-floor flat",
        ),
        (
            "I work at Boots in Nottingham, mostly on the pharmacy counter.",
            "My sister quit Boots and moved to Leeds with her boyfriend.",
            "I work at Boots",
        ),
    ],
)
def test_a_change_of_one_of_the_users_people_leaves_the_users_own_claim(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


def test_the_workplace_stays_found_after_a_colleague_leaves_it(mem: Memory) -> None:
    a_month_apart(
        mem,
        "I'm a primary school teacher at St Brigid's in Cork.",
        "My colleague Orla left St Brigid's for a school in Kinsale, so I'm taking over her "
        "after-school coding club.",
    )
    assert any("St Brigid's in Cork" in c for c in answers(mem, "Where do I work?")[:5])


def test_the_users_own_change_beside_theirs_still_retires(mem: Memory) -> None:
    """Their clause is left out, the user's is read: "I left Boots" retires the job at Boots."""
    a_month_apart(
        mem,
        "I work at Boots in Nottingham, mostly on the pharmacy counter.",
        "My sister moved to Leeds, and I left Boots for a job at Superdrug instead.",
    )
    assert status_of(mem, "I work at Boots") is Status.SUPERSEDED


def test_their_change_still_retires_what_was_said_of_them(mem: Memory) -> None:
    """A record about the person, or naming them, is theirs to change."""
    a_month_apart(
        mem,
        "My sister Ewa lives in York with her two cats.",
        "My sister Ewa moved to Leeds last month.",
    )
    assert status_of(mem, "lives in York") is Status.SUPERSEDED


def test_theirs_reads_whose_change_each_clause_says() -> None:
    person = person_word
    assert theirs("Our neighbours moved out last week so our flat is quiet!", person) == (
        "so our flat is quiet!",
        frozenset({"neighbor"}),
    )
    # the doer carried past "and"; "instead" in their clause is theirs too
    said, who = theirs("My sister just moved to Margate instead and left her job.", person)
    assert who == {"sister"} and "Margate" not in said
    # the user with them, a thing, a clause with no subject: not theirs
    for text in (
        "My wife and I moved to Leeds.",
        "The London trip has moved to June.",
        "Quit Kingfisher on Friday.",
        "I moved to Leeds last month.",
    ):
        assert theirs(text, person) == (text, frozenset())
    # a pronoun's change is theirs, whoever they are; the rest is the user's
    said, _ = theirs(
        "Ngozi's husband got a job, so they moved there and we'll fly instead.", person
    )
    assert "moved there" not in said and "fly instead" in said
    # the user's own change, whatever else the clause names
    for text in (
        "I moved into her new flat in Leith.",
        "Yesterday me and my sister quit Monzo.",
        "My boss left Deloitte and took me with him.",
        "My girlfriend cancelled our PureGym membership.",
        "My sister left Asda and so did I.",
        "My head teacher left Oakfield Primary and I resigned too.",
        "Also, Google moved its office.",  # a word of the language: no name
    ):
        assert theirs(text, person) == (text, frozenset()), text
    # theirs, though a later sentence or clause names them: not the user's doing
    for text in (
        "My colleague Orla left St Brigid's. I still have lunch with her every week.",
        "My neighbours moved out and I was too busy to notice.",
        "Mum moved to Spain last month.",
    ):
        assert theirs(text, person)[1], text


def test_the_judge_reads_whose_replacement_it_is() -> None:
    """The write path's contradiction check (core.judge.contradiction): "My sister moved from
    Clapham to Brixton" replaces her home, not the user's."""
    judge = OfflineJudge()
    assert not judge.contradicts(
        "We live in Clapham.", "My sister moved from Clapham to Brixton."
    ).holds
    assert judge.contradicts("We live in Clapham.", "We moved from Clapham to Brixton.").holds
    with_the_user = "My wife and I moved from Clapham to Brixton."
    assert judge.contradicts("We live in Clapham.", with_the_user).holds
    assert judge.contradicts(
        "My husband uses Android.", "My husband switched from Android to iPhone."
    ).holds

"""Later words that change a fact retire the records of the earlier one (issue 15, updates on
the extracted path; core.extraction.corrections): through the offline extractor and reviewer,
the whole pipeline, a real store and the packaged model. A correction worded unlike what it
corrects is linked by the content words they share, one correction may retire several records,
a turn that announces an update counts as saying something changed, and a correction leaves
alone what it does not change: an unrelated record, the user's other sentences said in the
same breath, and records beside a "no" that changes nothing (an idiom, an answer, one evening,
another place)."""

from __future__ import annotations

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge.change import change_spans
from agent_memory.core.models import Record, Status
from tests.support.extraction import extracted_session, stated_records

session = extracted_session


def records(mem: Memory) -> dict[str, Record]:
    """Every record but the session summaries, by evidence (history included)."""
    return {r.evidence or r.content: r for r in stated_records(mem)}


def status_of(mem: Memory, words: str) -> Status:
    [found] = [r for evidence, r in records(mem).items() if words in evidence]
    return found.status


def a_month_apart(mem: Memory, before: str, after: str) -> None:
    """``before`` said in one session and ``after`` in another 30 days later, each ended and
    extracted: the story every test of a correction tells."""
    session(mem, "s1", before)
    session(mem, "s2", after, days=30)


def search_ids(mem: Memory, query: str) -> list[str]:
    s = mem.session(agent_id="assistant", user_id="alice", session_id="q")
    return [r["id"] for r in s.call("memory_search", {"query": query})["results"]]


def test_a_correction_worded_unlike_the_old_record_retires_it(mem: Memory) -> None:
    """The old record is far in embedding space (cosine below the old 0.45 floor) but shares
    "oak" and "table" with the words that say it changed: it is retired, history kept."""
    session(mem, "s1", "Going with the oak Malmo table from Hay, Tom won the argument lol.")
    session(
        mem,
        "s2",
        "We ended up returning the oak table, it scratched within a week. "
        "We got a white marble one instead.",
        days=21,
    )
    assert status_of(mem, "oak Malmo table") is Status.SUPERSEDED
    assert status_of(mem, "returning the oak table") is Status.CONFIRMED
    old = next(r for e, r in records(mem).items() if "oak Malmo table" in e)
    assert old.id not in search_ids(mem, "Which dining table do we have?")
    assert mem.store.get_records([old.id])[old.id].content.startswith("Going with")  # kept


def test_one_correction_retires_every_record_of_the_old_value(mem: Memory) -> None:
    """Two records of the old value, from two sessions: the correction retires both, the
    nearest through the lineage and the other beside it (one correction once retired one)."""
    session(mem, "s1", "Going with the oak Malmo table from Hay, Tom won the argument lol.")
    session(
        mem, "s2", "The oak Malmo table got delivered today and it looks amazing in here.", days=7
    )
    said = "We ended up returning the oak table, it scratched within a week. We got a white one."
    session(mem, "s3", said, days=21)
    assert status_of(mem, "Going with the oak Malmo table") is Status.SUPERSEDED
    assert status_of(mem, "got delivered today") is Status.SUPERSEDED
    current = next(r for e, r in records(mem).items() if "returning the oak table" in e)
    assert current.status is Status.CONFIRMED and current.supersedes_id is not None


def test_a_turn_announcing_an_update_says_its_sentence_changed(mem: Memory) -> None:
    """ "Update!!" opening the turn marks its sentences as changes: the engagement retires the
    earlier boyfriend record that shares the names, though no change word is in the sentence."""
    session(mem, "s1", "Going to Niseko with my boyfriend Ryan in December, first time skiing.")
    session(mem, "s2", "Update!! Ryan proposed in Niseko, we're engaged!", days=60)
    assert status_of(mem, "boyfriend Ryan") is Status.SUPERSEDED


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit: a name shared with news the turn announces links the records, and "
        "telling an event from a change of what was said needs to know which attribute the "
        "news is of; rules reading the past tense as an event and word lists of aspects (work, "
        "home, partner ...) were measured by four reviews (on new items 29 better / 28 worse "
        "and 35 better / 27 worse) and not kept"
    ),
)
def test_news_of_an_event_retires_nothing_said_of_whom_it_names(mem: Memory) -> None:
    """ "Update: Jack scored two goals on Saturday!" changes nothing said of Jack before."""
    a_month_apart(
        mem,
        "My son Jack is 7 and plays football on Saturdays.",
        "Update: Jack scored two goals on Saturday!",
    )
    assert status_of(mem, "plays football") is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (
            "Please use simple English when you answer me, I am from Casablanca.",
            "Big news! I am buying the pharmacy. Please draft the patient announcement in "
            "simple English, short and warm.",
            "Please use simple English",
        ),
        (
            "My book club meets on Thursdays at Bridie's house.",
            "Update: Bridie is in hospital, poor thing. I need help to write a get well card "
            "from the book club.",
            "book club meets on Thursdays",
        ),
    ],
    ids=["please", "need-help"],
)
def test_a_turn_announces_its_news_not_its_requests(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """The announcement opening a turn marks its news, not what it asks the assistant for: a
    request sharing a word with an earlier record ("simple English", "book club") retired it."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


def test_a_correction_does_not_retire_an_unrelated_record(mem: Memory) -> None:
    """A change marker and an announcement retire nothing they share no topic with."""
    session(
        mem,
        "s1",
        "My sister Jess is a vet tech in Asheville.",
        "Our internet provider is Comcast and the router sits in the hallway.",
    )
    session(mem, "s2", "Update: I switched from tea to coffee in the mornings instead.", days=14)
    assert status_of(mem, "vet tech in Asheville") is Status.CONFIRMED
    assert status_of(mem, "internet provider is Comcast") is Status.CONFIRMED


def test_saying_no_to_a_thing_leaves_records_that_only_share_a_word(mem: Memory) -> None:
    """ "No more Piha traffic" says nothing about the dog's record that names Piha."""
    session(mem, "s1", "Kumara, our staffy, loves the beach at Piha.")
    session(mem, "s2", "Love it here, the surf is right there, no more Piha traffic.", days=30)
    assert status_of(mem, "our staffy") is Status.CONFIRMED


def test_a_correction_retires_the_sentence_it_changes_and_not_its_neighbour(mem: Memory) -> None:
    """Each kept sentence is a record of its own: "Adam quit the hockey" retires the sentence
    about Adam's hockey, and the sentence about Lina, said in the same breath, stays."""
    session(
        mem,
        "s1",
        "Budget question. Adam is 15, he plays hockey, it costs a lot. "
        "Lina is 11, she swims on Saturdays.",
    )
    session(mem, "s2", "Adam quit the hockey, he plays basketball now.", days=40)
    assert status_of(mem, "he plays hockey") is Status.SUPERSEDED
    assert status_of(mem, "Lina is 11") is Status.CONFIRMED


def test_a_request_kept_beside_the_old_claim_does_not_keep_it_live(mem: Memory) -> None:
    """A sentence kept with the request said after it ("..., Suggest a gift, max 3000
    kronor.") is one record; a request to make a gift, with a bound in words, time or money on
    it, claims nothing, so a change of the claim retires the record."""
    session(
        mem,
        "s1",
        "Also: our son Erik graduates from Chalmers on 6 June. Suggest a gift, max 3000 kronor.",
    )
    assert status_of(mem, "Suggest a gift") is Status.CONFIRMED  # one record, both sentences
    session(mem, "s2", "Erik's graduation moved to 13 June, strike at the university.", days=30)
    assert status_of(mem, "graduates from Chalmers") is Status.SUPERSEDED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (
            "The team offsite is in Lisbon on 4 May. Give me a packing list, 30 weeks pregnant.",
            "The team offsite moved to 11 May.",
            "30 weeks pregnant",
        ),
        (
            "The hospital check-up is on 2 May. Please double-check the doses, on warfarin "
            "and metformin.",
            "The hospital check-up moved to 9 May.",
            "on warfarin",
        ),
        (
            "Our wedding is on 3 May. Suggest a menu, 80 guests.",
            "Our wedding moved to 10 May.",
            "80 guests",
        ),
        (
            "The school trip is on 3 June. Please plan the route, no car.",
            "The school trip moved to 10 June.",
            "no car",
        ),
        (
            "Our daughter Lina starts school on 2 September. Write a poem for my mum's 70th, "
            "roses.",
            "Lina's school start moved to 9 September.",
            "my mum's 70th",
        ),
    ],
)
def test_a_request_telling_more_keeps_its_record_live(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """A request that tells something beside what it asks for ("..., 30 weeks pregnant", "...,
    80 guests", "..., no car") keeps its record when the claim before it changes: each of these
    was retired by a wider reading (two adversarial reviews, benchmarks/README.md "Session
    30")."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (
            "I drive a Tesla Model 3 to work every day.",
            "I have no idea why my Tesla Model 3 loses so much range in winter.",
            "Tesla Model 3 to work",
        ),
        (
            "I live in Oslo with my wife.",
            "No I still live in Oslo, we just visited Bergen.",
            "live in Oslo with my wife",
        ),
        (
            "I teach piano lessons to kids on weekends.",
            "I have no plans to stop teaching piano lessons to kids.",
            "teach piano lessons",
        ),
        (
            "I play badminton every Wednesday evening with colleagues.",
            "No badminton tonight, the court is flooded.",
            "play badminton every Wednesday",
        ),
        (
            "I live in Oslo with my wife.",
            "No Oslo is still home, we only visited Bergen for the weekend.",
            "live in Oslo with my wife",
        ),
        (
            "We have Comcast internet at home.",
            "There's no Comcast at the cabin, we use Starlink up there.",
            "Comcast internet at home",
        ),
        (
            "I drive a Tesla Model 3 to work every day.",
            "No Tesla Model 3 owner I know has had that recall issue.",
            "Tesla Model 3 to work",
        ),
    ],
)
def test_a_no_that_says_nothing_is_off_retires_nothing(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """ "No" in an idiom ("no idea", "no plans to"), as an answer ("No I still ..."), for one
    evening ("No badminton tonight"), for another place or as a count does not say the thing
    is off for good (a rule that read "no" before a thing as a change retired these)."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (  # the name is the user's companion in the change, not what changed
            "Julien is a sound engineer in Lyon, he works concerts at night.",
            "Big change: I moved in with Julien in Lyon last weekend!",
            "sound engineer",
        ),
        (  # the name owns what changed ("Maren's baby"), it is not the name that changed
            "Maren lives in Bergen with her husband Nils.",
            "Update: Maren's baby came early, a little boy named Odd.",
            "lives in Bergen",
        ),
        (  # close in embedding space, but a pharmacy is not a pharmacist
            "I am a pharmacist.",
            "Big news! I am buying the pharmacy.",
            "I am a pharmacist",
        ),
        (  # an addition, not a replacement
            "Our cat Mochi sleeps on my desk all day.",
            "We got a kitten now too, Mochi is not impressed.",
            "Our cat Mochi",
        ),
        (  # who is off today is away, not called off
            "My manager is Mark, he runs the Leeds office.",
            "Mark is off today, so I'm covering his calls.",
            "My manager is Mark",
        ),
        (  # "for now" keeps things as they are
            "I run a small landscaping business in Leeds.",
            "We bought a house in the Dales! I'll keep the business in Leeds for now.",
            "small landscaping business",
        ),
        (  # a change in a clause no rule phrases, but someone else's
            "I work at Deloitte in the audit team.",
            "My husband resigned from Deloitte last month and I am still enjoying my job there.",
            "I work at Deloitte",
        ),
    ],
)
def test_a_correction_retires_nothing_it_only_names(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """A change linked to an older record by a name alone does not retire it when the change
    names the name only beside what changed (the user's companion in a move, the owner of the
    subject); a record close in embedding space must name the same thing, not only the same
    topic; and "for now" is no change."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept", "retired"),
    [
        (
            "My boyfriend Noah is flying in for the weekend. Noah is allergic to cats, we only "
            "have a fish.",
            "Noah and I broke up last week. It's fine.",
            "Noah is allergic to cats",
            "boyfriend Noah",
        ),
        (
            "My girlfriend Lena works as a nurse at St Mary's hospital in Leeds.",
            "Lena and I split up in March.",
            None,
            "girlfriend Lena",
        ),
        (
            "We've been dating since June, Priya is a vet in Austin.",
            "Priya and I broke up, sadly.",
            None,
            "dating since June",
        ),
        (
            "Sam loves hiking in the Alps every summer with his sister.",
            "Sam and I broke up.",
            "hiking in the Alps",
            None,
        ),
        ("I've been seeing Marco for 6 months.", "Marco and I broke up.", None, "seeing Marco"),
        (  # a band that split up ends the band, as before
            "I play bass in a band called The Foxes.",
            "The Foxes split up last month.",
            None,
            "band called The Foxes",
        ),
    ],
)
def test_a_break_up_retires_the_relationship_not_the_person(
    mem: Memory, before: str, after: str, kept: str | None, retired: str | None
) -> None:
    """A relationship that ended ends what was said of the relationship ("my boyfriend Noah
    is flying in"), not what was said of the person ("Noah is allergic to cats" stays true;
    a rule that linked by the name alone retired it, and the user's fish with it)."""
    a_month_apart(mem, before, after)
    if kept is not None:
        assert status_of(mem, kept) is Status.CONFIRMED
    if retired is not None:
        assert status_of(mem, retired) is Status.SUPERSEDED


@pytest.mark.parametrize(
    ("before", "after", "retired"),
    [
        (  # an ending beside an addition word is still an ending
            "I have a Netflix subscription.",
            "I cancelled Netflix, it got too pricey, we use Disney+ now as well.",
            "Netflix subscription",
        ),
        (  # a name opening the sentence as what changed
            "Mercy cooks for us on weekdays.",
            "And sadly Mercy left to go back home, our new nanny is Grace.",
            "Mercy cooks",
        ),
        (  # close in embedding space and naming the same thing by a synonym
            "We finally decided on the couch.",
            "We returned it, we got a navy blue velvet sofa instead.",
            "decided on the couch",
        ),
        (  # close in embedding space, and a kind of what was said before
            "I'm a vegetarian.",
            "I'm vegan now.",
            "I'm a vegetarian",
        ),
        (  # close in embedding space, one role for another
            "I'm a software engineer at a fintech.",
            "Big news, I'm a product manager now.",
            "software engineer at a fintech",
        ),
        (  # the name is what changed, though a possessive opens the sentence
            "Grace picks up the kids from school on weekdays.",
            "Update: Grace's last day was Friday, Abena starts Monday.",
            "Grace picks up the kids",
        ),
        (  # an owner named again as the subject
            "Tom is my mechanic, he fixes the van.",
            "Update: Tom's son took over the garage now that Tom retired.",
            "Tom is my mechanic",
        ),
        (  # the companion of a move changes a record about where the user lives
            "I live with my boyfriend Marco in Turin.",
            "Marco and I moved to Milan last month.",
            "I live with my boyfriend Marco",
        ),
        (  # a move's clause ends before what follows it ("the farm", then "Bella goes out")
            "Bella is our cat, she's an indoor cat.",
            "Since we moved to the farm Bella goes outside now.",
            "Bella is our cat",
        ),
        (  # a companion of a move who is also what changed ("he cooks at a hotel now")
            "My boyfriend Noah works at a bistro in Leith.",
            "Noah and I moved back to Glasgow, he cooks at a hotel now.",
            "works at a bistro in Leith",
        ),
        (  # what the user said they are, then what they have now
            "I'm single.",
            "I have a girlfriend now, we met in March.",
            "I'm single",
        ),
        (  # a role said as "I work as"
            "I'm a paralegal.",
            "I work as a solicitor now.",
            "I'm a paralegal",
        ),
        (  # a consequence the user draws from a report, in their own voice
            "I'm running the Portland Half Marathon in October.",
            "Update: my physio says I have tendinopathy, so I'm out of the half marathon.",
            "Portland Half Marathon",
        ),
        (  # a plan denied "after all" is called off
            "We're moving to York in June.",
            "We're not moving to York after all.",
            "moving to York in June",
        ),
        (  # a negation said with the marker is still a change
            "I'm vegetarian.",
            "I'm not vegetarian anymore.",
            "I'm vegetarian",
        ),
        # A second review of the denial rule: each of these was read as a denial
        ("I smoke a pack a day.", "I don't smoke now.", "I smoke a pack a day"),  # the state's
        (  # a plan's "-ing" denied is called off
            "We're moving to York in June.",
            "We won't be moving to York, the house sale fell through.",
            "moving to York in June",
        ),
        (  # "considering" as "given"
            "My gym is PureGym in Salford.",
            "Considering the price, I switched gyms to Anytime Fitness.",
            "My gym is PureGym",
        ),
        (  # a doubt in the next clause leaves the change
            "The wedding is on June 5 in Porto.",
            "the porto wedding got moved to june 12 and honestly idk how to feel",
            "The wedding is on June 5",
        ),
        (  # "pushed to" a date
            "I'm running my first half marathon in oct, scotiabank waterfront.",
            "also half marathon got pushed to oct 25 bc of some city permit thing",
            "first half marathon",
        ),
        (
            "bday dinner fri 7pm at nonna's, 12 of us",
            "bday dinner pushed to sat",
            "bday dinner fri",
        ),
        (  # "up to now" says the earlier way ended ("for now" does not)
            "I keep my savings at Barclays.",
            "Up to now I kept savings at Barclays but I opened a Marcus account.",
            "savings at Barclays.",
        ),
        (  # a change said in a clause no rule phrases, beside one a rule does
            "I am a senior tax manager at Beaumont Clarke LLP.",
            "I resigned from Beaumont Clarke after eleven years and I am opening my own "
            "practice, Haddad Tax Advisory, on June 1.",
            "senior tax manager at Beaumont Clarke",
        ),
        (  # a change made to the user by someone else, beside a clause a rule phrases
            "My GP, Dr Anand, has prescribed warfarin for my atrial fibrillation.",
            "Regarding medication: Dr Anand has since moved me from warfarin to apixaban, "
            "5 mg twice daily, so I no longer require the blood tests.",
            "prescribed warfarin",
        ),
    ],
)
def test_a_correction_retires_what_it_names(
    mem: Memory, before: str, after: str, retired: str
) -> None:
    """The other side of the rules above: a name that is what changed, a synonym or a kind of
    the earlier word, one role for another."""
    a_month_apart(mem, before, after)
    assert status_of(mem, retired) is Status.SUPERSEDED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (  # another party: what moved is named by more than the shared word
            "Our housewarming party is on 22 March.",
            "The work Christmas party got pushed to January.",
            "housewarming party",
        ),
        (  # the refill moved, not the dose
            "I take 2.5 mg of bisoprolol every morning.",
            "The pharmacy pushed my bisoprolol refill to next week.",
            "2.5 mg of bisoprolol",
        ),
        (  # nothing moved
            "My driving exam is on Monday 3 March.",
            "The exam wasn't pushed to Friday after all, still Monday.",
            "driving exam is on Monday",
        ),
        (  # it may move
            "The council vote on the bike lane is on 14 March.",
            "The vote may get pushed to next week, we'll see.",
            "council vote",
        ),
        (  # for once
            "I go to the gym on Mondays, Wednesdays and Fridays.",
            "Pushed gym to Saturday this week, work is mad.",
            "gym on Mondays",
        ),
        (  # a time of day, and someone else's
            "My shift starts at 7am.",
            "My husband's shift got pushed to 10pm.",
            "shift starts at 7am",
        ),
        (  # another owner's
            "My brother's wedding is in May.",
            "My wedding got pushed to June.",
            "brother's wedding",
        ),
        (  # a habit moved once
            "The book club meets on Wednesdays.",
            "Book club got pushed to Thursday next week.",
            "book club meets",
        ),
        ("I go to yoga on Thursdays.", "Yoga got bumped to Friday.", "yoga on Thursdays"),
    ],
)
def test_a_date_moved_retires_only_what_moved(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """ "Pushed", "delayed", "brought forward" say a change only before a date, and only of a
    record that names all of what moved (core.judge.change.moved_thing); not when denied, in
    doubt or for once. Each of these was retired by a first, wider reading (an adversarial
    review, benchmarks/README.md "Session 29")."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        ("Our wedding is on 3 May.", "My sister's wedding moved to 10 May.", "Our wedding"),
        ("My birthday party is on Saturday.", "Tom's birthday party got moved to Sunday.", "My b"),
        ("Our wedding is on 3 May.", "The date of my sister's wedding moved to 10 May.", "Our w"),
        (
            "Our son Erik graduates from Chalmers on 6 June.",
            "Erik's friend Jonas's graduation moved to 13 June.",
            "Erik graduates",
        ),
    ],
)
def test_someone_elses_thing_changing_retires_nothing_of_the_users(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """ "My sister's wedding moved" is the sister's: the user's own wedding, or a son's
    graduation beside his friend's, stays (both were retired: "moved" is a change marker
    wherever it stands, and the records shared "wedding" and "graduat...")."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "retired"),
    [
        (
            "Our son Erik graduates from Chalmers on 6 June.",
            "Erik's graduation moved to 13 June.",
            "Erik graduates",
        ),
        (
            "My mum's hip operation is on 2 September.",
            "Mum's hip operation got moved to 9 September.",
            "hip operation is on 2 September",
        ),
        (
            "Our team offsite is on 5 May in Lisbon.",
            "The company's offsite moved to 12 May.",
            "team offsite",
        ),
        ("My grocery delivery is on Thursday.", "Tesco's delivery moved to Friday.", "grocery"),
        (
            "My performance review is on Thursday.",
            "My boss's review of me moved to Friday.",
            "performance review",
        ),
        ("My birthday party is on the 12th.", "Tomorrow's party got moved to Sunday.", "12th"),
        (
            "I'm hosting Thanksgiving dinner at my place this year.",
            "Thanksgiving dinner moved to my sister's place this year.",
            "hosting Thanksgiving",
        ),
    ],
)
def test_a_change_of_the_records_own_owners_thing_retires_it(
    mem: Memory, before: str, after: str, retired: str
) -> None:
    """The other side: the record names whose it is ("Erik", "mum"), the owner is no person
    ("the company's offsite", "Tesco's delivery", "Tomorrow's party"), the possessive says
    where the thing moved ("to my sister's place"), or the thing is the user's too ("my boss's
    review of me"): each of the last five kept its record under a first reading (two reviews,
    benchmarks/README.md "Session 30")."""
    a_month_apart(mem, before, after)
    assert status_of(mem, retired) is Status.SUPERSEDED


def test_a_date_moved_moves_one_thing(mem: Memory) -> None:
    """ "My appointment got pushed to May" retired both appointments of the turn before; a date
    moved retires the nearest record of what moved, and a habit moved for good moves."""
    session(mem, "s1", "My dentist appointment is on 3 April. My GP appointment is on 10 April.")
    session(mem, "s2", "My appointment got pushed to May.", days=30)
    retired = [w for w in ("dentist", "GP") if status_of(mem, w) is Status.SUPERSEDED]
    assert len(retired) <= 1
    session(mem, "s3", "I volunteer at the food bank every Saturday.", days=31)
    session(mem, "s4", "The food bank volunteering got pushed to Sunday permanently.", days=60)
    assert status_of(mem, "every Saturday") is Status.SUPERSEDED


def test_denying_another_thing_retires_nothing(mem: Memory) -> None:
    """ "Not allergic to shellfish" denies shellfish, not peanuts: the judge read the two short
    statements as one negated ("the user", "allergic" and "to" were most of their words) and
    retired the allergy."""
    session(mem, "s1", "I'm allergic to peanuts, so please keep them out of any recipes.")
    session(mem, "s2", "I'm not allergic to shellfish, so the paella is fine.", days=30)
    assert status_of(mem, "allergic to peanuts") is Status.CONFIRMED


@pytest.mark.parametrize(
    ("before", "after", "kept"),
    [
        (
            "My cousin's wedding is on 12 May in Porto.",
            "My aunt heard the wedding moved to June, so now I'm not sure when it is in Porto.",
            "wedding is on 12 May",
        ),
        (  # the report after the clause it covers
            "My cousin's wedding is on 12 May in Porto.",
            "The Porto wedding moved to June, apparently.",
            "wedding is on 12 May",
        ),
        (
            "The Atlas launch is in May.",
            "atlas launch moved to june, boss says",
            "Atlas launch is in May",
        ),
        (
            "My friend Jake works at Google in Boston.",
            "Jake quit Google, my mom told me.",
            "Jake works at Google",
        ),
        (  # a denial after the report
            "I live in Leeds.",
            "My sister says I moved to York, but I haven't moved, I still live in Leeds.",
            "I live in Leeds",
        ),
        # A report in any words covers the clause before it; a change of the user's own
        # beside one is no link to what the report names (session 38's review: a reading of
        # the user's own clauses retired each of these)
        (
            "The Porto wedding is in May.",
            "The Porto wedding moved to June, my aunt told everyone.",
            "Porto wedding is in May",
        ),
        (
            "The Atlas launch is in May.",
            "The Atlas launch moved to June, according to Tom.",
            "Atlas launch is in May",
        ),
        ("Jake works at Google.", "Jake quit Google, my mom told me yesterday.", "Jake works"),
        (
            "The Atlas launch is in May.",
            "My boss said the Atlas launch moved to June, so now the team is panicking.",
            "Atlas launch is in May",
        ),
        (
            "Jake works at Google.",
            "Everyone says Jake left Google, but that's wrong, he just changed teams.",
            "Jake works",
        ),
        (
            "Jake works at Google.",
            "I switched banks last week, my sister said Jake quit Google.",
            "Jake works",
        ),
        # A report after the change covers it, also in words of its own: the reading of
        # those words tried in session 40 (benchmarks/README.md) retired each of these
        (
            "The Porto wedding is in May.",
            "The Porto wedding moved to June, my aunt told me it's final.",
            "Porto wedding is in May",
        ),
        (
            "The Porto wedding is in May.",
            "The Porto wedding moved to June, my aunt said so on the phone.",
            "Porto wedding is in May",
        ),
        (
            "The Atlas launch is in May.",
            "The Atlas launch moved to June, Tom told the whole team.",
            "Atlas launch is in May",
        ),
        (
            "My cousin Ana's wedding is on 14 May in Porto.",
            "The wedding moved to June, my aunt told me when I called her.",
            "wedding is on 14 May",
        ),
        (
            "My friend Jake works at Google as a data engineer.",
            "Jake quit Google, his sister said he did.",
            "Jake works at Google",
        ),
        (  # the report doubts the change
            "My dentist appointment is on Thursday at 3pm.",
            "I moved my dentist appointment to Friday, the receptionist said no.",
            "appointment is on Thursday",
        ),
        (
            "I work the day shift at St Mary's hospital.",
            "I switched to the night shift, my manager said not until April.",
            "day shift at St Mary's",
        ),
        (
            "The Porto wedding is in May.",
            "Update: my aunt says the Porto wedding moved to June.",
            "Porto wedding is in May",
        ),
        # A change marker the user denies (core.judge.change._DENIED)
        ("I live in Leeds.", "I haven't moved, I still live in Leeds.", "I live in Leeds"),
        (
            "I work at Google as a data engineer.",
            "I didn't quit my job at Google, I still work there.",
            "I work at Google",
        ),
        (
            "The Atlas launch is in May.",
            "The Atlas launch hasn't moved, it's still in May.",
            "Atlas launch is in May",
        ),
        (
            "I play tennis on Sundays.",
            "I still play tennis on Sundays, nothing changed.",
            "I play tennis",
        ),
        ("I live in Leeds.", "we havent moved yet, still in Leeds", "I live in Leeds"),
        ("I live in Leeds.", "Nothing's changed, I still live in Leeds.", "I live in Leeds"),
        ("I live in Leeds.", "I haven't really ever moved from Leeds.", "I live in Leeds"),
        (  # "after all" as "after all these years" calls nothing off
            "I live in Leeds.",
            "I haven't moved after all these years, still in Leeds.",
            "I live in Leeds",
        ),
        # A doubt or a thought (core.judge.change._DOUBTS)
        (
            "My cousin's wedding is on 12 May in Porto.",
            "Now I'm not sure when the Porto wedding is.",
            "wedding is on 12 May",
        ),
        (
            "I work at Google.",
            "I'm thinking about my job at Google now, with the layoffs.",
            "I work at Google",
        ),
    ],
)
def test_hearsay_a_denial_or_a_doubt_retires_nothing(
    mem: Memory, before: str, after: str, kept: str
) -> None:
    """A change someone else reports is their claim, wherever the report sits in the sentence
    and whatever the user's own clause beside it says (core.framing.reports; adversarial
    reviews of three readings of the user's own clauses retired each of the first nineteen); a
    change marker the user denies says that nothing changed ("I haven't moved", "nothing changed":
    each of the next eight retired the record it says again); and a doubt or a thought says
    no change ("not sure", "thinking about": each of the last two retired it by "now")."""
    a_month_apart(mem, before, after)
    assert status_of(mem, kept) is Status.CONFIRMED


def test_an_end_said_short_is_kept_and_retires_what_it_ends(mem: Memory) -> None:
    """ "quit roccos finally." has three words, under a verbatim statement's minimum, and was
    dropped, so the job it ended stayed live. A short end is news: kept, it retires the job.
    (Limit: "i work there tue thu and sat nights" names the place only as "there" and stays.)"""
    a_month_apart(
        mem,
        "k got it. gotta sleep, working at roccos pizza tmrw night. i work there tue thu and "
        "sat nights",
        "quit roccos finally. got a job at the campus it help desk, way better, 15 hrs a week.",
    )
    assert status_of(mem, "working at roccos pizza") is Status.SUPERSEDED
    assert status_of(mem, "quit roccos finally.") is Status.CONFIRMED


def test_something_happening_again_retires_nothing(mem: Memory) -> None:
    """ "again" of something that happened once more is no change of what was said: before, the
    complaint retired the diagnosis (the review's case), and "When was I diagnosed with
    diabetes?" found only the complaint."""
    a_month_apart(
        mem,
        "I was diagnosed with type 2 diabetes last month, so please keep that in mind for recipes.",
        "ugh my blood sugar was high again this morning, the diabetes is so annoying",
    )
    assert status_of(mem, "diagnosed with type 2 diabetes") is Status.CONFIRMED


@pytest.mark.parametrize(
    ("said", "again"),
    [
        ("My blood sugar was high again this morning.", False),
        ("I got sick again last week.", False),
        ("The heating broke again.", False),
        ("My back is playing up again.", False),
        ("I'm vegetarian again.", True),
        ("I'm back on nights again from Monday.", True),
        ("I\u2019m single again!", True),
        ("I started smoking again.", True),  # a return, said with its verb
        ("Noah and I got back together again last week.", True),
        ("I've been to the doctor again.", False),
    ],
)
def test_again_says_a_change_only_of_the_users_state_now(said: str, again: bool) -> None:
    assert bool(change_spans(said)) is again

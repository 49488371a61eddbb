"""The gate's subject signal (core.search.subject): in a small store, a record that names
every word a question asks about, as the same word or as a kind of it, answers the question
even when the packaged model scores it far below the dense floor; a question whose subject no
record names stays empty, and in a large store the signal is off."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search import life, roles, subject
from agent_memory.core.search.gate import apply_gate, gate, subject_floor
from agent_memory.core.search.lexical import query_tokens
from agent_memory.core.search.ranking import Candidate, replay
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.stores import search, user_store

# A new user's store: short facts, the way the offline extractor keeps what the user said.
FACTS = [
    "Rusty, our kelpie, comes on every trip.",
    "My wife Rania does most of the cooking.",
    "I do all my statistics in R, not Python please.",
    "We will grill on the Weber this weekend.",
    "Port Adelaide got thumped on the weekend.",
    "I'm training for a 10K in September.",
    "The van's battery is a 200Ah lithium.",
    "I prefer tea to coffee in the morning.",
]


# The wife's record as the extractor keeps it: one sentence of a longer turn, the turn its
# retrieval context, which the record's vector reads too (cosine with the question 0.1-0.2).
TURN = (
    "My doctor told me yesterday that my LDL cholesterol is 4.1, and she wants it lower before "
    "considering a statin. She suggested walking 45 minutes every day, which I have started. "
    "My wife Rania does most of the cooking. Could you suggest heart-healthy dinners?"
)


@pytest.fixture
def facts(memory: Memory) -> Session:
    return user_store(
        memory,
        [
            {"content": f, "source_kind": "user_statement"} | ({"context": TURN} if i == 1 else {})
            for i, f in enumerate(FACTS)
        ],
    )


def logged(memory: Memory, result: dict[str, Any]) -> dict[str, Any]:
    (row,) = memory.store.query(
        "SELECT payload FROM search_log WHERE id = ?", (result["search_id"],)
    )
    return json.loads(row["payload"])


def passed_on(memory: Memory, texts: list[str], question: str) -> dict[str, str]:
    """What each result of ``question`` passed the gate on, in a user's store of ``texts``."""
    store = user_store(memory, [{"content": t, "source_kind": "user_statement"} for t in texts])
    return {r["content"]: r["explanation"]["passed_on"] for r in search(store, question)["results"]}


# Three records that answer none of the questions asked beside them.
FILLERS = [
    "I prefer tea to coffee in the morning.",
    "We will grill on the Weber this weekend.",
    "My daughter Rose just started school.",
]


def passed_beside_fillers(memory: Memory, text: str, question: str) -> str | None:
    """What ``text`` passed the gate on for ``question`` in a user's store of it and
    ``FILLERS``; None when it is not in the answer."""
    return passed_on(memory, [text, *FILLERS], question).get(text)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's my dog's name?", FACTS[0]),  # a kelpie is a dog (WordNet)
        # A kind named: "kelpie" for "dog". (The wife's record, "My wife Rania does most of the
        # cooking." read with its turn, passed on this signal until its own words counted as a
        # passage: test_passages.test_a_sentence_read_with_its_turn_is_found_by_its_own_words.)
    ],
)
def test_a_record_naming_the_questions_subject_answers_it(
    facts: Session, memory: Memory, question: str, answer: str
) -> None:
    """The answer passes on the subject signal (the gate without it answered empty: its
    cosine is under the corroborated floor), the model's reason says so, and the search log
    replays the answer."""
    result = search(facts, question)
    passed = {r["content"]: r["explanation"]["passed_on"] for r in result["results"]}
    assert passed.get(answer) == "subject"
    gate_log = result["explanation"]["gate"]
    assert gate_log["subject"]["words"] == [w for w in ("dog", "wife") if w in question]
    log = logged(memory, result)
    assert log["settings"]["subject_floor"] < log["settings"]["corroborated_floor"]
    assert replay(log) == [r["id"] for r in result["results"]]


@pytest.mark.parametrize(
    "question",
    ["What's my blood type?", "What's my mom's name?", "Which football team do I support?"],
)
def test_a_question_whose_subject_no_record_names_stays_empty(
    facts: Session, question: str
) -> None:
    result = search(facts, question)
    assert result["results"] == []
    assert result["explanation"]["gate"]["subject"]["named"] == 0


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's my name?", "The user's name is Priya."),
        ("What's my name?", "Hi, I'm Priya, by the way."),  # kept as said
        ("What should you call me?", "The user wants to be called Liz."),
    ],
)
def test_a_question_asking_nothing_but_the_name_asks_the_users_own(
    memory: Memory, question: str, answer: str
) -> None:
    """ "name" frames "What's my dog's name?"; asked alone it asks the user's own name, which
    a record saying it as such names (core.search.life): beside one other fact it passes on
    the subject signal (cosine 0.33, under the dense floor; BM25 under the lexical one)."""
    assert passed_on(memory, [answer, "The user lives in Leeds."], question) == {answer: "subject"}


def test_another_ones_name_is_not_the_users(memory: Memory) -> None:
    texts = ["The user's dog's name is Rex.", "The user called Dr. Okafor about it."]
    assert passed_on(memory, texts, "What's my name?") == {}


@pytest.mark.parametrize(
    "question", ["What's your name?", "What's it called?", "Who am I meeting tomorrow?"]
)
def test_a_name_question_about_someone_else_is_not_the_users(memory: Memory, question: str) -> None:
    """Only "my name", "call me", "who am I" ask the user's own (a review found "What's your
    name?" answered with the user's). ("What's her name?" is near enough on dense cosine to
    pass on it in a store of two facts, as any record naming a name may.)"""
    texts = ["The user's name is Priya.", "The user lives in Leeds."]
    assert passed_on(memory, texts, question) == {}


# A new user's facts beside their name: the frame word "name" of a question about someone
# else's name is in the user's name record alone.
NAMED = [
    "The user's name is Priya.",
    "our son Leo was born in May and he hates naps",
    "I prefer tea to coffee in the morning.",
]


def test_a_frame_word_alone_neither_ranks_nor_corroborates(memory: Memory) -> None:
    """Before, "What's my brother's name?" answered with "The user's name is Priya.", passed
    on its cosine with the query word "name", and "What is my son's name?" ranked it above
    the son's record (lexical #1 on "name"). The frame says nothing of what is asked."""
    store = user_store(memory, [{"content": t, "source_kind": "user_statement"} for t in NAMED])
    brother = search(store, "What's my brother's name?")
    assert brother["results"] == []
    assert replay(logged(memory, brother)) == []
    son = search(store, "What is my son's name?")
    assert [r["content"] for r in son["results"]][:1] == [NAMED[1]]
    assert replay(logged(memory, son)) == [r["id"] for r in son["results"]]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What's my doctor's name?", "I saw Dr. Patel about my knee last week."),
        ("What's my grandmother's name?", "gran Edith is coming over on the 12th"),
    ],
)
def test_a_short_or_family_form_names_the_word_it_stands_for(
    memory: Memory, question: str, answer: str
) -> None:
    """ "Dr. Patel" names the doctor, which WordNet does not know ("dr" is nothing there, and
    "mum" first a chrysanthemum), nor the packaged model (cosine 0.31, under every floor but
    the subject one); "gran" the grandmother, as WordNet knew before."""
    texts = [
        "I saw Dr. Patel about my knee last week.",
        "gran Edith is coming over on the 12th",
        "I prefer tea to coffee in the morning.",
        "We will grill on the Weber this weekend.",
    ]
    assert passed_on(memory, texts, question).get(answer) == "subject"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Do I have any allergies?", "The user is allergic to latex."),
        ("Do I have any allergies?", "The user is allergic to penicillin."),
        ("Any allergies?", "The user is allergic to shellfish."),
    ],
)
def test_a_word_and_its_derived_form_name_each_other(
    memory: Memory, question: str, answer: str
) -> None:
    """ "allergic" names "allergies" (WordNet's derived forms of an adjective or a noun, written
    alike: core.judge.wordnet.relatives). Before: each was answered empty (the packaged model
    puts them under the floors, and the light stemmer keeps "allergi" and "allergic" apart)."""
    texts = [
        answer,
        "I work as a pharmacist in Manchester.",
        "I take levothyroxine every morning for my thyroid.",
        "We will grill on the Weber this weekend.",
    ]
    assert passed_on(memory, texts, question).get(answer) == "subject"


@pytest.mark.parametrize(
    ("word", "relatives"),
    [
        ("allergic", {"allergy"}),
        ("allergies", {"allergic"}),
        ("diabetes", {"diabetic"}),
        ("married", {"marriage"}),
        ("live", set()),  # a verb's derived nouns are not its ("liver")
        ("allergy", {"allergic"}),  # nor a noun's nouns ("allergist")
        ("anxious", {"anxiousness"}),  # only what is written alike ("nervousness" is not)
    ],
)
def test_derived_forms_are_an_adjectives_nouns_and_a_nouns_adjectives(
    word: str, relatives: set[str]
) -> None:
    net = wordnet()
    assert net is not None
    assert set(net.relatives(word)) == relatives


def test_wordnet_is_opened_once_per_process() -> None:
    """Each WordNet maps its files; one per call leaked a descriptor per file until a long
    evaluation failed to open them (caught while measuring this session's change)."""
    assert wordnet() is wordnet()


def test_a_doctors_title_names_the_doctor_only_before_a_name() -> None:
    """ "Dr." names a doctor before a name, not as a street ("12 Oak Dr.")."""
    assert subject.names(("doctor",), "I saw Dr. Patel about my knee last week.")
    assert subject.names(("doctor",), "my GP says my blood pressure is fine")
    assert not subject.names(("doctor",), "We live at 12 Oak Dr. near the park.")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Where do I work?", "Started a new job at the Lidl warehouse on Monday, nights."),
        ("Which company do I work for?", "The user is PM at Brandt Antriebstechnik."),
        ("Where do we live?", "we finally moved, got the keys to our house in Bromley"),
        ("Where do we live?", "Big one: we bought a place in Raglan! Moving 18 April."),
        ("Where did I get my master's degree?", "I learned it during my MSc at LSE in 2015."),
        # the user's own home answers "location", "address", "based" too
        ("Where am I based?", "we finally moved, got the keys to our house in Bromley"),
        ("What's my address?", "I moved in with my boyfriend Sam in Newcastle."),
        # a role the user has been at a named place
        ("What company do I work for?", "I've been a UX researcher at Lumen Health for years."),
        # a role with its article at "the" place, or holding a number (each came back empty)
        ("Where do I work?", "I'm a team leader at the Co-op on Cowley Road in Oxford."),
        # going to a university is studying there
        ("Which university do I go to?", "I'm a second-year law student at Leicester."),
        # a job taken up at a named employer, with its role (each came back empty)
        (
            "Where do I work?",
            "I quit the Premier Inn and started at Rolls-Royce as a facilities coordinator!",
        ),
        ("What's my job?", "Joined Deloitte as an analyst last month."),
        ("Which company do I work for?", "I started as a barista at Pret a couple of months ago."),
        (
            "What's my job title?",
            "Big change - I quit First Bus and joined Bristol Water as a network technician.",
        ),
        ("What's my role at work?", "Joined Kirana Cloud last week as backend lead."),
        # a home moved into, completed on, "shifted" to, a condo (session 54)
        ("Where do I live?", "Finally moved in to the townhouse in Arabian Ranches."),
        ("Where do we live?", "We got the keys on Friday and moved into the house!"),
        ("Where do we live?", "We completed on a house in Bexleyheath today!!"),
        ("Where do I live?", "We shifted to a 2BHK in Whitefield, 10 minutes from office now."),
        ("Where do we live?", "Also, our condo board in Liberty Village wants to ban bikes."),
    ],
)
def test_where_the_user_works_or_lives_is_named_by_what_says_it(
    memory: Memory, question: str, answer: str
) -> None:
    """The user's own job, or role at a named place, names "work" (and "company",
    "employer" ...); the user's own house or move names "live", the user's own degree or
    studies "study" and "degree" ("MSc" is a master's): the answers of the commonest
    everyday questions, which the packaged model scores under every floor ("Where do I
    work?" / "The user is PM at Brandt ...": cosine 0.17)."""
    assert passed_beside_fillers(memory, answer, question) == "subject"


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        ("work", "my sister Claire got promoted"),  # someone else's
        ("work", "Chidi is a branch manager at Zenith Bank."),
        ("work", "we had company over on sunday"),  # another sense
        ("work", "the post office was closed again"),
        ("work", "I'm in London for Easter."),  # where one is, not a role
        ("work", "I'm a member at Riverside Golf Club."),
        ("work", "I was at the pub with Dave."),
        # "at the" a place without a role and its article, or a mood said as one
        ("work", "I'm having lunch at the Ivy with Sam."),
        ("work", "I'm trying to save for the EP release."),
        ("job", "I'm a bit nervous at the Olympics tomorrow."),
        ("job", "I'm a guest at the Hilton for the conference."),
        # a review found each of these naming the user's work before a role at "the" place had
        # to be a job held (session 53)
        ("work", "I'm a bridesmaid at the Smiths' wedding next month."),
        ("work", "I'm a speaker at the Web Summit this year."),
        ("job", "I'm a season ticket holder at the Emirates."),
        ("work", "I'm a pirate at the Halloween party, obviously."),
        ("employer", "I'm a judge at the Village Show on Saturday."),
        ("work", "In my dream I was a surgeon at the Royal London."),
        ("job", "My sister says I'm a nurse at the Royal Free but she's the nurse."),
        ("work", "I'm a complete beginner at the Monday pottery class."),
        ("work", "I'm an outpatient at the Royal Free for my knee."),
        # a second review: a group or an occasion helped at, a hope, a report, a hobby
        ("work", "I'm a team leader at the Scouts on Tuesday nights."),
        ("job", "I'm an events coordinator at the PTA."),
        ("work", "Hopefully I'm a manager at the Co-op by Christmas."),
        ("job", "The caller kept saying I'm a manager at the Halifax, obviously a scam."),
        ("work", "Her bio reads: I'm a nurse at the Royal Free and a mum of 3."),
        ("work", "I'm a chef around the house, nothing fancy."),
        ("job", "I've been a member at Wentworth for years."),
        ("job", "I work out at the gym most mornings."),  # exercise, not a job
        ("job", "Daniel works nights at the depot."),  # someone else's
        ("job", "I work evenings at the gym."),  # no named place
        # "I've been" is as often a state or an activity as a role held
        ("job", "I've been a bit lost at Uni this term."),
        ("job", "I've been shopping at Tesco all morning."),
        ("job", "I've been a bridesmaid at Sarah's wedding."),
        # a review of the reading of a job taken up found each of these read as the user's
        # (session 54): someone else's, a club's, a game's, one to come, a question, a chore
        ("work", "My son's doing great. Started at Tesco as a cashier last week."),
        (
            "job",
            "I'm so proud of my son, he finished uni and started at Rolls-Royce as an engineer",
        ),
        ("work", "I was chatting to my neighbour who retired and joined Tesco as a security guard"),
        ("job", "Proofread my wife's bio please: I joined Unilever as a brand manager in 2012."),
        ("work", "I joined the Sea Cadets as an instructor, one evening a week."),
        ("work", "I joined FareShare as a volunteer driver."),
        ("job", "I started Fallout as a scientist."),
        ("work", "Once I join Deloitte as an analyst I'll move to London."),
        ("work", "Should I start at Google as an engineer, or stay where I am?"),
        ("job", "I started as a carer for Mum after her stroke."),
        ("work", "I joined the Hollins & Pike panto as a stagehand."),
        # a second review: someone else's or made-up words after a short opening, a club's
        # head, a part in a play (session 54)
        ("work", "My sister texted: I quit Barclays and joined Monzo as an analyst."),
        ("work", "Plot of my novel - I quit the police and joined MI5 as an analyst."),
        ("job", "Option B: I quit and joined Google as an engineer"),
        ("job", "I joined Cotswold Harriers as head of social events."),
        ("job", "I joined the Bristol Old Vic as the lead in Blithe Spirit."),
        ("work", "In our D&D campaign I joined the Harpers as a spy."),
        # a review of those home readings found each of these read as a home (session 54)
        ("live", "the airbnb was great, our condo had an ocean view"),
        ("live", "Booked our condo in Whistler for the ski trip"),
        ("live", "moved into the airbnb apartment for the week"),
        ("live", "we heard the new neighbours got the keys and moved into the house"),
        ("live", "we completed on a flat in Manchester, buy to let"),
        ("live", "we completed on the house for mum and dad, they move in friday"),
        ("live", "We completed on the house sale on Friday"),
        ("live", "i shifted to a new home screen layout on my phone"),
        ("live", "he texted: we shifted to a 2bhk in whitefield"),
        ("live", "once we've completed on a house in Kent I'll get a dog"),
        ("live", "We spend winters at our condo in Naples"),
        ("live", "I shifted to a flat near the hospital during dad's treatment"),
        ("live", "Should we shift to a bigger flat in Pune?"),
        ("live", "a flat white and a croissant please"),
        ("live", "the host moved our check-in to 4pm"),
        ("live", "going to my parents' house for christmas"),
        ("live", "our airbnb apartment in Lisbon has a view"),
        ("live", "Tom went in my place, I was ill"),  # standing in, not a home
        ("live", "I lost my place in the book again"),
        ("live", "at my parents' place in Ipoh for new year"),
        ("live", "my sister is moving to Berlin"),
        # the words a home is asked by name the user's own home, not any "live"
        ("address", "I used to live in Paris."),
        ("location", "My sister lives in Oslo."),
        ("address", "We live in hope."),
        # a place one goes to, hosts at or owns to let; a move of something else
        ("live", "Told everyone to come back to my place for drinks after the gig"),
        ("live", "Party at my place Saturday, bring snacks!"),
        ("live", "Our place in Cornwall is rented out for the summer"),
        ("live", "Mum and I bought a place in Spain as a holiday let"),
        ("live", "we bought a place in the final, first time in years"),
        ("live", "We're moving to Slack from Teams at work, finally"),
        ("live", "I'm moving in slow motion today, so hungover"),
        # two reviews of a "here in <Place>" reading found these naming a home (session 41)
        ("live", "I work here in Frankfurt on the audit through March."),
        ("live", "My office is in Dublin but I'm at my mum's here in Belfast."),
        ("live", "Back home for Christmas. I grew up here in Sunderland."),
        ("live", "I'm a lawyer here in London for a deposition."),
        ("study", "my son is a student at Leeds"),
        ("study", "my son's degree ceremony is in June"),
        ("study", "I did my taxes last night"),
        ("degree", "i studied the menu for ages before ordering"),
        ("degree", "i'm tutoring a student in maths on tuesdays"),
        ("degree", "my ma called me about sunday lunch"),
        ("work", "I'm planning my retirement party for June"),
        ("work", "my dad took early retirement last year"),
        ("work", "we accepted an offer from Foxtons on the house"),
        ("work", "I got an offer from Tesco for the flat"),
        # a review of wider readings found each of these naming the user's job
        ("employer", "I got new work shoes, my feet are killing me"),
        ("employer", "we start new work on the kitchen next week"),
        ("job", "I accepted an offer at UCL to study economics"),
        ("job", "I got an offer at Argos for the kettle, half off"),
        ("employer", "I started retirement planning with an adviser"),
        ("job", "I took retirement advice from the bank"),
        ("job", "if I accepted an offer at Meta as a designer we'd move"),
        ("employer", "I never took early retirement, though I could have"),
    ],
)
def test_only_the_users_own_job_home_or_studies_name_them(asked: str, text: str) -> None:
    """The words alone say too little: a job or a home is named only as the user's own, in
    words that say nothing else."""
    assert not subject.names((asked,), text)


def test_the_user_in_the_first_person_names_work_home_or_studies() -> None:
    assert subject.names(("work",), "I was a nurse at St Mary's for 20 years.")
    assert subject.names(("employer",), "I resigned from Beaumont Clarke after eleven years.")
    # retirement taken: where the user worked, and that they no longer do
    assert subject.names(("work",), "I have accepted early retirement from Volvo. Last day 31 May.")
    assert subject.names(("job",), "The user took early retirement from Unilever in May.")
    # a new job said as an offer taken, or as new work
    assert subject.names(("work",), "I accepted an offer at Wealthsimple as senior designer!!")
    assert subject.names(("employer",), "Now I start new work! From Monday I drive for Go-Ahead.")
    # a role holding a number, and one at "the" place (with its article), held as a job
    assert subject.names(("work",), "I'm a Year 4 teacher at Whitehall Primary in Bristol.")
    assert subject.names(("employer",), "I'm a 4th-year associate at Whitfield Crane.")
    assert subject.names(("job",), "I work as a receptionist at the Hilton in Cardiff Bay.")
    assert subject.names(("work",), "I'm a security guard at the O2.")
    assert subject.names(("job",), "I'm a nurse at the Royal Free, we had a party last week.")
    assert subject.names(("work",), "I'm a dairy farmer near Llandeilo, so lots of farm miles.")
    # "employed" asks work; "doing a master's" is the user's own studies, which name going
    # to or attending a university
    assert subject.names(subject.asked(("company", "employed")), "I'm an electrician for Spark.")
    assert subject.names(("degree",), "I'm doing a master's in Urban Planning at UCL.")
    assert subject.names(("university", "attend"), "I'm a PhD student at Edinburgh.")
    assert not subject.names(("university", "attend"), "My daughter goes to Durham University.")
    # studies that name no place one goes to, and a degree word in another sense
    assert not subject.names(("university", "attend"), "I study karate at the leisure centre.")
    assert not life.BY_NAME["study"].says("I'm doing a master plan for the garden.")
    assert not life.BY_NAME["study"].says("I'm doing a PhD-level puzzle tonight.")
    assert life.own_life(("work",), "The user works at Google.") == "work"
    assert life.own_life(("job",), "we work from home on Fridays") == "work"
    assert life.own_life(("job",), "I work nights in the ER at Harborview") == "work"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "What does my husband do for work?",
            "For the visa, my husband Chidi will stay because of the bank; he is a branch "
            "manager at Zenith Bank.",
        ),
        (
            "What was my profession?",
            "Please sign it 'H. R. Pemberton (Mr)'. I was a schoolmaster for thirty-eight years "
            "and I cannot abide a split infinitive, so do be careful.",
        ),
        # "What do I do?" asks the user's work (it asked nothing)
        ("What do I do?", "I'm a plumber, been at it twenty years."),
        # children asked about are someone's sons and daughters; "married" asks a spouse
        ("Do I have kids?", "The user's son Leo is 7."),
        ("Am I married?", "The user's wife Chioma is on maternity leave."),
        # a person word that is also a verb still names the person asked about ("husband",
        # "mother", "boss": the verb check skipped them)
        ("Am I married?", "My husband Earl says I should let the guests bring whatever."),
        ("Who are my parents?", "My mother Carol turns 80 in May; we're planning a party."),
        ("Who is my supervisor?", "My boss Priya wants the report by Friday."),
    ],
)
def test_someones_occupation_answers_what_their_work_is(
    memory: Memory, question: str, answer: str
) -> None:
    """A question about someone's work is answered by what they are ("is a baker"), which
    shares no word with it; the user's own, by what the user is or was."""
    assert passed_beside_fillers(memory, answer, question) == "subject"


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (("work",), "The user is a secondary school history teacher."),
        (("job",), "I'm a software engineer based in Leeds."),
        (("work",), "I'm a nurse working nights at St Thomas'."),
        (("employer",), "The user is a senior backend software engineer at Monzo."),
        (("wife", "work"), "My wife is a primary school head teacher."),
    ],
)
def test_a_job_said_in_a_longer_phrase_names_work(asked: tuple[str, ...], said: str) -> None:
    """The phrase is read to four words, its head an occupation before a participle ("based",
    "working") or its last word: each of these said no job, and "Where do I work?" came back
    empty beside it."""
    assert subject.names(subject.asked(asked), said)


@pytest.mark.parametrize(
    ("said", "a_job"),
    [
        # an occupation word before a noun is a modifier (an adversarial review's class)
        ("I'm a cop show junkie.", False),
        ("I'm a designer handbag addict.", False),
        ("I took the test and I'm an architect personality type.", False),
        ("My wife is a taxi driver movie fan.", False),
        # a participle before the occupation modifies it
        ("I'm a qualified chartered accountant.", True),
        ("I'm a court appointed lawyer.", True),
    ],
)
def test_the_head_of_a_role_phrase_decides(said: str, a_job: bool) -> None:
    assert bool(roles.says_own_role(said) or roles.occupation_holders(said)) is a_job


def test_an_occupation_is_what_someone_is_for_a_living() -> None:
    """One person's work is asked as their occupation; it is named by a job said as what that
    person is, or by where they work, not by a trait, a hobby, a relation or a chore ("a
    terrible cook", "a big fan", "a mother of two", "worked in the garden"), nor by another
    person's job in the same sentence, and someone else's never names the user's own work."""
    asked = subject.asked(("mother", "job"))
    assert asked == ("mother", subject.OCCUPATION + "mother")
    assert subject.asked(("team", "boss", "work")) == ("team", "boss", "work")
    assert subject.asked(("work",)) == ("work",)
    assert subject.words_asked("What does my wife do?", ["wife"]) == ("wife", "work")
    advice = ["noisy", "neighbour"]
    assert subject.words_asked("What do I do about my noisy neighbour?", advice) == tuple(advice)
    assert subject.asked(("wife", "father", "work")) == ("wife", "father", "work")
    assert subject.names(asked, "My mother is a nurse at the Royal Infirmary.")
    assert subject.names(asked, "my mum's a pharmacist at Boots")
    assert subject.names(asked, "my mother Ines works at the depot")
    for not_a_job in (
        "My mother is a terrible cook.",
        "My mother is a big fan of jazz.",
        "Mum worked in the garden all weekend.",
        "my mother's sister is a nurse",
        "my mum's maiden name was Baker",
        "my mother said it's a printer problem",
    ):
        assert not subject.names(asked, not_a_job), not_a_job
    assert not subject.names(("work",), "My mother is a baker in Rennes.")
    for not_own in (
        "I'm a mother of two.",
        "I'm a morning person.",
        "I'm a regular at the Crown",
        "in my dream last night I was a surgeon, so weird",
        "my kids say I'm a taxi driver for them lol",
        "I'm a pilot in Microsoft Flight Simulator, did a 747 landing",
        "I'm a servant to my cats lol",
    ):
        assert not subject.names(("job",), not_own), not_own
    assert subject.names(("job",), "I'm an English teacher at a school in Leeds.")


def test_an_occupation_is_the_one_persons_it_is_said_of() -> None:
    """A name or a pronoun stands for one person: the person word before the name, or the
    nearest one before the pronoun; a literal work word beside a person still names their
    work, as it did before occupations were read."""
    wife = subject.asked(("wife", "profession"))
    assert subject.names(wife, "My wife Priya is an anaesthetist at the Royal Free.")
    assert subject.names(wife, "My wife Rachel says I'm obsessed. She's a speech therapist.")
    assert not subject.names(wife, "we had dinner with my wife's colleague Tom, he's a lawyer")
    assert not subject.names(wife, "my brother's girlfriend, she's a vet")
    assert subject.names(
        subject.asked(("dad", "trade")), "My father has been a mechanic for 30 years"
    )
    assert subject.names(subject.asked(("manager", "work")), "My manager at work is Priya")
    husband = subject.asked(("husband", "work"))
    assert not subject.names(husband, "Ngozi's husband got a job in Manchester")


@pytest.mark.parametrize(
    "question", ["Where do my parents live?", "Which city do my parents live in?"]
)
def test_where_someone_lives_answers_where_they_live(memory: Memory, question: str) -> None:
    """A question about where one person lives is answered by what says their home ("my
    parents' place in Ipoh", "lives in Chicago", "moved to a care home"), which need not say
    "live" (before, "live" had to be in the record, and "city" too: both were answered
    empty)."""
    answer = (
        "CNY reunion dinner this year is at my parents' place in Ipoh, and I volunteered to "
        "plan the menu for 14 people."
    )
    assert passed_beside_fillers(memory, answer, question) == "subject"


def test_a_home_is_the_one_persons_it_is_said_of() -> None:
    """Where one person lives is asked as their home; it is named by a home said of that
    person (a name stands for the person word before it), not by a move of something else,
    a month, a way of living, a room, the user's own home or another person's."""
    asked = subject.asked(("mother", "live"))
    assert asked == ("mother", subject.HOME + "mother")
    assert subject.asked(("live",)) == ("live",)
    assert subject.asked(("maddie", "parents", "live")) == ("maddie", "parents", "live")
    sister = subject.asked(("sister", "live"))
    for says in (
        "My sister Ewa lives in Chicago.",
        "my sister's flat in Leith is tiny",
        "my sister moved to Leeds last year",
        "my sister moved to a care home",
        "my sister is living with her boyfriend now",
        "we're staying with my sister in Lyon",
        "my sister, who lives in Oslo, called",
    ):
        assert subject.names(sister, says), says
    for not_hers in (
        "my sister moved the party to Sunday",
        "my sister moved to tears",
        "my sister moved to a new team at work",
        "my sister moved into management",
        "my sister moved back the deadline",
        "my sister in June starts uni",
        "my sister in Spring",
        "My sister in Accounting keeps recommending true crime podcasts.",
        "my sister in Christ",
        "my sister is living her best life",
        "my sister lives for football",
        "my sister lives on coffee",
        "my sister lived in Rome in a past life",
        "I wish my sister lived nearby",
        "my sister's living room is huge",
        "my sister's house keys",
        "my sister's flat tyre made us late",
        "I live in Leeds with my sister",
        "my sister's boss lives in Oslo",
        "Tom's sister lives in Oslo",
        "My friend's sister lives in Oslo",
        "my sister's housewarming party is Friday",
    ):
        assert not subject.names(sister, not_hers), not_hers
    assert subject.names(asked, "My mom lives in Puebla and she makes the best mole.")
    # "he" is not the sister, nor "she" the brother; the mother's "she" is hers.
    assert not subject.names(sister, "My sister called. He lives in Oslo now.")
    brother = subject.asked(("brother", "live"))
    assert subject.names(brother, "My sister called about my brother. He lives in Oslo now.")
    assert subject.names(asked, "We visited my mother. She lives in Gifu since my father died.")
    assert subject.names(asked, "Mum lives in Lamu, maybe we fly her to Diani.")
    # The kind of place asked ("Which city does my sister live in?") is where she lives.
    assert subject.asked(("city", "sister", "live")) == sister
    assert subject.asked(("neighbourhood", "live")) == ("live",)
    assert subject.asked(("house", "sister", "live")) == ("house", "sister", "live")
    parents = subject.asked(("parents", "live"))
    assert subject.names(parents, "My parents live in Ipoh.")
    assert subject.names(parents, "my parents moved there from Petersburg last year")


def test_where_someone_lives_stays_empty_when_no_record_says_it(memory: Memory) -> None:
    """A record naming the person and a capitalised word that says nothing of where they live
    does not answer (a first version passed it on the subject signal, at cosine 0.04)."""
    text = "Can you recommend a podcast? My sister in Accounting keeps recommending true crime."
    assert passed_beside_fillers(memory, text, "Where does my sister live?") is None


def test_the_kind_of_workplace_asked_about_is_where_the_user_works() -> None:
    """In a question asking only where the user works and a kind of workplace ("hospital",
    "bank", "restaurant": WordNet), the kind is asked as the user's workplace: a text saying
    the user's own work names it, one saying someone else "works" does not. With any other
    word the kind stays a word to name."""
    assert subject.asked(("hospital", "work")) == ("workplace", "work")
    assert subject.asked(("bank", "work")) == ("workplace", "work")  # a bank is first a slope
    assert subject.asked(("city", "work")) == ("city", "work")  # a city is no workplace
    assert subject.asked(("bank", "use")) == ("bank", "use")  # not asked about work
    assert subject.asked(("gym", "near", "work")) == ("gym", "near", "work")
    assert subject.asked(("team", "boss", "work")) == ("team", "boss", "work")
    asked = subject.asked(("hospital", "work"))
    assert subject.names(asked, "so I work nights in the ER at Harborview (3x12s)")
    assert subject.names(asked, "I work weekends at Nando's")
    assert not subject.names(asked, "my wife works nights at the Royal Infirmary")
    assert not subject.names(asked, "I work nights on my novel")


CARS = [
    "Also we sold the CR-V and bought an Ioniq 5. Home charger install tips for a townhouse?",
    "Also I need winter tires for my RAV4, deadline is December 1 in Quebec no?",
    "And the Passat is gone. Picked up a Skoda Enyaq on Saturday. Garda trip is now electric.",
    "also the civic's check engine light came on, 2009 civic 190k miles. safe for a long drive?",
    "back on the tools. sold the ranger, got a hilux, ranger was costing me a fortune",
]


@pytest.mark.parametrize("text", CARS)
def test_the_users_car_is_named_by_its_make_or_model(text: str) -> None:
    """The user's own car, said by a make or model only ("an Ioniq 5", "my RAV4") beside what
    says a vehicle (charger, tires, electric, mileage) or by an unmistakable model ("got a
    hilux"), names "car", "vehicle" and "drive"."""
    assert subject.names(("car", "drive"), text)
    assert subject.names(("vehicle",), text)
    assert life.own_life(("car",), text) == "vehicle"


def test_what_car_we_drive_is_answered_by_the_model_we_bought(memory: Memory) -> None:
    """The packaged model scores "What car do we drive?" 0.15 against the purchase: without
    the make and model, the answer was empty."""
    texts = [CARS[0], *FACTS[1:6]]
    assert passed_on(memory, texts, "What car do we drive?").get(CARS[0]) == "subject"


@pytest.mark.parametrize(
    "text",
    [
        # a maker's other goods, a car's words about another thing
        "we bought a Honda mower, engine starts first pull every time",
        "We got a Tesla Powerwall for the solar, maybe an EV later if prices drop",
        "bought a Simba Hybrid mattress and my back is so much better",
        "I got a new Fender, it's going electric haha",
        "hybrid working means my Mondays are at home now",
        "just bought a Trek Domane, the tyres are so skinny lol but it flies",
        "got the Ryobi petrol leaf blower too, neighbours hate me",
        "I bought a new MacBook. The charger is broken.",
        # someone else's, hired or borrowed
        "my sister drives a Tesla, the engine is so quiet",
        "my Nan's old Corolla is diesel and she still drives it to bingo",
        "we drove a Dacia Duster 4x4 around Iceland, rental was cheap",
        "My Dad's truck needs new tires",
        # a model's name in another sense
        "I got a Golf lesson voucher for my birthday, the petrol station sells them",
    ],
)
def test_only_the_users_own_car_names_it(text: str) -> None:
    """A review of 58 chatty stores found each of these answering "What car do we drive?"
    when any capitalised name beside a vehicle's word was read as the user's car."""
    assert not subject.names(("car", "drive"), text)
    assert not subject.names(("vehicle",), text)


def test_the_subject_is_the_question_without_its_frame() -> None:
    """Question words, "name", "kind", "now" and the like only frame a question; what is left
    must all be named, by the same stem or a kind of it."""
    assert subject.asked(("dog", "name")) == ("dog",)
    assert subject.asked(("kind", "car", "drive", "now")) == ("car", "drive")
    assert subject.names(("dog",), "Figa, our dachshund, cannot come.")
    assert subject.names(("dogs",), "our corgi Biscuit")
    assert subject.names(("blood", "type"), "my blood type is O negative")
    assert not subject.names(("blood", "type"), "I gave blood on Monday.")
    assert not subject.names(("dog",), "our cat Pepper")
    assert not subject.names((), "anything")


def test_a_title_role_or_position_beside_a_work_word_asks_the_job() -> None:
    """ "What's my job title?" asked "job" and "title", which no statement of a job says."""
    assert subject.asked(("job", "title")) == ("job",)
    assert subject.asked(("role", "work")) == ("work",)
    assert subject.asked(("wife", "job", "title")) == ("wife", subject.OCCUPATION + "wife")
    assert subject.asked(("title", "book")) == ("title", "book")  # no work word: it stays
    # another thing asked beside the work: the title is of it (a review's class)
    assert subject.asked(("title", "work", "presentation")) == ("title", "work", "presentation")
    assert subject.asked(("official", "job", "title")) == ("job",)  # not an official's job
    assert subject.asked(("role",)) == ("role",)


def test_the_signal_is_off_in_a_large_store() -> None:
    """The subject floor is the corroborated floor lowered by ``subject_drop`` at ``small``
    records and fewer, rising to it, and off (None) from ``reference`` on: in a large store
    every subject word is in some record. A candidate naming the subject passes above the
    floor only."""
    settings = {"subject_drop": 0.21, "reference": 500, "small": 30}
    floors = {n: subject_floor(n, corroborated=0.21, **settings) for n in (8, 30, 100, 499)}
    assert floors[8] == floors[30] == 0.0
    assert floors[30] < floors[100] < floors[499] < 0.21  # type: ignore[operator]
    assert subject_floor(500, corroborated=0.35, **settings) is None
    assert subject_floor(20, corroborated=0.21, subject_drop=0.0, reference=500, small=30) is None
    named = Candidate("mem_a", matches={"dense": {"rank": 3, "score": 0.12}}, subject=True)
    unnamed = Candidate("mem_b", matches={"dense": {"rank": 1, "score": 0.2}})
    at = {"dense_floor": 0.35, "lexical_floor": 5.0, "corroborated": 0.21}
    assert gate(named, **at, subject=0.1) == (
        "subject",
        "dense cosine 0.120 >= floor 0.1, naming what the query asks about",
    )
    assert gate(named, **at, subject=0.15) is None
    assert gate(named, **at, subject=None) is None
    assert gate(unnamed, **at, subject=0.0) is None


def test_a_subject_pass_does_not_bring_in_records_near_its_low_cosine(
    facts: Session, memory: Memory
) -> None:
    """A record naming the subject may sit at cosine 0.05; records within the dense margin of
    that say nothing about the question, and (ranked by fused score) they took the places
    before it. The answer is the record that names the dog, alone."""
    result = search(facts, "What is my dog called?")
    assert [r["content"] for r in result["results"]] == [FACTS[0]]
    assert result["explanation"]["cut"]["why"] == "weak on every signal and far below the best"
    assert replay(logged(memory, result)) == [result["results"][0]["id"]]


# What an adversarial review found the first version passing (each answered empty before the
# signal, and by it with an unrelated record): a rare sense of the word asked about ("pet" as
# a darling, which a "favourite" is), a famous bearer of a name (WordNet files Abraham
# Lincoln under lawyers), and a word of the question's frame ("for a living").
EVERYDAY = [
    "Mary from accounting covers my shifts on Fridays.",
    "My favourite band is Radiohead.",
    "We're planning a trip to Japan in April.",
    "My daughter Rose just started school.",
    "I live in Lisbon, near the river.",
    "I work as a nurse.",
    "Lincoln, my son, loves Lego.",
    "I drive a 2015 Honda Civic.",
    "I'm allergic to peanuts.",
    "I play tennis on Sundays.",
    "I drink two cups of coffee a day.",
]


@pytest.mark.parametrize(
    "question",
    [
        "Do I have any pets?",
        "What's my pet called?",
        "Who is my mother?",
        "Who is my lawyer?",
        "Do I have any conditions?",
        "Do I have any plants?",
    ],
)
def test_only_a_common_noun_of_the_first_sense_names_a_subject(
    memory: Memory, question: str
) -> None:
    session = user_store(
        memory, [{"content": f, "source_kind": "user_statement"} for f in EVERYDAY]
    )
    result = search(session, question)
    assert [r["content"] for r in result["results"]] == []


def test_a_question_about_a_living_is_not_about_living_somewhere(memory: Memory) -> None:
    session = user_store(
        memory, [{"content": f, "source_kind": "user_statement"} for f in EVERYDAY]
    )
    result = session.call(
        "memory_search", {"query": "What do I do for a living?", "limit": 2}, now=NOW
    )
    assert [r["content"] for r in result["results"]][:1] == ["I work as a nurse."]
    assert all(r["explanation"]["passed_on"] != "subject" for r in result["results"])


def _result_gate(candidates: list[Candidate], *, beside_subject: int = 0) -> list[Candidate]:
    """The gate's default mode over ``candidates`` in a small store (subject floor 0)."""
    return apply_gate(
        candidates,
        dense_floor=0.35,
        lexical_floor=5.0,
        mode="result",
        dense_margin=0.15,
        lexical_share=0.3,
        corroborated=0.21,
        subject=0.0,
        beside_subject=beside_subject,
    )


def test_a_subject_pass_brings_nothing_in_on_its_bm25_either() -> None:
    """The per-result margin reads neither the cosine nor the BM25 of a subject pass."""
    named = Candidate(
        "mem_named",
        matches={"dense": {"rank": 1, "score": 0.05}, "lexical": {"rank": 1, "score": 2.0}},
        subject=True,
    )
    rider = Candidate(
        "mem_rider",
        matches={"dense": {"rank": 2, "score": 0.01}, "lexical": {"rank": 2, "score": 0.7}},
    )
    survivors = _result_gate([named, rider], beside_subject=1)  # the rider is not as close
    assert [(c.record_id, c.passed_on) for c in survivors] == [("mem_named", "subject")]
    assert rider.passed_on is None


def test_frame_words_of_a_polite_question_are_not_its_subject() -> None:
    assert subject.asked(("please", "dog", "name", "thanks")) == ("dog",)
    assert subject.asked(("recall", "dog", "name")) == ("dog",)
    assert subject.asked(("living",)) == ()
    assert not subject.names(("pet",), "My favourite band is Radiohead.")
    assert not subject.names(("lawyer",), "Lincoln, my son, loves Lego.")
    assert subject.names(("dog",), "Rusty, our kelpie, comes on every trip.")


# A second review's everyday store: names that are also things, verbs that are also nouns,
# and words whose later senses are something else.
HOUSEHOLD = [
    "Mark from work is coming to dinner on Friday.",
    "Our golden retriever Max is twelve.",
    "My hamster Peanut escaped last night.",
    "My cousin Robin lives in Perth.",
    "We went to Turkey for our honeymoon.",
    "I write Python at work every day.",
    "My sister Ruby works in Boston.",
    "We saw a crane at the wetlands.",
    "I fly kites with my son on the weekend.",
    "We ate dates in Marrakech.",
    "I love cold brew coffee.",
]


@pytest.mark.parametrize(
    "question",
    [
        "What was my score?",  # "Mark": a mark is a score
        "Am I on any drugs?",  # "Max": a street name for a drug
        "Do I have any fruit?",  # "Peanut"
        "Do I have any birds?",  # "Robin", "Turkey"
        "Do I have a snake?",  # "Python"
        "Do I have any plants?",  # "works"
        "Do I have any tools?",  # "saw"
        "Do I have any friends?",  # "dates": a date is also an escort
        "Do I have any trees?",  # "coffee": also the coffee tree
    ],
)
def test_a_name_a_verb_or_a_later_sense_names_no_subject(memory: Memory, question: str) -> None:
    session = user_store(
        memory, [{"content": f, "source_kind": "user_statement"} for f in HOUSEHOLD]
    )
    assert search(session, question)["results"] == []


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("Who is my manager?", "I coach the under-10s football on Saturdays."),
        ("Am I married?", "We partner with three local farms for the cafe's veg."),
        ("Who are my parents?", "My father-in-law Gene is visiting from Tulsa."),
        ("Am I married?", "I'm writing a novel where the husband is secretly a spy."),
        ("Who are my parents?", "My neighbour's mother is in hospice."),
    ],
)
def test_a_person_word_that_is_also_a_verb_names_only_the_users_own(
    question: str, text: str
) -> None:
    """ "my husband" names a spouse though "husband" is also a verb; the word as a verb, someone
    else's or an in-law does not (an adversarial review's traps)."""
    asked = subject.asked(subject.words_asked(question, tuple(query_tokens(question))))
    assert not subject.names(asked, text)


def test_a_named_place_is_an_instance_of_its_kind() -> None:
    assert subject.names(("city", "mom", "live"), "My mom lives in Puebla.")
    assert not subject.names(("bird",), "My cousin Robin lives in Perth.")


def _subject_answer(beside: int, *weak_cosines: float) -> list[tuple[str, str | None]]:
    """apply_gate over a subject pass at cosine 0.10 and weak candidates at ``weak_cosines``."""
    named = Candidate("mem_named", matches={"dense": {"rank": 4, "score": 0.10}}, subject=True)
    weak = [
        Candidate(f"mem_{i}", matches={"dense": {"rank": i + 1, "score": c}})
        for i, c in enumerate(weak_cosines)
    ]
    survivors = _result_gate([named, *weak], beside_subject=beside)
    return [(c.record_id, c.passed_on) for c in survivors]


def test_an_answer_showing_only_a_subject_pass_shows_the_closest_record_beside_it() -> None:
    """A subject pass may name the question's word in another sense ("frachtwerk's routing
    service" for "Where do I work?", cosine 0.03): the answer does not hide the record
    closest in meaning when it is closer than what it shows; one such record, not every
    record above a low cosine."""
    assert _subject_answer(1, 0.24, 0.20, 0.05) == [("mem_named", "subject"), ("mem_0", "beside")]
    assert _subject_answer(2, 0.20, 0.24, 0.05) == [
        ("mem_named", "subject"),
        ("mem_0", "beside"),
        ("mem_1", "beside"),
    ]
    assert _subject_answer(0, 0.24) == [("mem_named", "subject")]
    assert _subject_answer(1, 0.09, 0.05) == [("mem_named", "subject")]  # none as close


def test_a_record_beside_the_subject_pass_goes_after_it_and_says_why() -> None:
    """Fused first or not, the record beside a subject pass is shown after it: a short answer
    ("limit": 1) keeps the record naming what was asked ("What kind of dog do I have?" keeps
    the dog, not "Our vet is Dr Lim"), and its reason is its own, not "near the best"."""
    named = Candidate("mem_named", matches={"dense": {"rank": 2, "score": 0.10}}, subject=True)
    closer = Candidate("mem_closer", matches={"dense": {"rank": 1, "score": 0.24}})
    survivors = _result_gate([closer, named], beside_subject=1)
    assert [(c.record_id, c.passed_on) for c in survivors] == [
        ("mem_named", "subject"),
        ("mem_closer", "beside"),
    ]
    assert closer.gate == (
        "weak on its own; closer in meaning than the record naming what the query asks about: "
        "dense cosine 0.240 >= 0.100"
    )


def test_a_short_answer_keeps_the_record_naming_what_was_asked(memory: Memory) -> None:
    """The vet is closer in meaning to "What kind of dog do I have?" than the kelpie record
    (which passes only on naming a dog); it is shown after it, so "limit": 1 answers with the
    dog (a third review: fused first, the rider took the one place)."""
    session = user_store(
        memory,
        [
            {"content": c, "source_kind": "user_statement"}
            for c in (
                "Our vet is Dr Lim on Harbour Street.",
                "Rusty, our kelpie, comes on every trip.",
                "My sister Ruby lives in Boston.",
                "I love cold brew coffee.",
                "We went to Lisbon in May.",
                "My daughter plays the violin.",
                "I'm allergic to penicillin.",
            )
        ],
    )
    question = {"query": "What kind of dog do I have?"}
    answer = session.call("memory_search", {**question, "limit": 5}, now=NOW)["results"]
    assert [(r["content"], r["explanation"]["passed_on"]) for r in answer] == [
        ("Rusty, our kelpie, comes on every trip.", "subject"),
        ("Our vet is Dr Lim on Harbour Street.", "beside"),
    ]
    short = session.call("memory_search", {**question, "limit": 1}, now=NOW)["results"]
    assert [r["content"] for r in short] == ["Rusty, our kelpie, comes on every trip."]


def test_a_name_said_beside_a_person_word_names_that_person_elsewhere(memory: Memory) -> None:
    """ "Chidi is a branch manager at Zenith Bank." names the husband when another record says
    "my husband Chidi": "What does my husband do for work?" was answered empty beside it."""
    answer = "Chidi is a branch manager at Zenith Bank, so he stays home with the kids."
    texts = [answer, "My husband Chidi and I are flying to Lagos in May.", *FILLERS]
    assert passed_on(memory, texts, "What does my husband do for work?").get(answer) == "subject"


def test_a_name_names_a_person_only_when_the_user_says_it_of_one() -> None:
    """Said of someone else's person, beside two words or a word that is no person, as a full
    name, or a word that is no name (a month, a title, chat), a name names none; and a name
    is read as the person only where nothing else says whose it is (an adversarial review
    found each of these adding a record about someone else)."""
    known = subject.kin_names
    assert known(["I went with my wife Camila.", "our son, Leo, is 7."]) == {
        "Camila": "wife",
        "Leo": "son",
    }
    assert known(["my mom Linda", "my mother Linda"]) == {"Linda": "mother"}
    # a name in letters past ASCII ("Zoë", "Søren", "José")
    assert known(["my wife Zoë", "our son, Søren, is 7.", "my boss José"]) == {
        "Zoë": "wife",
        "Søren": "son",
        "José": "boss",
    }
    for unlinked in (
        ["Tom's wife Camila is lovely."],
        ["my boss Anna", "my sister Anna"],
        ["my coworker Sam", "my cousin Sam"],
        ["my dog Biscuit"],
        ["My son Leo Martinez is 9."],
        ["My wife Zoë Ångström is 40."],
        ["my daughter June", "I called my mom Sunday", "my dentist Dr. Okafor"],
    ):
        assert known(unlinked) == {}, unlinked
    kin = {"Tom": "husband"}
    assert subject._with_kin("Tom is an architect.", kin) == "my husband Tom is an architect."
    for said in (
        "My husband Tom is an architect.",
        "Beth's cousin Tom is an architect.",
        "Tom's wife Anna is a nurse.",
        "Tom Hanks is an actor.",
        "Tom from the office is a fan.",
    ):
        assert subject._with_kin(said, kin) == said


def test_doing_something_for_a_living_asks_work() -> None:
    """ "What does my wife do for a living?" was read as asking only "wife" ("living" frames
    "Where is she living now?"), so any record naming the wife passed a small store's subject
    floor, and an unanswerable question was answered (fresh F03-q14)."""

    def asked(question: str) -> tuple[str, ...]:
        return subject.asked(subject.words_asked(question, query_tokens(question)))

    wife = asked("What does my wife do for a living?")
    assert subject.names(wife, "My wife Rachel is a nurse at St Mary's.")
    assert not subject.names(wife, "My wife Agnieszka wants to cook something Irish.")
    mine = asked("What do I do for a living?")
    assert subject.names(mine, "I work as a plumber in Leeds.")
    assert not subject.names(mine, "I love cooking pasta.")
    assert asked("Where is my wife living now?") == ("wife",)  # "living" still frames


@pytest.mark.xfail(
    strict=True,
    reason="known limit: the user's home said as 'I live in <Place>' names no home question; a "
    "reading of it (session 44) accepted products, shops and games WordNet does not know ('I "
    "live in Jira these days'), 'based in' said of others and plans, and an adversarial review "
    "found it 19 better / 33 worse, so it was not kept",
)
def test_known_limit_a_named_place_the_user_lives_in_names_their_home(memory: Memory) -> None:
    """ "my location" is answered empty beside "The user lives in Brighton." in a small store:
    no word is shared, the cosine is under the floors, and the home part of the user's life
    is read from "our house", "we moved to" and the like only (core.search.life)."""
    answer = "The user lives in Brighton."
    assert passed_beside_fillers(memory, answer, "my location") == "subject"


@pytest.mark.xfail(
    strict=True,
    reason="known limit: a son or daughter asked about is not named by the user's children said "
    "together; a reading of 'the two kids' / 'our children' (session 50) named anyone's children "
    "and other senses ('I coach the kids', \"my sister's two kids\", \"the kids' menu\", 'Our "
    "goat had two kids'): an adversarial review found 10 better / 77 worse, so it was not kept",
)
def test_known_limit_a_daughter_is_not_named_by_the_kids_said_together() -> None:
    """Dev A15-q1: "What's my daughter's name?" is answered empty beside this record."""
    assert subject.names(("daughter",), "the two kids: Zawadi is 8 and Imran is 4.")


@pytest.mark.xfail(
    strict=True,
    reason="known limit: 'do' is no occasion word for a role at 'the' place, since 'I'm a nurse at "
    "the Royal Free, I do nights' is a job (session 53's second review)",
)
def test_known_limit_a_role_at_a_family_do_names_work() -> None:
    assert not subject.names(("work",), "I'm a wedding coordinator at the Brown family do.")


@pytest.mark.xfail(
    strict=True,
    reason="known limit: the study reading takes 'I study', not 'I'm studying'; widening it "
    "changed no answer of the personal or life-changes sets and went unreviewed (session 53)",
)
def test_known_limit_im_studying_at_a_named_place_says_no_studies() -> None:
    assert subject.names(("university", "go"), "I'm studying medicine at Cardiff.")

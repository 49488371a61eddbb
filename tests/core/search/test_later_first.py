"""memory_search's later-statement-first rule (core.search.later): of two results about the
same thing that score close together, the one stated later ranks first, unless the question
asks about an earlier state; the log keeps what moved and replaying it agrees."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Config, Memory
from agent_memory.core.embedder import FlagEmbedder
from agent_memory.core.models import format_time
from agent_memory.core.search.later import asks_about_the_past
from agent_memory.core.search.ranking import replay
from agent_memory.core.session import Session
from tests.support.clock import NOW
from tests.support.extraction import extracted_session, extracting_memory

OLD = "The user's book club meets on Thursday evenings."
NEW = "Nuala hosts the book club on Tuesdays from next month."
ASKED = NOW + timedelta(days=90)


def said(content: str) -> str:
    return content.replace("The user's", "My")


@pytest.fixture
def reader(memory: Memory) -> Session:
    return fill(memory)


def fill(memory: Memory) -> Session:
    """The user's own statements, a month apart: the club's old day, then the new one (worded
    so that the write path's supersession does not tie them: both stay live), with two
    unrelated statements beside them."""
    return stated(
        memory,
        [
            (0, OLD),
            (0, "The user is learning Spanish on an app."),
            (1, NEW),
            (1, "The user's sister lives in Porto."),
        ],
    )


def stated(memory: Memory, statements: list[tuple[int, str]]) -> Session:
    """Alice's session, each statement said and written ``months`` after NOW as a confirmed
    user statement of its own."""
    memory.grant("assistant", "user:alice", now=NOW)
    session = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    for months, content in statements:
        at = NOW + timedelta(days=30 * months)
        session.add_turn("user", said(content), at=at)
        written = session.call(
            "memory_write",
            {
                "type": "semantic",
                "content": content,
                "source_kind": "user_statement",
                "evidence": said(content),
            },
            now=at,
        )
        assert written["status"] == "confirmed" and written["action"] == "created"
    return session


def search(session: Session, query: str) -> dict[str, Any]:
    result = session.call("memory_search", {"query": query}, now=ASKED)
    assert "error" not in result
    return result


def logged(session: Session, search_id: str) -> dict[str, Any]:
    [row] = session.memory.store.query("SELECT payload FROM search_log WHERE id = ?", (search_id,))
    payload: dict[str, Any] = json.loads(row["payload"])
    return payload


def test_the_later_statement_ranks_first(reader: Session) -> None:
    """The older statement scores a little higher (its words are the question's), the newer
    one is about the same club: the newer one comes first, and its explanation says why."""
    result = search(reader, "Which day does my book club meet?")
    contents = [r["content"] for r in result["results"]]
    assert contents[:2] == [NEW, OLD]
    first, second = result["results"][:2]
    assert first["explanation"]["fused_score"] < second["explanation"]["fused_score"]
    assert first["explanation"]["later_first"].startswith("moved from rank 2 to 1, above ")
    assert second["id"] in first["explanation"]["later_first"]
    assert second["explanation"]["later_first"] == "kept its place"
    assert result["explanation"]["later_first"]["applied"] is True
    assert result["explanation"]["later_first"]["moved"] == 1
    payload = logged(reader, result["search_id"])
    assert payload["later_first"]["moved"][first["id"]]["above"] == second["id"]
    assert replay(payload) == [r["id"] for r in result["results"]]


def test_a_question_about_the_past_keeps_the_order(reader: Session) -> None:
    """ "before": the earlier statement is the answer, so nothing moves (and replay agrees)."""
    result = search(reader, "Which day did my book club meet before?")
    contents = [r["content"] for r in result["results"]]
    assert contents.index(OLD) < contents.index(NEW)
    assert result["explanation"]["later_first"]["applied"] is False
    assert "earlier state" in result["explanation"]["later_first"]["why"]
    assert replay(logged(reader, result["search_id"])) == [r["id"] for r in result["results"]]


def test_the_rule_can_be_turned_off(store_path: Path, real_embedder: FlagEmbedder) -> None:
    """retrieval.later_first_cosine 1.0: the fused order stands (what the rule changes)."""
    config = Config.model_validate({"retrieval": {"later_first_cosine": 1.0}})
    with Memory.open(store_path, config, embedder=real_embedder, now=NOW) as memory:
        session = fill(memory)
        result = search(session, "Which day does my book club meet?")
        contents = [r["content"] for r in result["results"]]
        assert contents[:2] == [OLD, NEW]
        assert result["explanation"]["later_first"]["applied"] is False


def test_imported_conversation_turns_keep_their_order(memory: Memory) -> None:
    """The same two statements as conversation turns a month apart: a later turn on a topic is
    as often a follow-up as a change, so the rule holds turns where the fused order put them
    (the log names them)."""
    memory.grant("assistant", "user:alice", now=NOW)
    for months, (turn_id, content) in enumerate([("t1", said(OLD)), ("t2", said(NEW))]):
        at = NOW + timedelta(days=30 * months)
        memory.import_conversation(
            [{"id": turn_id, "role": "user", "text": content, "at": at.isoformat()}],
            scope="user:alice",
            session_id=f"s{months}",
            now=at,
        )
    session = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=ASKED)
    result = search(session, "Which day does my book club meet?")
    refs = [r["source_ref"] for r in result["results"]]
    assert refs[:2] == ["t1", "t2"]
    payload = logged(session, result["search_id"])
    assert payload["later_first"]["moved"] == {}
    assert set(payload["later_first"]["held"]) >= {r["id"] for r in result["results"][:2]}


@pytest.mark.xfail(
    strict=True,
    reason=(
        "judgement left open: holding provisional records cost the personal dev eval "
        "current-first 0.697 -> 0.667 (extracted changes include provisional records)"
    ),
)
def test_a_newer_guess_does_not_rise_above_a_confirmed_statement(memory: Memory) -> None:
    """The user said Thursdays; a month later the agent guessed Tuesdays (provisional, its own
    inference): a guess is not a change the user stated, so it keeps its place below."""
    memory.grant("assistant", "user:alice", now=NOW)
    session = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    session.add_turn("user", said(OLD), at=NOW)
    writes = [
        (NOW, OLD, {"source_kind": "user_statement", "evidence": said(OLD)}),
        (NOW + timedelta(days=30), NEW, {"source_kind": "agent_inference"}),
    ]
    for at, content, more in writes:
        written = session.call(
            "memory_write", {"type": "semantic", "content": content, **more}, now=at
        )
        assert written["action"] == "created"
    asked = NOW + timedelta(days=31)  # before the guess expires
    result = session.call(
        "memory_search", {"query": "Which day does my book club meet?"}, now=asked
    )
    assert [(r["content"], r["status"]) for r in result["results"]][:2] == [
        (OLD, "confirmed"),
        (NEW, "provisional"),
    ]
    payload = logged(session, result["search_id"])
    assert payload["later_first"]["moved"] == {}
    assert result["results"][1]["id"] in payload["later_first"]["held"]
    assert replay(payload) == [r["id"] for r in result["results"]]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit: pairs compare stored vectors, which read the evidence turn; comparing "
        "contents alone fixed this but cost the personal dev eval current-first "
        "0.667 -> 0.606 (content cosine 0.3: 0.636)"
    ),
)
def test_a_later_side_remark_on_the_same_topic_does_not_jump(
    store_path: Path, real_embedder: FlagEmbedder
) -> None:
    """Extracted records carry their turn as context, so two turns about one trip make every
    record of the second look "about the same thing" as the first's: "The user is so excited."
    must not move above the records that answer, whose contents it has nothing to do with."""
    with extracting_memory(store_path, real_embedder) as memory:
        extracted_session(
            memory,
            "s1",
            "I'm planning a trip to Japan in the spring. My passport expires in March.",
        )
        extracted_session(
            memory,
            "s2",
            "The Japan trip is coming up soon and I'm so excited. I'm packing my new camera.",
            days=30,
        )
        session = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=NOW)
        asked = NOW + timedelta(days=40)
        result = session.call("memory_search", {"query": "Japan trip passport"}, now=asked)
        contents = [r["content"] for r in result["results"]]
        # The records that answer come first: not "The user is so excited." nor, scored by
        # its session summary's passages, "The user is packing the user's new camera."
        answers = {
            "The user is planning a trip to Japan in the spring.",
            "My passport expires in March.",
        }
        assert set(contents[:2]) == answers
        payload = logged(session, result["search_id"])
        assert all(m["cosine"] >= 0.45 for m in payload["later_first"]["moved"].values())
        assert replay(payload) == [r["id"] for r in result["results"]]


def test_present_questions_with_past_looking_words_still_apply(memory: Memory) -> None:
    """ "How old is Theo?" asks for the age now (its latest statement), and "first name" is an
    ordinal, not an earlier state: neither turns the rule off, while "at first" and a past
    tense still do."""
    memory.grant("assistant", "user:alice", now=NOW)
    session = memory.session(agent_id="assistant", user_id="alice", session_id="s1", now=NOW)
    four, five = "The user's son Theo is four years old.", "Theo had his fifth birthday party."
    for months, content in [(0, four), (0, "The user is learning Spanish."), (1, five)]:
        at = NOW + timedelta(days=30 * months)
        session.add_turn("user", content, at=at)
        session.call(
            "memory_write",
            {
                "type": "semantic",
                "content": content,
                "source_kind": "user_statement",
                "evidence": content,
            },
            now=at,
        )
    result = search(session, "How old is Theo?")
    assert [r["content"] for r in result["results"]][:2] == [five, four]
    assert replay(logged(session, result["search_id"])) == [r["id"] for r in result["results"]]
    assert not asks_about_the_past("What is my son's first name?")
    assert not asks_about_the_past("What time is my first meeting tomorrow?")
    assert asks_about_the_past("Which sport did Adam play at first?")
    assert asks_about_the_past("How old was Theo when we moved?")
    assert asks_about_the_past("What is my old address?")


def test_a_date_asked_in_the_past_tense_is_the_last_one_said(memory: Memory) -> None:
    """ "When was my driving test in the end?" asks for the date the test ended up on: the
    statement that it moved ranks above the first date, as for a present question (the past
    tense turned the rule off and put "17 March" first). A question about an earlier state
    ("before", "at first", "What was my job?") still keeps the order."""
    first, moved = "My driving test is on 17 March.", "The driving test got moved to 28 April."
    session = stated(memory, [(0, first), (0, "The user is learning Spanish."), (1, moved)])
    for query in ("When was my driving test in the end?", "When did I have my driving test?"):
        result = search(session, query)
        contents = [r["content"] for r in result["results"]]
        assert contents.index(moved) < contents.index(first), query
        assert replay(logged(session, result["search_id"])) == [r["id"] for r in result["results"]]
    assert asks_about_the_past("When was my driving test before it moved?")
    assert asks_about_the_past("What was my job?")
    assert not asks_about_the_past("What did I pick in the end?")


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit: the packaged model puts statements of one template about different "
        "subjects ('book club' / 'chess club' 0.68, 'my dentist' / 'my sister is a dentist' "
        "0.47) as close as a real change ('book club on Thursdays' / '... on Tuesdays' 0.62), "
        "and the fused (RRF) scores of ranks 1-3 are always within later_first_closeness"
    ),
)
def test_a_newer_statement_about_another_club_stays_below(memory: Memory) -> None:
    session = stated(
        memory,
        [
            (0, OLD),
            (0, "The user is learning Spanish on an app."),
            (1, "The user's running club meets on Tuesday mornings."),
            (2, "The user's chess club meets on Saturdays."),
        ],
    )
    result = search(session, "When does my book club meet?")
    assert result["results"][0]["content"] == OLD


def imported(memory: Memory, texts: list[str]) -> Session:
    """Alice's conversation turns, each imported a month after the one before; a session
    asking at ASKED."""
    memory.grant("assistant", "user:alice", now=NOW)
    for months, content in enumerate(texts):
        at = NOW + timedelta(days=30 * months)
        memory.import_conversation(
            [{"id": f"t{months + 1}", "role": "user", "text": content, "at": at.isoformat()}],
            scope="user:alice",
            session_id=f"s{months}",
            now=at,
        )
    return memory.session(agent_id="assistant", user_id="alice", session_id="q", now=ASKED)


BADMINTON = [
    "Any stretches? I play badminton every Wednesday evening with some colleagues and my "
    "knee hurts after.",
    "The new job is going well but I've stopped badminton since joining, no time at all.",
]


@pytest.mark.parametrize("order", ["as said", "newest session first"])
def test_an_imported_turn_is_stated_when_it_was_said(memory: Memory, order: str) -> None:
    """A host backfilling history imports it all at one moment, in whatever order it reads
    it: each turn is still stated at its own time (``stated_at``, from its ``at``), so the
    later turn that says the change ranks first. Before, an imported turn was stated when it
    was imported: both turns had one statement time, and the rule kept the older first."""
    memory.grant("assistant", "user:alice", now=NOW)
    sessions = [
        (f"s{months}", f"t{months + 1}", text, NOW + timedelta(days=30 * months))
        for months, text in enumerate(BADMINTON)
    ]
    for session_id, turn_id, text, at in sessions if order == "as said" else sessions[::-1]:
        memory.import_conversation(
            [{"id": turn_id, "role": "user", "text": text, "at": at.isoformat()}],
            scope="user:alice",
            session_id=session_id,
            now=ASKED,
        )
    session = memory.session(agent_id="assistant", user_id="alice", session_id="q", now=ASKED)
    result = search(session, "Do I still play badminton on Wednesdays?")
    assert [r["source_ref"] for r in result["results"]][:2] == ["t2", "t1"]
    got = session.call("memory_get", {"ids": [r["id"] for r in result["results"]]}, now=ASKED)
    stated = {r["source_ref"]: r["stated_at"] for r in got["records"]}
    assert stated == {turn_id: format_time(at) for _, turn_id, _, at in sessions}


def test_a_later_turn_that_says_it_changed_ranks_first(memory: Memory) -> None:
    """Imported turns keep their order, except a later turn that says something changed
    ("stopped") about what the question names ("badminton"): it ranks above the earlier turn,
    the log names the words, and replay agrees."""
    session = imported(memory, BADMINTON)
    result = search(session, "Do I still play badminton on Wednesdays?")
    refs = [r["source_ref"] for r in result["results"]]
    assert refs[:2] == ["t2", "t1"]
    first = result["results"][0]
    assert first["explanation"]["later_first"].startswith("moved from rank 2 to 1")
    payload = logged(session, result["search_id"])
    assert payload["later_first"]["changes"][first["id"]] == ["badminton"]
    assert first["id"] not in payload["later_first"]["held"]
    assert replay(payload) == [r["id"] for r in result["results"]]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit: a turn's words are compared whole, so 'five-a-side' and \"Maya's\" do "
        "not name the question's 'five', 'side' or 'maya'; compared in parts, the owner's name "
        "or a hyphenated modifier linked someone else's change (\"Maya's class teacher moved "
        "to Year 3\", 'The T-shirt printer switched suppliers'): a review of 44 items, 4 "
        "better and 8 worse (session 45)"
    ),
)
@pytest.mark.parametrize(
    ("said", "asked"),
    [
        (
            [
                "Any quick dinners? I play five-a-side with some of the staff every Tuesday.",
                "Also I've stopped five-a-side, my knee's been dodgy.",
            ],
            "Do I still play five-a-side on Tuesdays?",
        ),
        (
            [
                "Maya has her swimming lessons on Mondays after school with Mrs Doyle.",
                "Oh and Maya's moved to Thursdays, Mrs Doyle changed her timetable.",
            ],
            "When are Maya's swimming lessons?",
        ),
    ],
)
def test_known_limit_a_change_names_a_hyphenated_or_possessive_word(
    memory: Memory, said: list[str], asked: str
) -> None:
    """The question's words are read in parts ("five-a-side": "five", "side"; "Maya's":
    "maya"), a turn's whole ("five-a-side", "maya'"): the later turn that says the change
    names nothing asked and stays below the earlier one."""
    session = imported(memory, said)
    result = search(session, asked)
    assert [r["source_ref"] for r in result["results"]][:2] == ["t2", "t1"]
    payload = logged(session, result["search_id"])
    assert payload["later_first"]["changes"][result["results"][0]["id"]]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "known limit: a change word names a question word four words away across a full "
        "stop; counting only its own sentence lost 'name the topic, then change it' ('The "
        "book club. We've switched to Thursdays'): a review of 29 items, 5 better and 10 "
        "worse (session 45)"
    ),
)
def test_known_limit_a_change_names_the_words_of_the_next_sentence(memory: Memory) -> None:
    """The later turn says the parents' flights moved, and in the next sentence names the
    twins: the change is not theirs, but within four words of "now" across the full stop the
    turn names "twins" and jumps above the birthday."""
    session = imported(
        memory,
        [
            "The twins have their birthday on April 9, we're doing a party at home.",
            "And my parents' flights got moved up, they land May 28 now. The twins are "
            "counting down already.",
        ],
    )
    result = search(session, "When is the twins' birthday?")
    assert [r["source_ref"] for r in result["results"]][:2] == ["t1", "t2"]
    assert logged(session, result["search_id"])["later_first"]["moved"] == {}


def test_an_imported_turn_is_not_read_as_announcing_a_change(memory: Memory) -> None:
    """A turn opening "Update!!" that names the trip only in passing stays below the trip:
    an imported turn's content opens with its speaker ("user: Update!! ..."), and reading it
    as announcing a change named every word it held (measured on the personal dev set: 3
    updates gained, 7 answers lower; core.search.later.changed)."""
    session = imported(
        memory,
        [
            "Going to Niseko with my boyfriend Ryan from 12 to 19 December, first time skiing!",
            "Update!! Ryan proposed to me in Niseko, we're engaged!! Can you help me plan a party?",
        ],
    )
    result = search(session, "When did we go to Niseko?")
    assert [r["source_ref"] for r in result["results"]][:2] == ["t1", "t2"]
    assert logged(session, result["search_id"])["later_first"]["changes"] == {}


def test_a_later_change_about_another_thing_stays_below(memory: Memory) -> None:
    """The later turn says something changed, but not about what the question names: the
    earlier turn keeps its place."""
    session = imported(
        memory,
        [BADMINTON[0], "I switched my physio appointments to Monday mornings now."],
    )
    result = search(session, "Do I still play badminton on Wednesdays?")
    refs = [r["source_ref"] for r in result["results"]]
    assert refs[0] == "t1"


def test_a_later_change_naming_the_asked_word_is_linked_however_far_its_vector(
    memory: Memory,
) -> None:
    """Two statements whose vectors lie below ``later_first_cosine``: the later one says
    something changed ("Update:") and both name "badminton", which the question asks about, so
    the later one ranks first, and its explanation says so."""
    old = "The user plays badminton every Wednesday evening with colleagues at a court in town."
    new = "Update: the new job at Cloudnest is going well, standup is at 10, badminton is on hold."
    session = stated(memory, [(0, old), (1, new)])
    result = search(session, "Do I still play badminton on Wednesdays?")
    contents = [r["content"] for r in result["results"]]
    assert contents[:2] == [new, old]
    why = result["results"][0]["explanation"]["later_first"]
    assert "it says something changed, both name 'badminton'" in why, why
    assert replay(logged(session, result["search_id"])) == [r["id"] for r in result["results"]]


@pytest.mark.parametrize(
    ("first", "follow_up", "query"),
    [
        (
            "I work at Acme as a backend engineer on the payments team.",
            "I left work early today, the Acme office had a power cut.",
            "Do I still work at Acme?",
        ),
        (
            "I'm allergic to penicillin, it gives me hives.",
            "The pharmacist asked again about my penicillin allergy before the refill.",
            "Am I allergic to penicillin?",
        ),
        (
            "I play badminton every Wednesday evening with some colleagues.",
            "No badminton tonight, the court is flooded after the storm.",
            "Do I still play badminton on Wednesdays?",
        ),
        (
            "I play badminton every Wednesday evening with some colleagues.",
            "My badminton racket broke so I replaced the strings yesterday.",
            "Do I still play badminton on Wednesdays?",
        ),
    ],
)
def test_a_later_follow_up_turn_keeps_its_place(
    memory: Memory, first: str, follow_up: str, query: str
) -> None:
    """A follow-up names the same thing with a word that can also mark a change ("left",
    "again", "no ... tonight", "replaced" five words from "badminton"): it is not read as
    one, so the turns keep the fused order."""
    session = imported(memory, [first, follow_up])
    result = search(session, query)
    payload = logged(session, result["search_id"])
    assert payload["later_first"]["changes"] == {}
    assert payload["later_first"]["moved"] == {}


@pytest.mark.parametrize(
    ("old", "new", "question", "part", "elsewhere"),
    [
        (
            "Our place in Mt Albert has a lovely garden and quiet neighbours.",
            "Big one: we bought a place in Raglan! Moving in April.",
            "Where do we live?",
            "home",
            "Where do I park the van?",
        ),
        (  # both found only by naming the car (core.search.vehicle)
            "Our Passat is a diesel, we take it to Lake Garda every summer.",
            "Picked up a Skoda Enyaq on Saturday, the home charger goes in next week.",
            "What car do we drive?",
            "vehicle",
            "What's the dog's name?",
        ),
    ],
)
def test_a_later_statement_of_the_users_own_life_ranks_first(
    memory: Memory, old: str, new: str, question: str, part: str, elsewhere: str
) -> None:
    """Both say the user's own home (or car), in words whose vectors lie apart ("our place",
    "we bought a place in"; "our Passat", "Picked up a Skoda Enyaq"), for a question about it:
    the later one ranks first, and says why (the stale one was answered first)."""
    session = stated(memory, [(0, old), (0, "The user's dog Kumara loves the beach."), (5, new)])
    result = search(session, question)
    contents = [r["content"] for r in result["results"]]
    assert contents.index(new) < contents.index(old)
    moved = next(r for r in result["results"] if r["content"] == new)
    assert f"both say the user's own {part}" in moved["explanation"]["later_first"]
    assert replay(logged(session, result["search_id"])) == [r["id"] for r in result["results"]]
    # Not asked about it: the statements keep their order.
    result = search(session, elsewhere)
    assert "both say" not in json.dumps(result["explanation"])


@pytest.mark.parametrize(
    ("old", "later", "query"),
    [
        (
            "I'm a nurse at St Thomas' in the cardiac unit.",
            "My colleagues are taking me out for drinks on Friday.",
            "Where do I work?",
        ),
        (
            "I'm doing my MSc at LSE in economic history.",
            "My thesis is due in May and I'm panicking.",
            "Where do I study?",
        ),
        (
            "Our house is in Bath, up the hill from the Royal Crescent.",
            "The kids are at my place this weekend so no pub.",
            "Where do we live?",
        ),
    ],
)
def test_a_later_mention_of_the_users_own_life_that_changes_nothing_stays_below(
    memory: Memory, old: str, later: str, query: str
) -> None:
    """Both may say the user's own work, studies or home, but the later one says nothing
    changed: the statement that answers keeps its place (a review found each jumping above
    it when any two such statements were linked)."""
    session = stated(memory, [(0, old), (0, "The user likes tea."), (3, later)])
    contents = [r["content"] for r in search(session, query)["results"]]
    assert contents[0] == old, contents


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "known limit: the later statement scores a third of the earlier one (rank-based "
        "fusion), far from close, and an imported turn naming no word of the question is held; "
        "a reading that moves a change of the user's own job, home, studies or car said "
        "outright however far below it scored was narrowed over five adversarial reviews and "
        "not kept: on their realistic chats it fired on none of 40 updates, and each aimed "
        "round found everyday phrasings jumping above the answer ('Mentally I quit my job at "
        "Calloway', 'I joined Greenfield Runners, half my colleagues ...') (session 48)"
    ),
)
@pytest.mark.parametrize("as_turns", [False, True], ids=["written", "imported turns"])
def test_known_limit_a_later_car_sold_and_bought_ranks_below_the_old_car(
    memory: Memory, as_turns: bool
) -> None:
    """ "We sold the Qashqai and bought a Kia EV6" after "Our Qashqai fits three car seats":
    for "What car do we drive?" both are found, and the sale should rank first (only the order
    is the limit: a record missing fails the test outright)."""
    old = "Our Qashqai fits three car seats across the back, and the boot takes the double buggy."
    new = "We sold the Qashqai and bought a Kia EV6, the home charger goes in next week."
    if as_turns:
        session = imported(
            memory, [old, "Can you suggest a rainy day activity for 6 year olds?", new]
        )
        refs = [r["source_ref"] for r in search(session, "What car do we drive?")["results"]]
        if not {"t1", "t3"} <= set(refs):
            pytest.fail(f"both turns should be found: {refs}")
        assert refs.index("t3") < refs.index("t1")
    else:
        session = stated(
            memory, [(0, old), (0, "The user's dog Kumara loves the beach."), (5, new)]
        )
        contents = [r["content"] for r in search(session, "What car do we drive?")["results"]]
        if not {old, new} <= set(contents):
            pytest.fail(f"both statements should be found: {contents}")
        assert contents.index(new) < contents.index(old)

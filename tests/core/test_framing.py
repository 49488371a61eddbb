"""What a sentence claims for its speaker (core.framing): reports of what someone said or
believes, the "if" of an apology, and a clause about telling the assistant."""

from __future__ import annotations

import pytest

from agent_memory.core.framing import HEDGE, asks_for_good, reports, told_before, told_you


@pytest.mark.parametrize(
    "text",
    [
        "My sister says I live in Leeds now.",
        "Apparently the wedding moved to June.",
        "Word is that the wedding moved to June.",
        "Rumour has it the office is closing.",
        "I hear the wedding moved to June.",
        "My aunt seems to think the wedding moved.",
        "My friend said I quit Google, so I laughed it off.",
        "Change of plan: the customer asked to postpone, so now the trip is in April.",
        "I told my boss I quit, I work at Meta now.",
        "I never said I quit Google.",
        "I was told the wedding is cancelled.",
    ],
)
def test_a_report_of_someone_elses_claim(text: str) -> None:
    assert reports(text)


@pytest.mark.parametrize(
    "text",
    [
        "I work at Meta now.",
        "I posted my new address to the bank, I live in Leeds now.",
        "Per my contract I am no longer employed at Acme since March.",
        "Sorry if I missed it, I live in Leeds now.",
    ],
)
def test_the_users_own_words_are_no_report(text: str) -> None:
    assert not reports(text)


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Sorry if I'm slow tonight, our daughter was born.", False),
        ("Sorry if my English is bad, I'm from Brazil.", False),
        ("Sorry if I upset you, I moved to Oslo.", False),
        ("Sorry if I'm slow later, I have a cold.", False),
        ("Sorry if I'm fired tomorrow, I'll need a reference.", True),
        ("Sorry if I don't play anymore next year, the baby.", True),
        ("Apologies if I ever move to Oslo, the cat stays with my mum.", True),
        ("Sorry if I get the job, I'll have less time.", True),
        ("If I get the job I'll move.", True),
        ("Sorry, if I get the job I'll move.", True),
    ],
)
def test_the_if_of_an_apology_is_no_condition(text: str, condition: bool) -> None:
    assert (HEDGE.search(text) is not None) is condition


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        ("I do pilates 3x a week, will that help with ski legs?", "I do pilates 3x a week"),
        ("cody only eats like 4 foods so maybe something plain too", "cody only eats like 4 foods"),
        ("i was a poli sci major at uconn and i thought logic games would be easy", None),
        ("I'm moving to Oslo but I might not go after all.", None),
        ("I'm allergic to nuts but I might have outgrown it.", None),
        ("I'm 30, am I right?", None),
        ("I'm vegan, is that correct?", None),
        ("cody only eats like 4 foods so maybe not", None),
        ("I'm moving to Oslo but I might not.", None),
        ("I'm moving to Oslo, but I might not.", None),
        ("I'm moving to Oslo and I'm not so sure.", None),
        ("I live in Oslo, maybe?", None),
        ("If I get the job, I'll move to Oslo and I might learn Norwegian.", None),
        # a short request for help, a question its "when" opens, a question about the claim
        # and a short question of its own ask; they doubt nothing told before them
        ("I'm a nurse at St. Mary's, any tricks?", "I'm a nurse at St. Mary's"),
        ("My flight leaves at 6am, when should I leave home?", "My flight leaves at 6am"),
        ("I sleep 10 hours a day, is that normal?", "I sleep 10 hours a day"),
        (
            "my cat is 12 and keeps throwing up, should i worry?",
            "my cat is 12 and keeps throwing up",
        ),
        # still doubts: a tag, a condition, a short question that is no request
        ("I live in Oslo, right?", None),
        ("I'm 30, is that so?", None),
        ("I'm moving to Oslo, when I get the job?", None),
        ("I'm moving to Oslo, should I?", None),
        ("I'm getting married 💍 or not?", None),
        # an adversarial review's: another case offered, a bare doubt, a doubting tag
        ("I'm moving to Oslo, or should I stay in Bergen?", None),
        ("I'm allergic to shellfish, or was it peanuts?", None),
        ("I'm over him, am I tho?", None),
        ("I'm moving to Oslo, should I though?", None),
        ("I got the job, did I though?", None),
        ("I'm pregnant, is that even true?", None),
        ("I'm pregnant, is this for real or a false positive?", None),
        ("I'm rich 💸 i wish lol", None),
    ],
)
def test_a_clause_told_before_a_question_or_hedge(sentence: str, told: str | None) -> None:
    """A question or hedge governs its own clause ("so ...", after a comma), not an independent
    one said before it; "but I ..." / "and I ..." are not cut (they take back as often), and a
    hedge with nothing of its own ("but I might not") or a tag ("am I right?") doubts what came
    before."""
    end = told_before(sentence)
    assert (sentence[:end] if end is not None else None) == told


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        ("I forgot to mention that I just moved.", "I just moved."),
        ("Oh, I forgot to tell you: we got a dog.", "we got a dog."),
        ("Not sure if I ever told you, but my wife is a nurse.", "my wife is a nurse."),
        ("dunno if i mentioned it but i moved to leeds", "i moved to leeds"),
        ("idk if i told u i started at Deloitte", "i started at Deloitte"),
        ("I don\u2019t know if I said this already, but I'm vegan.", "I'm vegan."),
        ("I can't remember if I told you, I'm vegetarian now.", "I'm vegetarian now."),
        ("As I said before, I live in Leeds.", "I live in Leeds."),
        ("Like I told you, I'm allergic to nuts.", "I'm allergic to nuts."),
        ("I think I told you already, I'm vegetarian.", "I'm vegetarian."),
        ("In case I didn't mention it, I'm allergic to penicillin.", "I'm allergic to penicillin."),
        ("I need to tell you something: I'm pregnant.", "I'm pregnant."),
        ("I'm vegetarian, as I said.", "I'm vegetarian"),
        ("I live in Leeds, I think I told you.", "I live in Leeds"),
        ("As I said yesterday, I'm off on Friday.", "I'm off on Friday."),
        ("I should've told you, I'm pregnant.", "I'm pregnant."),
        ("Like I told you guys, I'm a nurse.", "I'm a nurse."),
        # announcing the user's own statement
        ("I ought to say I have never cared for garlic.", "I have never cared for garlic."),
        ("I must say I love the new flat.", "I love the new flat."),
        ("I should mention I'm allergic to penicillin.", "I'm allergic to penicillin."),
        ("I must admit I'm a terrible cook.", "I'm a terrible cook."),
    ],
)
def test_a_clause_about_telling_the_assistant_frames_the_telling(sentence: str, claim: str) -> None:
    span = told_you(sentence)
    assert span is not None
    assert sentence[span[0] : span[1]] == claim


@pytest.mark.parametrize(
    "sentence",
    [
        "I forgot to tell my wife I'm going to Rome.",  # what the wife was not told
        "I told my boss I quit.",
        "Did I say I was coming?",  # asks whether it was said
        "Did I tell you about my trip?",
        # a question about the telling is as often a joke or a real doubt
        "Did I tell you I'm adopted? Well I'm not.",
        "Did I mention I have a meeting at 3 or was it 4?",
        "Have I told you I'm a vampire?",
        "It's my birthday on Friday, did I mention?",
        # what was meant to be told is as often taken back
        "I wanted to tell you that I'm quitting, but I changed my mind.",
        "I meant to tell you I'm moving out, but we worked things out.",
        "I never told you I moved.",
        "I forgot to mention Overcooked 2 - a good co-op game.",
        "As I said, no.",  # too little left to claim anything
        "I live in Leeds.",
        "Not sure if I can come on Friday.",
        "I should say it's about 5 km.",  # an estimate
        "I ought to say something to her.",
    ],
)
def test_other_telling_frames_nothing(sentence: str) -> None:
    assert told_you(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "for_good"),
    [
        ("Could you answer in Spanish from now on?", True),
        ("Can you always cite your sources?", True),
        ("Can you stop adding disclaimers?", True),
        ("Could you not use emojis anymore?", True),
        ("Could you please keep answers short from now on?", True),
        ("Can you use British spelling?", False),  # may be for this one text
        ("Could you explain this in Spanish?", False),
        ("Can you stop the timer?", False),
        ("Would you always answer in French if I asked?", False),  # a condition
        ("Will you always love me?", False),  # no way of answering
        ("Please always use metric units.", False),  # told, not asked (core.search.standing)
        ("Can you never mention my ex again?", True),
        # an adversarial review's one-off questions
        ("Could you explain why you always do that?", False),
        ("Can you keep it short this time, not always so long?", False),
        ("Can you always give sources, or only sometimes?", False),
        ("Will you always answer in English?", False),  # what the assistant will do
        ("Would you always answer in French when I ask?", False),
        ("Could you ask my husband to always lock the door?", False),
        ("Would you stop pretending you know everything?", False),
        ("Would you explain why my code doesn't compile anymore?", False),
    ],
)
def test_a_question_asking_for_a_way_of_answering_for_good(sentence: str, for_good: bool) -> None:
    assert asks_for_good(sentence) is for_good

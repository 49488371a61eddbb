"""The evidence quote is judged in its turn: through memory_write and memory_revise confirm on a
real store, a quote that cuts away a negation, hedge, report, condition, question, fiction,
quotation or a later retraction of its turn is not a confirmed user statement; a fair quote of
part of a turn still is."""

from __future__ import annotations

from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge import OfflineJudge
from agent_memory.core.session import Session
from tests.support.clock import NOW

# (the user's whole turn, the quote an agent picks from it, the content it writes)
CUT_QUOTES: list[tuple[str, str, str]] = [
    # -- the cases -------------------------------------------------------------------
    ("I'm not sure I'm pregnant.", "I'm pregnant", "The user is pregnant."),
    ("My ex said I am abusive. That's not true.", "I am abusive", "The user is abusive."),
    ("My doctor thinks I have cancer", "I have cancer", "The user has cancer."),
    ("In the novel I'm writing, I am a spy.", "I am a spy", "The user is a spy."),
    ("I am an admin, says the error message", "I am an admin", "The user is an admin."),
    # -- the same classes, in other words ----------------------------------------------------
    ("I don't think I'm diabetic.", "I'm diabetic", "The user is diabetic."),
    ("Maybe I have ADHD, who knows.", "I have ADHD", "The user has ADHD."),
    ("My sister claims I am a hoarder.", "I am a hoarder", "The user is a hoarder."),
    ("If I get the job I will move to Oslo.", "I will move to Oslo", "The user will move to Oslo."),
    ("I'll move to Oslo if I get the job.", "I'll move to Oslo", "The user will move to Oslo."),
    ("Am I allergic to penicillin?", "I allergic to penicillin", "The user is allergic."),
    ("So I'm a vegan now?", "I'm a vegan now", "The user is a vegan."),
    ("Let's role-play: I am the king of Spain.", "I am the king of Spain", "The user is a king."),
    ("Imagine I was a pilot. What would I earn?", "I was a pilot", "The user was a pilot."),
    ('The form says "I am over 18" in bold.', "I am over 18", "The user is over 18."),
    ("The log reads I am root on this host.", "I am root on this host", "The user is root."),
    ("I live in Rome. Just kidding, I live in Turin.", "I live in Rome", "The user lives in Rome."),
    (
        "I'm a morning person. That was a lie.",
        "I'm a morning person",
        "The user is a morning person.",
    ),
    ("I quit smoking. Not true, sadly.", "I quit smoking", "The user quit smoking."),
    # -- a comment after a comma still governs the quote ------------------------------------
    ("I'm moving to Oslo, I think.", "I'm moving to Oslo", "The user is moving to Oslo."),
    ("I'm moving to Oslo, I'm not sure.", "I'm moving to Oslo", "The user is moving to Oslo."),
    ("I love my job, not.", "I love my job", "The user loves the user's job."),
    ("I'm vegan, mostly.", "I'm vegan", "The user is vegan."),
    ("I'm vegan, not really.", "I'm vegan", "The user is vegan."),
    ("I'm vegan, not strictly.", "I'm vegan", "The user is vegan."),
    ("I live in Oslo, not anymore.", "I live in Oslo", "The user lives in Oslo."),
    ("I'm 30, no wait, 31.", "I'm 30", "The user is 30."),
    ("I'm a genius, my mum says.", "I'm a genius", "The user is a genius."),
    ("I'm a genius, says my mum.", "I'm a genius", "The user is a genius."),
    ("I'm a nurse, and my sister says so too.", "I'm a nurse", "The user is a nurse."),
    (
        "I'll come on Tuesday, or I might come on Wednesday instead.",
        "I'll come on Tuesday",
        "The user will come on Tuesday.",
    ),
    # -- ... however many words follow (an adversarial review's cases) ----------------------
    ("I work at Google, no longer.", "I work at Google", "The user works at Google."),
    ("I'm vegan, no more.", "I'm vegan", "The user is vegan."),
    ("I'm vegan, not these days.", "I'm vegan", "The user is vegan."),
    ("I love my job, no way.", "I love my job", "The user loves the user's job."),
    ("I'm vegan, mostly weekdays.", "I'm vegan", "The user is vegan."),
    ("I live in Oslo, not Oslo, Bergen.", "I live in Oslo", "The user lives in Oslo."),
    ("I live in Oslo, never mind.", "I live in Oslo", "The user lives in Oslo."),
    (
        "I have diabetes, that's not true anymore sadly.",
        "I have diabetes",
        "The user has diabetes.",
    ),
    ("I'm married, that may change next month.", "I'm married", "The user is married."),
    ("I'm married, it might change next month.", "I'm married", "The user is married."),
    ("I'm vegan, I'm joking of course haha.", "I'm vegan", "The user is vegan."),
    ("I have diabetes, so my doctor said last week.", "I have diabetes", "The user has diabetes."),
    (
        "I have diabetes, and the doctor said false alarm.",
        "I have diabetes",
        "The user has diabetes.",
    ),
    # -- a second review's: a negation before a thing, in a clause of its own, in a report --
    ("I'm a smoker, no cigarettes since January.", "I'm a smoker", "The user is a smoker."),
    (
        "I'm a doctor, I never finished medical school unfortunately.",
        "I'm a doctor",
        "The user is a doctor.",
    ),
    (
        "I have diabetes, but the doctor said the blood test results were normal.",
        "I have diabetes",
        "The user has diabetes.",
    ),
    # -- a negation before a thing that qualifies, doubts or dates the quote ----------------
    ("I'm vegan, not strictly.", "I'm vegan", "The user is vegan."),
    ("I'm vegan, not all the time.", "I'm vegan", "The user is vegan."),
    ("I live in Oslo, no idea for how long.", "I live in Oslo", "The user lives in Oslo."),
    ("I play tennis, no games in months.", "I play tennis", "The user plays tennis."),
    ("I have three kids, no wait, four.", "I have three kids", "The user has three kids."),
    # -- a negation before a thing may as well correct the quote as add a detail (a third
    # review's cases against a rule that read "..., no time at all" as a detail) -----------
    ("I work at Google, no Meta.", "I work at Google", "The user works at Google."),
    ("I'm a lawyer, no sorry, paralegal.", "I'm a lawyer", "The user is a lawyer."),
    ("I'm pregnant, not confirmed.", "I'm pregnant", "The user is pregnant."),
    ("I'm a smoker, no cigarettes, I quit.", "I'm a smoker", "The user is a smoker."),
    # -- what a fourth review found confirmed by a first version of core.judge.beside --------
    (
        "I run every morning, not weekends tho.",
        "I run every morning",
        "The user runs every morning.",
    ),
    ("I never eat sugar, not counting cake.", "I never eat sugar", "The user never eats sugar."),
    ("I use Excel, not me, my dad does.", "I use Excel", "The user uses Excel."),
    (
        "I'm vegetarian, mostly fish on weekends.",
        "I'm vegetarian",
        "The user is vegetarian.",
    ),
    ("I'm a chef, mostly microwave meals lol.", "I'm a chef", "The user is a chef."),
    (
        "I don't drink, mostly water and the odd bottle of wine.",
        "I don't drink",
        "The user does not drink.",
    ),
    ("I cook, mostly lies tbh.", "I cook", "The user cooks."),
    (
        "I'm allergic to nuts and the allergist said eat them freely.",
        "I'm allergic to nuts",
        "The user is allergic to nuts.",
    ),
    (
        "I have cancer and the oncologist said come back for the biopsy results.",
        "I have cancer",
        "The user has cancer.",
    ),
    (
        "I'll be there at 8, tell you what, make it 9.",
        "I'll be there at 8",
        "The user will be there at 8.",
    ),
    (
        "I quit my job, no notice handed in yet though.",
        "I quit my job",
        "The user quit the user's job.",
    ),
    (
        "I quit Paris, no Lyon since May.",
        "I quit Paris",
        "The user quit Paris.",
    ),
    # -- ... and a hold-out review of the narrowed one ---------------------------------------
    (
        "I stopped running, no marathon this spring, but still doing parkrun every week.",
        "I stopped running",
        "The user stopped running.",
    ),
    (
        "I quit the choir, no tuesday rehearsals anyway, still sing at the concerts.",
        "I quit the choir",
        "The user quit the choir.",
    ),
    (
        "I'm moving to Dubai, undecided on what to say to the recruiter.",
        "I'm moving to Dubai",
        "The user is moving to Dubai.",
    ),
    (
        "I'm pregnant, waiting to see what to expect after the second test.",
        "I'm pregnant",
        "The user is pregnant.",
    ),
    ("I fix cars for a living, mostly bikes actually.", "I fix cars", "The user fixes cars."),
    (
        "I can bench 150 kg and my wife said prove it then lol.",
        "I can bench 150 kg",
        "The user can bench 150 kg.",
    ),
    # -- a later sentence opening as a correction, or a short one holding a correction word --
    ("I live in Oslo. Oh wait, Bergen.", "I live in Oslo", "The user lives in Oslo."),
    ("I live in Oslo. Wait a minute, I meant Bergen.", "I live in Oslo", "The user lives in Oslo."),
    (
        "My flight is on Friday. Wait 2 secs, no, Saturday.",
        "My flight is on Friday",
        "The user's flight is on Friday.",
    ),
    (
        "My flight is on Friday. Hi wait, no, Saturday.",
        "My flight is on Friday",
        "The user's flight is on Friday.",
    ),
    (
        "My flight is on Friday. Wait, no, it's the day I wait tables, Saturday.",
        "My flight is on Friday",
        "The user's flight is on Friday.",
    ),
    ("I live in Oslo. Bergen, sorry.", "I live in Oslo", "The user lives in Oslo."),
    (
        "I live in Oslo. Well I guess I should say Bergen, sorry about that.",
        "I live in Oslo",
        "The user lives in Oslo.",
    ),
    ("I'm vegan. I was wrong about that actually, I eat fish.", "I'm vegan", "The user is vegan."),
    ("I live in Oslo. Wait, Bergen?", "I live in Oslo", "The user lives in Oslo."),
    ("I'm vegan. Actually no, why did I say that?", "I'm vegan", "The user is vegan."),
    # -- a retraction later in the quote's own sentence, after a clause word ----------------
    ("I got promoted, but that was a lie.", "I got promoted", "The user got promoted."),
    ("I'm engaged and I'm only kidding.", "I'm engaged", "The user is engaged."),
    # -- a clause about telling the assistant hides nothing the claim itself says -----------
    ("As I said, my doctor thinks I have cancer.", "I have cancer", "The user has cancer."),
    ("Did I say I was pregnant?", "I was pregnant", "The user was pregnant."),
    ("Did I tell you about how I quit?", "I quit", "The user quit."),
    ("Did I tell you I'm adopted? Well I'm not.", "I'm adopted", "The user is adopted."),
    ("Like I said, sure, I'm a genius.", "I'm a genius", "The user is a genius."),
    (
        "As I said, were I rich I'd buy a castle.",
        "I'd buy a castle",
        "The user would buy a castle.",
    ),
    ("Not sure if I told you, but maybe I'm moving.", "I'm moving", "The user is moving."),
    ("I'm a genius, as I said. Just kidding.", "I'm a genius", "The user is a genius."),
]

# (turn, quote, content): fair quotes of part of a turn, still confirmed.
FAIR_QUOTES: list[tuple[str, str, str]] = [
    ("Hi! I live in Porto. Any cafe tips?", "I live in Porto", "The user lives in Porto."),
    ("I don't like crowds, but I live in Paris.", "I live in Paris", "The user lives in Paris."),
    ("Dr. Osei is my GP. I am diabetic.", "I am diabetic", "The user is diabetic."),
    ("I'm writing a novel about spies.", "I'm writing a novel", "The user is writing a novel."),
    # -- after a comma, a clause of its own or a contrast leaves the quote as it was said ----
    (
        "I prefer bullet points, for basically everything, not just this email.",
        "I prefer bullet points",
        "The user prefers bullet points.",
    ),
    (
        "I need a cheap hotel near the venue, I will ask the lab for reimbursement.",
        "I need a cheap hotel near the venue",
        "The user needs a cheap hotel near the venue.",
    ),
    # -- words that go on beside the quote (core.judge.beside) --------------------------------
    (
        "Also new job is going well but I've stopped badminton since joining, no time at all.",
        "I've stopped badminton since joining",
        "The user has stopped badminton since joining.",
    ),
    (
        "I quit smoking, no cigarettes since January.",
        "I quit smoking",
        "The user quit smoking.",
    ),
    (
        "my mom Linda was just diagnosed with breast cancer and I don't know what to say to her",
        "my mom Linda was just diagnosed with breast cancer",
        "The user's mom Linda was just diagnosed with breast cancer.",
    ),
    # -- "actually", "wait", "sorry" inside a later question or longer sentence correct nothing
    (
        "Twins' 8th birthday is April 9. Cake ideas that kids actually like?",
        "Twins' 8th birthday is April 9",
        "Twins' 8th birthday is April 9.",
    ),
    (
        "I live in Oslo. I can't wait to see the fjords.",
        "I live in Oslo",
        "The user lives in Oslo.",
    ),
    (  # "wait" as a verb after a modal or before how long
        "I take thyroxine every morning. I know I must wait 30-60 min before coffee.",
        "I take thyroxine every morning",
        "The user takes thyroxine every morning.",
    ),
    (  # the noun
        "My flight to Oslo is on Friday. The wait at security is always awful.",
        "My flight to Oslo is on Friday",
        "The user's flight to Oslo is on Friday.",
    ),
    (
        "I work nights at the depot. We wait a few weeks for the new roster.",
        "I work nights at the depot",
        "The user works nights at the depot.",
    ),
    # -- a clause about telling the assistant frames the telling, not the claim -------------
    (
        "Oh, I forgot to tell you: we got a dog last week.",
        "we got a dog last week",
        "The user got a dog last week.",
    ),
    ("I'm vegetarian, as I said.", "I'm vegetarian", "The user is vegetarian."),
    ("I live in Leeds, I think I told you.", "I live in Leeds", "The user lives in Leeds."),
    (
        "Not sure if I ever told you, but my wife is a nurse.",
        "my wife is a nurse",
        "The user's wife is a nurse.",
    ),
]


@pytest.mark.parametrize(("turn", "quote", "content"), CUT_QUOTES)
def test_the_judge_refuses_a_quote_its_turn_takes_away(turn: str, quote: str, content: str) -> None:
    """With the turn as context the quote is refused, and the reason names the turn's cue."""
    verdict = OfflineJudge().entails(quote, content, context=turn)
    assert not verdict.holds, verdict.reason
    assert verdict.score < 0.5


@pytest.mark.parametrize(("turn", "quote", "content"), FAIR_QUOTES)
def test_the_judge_keeps_a_fair_quote_of_part_of_a_turn(
    turn: str, quote: str, content: str
) -> None:
    assert OfflineJudge().entails(quote, content, context=turn).holds


def _session(memory: Memory, turn: str) -> Session:
    memory.grant("assistant", "user:u1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s-1", now=NOW)
    session.add_turn("user", turn, at=NOW)
    session.add_turn("assistant", "Noted.", at=NOW)
    return session


def _write(session: Session, content: str, quote: str) -> dict[str, Any]:
    args = {
        "type": "semantic",
        "content": content,
        "source_kind": "user_statement",
        "evidence": quote,
    }
    return session.call("memory_write", args, now=NOW)


# (turn, quote, content): true quotes the judge still refuses, on the safe side: the words
# after them also limit or undo a claim in other sentences (core.judge.beside). The offline
# extractor keeps such a sentence as said instead of the phrasing, tagged "qualified"
# (core.extraction.phrasing.qualified).
REFUSED_BESIDE: list[tuple[str, str, str]] = [
    (
        "I'm a translator, I have 20 years of experience, mostly medical and legal texts.",
        "I have 20 years of experience",
        "The user has 20 years of experience.",
    ),
    (
        "For the costs, I use Excel on my laptop, not Google Sheets, so give it in Excel terms.",
        "I use Excel on my laptop",
        "The user uses Excel on the user's laptop.",
    ),
    (
        "also I stopped the intermittent fasting, got gastritis in Jan and doc said eat regular "
        "meals. can give me a simple lunch plan?",
        "I stopped the intermittent fasting",
        "The user has stopped the intermittent fasting.",
    ),
]


# (turn, quote, content): true quotes the judge refuses because a correction cue opens a later
# question that asks something new. Most such questions do (task requests, questions of how
# something is judged), but three adversarial reviews of rules reading them so found the user's
# corrections and retractions asked the same way confirmed as fact ("Sorry, can you disregard
# that?", "Oops, can you plan the party for Mila?", "Wait, is it a problem that I moved to
# Lyon last week?"): 5 of 42, 56 of 62 and 40 of 48 traps (benchmarks/README.md, "Session 47").
REFUSED_BEFORE_A_QUESTION: list[tuple[str, str, str]] = [
    (
        "jack's allergic to shellfish so no prawn bait fights pls lol. actually is handling "
        "prawns as bait even a problem for him",
        "jack's allergic to shellfish so no prawn bait fights pls lol",
        "jack's allergic to shellfish so no prawn bait fights pls lol.",
    ),
    (
        "I'm vegetarian. Actually, can you suggest a curry?",
        "I'm vegetarian",
        "The user is vegetarian.",
    ),
]


_BESIDE_LIMIT = (
    "known limit: 'mostly' before things, 'not' before a thing and an instruction reported "
    "after 'and' also limit or undo claims ('I fix cars, mostly bikes actually', 'I run every "
    "morning, not weekends', '... and my wife said prove it then'); two adversarial reviews "
    "found each confirming false pairs, so they still refuse"
)
_QUESTION_LIMIT = (
    "known limit: a correction cue opening a question takes the claim before it back; the "
    "question may be the correction ('Sorry, can you disregard that?')"
)


@pytest.mark.parametrize(
    ("turn", "quote", "content"),
    [
        *(
            pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=_BESIDE_LIMIT))
            for c in REFUSED_BESIDE
        ),
        *(
            pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=_QUESTION_LIMIT))
            for c in REFUSED_BEFORE_A_QUESTION
        ),
    ],
)
def test_known_limit_a_true_quote_refused_for_what_follows_it(
    turn: str, quote: str, content: str
) -> None:
    assert OfflineJudge().entails(quote, content, context=turn).holds


@pytest.mark.parametrize(("turn", "quote", "content"), CUT_QUOTES[:5] + CUT_QUOTES[-2:])
def test_memory_write_does_not_confirm_a_cut_quote(
    memory: Memory, turn: str, quote: str, content: str
) -> None:
    """The quote is verbatim in a user turn, but its turn says otherwise: the record is an
    agent inference, and the note says why."""
    result = _write(_session(memory, turn), content, quote)
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")
    assert any("does not entail" in note for note in result["notes"])


@pytest.mark.parametrize(("turn", "quote", "content"), FAIR_QUOTES)
def test_memory_write_confirms_a_fair_quote(
    memory: Memory, turn: str, quote: str, content: str
) -> None:
    result = _write(_session(memory, turn), content, quote)
    assert (result["status"], result["source_kind"]) == ("confirmed", "user_statement")


def test_memory_revise_confirm_reads_the_quote_in_its_turn(memory: Memory) -> None:
    """confirm goes through the same evidence check: a cut quote does not confirm a guess,
    a quote of a later turn that says it plainly does."""
    session = _session(memory, "My doctor thinks I have diabetes.")
    guess = session.call(
        "memory_write",
        {"type": "semantic", "content": "The user has diabetes.", "source_kind": "agent_inference"},
        now=NOW,
    )
    assert guess["status"] == "provisional"
    cut = session.call(
        "memory_revise",
        {"id": guess["id"], "action": "confirm", "evidence": "I have diabetes"},
        now=NOW,
    )
    assert cut["source_kind"] == "agent_inference" and cut["status"] == "provisional"
    assert any("does not entail" in note for note in cut["notes"])
    session.add_turn("user", "Yes, I have diabetes.", at=NOW)
    fair = session.call(
        "memory_revise",
        {"id": guess["id"], "action": "confirm", "evidence": "Yes, I have diabetes"},
        now=NOW,
    )
    assert (fair["status"], fair["source_kind"]) == ("confirmed", "user_statement")

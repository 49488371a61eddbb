"""Adversarial review of issue 14's judge (item 2, precision): paraphrases that swap who holds
a relation, written for this file. The loose readings cover words in any order, so the roles
must be checked apart (core.judge.roles)."""

from __future__ import annotations

import pytest

from agent_memory.core.judge import OfflineJudge

SWAPPED: list[tuple[str, str]] = [
    ("Tom is my manager.", "The user is Tom's manager."),
    ("Leo is my son.", "The user is Leo's son."),
    ("My son is Leo.", "The user is Leo's son."),
    ("Raj is my landlord.", "The user is Raj's landlord."),
    ("I am Tom's manager.", "The user's manager is Tom."),
    ("Ana tutors me.", "The user tutors Ana."),
    ("I tutor Ana.", "Ana tutors the user."),
]
KEPT: list[tuple[str, str]] = [
    ("Tom is my manager.", "The user's manager is Tom."),
    ("Tom is my manager.", "Tom is the user's manager."),
    ("I am Tom's manager.", "The user is Tom's manager."),
    ("My mum's birthday is on the 3rd of May.", "The user's mother's birthday is May 3."),
    ("I do all my shopping at Lidl.", "The user shops at Lidl."),
]


@pytest.mark.parametrize(("quote", "content"), SWAPPED)
def test_a_paraphrase_that_swaps_the_roles_is_refused(quote: str, content: str) -> None:
    verdict = OfflineJudge().entails(quote.rstrip("."), content, context=quote)
    assert not verdict.holds, verdict.reason


@pytest.mark.parametrize(("quote", "content"), KEPT)
def test_a_paraphrase_that_keeps_the_roles_is_not_refused_for_them(
    quote: str, content: str
) -> None:
    verdict = OfflineJudge().entails(quote.rstrip("."), content, context=quote)
    assert "roles" not in verdict.reason


@pytest.mark.xfail(
    strict=True,
    reason="a relation noun read as a verb ('my tutor' / 'tutors Ana') needs the parse; "
    "a word rule over 'my X' -> 'the user Xs' refused 'I do my banking' / 'banks'",
)
def test_a_relation_noun_turned_into_the_users_act_is_refused() -> None:
    assert not OfflineJudge().entails("Ana is my tutor", "The user tutors Ana.").holds


# -- issue 14 items 1, 5, 6: the quote in its turn (core.framing, core.amend) -------------------
# Each row: the turn, the quote the agent picked, the statement, and whether it may be confirmed.
IN_CONTEXT: list[tuple[str, str, str, bool]] = [
    # A condition said by inversion states neither its condition nor its result.
    (
        "Were I taller, I would play basketball.",
        "I would play basketball",
        "The user would play basketball.",
        False,
    ),
    ("Were I taller, I would play basketball.", "Were I taller", "The user is taller.", False),
    (
        "Had we known, we would have left early.",
        "we would have left early",
        "The user would have left early.",
        False,
    ),
    (
        "Should my train be late, I will take a taxi.",
        "I will take a taxi",
        "The user will take a taxi.",
        False,
    ),
    # Ironic agreement: a strong opener always, a bare "Sure," with an overstated claim.
    (
        "Oh sure, I adore filling in tax forms.",
        "I adore filling in tax forms",
        "The user adores filling in tax forms.",
        False,
    ),
    (
        "Yeah right, I'm a morning person.",
        "I'm a morning person",
        "The user is a morning person.",
        False,
    ),
    (
        "Sure, I'm the king of Spain.",
        "I'm the king of Spain",
        "The user is the king of Spain.",
        False,
    ),
    (
        "Sure, I totally love cold showers.",
        "I totally love cold showers",
        "The user loves cold showers.",
        False,
    ),
    (
        "Right, I'm a genius at chess.",
        "I'm a genius at chess",
        "The user is a genius at chess.",
        False,
    ),
    # ... while a sincere "Sure," answer keeps its statement.
    (
        "Sure, I'm available on Tuesday.",
        "I'm available on Tuesday",
        "The user is available on Tuesday.",
        True,
    ),
    ("Sure, I drink oat milk.", "I drink oat milk", "The user drinks oat milk.", True),
    # A "no" answering what came before negates nothing in the quote.
    (
        "Hmm, no, I work at the bakery.",
        "I work at the bakery",
        "The user works at the bakery.",
        True,
    ),
    (
        "No, I'm allergic to shellfish.",
        "I'm allergic to shellfish",
        "The user is allergic to shellfish.",
        True,
    ),
    (
        "I'm not allergic to shellfish.",
        "allergic to shellfish",
        "The user is allergic to shellfish.",
        False,
    ),
    # A comma and a new "I" open a clause the earlier negation does not reach ...
    (
        "I don't work in Leeds anymore, I moved to York.",
        "I moved to York",
        "The user moved to York.",
        True,
    ),
    # ... unless the clause before is a hedge.
    ("I don't know, I think I'm anaemic.", "I'm anaemic", "The user is anaemic.", False),
    # An elliptical self-correction: the corrected value is said, the retracted one is not.
    (
        "I have two dogs. Actually, three dogs.",
        "I have two dogs. Actually, three dogs",
        "The user has three dogs.",
        True,
    ),
    (
        "I have two dogs. Actually, three dogs.",
        "I have two dogs. Actually, three dogs",
        "The user has two dogs.",
        False,
    ),
    ("I'm 52. Whoops, I mean 53.", "I'm 52. Whoops, I mean 53", "The user is 53.", True),
    ("I'm 52. Whoops, I mean 53.", "I'm 52", "The user is 52.", False),
    (
        "I grew up in Porto. Sorry, Braga.",
        "I grew up in Porto. Sorry, Braga",
        "The user grew up in Braga.",
        True,
    ),
    (
        "I grew up in Porto. Sorry, Braga.",
        "I grew up in Porto. Sorry, Braga",
        "The user grew up in Porto.",
        False,
    ),
    # A fiction frame with a word between its article and its noun.
    ("In my new screenplay, I am a smuggler.", "I am a smuggler", "The user is a smuggler.", False),
    # A condition or report word that opens an infinitive governs nothing said before it: it
    # asks when, or passes on an instruction ...
    (
        "My mother is a baker in Rennes, she says to use her hand cream.",
        "My mother is a baker in Rennes",
        "The user's mother is a baker in Rennes.",
        True,
    ),
    (
        "I'm a nurse at St James's and I want a handout: what to expect, when to come back.",
        "I'm a nurse at St James's",
        "The user is a nurse at St James's.",
        True,
    ),
    # ... but a report to an addressee, a tag, or a condition with a clause still governs it.
    (
        "I'm moving to Berlin, she says to me.",
        "I'm moving to Berlin",
        "The user is moving to Berlin.",
        False,
    ),
    (
        "I'm moving to Berlin, or so he says.",
        "I'm moving to Berlin",
        "The user is moving to Berlin.",
        False,
    ),
    (
        "I'm moving to Berlin when the contract is signed.",
        "I'm moving to Berlin",
        "The user is moving to Berlin.",
        False,
    ),
    # A "no" answering one item of a list after the quote refuses the item, not the quote,
    # and "no." before a new sentence ends it (not "No. 5"); after an interjection it is a
    # retraction still.
    (
        "I'm pescatarian, fish yes, meat no. Oh, and eggs, I eat eggs.",
        "I'm pescatarian",
        "The user is pescatarian.",
        True,
    ),
    (
        "I play tennis on Tuesdays, squash yes, golf no.",
        "I play tennis",
        "The user plays tennis.",
        True,
    ),
    ("I'm vegan, lol no.", "I'm vegan", "The user is vegan.", False),
    ("I'm vegan, hell no.", "I'm vegan", "The user is vegan.", False),  # no list: a retraction
    # a joke's name or a dream inside a sentence of its own takes nothing back
    (
        "I work as a nurse in Leeds. My birthday is on April Fools' Day.",
        "I work as a nurse in Leeds",
        "The user works as a nurse in Leeds.",
        True,
    ),
    (
        "I live in Bristol. I still see my late dad in my dreams.",
        "I live in Bristol",
        "The user lives in Bristol.",
        True,
    ),
    (
        "I love football. Well, my whole family does.",
        "I love football",
        "The user loves football.",
        True,
    ),
    (
        "I work at the hospital. Well, I was off until last week.",
        "I work at the hospital",
        "The user works at the hospital.",
        True,
    ),
    ("I'm 30, wait no, 31.", "I'm 30", "The user is 30.", False),
    # "sorry" apologising for something takes nothing back; for a slip it still does
    (
        "I'm vegetarian. Sorry for the long message.",
        "I'm vegetarian",
        "The user is vegetarian.",
        True,
    ),
    (
        "I live in Leeds. Sorry to bother you again.",
        "I live in Leeds",
        "The user lives in Leeds.",
        True,
    ),
    (
        "I live in Leeds. Sorry for the confusion, I live in York.",
        "I live in Leeds",
        "The user lives in Leeds.",
        False,
    ),
    (
        "I live in Leeds. Sorry, I live in York.",
        "I live in Leeds",
        "The user lives in Leeds.",
        False,
    ),
    (  # an apology opening a clause of news may change the claim
        "I live in Oslo. Sorry for not saying earlier, I live in Bergen now.",
        "I live in Oslo",
        "The user lives in Oslo.",
        False,
    ),
    (
        "I'm a teacher. Sorry to say, I lost that job.",
        "I'm a teacher",
        "The user is a teacher.",
        False,
    ),
    # A later sentence taking back only itself ("..., haha no.") leaves the claim before it.
    (
        "I moved to Leeds. I'm getting married, haha no.",
        "I moved to Leeds",
        "The user moved to Leeds.",
        True,
    ),
    ("I moved to Leeds. Haha no.", "I moved to Leeds", "The user moved to Leeds.", False),
    ("I'm pregnant! April fools.", "I'm pregnant", "The user is pregnant.", False),
    # a wish on its own right after the claim takes it back (core.takeback); not after a
    # negative claim, which it confirms, nor after a question, which it answers; a denial
    # after a claim as often turns down what was offered
    ("I bought a Ferrari. I wish!", "I bought a Ferrari", "The user bought a Ferrari.", False),
    ("I'm retiring. Ha, I wish.", "I'm retiring", "The user is retiring.", False),
    (
        "I never went to college. I wish I had.",
        "I never went to college",
        "The user never went to college.",
        True,
    ),
    (
        "I bought a Ferrari. Do I regret it? I wish!",
        "I bought a Ferrari",
        "The user bought a Ferrari.",
        True,
    ),
    ("I'm vegetarian. Obviously not.", "I'm vegetarian", "The user is vegetarian.", True),
    # "not" after a comma and "actually" opening a later question still refuse (a contrast
    # reading, "..., not Google Sheets", confirmed "I'm vegan, not strictly" and "I'm rich, not
    # haha"; a question reading confirmed "My meeting is at 3pm. Actually, can you make that
    # 4pm instead?": both withdrawn after a review)
    ("I'm vegan, not really.", "I'm vegan", "The user is vegan.", False),
    ("I'm vegan, not strictly.", "I'm vegan", "The user is vegan.", False),
    ("I live in Oslo, not Oslo, Bergen.", "I live in Oslo", "The user lives in Oslo.", False),
    (
        "My meeting with Dana is at 3pm. Actually, can you make that 4pm instead?",
        "My meeting with Dana is at 3pm",
        "The user's meeting with Dana is at 3pm.",
        False,
    ),
    ("I live in Oslo. Actually, is it Bergen?", "I live in Oslo", "The user lives in Oslo.", False),
    # a guess in a clause of its own after the claim leaves it told, unless the guess is about
    # the claim itself or gives another value
    (
        "My doctor upped my metformin to 1000 twice a day, so I guess she's not satisfied yet.",
        "My doctor upped my metformin to 1000 twice a day",
        "The user's doctor upped the user's metformin to 1000 twice a day.",
        True,
    ),
    (
        "My rent is $1200, I think it went up to $1300 though.",
        "My rent is $1200",
        "The user's rent is $1200.",
        False,
    ),
    (
        "I live at 42 Elm Street, I guess that's still right.",
        "I live at 42 Elm Street",
        "The user lives at 42 Elm Street.",
        False,
    ),
    ("I own a boat. Well, my dad does.", "I own a boat", "The user owns a boat.", False),
    (
        "I live in Leeds. Well, I did until May.",
        "I live in Leeds",
        "The user lives in Leeds.",
        False,
    ),
    (
        "I moved to Leeds. I live in York, just kidding.",
        "I moved to Leeds",
        "The user moved to Leeds.",
        False,
    ),
    # an aside after a comma says why the claim is told and conditions nothing
    # (core.framing.ASIDE_IF); any other condition still does, and so do an aside's words
    # without the comma
    ("I'm vegan, if that matters.", "I'm vegan", "The user is vegan.", True),
    ("I quit Google, if it helps.", "I quit Google", "The user quit Google.", True),
    ("We have two kids, if you must know.", "We have two kids", "The user has two kids.", True),
    ("I'm vegan, if the tests are right.", "I'm vegan", "The user is vegan.", False),
    ("I'll move to Oslo if it helps.", "I'll move to Oslo", "The user will move to Oslo.", False),
]


@pytest.mark.parametrize(("turn", "quote", "content", "holds"), IN_CONTEXT)
def test_the_quote_is_read_in_its_turn(turn: str, quote: str, content: str, holds: bool) -> None:
    verdict = OfflineJudge().entails(quote, content, context=turn)
    assert verdict.holds is holds, verdict.reason


# Words that share their first five letters without one being derived from the other: the
# judge covered a statement word by any such quote word, so a model's misnamed or misread
# fact was confirmed by the user's own words.
UNDERIVED: list[tuple[str, str]] = [
    ("My sister is Christina.", "The user's sister is Christopher."),
    ("My name is Priya.", "The user's name is Priyanka."),
    ("My boss is Stephen.", "The user's boss is Stephanie."),
    ("I have an internship at Google.", "The user has an interview at Google."),
    ("I live in Manchester.", "The user lives in Manchesterford."),
    ("I'm studying for my exams.", "The user is in the studio for the exams."),
    # Names and words WordNet knows, none derived from the other (a second review's).
    ("My sister is Victoria.", "The user's sister is Victor."),
    ("My sister is Caroline.", "The user's sister is Carol."),
    ("I'm from India.", "The user is from Indiana."),
    ("I moved to Tunis.", "The user moved to Tunisia."),
    ("I called the police.", "The user called about the policy."),
    ("I had to cancel.", "The user had cancer."),
    ("I'm an employee at Acme.", "The user is an employer at Acme."),
    ("I saw my doctor.", "The user saw the doctorate."),
    # A third review's: a name derives nothing, nor do two words derived alike from a third.
    ("My daughter is Victoria.", "The user's daughter is Victorian."),
    ("My daughter is Olive.", "The user's daughter is Oliver."),
    ("I'm a trainee at the gym.", "The user is a trainer at the gym."),
    # An ending alone joins look-alikes WordNet does not link (the third review's).
    ("I work at a hospital.", "The user works in hospitality."),
    ("I keep a journal.", "The user is a journalist."),
    ("I like the capital.", "The user likes capitalism."),
]
# A word and one derived from it still say each other.
DERIVED: list[tuple[str, str]] = [
    ("I am allergic to peanuts.", "The user has a peanut allergy."),
    ("I love photography.", "The user loves photos."),
    ("I need the simplest budget possible.", "The user wants a very simple budget."),
    ("I love YouTubers.", "The user loves YouTube."),  # a word WordNet does not know
    ("I have three grandkids.", "The user has three grandchildren."),
    ("I'm Bostonian.", "The user is from Boston."),  # a demonym of a place WordNet knows
]


@pytest.mark.parametrize(("quote", "content"), UNDERIVED)
def test_a_word_sharing_only_a_start_with_the_quotes_is_not_covered(
    quote: str, content: str
) -> None:
    verdict = OfflineJudge().entails(quote, content)
    assert not verdict.holds, verdict.reason


@pytest.mark.parametrize(("quote", "content"), DERIVED)
def test_a_word_derived_from_the_quotes_is_covered(quote: str, content: str) -> None:
    verdict = OfflineJudge().entails(quote, content)
    assert verdict.holds, verdict.reason


@pytest.mark.parametrize(
    ("quote", "content"),
    [
        ("My daughter is Victoria.", "The user's daughter is a queen."),
        ("My dog is Lincoln.", "The user's dog is a lawyer."),
    ],
)
def test_a_famous_persons_name_says_nothing_of_its_bearer(quote: str, content: str) -> None:
    """WordNet holds "Victoria" as one queen; the user's daughter of that name is not her."""
    verdict = OfflineJudge().entails(quote, content)
    assert not verdict.holds, verdict.reason


def test_a_places_name_still_says_what_it_is() -> None:
    assert OfflineJudge().entails("I live in Berlin.", "The user lives in a city.").holds


@pytest.mark.parametrize(
    ("quote", "content"),
    [
        ("I no longer live in Leeds.", "The user lives in Leeds."),
        ("My dentist is no longer Dr. Patel.", "The user's dentist is Dr. Patel."),
    ],
)
def test_no_longer_negates_the_clause(quote: str, content: str) -> None:
    """The parse hangs "no" under "longer", not under the verb: the clause reading saw no
    negation and confirmed the claim the quote denies."""
    verdict = OfflineJudge().entails(quote, content)
    assert not verdict.holds, verdict.reason


def test_no_longer_still_says_what_it_says() -> None:
    assert (
        OfflineJudge()
        .entails("I no longer live in Leeds.", "The user no longer lives in Leeds.")
        .holds
    )


@pytest.mark.xfail(
    strict=True,
    reason="known limit: between words WordNet knows, only its derivation links count, and it "
    "has none for loyal/loyalty, gymnast/gymnastics, optimist/optimistic, Boston/Bostonian; an "
    "ending rule that covered them also covered hospital/hospitality and journal/journalist "
    "(session 60's reviews), and a wrong cover costs precision, a missing one recall",
)
def test_known_limit_derived_forms_wordnet_does_not_link() -> None:
    assert (
        OfflineJudge()
        .entails("I'm a loyal customer of Acme.", "The user has loyalty to Acme.")
        .holds
    )

"""Dietary constraints (core.search.diet): what the user or their household must not or will not
eat comes with every food task, however far its words are from the task; never with a task about
something else nor with a question about a stored fact; the response says why, and replaying
the log agrees."""

from __future__ import annotations

import pytest

from agent_memory.api.evaluation.calibrate import final_ids
from agent_memory.core import Config, Memory
from agent_memory.core.models import SourceKind
from agent_memory.core.search import diet
from agent_memory.core.search.explain import for_model
from agent_memory.core.search.ranking import replay
from agent_memory.core.session import Session
from tests.core.search.test_standing import FACTS, contents, payload, record, search, stated

COELIAC = "I have coeliac disease."
SHELLFISH = "jack's allergic to shellfish so no prawn bait fights pls lol."
GARLIC = "Only onion and garlic are a problem, everything else is fine again."


@pytest.fixture
def alice(memory: Memory) -> Session:
    return stated(memory, [*FACTS, COELIAC, SHELLFISH, GARLIC])


@pytest.mark.parametrize(
    "task",
    [
        "Suggest a sandwich for my lunch.",
        "Give me a pasta recipe for tonight.",
        "Suggest a seafood dinner for the whole family.",
        "Could you give me a recipe for a nice apple tart for Sunday?",
    ],
)
def test_a_food_task_gets_the_dietary_constraints(alice: Session, task: str) -> None:
    result = search(alice, task)
    reasons = {r["content"]: r["explanation"] for r in result["results"]}
    assert {COELIAC, SHELLFISH, GARLIC} <= reasons.keys(), task
    added = [c for c in (COELIAC, SHELLFISH, GARLIC) if reasons[c]["passed_on"] == "constraint"]
    assert added  # those not close enough to pass on their own
    assert all("dietary constraint" in reasons[c]["gate"] for c in added)
    logged = payload(alice, result["search_id"])
    added = {r["id"] for r in result["results"] if r["explanation"]["passed_on"] == "constraint"}
    assert set(logged["gate"]["constraints"]) == added
    assert replay(logged) == [r["id"] for r in result["results"]]
    assert final_ids(logged, Config().gate) == [r["id"] for r in result["results"]]


def test_the_compact_reason_of_a_rider_says_what_it_is(memory: Memory) -> None:
    """What a model reads of a rider: "a dietary constraint", "a standing instruction"; that
    the query asked a task about food is its own request (the full explanation's gate says
    it). Every character of the compact answer is read on every turn."""
    metric = "Please always use metric units in anything you give me."
    session = stated(memory, [*FACTS, COELIAC, metric])
    query = {"query": "Give me a pasta recipe for tonight."}
    result = search(session, query["query"])
    full = {r["id"]: r["explanation"]["passed_on"] for r in result["results"]}
    compact = {r["id"]: r["reason"] for r in for_model("memory_search", query, result)["results"]}
    said = {"constraint": "a dietary constraint", "standing": "a standing instruction"}
    riders = {i: on for i, on in full.items() if on in said}
    assert set(riders.values()) == set(said)
    for record_id, passed_on in riders.items():
        assert compact[record_id].split("; ")[-1] == said[passed_on]


@pytest.mark.parametrize(
    "question",
    [
        "Is there any kind of food my stomach doesn't handle well?",
        "Which foods do I need to avoid?",
        "Do I have any medical condition that affects what I eat?",
    ],
)
def test_a_question_about_what_the_user_may_eat_gets_the_constraints(
    alice: Session, question: str
) -> None:
    """Its constraints lead the answer, those that passed on their own among them."""
    result = search(alice, question)
    ids = [r["id"] for r in result["results"]]
    assert COELIAC in contents(result), question
    added = {r["id"] for r in result["results"] if r["explanation"]["passed_on"] == "constraint"}
    assert added, question  # those not close enough to pass on their own
    constraints = payload(alice, result["search_id"])["gate"]["constraints"]
    assert added <= set(constraints)
    assert ids[: len(constraints)] == constraints
    assert replay(payload(alice, result["search_id"])) == ids
    # The gate calibration's replay, under the configured gate, too (it left them out before).
    assert final_ids(payload(alice, result["search_id"]), Config().gate) == ids


def test_a_question_gets_the_constraints_it_asks_about(memory: Memory) -> None:
    """An allergy question gets allergies and intolerances, not a dislike."""
    session = stated(memory, [*FACTS, "We don't eat pork.", "I'm lactose intolerant."])
    found = contents(search(session, "Do I have any food allergies?"))
    assert "I'm lactose intolerant." in found
    assert "We don't eat pork." not in found


def test_the_users_diet_stated_last_replaces_the_earlier_one(memory: Memory) -> None:
    """After "I'm pescatarian", "I went fully vegetarian": only the later comes, to a question
    or a task; another person's diet still comes beside it, and so does an earlier record
    stating more than the diet. A question naming the earlier diet may still find it, after
    the later one."""
    said = [
        "I'm pescatarian.",
        "I'm pescatarian and allergic to sesame.",
        "My brother-in-law Rohan is vegan.",
        "I went fully vegetarian.",
    ]
    session = stated(memory, [*FACTS, *said])
    for query in ("What's my diet?", "Am I pescatarian?", "Suggest a sandwich for my lunch."):
        result = search(session, query)
        found = contents(result)
        assert set(said[1:]) <= set(found), query
        if query == "Am I pescatarian?":
            assert found.index(said[3]) < found.index(said[0])
        else:
            assert said[0] not in found, query
        assert replay(payload(session, result["search_id"])) == [r["id"] for r in result["results"]]


def test_a_question_about_a_diet_hears_that_it_ended(memory: Memory) -> None:
    """Asked "Am I still pescatarian?" after "I've started eating chicken", the end comes
    first, before the diet it ended."""
    said = ["I'm pescatarian.", "My doctor wants me to eat meat, so I've started eating chicken."]
    session = stated(memory, [*FACTS, *said])
    found = contents(search(session, "Am I still pescatarian?"))
    assert found[0] == said[1]


def test_another_task_or_a_fact_question_gets_none(alice: Session) -> None:
    for query in ("Explain how index funds work.", "Where does my sister live?"):
        found = contents(search(alice, query))
        assert not {COELIAC, SHELLFISH, GARLIC} & set(found), query


def test_at_most_a_few_the_surest_then_the_latest_first(memory: Memory) -> None:
    """An allergy before a dislike or a refusal, then the one stated last: a refusal stated
    after an allergy never pushes it out of the answer."""
    said = [
        "We don't eat pork.",
        "I'm lactose intolerant.",
        "I need to eat less red meat.",
        "My daughter has a sesame allergy.",
    ]
    session = stated(memory, [*FACTS, *said])
    result = search(session, "Suggest a sandwich for my lunch.")
    added = [
        r["content"] for r in result["results"] if r["explanation"]["passed_on"] == "constraint"
    ]
    assert added == [said[3], said[1], said[2]][: diet.MAX_CONSTRAINTS]
    assert said[0] not in contents(result)


@pytest.mark.parametrize(
    ("query", "food"),
    [
        ("Suggest a sandwich for my lunch.", True),
        ("Suggest a pasta supper I could make this evening.", True),  # "pasta" is food
        ("What drinks should I get in for a barbecue?", True),
        ("Write me a shopping list for a week of camp meals.", True),
        ("Suggest a scent combination for a new soap batch.", False),
        ("Give me a workout for this week.", False),
        ("Explain how index funds work.", False),
        # named after food, not about eating it
        ("Suggest a name for my cooking blog.", False),
        ("Plan a trip to the food festival.", False),
        ("Write a poem about apples.", False),
        ("Fix the bug in my cookie consent banner.", False),  # a food word naming another thing
        ("What should I feed my dog?", False),  # not the household's meal
        ("What should I pack for the kids' school lunchboxes?", True),
    ],
)
def test_what_a_food_task_is(query: str, food: bool) -> None:
    assert diet.asks_food(query) is food


@pytest.mark.parametrize(
    ("question", "level"),
    [
        ("Do I have any food allergies?", 0),
        ("Is there any kind of food my stomach doesn't handle well?", 0),
        ("Do I have any medical condition that affects what I eat?", 0),
        ("which food sets off my headaches?", 0),
        ("What's my diet?", 1),
        ("Am I vegan?", 1),
        ("Which foods do I need to avoid for my IBS?", 2),
        ("What foods am I avoiding?", 2),
        # about food, not what the user may eat
        ("What's my favourite food?", None),
        ("What did I eat at the wedding?", None),
        ("How much do I spend on food each week?", None),
        ("Do I still drink beer?", 2),  # what the user drinks no more
        # not about eating, or not the user's
        ("What medication am I on?", None),
        ("Which roads should I avoid on my commute?", None),
        ("What is Ines allergic to?", None),
        ("What should my dog not eat?", None),
    ],
)
def test_what_a_question_about_what_the_user_may_eat_asks(question: str, level: int | None) -> None:
    assert diet.wanted(question, task=False) == level


@pytest.mark.parametrize(
    ("content", "constraint"),
    [
        (COELIAC, True),
        (SHELLFISH, True),  # someone the user cooks for
        (GARLIC, True),
        ("I ought to say I have never cared for garlic; it repeats on me terribly.", True),
        ("my doctor said my uric acid is high and I need to eat less red meat", True),
        ("I have type 2 diabetes so I'd like scones that won't spike my sugar.", True),
        ("We don't eat pork, obviously.", True),
        ("Zosia is allergic for nuts, so careful.", True),
        ("I need halal lunch ideas for the kids' lunchbox.", True),
        ("I went fully vegetarian after watching a documentary.", True),
        ("If I eat peanuts I end up in hospital.", True),
        # only thought of
        ("also thinking of going veggie.", False),
        ("I might go vegan next year.", False),
        ("I'll probably go vegetarian soon.", False),
        # a hedge not on the constraint
        ("You might want to know I'm pescatarian.", True),
        ("I want to remind you that I'm allergic to peanuts.", True),
        ("I'm 2 years sober so no alcohol in the house.", True),
        ("No xanthan gum. It upsets my stomach.", True),
        ("I'm intolerant to lactose.", True),
        ("I can't have gluten.", True),
        ("Dairy makes me really bloated.", True),
        ("I'm allergic to walnuts.", True),
        ("Peanuts make my throat swell up.", True),
        ("I get migraines from red wine.", True),
        ("Penicillin gives me a rash.", False),  # a reaction to no food
        ("My kid grew out of his egg allergy last year.", False),
        ("My cat is lactose intolerant, no milk for her.", False),
        ("I was diagnosed with type 2 diabetes last year.", True),
        # not the household's: a pet's, a colleague's, an ex's
        ("My dog is allergic to chicken.", False),
        ("My coworker Sam is vegan.", False),
        ("My ex was allergic to shellfish.", False),
        ("My best friend Kasia is vegan.", False),
        ("Friends say I'm basically vegetarian, and I am.", True),
        ("I want to stay vegan.", True),
        ("Fish didn't work out, I'm vegetarian again.", True),
        # denied, lifted, past, or a test that came back fine
        ("I'm not vegetarian anymore, I eat meat again.", False),
        ("I used to be allergic to eggs as a kid but grew out of it.", False),
        ("My brother went vegan for a bet and lasted two days.", False),
        ("My grandmother had diabetes.", False),
        ("My cholesterol test came back fine.", False),
        # no food refused: eating out, eating before a run, an empty fridge, a smell
        ("I don't eat out much, too expensive.", False),
        ("I never eat before a run.", False),
        ("No meat in the fridge, need to shop.", False),
        ("I keep vegan recipes bookmarked for my sister.", False),
        ("I hate the smell of fish in the office microwave.", False),
        ("The cheese course is a problem for timing at the wedding.", False),
        # an allergy, a diet or a dislike of something no one eats
        ("My allergy season is brutal this year.", False),
        ("I'm allergic to cats.", False),
        ("I'm allergic to ibuprofen.", False),  # a medicine, not a food
        ("We went to the vegan festival on Saturday.", False),
        ("I can't stand Mondays.", False),
        ("Traffic is a problem on the way to work.", False),
        ("I love a good curry.", False),
    ],
)
def test_what_is_a_dietary_constraint(content: str, constraint: bool) -> None:
    assert diet.is_constraint(record(content)) is constraint


@pytest.mark.parametrize("kind", [SourceKind.TOOL_RESULT, SourceKind.AGENT_INFERENCE])
def test_only_the_users_own_words_state_one(kind: SourceKind) -> None:
    assert not diet.is_constraint(record(COELIAC, source_kind=kind))


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "known limit: a dietary constraint or standing instruction admitted for a task goes "
        "after every result that passed on its own, however far below the best (fresh F02-q8: "
        "'The user has never cared for garlic.' 7th of 7 for 'Suggest a pasta supper I could "
        "make this evening.'). Placing them above results under 0.75 of the best score "
        "(session 49) lifted 12 answers on the personal sets for 4 lowered, but an adversarial "
        "review found it a wash on realistic tasks and worse on aimed ones: the results it "
        "pushed down are those only the dense generator found, the task's details worded "
        "unlike it ('My budget is about 1,500 dollars.' for 'Recommend a laptop for my work.'); "
        "constraints alone lost dev A06-q6"
    ),
)
def test_known_limit_a_constraint_ranks_below_results_far_below_the_best(memory: Memory) -> None:
    """The record the task is about comes first; the dietary constraint and the standing
    instruction come after two results found by the dense generator alone, at a third of the
    best's fused score."""
    machine = "We have a pasta machine my daughter gave us for Christmas."
    cooking = [
        "My wife Margaret does the cooking and is fond of spinach soup.",
        "In the meantime I have taken on more of the cooking, which is a novelty.",
    ]
    dislike = "I have never cared for garlic."
    metric = "Please always use metric units in anything you give me."
    session = stated(memory, [*FACTS, machine, *cooking, dislike, metric])
    result = search(session, "Suggest a pasta dish I could make with our pasta machine.")
    found = contents(result)
    if not ({machine, dislike, metric, *cooking} <= set(found) and found[0] == machine):
        pytest.fail(f"not the answer this limit is about: {found}")
    passed = {r["content"]: r["explanation"]["passed_on"] for r in result["results"]}
    if (passed[dislike], passed[metric]) != ("constraint", "standing"):
        pytest.fail(f"the riders were not admitted as such: {passed}")
    assert max(found.index(dislike), found.index(metric)) < min(map(found.index, cooking))

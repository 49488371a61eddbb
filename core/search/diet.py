"""Dietary constraints: what the user, or someone they cook for, must not or will not eat,
returned with every food task.

A food task ("Suggest a sandwich for my lunch.", "Give me a pasta recipe for tonight.") must
respect what the user said once about eating: "I have coeliac disease", "jack's allergic to
shellfish", "Only onion and garlic are a problem", "my doctor said I need to eat less red
meat". The task shares no word and little meaning with it: the packaged MiniLM puts them at a
cosine of 0.0-0.2, as far as an unrelated record, so the gate cut the one record the answer
most needed (personal dev and fresh sets: 6 of the 12 tasks that missed their record;
benchmarks/README.md, "Session 34").

So when the query asks for a task (core.search.standing.asks_task) about food (``asks_food``:
a meal, dish, recipe, snack or drink word, or a noun WordNet files under food), a candidate that
did not pass the gate on its own and states a dietary constraint (``is_constraint``) passes on
that signal (``passed_on`` "constraint"): at most ``MAX_CONSTRAINTS`` of them, those stated
last first, placed like the standing instructions (core.search.standing.admit). Besides the
generators' candidates, the records the markers' words find (``MARKERS``) are read, so a
constraint far from the task in a store of any size is a candidate.

A constraint is a sentence of the user's own (a user statement or an imported user turn, never
a tool's, an agent's, an assistant turn's or a summary's) that says an allergy or intolerance
("allergic to", "lactose intolerant", "coeliac"), a diet ("vegetarian", "halal", "kosher",
"gluten-free"), a condition that governs eating ("type 2 diabetes", "cholesterol", "uric
acid"), or a food or drink refused ("we don't eat pork", "I need to eat less red meat", "no
alcohol in the house", "it upsets my stomach"; "I have never cared for garlic" and "onion and
garlic are a problem" only of what WordNet files under food). Anyone's in the household counts
as the user's: who is cooked for is the task's business ("jack's allergic to shellfish" for
"Suggest a seafood dinner for the whole family").

Limits: English patterns; a constraint since lifted ("I eat cheese again") still comes with a
food task until a correction retires it; a food task worded as a statement ("I'm cooking for
six tonight") is not read as a task (core.search.standing); every constraint found comes with
every food task, whoever it is for.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from agent_memory.core.judge import contradiction
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search.lexical import STOPWORDS, query_tokens
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate

MAX_CONSTRAINTS = 3
# The words a constraint is found by, whatever the task (added to the standing lookup).
MARKERS = query_tokens(
    "allergic allergy allergies intolerant intolerance coeliac celiac vegan vegetarian "
    "pescatarian halal kosher gluten dairy lactose diabetes diabetic cholesterol eat eating "
    "alcohol sober stomach"
)

# What a food task asks about, besides a noun WordNet files under food ("pasta", "tart").
_FOOD_WORDS = frozenset(
    """
    food foods meal meals recipe recipes dinner dinners lunch lunches lunchbox lunchboxes
    breakfast brunch catering
    supper snack snacks dish dishes menu menus cook cooking bake baking dessert desserts treat
    treats drink drinks cocktail cocktails picnic barbecue bbq takeaway restaurant groceries
    grocery eat
    """.split()
)
# ... unless the task is about something named after food, not about eating it ("a name for my
# cooking blog", "a trip to the food festival", "a poem about apples", "translate 'chicken
# soup'"), or the food word names another thing ("a cooking blog", "a recipe app").
_NOT_EATING = re.compile(
    r"\b(?:blog|festival|job|jobs|app|website|site|market|business|essay|book|books|article|"
    r"poem|story|song|title|name|names|caption|logo|advert\w*|history|documentary|class|course|"
    r"podcast|video|translate|summari[sz]e|proofread|spell|spelling|pronounce|dog|dogs|cat|cats|"
    r"puppy|kitten|pet|pets)\b",
    re.IGNORECASE,
)
_FOOD_SENSES = 2  # "garlic" and "onion" are first the plant, second what one eats
# What may follow a food word in a food task ("a snack list", "lunch ideas", "dinner tonight").
_WITH_FOOD = frozenset(
    "list ideas idea plan plans options suggestions box platter spread kit tonight tomorrow "
    "today weekend week near around nearby without".split()
)
_WORDS = re.compile(r"[a-z][a-z'-]*")

# Foods WordNet files elsewhere first ("nut" is first a seed, "gluten" a protein, "onion" the
# plant), which allergies and diets name most.
_EATEN = frozenset(
    """
    nut nuts peanut peanuts sesame gluten dairy soy soya lactose fructose mushroom mushrooms
    onion onions olive olives wheat shellfish egg eggs milk fish seafood food foods carbs caffeine
    walnut walnuts cashew cashews almond almonds hazelnut hazelnuts pecan pecans pistachio
    pistachios kiwi kiwis lupin mustard celery
    """.split()
)
_DIETS = (
    r"vegan|vegetarian|veggie|pescatarian|pescetarian|halal|kosher|jain|keto|plant[- ]based|"
    r"(?:gluten|dairy|lactose|nut|sugar)[- ]free|low[- ](?:carb|fodmap|sugar|salt|sodium|fat)"
)
# Whose a constraint is: the user's or the household's, not a pet's, a colleague's, an ex's
# ("My dog is allergic to chicken", "My coworker Sam is vegan", "My ex was allergic to ...").
_NOT_HOUSEHOLD = re.compile(
    r"\b(?:dog|dogs|cat|cats|puppy|kitten|pet|pets|horse|coworker|co-worker|colleague|"
    r"colleagues|boss|manager|neighbou?rs?|ex|landlord|landlady|clients?|customers?|patients?|"
    r"students?|teacher|grandmother|grandfather|grandma|grandpa|people|friends?|teammates?|"
    r"classmates?)\b",
    re.IGNORECASE,
)
# A constraint denied or past, said before it ("I'm not allergic to ...", "I used to be
# allergic to eggs", "My grandmother had diabetes"), or lifted, said after it ("... but I eat
# meat again", "went vegan for a bet and lasted two days").
_DENIED = re.compile(
    r"\b(?:not|never|no longer|used to|grew out of|outgrew|(?:was|were|had)(?! diagnosed))\b|n't\b"
)
# A constraint only thought of, said right before it ("also thinking of going veggie", "I
# might go vegan", "I'll probably go vegetarian"; not "You might want to know I'm vegan").
_HEDGED = re.compile(
    r"\b(?:thinking (?:of|about)|considering|might|may|maybe|perhaps|probably|plan(?:ning)? to|"
    r"want(?:s|ed)? to|would like to|hop(?:e|ing) to|going to|will|'ll|tempted to|wonder if "
    r"(?:i'm|i am)|tested for)\s*$"
)
_KEPT_ON = re.compile(r"(?:stay|stays|keep|keeps|still)\b")
_LIFTED = re.compile(r"\b(?:anymore|any more|again|lasted|for a bet|grew out of|no longer)\b")
_HEALTHY = re.compile(
    r"\b(?:normal|fine|ok|okay|healthy|came back|clinic|thesis|research|reading|article|"
    r"studying|lecture|course)\b"
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|my|we|we're|our|us|me)\b")
# An allergy or intolerance to a food ("allergic to shellfish", "peanut allergy", "lactose
# intolerant"; not "allergy season", "allergic to penicillin"), or a condition always about
# eating; strength 0.
_ALLERGIES = tuple(
    re.compile(pattern)
    for pattern in (
        r"\bal+erg(?:ic|y|ies) (?:to|for|of) (?:the |any |all )?(?P<x>[a-z]+)(?: (?P<y>[a-z]+))?",
        r"\b(?P<x>[a-z]+)[- ]al+erg(?:y|ies)\b",
        r"\b(?P<x>[a-z]+)[- ]intoleran(?:t|ce)\b",
        r"\bintoleran(?:t|ce) (?:to|of) (?P<x>[a-z]+)",
    )
)
_COELIAC = re.compile(r"\b(?:co?eliac|anaphyla\w*|epipen)\b")
# A condition that governs eating, said of the user's own body ("I have type 2 diabetes", "my
# uric acid is high", "My LDL cholesterol is 4.1"); strength 0.
_CONDITION = re.compile(
    r"\b(?:diabet(?:es|ic)|cholesterol|uric acid|gout|ibs|fodmap|crohn'?s|a1c|blood sugar|"
    r"warfarin|statins?|blood thinners?|gastric (?:bypass|band|sleeve)|hypertension)\b"
)
# A food reacted to ("it repeats on me", "Dairy makes me bloated", "Peanuts make my throat
# swell"); strength 0. The stomach's by a food or "it"; the others by a food named before them
# in the clause ("Penicillin gives me a rash" is no food's).
_DIGESTION = re.compile(
    r"\b(?:upsets?|repeats? on|disagrees? with|(?:doesn't|does not|don't) agree with) "
    r"(?:me|my (?:stomach|tummy|gut))\b|\bmakes? me (?:\w+ )?(?:sick|bloated|ill|nauseous)\b"
)
_FROM = re.compile(r" (?:from|after) ((?:[a-z]+ ){0,2}[a-z]+)")
_REACTION = re.compile(
    r"\b(?:gives? me|get|gets) (?:\w+ )?(?:hives|migraines?|headaches?|a rash|heartburn|"
    r"reflux)\b|\bmakes? my (?:throat|lips|mouth|tongue|face) (?:\w+ )?(?:swell|tingle|itch)|"
    r"\b(?:end|ended) up in (?:the )?(?:hospital|a&e|er)\b"
)
# A diet kept ("I'm vegetarian", "we keep kosher", "went fully vegetarian", "the menu has to be
# vegetarian"), or asked for of a meal ("I need halal lunch ideas"); strength 1.
_DIET = re.compile(
    r"\b(?:i'm|im|i am|i've been|we're|we are|is|are|went|gone|turned|keep|keeps|stay|stays|eat|"
    r"eats|doing|go|going|on an?|follow(?:s|ing)? an?|(?:has|have|needs?) to be|must be)\s+"
    r"(?:(?:fully|strictly|strict|mostly|now|completely|totally|still|also|basically|mainly|"
    rf"all|pure|a)\s+)?(?:{_DIETS})\b(?!\s+(?:recipes?|restaurants?|places?|cafes?|festivals?|"
    r"cookbooks?|blogs?|options|friends?|food|meals?|dishes|chefs?|cooks?|bakery|shops?|"
    r"activists?|influencers?|bloggers?)\b)"
)
# The user as a diet's own subject: "I'm vegan", "I went vegetarian", "the user is vegan",
# "My wife and I will stay vegetarian"; not "I think my daughter went vegan".
_OF_THE_USER = re.compile(
    r"(?:^|\b)(?:i|we|the user)(?:\s+(?:will|would|'ll|have|had|must|still|also|now|just|both|"
    r"all|am|are|is|was|were|have been|has been))*\s*$"
)
_THE_USER_IS = re.compile(r"(?:i'm|im|i am|i've|we're|we are|the user)\b")
_MEAT_DIETS = re.compile(r"\b(?:vegan|vegetarian|veggie|pescatarian|pescetarian|plant[- ]based)\b")
_DIET_MEAL = re.compile(
    rf"\b(?:need|needs|want|wants|looking for|only)\s+(?:\w+\s+)?(?:{_DIETS})\s+"
    r"(?:meals?|menus?|recipes?|food|lunch(?:es)?|dinners?|breakfasts?|snacks?|options|ideas)\b"
)
# A food or drink refused, cut down, disliked ("We don't eat pork", "I need to eat less red
# meat", "I have never cared for garlic", "onion and garlic are a problem", "no dairy for me",
# "I'm 2 years sober"); strength 2. What follows the verb must be a food, or nothing ("I
# don't drink."): not "I don't eat out much", "I never eat before a run".
_REFUSED = re.compile(
    r"\b(?:(?:don'?t|do not|doesn'?t|does not|can'?t|cannot|won'?t|shouldn'?t|mustn'?t|never|"
    r"not allowed to|stopped|quit|gave up)\s+(?:eat(?:ing)?|drink(?:ing)?|have|having|touch)\b|"
    r"avoid(?:s|ing)?|cut(?:ting)? out|cutting down on|(?:eat|eating|drink|drinking) less|"
    r"never cared for|can'?t stand|can'?t tolerate|hates?|dislikes?|(?:don'?t|do not) like|"
    r"not a fan of)(?P<rest>[^,.;:!?]*)"
)
_PROBLEM = re.compile(r"\b(?P<head>[a-z]+) (?:is|are) (?:a |the )?problem\b")
_NONE_FOR = re.compile(
    r"\bno (?P<words>(?:[a-z]+ ){1,4})(?:for (?:me|us|him|her|them|the kids)|in the house|"
    r"at home|please|pls)\b|\b(?:please|pls) no (?P<asked>[a-z]+)"
    r"|\b(?:i'm|im|i am|i've been|i have been) (?:\w+ ){0,3}sober\b"
)
_NOT_FOOD_AFTER = frozenset("out before after at in on from and while late much too enough".split())
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
# A question about what the user may eat, by the weakest constraint it asks about: an allergy,
# intolerance, reaction or condition ("Do I have any food allergies?", "Is there any kind of
# food my stomach doesn't handle well?", "Am I coeliac?") takes strength 0; a diet ("What's my
# diet?", "Am I vegan?") 1; anything avoided ("Which foods do I need to avoid for my IBS?",
# "What can't I eat?", "Do I drink alcohol?", "Any food restrictions?") 2.
_ASKS = (
    re.compile(
        r"\b(?:al+erg\w*|intoleran\w*|sick|ill|stomach|tummy|gut|handle|agree with|"
        r"upsets?|react\w*|sets? off|triggers?|condition|medical|heartburn|rash|er|a&e|hospital|"
        r"co?eliac|diabet\w*|gout|ibs|cholesterol|fodmap|blood sugar|disagrees? with|hives|"
        r"migraines?)\b"
    ),
    re.compile(rf"\b(?:diet|diets|dietary|{_DIETS})\b"),
    re.compile(
        r"\b(?:avoid\w*|restrictions?|requirements?|stay away from|not allowed|not supposed to|"
        r"(?:not good|a problem|ok|okay|safe) for (?:me|us)|"
        r"refuse\w*|(?:hate|dislike)s?|(?:can'?t|cannot|shouldn'?t|should not|must not|mustn'?t|"
        r"don'?t|do not|won'?t)(?: (?:i|we))? (?:eat|drink|have)|(?:do|can|should|must) (?:i|we) "
        r"not (?:eat|drink|have))\b"
        r"|^(?:can|do|should|may) (?:i|we) (?:still |not |ever )?(?:eat|drink)\b"
        r"|^can (?:i|we) (?:still )?have\b"
    ),
)
_EATING = re.compile(
    rf"\b(?:eat|eats|eating|ate|food|foods|drink|drinks|meals?|diet\w*|{_DIETS})\b"
)
# Not what the user may eat: an allergy's care ("Where is my allergist?", "What is my allergy
# medication?"), someone's diet or a place's ("Who in my team is vegan?", "the vegan
# restaurant I liked"; a friend's or a pet's: ``_NOT_HOUSEHOLD``), a diet drink, a diet for
# weight ("How much weight did I lose on my diet?"), or when ("When did I start my diet?").
_NOT_ASKING = re.compile(
    r"\b(?:allergist|appointments?|appt|medication|medicine|prescriptions?|pharmacy|inhaler|"
    r"epipen|who|whom|restaurants?|cafes?|places?|bakery|shops?|recipes?|cookbooks?|blogs?|"
    r"diet (?:coke|soda|pepsi|drinks?)|weight|lose|lost|losing|calories?|kilos?|kg|lbs|pounds|"
    r"macros|when|tablets?|pills?|antihistamines?|tests?|plan|how long|why|since)\b"
)
_ANY = frozenset("anything something any all food foods".split())
_CLAUSE_START = re.compile(r"[,;:]|\b(?:but|and|so|because)\b")


def asks_food(query: str) -> bool:
    """Whether ``query`` (a task: core.search.standing.asks_task) is about food: a meal, dish,
    recipe, snack or drink word, or a noun WordNet files under food ("a pasta supper", "an
    apple tart"), not followed by another thing's name ("a cookie consent banner"); not a task
    about something named after food, nor for a pet (``_NOT_EATING``)."""
    if _NOT_EATING.search(query):
        return False
    words = _WORDS.findall(query.casefold())
    for i, word in enumerate(words):
        if word in STOPWORDS or not (word in _FOOD_WORDS or _food(word)):
            continue
        # Not a food word naming another thing: "a cookie consent banner", "Raspberry Pi".
        after = words[i + 1] if i + 1 < len(words) else ""
        if not after or after in STOPWORDS or after in _FOOD_WORDS or after in _WITH_FOOD:
            return True
        if _food(after):  # "an apple tart"
            return True
    return False


def wanted(query: str, *, task: bool) -> int | None:
    """The dietary constraints that come with ``query``, as the weakest strength (``strength``)
    taken: every one for a task about food (``asks_food``), those a question about what the
    user may eat asks about (``asks_constraints``: also one worded as a request, "Tell me what
    I should avoid eating"); None for none."""
    if task and asks_food(query):
        return 2
    return asks_constraints(query)


def asks_constraints(query: str) -> int | None:
    """The weakest strength of constraint a question about what the user (or the household)
    may eat asks about (``_ASKS``: 0 an allergy, intolerance, reaction or condition, 1 a diet,
    2 anything avoided), or None when it asks none: it must speak of the user ("I", "my", "we")
    and of eating (a food word, "eat", "diet") or of an allergy or intolerance, which are of
    food here ("Do I have any allergies?"). "What is Inès allergic to?" is no such question:
    her record, which names her, is found by its words."""
    lowered = query.replace("\u2019", "'").casefold().strip()
    if not _FIRST_PERSON.search(lowered) or _NOT_EATING.search(lowered):
        return None
    if _NOT_ASKING.search(lowered) or _NOT_HOUSEHOLD.search(lowered):
        return None
    asked = [level for level, pattern in enumerate(_ASKS) if pattern.search(lowered)]
    if not asked:
        return None
    # An allergy to what is named must be to a food: not "Am I allergic to penicillin?".
    named = [
        w
        for pattern in _ALLERGIES
        for match in pattern.finditer(lowered)
        for w in match.groupdict().values()
        if w is not None and w not in STOPWORDS
    ]
    if named and not any(w in _ANY or _eaten(w) for w in named):
        return None
    medical = named or re.search(
        r"\b(?:al+erg|intoleran|co?eliac|diabet|stomach|tummy|gut\b)", lowered
    )
    if not (medical or _EATING.search(lowered) or any(_eaten(w) for w in _WORDS.findall(lowered))):
        return None
    return max(asked)


def strength(record: Record) -> int | None:
    """How surely ``record`` states a dietary constraint in the user's own words (see the
    module docstring): 0 an allergy, intolerance, reaction or condition, 1 a diet, 2 a food
    refused or disliked; None when it states none. Only a user statement or an imported user
    turn; the strongest sentence of its content or evidence counts."""
    if not conversation.in_the_users_words(record):
        return None
    found = [
        level
        for text in (record.content, record.evidence or "")
        for sentence in _SENTENCE.findall(text.replace("\u2019", "'").casefold())
        if (level := _sentence_strength(sentence)) is not None
    ]
    return min(found, default=None)


def ends_a_diet(record: Record) -> bool:
    """Whether ``record`` says, in the user's own words, that the user's diet on meat and fish
    ended ("I've started eating chicken", "I eat fish again", "I'm not vegetarian anymore",
    read as core.judge.contradiction reads them): what a question about the diet must hear
    ("Am I still pescatarian?")."""
    return conversation.in_the_users_words(record) and any(
        contradiction.ends_a_diet(text) for text in (record.content, record.evidence or "")
    )


def own_meat_diet(record: Record) -> bool:
    """Whether ``record`` states, in the user's own words, the diet the user keeps on meat and
    fish ("I'm pescatarian", "I went fully vegetarian", "The user is vegan"): one such diet
    holds at a time, so the one stated last replaces those before it. Only the user's, said
    of the user: "Rohan is vegan" is his, and "I think my daughter went vegan" hers."""
    return any(_meat_diets(record))


def replaced_diets(ordered: Sequence[Candidate], records: Mapping[str, Record]) -> list[Candidate]:
    """The candidates stating only a diet of the user's on meat (``own_meat_diet``) that one
    stated later among ``ordered`` replaces: "I'm pescatarian." once "I went fully vegetarian."
    is said. One stating more ("I'm pescatarian and allergic to sesame.", "I'm vegetarian and
    my son Leo is vegan.") stays."""
    diets = [c for c in ordered if own_meat_diet(records[c.record_id])]
    if len(diets) < 2:
        return []
    latest = max(diets, key=lambda c: records[c.record_id].statement_time)
    return [c for c in diets if c is not latest and _only_own_meat_diet(records[c.record_id])]


def _meat_diets(record: Record) -> list[bool]:
    """For each diet on meat ``record`` states as held, in the user's own words: whether it
    is said of the user."""
    if not conversation.in_the_users_words(record):
        return []
    return [
        bool(
            _OF_THE_USER.search(_clause_before(sentence, match.start()))
            or _THE_USER_IS.match(match.group(0))
        )
        for text in (record.content, record.evidence or "")
        for sentence in _SENTENCE.findall(text.replace("\u2019", "'").casefold())
        for match in _DIET.finditer(sentence)
        if _MEAT_DIETS.search(match.group(0)) and _held(sentence, match)
    ]


def _only_own_meat_diet(record: Record) -> bool:
    """Whether every constraint ``record`` states is the user's own diet on meat."""
    if strength(record) != 1 or not all(_meat_diets(record)):
        return False
    return not any(
        _refused(sentence)
        or any(not _MEAT_DIETS.search(m.group(0)) for m in _DIET.finditer(sentence))
        or _DIET_MEAL.search(sentence)
        for text in (record.content, record.evidence or "")
        for sentence in _SENTENCE.findall(text.replace("\u2019", "'").casefold())
    )


def is_constraint(record: Record) -> bool:
    """Whether ``record`` states a dietary constraint (``strength``)."""
    return strength(record) is not None


def _sentence_strength(sentence: str) -> int | None:
    """The strength of the surest constraint ``sentence`` states (``strength``), or None."""
    if _medical(sentence):
        return 0
    if _kept(sentence, _DIET) or _kept(sentence, _DIET_MEAL):
        return 1
    return 2 if _refused(sentence) else None


def _clause_before(sentence: str, at: int) -> str:
    """The words of ``sentence``'s clause before position ``at``: who the constraint is of."""
    starts = [m.end() for m in _CLAUSE_START.finditer(sentence, 0, at)]
    return sentence[max(starts, default=0) : at]


def _held(sentence: str, match: re.Match[str]) -> bool:
    """Whether the constraint ``match`` says is held now by the user or the household: not a
    pet's, a friend's or a colleague's, not denied, past or only thought of before it (but
    kept on: "I want to stay vegan"), not lifted after it in its clause."""
    who = _clause_before(sentence, match.start())
    rest = _CLAUSE_START.split(sentence[match.end() :], maxsplit=1)[0]
    others = list(_NOT_HOUSEHOLD.finditer(who))  # "Friends say I'm vegetarian" is the user's
    theirs = others and not _FIRST_PERSON.search(who[others[-1].end() :] + match.group(0)[:4])
    kept_on = _KEPT_ON.match(match.group(0))  # "I want to stay vegan"
    return not (
        theirs
        or _DENIED.search(who)
        or (_HEDGED.search(who) and not kept_on)
        or _LIFTED.search(re.sub(r"^\s*again\b", "", rest))  # "I'm vegetarian again"
    )


def _kept(sentence: str, pattern: re.Pattern[str]) -> bool:
    return any(_held(sentence, match) for match in pattern.finditer(sentence))


def _medical(sentence: str) -> bool:
    """An allergy or intolerance to a food, coeliac disease, a reaction to a food, or (said of
    the user's own body, not of a test that came back fine) a condition that governs eating."""
    if _kept(sentence, _COELIAC) or _kept(sentence, _DIGESTION):
        return True
    for match in _REACTION.finditer(sentence):
        before = _clause_before(sentence, match.start()).split()
        source = _FROM.match(sentence, match.end())  # "I get migraines from red wine"
        named = [*before, *(source.group(1).split() if source else [])]
        if any(_eaten(w) for w in named) and _held(sentence, match):
            return True
    own = _FIRST_PERSON.search(sentence) and not _HEALTHY.search(sentence)
    if own and _kept(sentence, _CONDITION):
        return True
    return any(
        any(_eaten(w) for w in match.groupdict().values() if w is not None)
        and _held(sentence, match)
        for pattern in _ALLERGIES
        for match in pattern.finditer(sentence)
    )


def _refused(sentence: str) -> bool:
    """A food or drink refused, cut down or disliked by the user or the household: "no"
    before it and "for me" / "in the house" / "please" after, a refusal before it (at most
    four words on, or a refusal of eating or drinking at all), a dislike of it ("hate
    mushrooms", not "hate the smell of fish"), or it "is a problem"."""
    for match in _NONE_FOR.finditer(sentence):
        said = f"{match.group('words') or ''} {match.group('asked') or ''}".split()
        whose = sentence[: match.start()]  # "My cat is lactose intolerant, no milk for her."
        if not _NOT_HOUSEHOLD.search(whose) and (not said or any(_eaten(w) for w in said)):
            return True
    for match in _PROBLEM.finditer(sentence):
        if _eaten(match.group("head")) and _held(sentence, match):
            return True
    for match in _REFUSED.finditer(sentence):
        if _NOT_HOUSEHOLD.search(_clause_before(sentence, match.start())):
            continue
        words = [w for w in match.group("rest").split() if w not in ("a", "an", "the", "any")]
        if not words:
            if re.search(r"(?:eat|drink)(?:ing)?$", match.group(0).strip()):
                return True  # "I don't drink."
            continue
        if words[0] in _NOT_FOOD_AFTER:
            continue
        disliked = not re.search(r"\b(?:eat|drink|have|touch)", match.group(0))
        if any(_eaten(w) for w in (words[:1] if disliked else words[:4])):
            return True
    return False


def _eaten(word: str) -> bool:
    word = word.strip("'\"")
    return word in _EATEN or _food(word)


@functools.lru_cache(maxsize=4096)
def _food(word: str) -> bool:
    """Whether one of ``word``'s first noun senses is a kind of food or drink by WordNet."""
    net = wordnet()
    if net is None or not word.isalpha():
        return False
    return net.noun_under(word.casefold(), ("food", "beverage"), senses=_FOOD_SENSES)

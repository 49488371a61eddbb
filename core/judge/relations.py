"""Which quote word covers which statement word: lemmas, a few general relations, spellings.

The clause reading (core.judge.clauses) asks, for each content word of a statement, whether a
word of the quote says it. The same lemma does; so does a word of the same synonym group, a
word that entails it (a quote's "wife" gives a statement's "spouse", never the reverse), a
phrasal verb's meaning ("passed away" gives "died"), or a derived form of the same word
("allergic"/"allergy", "teach"/"teacher", "fluent"/"fluently": a shared start of five letters
or more, all of the shorter word but its ending). Names never match by anything but their spelling.

The tables are general English relations (kinship, roles, everyday synonyms), not the words of
any evaluation set, and deliberately small: a missing relation costs recall (the statement
becomes an agent inference), a wrong one costs precision.
"""

from __future__ import annotations

import re

from agent_memory.core.judge.wordnet import WordNet, wordnet

# Words that say the same thing either way round (lemmas; a phrasal verb is "verb_particle").
_GROUPS = [
    "manager boss supervisor",
    "pick choose decide select opt",
    "call name",
    "hate dislike loathe detest",
    "medication med meds medicine",
    "allergy allergic",
    "purchase buy",
    "wed marry married",
    "move relocate",
    "bike cycle",
    "die pass_away",
    "exercise work_out",
    "quit give_up",
    "mother mum mom",
    "father dad",
    "grandmother grandma gran",
    "grandfather grandpa granddad",
    "child kid",
    "grandchild grandkid",
    "favorite favourite",
    "color colour",
    "reply response answer",
    "poorly badly",
    "start begin",
    "travel trip",
    "job occupation",
    "fluent fluently",
    "often frequently",
    "home house",
    "run jog",
    "film movie",
    "phone cell mobile",
    "rent lease",
    "practice practise",
    "apartment flat",
]
# A statement word (key) that these quote words entail, but not the other way round.
_ENTAILED_BY = {
    "manager": "report",
    "boss": "report",
    "spouse": "wife husband",
    "partner": "wife husband spouse girlfriend boyfriend fiance fiancee",
    "married": "wife husband spouse",
    "like": "love adore enjoy fan",
    "enjoy": "love adore",
    "dislike": "hate",
    "vehicle": "car truck van motorbike motorcycle",
    "child": "son daughter",
    "parent": "mother father mum mom dad",
    "sibling": "brother sister",
    "pet": "dog cat puppy kitten",
    "dog": "puppy",
    "cat": "kitten",
    "work": "job",
    "travel": "fly drive",
    "exercise": "train run swim lift",
    "commute": "take_train take_bus drive",
    "diet": "vegan vegetarian keto paleo",
    "sleep": "nap",
    "wedding": "anniversary",
    # Having moved somewhere is living there (a "to" place; "from" and plans are vetoed).
    "live": "move relocate emigrate",
}


def _index() -> tuple[dict[str, set[int]], dict[str, set[str]]]:
    groups: dict[str, set[int]] = {}
    for number, group in enumerate(_GROUPS):
        for word in group.split():
            groups.setdefault(word, set()).add(number)
    entailed = {key: set(words.split()) for key, words in _ENTAILED_BY.items()}
    return groups, entailed


_SYNONYM, _HYPONYM = _index()
_MIN_SHARED = 5


def same_word(want: str, have: str, *, kinds: bool = True) -> bool:
    """Does the quote's lemma ``have`` say the statement's lemma ``want``? Both lowercase.
    With ``kinds`` False (a statement that denies), only as the same thing: a synonym, not
    what entails it one way ("I don't have a sister" says nothing of siblings; "I have no
    cats" nothing of pets)."""
    if want == have:
        return True
    if _SYNONYM.get(want, set()) & _SYNONYM.get(have, set()):
        return True
    if have in _HYPONYM.get(want, ()) and (kinds or have in _DENIED_ALIKE.get(want, ())):
        return True
    return derived(want, have)


# Of the words that entail a statement word one way, those that also deny it the same way: "I'm
# not a fan of horror movies" is how one says "I don't like horror movies" (not so "I don't
# love it").
_DENIED_ALIKE = {"like": {"fan"}}


def derived(want: str, have: str) -> bool:
    """One word derived from the other: they share a start of five letters or more that is
    all of the shorter word but its last two letters, and WordNet derives one from the other
    ("allergy"/"allergic", "teach"/"teacher", "photos"/"photography"); a word WordNet does
    not know, when the longer is the shorter with a derivational ending (``_suffixed``:
    "YouTube"/"YouTubers", "Instagram"/"Instagrammer"). Never from a person's name
    ("Olive"/"Oliver"); not two words derived alike from a third ("employee"/"employer"), nor
    "police"/"policy", "Victoria"/"Victor", "Priya"/"Priyanka". Between words WordNet knows,
    only its own links count, and a demonym's ending after a place ("Boston"/"Bostonian":
    ``_DEMONYM``): an ending alone also joins "hospital"/"hospitality",
    "journal"/"journalist", "capital"/"capitalism" (a review's), so "loyal"/"loyalty",
    "gymnast"/"gymnastics" go uncovered: a missing link costs recall, a wrong one precision.
    Without WordNet, none is."""
    shorter = min(len(want), len(have))
    need = max(_MIN_SHARED, shorter - 2)
    if shorter < _MIN_SHARED or want[:need] != have[:need]:
        return False
    net = wordnet()
    if net is None:
        return False
    if _a_persons_name(net, want) or _a_persons_name(net, have):
        return False  # "Oliver" is no "olive"-er, "Victoria" not Victorian
    short, long = sorted((want, have), key=len)
    known = net.knows(want) and net.knows(have)
    if known and not _a_place(net, short):
        return net.derives(want, have)
    if net.derives(want, have):
        return True
    return len(long) > len(short) and _suffixed(short, long, _DEMONYM if known else _ENDING)


def _suffixed(short: str, long: str, ending: re.Pattern[str]) -> bool:
    """``long`` is ``short`` (less a final "e", "y" or "a") with an ``ending``, its last
    letter doubled or not ("Instagram"/"Instagrammer", "Florida"/"Floridian")."""
    for base in {short, short[:-1] if short[-1] in "eya" else short}:
        if len(base) >= _MIN_SHARED - 1 and long.startswith(base):
            added = long[len(base) :]
            doubled = added[1:] if added[:1] == base[-1] else None
            ends = [end for end in (added, doubled) if end and (base == short or len(end) > 1)]
            if any(ending.fullmatch(end) for end in ends):
                return True
    return False


def _a_place(net: WordNet, word: str) -> bool:
    """The word's first noun sense is one place ("Boston", "Florida")."""
    first = net.senses(word, "n")[:1]
    return any(net.instance(o) and net.under(o, "location") for o in first)


def _a_persons_name(net: WordNet, word: str) -> bool:
    """The word's first noun sense is one person and it is no verb ("Oliver", "Victoria"; not
    "teach", though one Teach was a pirate)."""
    first = net.senses(word, "n")[:1]
    person = any(net.instance(o) and net.under(o, "person") for o in first)
    return person and not net.senses(word, "v")


# What names someone of a place WordNet knows ("Boston"/"Bostonian", "Florida"/"Floridian";
# not "-er": "Hamburg"/"hamburger").
_DEMONYM = re.compile(r"ians?|ans?|ese|ites?")
# What a derived word adds to the word it derives from: an agent or follower, a state, a
# doctrine, a quality, an act, a verb's forms ("-er", "-ian", "-ist", "-ism", "-ity", "-ion").
_ENDING = re.compile(
    r"ers?|ors?|rs?|ing|ed|d|ians?|ns?|ists?|istic|isms?|ics?|ical|ac|ity|ty|ness|ments?|"
    r"(?:at)?ions?|ance|ence|al|ous|ive|en|ly|i[sz]e|ship|hood"
)

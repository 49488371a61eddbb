"""Does a record name what the question asks about? The gate's "subject" signal.

In a user's store of a few dozen records, the answer to an everyday question is often worded
far from it for the packaged MiniLM: "What's my dog's name?" against "Rusty, our kelpie, comes
on every trip." scores a cosine of 0.1-0.2, as low as the best record of a question that has no
answer, and BM25 over one shared word cannot clear a floor set for a store of any size. What
the answer does have is the question's subject: every word the question asks about, other than
the words that only frame the question ("name", "kind", "now"), is in the record's text (its
content or retrieval context) as the same word (compared as stems) or as a common noun that
is a kind of the word's first sense by WordNet ("kelpie" is a dog; "Rania" beside "wife"
names the wife), or a short or family form of it ("Dr. Nguyen" names the doctor, "gran" the
grandmother: ``_SAID_FOR``). Where the user works, lives or studies is named by what says it
in the first person without the word ("my new job", "I'm PM at Brandt"; "our house", "our
place", "we moved into"; "my MSc at LSE", "I'm a PhD student": ``_OWN_WORK``, ``_OWN_HOME``,
``_OWN_STUDY``), and the car the user drives by its make or model ("we bought an Ioniq 5.
Home charger install tips?", "winter tires for my RAV4": ``_OWN_VEHICLE``). An unanswerable
question rarely has every one of its subject words in one record ("Which football team do I
support?" needs "football", "team" and "support").

Limits: the retrieval context counts, so a sentence of a turn names what its neighbours in
the turn name ("Who is my doctor?" finds "My wife Rania does most of the cooking." extracted
from a turn about the doctor's advice); a record naming the subject need not hold the asked
fact ("What's my mother's name?" beside "my mother lives with us"); words are compared by a
light stemmer ("lived" is not "live"); a word the answer never says is not named, past the
user's own work, home, studies and car above ("What boat do we have?" / "we bought a
Hallberg-Rassy 29": nothing says a Hallberg-Rassy is a boat), and a car only by the makes and
models ``_OWN_VEHICLE`` lists; a common noun's first WordNet sense may still be another
thing ("mum" is first a chrysanthemum, so "Do I have any flowers?" finds "My mum's name is
Carol.").

``own_life(subject, text)`` says which of the user's own work, home, studies or car a text
names for a question about it, and ``says_life_changed(part, text)`` whether it says that
part changed. ``asked(words)`` reads the subject off the query's content words
(``core.search.lexical.query_tokens``); ``names(subject, text)`` says whether a text names
every part of it. The gate (core.search.gate.gate) lets a candidate naming the subject pass
at a cosine floor below the corroborated one in a small store only (``gate.subject_drop``,
log-interpolated to nothing at ``gate.reference_records``): in a large store every subject
word is in some record.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search.lexical import STOPWORDS

if TYPE_CHECKING:
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate

_WORD = re.compile(r"\w+", re.UNICODE)
# How much of a record is read for its subject (content first, then retrieval context), and
# how many of its distinct words are looked up in WordNet at most (a word found by its stem
# needs no lookup): a store of 16 KB records would otherwise spend 0.1-2 s a search here.
MAX_TEXT_CHARS = 2000
MAX_KIND_WORDS = 120
# How far below the word asked about a record's noun may sit: a corgi is a dog one link
# down, a kelpie three (sheepdog, working dog); a bat is an animal five links down.
KIND_DEPTH = 3

# Words that frame a question without being what it asks about: the answer need not hold
# them ("What's my dog's name?" is answered by "Rusty, our kelpie"; "Where do I live now?" by a
# statement without "now"). Question words and auxiliaries are lexical.STOPWORDS already.
FRAME = frozenset(
    """
    name names named called call kind kinds sort type tell remind know remember mention
    mentioned say said whats what's now currently still today these days right rn anymore
    again lately recently usually normally regularly often much many old long living please
    thanks thank recall us whose
    """.split()
)


@functools.lru_cache(maxsize=4096)
def asked(words: tuple[str, ...]) -> tuple[str, ...]:
    """The subject of a query given its content ``words`` (casefolded, stopwords out, as
    ``query_tokens`` gives them): those that are not question frame, numbers or one letter."""
    return tuple(
        w for w in words if w not in FRAME and w not in STOPWORDS and len(w) > 1 and w.isalpha()
    )


def mark(
    candidates: Sequence[Candidate],
    records: Mapping[str, Record],
    words: Sequence[str],
    *,
    floor: float,
) -> tuple[str, ...]:
    """Set ``subject`` on the dense candidates at ``floor`` or above whose text (content and
    retrieval context) names what the query's ``words`` ask about; returns the subject
    (empty: nothing to name). Every such candidate is checked, also one that passes on
    another signal, so that a replay under stricter floors knows which name it."""
    asked_about = asked(tuple(words))
    if not asked_about:
        return asked_about
    for candidate in candidates:
        dense = candidate.matches.get("dense")
        if dense is None or dense["score"] < floor:
            continue
        record = records[candidate.record_id]
        text = f"{record.content}\n{record.context}" if record.context else record.content
        candidate.subject = _named(asked_about, _reading(record.id, text[:MAX_TEXT_CHARS]))
    return asked_about


def logged(subject: Sequence[str], candidates: Sequence[Candidate]) -> dict[str, list[str]]:
    """What the search log keeps of the signal: the words asked about, and the candidates
    found to name them (core.search.ranking.logged_candidates reads it back)."""
    return {
        "words": list(subject),
        "named_by": [c.record_id for c in candidates if c.subject],
    }


def names(subject: Sequence[str], text: str) -> bool:
    """Whether ``text`` names every word of ``subject``: the same stem, or a common noun of
    the text that is a kind of the word's first noun sense by WordNet (``_kind_named``).
    False for no subject."""
    return _named(subject, _read(text))


class _Reading(NamedTuple):
    """What the check needs of a text: its words' stems, and its nouns (``_nouns``)."""

    stems: frozenset[str]
    common: tuple[str, ...]
    named: tuple[str, ...]


# Short and family forms of words a question asks about, as the word they stand for ("gran",
# "bday", "uni"; "mum" and "dad" are the stemmer's already, core.judge.stemming). A doctor's
# title names the doctor only before a name (``_DOCTOR``: "Dr. Nguyen", not "12 Oak Dr.").
_SAID_FOR = {
    "gp": "doctor",
    "mam": "mother",
    "mama": "mother",
    "papa": "father",
    "bro": "brother",
    "sis": "sister",
    "hubby": "husband",
    "bf": "boyfriend",
    "gf": "girlfriend",
    "grandma": "grandmother",
    "granny": "grandmother",
    "nana": "grandmother",
    "gran": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "granddad": "grandfather",
    "uni": "university",
    "prof": "professor",
    "vet": "veterinarian",
    "bday": "birthday",
    "appt": "appointment",
    "msc": "master",
    "masters": "master",
}
_DOCTOR = re.compile(r"\bDr\.?\s+[A-Z]")
# Where the user works or lives, said without the word: the answers of the commonest everyday
# questions, which the packaged model scores under every floor ("Where do I work?" / "The
# user is a senior tax manager at Beaumont Clarke LLP.": 0.17; "Where do we live?" / "we
# finally moved, got the keys to our house in Bromley": 0.24). Only the user's own, in the
# first person, and only in words that say nothing else: "my new job", "I work at", a role
# at a named place ("I'm PM at Brandt"); "our house", "our place", "we moved into", "we bought
# a place in" (``_OWN_HOME``'s own comment says which places and moves). Not the ambiguous
# words alone ("company", "office", "shift", "flat", "moved", "rent": "we had company over",
# "a flat white", "the host moved our check-in"), nor anyone else's job or home ("my sister
# got promoted", "my parents' house"), nor a place one is at or with ("I'm at dinner with
# Sarah", "I'm a member at the golf club").
_I = r"\b(?:i|we|the user)(?:'ve| have| had)?\s+"
_OWN_WORK = re.compile(
    rf"{_I}(?:\w+\s+)?(?:work|worked|working)\s+(?:at|for|as)\b"
    r"|\b(?:my|our|the user's)\s+(?:new\s+|old\s+|current\s+)?"
    r"(?:job|employer|colleagues?|coworkers?|co-workers?)\b"
    # "I just got a new job", and "Started a new job ..." without its "I"
    rf"|(?:{_I}|(?:^|[.!?]\s+))(?:just\s+|finally\s+)?"
    r"(?:got|started|accepted|landed|took|start|quit|left)\s+(?:a\s+|the\s+|my\s+)?(?:new\s+)?"
    r"(?:job|position)\b"
    rf"|{_I}(?:just\s+)?(?:resigned|retired|been promoted|got promoted)\b"
    r"|\b(?:i'm|i am|i was|i work as|i worked as|the user is|the user was)\s+(?:an?\s+)?"
    r"(?P<role>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+(?:at|for)\s+(?-i:[A-Z])",
    re.IGNORECASE | re.MULTILINE,
)
# The words a question asks where the user works by ("Which company do I work for?", "Who is my
# employer?", "What's my job?").
_ASKED_AS_WORK = "work job employer company firm profession occupation career".split()
# What a role before "at" / "for" is not: where one is, what one does there, or who one is
# there ("I'm at dinner", "I'm in London for Easter", "I'm a member at the golf club").
_NO_ROLE = frozenset(
    """
    at in on with for off out away back home here there still just also now currently always
    member volunteer patient student guest customer regular fan friend friends visitor
    going staying waiting heading sure sorry happy glad late early free busy
    """.split()
)
# "our place" is home, but not a place one is at, goes to or hosts at ("at my place", "back to
# my place", "my place or yours"), nor a turn, seat or standing ("in my place", "my place at
# uni", "not my place to say"): a review of 38 chatty stores found each answering "Where do I
# live?". A purchase is a home only as somewhere to live ("we bought a place in Raglan", not
# "a place in the final" nor "a house to rent out"); a move only with a home word ("we're
# moving to Leeds, the house is ...", "moving house", "moving in with"), not "moving to Slack".
_PLACE_AFTER = (
    r"(?<!\bin\s)(?<!\btake\s)(?<!\btook\s)(?<!\bat\s)(?<!\bfrom\s)(?<!\bknow\s)(?<!\bnot\s)"
    r"(?<!\bback\sto\s)(?<!\bover\sto\s)(?<!\bround\sto\s)(?<!\bcome\sto\s)"
)
_HOME_WORD = r"(?=[^.!?\n]*\b(?:house|flat|apartment|home|rent|mortgage|keys|lease|for good)\b)"
_NOT_LET = r"(?![^.!?\n]*\b(?:rent|rental|holidays?|investment|let|timeshare|airbnb)\b)"
_NOT_LET_OUT = r"(?![^.!?\n]*\b(?:rented out|let out|rental|holidays?|airbnb|timeshare)\b)"
_OWN_HOME = re.compile(
    r"\b(?:my|our|the user's)\s+(?:new\s+)?(?:house|flat|apartment|home|bungalow|townhouse)\b"
    r"(?!\s+(?:made|red|white|alone))"
    rf"|{_PLACE_AFTER}\b(?:my|our)\s+(?:new\s+)?place\b"
    rf"(?!\s+(?:of|in\s+(?:the|a|line)|on|at|to|or|for)\b){_NOT_LET_OUT}"
    rf"|{_I}(?:just\s+|finally\s+)?moved\s+(?:in|into|to|out|house|back|here|there|from)\b"
    rf"|{_I}(?:just\s+|finally\s+)?bought\s+(?:a|our|my)\s+(?:first\s+)?(?:house|flat|place|home)"
    rf"\s+(?:in|on|near|by)\s+(?!the\b){_NOT_LET}"
    r"|\b(?:i'm|i am|we're|we are)\s+(?:finally\s+)?moving\s+(?:house|(?:back\s+)?home|in\s+with|"
    r"back\s+in\s+with|out(?!\s+of\b)|out\s+of\s+(?:my|our|the)\s+(?:\w+'?s?\s+)?"
    r"(?:flat|house|apartment|place|home)\b)"
    rf"|\b(?:i'm|i am|we're|we are)\s+(?:finally\s+)?moving\s+(?:back\s+)?(?:to|into)\b"
    rf"{_HOME_WORD}",
    re.IGNORECASE,
)


# What the user studies or studied, said in the first person: "I'm a PhD student", "my MSc at
# LSE", "I did my master in Montpellier", "I study law"; not "my son's degree", "I'm tutoring
# a student", "i studied the menu", "studying for my driving test", "my ma called" (a review
# found each of these answering "What did I study at university?").
_OWN_STUDY = re.compile(
    r"\b(?:i'm|i am|i was|the user is|the user was)\s+(?:an?\s+)?(?:(?:phd|mature|part-time|"
    r"full-time|law|medical|nursing|grad|graduate|undergraduate|postgrad|postgraduate|masters?|"
    r"university|uni|college|exchange|\w+-year)\s+){0,2}student\b"
    r"|\b(?:my|the user's)\s+(?:(?:first|second|third|final|last)\s+year\s+of\s+(?:my\s+)?)?"
    r"(?:msc|mba|bsc|phd|master'?s?|bachelor'?s?|degree|doctorate|thesis|dissertation|"
    r"(?-i:MA|BA))\b"
    r"|\b(?:i|the user)(?:'ve| have)?\s+(?:\w+\s+)?(?:study|studied|studying)\s+"
    r"(?!(?:the|a|an|for|up|hard|it|this|that|all|late|with)\b)\w",
    re.IGNORECASE,
)
_ASKED_AS_STUDY = "study degree master phd university course major".split()


# The user's own car, said by its make or model alone ("What car do we drive?" / "we sold the
# CR-V and bought an Ioniq 5. Home charger install tips?": nothing in the words says an Ioniq
# is a car, and the packaged model scores them 0.15 apart). A make or model is one of the
# commonest of the US, UK, European, Australian and Asian markets: those that name only a car
# (``_CARS_ONLY``) and those that also name people, words or their makers' other goods
# (``_CARS_TOO``), which count only beside what says a vehicle (``_VEHICLE``: its engine, tyres,
# fuel, charging, mileage, towing). A text says the user's own car when the user buys one
# (or sells one and buys another: "sold the ranger, got a hilux") and that sentence or the
# next says a vehicle ("Picked up a Skoda Enyaq on Saturday. Garda trip is now electric."),
# or the car is one of ``_CARS_ONLY``; drives or sells one, not hired or borrowed, in a
# sentence saying a vehicle; has one ("my RAV4", "our Passat") in such a sentence, or one of
# ``_CARS_ONLY`` in any; or gives a year, a make or model and a mileage ("2009 civic 190k
# miles"). Never in a sentence naming a maker's other goods (``_OTHER_GOODS``: a mower, a
# battery, a motorbike), nor anyone else's ("my sister drives a Tesla", "my Nan's old Corolla
# is diesel"), nor an order or a question ("I ordered a Model Y", "Buy a Polestar 2 or
# wait?"). Two reviews' 99 chatty stores found wider first versions answering 59 questions
# that should have stayed empty (a hybrid mattress, a game engine, a daughter named Mercedes);
# this one answers none the old code did not (benchmarks/README.md, "Session 33"). A plain "my
# car" names "car" by its stem already.
_VEHICLE = (
    r"\b(?:(?<!game\s)(?<!physics\s)(?<!search\s)(?<!graphics\s)(?<!rendering\s)engine|gearbox|"
    r"transmission|tyres?|tires?|mileage|\d*mpg|diesel|petrol|gasoline|hybrid|ev|evs|"
    r"home\s+charger|charging\s+(?:stops?|stations?|points?)|"
    r"(?:now|went|go|going|gone|fully)\s+electric|oil\s+change|towing|tow\s*bar|"
    r"dealer(?:ship)?|rego|horsepower|4x4|4wd|awd|test\s+drive)\b"
)
# Makes and models that name nothing but a car, and those that also name people, places,
# words or the makers' other goods ("Mercedes" turns five, a Honda mower, a Mitsubishi split
# system, a Tesla battery, a Suzuki motorbike): these only beside what says a vehicle. Models
# that are common words or names ("Focus", "Swift", "Golf", "Ranger", "Rogue", "Jazz", "Leaf")
# are left out.
_CARS_ONLY = (
    r"toyota hyundai mazda nissan subaru volkswagen vw skoda audi renault citroen vauxhall "
    r"opel chevrolet chevy dacia isuzu cupra polestar prius hilux rav-?4 camry corolla yaris "
    r"landcruiser cr-?v hr-?v tiguan qashqai enyaq ioniq(?:\s+\d)? sportage kodiaq x-trail "
    r"navara crosstrek silverado 4runner d-?max bt-?50 f-?[1-4]50 cx-?\d+ mx-?5 octavia passat"
).split()
_CARS_TOO = (
    r"honda tesla kia mercedes volvo peugeot fiat mitsubishi suzuki bmw lexus holden porsche "
    r"byd civic niro picanto impreza fabia micra megane evoque altima elantra i30 vitara "
    r"outlander astra corsa kuga land\s+rover range\s+rover"
).split()
# What else a maker of cars sells, or a car's words also mean, in the same sentence.
_OTHER_GOODS = re.compile(
    r"\b(?:(?:lawn\s*)?mower|blower|snipper|trimmer|generator|powerwall|battery|solar|outboard|"
    r"(?:motor)?bikes?|motorcycles?|scooters?|quad|split\s+system|air\s*con|heat\s+pump|"
    r"piano|keyboard|watch|jeans|pepper|mill|grinder|caravan|boat|pump|clubs?|shirt|shoes|"
    r"trainers)\b",
    re.IGNORECASE,
)
_ONE_OF = r"(?:{})"
# A make or model, maybe with the model's word after it ("Skoda Enyaq", "Ioniq 5"), not
# someone's ("my Nan's").
_NAMED = r"(?![\w-])(?!'s\b)(?:\s+[\w-]+)??(?![\w-])(?!'s\b)"
_KNOWN = _ONE_OF.format("|".join(_CARS_ONLY)) + _NAMED
_CAR = _ONE_OF.format("|".join([*_CARS_ONLY, *_CARS_TOO])) + _NAMED
_SENTENCE = r"[^.!?\n]*?"
_NOT_HIRED = r"(?![^.!?\n]*\b(?:rental|rented|hired?|borrowed|loan|courtesy|test\s+drive)\b)"
# The user as the one who does it: "I", "we", or nobody at the start of a sentence ("Picked up
# a Skoda ..."), maybe after selling another ("sold the ranger, got a hilux").
_THE_USERS = (
    r"(?:(?:^|[.!?]\s+)(?:(?:and|also|so|finally|just)\s+)?|\b(?:i|we)(?:'ve|\s+have)?\s+"
    r"(?:just\s+|finally\s+)?)(?:sold\s+(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?(?:,\s*|\s+and\s+))?"
)
# Bought, not asked about or ordered ("Buy a Polestar 2 or wait?", "I ordered a Model Y but
# cancelled it"); "we buy" as some write "we bought".
_BUYS = r"(?:bought|(?<=i\s)buy|(?<=we\s)buy|got|picked\s+up|traded\s+in|leased)\s+"
_YEAR = r"(?:new\s+|used\s+|(?:19|20)\d\d\s+)?"
_OWN_VEHICLE = re.compile(
    rf"{_THE_USERS}{_BUYS}(?:a|an|the|my|our)\s+{_YEAR}{_CAR}"
    rf"{_SENTENCE}(?:{_VEHICLE}|[.!?]\s+{_SENTENCE}{_VEHICLE})"
    rf"|{_THE_USERS}{_BUYS}(?:(?:a|an|the|my|our)\s+)?{_YEAR}{_KNOWN}"
    rf"|{_THE_USERS}(?:sold|drive|drove)\s+{_NOT_HIRED}(?:a|an|the|my|our)\s+{_YEAR}{_CAR}"
    rf"{_SENTENCE}{_VEHICLE}"
    rf"|\b(?:my|our)\s+(?:new\s+|old\s+)?{_CAR}{_SENTENCE}{_VEHICLE}"
    rf"|{_VEHICLE}{_SENTENCE}\b(?:my|our)\s+(?:new\s+|old\s+)?{_CAR}"
    rf"|\b(?:my|our)\s+(?:new\s+|old\s+)?{_KNOWN}"
    rf"|\b(?:19|20)\d\d\s+{_CAR}(?:\s+[\w-]+){{0,2}},?\s+(?:with\s+)?\d[\d,.]*k?\s*(?:miles|km)\b",
    re.IGNORECASE | re.MULTILINE,
)


def _says_own_vehicle(text: str) -> bool:
    """Whether ``text`` says the user's own car (``_OWN_VEHICLE``) in sentences that name none
    of the makers' other goods (``_OTHER_GOODS``: "just bought a suzuki sv650, first proper
    bike")."""
    for match in _OWN_VEHICLE.finditer(text):
        start = max(text.rfind(end, 0, match.start() + 1) for end in ".!?\n") + 1
        stops = [i for end in ".!?\n" if (i := text.find(end, match.end())) >= 0]
        if not _OTHER_GOODS.search(text, start, min(stops, default=len(text))):
            return True
    return False


# The words a question asks about the user's car by ("What car do we drive?", "Which vehicle
# do I have?", "What's our motor?").
_ASKED_AS_VEHICLE = "car vehicle motor auto automobile truck ute van suv pickup drive".split()


def _says_own_work(text: str) -> bool:
    """Whether ``text`` says the user's own work (``_OWN_WORK``): a match, and for a role at a
    place, a role (``_NO_ROLE``)."""
    for match in _OWN_WORK.finditer(text):
        role = match.group("role")
        if role is None or not set(role.casefold().split()) & _NO_ROLE:
            return True
    return False


class _Part(NamedTuple):
    """One part of the user's own life: what says it in the first person, the words (as
    stems) a question asks about it by, which a text saying it names, and the words that say
    it changed (core.search.later, beside core.judge.change's markers)."""

    name: str
    says: Callable[[str], object]
    asked_by: frozenset[str]
    changed: re.Pattern[str]


def _stems_of(words: Sequence[str]) -> frozenset[str]:
    return frozenset(stem_word(w) for w in words)


_OWN_LIFE = (
    _Part(
        "work",
        _says_own_work,
        _stems_of(_ASKED_AS_WORK),
        re.compile(
            r"\b(?:started|starting|new\s+(?:job|role|position)|got\s+a\s+job|joined|quit|"
            r"left|resigned|retired|promoted|now)\b",
            re.I,
        ),
    ),
    _Part(
        "home",
        _OWN_HOME.search,
        _stems_of(["live"]),
        re.compile(r"\b(?:moved|moving|bought|new\s+(?:place|house|flat|home|apartment))\b", re.I),
    ),
    _Part(
        "study",
        _OWN_STUDY.search,
        _stems_of(_ASKED_AS_STUDY),
        re.compile(r"\b(?:started|starting|new|now|enrolled|transferred)\b", re.I),
    ),
    _Part(
        "vehicle",
        _says_own_vehicle,
        _stems_of(_ASKED_AS_VEHICLE),
        re.compile(r"\b(?:bought|sold|picked\s+up|traded|new|gone)\b", re.I),
    ),
)
_PARTS = {part.name: part for part in _OWN_LIFE}


def own_life(asked_about: Sequence[str], text: str) -> str | None:
    """Which part of the user's own life the question asks about that ``text`` says in the
    first person ("work", "home", "study" or "vehicle": ``_OWN_WORK``, ``_OWN_HOME``,
    ``_OWN_STUDY``, ``_OWN_VEHICLE``), or
    None. Two records saying the same part are about the same thing, however far apart their
    words: "Yard's in Mt Albert, next to our place" and "we bought a place in Raglan!" both
    answer "Where do we live?" (core.search.later ranks the later one first when it says the
    change)."""
    stems = {_stem(w) for w in asked_about}
    return next((p.name for p in _OWN_LIFE if stems & p.asked_by and p.says(text)), None)


def says_life_changed(part: str, text: str) -> bool:
    """Whether ``text`` says that ``part`` of the user's own life (``own_life``) changed, in
    that part's own words ("moved", "bought", "new job", "started" ...)."""
    return _PARTS[part].changed.search(text) is not None


def _read(text: str) -> _Reading:
    words = _WORD.findall(text)
    common, named = _nouns(words)
    folded = {w.casefold() for w in words} - STOPWORDS
    stems = {_stem(w) for w in folded} | {_stem(_SAID_FOR[w]) for w in folded & _SAID_FOR.keys()}
    if _DOCTOR.search(text):
        stems.add(_stem("doctor"))
    for part in _OWN_LIFE:
        if part.says(text):
            stems |= part.asked_by
    return _Reading(frozenset(stems), tuple(common), tuple(named))


# Readings of the records searches found lately, by record id and a hash of the text read
# (a record's context can be narrowed in place): a record is read again by every search that
# finds it, and tokenising it was most of the check's time. A reading of 2,000 characters
# holds a few hundred short strings: 1,024 of 2,000 characters of conversation took 17 MB.
_READINGS: OrderedDict[tuple[str, int], _Reading] = OrderedDict()
_READINGS_KEPT = 1024
_READINGS_LOCK = threading.Lock()


def _reading(record_id: str, text: str) -> _Reading:
    key = (record_id, hash(text))
    with _READINGS_LOCK:
        found = _READINGS.get(key)
        if found is not None:
            _READINGS.move_to_end(key)
            return found
    reading = _read(text)
    with _READINGS_LOCK:
        _READINGS[key] = reading
        if len(_READINGS) > _READINGS_KEPT:
            _READINGS.popitem(last=False)
    return reading


def _named(subject: Sequence[str], reading: _Reading) -> bool:
    if not subject:
        return False
    wanted = [_SAID_FOR.get(w, w) for w in subject]
    missing = [w for w in wanted if _stem(w) not in reading.stems]
    return all(_kind_named(w, reading.common, reading.named) for w in missing)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stem_word(word)


def _nouns(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """Those of a text's ``words`` that may be nouns, at most ``MAX_KIND_WORDS`` in all,
    first seen first, no stopword: (common ones, written in lower case somewhere in the
    text; names, only ever capitalised)."""
    seen: dict[str, bool] = {}  # word -> written in lower case somewhere
    for word in words:
        folded = word.casefold()
        if not word.isalpha() or folded in STOPWORDS:
            continue
        if folded not in seen and len(seen) == MAX_KIND_WORDS:
            break
        seen[folded] = seen.get(folded, False) or word.islower()
    return [w for w, low in seen.items() if low], [w for w, low in seen.items() if not low]


def _kind_named(want: str, common: Sequence[str], named: Sequence[str]) -> bool:
    """Whether a noun of a text (``_nouns``: its ``common`` nouns and the ``named``) is a
    kind of ``want``'s first noun sense, at most ``KIND_DEPTH`` links below it: "kelpie" of
    "dog". WordNet's senses run wide, so each side is read narrowly:
    - the word asked about in its first sense only ("pet" is an animal, not the "darling"
      that a "favourite" also is), and never one too general to say anything;
    - a common noun in its first sense, or its second too when it has no others ("kelpie" is
      first a water spirit; "date" has eight senses, one of them an escort, and so a
      friend), and never a word that is also a verb (a sentence's "works", "saw", "fly" are
      seldom the plant, the tool or the insect);
    - a name (a word only ever capitalised) only as an instance, as of a place ("Puebla" is
      a city), never of a person, and never as the thing its lower-case twin names (a
      "Robin" is no bird, an "Olive" no fruit, and a person named Mary is not the mother
      WordNet files under the name)."""
    net = wordnet()
    if net is None:  # the WordNet data is not installed: same stems only
        return False
    wanted = {
        sense
        for lemma in _noun_lemmas(want)
        if not net.too_general(lemma)
        for sense in net.senses(lemma, "n")[:1]
    }
    if not wanted:
        return False
    for word in common:
        if _verb(word):
            continue
        for lemma in _noun_lemmas(word):
            senses = net.senses(lemma, "n")
            for sense in senses[: 2 if len(senses) <= 2 else 1]:
                if wanted & net.kinds_above(sense, depth=KIND_DEPTH):
                    return True
    if any(net.under(sense, "person") for sense in wanted):
        return False
    for word in named:
        for lemma in _noun_lemmas(word):
            first = net.senses(lemma, "n")[:1]
            if (
                first
                and net.instance(first[0])
                and wanted & net.kinds_above(first[0], instances=True, depth=KIND_DEPTH)
            ):
                return True
    return False


@functools.lru_cache(maxsize=65536)
def _verb(word: str) -> bool:
    net = wordnet()
    return net is not None and bool(net.lemmas(word, "v"))


@functools.lru_cache(maxsize=65536)
def _noun_lemmas(word: str) -> tuple[str, ...]:
    net = wordnet()
    return () if net is None or not word.isalpha() else tuple(net.lemmas(word, "n"))

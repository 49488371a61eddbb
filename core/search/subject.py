"""Does a record name what the question asks about? The gate's "subject" signal.

In a user's store of a few dozen records, the answer to an everyday question is often worded far
from it for the packaged MiniLM: "What's my dog's name?" against "Rusty, our kelpie, comes on every
trip." scores a cosine of 0.1-0.2, as low as the best record of a question that has no answer, and
BM25 over one shared word cannot clear a floor set for a store of any size. What the answer does
have is the question's subject: every word the question asks about, other than the words that only
frame the question ("name", "kind", "now"), is in the record's text (its content or retrieval
context) as the same word (compared as stems) or as a common noun that is a kind of the word's
first sense by WordNet ("kelpie" is a dog; "Rania" beside "wife" names the wife), or a short or
family form of it ("Dr. Nguyen" names the doctor, "gran" the grandmother: ``_SAID_FOR``); a name
the user gives one of their people in a record the search reads ("my husband Chidi") names that
person in the others too ("Chidi is a branch manager at Zenith Bank" names the husband:
``kin_names``). Where the user works, lives or studies is named by what says it in the first person
without the word ("my new job", "I'm PM at Brandt"; "our house", "our place", "we moved into"; "my
MSc at LSE", "I'm a PhD student"), and the car the user drives by its make or model ("we bought an
Ioniq 5. Home charger install tips?", "winter tires for my RAV4"): core.search.life. An
unanswerable question rarely has every one of its subject words in one record ("Which football team
do I support?" needs "football", "team" and "support").

Limits: a name names a person only as the search's candidates say it (a record saying "my husband
Chidi" that is not among them links nothing), and one name for two of the user's people ("my boss
Anna", "my sister Anna") names neither; the retrieval context counts, so a sentence of a turn names
what its neighbours in the turn name ("Who is my doctor?" finds "My wife Rania does most of the
cooking." extracted from a turn about the doctor's advice); a record naming the subject need not
hold the asked fact ("What's my mother's name?" beside "my mother lives with us"); words are
compared by a light stemmer ("lived" is not "live"; an adjective and a noun derived from
each other and written alike are one: "allergic" names "allergies", core.judge.wordnet
.relatives); a word the answer never says is not named, past the user's own work, home,
studies and car above ("What boat do we have?" / "we bought a Hallberg-Rassy 29": nothing
says a Hallberg-Rassy is a boat), and a car only by the makes and
models core.search.life lists; a common noun's first WordNet sense may still be another thing
("mum" is first a chrysanthemum, so "Do I have any flowers?" finds "My mum's name is Carol.").

``asked(words)`` reads the subject off the query's content words
(``core.search.lexical.query_tokens``; "for a living" and "What does my wife do?" ask work,
``words_asked``; in a question about the user's work, the kind of workplace asked about is where
the user works: "Which hospital do I work at?" asks "work"; in a question about where one person
lives, their home: "Where do my parents live?" is answered by "my parents' place in Ipoh");
``names(subject, text)`` says whether a text names every part of it. The gate
(core.search.gate.gate) lets a candidate naming the subject pass at a cosine floor below the
corroborated one in a small store only (``gate.subject_drop``, log-interpolated to nothing at
``gate.reference_records``): in a large store every subject word is in some record.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.values import MONTHS_AND_WEEKDAYS
from agent_memory.core.judge.wordnet import relatives, wordnet
from agent_memory.core.search import life, roles
from agent_memory.core.search.lexical import STOPWORDS

if TYPE_CHECKING:
    from agent_memory.core.judge.wordnet import WordNet
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

# Words that frame a question, which its answer need not hold ("What's my dog's name?" / "Rusty,
# our kelpie"; "Where do I live now?"); question words are lexical.STOPWORDS already.
FRAME = frozenset(
    """name names named called call kind kinds sort type tell remind know remember mention
    mentioned say said whats what's now currently still today these days right rn anymore
    again lately recently usually normally regularly often much many old long living please
    thanks thank recall us whose""".split()
)


# What a question about work asks beside a work word, which the answer need not say: "What's
# my job title?", "What's my role at work?", "What position do I have at my company?".
_WORK_FRAME = frozenset("title titles role roles position positions".split())
_TITLE_QUALIFIERS = frozenset(
    "current official actual exact full new present formal proper previous senior junior "
    "temporary chief".split()
)
# How a question asks where one studies ("Which university do I go to?"): what the user's own
# studies at a named place name besides the study words (not any "university" with a "go":
# "my daughter goes to Durham University" is hers).
_ATTENDS = frozenset(stem_word(w) for w in ("go", "goes", "going", "attend", "attends"))
# The place the user's studies name, which one goes to: "a law student at Leicester", "my MSc at
# LSE" (not "I study karate at the leisure centre", "studying Spanish on Duolingo").
_AT_A_SCHOOL = re.compile(r"\b(?:at|from|with)\s+(?:the\s+)?(?-i:[A-Z])")


def words_asked(query: str, words: Sequence[str]) -> tuple[str, ...]:
    """``query``'s content ``words`` as ``asked`` reads them: "for a living" asks work, as
    does "What does my wife do?" (not "What do I do about ...")."""
    living = re.search(r"\bfor\s+a\s+living\b", query, re.IGNORECASE) is not None
    does = re.match(r"\W*what\s+do(?:es)?\s+(?!you\b)(?:[\w'-]+\s+){1,2}do\W*$", query, re.I)
    asks = tuple("work" if living and w == "living" else w for w in words)
    own = (life.OWN_NAME,) if life.asks_own_name(query) else ()  # "What's my name?"
    return (*asks, "work", *own) if does else (*asks, *own)


@functools.lru_cache(maxsize=4096)
def asked(words: tuple[str, ...]) -> tuple[str, ...]:
    """The subject of a query given its content ``words`` (casefolded, stopwords out, as
    ``query_tokens`` gives them): those that are not question frame, numbers or one letter.
    In a question asking one person's work ("What is my mother's job?", "What does my
    husband do for work?": work words beside one word naming a person), the work is asked as
    that person's occupation (``_occupation_of``), which a record names by saying, in its own
    words, what that person is ("The user's mother is a baker in Rennes", "My wife Rachel ...
    She's a speech-language pathologist": core.search.roles.occupation_holders) or where they
    work ("my husband Daniel works at Amazon"); not the user's own, nor another person's ("my
    wife's sister is a nurse" says nothing of the wife's work).
    In a question asking where one person lives ("Where does my sister live?": "live" beside
    one word naming a person), the home is asked as that person's (``_home_of``), which a
    record names by saying it ("my sister Ewa lives in Chicago": core.search.life
    .home_holders, the holder resolved to one person as an occupation's is). A kind of place
    asked beside "live" ("Which city does my sister live in?", "Which neighbourhood do I live
    in?": ``life.region``) is where the question asks, not a word the answer must say.
    Beside a work word, a title, role or position is the job asked (``_WORK_FRAME``), when
    the question asks nothing else but whose job it is.
    In a question asking nothing but where the user works and a kind of workplace ("Which
    hospital do I work at?"), the kind is asked as the "workplace", which a text saying the
    user's own work names ("I work nights in the ER at Harborview"), not one saying only
    "works" ("my wife works nights at the Royal Infirmary"). With any other word ("Which gym
    is near my work?", "Which team does my boss work in?") it stays."""
    subject = tuple(
        w for w in words if w not in FRAME and w not in STOPWORDS and len(w) > 1 and w.isalpha()
    )
    if not subject:  # "What's my name?": the user's own, said as such (core.search.life)
        return (life.OWN_NAME,) if life.OWN_NAME in words else ()
    work = life.BY_NAME["work"].asked_by
    if any(_stem(w) in work for w in subject) and set(subject) & _WORK_FRAME:
        # "What's my job title?" asks the job, when nothing else is asked but whose it is (not
        # "What's the title of my work presentation?")
        rest = tuple(w for w in subject if w not in _WORK_FRAME and w not in _TITLE_QUALIFIERS)
        others = [w for w in rest if _stem(w) not in work]
        if not others or (len(others) == 1 and _person(others[0])):
            subject = rest
    jobs = [w for w in subject if _stem(w) in work]
    people = [w for w in subject if w not in jobs]
    if jobs and len(people) == 1 and _person(people[0]):
        # "What is my mother's job?", "What does my husband do for work?": their occupation.
        return (people[0], _occupation_of(people[0]))
    homes = [w for w in subject if _stem(w) in life.BY_NAME["home"].asked_by]
    if homes:
        # "Which city does my sister live in?": the kind of place asked is where she lives.
        subject = tuple(w for w in subject if w in homes or not life.region(w))
    others = [w for w in subject if w not in homes]
    if homes and len(others) == 1 and _person(others[0]):
        # "Where does my mother live?": where that person lives.
        return (others[0], _home_of(others[0]))
    places = [w for w in subject if _stem(w) not in work and life.workplace(w)]
    if len(places) == 1 < len(subject) and all(w in places or _stem(w) in work for w in subject):
        return tuple("workplace" if w in places else w for w in subject)
    return subject


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
    known: dict[str, str] = {}
    if any(_person(w) for w in asked_about):  # a name can only name one of the user's people
        read = [records[c.record_id] for c in candidates if c.record_id in records]
        known = kin_names(text for r in read for text in (r.content, r.context or ""))
    for candidate in candidates:
        dense = candidate.matches.get("dense")
        if dense is None or dense["score"] < floor:
            continue
        record = records[candidate.record_id]
        content = _with_kin(record.content, known)  # its own words, not its neighbours'
        text = f"{content}\n{record.context}" if record.context else content
        reading = _reading(record.id, text[:MAX_TEXT_CHARS], len(content))
        candidate.subject = _named(asked_about, reading)
    return asked_about


# A person of the user's said with their first name ("Zoë": case is checked in code), the person
# word in lower case: "my wife Camila", "our son, Leo"; not a full name (group 3, a capital: "my
# son Leo Martinez": which of the two is said elsewhere?). Words that are no name though written
# as one: a title, a month, a day, a feast, a word of chat.
_KIN_NAME = re.compile(
    r"\b(?:my|our)\s+(?:[\w-]+\s+)?((?-i:[a-z][a-z-]*)),?\s+([^\W\d_]+)\b"
    r"(?=['\u2019]?\s*([^\W\d_])|)",
    re.IGNORECASE,
)
_NOT_NAMES = """dr mr mrs ms miss prof sir madam christmas easter halloween thanksgiving diwali
eid hanukkah ramadan lol omg haha im ive ill id thanks thank honestly ok okay yes no hi hey"""
_NO_NAMES = STOPWORDS | MONTHS_AND_WEEKDAYS | frozenset(_NOT_NAMES.split())


def kin_names(texts: Iterable[str]) -> dict[str, str]:
    """The first names ``texts`` give the user's people, each with the person word it is said
    beside ("my wife Camila": "Camila" -> "wife"), so that a record naming only "Camila"
    ("Camila is a pediatric dentist") names the wife too (``_with_kin``). A name said beside
    two words ("my boss Anna", "my sister Anna", "my coworker Sam" and "my cousin Sam"; "mum"
    and "mother" are one) or beside a word that is no person ("my dog Biscuit") names none."""
    found: dict[str, dict[str, str]] = {}
    for text in texts:
        for m in _KIN_NAME.finditer(text[:MAX_TEXT_CHARS]):
            said, name, after = m.group(1), m.group(2), m.group(3) or ""
            named = name.istitle() and not after.isupper()  # not "my son jack", "Leo Martinez"
            if said not in STOPWORDS and named and name.casefold() not in _NO_NAMES:
                person = _SAID_FOR.get(said, said)
                found.setdefault(name, {})[_stem(person)] = person
    return {
        name: person
        for name, said in found.items()
        if len(said) == 1 and _person(person := next(iter(said.values())))
    }


def _with_kin(text: str, known: Mapping[str, str]) -> str:
    """``text`` with each name in ``known`` said as the user's person it names ("Camila is a
    dentist" -> "my wife Camila is a dentist"); not after a word saying whose it is ("Tom's
    girlfriend Camila", "my wife Camila"), as an owner ("Tom's wife"), in a full name ("Tom
    Hanks") or for someone met somewhere ("Tom from the office")."""
    if not known:
        return text
    return _named_in(tuple(sorted(known))).sub(lambda m: _as_kin(m, known), text)


@functools.lru_cache(maxsize=64)
def _named_in(names: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"\b({alternatives})\b(?!['\u2019]s\b|\s*[A-Z]|\s+from\b)")


def _as_kin(m: re.Match[str], known: Mapping[str, str]) -> str:
    before = _WORD.findall(m.string[max(0, m.start() - 40) : m.start()])
    if before and before[-1].islower() and _person(before[-1]):  # "Tom's girlfriend Camila"
        return m.group(0)
    return f"my {known[m.group(1)]} {m.group(1)}"


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
    owned: frozenset[str]  # words said right after "my" or "our" (``_OWN``), casefolded


# Short and family forms of words a question asks about, as the word they stand for ("gran",
# "bday", "uni"; "mum" and "dad" are the stemmer's already, core.judge.stemming). A doctor's
# title names the doctor only before a name (``_DOCTOR``: "Dr. Nguyen", not "12 Oak Dr.").
_SAID_FOR = dict(
    pair.split(":")
    for pair in """gp:doctor mam:mother mama:mother papa:father bro:brother sis:sister
    hubby:husband bf:boyfriend gf:girlfriend grandma:grandmother granny:grandmother
    nana:grandmother gran:grandmother grandpa:grandfather grandad:grandfather
    granddad:grandfather uni:university prof:professor vet:veterinarian bday:birthday
    appt:appointment msc:master masters:master kid:child kids:child married:spouse""".split()
)
_DOCTOR = re.compile(r"\bDr\.?\s+[A-Z]")
_OWN = re.compile(r"\b(?:my|our)\s+(\w+)\b(?!-)", re.IGNORECASE)  # not "my mother-in-law"
# A person's occupation, as a question asks it (``asked``) and a text names it (``_read``): a
# token no text holds as a word, "occupation_" and the person's stem.
OCCUPATION = "occupation_"
_WORKS = re.compile(r"\b([A-Za-z][\w-]*)\s+(?:works?|worked)\s+(?:at|for|as)\b", re.IGNORECASE)
_REFERS = frozenset("he she they him her".split())
_WORK_WORDS = frozenset(stem_word(w) for w in ("work", "job"))
# A person's home, as a question asks it and a text names it: "home_" and the person's stem.
HOME = "home_"


def _occupation_of(person: str) -> str:
    return OCCUPATION + _stem(_SAID_FOR.get(person, person))


def _home_of(person: str) -> str:
    return HOME + _stem(_SAID_FOR.get(person, person))


def _homes(text: str) -> set[str]:
    """The home tokens (``_home_of``) of the user's people whose home ``text`` says
    (core.search.life.home_holders), each resolved to one person (``_whose``) and said as the
    user's ("my sister Ewa", "Mum"), not someone else's ("Tom's sister lives in Oslo")."""
    lowered = text.casefold()
    people = set()
    for holder, at in life.home_holders(text):
        person = _whose(text, holder, at)
        if person and (_the_users(person, lowered) or holder == person.capitalize()):
            people.add(person)
    return {_home_of(p) for p in people}


def _occupations(text: str) -> set[str]:
    """The occupation tokens (``_occupation_of``) of the people whose occupation ``text`` says
    (core.search.roles.occupation_holders) or whose place of work it says ("Daniel works at
    Amazon"), each resolved to one person (``_whose``); and, as a question about one person's
    work was read before it, of each of the user's people a text naming "work" or "job" names
    ("My manager at work is Priya", "my wife cycles to work"; not "Ngozi's husband got one")."""
    holders = roles.occupation_holders(text) + [
        (m.group(1), m.start(1)) for m in _WORKS.finditer(text)
    ]
    people = {person for holder, at in holders if (person := _whose(text, holder, at))}
    lowered = text.casefold()
    words = set(_WORD.findall(lowered)) - STOPWORDS
    if {_stem(w) for w in words} & _WORK_WORDS:  # not "we had company over"
        people |= {w for w in words if _person(w) and _the_users(w, lowered)}
    return {_occupation_of(p) for p in people}


def _the_users(person: str, lowered: str) -> bool:
    """Whether ``lowered`` says ``person`` as the user's ("my wife", "our new manager"), not
    someone else's ("Ngozi's husband")."""
    return re.search(rf"\b(?:my|our)\s+(?:[\w-]+\s+)?{re.escape(person)}\b", lowered) is not None


def _whose(text: str, holder: str, at: int) -> str | None:
    """The one person a ``holder`` found at ``at`` in ``text`` is: a person word itself
    ("mother"), the person word right before a name ("my son Jack", "My wife Rachel": a name
    is read as one even when WordNet files it as a person), or for "he" or "she" the nearest
    person word or name before it ("My wife Rachel says I'm obsessed. She's a ..."), past one
    of the other sex ("My sister called. He lives in Oslo": not the sister)."""
    before = list(_WORD.finditer(text, 0, at))
    if holder.casefold() in _REFERS:
        for word in reversed(before):
            found = word.group(0)
            if _named_person(text, found, word.start()):
                person = _whose(text, found, word.start())
            elif found.casefold() not in STOPWORDS and _person(found.casefold()):
                person = found.casefold()
            else:
                continue
            if person is None or not _other_gender(holder.casefold(), person):
                return person
        return None
    if _named_person(text, holder, at):
        named = before[-1].group(0).casefold() if before else ""
        return named if _person(named) else None
    return holder.casefold() if _person(holder.casefold()) else None


# Person words of one sex, for "he" and "she" (``_whose``); the rest may be either.
_FEMALE = frozenset(
    """mother mum mom mam mama sister wife daughter aunt niece grandmother grandma gran granny
    nana girlfriend fiancee gf stepmother stepdaughter girl sis""".split()
)
_MALE = frozenset(
    """father dad papa brother husband son uncle nephew grandfather grandpa grandad granddad
    boyfriend fiance bf stepfather stepson boy hubby bro""".split()
)


def _other_gender(pronoun: str, person: str) -> bool:
    """Whether ``pronoun`` cannot stand for ``person`` ("he" for "sister")."""
    if pronoun in ("he", "him"):
        return person in _FEMALE
    return pronoun in ("she", "her") and person in _MALE


def _named_person(text: str, word: str, at: int) -> bool:
    """Whether ``word`` at ``at`` is written as a name: capitalised inside a sentence."""
    opens = not text[:at].strip() or text[:at].rstrip()[-1] in ".!?"
    return word[0].isupper() and word.casefold() not in STOPWORDS and not opens


@functools.lru_cache(maxsize=4096)
def _person(word: str) -> bool:
    """Whether ``word`` (or what it stands for: ``_SAID_FOR``) is first a person by WordNet:
    "mother", "husband", "boss"."""
    net = wordnet()
    if net is None or not word.isalpha():
        return False
    forms = {word, _SAID_FOR.get(word, word), _stem(word)}  # "mum" is first a chrysanthemum
    return any(net.noun_under(form, ("person",), senses=1) for form in forms)


def _read(text: str, own: int | None = None) -> _Reading:
    """``text``'s reading; someone's occupation (or the user's) only from its first ``own``
    characters, the record's own words (its content, not the turns before it)."""
    words = _WORD.findall(text)
    common, named = _nouns(words)
    folded = {w.casefold() for w in words} - STOPWORDS
    stems = {_stem(w) for w in folded} | {_stem(_SAID_FOR[w]) for w in folded & _SAID_FOR.keys()}
    stems |= {_stem(r) for w in folded for r in relatives(w)}  # "allergic" names "allergies"
    if _DOCTOR.search(text):
        stems.add(_stem("doctor"))
    for part in life.PARTS:
        if part.says(text):
            stems |= part.asked_by
            if part.name == "study" and _AT_A_SCHOOL.search(text):
                stems |= _ATTENDS  # "Which university do I go to?"
    said = text[:own]
    if roles.says_own_role(said):
        stems |= life.BY_NAME["work"].asked_by
    stems |= _occupations(said) | _homes(said)
    owned = frozenset(m.group(1).casefold() for m in _OWN.finditer(text))
    return _Reading(frozenset(stems), tuple(common), tuple(named), owned)


# Readings of the records searches found lately, by record id and a hash of the text read
# (a record's context can be narrowed in place): a record is read again by every search that
# finds it, and tokenising it was most of the check's time. A reading of 2,000 characters
# holds a few hundred short strings: 1,024 of 2,000 characters of conversation took 17 MB.
_READINGS: OrderedDict[tuple[str, int], _Reading] = OrderedDict()
_READINGS_KEPT = 1024
_READINGS_LOCK = threading.Lock()


def _reading(record_id: str, text: str, own: int) -> _Reading:
    key = (record_id, hash(text))
    with _READINGS_LOCK:
        found = _READINGS.get(key)
        if found is not None:
            _READINGS.move_to_end(key)
            return found
    reading = _read(text, own)
    with _READINGS_LOCK:
        _READINGS[key] = reading
        if len(_READINGS) > _READINGS_KEPT:
            _READINGS.popitem(last=False)
    return reading


def _named(subject: Sequence[str], reading: _Reading) -> bool:
    if not subject:
        return False
    wanted = (_SAID_FOR.get(w, w) for w in subject)
    return all(_stem(w) in reading.stems or _kind_named(w, reading) for w in wanted)


def _person_senses(net: WordNet, senses: Sequence[int]) -> Sequence[int]:
    """The first of ``senses``, and the second too when both are persons: a "child" asked
    about is a young person or someone's son or daughter."""
    if len(senses) > 1 and all(net.under(sense, "person") for sense in senses[:2]):
        return senses[:2]
    return senses[:1]


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


def _kind_named(want: str, reading: _Reading) -> bool:
    """Whether a noun of a text (its ``reading``: ``common`` nouns and the ``named``) is a
    kind of ``want``'s first noun sense, at most ``KIND_DEPTH`` links below it: "kelpie" of
    "dog". WordNet's senses run wide, so each side is read narrowly:
    - the word asked about in its first sense only ("pet" is an animal, not the "darling"
      that a "favourite" also is), and never one too general to say anything;
    - a common noun in its first sense, or its second too when it has no others ("kelpie" is
      first a water spirit; "date" has eight senses, one of them an escort, and so a
      friend), and never a word that is also a verb (a sentence's "works", "saw", "fly" are
      seldom the plant, the tool or the insect) unless a person is asked and it is first a
      person said right after "my" or "our" (``owned``: "my husband" is a spouse, "our
      mother" a parent; not "I coach kids", "the husband in my novel", "my mother-in-law");
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
        for sense in _person_senses(net, net.senses(lemma, "n"))
    }
    if not wanted:
        return False
    person = any(net.under(sense, "person") for sense in wanted)
    for word in reading.common:
        if _verb(word) and not (person and word in reading.owned and _person(word)):
            continue
        for lemma in _noun_lemmas(word):
            senses = net.senses(lemma, "n")
            for sense in senses[: 2 if len(senses) <= 2 else 1]:
                if wanted & net.kinds_above(sense, depth=KIND_DEPTH):
                    return True
    if person:
        return False
    for word in reading.named:
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

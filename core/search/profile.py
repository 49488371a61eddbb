"""A question about the user as a whole: answered with the user's own records.

"What do you know about me?" is the first thing a new user asks a memory-backed assistant, and
an agent asks it too ("What do we know about the user?") before it plans. No record matches
it: its words name no topic, so the dense, lexical and entity generators find nothing that
passes the gate, and a small store answered it empty (benchmarks/README.md, "Session 50").
The answer it asks for is the user's profile: what the user's records say.

**The question** (``asks``): a request for what is known about the user and nothing more,
read as words rather than one pattern, since people ask it in many orders ("What do you know
about me?", "what info u got on me", "show me everything you've memorized about me", "Tell me
about myself", "Who am I?", "describe me", "What's in my profile?", "What do we know about the
user?"). It opens like a question or a request for what is known (``_OPENERS``; a yes/no
question only when it asks to be told: "Can you tell me what you know about me?"), names the
user as what it is about (``_WHO``), and every other word is one with no topic (``_PLAIN``),
with only a few trailing phrases ("so far", "as a person", "from our chats": ``_TAILS``). So a
question with a topic ("What do you know about my job?", "... about me and running?"), about
one side or one time of the user ("What are my hobbies?", "What did you learn about me
earlier?"), about the assistant or the world ("Tell me about yourself", "What do you know about
Python?", "What is stored in the user profile?"), how memory works ("How do you store data
about me?"), a command ("Remember that about me") or a statement ("Now you know everything
about me") is searched as before, as is anything written like an identifier ("user_profile").

**The answer** (``lookup``, ``chosen``, ``place``): the records of the user's own scope
(``user:<id>``; never an agent's private notes, a project's or an org's) that pass the
request's hard filter, session summaries and imported conversation turns left out (a summary
restates its session's records; a turn is a transcript, not a fact), read from the
``WINDOW`` newest statements, and beside them the records the words of instructions,
constraints and who the user is find however old (``LOOKUP_WORDS``: a lexical lookup of
``LOOKUP_DEPTH`` records, as a task's for its instructions: core.search.standing).
In profile order, confirmed before provisional before any other status (an agent's guess is
the least of what is known): the user's standing instructions (at most
``standing.MAX_STANDING``, newest first) and dietary or medical constraints (at most
``diet.MAX_CONSTRAINTS``, surest first), which shape every answer; then what says who the user
is (``_LIFE``: their name, home, work, studies or family, in that order); then the rest; each newest
statement first. Each passes on this signal; the limit, the token budget and near-duplicate
collapse apply as to any answer, and nothing reorders it (the reranker, a turn's side remarks
folded into its best record, a later statement first: each reads a query's topic, which this
one has none of). The response's reason says how many of the user's records there are, so a
model knows to ask about a topic for the others. A user with no such record (nothing stored,
or nothing but imported turns) gets the usual search.

Limits: English forms only, and a whole-person request worded as a task ("Write a short bio
about me") or with a time ("What did you learn about me last week?") is searched as usual, as
is a bare "user profile" (a product's user profile is as likely); in a store with more than
``WINDOW`` statements of the user's, an old fact of who the user is is found only if the
lookup's words rank it among its ``LOOKUP_DEPTH`` (200 records saying "work" outrank one
saying "works as a nurse"); who the user is, and a medical constraint, are read by words
(``_LIFE``, ``_MEDICAL``), not meaning; an instruction or constraint counts only in the user's
own words (a user statement or turn), as for a task.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_memory.core.models import Status
from agent_memory.core.search import diet, life, standing
from agent_memory.core.search.lexical import query_tokens
from agent_memory.core.store.search_reads import profile_ids
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from agent_memory.core.filters import RecordFilter
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate
    from agent_memory.core.search.request import Ranked
    from agent_memory.core.store import Store

PROFILE_GATE = "passed: one of the user's own records, for a question about the user as a whole"
# How many of the user's newest statements a profile reads (beside the instructions and
# constraints found by their words): enough for every record of a user of a few months.
WINDOW = 200
# The words of what a profile gives first, however old (a lexical lookup of their own, as a
# task's: core.search.standing): standing instructions, dietary and medical constraints, and
# who the user is; and how many records that lookup reads.
LOOKUP_WORDS = [
    *standing.lookup_words(True, 2),
    *query_tokens(
        """name called live lives moved home house flat work works job employer manager boss
        career retired study studying degree university married wife husband partner son
        daughter kids children mum mom mother dad father parents sister brother allergic
        allergy diabetes medication"""
    ),
]
LOOKUP_DEPTH = 100


def _phrases(*texts: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(text.split()) for text in texts)


# Who a whole-person question is about: the user, as the user or an agent names them.
_WHO = _phrases(
    "me",
    "myself",
    "the user",
    "this user",
    "the current user",
    "our user",
    "who i am",
    "the person we're talking to",
    "the person i'm talking to",
    "the person we're helping",
    "the person i'm helping",
    "the person i'm assisting",
    "the person we're assisting",
)
# The words that say where what is known is about: "about me", "on me", "of me".
_ABOUT = frozenset("about abt bout on of regarding concerning".split())
# Words that ask for what is known, one of which the question must say.
_KNOWING = frozenset(
    """know kno knw knew known remember remembering remembered recall learn learned learnt
    learning gather gathered collected memorized memorised stored saved kept recorded noted
    store save keep hold retain got built figured found picked told tell telling describe
    summarize summarise summary overview rundown profile picture background info information
    data facts details memories records notes stuff things everything all mental model
    impression understanding have has memory recap shared revealed mentioned said file taken
    knowledge""".split()
)
# Words with no topic such a question may also say: question words, auxiliaries, pronouns, the
# assistant or its memory, requests, and general nouns.
_PLAIN = _KNOWING | frozenset(
    """what whats what's wat wht which do does did have has had can could would will is are
    was were been be being else exactly everything anything any all the a an kind sort of you
    u ya yall y'all we i i've you've we've youve weve r ur your our assistant agent system bot
    ai memory show remind list give dump compile retrieve get fetch pull up paint personal key
    general full whole complete in on file record far already over time mind say says build
    currently even me with think more so actually really already out quick brief short kinds
    type types waht whatcha whatchu d'you please""".split()
)
# The first word of such a question, after any opener: it asks (what, which), requests (tell,
# show ...), or names what is known (everything, your picture, all the facts ...).
_OPENERS = frozenset(
    """what whats what's wat wht waht whatcha whatchu which tell show give list summarize summarise
    recap describe
    dump compile retrieve get fetch pull paint remind everything all anything a the your any
    key general full whole complete personal info information facts details memories records
    notes stuff things background profile picture overview rundown summary""".split()
)
# A yes/no question asks for what is known only when it asks to be told or shown: "Can you tell
# me what you know about me?", not "Can you remember things about me?" nor "Did you save that
# about me?".
_ASKING = frozenset("do does did have has can could would will is are was".split())
_TOLD = frozenset("tell show give list summarize summarise describe recap mind".split())
# ... or whether anything is known at all: "Do you know anything about me?", "Is there anything in
# your memory about me?"; not whether the user's words went somewhere ("Have you shared anything
# about me?", "Did I tell you anything about me?").
_ANY = frozenset("any anything".split())
_PASSED_ON = frozenset("shared share told tell said mentioned revealed".split())
# "How much do you know about me?", not "How much data do you store about me?".
_HOW_MUCH = frozenset("do does you u we actually really already even know remember recall".split())
# Words and phrases a question may open with before it asks: "hey", "ok so", "quick q:".
_LEADS = _phrases(
    *"""hey hi hiii hello yo ok okay so and also well um umm hm hmm btw now alright right lol
    haha overall honestly actually seriously please pls plz""".split(),
    "hey there",
    "hi there",
    "so far",
    "what's the deal",
    "quick q",
    "quick question",
    "just curious",
    "just wondering",
    "out of curiosity",
    "i'm curious",
    "im curious",
    "be honest",
    "based on everything",
    "based on everything you know",
    "before we start",
    "before we begin",
    "in general",
    "after all our chats",
    "after all our conversations",
)
# What may trail the person: "so far", "as a person", "based on our chats", "according to you".
_TAILS = _phrases(
    *"""so far already yet now overall exactly really honestly anyway lol haha please pls
    plz anything""".split(),
    "at this point",
    "until now",
    "up to now",
    "by now",
    "in general",
    "all in all",
    "as a person",
    "over time",
    "according to you",
    "be honest",
    "in your memory",
    "from what you know",
    "from what you've learned",
    "from what you have learned",
    "based on what you know",
    "based on everything",
    "based on stored memories",
    "based on your memory",
    "based on your memories",
    *(
        f"{where} {whose} {what}"
        for where in (
            "from",
            "over",
            "in",
            "across",
            "based on",
            "from all",
            "over all",
            "across all",
        )
        for whose in ("our", "my")
        for what in ("chats", "chat", "conversations", "messages", "sessions", "talks")
    ),
)
# Verbs that take the person itself: "describe me", "sum me up", "characterise the user".
_PORTRAY = frozenset(
    "describe summarize summarise sum characterize characterise profile portray".split()
)
# What names the user's whole record, said as the user's own: "my profile", "the user's
# profile", "what's in my profile", "give me my user profile".
_RECORD = frozenset("profile facts background info information details summary overview".split())
_OWNER = frozenset("my user's".split())
_NAMING = frozenset(
    """what whats what's is are the a in of on about for show give me get retrieve fetch pull
    up all stored saved known full whole complete key general personal current this your does
    say says look like user""".split()
)
_WHO_AM_I = _phrases(
    "who am i",
    "tell me who i am",
    "who would you say i am",
    "who is the user",
    "who is this user",
    "who is the person we're talking to",
    "who is the person i'm talking to",
    "who is the person we're helping",
    "who is the person i'm helping",
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_IDENTIFIER = re.compile(r"\w[_/]\w")


def asks(query: str) -> bool:
    """Whether ``query`` asks for what is known about the user as a whole, and nothing more
    (the module docstring says how it is read)."""
    if _IDENTIFIER.search(query):
        return False
    words = _WORD.findall(query.replace("\u2019", "'").casefold())
    if not words or len(words) > 30:
        return False
    words = words[_led(words) :]
    return _asks_about(words) or _portrays(words) or _names_record(words) or _who_am_i(words)


def _led(words: list[str]) -> int:
    """How many of ``words`` open the question before it asks (``_LEADS``)."""
    at = 0
    while found := _phrase_at(words, at, _LEADS):
        at += found
    return at


def _asks_about(words: list[str]) -> bool:
    """ "What do you know about me?": a question for what is known, then about the person,
    then a tail; or "about me" alone."""
    for at in range(len(words) - 1, -1, -1):
        if words[at] not in _ABOUT:
            continue
        head = words[:at]
        if not head and words[at] != "about":
            continue
        if head and not _asks_for_what_is_known(head):
            continue
        for who in _person(words, at + 1):
            if _trails(words[at + 1 + len(who) :]) and (head or at + 1 + len(who) == len(words)):
                return True
    return False


def _asks_for_what_is_known(head: list[str]) -> bool:
    """Whether ``head`` (the words before "about me") asks for what is known: it opens as a
    question or a request (a yes/no question only to be told or shown), says a knowing word,
    and says nothing else of a topic."""
    if head[:2] == ["how", "much"]:
        return len(head) > 2 and set(head[2:]) <= _HOW_MUCH
    if not (set(head) <= _PLAIN and set(head) & _KNOWING):
        return False
    if head[0] in _ASKING:
        told = [w for w in head[1:4] if w != "please"]
        if len(told) > 1 and told[0] in ("you", "u") and told[1] in _TOLD:
            return True
        return bool(set(head) & _ANY) and not set(head) & _PASSED_ON
    return head[0] in _OPENERS


def _portrays(words: list[str]) -> bool:
    """ "Describe me", "sum me up", "how would you describe me from what you've learned"."""
    for at, word in enumerate(words):
        if word not in _PORTRAY:
            continue
        if not set(words[:at]) <= {"how", "would", "could", "can", "you", "u", "please"}:
            return False
        for who in _person(words, at + 1):
            tail = words[at + 1 + len(who) :]
            if _trails(tail[1:] if word == "sum" and tail[:1] == ["up"] else tail):
                return True
        return False
    return False


def _names_record(words: list[str]) -> bool:
    """ "What's in my profile?", "the user's profile", "give me my user profile"."""
    said = set(words)
    return said <= _NAMING | _OWNER | _RECORD and bool(said & _RECORD) and bool(said & _OWNER)


def _who_am_i(words: list[str]) -> bool:
    """ "Who am I?", "who is the user", "tell me who I am, according to you"."""
    for form in _WHO_AM_I:
        if tuple(words[: len(form)]) == form:
            return _trails(words[len(form) :])
    return False


def _person(words: list[str], at: int) -> list[tuple[str, ...]]:
    """The forms of the person (``_WHO``) that ``words`` say from position ``at``."""
    return [who for who in _WHO if tuple(words[at : at + len(who)]) == who]


def _trails(words: list[str]) -> bool:
    """Whether ``words`` are nothing but trailing phrases (``_TAILS``)."""
    at = 0
    while at < len(words) and (found := _phrase_at(words, at, _TAILS)):
        at += found
    return at == len(words)


def _phrase_at(words: list[str], at: int, phrases: Iterable[tuple[str, ...]]) -> int:
    """The length of the longest of ``phrases`` that ``words`` say from ``at`` (0: none)."""
    return max((len(p) for p in phrases if tuple(words[at : at + len(p)]) == p), default=0)


# -- the answer -------------------------------------------------------------------------------

# What says who the user is, in the order a profile gives it: their name, home, work, studies,
# family; then anything else of their life (``_life_rank``). Read by words, in the first person
# or of "the user".
_KIN = (
    r"(?:wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|spouse|sons?|daughters?|kids?|"
    r"children|child|baby|mum|mom|mother|dad|father|parents|sisters?|brothers?|siblings?|twins)"
)
_WHOSE = r"(?:my|our|the user's)"
_LIFE = tuple(
    re.compile(pattern)
    for pattern in (
        # the user's name
        r"(?i:\b(?:my name is|name's|call me|i'm called|the user's name is|the user is called)\b)"
        r"|^(?i:i'm|i am|the user is) [A-Z][\w'-]+(?: [A-Z][\w'-]+)*[.,!]?(?: |$)",
        # home
        r"\b(?:i|we|the user) (?:live|lives|moved|am based|are based|is based|grew up)\b"
        rf"|\b{_WHOSE} (?:house|flat|apartment|home|hometown|place)\b",
        # work
        r"\b(?:i|the user) (?:work|works|worked|am working|is working|retired)\b"
        rf"|\b{_WHOSE} (?:job|employer|boss|manager|company|career|profession|colleagues?)\b",
        # studies
        r"\b(?:i|the user) (?:study|studies|studied|am studying|is studying)\b"
        rf"|\b{_WHOSE} (?:degree|university|uni|college|school|phd|msc|major|course)\b",
        # family
        rf"\b{_WHOSE} {_KIN}\b|\b(?:i|we|the user) (?:have|has|had) (?:a|an|two|three|four) "
        rf"(?:\w+ )?{_KIN}\b"
        r"|\b(?:i'm|i am|we're|we are|the user is) (?:married|engaged|pregnant)\b",
    )
)
# A medical constraint, beside the dietary ones core.search.diet reads: "I'm allergic to
# penicillin", "The user has type 1 diabetes".
_MEDICAL = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|diabet\w*|asthma\w*|epilep\w*|co?eliac|anaphyla\w*|"
    r"epipen|pregnan\w*|wheelchair|disabilit\w*|medication)\b"
)


def lookup(
    store: Store, query: str, user_id: str, where: RecordFilter, limit: int
) -> tuple[Ranked, int]:
    """For a whole-person ``query`` (``asks``), the user's own records passing ``where`` (at
    most ``max(WINDOW, limit)``, newest statement first as ``profile_ids`` reads them, each
    scored by its place, 1 first) and how many there are in all; otherwise, or for an agent
    that cannot read the user's scope, nothing."""
    scope = f"user:{user_id}"
    if scope not in where.scopes or not asks(query):
        return [], 0
    ids, total = profile_ids(store, replace(where, scopes=(scope,)), max(WINDOW, limit))
    return [(record_id, float(rank)) for rank, record_id in enumerate(ids, start=1)], total


def belongs(record: Record, user_id: str) -> bool:
    """Whether ``record`` may be in the user's profile: in the user's scope, neither a session
    summary nor an imported conversation turn."""
    return (
        record.scope == f"user:{user_id}"
        and record.source_kind.value != "session_summary"
        and not conversation.is_imported_turn(record)
    )


def chosen(
    found: Ranked,
    ordered: Sequence[Candidate],
    records: Mapping[str, Record],
    user_id: str,
    now: str | None,
) -> list[Candidate]:
    """For a whole-person question (the ``lookup`` ``found`` the user's records; otherwise
    nothing), the candidates of ``ordered`` that ``belong`` to the user's profile, in profile
    order (the module docstring): instructions, constraints, who the user is, the rest."""
    if not found:
        return []
    own = [c for c in ordered if belongs(records[c.record_id], user_id)]

    def status(c: Candidate) -> int:
        found = records[c.record_id].status_at(now)
        return 0 if found is Status.CONFIRMED else 1 if found is Status.PROVISIONAL else 2

    def newest(candidates: Iterable[Candidate]) -> list[Candidate]:
        by_time = sorted(candidates, key=lambda c: records[c.record_id].statement_time)
        return sorted(reversed(by_time), key=status)

    instructions = newest(c for c in own if standing.is_standing(records[c.record_id]))
    instructions = instructions[: standing.MAX_STANDING]
    placed = {id(c) for c in instructions}
    levels = {
        id(c): level
        for c in own
        if id(c) not in placed and (level := _constraint(records[c.record_id])) is not None
    }
    constraints = sorted(
        newest(c for c in own if id(c) in levels), key=lambda c: (status(c), levels[id(c)])
    )[: diet.MAX_CONSTRAINTS]
    placed |= {id(c) for c in constraints}
    rest = sorted(
        newest(c for c in own if id(c) not in placed),
        key=lambda c: (status(c), _life_rank(records[c.record_id])),
    )
    return [*instructions, *constraints, *rest]


def _constraint(record: Record) -> int | None:
    """How surely ``record`` states a dietary (core.search.diet.strength) or medical constraint
    of the user's own: 0 surest; None: none."""
    found = diet.strength(record)
    if found is None and conversation.in_the_users_words(record):
        text = record.content.replace("\u2019", "'").casefold()
        found = 0 if _MEDICAL.search(text) else None
    return found


def _life_rank(record: Record) -> int:
    """Where ``record`` goes among what says who the user is (``_LIFE``: 0 their name, then
    home, work, studies, family); past them, anything else (``len(_LIFE)``)."""
    content = record.content.replace("\u2019", "'")
    lowered = content.casefold()
    for rank, pattern in enumerate(_LIFE):
        if pattern.search(content if rank == 0 else lowered):
            return rank
    if life.says_own_role(content):
        return 2  # a job said as what the user is: "The user is a nurse at Santa Maria."
    return len(_LIFE)


def place(survivors: list[Candidate], chosen: Sequence[Candidate]) -> list[Candidate]:
    """The answer to a whole-person question: the ``chosen`` records (the user's, in profile
    order), each marked as passing on that signal; ``survivors`` unchanged when none was
    chosen. Pure: replay calls it with the logged choice."""
    if not chosen:
        return survivors
    for candidate in chosen:
        candidate.passed_on = "profile"
        candidate.gate = PROFILE_GATE
    return list(chosen)


__all__ = [
    "LOOKUP_DEPTH",
    "LOOKUP_WORDS",
    "PROFILE_GATE",
    "WINDOW",
    "asks",
    "belongs",
    "chosen",
    "lookup",
    "place",
]

"""A question about the user as a whole: answered with the user's own records.

"What do you know about me?" is the first thing a new user asks a memory-backed assistant, and
an agent asks it too ("What do we know about the user?") before it plans. No record matches
it: its words name no topic, so the dense, lexical and entity generators find nothing that
passes the gate, and a small store answered it empty (benchmarks/README.md, "Session 50").
The answer it asks for is the user's profile: what the user's records say.

**The question** (core.search.profile_question.asks): a request for what is known about the
user and nothing more ("What do you know about me?", "Who am I?", "What do we know about the
user?"); a question with a topic, a command, a statement, one about how memory works or about
the assistant is searched as before.

**The answer** (``lookup``, ``chosen``, ``place``): the records of the user's own scope
(``user:<id>``; never an agent's private notes, a project's or an org's) that pass the
request's hard filter, session summaries and imported conversation turns left out (a summary
restates its session's records; a turn is a transcript, not a fact), read from the
``WINDOW`` newest statements, and beside them the records the words of instructions,
constraints and who the user is find however old (``LOOKUP_WORDS``: a lexical lookup of
``LOOKUP_DEPTH`` records, as a task's for its instructions: core.search.standing).
In profile order, confirmed before provisional before any other status (an agent's guess is
the least of what is known), one record per statement (a phrased fact and the sentence it
was phrased of quote the same words: ``_one_per_statement``): the user's standing
instructions (the newest ``standing.MAX_STANDING``) and the dietary or medical constraints
said of the user (``diet.MAX_CONSTRAINTS``, surest first; not a son's allergy nor a friend's
diet: ``_OWN``, ``_MEDICAL``), which shape every answer; then what says who the user is
(``_LIFE``: their name, home, work, studies or family, in that order); then any further
instructions and constraints; then the rest; each newest statement first; and two values
of one attribute together, the later first whatever its status (``_later_first``: an older
value is not given as the current one). Each passes on this signal, its place in the profile
its ``profile`` rank; the limit, the token budget and near-duplicate collapse apply as to any
answer, and nothing else reorders it (the reranker, a turn's side remarks folded into its best
record, the later-statement rule: each reads a query's topic, which this one has none of).
The response's reason says how many of the user's records there are (counted up to
``search_reads.PROFILE_COUNTED``, past it "more than 1,000"), so a model knows to ask about a
topic for the others. The newest statements are read through an index of them (a user of
50,000 records is read in under a millisecond, not sorted in 45: benchmarks/README.md,
"Session 51"). A user with no record of their own but imported conversation turns (a host
that imports conversations and extracts nothing) is answered with the turns the user said
(``belongs``, ``chosen``): those of at most ``TURN_CHARS`` that give an instruction, a
constraint or who the user is, or tell something that is no question and no request for a
task (``tells``), read newest first through an index of turns (migration 17) and ordered as
records are; the assistant's turns never. A user with nothing stored gets the usual search.

Limits (the question's: core.search.profile_question): in a store with more than
``WINDOW`` statements of the user's, an old fact of who the user is is found only if the
lookup's words rank it among its ``LOOKUP_DEPTH`` (200 records saying "work" outrank one
saying "works as a nurse"); who the user is, and a medical constraint, are read by words
(``_LIFE``, ``_MEDICAL``), not meaning; an instruction or constraint counts only in the user's
own words (a user statement or turn), as for a task. A profile of turns gives each turn
whole (the token budget bounds it), counts every turn of the user's in its reason, telling or
not, and takes every turn tagged with the role "user" as the user's: in a conversation between
named people imported under that one role, each of them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_memory.core.models import SourceKind, Status
from agent_memory.core.search import diet, roles, standing
from agent_memory.core.search.lexical import query_tokens
from agent_memory.core.search.profile_question import asks
from agent_memory.core.sentences import sentences
from agent_memory.core.store.search_reads import profile_ids, profile_turn_ids
from agent_memory.core.telling import informative
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
# The longest conversation turn a profile of turns gives (a record's content holds as much,
# core.extraction.schema): a longer one is a pasted document or a story, found by asking about
# its topic, and reading 200 of them for the profile's order cost half a second.
TURN_CHARS = 2000


# What says who the user is, in the order a profile gives it: their name, home, work, studies,
# family; then anything else of their life (``_life_rank``). Read by words, in the first person
# or of "the user".
_KIN = (
    r"(?:wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|spouse|sons?|daughters?|kids?|"
    r"children|child|baby|mum|mom|mother|dad|father|parents|sisters?|brothers?|siblings?|twins)"
)
_WHOSE = r"(?:my|our|the user's)"
_ADVERB = r"(?:(?:actually|now|still|currently|also|really|just) )?"
_LIFE = tuple(
    re.compile(pattern)
    for pattern in (
        # the user's name (case kept: a name is capitalised)
        r"(?i:\b(?:my name is|my name's|the user's name is|the user is called|i'm called)\b)"
        r"|\b(?i:call me) [A-Z]"
        r"|^(?i:i'm|i am|the user is) [A-Z][\w-]+(?: [A-Z][\w-]+)?\s*(?:[.!,]|$)",
        # home
        rf"\b(?:i|we|the user) {_ADVERB}(?:live|lives|lived|am based|are based|is based|grew up)\b"
        rf"|\b(?:i|we|the user) {_ADVERB}(?:moved|relocated) (?:to|into|from|back|house)\b"
        rf"|\b{_WHOSE} (?:house|flat|apartment|home|hometown)\b",
        # work
        rf"\b(?:i|the user) {_ADVERB}(?:work|works|worked|am working|is working) "
        r"(?:as|at|for|in|nights|days|shifts|part|full|remotely|freelance|from home)\b"
        r"|\b(?:i|the user) (?:retired|started|quit|left|got) (?:from |at )?"
        r"(?:my |a |the |the user's )?(?:new )?job\b"
        r"|\b(?:i|the user) (?:was|got|have been|has been) promoted\b"
        rf"|\b{_WHOSE} (?:job|employer|boss|manager|company|career|profession)(?: \w+)? "
        r"(?:is|are|was|were|'s)\b",
        # studies
        rf"\b(?:i|the user) {_ADVERB}(?:study|studies|studied|am studying|is studying)\b"
        rf"|\b{_WHOSE} (?:degree|university|uni|college|phd|msc|major|course)\b",
        # family
        rf"\b{_WHOSE} {_KIN}\b|\b(?:i|we|the user) (?:have|has|had) (?:a|an|two|three|four) "
        rf"(?:\w+ )?{_KIN}\b"
        r"|\b(?:i'm|i am|we're|we are|the user is) (?:married|engaged|divorced|widowed|single)\b",
    )
)
# A medical constraint said of the user, beside the dietary ones core.search.diet reads ("I'm
# allergic to penicillin", "The user has type 1 diabetes", "I take warfarin"); not a denial
# ("I'm not allergic to anything") nor someone else's ("My son is asthmatic").
_NOT = r"(?:(?!not\b|never\b|no\b)\w+ )"
_OPEN = r"(?:^|[.!?;,] )(?:(?:so|and|also|btw|oh|well|honestly|actually) )*"
_MEDICAL = re.compile(
    rf"{_OPEN}(?:i'm|im|i am|the user is|i've been) {_NOT}{{0,2}}(?:allergic|intolerant|"
    r"diabetic|asthmatic|epileptic|coeliac|celiac|anaphylactic)\b"
    rf"|{_OPEN}(?:i have|i've got|i've|the user has|i suffer from|the user suffers from) "
    rf"{_NOT}{{0,3}}(?:allerg\w*|\w+ intolerance|diabetes|asthma|epilepsy|coeliac|celiac|"
    r"anaphylaxis)\b"
    rf"|{_OPEN}(?:i take|i'm on|i am on|the user takes|the user is on) {_NOT}{{0,3}}"
    r"(?:medication|tablets|pills|insulin|an inhaler|warfarin|statins?)\b"
)
# A dietary constraint said of the user (or of the household the user is in): its sentence
# opens with them ("I'm vegetarian", "We don't eat pork", "The user is lactose intolerant");
# "My son is allergic to peanuts" and "Sam is vegan" are someone else's.
_OWN = re.compile(
    rf"{_OPEN}(?:i|i'm|im|i've|i'd|we|we're|we've|the user|the user's (?:diet|allerg\w*|"
    r"stomach)|my (?:diet|allerg\w*|stomach|gut))\b(?!'s)"
)


def lookup(
    store: Store, query: str, user_id: str, where: RecordFilter, limit: int
) -> tuple[Ranked, int]:
    """For a whole-person ``query`` (``asks``), the user's own records passing ``where`` (at
    most ``max(WINDOW, limit)``, newest statement first as ``profile_ids`` reads them, each
    scored by its place, 1 first) and how many there are in all; for a user with no such
    record, the conversation turns the user said (``profile_turn_ids``), of which ``chosen``
    keeps those that tell something; otherwise, or for an agent that cannot read the user's
    scope, nothing."""
    scope = f"user:{user_id}"
    if scope not in where.scopes or not asks(query):
        return [], 0
    own = replace(where, scopes=(scope,))
    window = max(WINDOW, limit)
    ids, total = profile_ids(store, own, window)
    if not ids and not profile_ids(store, replace(own, types=None, since=None, until=None), 1)[0]:
        # No record of the user's own at all (not merely none the filter takes): their turns.
        ids, total = profile_turn_ids(store, own, window, role_tag=conversation.ROLE_TAG + "user")
    return [(record_id, float(rank)) for rank, record_id in enumerate(ids, start=1)], total


def belongs(record: Record, user_id: str, *, turns: bool = False) -> bool:
    """Whether ``record`` may be in the user's profile: in the user's scope, neither a session
    summary nor an imported conversation turn; or, for a profile of ``turns`` (a user with
    nothing stored but conversation), a turn the user said of at most ``TURN_CHARS``, which
    ``chosen`` keeps when it gives an instruction, a constraint or who the user is ("I'm
    vegan.", "Never use emoji.", "I'm a nurse.") or otherwise tells something (``tells``)."""
    if record.scope != f"user:{user_id}":
        return False
    if turns:
        return conversation.in_the_users_words(record) and len(_words(record)) <= TURN_CHARS
    return record.source_kind is not SourceKind.SESSION_SUMMARY and not (
        conversation.is_imported_turn(record)
    )


def tells(text: str) -> bool:
    """Whether a turn's ``text`` tells something of its own: a sentence that is informative
    (core.telling), no question and no request for a task ("Just me and my husband Tom." does;
    "Can you suggest a curry?", "Give me 5 subject lines for the email.", "thanks!" and "ok
    sounds good" do not)."""
    return any(
        informative(sentence)
        and not sentence.rstrip().endswith("?")
        and not standing.asks_task(sentence)
        for sentence in sentences(text)
    )


def chosen(
    found: Ranked,
    ordered: Sequence[Candidate],
    records: Mapping[str, Record],
    user_id: str,
    now: str | None,
) -> list[Candidate]:
    """For a whole-person question (the ``lookup`` ``found`` the user's records; otherwise
    nothing), the candidates of ``ordered`` that ``belong`` to the user's profile, one per
    statement, in profile order (the module docstring)."""
    if not found:
        return []
    # The lookup read turns only for a user with no record of their own (``lookup``).
    lead = records.get(found[0][0])
    turns = lead is not None and conversation.is_imported_turn(lead)
    own = [c for c in ordered if belongs(records[c.record_id], user_id, turns=turns)]
    # Each reading once per record: a profile of turns reads them to choose its turns too.
    instructs = functools.cache(lambda i: _instructs(records[i]))
    constraint = functools.cache(lambda i: _constraint(records[i]))
    life_rank = functools.cache(lambda i: _life_rank(records[i]))
    if turns:
        own = [
            c
            for c in own
            if instructs(c.record_id)
            or constraint(c.record_id) is not None
            or life_rank(c.record_id) < len(_LIFE)
            or tells(_words(records[c.record_id]))
        ]
    own = _one_per_statement(own, records)

    surest = {Status.CONFIRMED: 0, Status.PROVISIONAL: 1}  # any other status: 2
    statuses = {id(c): surest.get(records[c.record_id].status_at(now), 2) for c in own}

    def status(c: Candidate) -> int:
        return statuses[id(c)]

    def newest(candidates: Iterable[Candidate]) -> list[Candidate]:
        by_time = sorted(candidates, key=lambda c: records[c.record_id].statement_time)
        return sorted(reversed(by_time), key=status)

    instructions = newest(c for c in own if instructs(c.record_id))
    taken = {id(c) for c in instructions}
    levels = {
        id(c): level
        for c in own
        if id(c) not in taken and (level := constraint(c.record_id)) is not None
    }
    constraints = sorted(
        newest(c for c in own if id(c) in levels), key=lambda c: (status(c), levels[id(c)])
    )
    taken |= {id(c) for c in constraints}
    ranks = {id(c): life_rank(c.record_id) for c in own if id(c) not in taken}
    rest = sorted(newest(c for c in own if id(c) in ranks), key=lambda c: (status(c), ranks[id(c)]))
    life_first = [c for c in rest if status(c) == 0 and ranks[id(c)] < len(_LIFE)]
    placed = {id(c) for c in life_first}
    # The first few instructions and constraints lead; any more follow what says who the user
    # is, before the rest: each still shapes an answer more than a passing detail does.
    first = instructions[: standing.MAX_STANDING] + constraints[: diet.MAX_CONSTRAINTS]
    more = instructions[standing.MAX_STANDING :] + constraints[diet.MAX_CONSTRAINTS :]
    others = [c for c in rest if id(c) not in placed]
    return _later_first([*first, *life_first, *more, *others], records)


def _one_per_statement(
    candidates: list[Candidate], records: Mapping[str, Record]
) -> list[Candidate]:
    """``candidates`` with one record per statement of the user's: extraction keeps a phrased
    fact beside the sentence it was phrased of ("The user prefers short answers." quoting "I
    prefer short answers", and "I prefer short answers, always."); of two records of one
    session whose words (their evidence quote, else their content) hold one another's, the
    first stays."""
    kept: list[Candidate] = []
    said_in: dict[str, list[str]] = {}
    for candidate in candidates:
        record = records[candidate.record_id]
        said = " ".join((record.evidence or record.content).casefold().split())
        # Records of no session (imported, or written outside one) are nobody's siblings.
        earlier = said_in.setdefault(record.session_id, []) if record.session_id else []
        if not any(said in other or other in said for other in earlier):
            earlier.append(said)
            kept.append(candidate)
    return kept


def _later_first(candidates: list[Candidate], records: Mapping[str, Record]) -> list[Candidate]:
    """``candidates`` with the records of one attribute (the user's home, said twice) together
    where the first of them stands, the one stated last first, whatever its status: a profile
    must not give an older value as the current one."""
    groups: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if attribute := records[candidate.record_id].attribute:
            groups.setdefault(attribute.casefold(), []).append(candidate)
    answer = []
    for candidate in candidates:
        attribute = records[candidate.record_id].attribute
        group = groups.get(attribute.casefold(), []) if attribute else []
        if len(group) < 2:
            answer.append(candidate)
        elif candidate is group[0]:
            answer += sorted(group, key=lambda c: records[c.record_id].statement_time, reverse=True)
    return answer


def _instructs(record: Record) -> bool:
    """Whether ``record`` holds a standing instruction of the user's (core.search.standing); a
    turn's first sentence read without its speaker's label too ("user: Never use emoji."),
    which a search for a task does not do (tests/core/search/test_standing.py's known limit)."""
    if standing.is_standing(record):
        return True
    return conversation.is_imported_turn(record) and any(
        standing.instructs(s) for s in sentences(conversation.turn_text(record))
    )


def _constraint(record: Record) -> int | None:
    """How surely ``record`` states a dietary (core.search.diet.strength) or medical constraint
    said of the user (``_OWN``, ``_MEDICAL``): 0 surest; None: none, or someone else's ("My son
    Leo is allergic to peanuts", "Sam is vegan")."""
    if not conversation.in_the_users_words(record):
        return None
    text = " ".join(_words(record).replace("\u2019", "'").casefold().split())
    if _MEDICAL.search(text):
        return 0
    found = diet.strength(record)
    return found if found is not None and _OWN.search(text) else None


def _life_rank(record: Record) -> int:
    """Where ``record`` goes among what says who the user is (``_LIFE``: 0 their name, then
    home, work, studies, family); past them, anything else (``len(_LIFE)``)."""
    content = _words(record).replace("\u2019", "'")
    lowered = " ".join(content.casefold().split())
    for rank, pattern in enumerate(_LIFE):
        if pattern.search(content if rank == 0 else lowered):
            return rank
    if roles.says_own_role(content):
        return 2  # a job said as what the user is: "The user is a nurse at Santa Maria."
    return len(_LIFE)


def _words(record: Record) -> str:
    """What ``record`` says: its content, a conversation turn's without its speaker's label."""
    if conversation.is_imported_turn(record):
        return conversation.turn_text(record)
    return record.content


def place(survivors: list[Candidate], chosen: Sequence[Candidate]) -> list[Candidate]:
    """The answer to a whole-person question: the ``chosen`` records (the user's, in profile
    order), each marked as passing on that signal with its place in the profile as its
    ``profile`` match (the compact reason's "profile #3"); ``survivors`` unchanged when none
    was chosen. Pure: replay calls it with the logged choice."""
    if not chosen:
        return survivors
    for place_in_profile, candidate in enumerate(chosen, start=1):
        candidate.passed_on = "profile"
        candidate.gate = PROFILE_GATE
        candidate.matches["profile"] = {"rank": place_in_profile, "score": float(place_in_profile)}
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

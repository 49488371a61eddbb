"""A question about the user as a whole: answered with the user's own records.

"What do you know about me?" is the first thing a new user asks a memory-backed assistant, and
an agent asks it too ("What do we know about the user?") before it plans. No record matches
it: its words name no topic, so the dense, lexical and entity generators find nothing that
passes the gate, and a small store answered it empty (benchmarks/README.md, "Session 50").
The answer it asks for is the user's profile: what the user's records say.

So when the query asks only that (``asks``: whole-person questions such as "What do you know
about me?", "What have you learned about me so far?", "Who am I?", "Tell me about myself",
"What do we know about the user?", "user profile"; never a question with a topic, "What do
you know about my job?", "What do you know about me and running?", "What's my name?", nor
one about the assistant or the world, "Tell me about yourself", "What do you know about
Python?"), the records of the user's own scopes (the user's scope and the agent's private
scope with that user; never a project's or an org's) that pass the request's hard filter are
read in profile order (``core.store.search_reads.profile_ids``) and are the answer, each
passing on this signal (``place``); the limit, the token budget and near-duplicate collapse
apply as to any answer, and the reranker is skipped (it would judge them against words that
name no topic). Profile order: confirmed records before provisional ones (an agent's guess is
the least of what is known); then semantic facts with an attribute (where the user lives,
works ...), other semantic facts, procedures, then episodic records (events and the user's
own verbatim statements); each newest statement first. Session summaries and imported
conversation turns are left out: a summary restates its session's records, and a turn is a
transcript, not a fact. A store holding neither (nothing but turns) answers as before.

Limits: the question forms are English patterns; a whole-person request worded as a task
("Write a short bio about me") or about one side of the user ("What are my hobbies?") is
searched as usual; and with more records than the limit, the profile is the first ``limit``
in profile order, not the most important ones (nothing here tells importance).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_memory.core.models import Scope, ScopeKind
from agent_memory.core.store.search_reads import profile_ids

if TYPE_CHECKING:
    from agent_memory.core.filters import RecordFilter
    from agent_memory.core.search.ranking import Candidate
    from agent_memory.core.search.request import Ranked
    from agent_memory.core.store import Store

PROFILE_GATE = "passed: one of the user's own records, for a question about the user as a whole"

# A whole-person question is read as words, not as a pattern of them: people ask it in more
# orders than any pattern lists ("what info u got on me", "show me everything you've memorized
# about me", "paint me a picture of who I am from what you know"). It names the user as what
# it is about (_WHO) and every other word it says is one of the words below, none a topic: a
# question with a topic ("... about my job", "... about me and running", "... about me from
# the email thread with HR") has a word no list here holds.
_WHO = tuple(
    tuple(phrase.split())
    for phrase in (
        "me",
        "myself",
        "user",
        "the user",
        "this user",
        "current user",
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
)
# The words that say where what is known is about: "about me", "on me", "of me".
_ABOUT = frozenset("about abt on of regarding re".split())
# Words that ask for what is known, one of which the question must say.
_KNOWING = frozenset(
    """know kno knw knew known remember remembering remembered recall learn learned learnt
    learning gather gathered collected memorized memorised stored saved kept recorded noted store
    save keep hold retain got built figured found picked told tell telling revealed shared share
    said mentioned describe summarize summarise summary overview rundown profile picture
    background info information data facts details memories notes stuff things everything all
    mental model impression understanding have has memory recap""".split()
)
# Words with no topic a whole-person question may also say: question words, auxiliaries,
# pronouns, the assistant or its memory, openers, requests, and general nouns.
_PLAIN = _KNOWING | frozenset(
    """what whats what's wat wht which how much many do does did have has had having can could
    would will is are was were been be being 's else exactly everything anything any all that
    the a an kind sort of you u ya yall y'all we i i've you've we've youve weve r ur your our it
    there assistant agent system bot ai memory hey hi hiii hello yo ok okay so and also well um
    umm hm hmm btw now alright right quick q question just curious wondering out curiosity
    honestly actually really seriously please pls plz im i'm show remind list give dump compile
    retrieve get fetch pull up paint personal key general full whole complete in on file record
    far already over time mind say says deal build currently even me with think honest""".split()
)
# What may trail the person: "so far", "as a person", "based on our chats", "according to you".
_TRAIL = frozenset(
    """so far already yet at this point until up to now by then overall in general exactly really
    all honestly anyway lol haha please pls plz as a person over time our my the chats chat
    conversations conversation messages sessions talks from based on according you be honest
    what you've we've learned know memory memories stored your these past previous earlier
    everything whole built""".split()
)
# Verbs that take the person itself: "describe me", "sum me up", "characterise the user".
_PORTRAY = frozenset(
    "describe summarize summarise sum characterize characterise profile portray".split()
)
# What names the person's whole record when nothing else is asked: "user profile", "my profile",
# "user facts", "what's in my profile".
_RECORD = frozenset("profile facts background info information details summary overview".split())
_OWNER = frozenset("user user's users my me".split())
# The other words such a name may come with: "show me my user profile", "user: all stored facts".
_NAMING = frozenset(
    """what whats what's is are the a in of on about for show give me get retrieve fetch pull up
    all stored saved known full whole complete key general personal current this our your does
    say says look like""".split()
)
_WHO_AM_I = (
    "who am i",
    "who do you think i am",
    "who would you say i am",
    "who is the user",
    "who is this user",
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def asks(query: str) -> bool:
    """Whether ``query`` asks for what is known about the user as a whole, and nothing more
    (the module docstring lists the forms; ``_WHO`` to ``_OWNER`` the words)."""
    words = _WORD.findall(query.replace("\u2019", "'").casefold())
    if not words or len(words) > 24:
        return False
    return _asks_about(words) or _portrays(words) or _names_record(words) or _who_am_i(words)


def _asks_about(words: list[str]) -> bool:
    """ "What do you know about me?": knowing words, then about the person, then a trail."""
    for at in range(len(words) - 1, -1, -1):
        if words[at] not in _ABOUT:
            continue
        head = words[:at]
        if head and not (set(head) <= _PLAIN and set(head) & _KNOWING):
            continue
        if any(_trails(words[at + 1 + len(who) :]) for who in _person(words, at + 1)):
            return True
    return False


def _portrays(words: list[str]) -> bool:
    """ "Describe me", "sum me up", "how would you describe me from what you've learned"."""
    for at, word in enumerate(words):
        if word in _PORTRAY and set(words[:at]) <= _PLAIN:
            rest = words[at + 1 :]
            for who in _person(words, at + 1):
                tail = rest[len(who) :]
                if _trails(tail[1:] if word == "sum" and tail[:1] == ["up"] else tail):
                    return True
    return False


def _names_record(words: list[str]) -> bool:
    """ "user profile", "what's in my profile", "user: all stored facts"."""
    said = set(words)
    return said <= _NAMING | _OWNER | _RECORD and bool(said & _RECORD) and bool(said & _OWNER)


def _who_am_i(words: list[str]) -> bool:
    """ "Who am I?", "who do you think I am", "based on everything, who am I, according to you"."""
    text = " ".join(words)
    for form in _WHO_AM_I:
        if (at := f" {text} ".find(f" {form} ")) >= 0:
            before, after = text[:at].split(), text[at + len(form) :].split()
            return set(before) <= _PLAIN | {"based"} and _trails(after)
    return False


def _person(words: list[str], at: int) -> list[tuple[str, ...]]:
    """The forms of the person (``_WHO``) that ``words`` say from position ``at``."""
    return [who for who in _WHO if tuple(words[at : at + len(who)]) == who]


def _trails(words: list[str]) -> bool:
    return set(words) <= _TRAIL


def lookup(store: Store, query: str, user_id: str, where: RecordFilter, depth: int) -> Ranked:
    """For a whole-person ``query`` (``asks``), at most ``depth`` of the user's records passing
    ``where`` in the user's own scopes (``own_scopes``), in profile order, each scored by its
    place (1 first); otherwise, or when the user has none, nothing."""
    if not asks(query):
        return []
    scopes = own_scopes(user_id, where.scopes)
    if not scopes:
        return []
    ids = profile_ids(store, replace(where, scopes=scopes), depth)
    return [(record_id, float(rank)) for rank, record_id in enumerate(ids, start=1)]


def own_scopes(user_id: str, readable: Sequence[str]) -> tuple[str, ...]:
    """Of the ``readable`` scopes, the user's own: the user's scope and the private scope of
    an agent with that user (never a project's or an org's)."""
    own = []
    for text in readable:
        scope = Scope.parse(text)
        if (scope.kind is ScopeKind.USER and scope.id == user_id) or scope.user_id == user_id:
            own.append(text)
    return tuple(own)


def chosen(ordered: Sequence[Candidate], found: Ranked) -> list[Candidate]:
    """The candidates of ``ordered`` that the lookup ``found``, in its (profile) order: those
    the row re-check dropped since are not among them."""
    by_id = {c.record_id: c for c in ordered}
    return [by_id[record_id] for record_id, _ in found if record_id in by_id]


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


__all__ = ["PROFILE_GATE", "asks", "chosen", "lookup", "own_scopes", "place"]

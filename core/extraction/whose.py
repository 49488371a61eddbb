"""Whose a change is, and whose the thing it changes: who a correction may retire records for.

core.extraction.corrections retires the records a user's later words correct. Two readings
keep it to the right person:

- ``as_said_to``: a claim the user makes of themself ("I'm a primary school teacher at St
  Brigid's", "We live in a ground-floor flat on Marchmont Road") is not changed by a change one
  of the user's people made ("My colleague Orla left St Brigid's for a school in Kinsale",
  "Our neighbours moved out last week": core.judge.change.theirs) unless the record names them
  ("I share a flat with Orla"); such a record is read against the user's own clauses of the
  sentence only ("My sister moved to Leeds, and I left Boots" still retires "I work at
  Boots"). The user with them ("Me and my boyfriend moved out"), a change done to the user ("My
  boss moved me to nights") and the user saying they did it too ("and so did I") are the
  user's change. An adversarial review of 129 pairs (benchmarks/README.md, "Session 55"):
  another person's change kept the user's claim in 39 of 43 pairs (10 before), no pair that
  should retire lost.
- ``someone_elses``: a change of another person's thing ("My sister's wedding moved to 10
  May") does not retire the record of the user's own ("Our wedding is on 3 May").
"""

from __future__ import annotations

import functools
import re
from typing import Any

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.judge.change import change_spans, content_words, theirs
from agent_memory.core.judge.values import MONTHS_AND_WEEKDAYS
from agent_memory.core.judge.wordnet import wordnet

# Whose a thing is ("my brother's wedding", "the user's brother's wedding": overlapping).
POSSESSIVE = re.compile(r"(?=\b(\w[\w-]*)['\u2019]s\s+(\w+))")


def as_said_to(candidate: Candidate, record: dict[str, Any]) -> Candidate | None:
    """The candidate as it may correct ``record``: a claim the user makes of themself ("I'm a
    teacher at St Brigid's", "We live in a flat on Marchmont Road": ``_USERS_OWN``) is changed
    only by a change the user made, not one of their people's ("My colleague Orla left St
    Brigid's", "Our neighbours moved out": core.judge.change.theirs), unless the record names
    that person ("I share a flat with Orla"). Then the candidate without the clauses of
    theirs, or None when no change of the user's own is left (an announcing turn does not
    count: its news was theirs)."""
    evidence, who, changes = _users_clauses(candidate.evidence)
    if evidence == candidate.evidence or not _users_own(str(record.get("content", ""))):
        return candidate
    if who & content_words(f"{record.get('content', '')} {record.get('evidence') or ''}"):
        return candidate
    if not changes:
        return None
    return candidate.model_copy(update={"evidence": evidence})


# A correction's evidence is read against every related record: read whose it is once per text.
@functools.lru_cache(maxsize=1024)
def _users_clauses(evidence: str) -> tuple[str, frozenset[str], bool]:
    """``evidence`` without the clauses of the user's people's changes, the words naming them
    (core.judge.change.theirs), and whether a change of the user's own is left."""
    said, who = theirs(evidence, person_word)
    return said, who, said != evidence and bool(change_spans(said))


# A record of the user's own claim: it opens with the user ("I ...", "We ...", "The user ...",
# "My job ...", "Our flat ..."), not one of their people ("My husband ...", "The user's son").
_USERS_OWN = re.compile(
    r"\W*(?:(?:and|also|so|but|plus|oh|btw|well|ok|okay|anyway)\W+)*"
    r"(?:(?:i|we)\b(?!['\u2019]s)|(?:the user|user)\b(?!['\u2019]s)"
    r"|(?:my|our|the user['\u2019]s)\s+(?P<thing>[a-z-]+(?:\s+[a-z-]+)?))",
    re.I,
)


def _users_own(content: str) -> bool:
    """Whether ``content`` opens with a claim of the user's own (``_USERS_OWN``)."""
    opens = _USERS_OWN.match(content)
    if opens is None:
        return False
    thing = opens.group("thing")
    return thing is None or not any(person_word(w.lower()) for w in thing.split())


@functools.lru_cache(maxsize=4096)
def person_word(word: str) -> bool:
    """Whether ``word`` names one of the user's people: a relation, friend or colleague
    (``PEOPLE``), or a noun that is first a person by WordNet ("landlord", "manager"); a name
    as written (capitalised) when it is no word WordNet knows ("Orla", not "Berlin")."""
    if word.lower() in PEOPLE or word.lower().removesuffix("s") in PEOPLE:
        return True  # "Mum", "neighbours"
    net = wordnet()
    if word[:1].isupper():
        first = word.split()[0].lower()
        return net is not None and not net.knows(first)
    return net is not None and net.noun_under(word, ("person",), senses=1)


def someone_elses(evidence: str, record: dict[str, Any]) -> bool:
    """Whether the change ``evidence`` says is of another person's thing ("My sister's wedding
    moved to 10 May", "Erik's friend Jonas's graduation moved") that the record names without
    that person ("Our wedding is on 3 May", "Our son Erik graduates on 6 June"): theirs
    changed, not the record's. The owner is a person: a relation word (``PEOPLE``), or a name
    after one ("friend Jonas's") or before a personal event ("Tom's birthday party",
    ``_EVENTS``); not a firm, a place or a day ("Tesco's delivery", "St Mary's surgery",
    "Tomorrow's meeting"), nor where something moved to ("moved to my sister's place"), nor
    when the change is the user's too ("my boss's review of me")."""
    named = content_words(f"{record.get('content', '')} {record.get('evidence') or ''}")
    for m in POSSESSIVE.finditer(evidence):
        who, thing = m.group(1), m.group(2)
        before = evidence[: m.start()]
        if not content_words(who) or who.lower() in MONTHS_AND_WEEKDAYS:
            continue  # a day's ("Tomorrow's party", "Friday's meeting"): no one's
        person = (
            who.lower().split("-")[0] in PEOPLE
            or (  # "sister-in-law's"
                who[:1].isupper() and (_RELATION.search(before) or thing.lower() in _EVENTS)
            )
        )
        if not person or content_words(who) & named or _WHERE_TO.search(before):
            continue
        if _THE_USERS.match(evidence, m.start(2) + len(thing)):
            continue  # "my boss's review of me moved": the user's too
        if any(_same_root(word, named) for word in content_words(thing)):
            return True
    return False


# Whose a thing may be: a relative, friend or colleague, named by the word or by a name after
# it ("my friend Jonas's").
PEOPLE = frozenset(
    """sister brother sibling mum mom mother dad father son daughter wife husband spouse
    partner boyfriend girlfriend fiance fiancee fiancé fiancée friend cousin aunt uncle niece
    nephew grandma grandpa gran granny nana grandmother grandfather kid child neighbour
    neighbor colleague coworker boss roommate flatmate sis bro gf bf hubby""".split()
)
_RELATION = re.compile(rf"\b(?:{'|'.join(sorted(PEOPLE))})\s+$", re.I)
# A person's own occasions: a name before one is a person's ("Tom's birthday party").
_EVENTS = frozenset(
    """wedding birthday bday graduation party shower baby funeral christening engagement
    housewarming retirement hen stag""".split()
)
# Where something moved to or from ("moved to my sister's place", "to my friend Jonas's",
# "off Dad's plan", "at Mum and Dad's cottage"); not "of" ("the date of my sister's wedding").
_WHERE_TO = re.compile(
    r"\b(?:to|at|from|off|into)\s+(?:(?:my|our|the|his|her|their)\s+)?"
    r"(?:[\w-]+\s+and\s+|[\w-]+\s+)?$",
    re.I,
)
# The thing is the user's too: "my boss's review of me", "my sister's party for us".
_THE_USERS = re.compile(r"\s+(?:of|for|with)\s+(?:me|us)\b")


def _same_root(word: str, named: set[str]) -> bool:
    """Whether ``named`` (stems) holds ``word`` (a stem), or a word of the same root that the
    stemmer leaves apart ("graduation" / "graduate"): a shared beginning of at least six
    letters, three quarters of the shorter word."""
    if word in named:
        return True
    for other in named:
        shorter = min(len(word), len(other))
        pairs = zip(word[:shorter], other[:shorter], strict=True)
        shared = next((i for i, (a, b) in enumerate(pairs) if a != b), shorter)
        if shared >= 6 and shared * 4 >= 3 * shorter:
            return True
    return False


__all__ = ["PEOPLE", "POSSESSIVE", "as_said_to", "person_word", "someone_elses"]

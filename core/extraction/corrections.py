"""The offline reviewer's reading of corrections: which stored records a user's words correct.

A later statement that changes an earlier one ("we returned the grey sectional and got a navy
sofa instead", "my new boss is Katrin Vogel", "last day at Paylane would be 5 September") must
retire the records of the earlier one, or a search shows both, the stale value first as often
as not. The offline rules cannot key most such facts by attribute (the ingestor's subject
rule), and an earlier verbatim statement is an episode, which the supersession rule never
replaces on its own. So the reviewer, which is shown the stored records related to each
candidate (``extraction.related_records`` nearest to its content and as many nearest to its
whole turn, each with its cosine to the content and its evidence), names those the candidate
replaces when both hold:

- the candidate's words are the user's own claim, not a report of what someone said or
  believes ("My aunt heard the wedding moved to June": core.framing.reports) nor a sentence
  about someone it names only as "he", "she" or "they" ("She moved there from Leeds last
  year"), and they say that something changed (core.judge.change): its evidence holds a
  change marker ("instead", "anymore", "no longer", "switched", "moved", "my new ...", "is
  off", "broke up", "retired", "returned", "accepted", "again", "now" ...), or its turn opens
  by announcing one ("Update:", "Big news!", "There's been a change.") and the words do not
  ask the assistant for something ("I need help to write ...": the turn's request, not its
  news);
- the record is linked to the candidate (``linked``): a user's statement, live, that does not
  itself say something ended ("covering banks instead of REITs": a later mention of REITs
  does not make it stale, the stale finder's rule, core.write.stale), and that reaches
  ``CORRECTION_FLOOR`` cosine to the candidate's content naming what the candidate names (a
  shared content word; a noun and a synonym or kind of it by WordNet: "couch" / "sofa",
  "vegetarian" / "vegan"; or a role for a role: "I'm a product manager now" / "I'm a
  software engineer"), ``LINK_FLOOR`` sharing one content word with the candidate's
  evidence ("Berlin"), or ``WORDS_FLOOR`` sharing two ("grey", "sectional"). Close in topic
  is not enough: "my sous-chef is Bianca" is 0.52 from "a restaurant in Vila Madalena", "I
  am buying the pharmacy" 0.78 from "I am a pharmacist". Words are compared as stems, the
  usual words of a statement about the user ("user", "new", "week", "I'm", "love" ...) left
  out. Names (words written capitalised every time, months and weekdays aside) the
  candidate's evidence holds only beside what changed link nothing on their own (``_aside``):
  the user's companion in a move or the place moved to ("I moved in with Antoine in
  Villeurbanne", "Valeria and me moved together") and the one whose relative it is about
  ("Sigrid's baby came early"); each retired every record about the person;
- a date moved ("the work Christmas party got pushed to January") only the nearest record
  that names all of what moved (core.judge.change.moved_thing: "work", "Christmas", "party"),
  not one that shares a word of it ("Our housewarming party is on 22 March"), names another
  owner of it ("My brother's wedding") or says a habit ("on Thursdays", ``_what_moved``);
- not a claim the user makes of themself ("I'm a teacher at St Brigid's", "We live on Marchmont
  Road") by a change one of the user's people made ("My colleague Orla left St Brigid's", "Our
  neighbours moved out": core.judge.change.theirs) unless it names them: such a record is
  read against the user's own clauses of the sentence only (core.extraction.whose
  .as_said_to);
- not a record naming another person's thing without that person: "My sister's wedding
  moved to 10 May" is the sister's, and leaves "Our wedding is on 3 May"
  (core.extraction.whose.someone_elses: a relation word or a person's name owns it, not a
  firm, a place or a day: "Tesco's delivery moved to Friday" still retires "My grocery
  delivery is on Thursday");
- a record of several sentences only when each of them shares a content word with the
  candidate's evidence (``_whole``): "Adam is 15, he plays hockey. Lina is 11, she swims." is
  not retired by "Adam quit hockey", so Lina's claim is not forgotten with Adam's. A sentence
  that only asks the assistant to make a gift, a card, a menu ..., with at most a bound in
  words, time or money, claims nothing and need not share one (``_asks_only``: "Erik
  graduates from Chalmers on 6 June. Suggest a gift, max 3000 kronor." is retired by "Erik's
  graduation moved to 13 June"); a request telling more keeps its record ("Give me a packing
  list, 30 weeks pregnant.", "Suggest a menu, 80 guests.").

The nearest such record is the one replaced (``replaces``: the new record in its lineage), up
to ``MAX_RETIRED - 1`` others are retired beside it (``retires``: superseded by the new record,
history kept, never deleted). The pipeline checks that every id is one the reviewer was shown;
the ingestor supersedes them when the candidate ranks at least as high and was stated later
(core.write.supersession.retirable). The floors were chosen on the odd-numbered personas of
the personal-memory set and reported on the even ones (benchmarks/README.md), counting both
sides: update questions whose stale records stay live, and records retired although their turn
is evidence of a question still valid (benchmarks/personal_misses.py). Lower, a marker with a
merely topical neighbour ("Now, the book club is at my house") retires the wrong record.

Limits: a change said with neither marker nor announcement ("I've started eating chicken"
after "I'm pescatarian") is missed, and so is an old record that shares no content word with
the correction and is not close in embedding space ("so Berlin is off" is at cosine 0.28 to
the marathon plan: one shared word needs 0.35). A couple's break-up ("noah and i broke up")
retires only records naming a relationship (``_about_what_ended``: "noah is allergic to cats"
stays); past that and the roles above, a shared name links records about that person or place
that the correction does not change ("The Berlin office party is off." retires the Berlin
Marathon plan), and a turn's announcement makes news of an event such a correction ("Update:
Jack scored two goals on Saturday!" retires "My son Jack is 7 and plays football on
Saturdays": reading the past tense as an event, or word lists of what the news is of, broke
nearly as many real changes, "Update: Tom took a job at Arup", as they mended); telling which
attribute of a person changed needs a model. A correction the judge downgrades to an inference
cannot replace the user's own statement. A chain of changes stops at a record that itself says
something ended.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.extraction.whose import POSSESSIVE, as_said_to, someone_elses
from agent_memory.core.framing import reports
from agent_memory.core.judge.change import (
    change_spans,
    content_words,
    moved_thing,
    says_changed,
)
from agent_memory.core.judge.contradiction import says_ended
from agent_memory.core.judge.values import MONTHS_AND_WEEKDAYS
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.models import parse_time

CORRECTION_FLOOR = 0.50  # cosine that links a record naming the same thing
LINK_FLOOR = 0.35  # cosine that links a record sharing a content word with the correction
WORDS_FLOOR = 0.15  # cosine that links a record sharing two content words
MAX_RETIRED = 3  # records one correction may retire
KIND_DEPTH = 2  # WordNet links between a noun and a kind of it ("vegan" / "vegetarian")

_LIVE = ("confirmed", "provisional")
# A sentence whose subject is someone the words do not name ("He quit Google last year"): what
# changed is theirs, not what the user said.
_SOMEONE_ELSE = re.compile(
    r"^\W*(?:(?:and|also|but|so|plus|now)\W+)*(?:he|she|they|his|her|their)\b", re.I
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
# Where a change names someone or somewhere only beside what changed: the user's companion in
# a move or the place moved to ("I moved in with Antoine in Villeurbanne": the user's home
# changed, not Antoine nor Villeurbanne; "moved from Leeds" still names what changed) and
# "Valeria and me moved together", unless the earlier record is about the user's home itself
# (``_HOME``: "I live with Marco in Turin" is changed by "Marco and I moved to Milan"); or the
# one whose relative it is about ("Sigrid's baby came early"). A move's clause ends at a comma
# or "and", "so", "but"; names are checked for their capital in code.
_MOVE = re.compile(r"\b(?:mov|liv)\w*\b((?:(?!\b(?:and|so|but)\b)[^.!?,;])*)", re.I)
_BESIDE = re.compile(
    r"\b(?:with|to|into|in)\s+(?:(?:my|our)\s+\w+\s+)?"
    r"(?!(?:with|to|into|in)\b)(\w[\w-]*(?-i:(?:\s+[A-Z][\w-]*)*))",
    re.I,
)
_COMPANION_BEFORE = re.compile(
    r"(\w[\w-]*)\s+(?:and|&)\s+(?:me|i)\s+(?:\w+\s+){0,2}?(?:mov|liv)\w*", re.I
)
_HOME = re.compile(
    r"\b(?:live|lives|living|lived|rent|rents|renting|flat|apartment|house|home|moved|move)\b",
    re.I,
)
_OWNER = re.compile(r"(\w[\w-]*)['\u2019]s\s+(\w+)(?:\s+(\w+))?")
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|they|them|their)\b", re.I)
# What the user said they are, changed by what they say they are or have now: "I'm a software
# engineer" / "I'm a product manager now", "I'm a paralegal" / "I work as a solicitor now",
# "I'm single" / "I have a girlfriend now"; not "I'm buying ..." (an -ing word) nor "I'm so
# ..." (a modifier), and not without "now" ("I am a pharmacist" / "Big news! I am buying the
# pharmacy").
_ROLE = re.compile(
    r"\b(?:i'm|i am|user is|i work as|i'm working as|user works as|i became|user became)"
    r"\s+(?:now\s+)?(?:an?\s+)?(?!(?:the|my|our|your|so|very|really|not|just|also|still|"
    r"going|about|sure|glad|sorry|afraid)\b)[a-z][\w-]*(?<!ing)\b",
    re.I,
)
_NOW = re.compile(r"(?<!\bfor )\bnow\b", re.I)
# A change that says the earlier thing was replaced: close is enough ("We replaced our vehicle
# with a Tesla" / "We have a Honda Civic").
_REPLACED = re.compile(r"\b(?:instead|replaced|switched|swapped)\b", re.I)
# A relationship that ended ("Noah and I broke up") ends what was said of the relationship
# ("my boyfriend Noah is flying in", "we've been dating since June"), not what was said of the
# person ("Noah is allergic to cats" stays true): when every change word of the evidence but
# "now" says so, a record is retired only if it names a relationship.
_BREAK_UP = re.compile(r"\b(?:broke|broken|break|breaking|split|splitting)\s+up\b", re.I)
# A couple's break-up, not a band's or a club's: "Noah and I", "me and Noah", "we", "I ...
# with Noah"; a group that split up ends the group, read as before.
_COUPLE = re.compile(
    r"\b(?:and\s+(?:i|me)|me\s+and|we|i|i've|we've)\s+(?:\w+\s+)?(?:broke|split)\s+up\b", re.I
)
_RELATIONSHIP = re.compile(
    r"\b(?:boy|girl)friends?\b|\b(?:bf|gf|partner|husband|hubby|wife|spouse|fianc[eé]e?|ex)\b"
    r"|\b(?:dating|dated|date|together|married|marriage|engaged|relationship|couple|"
    r"anniversary|long[ -]distance|seeing|going out|went out|"
    r"(?:i'm|i am|been|living|live|lives|moved in) with)\b",
    re.I,
)
# What recurs ("every", "weekly", "on Thursdays"), or is said to hold for good from now.
_RECURS = re.compile(
    r"\b(?:every|each|weekly|daily|monthly|fortnightly|usually|always|permanently|for good|"
    r"from now on|(?:a|per) (?:week|month)|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.I,
)
# An addition, not a replacement: "We got a kitten now too", "a new armchair to go with the
# couch".
_ADDED = re.compile(r"\b(?:too|as well)\s*(?:[.!?,;]|$)|\bto go with\b", re.I)


def corrected(
    candidate: Candidate,
    related: Sequence[dict[str, Any]],
    turn: str = "",
    *,
    at: str | None = None,
) -> list[dict[str, Any]]:
    """The related records the candidate's words correct, nearest first, at most
    ``MAX_RETIRED`` (module docstring); ``turn``: the text of the candidate's turn; ``at``:
    its time, when known: a record stated after it is newer than the words, which correct
    none of it (``outdating`` reads the two the other way)."""
    if at is not None:
        said_at = parse_time(at, field="at")
        related = [r for r in related if not _stated_after(r, said_at)]
    if candidate.source_kind != "user_statement" or reports(candidate.evidence):
        return []  # a report is the reporter's claim ("My aunt heard the wedding moved")
    if candidate.qualified:
        return []  # "I quit Google, in my dreams lol.": its words qualify the change
    if _SOMEONE_ELSE.match(candidate.evidence):
        return []  # "She moved there from Leeds last year": whoever she is, not the user
    if not says_changed(candidate.evidence, turn) or _added(candidate.evidence):
        return []  # no change said (or doubted), or an addition ("We got a kitten now too")
    found = [
        r
        for r in related
        if (said := as_said_to(candidate, r)) is not None
        and linked(said, r)
        and _whole(said, r)
        and _about_what_ended(said, r)
        and not someone_elses(said.evidence, r)
    ]
    found.sort(key=lambda r: -float(r.get("cosine", 0.0)))
    # A date moved moves one thing: "My appointment got pushed to May" retired both the
    # dentist's and the GP's appointments.
    return found[: 1 if moved_thing(candidate.evidence) is not None else MAX_RETIRED]


def outdating(
    candidate: Candidate,
    related: Sequence[dict[str, Any]],
    stated_at: str,
    turns: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """The related record stated after the candidate (``stated_at``: its turn's time) whose
    words correct it, as ``corrected`` would have read them had the candidate been stored
    first, in their turn (``turns``: by record id, the words of each record's turn; else its
    own words, and an announcement opening the turn, "Big news!", is seen only when they open
    with it); the first said if several, else None. An older session extracted after a newer
    one (a worker's backlog, a job retried after a crash) must not make its old value current."""
    turns = turns or {}
    if candidate.source_kind != "user_statement":
        return None  # what the user did not say is not one of their statements to correct
    said_at = parse_time(stated_at, field="at")
    mine = {**candidate.model_dump(include={"content", "evidence", "source_kind"}), "id": ""}
    found = [
        record
        for record in related
        if record.get("source_kind") == "user_statement"
        and _stated_after(record, said_at)
        and corrected(
            (newer := _as_candidate(record)),
            [{**mine, "status": "confirmed", "cosine": record["cosine"]}],
            turns.get(str(record["id"])) or newer.evidence,
        )
    ]
    return min(  # the first said: the one that would have corrected it
        found, key=lambda r: parse_time(str(r["stated_at"]), field="stated_at"), default=None
    )


def _stated_after(record: dict[str, Any], moment: datetime) -> bool:
    """Whether a related record was stated after ``moment`` (one without a time was not)."""
    stated = record.get("stated_at")
    return bool(stated) and parse_time(str(stated), field="stated_at") > moment


def _as_candidate(record: dict[str, Any]) -> Candidate:
    """A related record of the user's words as the candidate it was: its content and its
    evidence (its content if none), not validated again (it was, when written)."""
    content = str(record["content"])
    evidence = str(record.get("evidence") or content)
    verbatim = evidence == content
    return Candidate.model_construct(
        kind="statement" if verbatim else "fact",
        type="episodic" if verbatim else "semantic",
        content=content,
        evidence=evidence,
        source_kind="user_statement",
    )


def _about_what_ended(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether ``record`` says something the candidate's change ends: for a couple that
    broke up (``_BREAK_UP`` said of the user and someone, ``_COUPLE``, every change word of
    the evidence but "now"), only a record naming a relationship ("seeing", "going out",
    "with" included); for any other change, every linked record."""
    evidence = candidate.evidence
    said = [evidence[a:b].lower() for a, b in change_spans(evidence, strong=True)]
    if not any(_BREAK_UP.fullmatch(w) for w in said) or not _COUPLE.search(evidence):
        return True
    if not all(_BREAK_UP.fullmatch(w) or w == "now" for w in said):
        return True
    return (
        _RELATIONSHIP.search(f"{record.get('content', '')} {record.get('evidence') or ''}")
        is not None
    )


def _added(evidence: str) -> bool:
    """Whether ``evidence`` adds something rather than replaces it ("We got a kitten now too",
    "a new armchair to go with the couch"): an addition word, and no change word but "now"
    ("I cancelled Netflix, we use Disney+ now as well" still ends Netflix)."""
    if _ADDED.search(evidence) is None:
        return False
    lowered = evidence.lower()
    return all(lowered[a:b] == "now" for a, b in change_spans(evidence, strong=True))


def linked(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether a related record is one the candidate may correct: the user's own live
    statement, close enough in embedding space, or less close and sharing content words with
    the candidate's evidence (and not itself saying that something ended)."""
    if record.get("source_kind") != "user_statement" or record.get("status") not in _LIVE:
        return False
    if says_ended(str(record.get("content", ""))):
        # A record that itself says something ended ("covering banks instead of REITs") is
        # not made stale by a later mention of what ended (core.write.stale, the same rule).
        return False
    cosine = float(record.get("cosine", 0.0))
    if cosine < WORDS_FLOOR:
        return False
    said = content_words(candidate.evidence)
    text = f"{record.get('content', '')} {record.get('evidence') or ''}"
    shared = said & content_words(text)
    moved = moved_thing(candidate.evidence)
    if moved is not None and not _what_moved(candidate.evidence, moved, text):
        return False
    if shared and shared <= _names(candidate.evidence) & _names(text) & _aside(
        candidate.evidence, home=_HOME.search(text) is not None
    ):
        return False  # linked by names alone, each named beside the change ("in with Antoine")
    if cosine >= CORRECTION_FLOOR:
        # Close, and naming the same thing: a shared word, a noun and a synonym or kind of it
        # ("sofa" / "couch", "vegan" / "vegetarian"), a replacement said as one, or what the
        # user is, said again with "now" (_ROLE); not only the same topic ("my sous-chef is
        # Bianca" / "a restaurant in Vila Madalena", "buying the pharmacy" / "a pharmacist").
        return (
            bool(shared)
            or _REPLACED.search(candidate.evidence) is not None
            or _kindred(candidate.evidence, text)
            or bool(_ROLE.search(text) and _NOW.search(candidate.evidence))
        )
    return len(shared) >= 2 or (len(shared) == 1 and cosine >= LINK_FLOOR)


def _what_moved(evidence: str, moved: frozenset[str], text: str) -> bool:
    """Whether a record (its ``text``) is of the thing whose date ``evidence`` says moved
    (``moved``: core.judge.change.moved_thing): it names all of it, of no owner the evidence
    does not name ("My brother's wedding is in May" is not moved by "My wedding got pushed to
    June"), and is not a habit unless the move is for good ("I go to yoga on Thursdays" stays
    when "Yoga got bumped to Friday"; "... pushed to Sunday permanently" moves it)."""
    if not moved <= content_words(text):
        return False
    said = content_words(evidence)
    for m in POSSESSIVE.finditer(text):
        owner = content_words(m.group(1))
        if owner - {"user"} and not owner & said and content_words(m.group(2)) & moved:
            return False
    return _RECURS.search(text) is None or _RECURS.search(evidence) is not None


def _kindred(said: str, text: str) -> bool:
    """Whether a noun of ``said`` and another noun of ``text`` are the same thing or one a
    kind of the other by WordNet (their first two senses, ``KIND_DEPTH`` links): "sofa" and
    "couch", "vegan" and "vegetarian"; not "pharmacy" and "pharmacist". The same word on both
    sides is a shared word, not kin (the caller's rules for those hold)."""
    net = wordnet()
    if net is None:
        return False
    mine = _plain(said)
    stems = content_words(" ".join(mine))
    theirs = {w for w in _plain(text) - mine if not content_words(w) & stems}
    ours, other = _senses(mine), _senses(theirs)
    return any(ours & net.kinds_above(s, depth=KIND_DEPTH) for s in other) or any(
        other & net.kinds_above(s, depth=KIND_DEPTH) for s in ours
    )


def _senses(words: set[str]) -> set[int]:
    """The first two noun senses of each of ``words`` by WordNet, none too general to say
    what a statement is about ("thing", "act")."""
    net = wordnet()
    if net is None:
        return set()
    return {
        sense
        for word in words
        for lemma in net.lemmas(word, "n")
        if not net.too_general(lemma)
        for sense in net.senses(lemma, "n")[:2]
    }


def _plain(text: str) -> set[str]:
    """The lower-case content words of ``text``, as written (not stems)."""
    return {
        w for w in (m.lower() for m in _WORD.findall(text)) if content_words(w) and "'" not in w
    }


def _names(text: str) -> set[str]:
    """The content words of ``text`` (as ``content_words``: stems) written capitalised
    every time: names of people, places and things ("Antoine", "Affinity Designer")."""
    if text.upper() == text:
        return set()  # written in capitals throughout: no word stands out as a name
    cased: dict[str, bool] = {}
    for word in _WORD.findall(text):
        if word.lower() in MONTHS_AND_WEEKDAYS:
            continue  # "July" names a month, not what changed
        for stem in content_words(word):
            cased[stem] = cased.get(stem, True) and word[0].isupper()
    return {stem for stem, upper in cased.items() if upper}


def _aside(evidence: str, *, home: bool) -> set[str]:
    """The names ``evidence`` holds only beside what changed, as stems: the user's companion
    in a move or the place moved to ("I moved in with Antoine in Lyon", "Valeria and me moved
    together"), unless the earlier record is about the user's ``home``; and the one whose
    relative or animal it is about ("Sigrid's baby came early"; not "Grace's last day", nor an
    owner named again or pointed back to: "Tom's son took over now that Tom retired", "Ana's
    boss fired her")."""
    found: set[str] = set()
    if not home and not _PRONOUN.search(evidence):  # "Noah and I moved, he cooks ... now"
        found |= {m.group(1) for m in _COMPANION_BEFORE.finditer(evidence)}
        found |= {n.group(1) for m in _MOVE.finditer(evidence) for n in _BESIDE.finditer(m[1])}
    net = wordnet()
    for m in _OWNER.finditer(evidence):
        if net is None or _PRONOUN.search(evidence):
            break
        if len(re.findall(rf"\b{re.escape(m.group(1))}\b", evidence)) > 1:
            continue
        if any(
            net.under(sense, kind)
            for word in m.groups()[1:]
            if word
            for lemma in net.lemmas(word.lower(), "n")
            for sense in net.senses(lemma, "n")[:1]
            for kind in ("person", "animal")
        ):
            found.add(m.group(1))
    return {
        stem
        for name in found
        for word in name.split()
        if word[0].isupper()
        for stem in content_words(word)
    }


def _whole(candidate: Candidate, record: dict[str, Any]) -> bool:
    """Whether every sentence of the record is about what the correction says (shares a
    content word with its evidence): a verbatim record holding several claims ("Adam is 15,
    he plays hockey. Lina is 11, she swims.") is retired only when each is corrected, so that
    an unrelated claim beside the stale one is not forgotten with it."""
    parts = [p for p in _SENTENCE.split(str(record.get("content", ""))) if content_words(p)]
    if len(parts) < 2:
        return True
    said = content_words(candidate.evidence)
    claims = [p for p in parts if not _asks_only(p)]
    return bool(claims) and all(content_words(p) & said for p in claims)


# A request for a thing to be made ("Suggest a gift", "Please draft an invitation"), one of
# the things a user asks an assistant to write or pick (``_MADE``; not "Recommend a
# stroller", "Suggest a prenup", "Write a eulogy", which may tell something of the user), and
# a bound on it in words, minutes or money after a comma ("max 3000 kronor", "about 100
# words"), not a count of people, an age or a term ("80 guests", "25 years", "34 weeks"). A
# request holding more tells what retiring it would forget: "Give me a packing list, 30 weeks
# pregnant.", "Please plan the route, no car." (two reviews found 42, then 20 such records
# retired by a wider reading, benchmarks/README.md "Session 30").
_MADE = (
    "gift|gifts|toast|speech|card|invitation|invite|email|message|note|letter|menu|playlist|"
    "agenda|checklist|list|plan|schedule|timeline|caption|captions|poem|outline|summary|reply|"
    "recipe|recipes|ideas|sides|dessert|desserts|snacks|wine|title|slogan|intro"
)
_MAKE = re.compile(
    r"^\W*(?:(?:and|also|so|now|ok|okay)\W+)*(?:(?:please|pls|can you|could you)\W+)*"
    r"(?:suggest|recommend|write|draft|give me|make me|prepare|translate|create|list|"
    rf"summari[sz]e)\s+(?:a|an|some|me a|me an|me some)\s+(?:{_MADE})(?:\s+(?:please|pls))?\s*$",
    re.IGNORECASE,
)
_BOUND = re.compile(
    r"^(?:(?:max|maximum|under|below|at most|up to|around|about|budget|roughly)\s+)?"
    r"(?:[$\u00a3\u20ac]\d[\d,.]*k?|\d[\d,.]*\s*(?:words?|characters|chars|pages?|lines|"
    r"minutes?|mins|slides|items|bullets|paragraphs|sentences|kr|kronor|kroner|sek|nok|dkk|"
    r"euros?|eur|dollars?|usd|pounds|gbp|bucks))$|^(?:please|pls|thanks)$",
    re.IGNORECASE,
)


def _asks_only(sentence: str) -> bool:
    """Whether a sentence of a record only asks the assistant to make something, with at most
    a bound in words, time or money on it ("Suggest a gift, max 3000 kronor."): it claims
    nothing that retiring its record would forget."""
    head, *bounds = (p.strip() for p in re.split(r",(?!\d)", sentence.strip().rstrip(".!?")))
    return _MAKE.match(head) is not None and all(_BOUND.match(b) for b in bounds if b)


__all__ = [
    "CORRECTION_FLOOR",
    "LINK_FLOOR",
    "MAX_RETIRED",
    "WORDS_FLOOR",
    "corrected",
    "linked",
    "outdating",
]

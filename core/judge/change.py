"""Words that say something changed: the reading both the correction rule and the search read.

A later statement that changes an earlier one usually says so: a change marker ("instead",
"anymore", "no longer", "switched", "moved", "my new ...", "is off", "broke up", "now" ...), a
turn opening by announcing one ("Update:", "Big news!", "There's been a change."), or a "no"
before the thing that is off ("So no Gran Fondo this year", "no more biking the amp to gigs").

core.extraction.corrections retires the stored records such words correct;
core.search.later ranks the result that says them above an earlier one naming the same thing
the question asks about. Limits: a word list, not a discourse model. A change said with none
of these ("I've started eating chicken" after "I'm pescatarian") is not seen, and "now" or
"again" also mark follow-ups that change nothing ("Now, the book club is at my house"), which
is why both readers also require a link to what changed.
"""

from __future__ import annotations

import re

from agent_memory.core.judge.stemming import stem_word

_CORRECTION = re.compile(
    r"\b(instead|anymore|any more|any longer|no longer|not any ?more|switch(?:ed|ing)?|"
    r"chang(?:ed|e of plans?)|moved|moving|cancel+ed|called off|postponed|rescheduled|"
    r"updated?|stopped|quit|left|replaced|gave up|now|again|"
    r"(?:my|our|his|her|their|the) new|(?:is|are|was|'s) (?:off|gone|over)|"
    r"broke up|split up|retired|retiring|resigned|promoted|transferred|returned|returning|"
    r"accepted|ended up|used to|not (?:any|the) (?:more|longer)|interim|acting|taking over|"
    r"takes over|instead of)\b"
)  # matched against lowercased text: without IGNORECASE the search is three times faster
# Markers that as often open a follow-up as a change ("I left work early today", "asked again
# about my allergy", "my new sneakers"): a correction still reads them beside a link to what
# changed; the search does not rank by them. "now" stays a change for both ("so now Bianca is
# my sous-chef"), though a follow-up says it too ("feeling great now").
_WEAK = frozenset(
    "again left moving acting interim returning accepted updated update".split()
    + [f"{who} new" for who in ("my", "our", "his", "her", "their", "the")]
)
# A turn that opens by announcing a change: its sentences may each state one.
_ANNOUNCES = re.compile(
    r"^\W*(?:[\w']+[\s,]+){0,3}?(?:updates?|news|(?:a |some )?changes?|change of plans?)\b"
    r"[^.!?:,\n]{0,20}[.!?:,\n]",
    re.IGNORECASE,
)
# "no" before a thing says it is off: the thing is the content words right after it, up to
# the first function word or punctuation mark, at most ``_THING_WORDS`` ("So no Gran Fondo this
# year" -> "Gran Fondo"). Not a thing: a "no" that answers ("No, I ...", "No I still ..."), an
# idiom ("no idea", "no problem", "no regrets", "no plans to ..."), and a one-off ("No
# badminton tonight").
_NEGATED = re.compile(
    r"\bno\s+(?!(?:more|less) than\b)(?:more\s+|longer\s+)?([^.,;:!?()\n]+)", re.IGNORECASE
)
_THING_WORDS = 3
_NOT_A_THING = frozenset(
    """
    idea ideas clue doubt doubts problem problems worries worry regrets regret reason reasons plan
    plans complaints complaint way chance matter wonder need needs offense offence kidding joke
    joking thanks thank rush hurry big deal hard feelings pressure luck sweat judgement judgment
    comment comments excuse choice option clue
    i i'm i've i'd i'll we we're you he she it they my our your his her their this that one
    """.split()
)
_ONE_OFF = re.compile(
    r"^\s*(?:tonight|today|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][\w'-]*")
# Words every statement about the user holds, or that name no thing.
_COMMON = frozenset(
    "the a an and or but if then so to of in on at for with from by about as is are was were be "
    "been being it its this that these those i me my mine you your we our us they them their he "
    "him his she her not no yes do does did doing have has had having will would can could "
    "should just also really very what when where which who how why there here some any all "
    "more most much many please thanks thank okay ok sure like know think want wants need needs "
    "going get got make made good great well now today tomorrow yesterday user user's users "
    "still again new instead anymore longer since week weeks day days month months year years "
    "time times thing things lot bit one two three first last next every each other another "
    "back up down out off over into after before until while because though actually update "
    "updates news change changed changes big little old right left quite kind sort way".split()
)


def says_changed(evidence: str, turn: str = "", *, strong: bool = False) -> bool:
    """Whether the words say that something changed: a change marker in ``evidence``, or its
    ``turn`` opening by announcing a change. ``strong``: not counting the markers that as
    often open a follow-up ("now", "again", "left", "new", ...: ``_WEAK``)."""
    if _ANNOUNCES.match(turn) is not None:
        return True
    found = _CORRECTION.finditer(evidence.lower())
    return any(not (strong and m.group(0) in _WEAK) for m in found)


def negated(text: str) -> list[set[str]]:
    """The things ``text`` says "no" to ("So no Gran Fondo this year"), each as the stems of
    its content words (``content_words``; see ``_NEGATED``)."""
    things = []
    for match in _NEGATED.finditer(text):
        words = _WORD.findall(match.group(1))
        if not words or words[0].lower() in _NOT_A_THING:
            continue
        thing: list[str] = []
        for k, word in enumerate(words):
            if _ONE_OFF.match(" ".join(words[k:])):
                thing = []  # "No badminton tonight": off this once, not for good
                break
            if word.lower() in _COMMON or len(thing) == _THING_WORDS:
                break
            thing.append(word)
        if found := content_words(" ".join(thing)):
            things.append(found)
    return things


def content_words(text: str) -> set[str]:
    """The content words of ``text``, as stems: the usual words of a statement about the
    user, words under three letters and contractions ("I'm") left out."""
    words = set()
    for match in _WORD.finditer(text):
        folded = match.group(0).lower().removesuffix("'s")
        if len(folded) >= 3 and "'" not in folded and folded not in _COMMON:
            words.add(stem_word(folded))
    return words


__all__ = ["content_words", "negated", "says_changed"]

"""Whether a user's sentence tells something: enough words that are neither function words
nor small talk, not only an apology or an announcement of what is to come, and not a question
that lost its mark.

The offline extractor keeps such a sentence as said when no rule phrases it
(core.extraction.verbatim); a profile question answered from a user's imported turns reads it
too (core.search.profile.tells). Read by words; what a sentence tells is not judged.
"""

from __future__ import annotations

import re

from agent_memory.core.framing import asks
from agent_memory.core.search import standing

MIN_WORDS = 4
MIN_CONTENT_WORDS = 2

_WORD = re.compile(r"[a-z0-9][a-z0-9'\u2019-]*")
_FUNCTION_WORDS = frozenset(
    "the a an and or but if then so to of in on at for with from by about as is are was were be "
    "been being it its it's this that that's these those i i'm i've i'd i'll me my you you're "
    "your we we're our they they're them their he he's she she's his her not no yes do does did "
    "have has had will would can could should just also really very too what when where which "
    "who how why there here some any all more most much many please pls plz thanks thank thx ty "
    "okay ok sure like know think get got make made now today well still even one up out over "
    "into than let let's lets there's anyway".split()
)
# Greetings, thanks and acknowledgements: a sentence made of these says nothing to remember.
_SMALL_TALK = frozenset(
    "hi hello hey morning evening night good great perfect awesome amazing cool nice lovely "
    "brilliant fantastic wonderful excellent helpful useful genius love loved lol haha hahaha "
    "lmao omg wow sounds sound looks look seems makes sense idea ideas help helps helped "
    "appreciate appreciated cheers bye see later talk soon exactly right agreed fine works "
    "work done noted gotcha yeah yep yup nope alright much lot lots again ugh hmm meh oops "
    "haha hehe idk tbh".split()
)


def informative(sentence: str) -> bool:
    """Whether ``sentence`` tells something: enough words, enough of them neither function
    words nor small talk, not only an apology (``_APOLOGY``), and not a question that lost its
    mark (one asking for a way of answering for good is an instruction: core.search.standing)."""
    if asks(sentence) and not standing.instructs(sentence):
        return False  # a question, unless one asking for a way of answering for good
    words = _WORD.findall(sentence.lower())
    # An end said short is news all the same ("quit roccos finally.", "stopped the gym.").
    short = MIN_CONTENT_WORDS if _ENDED.search(sentence.lower()) else MIN_WORDS
    if len(words) < short or announces(sentence) or _APOLOGY.match(sentence):
        return False
    content = [w for w in words if len(w) > 1 and w not in _FUNCTION_WORDS and w not in _SMALL_TALK]
    return len(content) >= MIN_CONTENT_WORDS


# What ends something the user did or had, in a verb: a sentence saying it needs fewer words
# ("quit roccos.", "stopped the gym.", "retired last month."). Not "now" nor "new": "Now five
# hives." is a value, which a correction reads only beside what it changes.
_ENDED = re.compile(
    r"^\W*(?:(?:so|and|also|finally|just|ok|okay)\W+)*(?:i\s+)?(?:(?:have|'ve)\s+)?"
    r"(?:quit|stopped|gave up|retired|resigned|cancel+ed|called off)\b"
)


# A sentence that only apologises ("Sorry for the long message.", "Sorry to bother you
# again!"), with no clause after it ("Sorry, I live in York." tells something).
_APOLOGY = re.compile(
    r"^\W*(?:(?:oh|so|and|also|ok|okay|again)\W+)*(?:sorry|apologies|i apologi[sz]e)\b[^,;:]*$",
    re.IGNORECASE,
)


# What announces something to come, not what it is ("I have some news", "one more thing").
_ANNOUNCING = frozenset("thing things question questions news update updates stuff".split())
# What else an announcement may hold: an interjection, or how many ("Ah, one more thing.",
# "three things today").
_BESIDE_ANNOUNCING = frozenset(
    "ah oh um uh another last final two three four five six couple few several quick".split()
)


def announces(clause: str) -> bool:
    """Whether ``clause`` only announces what is to come, naming nothing ("I have some news",
    "I have three things today", "Ah, one more thing."): a word of announcing, and no other
    word but function words, small talk and counts. A rule's phrasing of it ("The user has
    some news.") is no fact, nor is the sentence kept as said."""
    words = [w for w in _WORD.findall(clause.lower()) if len(w) > 1]
    return any(w in _ANNOUNCING for w in words) and all(
        w in _FUNCTION_WORDS or w in _SMALL_TALK or w in _ANNOUNCING or w in _BESIDE_ANNOUNCING
        for w in words
    )


__all__ = ["MIN_CONTENT_WORDS", "MIN_WORDS", "announces", "informative"]

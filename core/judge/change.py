"""Words that say something changed: the reading both the correction rule and the search read.

A later statement that changes an earlier one usually says so: a change marker ("instead",
"anymore", "no longer", "switched", "moved", "my new ...", "is off", "broke up", "now" but
not "for now" ...), or a turn opening by announcing one ("Update:", "Big news!", "There's
been a change."). A "no"
before a thing ("So no Gran Fondo this year") was read as a change for a while and dropped: as
often it answers ("No Oslo is still home"), is an idiom ("no idea why my Tesla ..."), holds
once or in one place ("No gym while I travel", "no Comcast at the cabin") or counts ("No
Tesla owner I know ..."), and each of those retired a record that was still true.

A marker denied just before it ("I haven't moved", "I didn't quit", "nothing changed") says
that nothing changed, unless a plan is denied "after all" ("We're not moving to York after
all": called off); so does one in a sentence that doubts or weighs ("Now I'm not sure when
the wedding is", "I'm thinking about my job now").

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
    r"updated?|stopped|quit|left|replaced|gave up|again|"
    r"(?<!\bfor )now|"
    r"(?:my|our|his|her|their|the) new|(?:is|are|was|'s) (?:off|gone|over)|"
    r"broke up|split up|retired|retiring|resigned|promoted|transferred|returned|returning|"
    r"accepted|ended up|used to|not (?:any|the) (?:more|longer)|interim|acting|taking over|"
    r"takes over|instead of)\b"
)  # matched against lowercased text: without IGNORECASE the search is three times faster
# Markers that as often open a follow-up as a change ("I left work early today", "asked again
# about my allergy", "my new sneakers"): a correction still reads them beside a link to what
# changed; the search does not rank by them. "now" stays a change for both ("so now Bianca is
# my sous-chef"), though a follow-up says it too ("feeling great now"); "for now" says that
# nothing changes. Not markers: "sold", "scrapped", "no more", "pushed": each retired a
# record still true ("I sold my first watercolour" / "I paint watercolours", "I have no more
# vacation days left" / "I get 25 vacation days a year", "I pushed back on my manager").
_WEAK = frozenset(
    "again left moving acting interim returning accepted updated update".split()
    + [f"{who} new" for who in ("my", "our", "his", "her", "their", "the")]
)
# A marker denied just before it says that nothing changed: "I haven't moved, I still live in
# Leeds", "I didn't quit my job", "the launch hasn't really changed", "nothing changed"; each
# retired the record it says again. Not the markers said with a negation ("I don't eat meat
# anymore", "not any longer"), nor a plan denied "after all" (called off).
_DENIED = re.compile(
    r"(?:\b(?:not|never|nothing)|n['\u2019]t|\b(?:have|has|had|did|do|does|was|were|is|are|wo|"
    r"ca|could|would|should)nt)\s+(?:[a-z'\u2019]+\s+)?$"
)
# A denied plan "after all" is a plan called off: "We're not moving to York after all".
_CALLED_OFF = re.compile(r"[^,.;!?]*\bafter all\b")
# The markers that are themselves negative ("anymore", "no longer", "not any more" ...): said
# with a negation, read off the marker list rather than listed again.
_NEGATIVE = re.compile(r"(?:no|not) |any")
# Words that doubt or weigh rather than tell: a marker in their sentence says no change ("Now
# I'm not sure when the Porto wedding is", "I'm thinking about my job at Google now": each
# retired the record it names by "now").
_DOUBTS = re.compile(
    r"\b(?:not (?:so |too |really )?sure|unsure|(?:don't|do not|dont) know|dunno|no idea|"
    r"wondering|thinking about|thinking of|considering|undecided)\b"
)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
# A turn that opens by announcing a change: its sentences may each state one.
_ANNOUNCES = re.compile(
    r"^\W*(?:[\w']+[\s,]+){0,3}?(?:updates?|news|(?:a |some )?changes?|change of plans?)\b"
    r"[^.!?:,\n]{0,20}[.!?:,\n]",
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
    "love loves loved hate hates going get got make made good great well now today tomorrow "
    "yesterday user user's users "
    "still again new instead anymore longer since week weeks day days month months year years "
    "time times thing things lot bit one two three first last next every each other another "
    "back up down out off over into after before until while because though actually update "
    "updates news change changed changes big little old right left quite kind sort way".split()
)


def says_changed(evidence: str, turn: str = "", *, strong: bool = False) -> bool:
    """Whether the words say that something changed: a change marker in ``evidence``, or its
    ``turn`` opening by announcing a change (``change_spans``, ``announces``), unless the
    evidence doubts or weighs (``_DOUBTS``: "Update: not sure when the wedding is now")."""
    if change_spans(evidence, strong=strong):
        return True
    return announces(turn) and _DOUBTS.search(evidence.lower()) is None


def announces(turn: str) -> bool:
    """Whether ``turn`` opens by announcing a change ("Update: ...", "Big news!")."""
    return _ANNOUNCES.match(turn) is not None


def change_spans(text: str, *, strong: bool = False) -> list[tuple[int, int]]:
    """(start, end) of each change marker in ``text``, but one denied (``_DENIED``).
    ``strong``: not counting the markers that as often open a follow-up ("again", "left",
    "my new", ...: ``_WEAK``)."""
    lowered = text.lower()
    doubted = _doubted(lowered)
    return [
        m.span()
        for m in _CORRECTION.finditer(lowered)
        if not (strong and m.group(0) in _WEAK)
        and not any(start <= m.start() < end for start, end in doubted)
        and not (
            not _NEGATIVE.match(m.group(0))
            and _DENIED.search(lowered, 0, m.start())
            and not _CALLED_OFF.match(lowered, m.end())
        )
    ]


def _doubted(lowered: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``lowered`` that doubts or weighs (``_DOUBTS``)."""
    if _DOUBTS.search(lowered) is None:
        return []  # the common case, without splitting the text
    return [m.span() for m in _SENTENCE.finditer(lowered) if _DOUBTS.search(m.group(0))]


def content_words(text: str) -> set[str]:
    """The content words of ``text``, as stems: the usual words of a statement about the
    user, words under three letters and contractions ("I'm") left out."""
    words = set()
    for match in _WORD.finditer(text):
        folded = match.group(0).lower().removesuffix("'s")
        if len(folded) >= 3 and "'" not in folded and folded not in _COMMON:
            words.add(stem_word(folded))
    return words


__all__ = ["announces", "change_spans", "content_words", "says_changed"]

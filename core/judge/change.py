"""Words that say something changed: the reading both the correction rule and the search read.

A later statement that changes an earlier one usually says so: a change marker ("instead",
"anymore", "no longer", "switched", "moved", "my new ...", "is off", "broke up", "now" but
not "for now", "pushed to" a date ...), or a turn opening by announcing one ("Update:", "Big
news!", "There's been a change."). A date moved names what moved (``moved_thing``): the
record it changes must name all of it, or "the work Christmas party got pushed to January"
retires the housewarming party. A "no"
before a thing ("So no Gran Fondo this year") was read as a change for a while and dropped: as
often it answers ("No Oslo is still home"), is an idiom ("no idea why my Tesla ..."), holds
once or in one place ("No gym while I travel", "no Comcast at the cabin") or counts ("No
Tesla owner I know ..."), and each of those retired a record that was still true.

A marker denied just before it ("I haven't moved", "I didn't quit", "nothing changed") says
that nothing changed, unless a plan is denied "after all" ("We're not moving to York after
all": called off); so does one in a clause that doubts or weighs ("Now I'm not sure when
the wedding is", "I'm thinking about my job now").

core.extraction.corrections retires the stored records such words correct;
core.search.later ranks the result that says them above an earlier one naming the same thing
the question asks about. Limits: a word list, not a discourse model. A change said with none
of these ("I've started eating chicken" after "I'm pescatarian") is not seen, and "now" or
"again" also mark follow-ups that change nothing ("Now, the book club is at my house"), which
is why both readers also require a link to what changed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.values import MONTH_NAMES

# A date: a day of a month, a month or a weekday (whole names and their abbreviations), "next"
# week or weekday, or "the 14th" (``_CORRECTION``'s dates moved).
_MONTHS = {*MONTH_NAMES, *(name[:3] for name in MONTH_NAMES), "sept"}
_MONTH = rf"(?:{'|'.join(sorted(_MONTHS, key=lambda m: (-len(m), m)))})\.?"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|"
_WEEKDAY += r"thu|fri|sat|sun)"
_TO_A_DATE = (
    rf"(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?![a-z])|{_MONTH}\s+\d{{1,2}}\b"
    rf"|{_MONTH}(?![a-z])|{_WEEKDAY}s?(?![a-z])|next\s+(?:week|month|year|{_WEEKDAY})(?![a-z])"
    # "the 14th" closing its clause or before "of": not "the 5th floor"
    r"|the\s+\d{1,2}(?:st|nd|rd|th)(?=\s*(?:[,.;:!?)]|$|(?:of|and|but|so|because|bc|now|instead)\b))"
)
# A date moved to another ("half marathon got pushed to oct 25", "brought forward to
# Wednesday"), a change marker of ``_CORRECTION``: "pushed" and the like (``_MOVED``, the verbs
# ``_DATE_MOVE`` reads too) only before a date (``_TO_A_DATE``), not in a clause that says it
# is for once ("pushed gym to Saturday this week"). Not before an amount or a time of day: "I
# upped the flour to 500g for today's batch", "my train got delayed to 9:40" changed nothing
# standing, and "my sister's landlord raised her rent to 1500" is someone else's.
_MOVED = r"(?:pushed|delayed|brought forward|put back|bumped)"
_MOVED_TO_A_DATE = (
    _MOVED + r"(?:\s+[\w'-]+){0,3}?"
    r"\s+(?:back\s+|forward\s+)?(?:to|until|till)(?=\s+(?:" + _TO_A_DATE + r"))"
    r"(?![^.!?;,]{0,200}\b(?:today|tonight|this (?:morning|afternoon|evening|week|time)|"
    r"for once)\b)"
)
_CORRECTION = re.compile(
    r"\b(instead|anymore|any more|any longer|no longer|not any ?more|switch(?:ed|ing)?|"
    r"chang(?:ed|e of plans?)|moved|moving|cancel+ed|called off|postponed|rescheduled|"
    r"updated?|stopped|quit|left|replaced|gave up|again|"
    r"(?<!\bfor )now|"
    r"(?:my|our|his|her|their|the) new|(?:is|are|was|'s) (?:gone|over)|"
    # "off" closing its clause calls a plan off ("so Berlin is off"); "Mark is off today",
    # "I'm off to bed", "off sick" say who is away
    r"(?:is|are|was|'s) off(?=\s*(?:now|for now|for good|again|too|sadly|after all)?\s*"
    r"(?:[,.;:!?)]|$))|"
    r"broke up|split up|retired|retiring|resigned|promoted|transferred|returned|returning|"
    r"accepted|ended up|used to|not (?:any|the) (?:more|longer)|interim|acting|taking over|"
    r"takes over|instead of|" + _MOVED_TO_A_DATE + r")\b"
)  # matched against lowercased text: without IGNORECASE the search is three times faster
# The change markers that say a date moved (``_CORRECTION``), and a doubt just before one.
_DATE_MOVE = re.compile(_MOVED + r"\b")
_MAYBE = re.compile(r"\b(?:may|might|could)\s+(?:get|be|have been|\w+ly)?\s*$")
# A move for a while is a stay, not a new home: "We've moved to Mum's for three weeks while the
# builders gut our house", "moved in with my sister for a fortnight", "moved to Lisbon for
# three months to work remotely"; the bounded time said in the move's own clause and closing a
# phrase (``_A_STAY``: not "for the winter sun", "for a day job"). Not a move whose sentence
# goes on to say it lasted (``_LASTED``: "... for the summer and ended up staying for good",
# "... and I've lived here ever since"), one in a past year ("for the summer of 2019", "in
# 2015"), a start ("in time for the spring term"), a date moved ("Book club moved to Tuesdays
# for the autumn": ``_TO_A_DATE``), nor "for good", "for work", "for the long term", a month
# ("We moved to Leeds for January so the kids could start at the new school"), "until ...",
# "while ..." (a review found "until further notice" and "while I was pregnant"). Limits: the
# move's clause is what is read, so "I moved to Lisbon for a few months, and now I've bought a
# flat there" said as two records reads the first as a stay.
_RELOCATES = frozenset(("moved", "moving"))
# How far around a marker its clause, a stay's time or whose it is are read: a long text of
# many markers is read in time linear in its length.
_NEAR = 300
_A_STAY = re.compile(
    r"(?<!\bin time )\bfor\s+(?:(?!good\b|work\b|long\b)[\w-]+\s+){0,3}?(?:nights?|days?|weeks?|"
    r"weekends?|fortnight|"
    r"months?|term|semester|summer|winter|spring|autumn|holidays?|season|time\s+being)"
    r"(?=\s*(?:$|[,.;:!?)\u2013-]|(?:while|to|on|with|and|so|but|because|then|as|at|or)\b))"
)
_LASTED = re.compile(
    r"\b(?:stayed|ended up staying|decided to stay|staying (?:on|put|permanently)|for good|"
    r"ever since|still here|still there|settled|bought|"
    r"never left|not coming back|never came back|never went back|(?:19|20)\d\d|years? ago|"
    r"start|starting|begin|beginning|new school|new job)\b"
)
# "left" saying what remains: a quantity or "nothing", "not much" ... just before it (at most three
# words between: "3 days of leave left"); and what leaving would take as its object after it.
_HOW_MUCH = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|few|a\s+couple\s+of|"
    r"some|any|no|nothing|none|much|little|plenty|lots|a\s+lot|a\s+bit|enough|half)"
    r"\s+(?:(?!(?:i|we|you|he|she|they|it|ago|but|so|and|then|because|when|after)\b)"
    r"[\w'-]+\s+){0,3}$"
)
# "now that" opening a clause says since when, not that something changed: "Now that Tom's
# settled in, we're looking for a bigger house". Not said of the user or the user's ("Now that
# I'm vegan, ...", "Now that my contract has finished, I work at Google"), nor inside a clause
# ("I work at Google now that my contract at Amazon has finished").
_SINCE = re.compile(r"now\s+that\s+(?!(?:i|we|my|our)\b)")
_OPENS_A_CLAUSE = re.compile(r"(?:^|[.!?,;:(]|\b(?:and|but|so|just|only))\W*$")
_LEFT_REMAINS = re.compile(
    r"\s*(?:$|[,.;:!?)\u2013-]|(?:at|in|on|for|to|of|over|until|till|before|this|that|now|and|"
    r"but|so|though|still|i|we|lol|haha)\b)"
)
# Markers that as often open a follow-up as a change ("I left work early today", "asked again
# about my allergy", "my new sneakers"): a correction still reads them beside a link to what
# changed; the search does not rank by them. "now" stays a change for both ("so now Bianca is
# my sous-chef"), though a follow-up says it too ("feeling great now"); "for now" says that
# nothing changes. Not markers: "sold", "scrapped", "no more", "pushed" (but before a date):
# each retired a record still true ("I sold my first watercolour" / "I paint watercolours", "I
# have no more vacation days left" / "I get 25 vacation days a year", "I pushed back on my
# manager").
_WEAK = frozenset(
    "again left moving acting interim returning accepted updated update".split()
    + [f"{who} new" for who in ("my", "our", "his", "her", "their", "the")]
)
# Before "again", a return, which is a change: the user in a state now ("I'm single again"),
# or going back to one ("I started smoking again", "we got back together again", "I've had to
# move again").
_BACK_IN = re.compile(
    r"\b(?:i'm|i am|im|we're|we are|i've|we've|i'll be)\b"
    r"(?!.*\b(?:was|were|got|had|been to|been at)\b)"
    r"|\b(?:start(?:ed|ing)?|began|resum\w*|got back|went back|gone back|going back|"
    r"back (?:on|to|together|in)|move[ds]?|moving|switched)\b"
)
# A marker denied just before it says that nothing changed: "I haven't moved, I still live in
# Leeds", "I didn't quit my job", "the launch hasn't really changed", "nothing's changed";
# each retired the record it says again. The denial is a negation, at most one word and a few
# adverbs before the marker.
_DENIED = re.compile(
    r"(?:\b(?P<none>nothing|nothing['\u2019]s|nobody|no one)|\b(?:not|never)|n['\u2019\u00b4]t|"
    r"\b(?:have|has|had|did|do|does|was|were|is|are|wo|ca|could|would|should|ai)nt)\s+"
    r"(?:[a-z'\u2019]+\s+)?(?:(?:really|ever|actually|even|been|yet)\s+)*$"
)
# Markers a negation before them does not deny: the negative ones ("anymore", "no longer",
# "not any more"), the adverbs, whose negation is the state's ("I don't smoke now", "the book
# club's not Tuesdays now"), and a plan's "-ing", whose negation calls it off ("we aren't
# moving to York", "won't be switching").
_UNDENIED = re.compile(r"(?:no|not) |any|now$|again$|instead|\w+ing$")
# A plan denied "after all" or "in the end", closing its clause, is called off too ("Never
# switched to Android in the end"); not "after all these years", nor "nothing changed after
# all".
_CALLED_OFF = re.compile(r"[^,.;!?]{0,200}\b(?:after all|in the end)\s*(?:[,.;!?]|$)")
# Words that doubt or weigh rather than tell: a marker in their clause says no change ("Now
# I'm not sure when the Porto wedding is", "I'm thinking about my job at Google now": each
# retired the record it names by "now"); not "considering the price, I switched gyms".
_DOUBTS = re.compile(
    r"\b(?:not (?:so |too |really |100% )?sure|unsure|(?:don['\u2019]t|do not|dont) know|dunno|"
    r"idk|no idea|wondering|on the fence|undecided|thinking (?:about|of)|"
    r"debating (?:whether|if)|considering (?:whether|if|\w+ing))\b"
)
# Where one clause ends and the next begins: a doubt in one clause ("..., and honestly idk how
# to feel") leaves the change the clause before it states.
_CLAUSE_BREAK = re.compile(r"[.!?,;:]+|\s(?:and|but|so)\s")
# A turn that opens by announcing a change: its sentences may each state one.
_ANNOUNCES = re.compile(
    r"^\W*(?:[\w']+[\s,]+){0,3}?(?:updates?|news|(?:a |some )?changes?|change of plans?)\b"
    r"[^.!?:,\n]{0,20}[.!?:,\n]",
    re.IGNORECASE,
)
# A sentence that asks the assistant for something ("I need help to write an announcement
# ...", "Can you ...", "Please ..."): a turn's announcement is of its news, not its requests,
# which change nothing ("Big news! ... I am buying the pharmacy. I need help to write an
# announcement for the patients, in English" retired "Please use simple English when you
# answer me").
_REQUEST = re.compile(
    r"^\W*(?:(?:and|also|so|but|now|ok|okay|anyway)\W+)*(?:"
    r"i\s+(?:need|want|would like|'d like)\s+(?:your\s+|some\s+)?help\b|"
    r"i\s+(?:need|want|would like|'d like)\s+(?:you\s+to|to\s+(?:write|draft|prepare|send|ask))\b|"
    r"(?:can|could|would|will)\s+(?:you|u)\b|please\b|pls\b|help\s+me\b|"
    r"(?:write|draft|give|make|tell|show|suggest|explain|translate|fix|check|create|prepare|"
    r"redo|update)\s+(?:me|us|a|an|the|my|our|some|this|that)\b)",
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
    evidence doubts or weighs (``_DOUBTS``: "Update: not sure when the wedding is now") or asks
    the assistant for something (``_REQUEST``: "Big news! ... I need help to write an
    announcement")."""
    if change_spans(evidence, strong=strong):
        return True
    if _REQUEST.match(evidence) is not None:
        return False  # a turn announces its news, not its requests (``_REQUEST``)
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
        and not _denied(lowered, m)
        and not (m.group(0) in _RELOCATES and for_a_while(lowered[m.end() : m.end() + _NEAR]))
        and not (m.group(0) == "left" and _remaining(lowered, m))
        and not (m.group(0) == "again" and _recurs(lowered, m.start()))
        and not (m.group(0) == "now" and _since(lowered, m.start()))
    ]


def _since(lowered: str, at: int) -> bool:
    """Whether the "now" at ``at`` opens a clause "now that ..." said of someone or something
    other than the user (``_SINCE``)."""
    return _SINCE.match(lowered, at) is not None and bool(
        _OPENS_A_CLAUSE.search(lowered, max(0, at - 20), at)
    )


def _recurs(lowered: str, at: int) -> bool:
    """Whether the "again" at ``at`` says that something happened once more ("my blood sugar was
    high again this morning", "I got sick again", "the heating broke again") rather than that
    the user is back in a state ("I'm vegetarian again", "I'm back on nights again", "I
    started smoking again"): its clause says no present state of the user's nor a return
    before it (``_BACK_IN``)."""
    clause = re.split(r"[,.;:!?]|\b(?:and|but|so)\b", lowered[:at])[-1].replace("\u2019", "'")
    return _BACK_IN.search(clause) is None


def _remaining(lowered: str, left: re.Match[str]) -> bool:
    """Whether "left" says what remains ("Still got two months left at Pell Orchard", "nothing
    left in the fridge"), not who left: a quantity just before it, in its clause (``_HOW_MUCH``:
    not "Three weeks ago I left Deloitte"), and after it no object, only a preposition, a
    time, a clause's end (``_LEFT_REMAINS``: not "Two of my colleagues left the firm", "Three
    of us left Accenture together", "me and two colleagues left deloitte")."""
    if _HOW_MUCH.search(lowered, max(0, left.start() - 80), left.start()) is None:
        return False
    return _LEFT_REMAINS.match(lowered, left.end()) is not None


def for_a_while(moved: str) -> bool:
    """Whether a move whose words after its verb are ``moved`` ("to Mum's for three weeks ...")
    is a stay: a bounded time in its clause (``_A_STAY``), not to a date, and not said
    to have lasted in its sentence (``_LASTED``)."""
    lowered = moved[:_NEAR].lower()
    end = _CLAUSE_BREAK.search(lowered)
    if _A_STAY.search(lowered, 0, end.start() if end else len(lowered)) is None:
        return False
    target = re.match(r"\s*(?:(?:back|up|down|over|in)\s+)?(?:to|into|until|till)\s+", lowered)
    if target and re.match(
        rf"(?:{_TO_A_DATE}|year\s+\d|nights|days|shifts)", lowered[target.end() :]
    ):
        return False  # "Book club has moved to Tuesdays for the autumn": a date moved
    sentence = _SENTENCE_END.search(lowered)
    return _LASTED.search(lowered, 0, sentence.start() if sentence else len(lowered)) is None


# A correction's evidence is read once per record it is linked against (and once more for how
# many it retires): read what moved once per text.
@functools.lru_cache(maxsize=1024)
def moved_thing(text: str) -> frozenset[str] | None:
    """When every change ``text`` says is a date moved ("the work Christmas party got pushed
    to January"), the content words of what moved, as stems: the object of the marker's verb
    ("pushed my bisoprolol refill to"), else its clause's words before it ("work",
    "christmas", "party"). A record must name them all to be what moved ("Our housewarming
    party is on 22 March" shares only "party"). None when another change is said."""
    lowered = text.lower()
    spans = change_spans(text, strong=True)
    marks = [_DATE_MOVE.match(lowered, a) for a, _ in spans]
    if not spans or not all(marks):
        return None
    thing: set[str] = set()
    for (start, end), mark in zip(spans, marks, strict=True):
        verb = content_words(mark.group(0)) if mark else set()
        moved = content_words(lowered[start:end]) - verb  # "pushed my refill to": the object
        if not moved:  # "the party got pushed to": the clause's words before it
            near = max(0, start - _NEAR)
            breaks = [m.end() for m in _CLAUSE_BREAK.finditer(lowered, near, start)]
            moved = content_words(lowered[breaks[-1] if breaks else near : start])
        thing |= moved
    return frozenset(thing)


def _denied(lowered: str, marker: re.Match[str]) -> bool:
    """Whether the ``marker`` found in ``lowered`` is denied just before it (``_DENIED``):
    not one of ``_UNDENIED``, nor a plan called off (``_CALLED_OFF``). A date moved is also
    denied "after all" ("the exam wasn't pushed to Friday after all": nothing moved), and
    doubted by "may", "might" or "could" ("the vote may get pushed to next week")."""
    if _UNDENIED.match(marker.group(0)):
        return False
    date_moved = _DATE_MOVE.match(marker.group(0)) is not None
    if date_moved and _MAYBE.search(lowered, max(0, marker.start() - 60), marker.start()):
        return True
    denial = _DENIED.search(lowered, max(0, marker.start() - 80), marker.start())
    if date_moved:
        return denial is not None
    if denial is None:
        return False
    return denial.group("none") is not None or not _CALLED_OFF.match(lowered, marker.end())


def _doubted(lowered: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of ``lowered`` that doubts or weighs (``_DOUBTS``)."""
    if _DOUBTS.search(lowered) is None:
        return []  # the common case, without splitting the text
    breaks = list(_CLAUSE_BREAK.finditer(lowered))
    ends = [m.start() for m in breaks] + [len(lowered)]
    starts = [0] + [m.end() for m in breaks]
    return [(a, b) for a, b in zip(starts, ends, strict=True) if _DOUBTS.search(lowered, a, b)]


# Whose change a marker says: the subject of its clause, when that is someone other than the
# user: one or more of the user's people ("My colleague Orla left St Brigid's", "Our
# neighbours on the next boat moved out", "Two of my colleagues quit", "Ngozi's husband got a
# job"), a name ("Also, Orla left"), or "he", "she", "they"; then only helping words and
# adverbs up to the marker. Not the user with them ("My wife and I moved", "Me and my mate
# Dave quit Monzo"), nor a thing ("The London trip has moved"), nor a clause that says
# nothing before the marker ("Quit Kingfisher on Friday": whose is not said).
_OPENERS = r"(?:(?:and|also|so|but|plus|oh|btw|then|well|anyway|meanwhile)\W+)*"
_DOER = re.compile(
    rf"\W*{_OPENERS}(?:"
    r"(?:(?:one|two|three|some|both|all|most|a\s+few|a\s+couple)\s+of\s+)?(?:my|our)\s+"
    r"(?P<people>[a-z][\w'-]*(?:,?\s+[a-z][\w'-]*){0,3}?)"
    r"(?:\s+(?:from|at|in|on|upstairs|downstairs|next\s+door)\b(?:\s+[\w'-]+){0,4}?)?"
    r"|(?P<owner>[a-z][\w-]*)['\u2019]s\s+(?P<kin>[a-z][\w-]*)"
    r"|(?P<pronoun>he|she|they)"
    r"|(?P<name>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r")(?:['\u2019]s|['\u2019]ve|['\u2019]re)?"
    r"(?:\s+(?:has|have|had|is|are|was|were|just|finally|also|recently|already|both|all|"
    r"got|gotten|been|now|officially|actually))*\s*$"
)
# Where a change's clause ends: a sentence or clause mark, or "and", "but", "so", "because".
_CLAUSE_END = re.compile(r"[.!?,;:]+|\s(?:and|but|so|because|while|which)\s")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
# The user with them: "Me and my mate Dave quit", "I and my sister".
_AND_THE_USER = re.compile(r"\b(?:me|i|we|us)\s+(?:and|&)\s+$")
# A change done to or with the user, whoever made it: "My boss moved me to nights", "cancelled
# our membership", "moved in with us", "left Deloitte and took me with him"; and the user's own
# words that say they did it too ("and so did I", "me too", "I followed her").
_TO_THE_USER = re.compile(
    r"\A\s*(?:(?:out|up|over|in|back|away|on)\s+)?(?:me|us|my|our)\b|\bin\s+with\s+(?:me|us)\b"
    r"|\b(?:took|take|takes|taking|brought|bring|brings|with)\s+(?:me|us)\b"
)
_SO_DID_I = re.compile(
    r"\b(?:so|as|nor|neither)\s+(?:did|have|had|am|was|will)\s+(?:i|we)\b|\bme\s+too\b"
    r"|\b(?:i|we)\s+(?:[\w'-]+\s+){0,2}?(?:too|as\s+well)\s*(?:[.,;!?]|$)|\bsame\s+here\b"
    r"|\b(?:followed|follow|following|joined|join|joining|went\s+with|go\s+with|with)\s+"
    r"(?:him|her|them)\b"
)
_THEIR_NEW = re.compile(r"(?:his|her|their) new\b")
_CARRIED = re.compile(r"\s*(?:and|,)\s*$")


def theirs(text: str, person: Callable[[str], bool]) -> tuple[str, frozenset[str]]:
    """``text`` without the clauses whose change someone else made (``_DOER``: a word of its
    subject ``person`` says names one of the user's people, a name as written, or "he", "she",
    "they"), and the content words naming those people ("colleague", "orla"; not where they
    are from). A clause that goes on after "and" or a comma with no subject of its own ("Dan
    moved out and moved to Gateshead") has the doer of the one before. Unchanged, with no
    words, when every change is the user's or no one's, done to the user (``_TO_THE_USER``),
    or the user says in the same sentence they did it too (``_SO_DID_I``)."""
    lowered = text.lower()
    spans = change_spans(text)
    if not spans:
        return text, frozenset()
    cut: list[tuple[int, int]] = []
    who: set[str] = set()
    previous: tuple[int, set[str]] | None = None  # where the last clause of theirs ended
    for start, end in spans:
        if cut and start < cut[-1][1]:
            continue  # in a clause of theirs already ("my sister moved to Margate instead")
        near = max(0, start - _NEAR)  # a clause is read back this far, and on as far
        breaks = [m.end() for m in _CLAUSE_END.finditer(lowered, near, start)]
        begin = breaks[-1] if breaks else near
        after = _CLAUSE_END.search(lowered, end, end + _NEAR)
        finish = after.start() if after else min(len(lowered), end + _NEAR)
        words = _doer(text, lowered, begin, start, person)
        if words is None and previous is not None:
            carried = not lowered[begin:start].strip(" ,") and previous[0] <= begin
            if carried and _CARRIED.search(lowered, max(0, begin - 10), begin) is not None:
                words = previous[1]  # "Dan moved out and moved to Gateshead"
        sentence_end = _SENTENCE_END.search(lowered, end, end + _NEAR)
        rest = lowered[end : sentence_end.start() if sentence_end else end + _NEAR]
        if words is not None and _TO_THE_USER.search(rest):
            words = None  # "My boss moved me to nights": the user's change, whoever made it
        if words is None:
            previous = None
            continue
        cut.append((begin, finish))
        who |= words
        previous = (finish, words)
    if not cut:
        return text, frozenset()
    for k, (_, finish) in enumerate(cut):  # the user's words after a clause of theirs
        stop = _SENTENCE_END.search(lowered, finish, finish + _NEAR)
        until = min([stop.start() if stop else finish + _NEAR, *(b for b, _ in cut[k + 1 : k + 2])])
        if _SO_DID_I.search(lowered, finish, until):
            return text, frozenset()  # "My sister left Asda and so did I"
    kept, at = [], 0
    for begin, finish in cut:
        kept.append(text[at:begin])
        at = max(at, finish)
    kept.append(text[at:])
    return " ".join(part.strip() for part in kept if part.strip()), frozenset(who)


def _doer(
    text: str, lowered: str, begin: int, start: int, person: Callable[[str], bool]
) -> set[str] | None:
    """The content words naming who made the change whose marker is at ``start`` (its clause
    opening at ``begin``), when that is someone other than the user (``_DOER``); else None."""
    if _THEIR_NEW.match(lowered, start) and not lowered[begin:start].strip(" ,"):
        return set()  # "Her new flat has a sea view": theirs (not "I moved into her new flat")
    if _AND_THE_USER.search(lowered, max(0, begin - 20), begin):
        return None  # "Me and my mate Dave quit Monzo": the user too
    doer = _DOER.match(lowered, begin, start)
    if doer is None:
        return None
    if doer.group("pronoun"):
        return set()
    group = next(g for g in ("people", "kin", "name") if doer.group(g))
    written = text[doer.start(group) : doer.end(group)]
    if group == "name":
        # A name as written: capitalised, and no other word of the language (``person``:
        # "Orla", not "Finally", "Berlin", "Google").
        first = written.split()[0]
        if not first[0].isupper() or first.isupper() or not content_words(first):
            return None  # "We", "It", "This": no name
        return content_words(written) if person(written) else None
    names = [w for w in re.split(r"[\s,]+", written) if w]
    if not any(not w.isupper() and person(w.lower()) for w in names):
        return None  # "my MA is now ...", "our flat moved ...": no one
    return content_words(written)


def content_words(text: str) -> set[str]:
    """The content words of ``text``, as stems: the usual words of a statement about the
    user, words under three letters and contractions ("I'm") left out."""
    words = set()
    for match in _WORD.finditer(text):
        folded = match.group(0).lower().removesuffix("'s")
        if len(folded) >= 3 and "'" not in folded and folded not in _COMMON:
            words.add(stem_word(folded))
    return words


__all__ = [
    "announces",
    "change_spans",
    "content_words",
    "for_a_while",
    "moved_thing",
    "says_changed",
    "theirs",
]

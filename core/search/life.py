"""The parts of the user's own life a text says in the first person: work, home, studies, car,
and the user's own name.

The commonest everyday questions ("Where do I work?", "Where do we live?", "What car do we
drive?") are answered by statements that never use the question's word ("I'm PM at Brandt",
"we finally moved, got the keys to our house in Bromley", "we sold the CR-V and bought an
Ioniq 5"), which the packaged model scores under every floor. Each part is one row of
``PARTS``: what says it (a pattern or a reader; the car's is core.search.vehicle), the words a
question asks about it by, and the words that say it changed. core.search.subject lets a text
saying a part name the words it is asked by (the gate's subject signal), and core.search.later
ranks the later of two statements about the same part first when it says the change.

Work is also said as what someone is, an occupation (core.search.roles: "I was a schoolmaster
for thirty-eight years", "The user's mother is a baker in Rennes"), which core.search.subject
reads for a question about the user's work or one person's. Where someone other than the user
lives is said of them (``home_holders``: "My sister Ewa lives in Chicago", "my parents' place
in Ipoh"), which core.search.subject reads for a question about where one person lives.
``workplace`` and ``region`` say whether a word a question asks by is a kind of place one works
at ("Which hospital do I work at?") or lives in ("Which city does my sister live in?").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from agent_memory.core.judge.introduction import introduction
from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.values import MONTHS_AND_WEEKDAYS
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search import roles, told, vehicle
from agent_memory.core.sentences import sentence_spans

# Where the user works or lives, said without the word: the answers of the commonest everyday
# questions, which the packaged model scores under every floor ("Where do I work?" / "The
# user is a senior tax manager at Beaumont Clarke LLP.": 0.17; "Where do we live?" / "we
# finally moved, got the keys to our house in Bromley": 0.24). Only the user's own, in the
# first person, and only in words that say nothing else: "my new job", "I work at", a role
# at a named place ("I'm PM at Brandt"); "our house", "our place", "we moved into", "we bought
# a place in" (``_OWN_HOME``'s own comment says which places and moves). Not the ambiguous
# words alone ("company", "office", "shift", "flat", "moved", "rent": "we had company over",
# "a flat white", "the host moved our check-in"), nor anyone else's job or home ("my sister
# got promoted", "my parents' house"), nor a place one is at or with ("I'm at dinner with
# Sarah", "I'm a member at the golf club"). Not "I live in <Place>" nor "based in <Place>"
# either: WordNet cannot tell a town it does not know from a product ("I live in Jira these
# days") nor the user's office from someone else's ("a client based in Tokyo"), and a review
# of such a reading found it 19 better, 33 worse (benchmarks/README.md, "Session 44").
_I = r"\b(?:i|we|the user)(?:'ve| have| had)?\s+"
# When one works, said before a named place ("I work nights in the ER at Harborview", "I work
# weekends at Nando's"), or working from home: a job all the same. Not "I work out", "I work
# nights on my novel", "I work evenings at the gym".
_WORK_WHEN = (
    r"(?:nights|days|weekends|evenings|mornings|shifts|night\s+shifts?|part[- ]time|"
    r"full[- ]time)(?:\s+\w+){0,3}?\s+(?:at|for|in)\s+(?:the\s+)?(?-i:[A-Z])"
    r"|remotely\s+for\b|from\s+home\b"
)
_OWN_WORK = re.compile(
    rf"{_I}(?:\w+\s+)?(?:works?|worked|working)\s+(?:(?:at|for|as)\b|{_WORK_WHEN})"
    r"|\b(?:my|our|the user's)\s+(?:new\s+|old\s+|current\s+)?"
    r"(?:job|employer|colleagues?|coworkers?|co-workers?)\b"
    # "I just got a new job", and "Started a new job ..." without its "I"
    rf"|(?:{_I}|(?:^|[.!?]\s+))(?:just\s+|finally\s+)?"
    r"(?:got|started|accepted|landed|took|start|quit|left)\s+(?:a\s+|the\s+|my\s+)?(?:new\s+)?"
    r"(?:job|position)\b"
    rf"|{_I}(?:just\s+)?(?:resigned|retired|been promoted|got promoted)\b"
    # A job changed in other words, read narrowly (a review found "new work shoes", "an offer
    # at UCL to study", "took retirement planning advice" and "if I accepted ..." in wider
    # readings): "Now I start new work!" as the clause's end; a job offer, or an offer at a
    # name "as" a role ("I accepted an offer at Wealthsimple as senior product designer", not
    # "an offer at Tesco, 3 for 2"); retirement taken, then the clause's end, a time or a named
    # employer ("The user has accepted early retirement from Volvo.")
    rf"|(?<!\bif ){_I}(?:has\s+|just\s+|finally\s+|both\s+)?"
    r"(?:(?:start|started|starting|got|found|begin|began)\s+(?:a\s+)?new\s+work\s*(?:[.!?,;]|$)"
    r"|(?:accepted|got|took)\s+(?:an|the|a)\s+(?:job\s+offer\s+(?:at|from|with)\s+(?-i:[A-Z])"
    r"|offer\s+at\s+(?-i:[A-Z])[\w&.'-]*(?:\s+(?-i:[A-Z])[\w&.'-]*)*\s+as\s+(?:an?\s+)?[a-z])"
    r"|(?:accepted|took|taken|taking)\s+(?:an?\s+|the\s+)?(?:early\s+|voluntary\s+)*"
    r"retirement(?:\s*(?:[.!?,;]|$)|\s+(?:in|at|last|this|next|after|aged|today|now)\b"
    r"|\s+from\s+(?-i:[A-Z])))"
    r"|\b(?:i'm|i am|i was|i work as|i worked as|the user is|the user was)\s+(?:an?\s+)?"
    r"(?P<role>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+(?:at|for)\s+(?-i:[A-Z])"
    # With its article, a role holding a number or at "the" place, if a job (``_a_job``)
    r"|\b(?:i'm|i am|i was|i work as|i worked as|the user is|the user was)\s+an?\s+"
    r"(?P<named>(?:[a-z0-9][\w-]*\s+){0,2}[a-z][\w-]*)\s+at\s+(?:the\s+)?(?-i:[A-Z])"
    # "I've been a UX researcher at Lumen Health for two years": with its article and a time
    # span, since "I've been" is as often a state ("I've been a bit lost at Uni", "I've been
    # shopping at Tesco", "I've been a bridesmaid at Sarah's wedding")
    r"|\b(?:i've been|i have been|the user has been)\s+an?\s+"
    r"(?P<held>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s+(?:at|for)\s+(?-i:[A-Z])"
    r"(?=[^.!?\n]*\b(?:for\s+(?:\w+\s+){0,2}(?:years?|months?|decades?)|since)\b)",
    re.IGNORECASE | re.MULTILINE,
)
# The words a question asks where the user works by ("Which company do I work for?", "Who is my
# employer?", "What's my job?").
_ASKED_AS_WORK = (
    "work job employer employed employ employment company firm profession occupation career "
    "workplace trade"
).split()
# What a role before "at" / "for" is not: where one is, what one does there, or who one is
# there ("I'm at dinner", "I'm in London for Easter", "I'm a member at the golf club").
_NO_ROLE = frozenset(
    """
    at in on with for off out away back home here there still just also now currently always
    member volunteer patient student guest customer regular fan friend friends visitor
    bit little tad
    going staying waiting heading sure sorry happy glad late early free busy
    """.split()
)
# "our place" is home, but not a place one is at, goes to or hosts at ("at my place", "back to
# my place", "my place or yours"), nor a turn, seat or standing ("in my place", "my place at
# uni", "not my place to say"): a review of 38 chatty stores found each answering "Where do I
# live?". A purchase is a home only as somewhere to live ("we bought a place in Raglan", not
# "a place in the final" nor "a house to rent out"); a move only with a home word ("we're
# moving to Leeds, the house is ...", "moving house", "moving in with"), not "moving to Slack".
_PLACE_AFTER = (
    r"(?<!\bin\s)(?<!\btake\s)(?<!\btook\s)(?<!\bat\s)(?<!\bfrom\s)(?<!\bknow\s)(?<!\bnot\s)"
    r"(?<!\bback\sto\s)(?<!\bover\sto\s)(?<!\bround\sto\s)(?<!\bcome\sto\s)"
)
_HOME_WORD = r"(?=[^.!?\n]*\b(?:house|flat|apartment|home|rent|mortgage|keys|lease|for good)\b)"
_NOT_LET = r"(?![^.!?\n]*\b(?:rent|rental|holidays?|investment|let|timeshare|airbnb)\b)"
_NOT_LET_OUT = r"(?![^.!?\n]*\b(?:rented out|let out|rental|holidays?|airbnb|timeshare)\b)"
_OWN_HOME = re.compile(
    r"\b(?:my|our|the user's)\s+(?:new\s+)?(?:house|flat|apartment|home|bungalow|townhouse)\b"
    r"(?!\s+(?:made|red|white|alone))"
    rf"|{_PLACE_AFTER}\b(?:my|our)\s+(?:new\s+)?place\b"
    rf"(?!\s+(?:of|in\s+(?:the|a|line)|on|at|to|or|for)\b){_NOT_LET_OUT}"
    rf"|{_I}(?:just\s+|finally\s+)?moved\s+(?:in|into|to|out|house|back|here|there|from)\b"
    rf"|{_I}(?:just\s+|finally\s+)?bought\s+(?:a|our|my)\s+(?:first\s+)?(?:house|flat|place|home)"
    rf"\s+(?:in|on|near|by)\s+(?!the\b){_NOT_LET}"
    r"|\b(?:i'm|i am|we're|we are)\s+(?:finally\s+)?moving\s+(?:house|(?:back\s+)?home|in\s+with|"
    r"back\s+in\s+with|out(?!\s+of\b)|out\s+of\s+(?:my|our|the)\s+(?:\w+'?s?\s+)?"
    r"(?:flat|house|apartment|place|home)\b)"
    rf"|\b(?:i'm|i am|we're|we are)\s+(?:finally\s+)?moving\s+(?:back\s+)?(?:to|into)\b"
    rf"{_HOME_WORD}",
    re.IGNORECASE,
)


# A home said in other everyday words, each read as the user's own lasting home only
# (``_home_said``): "our condo in Liberty Village"; "Moved into our new flat!" opening the text,
# or after "and" in the user's own clause ("We got the keys and moved into the house"); "we
# completed on a house in Bexleyheath"; "we shifted to a 2BHK in Whitefield" (Indian English).
# A review (session 54) found a wider first version reading stays ("moved into the airbnb
# apartment", "our condo for the week in Maui"), someone else's move, a sale ("completed on the
# house sale"), a home loan, hypotheticals and questions; and "we rent in <Place>" a let as
# often as a home ("we rent in Zermatt for the ski week"), so it is not read.
_DWELLING = r"(?:house|flat|apartment|bungalow|townhouse|condo|\d\s?bhk)"
_HOME_NOUN = rf"(?:home|{_DWELLING})"
_HOME_SAID = re.compile(
    r"\b(?:my|our|the user's)\s+(?:new\s+)?condo\b"
    r"|(?:\A\s*(?:user:\s*)?|(?P<and>\band\s+))(?:just\s+|finally\s+)?moved\s+in(?:to|\s+to)?\s+"
    rf"(?:a|an|the|our|my)\s+(?:new\s+)?(?:[\w-]+\s+)?{_HOME_NOUN}\b"
    rf"|{_I}(?:just\s+|finally\s+)?completed\s+on\s+(?:a|our|my|the)\s+(?:new\s+|first\s+)?"
    rf"{_DWELLING}\b(?!\s+(?:sale|purchase|deal)\b)"
    rf"|{_I}(?:just\s+|finally\s+)?shifted\s+(?:in\s*)?(?:to|into)\s+(?:a|an|our|the)\s+"
    rf"(?:new\s+)?(?:[\w-]+\s+)?{_DWELLING}\b(?=\s*(?:[.!,;]|$|in\b|near\b|at\b|now\b))",
    re.IGNORECASE,
)
# A stay, a let, a loan, a sale or someone else's, said in the home's sentence.
_NOT_LIVED_IN = re.compile(
    r"\b(?:for\s+(?:the\s+|a\s+|\d+\s+|two\s+|three\s+)?(?:week|weekend|month|season|summer|"
    r"winter|holidays?|break|night|nights|fortnight|days|weeks|months|my|our|his|her|their|"
    r"work|the\s+business|mum|mom|dad|parents|son|daughter)|spring\s+break|ski\s+\w+|"
    r"vacation|holidays?|airbnb|hotel|hostel|resort|trip|festival|booked|booking|rental|"
    r"timeshare|let\s+out|rented\s+out|to\s+let|buy[\s-]to[\s-]let|tenants?|students|"
    r"flipping|selling|sold|buyers?|each|every|easter|christmas|loan|insurance|sale|investment|"
    r"winters|summers|back\s+from|guest\s+house|farm\s+house|during)\b",
    re.IGNORECASE,
)


def _says_own_home(text: str) -> bool:
    """Whether ``text`` says the user's own home (``_OWN_HOME``, or ``_HOME_SAID`` read by
    ``_home_said``)."""
    return _OWN_HOME.search(text) is not None or any(
        _home_said(text, m) for m in _HOME_SAID.finditer(text)
    )


def _home_said(text: str, match: re.Match[str]) -> bool:
    """Whether ``match`` of ``_HOME_SAID`` says where the user lives: after "and" only in the
    user's own clause ("we" too); not asked, wished, to come or someone else's words; no
    stay, let, loan or sale in its sentence (``_NOT_LIVED_IN``)."""
    if not told.told_as_so(text, match, we=True):
        return False  # "Should we shift to a bigger flat?", "once we've completed on a house"
    sentence = roles.since(text, match.start(), told.SENTENCE_STOPS)
    if roles.not_so(text, match.start()) or any(mark in sentence for mark in told.QUOTES):
        return False  # "she said 'we moved into the house'"
    if ":" in sentence and told.WHOSE_WORDS.search(sentence.rsplit(":", 1)[0]):
        return False  # "he texted: we shifted to a 2bhk"
    return _lived_in(sentence + roles.until(text, match.start(), told.SENTENCE_STOPS))


@functools.lru_cache(maxsize=256)
def _lived_in(sentence: str) -> bool:
    """Whether a home said in ``sentence`` is lived in (``_NOT_LIVED_IN``): read once for every
    home the sentence says."""
    return _NOT_LIVED_IN.search(sentence) is None


# What the user studies or studied, said in the first person: "I'm a PhD student", "my MSc at
# LSE", "I did my master in Montpellier", "I study law"; not "my son's degree", "I'm tutoring
# a student", "i studied the menu", "studying for my driving test", "my ma called" (a review
# found each of these answering "What did I study at university?").
_OWN_STUDY = re.compile(
    r"\b(?:i'm|i am|i was|the user is|the user was)\s+(?:an?\s+)?(?:(?:phd|mature|part-time|"
    r"full-time|law|medical|nursing|grad|graduate|undergraduate|postgrad|postgraduate|masters?|"
    r"university|uni|college|exchange|\w+-year)\s+){0,2}student\b"
    r"|\b(?:my|the user's)\s+(?:(?:first|second|third|final|last)\s+year\s+of\s+(?:my\s+)?)?"
    r"(?:msc|mba|bsc|phd|master'?s?|bachelor'?s?|degree|doctorate|thesis|dissertation|"
    r"(?-i:MA|BA))\b"
    # "I'm doing a master's in Urban Planning", not "a degree of damage", "a bachelor's party"
    r"|\b(?:i'm|i am|the user is)\s+(?:now\s+|still\s+)?doing\s+(?:an?|my)\s+"
    r"(?:(?:part-time|full-time|online)\s+)?(?:msc|mba|bsc|phd|master'?s|bachelor'?s|degree|"
    r"doctorate|(?-i:MA|BA))(?=\s+(?:in|at|with|from)\b|\s*(?:[.!?,;]|$))"
    r"|\b(?:i|the user)(?:'ve| have)?\s+(?:\w+\s+)?(?:study|studied|studying)\s+"
    r"(?!(?:the|a|an|for|up|hard|it|this|that|all|late|with)\b)\w",
    re.IGNORECASE,
)
_ASKED_AS_STUDY = "study degree master phd university course major".split()


def _says_own_work(text: str) -> bool:
    """Whether ``text`` says the user's own work (``_OWN_WORK``): a match, and for a role at a
    place, a role (``_NO_ROLE``); one at "the" place or holding a number, a job (``_a_job``)."""
    for match in _OWN_WORK.finditer(text):
        role = match.group("role") or match.group("held") or match.group("named")
        if role is not None and set(role.casefold().split()) & _NO_ROLE:
            continue
        if match.group("named") is None or _a_job(text, match):
            return True
    return any(_taken_up(text, m) for pattern in _TAKEN_UP for m in pattern.finditer(text))


# A job taken up at a named employer, said with its role: "I started at Rolls-Royce as a
# facilities coordinator", "Joined Deloitte as an analyst last month" (opening the text), "I
# quit the Premier Inn and started at ..." (after "and" in a clause the user opens), "I started
# as a barista at Pret". Not someone else's ("My son's doing great. Started at Tesco as a
# cashier", "my brother's summary:\nJoined Deloitte as ..."), not one to come ("Once I join
# Deloitte as an analyst"), nor a club's, a game's or an occasion's role ("I joined the Sea
# Cadets as an instructor", "I started Fallout as a scientist", "I joined Mark as best man at
# his wedding"): an adversarial review (session 54) found each of these in a wider reading.
_TOOK_UP = (
    r"(?:\b(?:i|i've|i have|the user|the user has)\s+|\A\s*(?:user:\s*)?|(?P<and>\band\s+))"
    r"(?:just\s+|finally\s+|recently\s+|officially\s+)?"
)
_EMPLOYER = r"(?:(?:the|an?)\s+)?(?-i:[A-Z])"
_TAKEN_UP = (
    re.compile(
        rf"{_TOOK_UP}(?:(?:started|start|starting|began|begin)\s+(?:at|with)|joined|join|joining)"
        rf"\s+(?={_EMPLOYER}[^.!?\n,;]{{0,40}}?\s+as\s+{roles.ROLE_NP})",
        re.IGNORECASE,
    ),
    re.compile(
        rf"{_TOOK_UP}(?:started|starting|began|joined)\s+as\s+"
        rf"(?=[^.!?\n,;]{{0,40}}?\s(?:at|with)\s+{_EMPLOYER}){roles.ROLE_NP}",
        re.IGNORECASE,
    ),
)
_NOT_AT_WORK = re.compile(
    r"[^.!?\n,;]*?\b(?:cadets|club|society|choir|band|orchestra|youth)\b", re.IGNORECASE
)


def _taken_up(text: str, match: re.Match[str]) -> bool:
    """Whether ``match`` of ``_TAKEN_UP`` says the user took up a job (the pattern's comment):
    after "and" only in a clause the user opens, not in a question, not to come, with no club,
    play or occasion around the role, and the role an occupation or a job title's head."""
    if not told.told_as_so(text, match):
        return False  # "Should I start at Google as an engineer, or stay?"
    sentence, np = roles.since(text, match.start(), told.SENTENCE_STOPS), match.group("np")
    if roles.IN_PLAY.match(sentence) or re.match(r"lead(?:\s+(?:in|of|on|for|at)\b.*)?$", np):
        return False  # "In our D&D campaign I joined ...", "as the lead in Blithe Spirit"
    between, after = text[match.start() : match.start("np")], text[match.start("np") :]
    if roles.IN_PLAY.match(between):
        return False  # a play after the role is names_occupation's own test
    if any(_OCCASION.match(part) or _NOT_AT_WORK.match(part) for part in (between, after)):
        return False
    if _HEAD_OF.match(np):
        return True  # "as head of marketing"
    return roles.names_occupation(text, match, own=True, titles=_TITLES, when_ends=True)


# Heads of a job title WordNet reads too widely ("associate" a friend, "guard" a posture).
_JOB_HEADS = frozenset(
    "associate assistant supervisor manager officer guard handler servant curator coordinator "
    "executive clerk operative technician".split()
)
# A job taken up "as" one of these is a title too: "as backend lead" (with what it leads: "the
# lead in Blithe Spirit" is a part; "head of" as often heads a rota or a bake sale).
_TITLES = _JOB_HEADS | {"lead"}
# The head of a part of a business ("head of growth", "head of platform engineering").
_HEAD_OF = re.compile(
    r"head\s+of\s+(?:[a-z]+\s+)?(?:marketing|sales|operations|engineering|product|people|hr|"
    r"finance|digital|logistics|strategy|growth|design|data|platform|partnerships|brand|research|"
    r"legal|it|technology|communications|comms|content|customer|audience|procurement|risk|"
    r"compliance|talent|recruitment|security|analytics|infrastructure)\b",
    re.IGNORECASE,
)
_LEADS = re.compile(r"\b(?:team|shift|section)\s+leader$")
# A group or occasion helped at, in the place's phrase: "a team leader at the Scouts", "the PTA".
_OCCASION = re.compile(
    r"[^.!?\n,;]*?\b(?:scouts?|cubs|brownies|guides|pta|party|wedding|fete|bbq|reunion)\b", re.I
)


def _a_job(text: str, match: re.Match[str]) -> bool:
    """Whether the role ``match`` read is a job held: its head an occupation, a job title's head
    or a team's leader; no trait, hope, play or occasion (a review found 94 roles that are none)."""
    role = match.group("named")
    words = role.casefold().split()
    head = words[-1]
    if not (roles.occupation(head) or head in _JOB_HEADS or _LEADS.search(role.casefold())):
        return False
    if set(words) & roles.TRAIT or (len(words) == 1 and head in roles.OFF_WORK):
        return False
    if roles.not_so(text, match.start()):
        return False
    after = match.end("named")
    return roles.IN_PLAY.match(text, after) is None and _OCCASION.match(text, after) is None


# Where someone lives, said of them now (``_HOMES``, the person before what says it in group
# "who", a capitalised place after it in group "where", where there is one):
# - "lives"/"live" before where or with whom ("My sister Ewa lives in Chicago", "my parents
#   live on a farm", "my sister, who lives in Oslo"), not "lives for football", "lives on
#   coffee", "lived in Rome" (then, not now);
# - a move to a place, a home, "there" or "abroad" ("my mother moved to a care home", "my
#   parents moved there from Petersburg"), not "moved to tears", "moved to a new team",
#   "moved the party", "moved back the deadline";
# - a home in a place ("my parents' place in Ipoh", "my mother's house in Gifu"), not a home
#   alone ("my sister's house keys", "her home page", "my sister's flat tyre");
# - the person in a place ("to my parents in Gdańsk", "my sister in London").
# A capitalised place must be a location by WordNet or unknown to it ("Ipoh"): not "my sister
# in Accounting", "in Christ", "in Spring", "in June". Not in a wish or a condition ("I wish my
# sister lived nearby", "if my sister moved to Leeds").
_NOW = r"(?:\s+(?:still|now|also|just|currently|recently|finally|has|have))*\s+"
_PLACE = r"(?-i:(?P<where>[A-Z][\w-]*))"
_HOME_WORD = r"(?:house|flat|home|apartment|place|bungalow|cottage|farm|village|town|city)\b"
_HOMES = (
    re.compile(
        rf"\b(?P<who>[A-Za-z][\w-]*)(?:,\s+who)?{_NOW}(?:lives|live|(?:is|are|'s|'re)\s+living)"
        r"\s+(?:in|at|near|with|by|outside|abroad|nearby|alone|together|next\s+door|close\s+by"
        r"|on\s+(?:a|an|the)\s)",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\b(?P<who>[A-Za-z][\w-]*){_NOW}(?:moved|relocated)\s+(?:back\s+)?(?:(?:there|abroad|"
        rf"away|home)\b|in\s+with\b|(?:to|into)\s+(?:(?:a|an|the|their|his|her)\s+(?:[\w-]+\s+)?"
        rf"{_HOME_WORD}|{_PLACE}))",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?P<who>[A-Za-z][\w-]*)(?:'s|'|\u2019s|\u2019)\s+(?:new\s+|own\s+)?"
        rf"{_HOME_WORD}\s+(?:in|at|near|outside)\s+{_PLACE}",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?:my|our)\s+(?P<who>[a-z][\w-]*)\s+in\s+{_PLACE}", re.IGNORECASE),
)
_WISHED = re.compile(r"\b(?:if|wish|wished|hope|hoped|imagine|unless)\b[^.!?\n]*$", re.IGNORECASE)


def home_holders(text: str) -> list[tuple[str, int]]:
    """Whose home ``text`` says (``_HOMES``): the word before what says it, as written, and
    where it starts ("Ewa" in "My sister Ewa lives in Chicago", "parents" in "my parents'
    place in Ipoh"). core.search.subject resolves it to the person it names."""
    holders = []
    for pattern in _HOMES:
        for match in pattern.finditer(text):
            where = match.groupdict().get("where")
            if where is not None and not _a_place(where):
                continue
            if _WISHED.search(text, 0, match.start()):
                continue
            holders.append((match.group("who"), match.start("who")))
    return holders


@functools.lru_cache(maxsize=4096)
def _a_place(word: str) -> bool:
    """Whether a capitalised ``word`` after "in" or "to" names a place: a location in its
    first noun sense by WordNet ("Lisbon"), or a name WordNet does not know ("Ipoh"); not a
    month, a weekday, a season, a field or a person ("June", "Spring", "Accounting")."""
    lowered = word.casefold()
    if lowered in MONTHS_AND_WEEKDAYS:
        return False
    net = wordnet()
    if net is None:
        return True
    return not net.lemmas(lowered, "n") or net.noun_under(lowered, ("location",), senses=1)


# What a workplace is a kind of, by WordNet: a company, firm or team (organization), a
# school, clinic or bank (institution), an office or shop (establishment), a lab or studio
# (workplace), a depot (facility), a hospital or restaurant (building).
_WORKPLACE_KINDS = (
    "organization",
    "institution",
    "establishment",
    "workplace",
    "facility",
    "building",
)


@functools.lru_cache(maxsize=4096)
def workplace(word: str) -> bool:
    """Whether ``word`` names a kind of place one works at: one of its first two noun senses
    (a "bank" is first a slope) is a kind of one of ``_WORKPLACE_KINDS``."""
    net = wordnet()
    if net is None or not word.isalpha():
        return False
    return net.noun_under(word, _WORKPLACE_KINDS, senses=2)


@functools.lru_cache(maxsize=4096)
def region(word: str) -> bool:
    """Whether ``word`` names a kind of place one lives in: one of its first two noun senses
    is a kind of location by WordNet ("city", "town", "neighbourhood", "country", "village"),
    never a person ("sister") or a building ("house")."""
    net = wordnet()
    if net is None or not word.isalpha():
        return False
    return net.noun_under(word, ("location",), senses=2)


# The user's own name, said as such: "The user's name is Priya.", "my name's Tomasz", "The user
# wants to be called Liz.", "Hi, I'm Priya, by the way." (core.judge.introduction); not another
# one's ("The user's dog's name is Rex."), nor a call ("The user called Dr. Okafor"). A question
# asks it by "my name", "call me", "who am I" (core.search.subject.words_asked), as a token no
# text holds as a word.
_OWN_NAME = re.compile(
    r"\b(?:the\s+user's|my)\s+name(?:'s|\s+is)\s+(?-i:[A-Z])"
    r"|\bthe\s+user\s+(?:wants\s+to\s+be|is)\s+called\s+(?-i:[A-Z])",
    re.IGNORECASE,
)
OWN_NAME = "name_user"


def asks_own_name(query: str) -> bool:
    """Whether ``query`` asks the user's own name ("What's my name?", "What should you call
    me?", "Who am I?"; not "What's her name?", "What's it called?")."""
    return _OWN_NAME_ASKED.search(query) is not None


_OWN_NAME_ASKED = re.compile(
    r"\b(?:my\s+(?:full\s+|first\s+|last\s+)?name|call\s+me|am\s+i\s+called)\b"
    r"|\bwho\s+am\s+i\W*$",
    re.IGNORECASE,
)


def says_own_name(text: str) -> bool:
    """Whether ``text`` says the user's own name (``_OWN_NAME``, an introduction)."""
    return _OWN_NAME.search(text) is not None or any(
        introduction(text[a:b]) is not None for a, b in sentence_spans(text)
    )


class Part(NamedTuple):
    """One part of the user's own life: what says it in the first person, the words (as
    stems) a question asks about it by, which a text saying it names, and the words that say
    it changed (core.search.later, beside core.judge.change's markers)."""

    name: str
    says: Callable[[str], object]
    asked_by: frozenset[str]
    changed: re.Pattern[str]


def _stems_of(words: Sequence[str]) -> frozenset[str]:
    return frozenset(stem_word(w) for w in words)


PARTS = (
    Part(
        "work",
        _says_own_work,
        _stems_of(_ASKED_AS_WORK),
        re.compile(
            r"\b(?:started|starting|new\s+(?:job|role|position)|got\s+a\s+job|joined|quit|"
            r"left|resigned|retired|promoted|now)\b",
            re.I,
        ),
    ),
    Part(
        "home",
        _says_own_home,
        _stems_of(["live", "location", "located", "address", "based", "reside", "residence"]),
        re.compile(r"\b(?:moved|moving|bought|new\s+(?:place|house|flat|home|apartment))\b", re.I),
    ),
    Part(
        "study",
        _OWN_STUDY.search,
        _stems_of(_ASKED_AS_STUDY),
        re.compile(r"\b(?:started|starting|new|now|enrolled|transferred)\b", re.I),
    ),
    Part(
        "name",
        says_own_name,
        frozenset({OWN_NAME}),
        re.compile(r"\b(?:changed\s+my\s+name|new\s+name|now\s+(?:called|go\s+by))\b", re.I),
    ),
    Part(
        "vehicle",
        vehicle.says_own_vehicle,
        _stems_of(vehicle.ASKED_AS_VEHICLE),
        re.compile(r"\b(?:bought|sold|picked\s+up|traded|new|gone)\b", re.I),
    ),
)
BY_NAME = {part.name: part for part in PARTS}


def own_life(asked_about: Sequence[str], text: str) -> str | None:
    """Which part of the user's own life the question asks about that ``text`` says in the
    first person ("work", "home", "study" or "vehicle": ``_OWN_WORK``, ``_OWN_HOME``,
    ``_OWN_STUDY``, core.search.vehicle), or
    None. Two records saying the same part are about the same thing, however far apart their
    words: "Yard's in Mt Albert, next to our place" and "we bought a place in Raglan!" both
    answer "Where do we live?" (core.search.later ranks the later one first when it says the
    change)."""
    stems = {stem_word(w) for w in asked_about}
    return next((p.name for p in PARTS if stems & p.asked_by and p.says(text)), None)


def says_life_changed(part: str, text: str) -> bool:
    """Whether ``text`` says that ``part`` of the user's own life (``own_life``) changed, in
    that part's own words ("moved", "bought", "new job", "started" ...)."""
    return BY_NAME[part].changed.search(text) is not None

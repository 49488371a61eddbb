"""What someone is: an occupation said as a role ("I'm a midwife", "My mother is a baker").

core.search.subject reads the user's own work from it ("I was a schoolmaster for thirty-eight
years" answers "Where do I work?": ``says_own_role``) and the work of one of the user's people
("my dad's a retired cardiologist": ``occupation_holders``); core.search.life's readings of a
job held or taken up test their role with it (``occupation``, ``names_occupation``). Whether
a word is an occupation at all is ``occupation``: a kind of worker, professional or
specialist by WordNet, or a job WordNet files elsewhere. A role is no claim of the user's in
a hope, a dream or someone else's words (``not_so``), nor in play (``IN_PLAY``), nor a trait
("a terrible cook": ``TRAIT``).
"""

from __future__ import annotations

import functools
import re

from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search.lexical import STOPWORDS

# Someone's occupation, said as what they are: "My mother is a baker in Rennes", "She's a
# speech-language pathologist", "my dad's a retired cardiologist", "he works as a branch
# manager"; the user's own ("I was a schoolmaster for thirty-eight years", "i'm an RN", "I am
# pharmacist"), which answers where the user works. The noun phrase after the verb (and its
# article) is read up to its first small word or chat word ("i'm a nurse btw"), four words at
# most, and its head must be an occupation (``occupation``): the word before its first
# participle or adverb ("a software engineer based in Leeds"), else its last word. Not a
# trait or a hobby ("I'm a terrible cook", "a natural teacher", "I'm a collector of old
# vinyl", "I'm a regular at the Crown", "a cop show junkie"), nor a name ("her maiden name was
# Baker"), nor whose someone is ("I'm a doctor's wife"), nor what someone has ("my daughter's
# teacher is lovely": "'s" is "is" only before an article).
# Matches may overlap: "my wife's sister is a nurse" holds "'s sister is a" and "is a nurse".
ROLE_NP = r"(?:(?:an?|the)\s+)?(?P<np>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})"
_ADVERB = r"(?:(?:now|still|currently|also|actually)\s+)?"
# What may follow the occupation in its phrase: a participle or an adverb ("based", "working").
_AFTER_HEAD = re.compile(r"[a-z]+(?:ing|ed|ly)", re.IGNORECASE)
_HOLDS_ROLE = re.compile(
    r"(?=(?:\b(?:is|was|were|are|been|works?\s+as|worked\s+as|working\s+as)\s+"
    rf"|(?:'s|\u2019s)\s+(?={_ADVERB}(?:an?|the)\s)){_ADVERB}{ROLE_NP})",
    re.IGNORECASE,
)
_HOLDER = re.compile(r"([A-Za-z][\w-]*)(?:'s|\u2019s)?\W*$")
# Words between someone and what they are: "My father has been a mechanic", "My husband, who
# is a chef".
_NOT_HOLDER = frozenset("has had have always also who now still then".split())
# What makes the user's role no claim of the user's: a wish, a dream, a hope, what someone
# says, claims or thinks the user is, a quote ("in my dream last night I was a surgeon", "my
# kids say I'm a taxi driver for them", "He told me 'I was a cop for 20 years'").
_NOT_SO = re.compile(
    r"\b(?:wish|wished|dream\w*|if|pretend\w*|says?|said|saying|think|thinks|thought|told|tells?|"
    r"feel|felt|like|imagine|hopefully|maybe|perhaps|claim\w*|reads)\b[^.!?\n]*$"
    r"|['\"\u201c\u2018]\s*$",
    re.IGNORECASE,
)


def not_so(text: str, at: int) -> bool:
    """Whether the clause before ``at`` makes the role said there no claim of the user's."""
    return _NOT_SO.search(since(text, at, ".!?\n;,")) is not None


def since(text: str, at: int, stops: str) -> str:
    """The text from the last of ``stops`` before ``at`` up to ``at`` (the sentence or clause
    ``at`` is in, so far): the last piece ``re.split`` of everything before ``at`` gives, without
    splitting all of it again for every match a text holds."""
    return text[max(text.rfind(stop, 0, at) for stop in stops) + 1 : at]


def until(text: str, at: int, stops: str) -> str:
    """The text from ``at`` up to and with the first of ``stops`` after it (or to the end)."""
    ends = [i for stop in stops if (i := text.find(stop, at)) >= 0]
    return text[at : min(ends) + 1] if ends else text[at:]


# A role played, not held: in a game, a show or a costume ("I'm a pilot in Microsoft Flight
# Simulator", "a healer in World of Warcraft", "the nurse in the school play").
IN_PLAY = re.compile(
    r"[^.!?\n]*\b(?:games?|gaming|simulator|raid|minecraft|warcraft|fortnite|roblox|d&d|dnd|"
    r"campaign|role-?play\w*|cosplay|costume|halloween|play|panto|pantomime|musical|dream)\b",
    re.IGNORECASE,
)
# A role held at home or towards someone, not for a living ("the chef at home", "the nurse of
# the family", "a servant to my cats", "a taxi driver for them").
_AT_HOME = re.compile(
    r"\s+(?:at\s+home|(?:in|of|for)\s+(?:the|our|my|this|his|her|their)\s+(?:house|home|family|"
    r"household)\b|(?:to|for)\s+(?:my|our|his|her|the|them|him|us|me)\b)",
    re.IGNORECASE,
)
_OWN_ROLE = re.compile(
    r"(?=\b(?:i'm|im|i am|i was|i've been|i have been|i used to be|the user is|the user was|"
    rf"the user has been|i work as|i worked as|the user works as)\s+{_ADVERB}{ROLE_NP})",
    re.IGNORECASE,
)
TRAIT = frozenset(
    """
    good great terrible bad awful keen big huge natural decent lousy amateur home born total
    complete real proper bit little aspiring wannabe would-be former ex failed frustrated
    designated hobby part guest honorary celebrity escape volunteer unpaid
    """.split()
)
_THING = re.compile(r"\b(?:it|that|this|there|here|what|which|where)\s*$", re.IGNORECASE)
_CHAT = frozenset("lol haha hahaha lmao btw tbh too though anyway myself".split())
# Words of when, which end a role's phrase after its first word where a caller asks
# (``names_occupation``'s ``when_ends``): "an analyst last month", "a nurse since May".
_WHEN = frozenset("last next since today yesterday tomorrow tonight".split())
# Where the role is held: "a dairy farmer near Llandeilo" (not "a nurse near retirement").
_NEAR_A_PLACE = re.compile(r"near\s+(?-i:[A-Z])", re.IGNORECASE)
# Roles WordNet files under work that one holds as often off work: said alone of the user
# ("I'm a regular", "I'm the cook in our house", "I'm a referee for my neighbour's passport").
OFF_WORK = frozenset(
    "regular collector critic referee judge coach driver cook secretary treasurer guide host "
    "tutor mentor".split()
)
# What an occupation is a kind of by WordNet, in one of a word's first two noun senses: a baker
# or an electrician (worker, skilled worker), a midwife or a lawyer (professional), a
# pathologist (specialist), a researcher (scientist), a lecturer (educator), a director
# (administrator), a police officer (serviceman, official), a trader (merchant). Not a kind too
# wide to be one ("leader", "creator", "communicator" hold a boss, a beginner and a guest).
_OCCUPATION_KINDS = (
    "worker",
    "professional",
    "skilled_worker",
    "employee",
    "specialist",
    "scientist",
    "educator",
    "administrator",
    "serviceman",
    "official",
    "health_professional",
    "merchant",
)
# Occupations WordNet files elsewhere (an engineer is "a person who uses scientific knowledge",
# an accountant a capitalist, a farmer a creator), and kinds of worker that are no job.
_JOBS = frozenset(
    """
    engineer accountant programmer developer firefighter banker policeman policewoman cop
    nanny cashier broker realtor janitor carer caregiver dancer barista hospitalist tradie
    sparky chippy plumber paralegal bookkeeper auditor economist actuary underwriter farmer
    architect artist writer musician photographer translator consultant contractor pastor
    physio physiotherapist therapist housewife homemaker seamstress cpa rn builder headteacher
    zookeeper tester controller postie emt swe pm hca lpn analyst priest trainee
    """.split()
)
_NOT_JOBS = frozenset(
    "volunteer bridesmaid groomsman expert slave servant hunter boxer breadwinner handyman man "
    "striker".split()
)


def occupation_holders(text: str) -> list[tuple[str, int]]:
    """Whose occupation ``text`` says as what they are (``_HOLDS_ROLE``): the word right
    before it as written, and where it starts: "mother" in "My mother is a baker in Rennes",
    "he" in "he is a branch manager at Zenith Bank", "sister" in "my wife's sister is a
    nurse", "father" in "My father has been a mechanic". Never the user's own
    (``says_own_role``)."""
    holders = []
    for match in _HOLDS_ROLE.finditer(text):
        end = match.start()
        while (holder := _HOLDER.search(text, 0, end)) and holder.group(1).casefold() in (
            _NOT_HOLDER
        ):
            end = holder.start()
        if holder is not None and names_occupation(text, match, own=False):
            holders.append((holder.group(1), holder.start(1)))
    return holders


def says_own_role(text: str) -> bool:
    """Whether ``text`` says the user's own occupation (``_OWN_ROLE``): "I was a schoolmaster
    for thirty-eight years", "i'm an RN on a cardiac ward"."""
    return any(names_occupation(text, m, own=True) for m in _OWN_ROLE.finditer(text))


def names_occupation(
    text: str,
    match: re.Match[str],
    *,
    own: bool,
    titles: frozenset[str] = frozenset(),
    when_ends: bool = False,
) -> bool:
    """Whether the role ``match`` read in group "np" is an occupation (``occupation``, or one
    of ``titles``), held by the user if ``own``; with ``when_ends``, a word of when after its
    first word ends its phrase ("an analyst last month")."""
    if _THING.search(text, 0, match.start()):
        return False  # "it's a printer", "that's a driver for the printer"
    if own and not_so(text, match.start()):
        return False
    words: list[str] = []
    phrase, end = match.group("np"), match.start("np")
    for word in re.finditer(r"[\w-]+", phrase):
        folded = word.group(0).casefold()
        if folded in STOPWORDS or folded in _CHAT or _NEAR_A_PLACE.match(phrase, word.start()):
            break
        if when_ends and words and folded in _WHEN:
            break
        words.append(word.group(0))
        end = match.start("np") + word.end()
    if not words or re.match(r"['\u2019]s\b", text[end:]) or _AT_HOME.match(text, end):
        return False  # "a doctor's wife", "the chef at home"
    if IN_PLAY.match(text, end):
        return False
    # The head is an occupation before the first participle or adverb ("a software engineer
    # based in Leeds", "a nurse working nights", "a nurse basically"), else the last word;
    # not one before a noun ("a cop show junkie", "a designer handbag addict", "an architect
    # personality type": an adversarial review found 67 such), nor a name ("her maiden name
    # was Baker", not "an English teacher").
    after = next((k for k in range(1, len(words)) if _AFTER_HEAD.fullmatch(words[k])), 0)
    head = after - 1 if after and occupation(words[after - 1].casefold()) else -1
    noun = words[head]
    if noun[0].isupper() and not noun.isupper():
        return False
    before = {w.casefold() for w in words[:head]}
    if before & TRAIT or (own and len(words) == 1 and noun.casefold() in OFF_WORK):
        return False
    return occupation(noun.casefold()) or noun.casefold() in titles


@functools.lru_cache(maxsize=4096)
def occupation(word: str) -> bool:
    """Whether ``word`` names an occupation (``_OCCUPATION_KINDS``, ``_JOBS``)."""
    if word in _JOBS:
        return True
    net = wordnet()
    if net is None or not word.isalpha() or word in _NOT_JOBS:
        return False
    return net.noun_under(word, _OCCUPATION_KINDS, senses=2)

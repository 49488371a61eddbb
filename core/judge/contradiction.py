"""Exclusive relations: contradictions the offline judge finds when the words differ.

The word-overlap rule in core.judge.offline catches "vegetarian" / "not vegetarian" and "3 kids"
/ "4 kids", where the two statements share most words. A correction usually does not: "The
user moved to Porto." shares one word with "The user lives in Lisbon.". These rules know a few
general relations that hold one value at a time, and call two statements contradictory when
they give that relation different values for the same holder:

- home: "lives in X" / "is based in X" / "moved to X" / "relocated to X" (X a capitalised name);
  "moved from X to Y" says the home is Y and no longer X.
- replacement: "switched from A to B", "moved from A to B", "replaced A with B", "B instead of
  A", "changed from A to B": A is no longer in use, so it contradicts a present "uses A" (any
  present, unhedged, unnegated statement that holds all of A's words).
- cessation: "no longer ...", "not ... anymore", "stopped ...", "quit ...", "gave up ...",
  "used to ...": the rest of the statement (its content words, "doing"/"being" dropped)
  contradicts a present, unhedged, unnegated statement that holds all of those words ("The
  user is not doing keto anymore." / "The user is on a keto diet.").
- single-valued attributes: "<holder>'s manager/boss/name/wife/... is X" against the same
  attribute with another value (a short list of nouns that name one person or value at a
  time; "friend" or "colleague" are not on it).
- diet on meat and fish: the user's vegan / vegetarian / pescatarian kept now against another,
  or against eating again what it leaves out ("..., so I've started eating chicken"); read
  clause by clause, never a plan, a past, a report or a substitute (``_diet_conflict``).

The holder must be the same on both sides: "I"/"we"/"the user" (one person to these rules, as
to the rest of the judge) or the same words. A question, a hedge ("might", "maybe", "plans
to") or a statement about the future ("will move") never contradicts.

Limits, honestly: these are patterns, not a parser. They cannot tell a city from a country
("lives in Lisbon" / "lives in Portugal" contradict here; "Lisbon, Portugal" and "Lisbon" do
not), do not know which products compete (a bare "uses Neovim now" does not replace "uses VS
Code": two tools can both be in use), and read the first relation of a statement only. A false
contradiction supersedes a true fact, so anything they are unsure of is "no contradiction".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agent_memory.core.judge.base import Verdict
from agent_memory.core.judge.change import for_a_while
from agent_memory.core.judge.text import stem_word

_CONTRACTIONS = (
    (r"\bi'm\b", "i am"),
    (r"\bwe're\b", "we are"),
    (r"\b(\w+)'ve\b", r"\1 have"),
    (r"\bisn't\b", "is not"),
    (r"\baren't\b", "are not"),
    (r"\bdon't\b", "do not"),
    (r"\bdoesn't\b", "does not"),
    (r"\b(\w+)'s\b", r"\1 's"),
)
_SELF = r"(?:i|we|the user|user|they|the user and (?:his|her|their) \w+)"
# Words that mark a statement as not plainly asserting the present.
_UNSURE = re.compile(
    r"\b(?:might|may|maybe|perhaps|probably|possibly|could|would|will|should|plan|plans|"
    r"planning|think|thinks|considering|hope|hopes|want|wants|if|unless|soon|next)\b|\?"
)
_NEGATION = re.compile(r"\b(?:not|no|never|nobody|nothing|none|neither|nor|without)\b")
_PAST = re.compile(r"\b(?:was|were|had|did|used to|previously|formerly|once|ago)\b")
_NAME = r"(?P<place>[A-Z][\w'-]*(?:[ -][A-Z][\w'-]*)*)"
_HOME = re.compile(
    rf"^(?P<who>.+?) (?:now )?(?:lives?|is living|are living|am living|resides?|"
    rf"(?:is|are|am) (?:now )?based|(?:has|have) (?:just )?(?:moved|relocated)|"
    rf"(?:just )?(?:moved|relocated)) (?:now )?(?:in|to) {_NAME}",
)
_MOVED_FROM = re.compile(
    r"\b(?:moved|relocated) (?:away )?from (?P<old>[A-Z][\w'-]*(?:[ -][A-Z][\w'-]*)*)"
)
_INSTEAD_OF = re.compile(r"\binstead of (?P<old>.+?)(?:[,.;]|$| now\b| these days\b)")
# A replacement said by its subject ("switched from A to B", "replaced A with B") or after it
# ("B instead of A", whose words before it are no subject).
_REPLACED = (
    re.compile(r"\b(?:switched|moved|changed|migrated|went) from (?P<old>.+?) (?:to|for) "),
    re.compile(r"\breplaced (?P<old>.+?) with "),
    _INSTEAD_OF,
)
_CESSATION = (
    re.compile(r"\bno longer (?P<rest>.+)$"),
    re.compile(r"\b(?:is|are|am|do|does) not (?P<rest>.+?) any ?more\b"),
    re.compile(r"\b(?:stopped|quit|gave up|has given up|have given up) (?P<rest>.+)$"),
    re.compile(r"\bused to (?P<rest>.+)$"),
    # A thing owned no longer: "we sold Maaken", "I got rid of the Passat".
    re.compile(r"\b(?:sold|got rid of|have gotten rid of) (?P<rest>.+)$"),
)
# What ends the ceased thing's words: "stopped badminton since joining" ended badminton, not
# "joining"; "quit the hockey, he plays ..." ended the hockey.
_ADJUNCT = re.compile(
    r"(?:,|;| - | since | because | as | after | when | due to | so | and "
    r"| for (?:now|a while|good)\b).*$"
)
# A plan called off: "so Berlin is off", "the trip is cancelled". What is off must be a name
# or a definite phrase ("the trip", "our Lisbon trip"), never "it", "work" or "everything".
_CALLED_OFF = re.compile(
    r"(?:^|[,;:] |\b(?i:so|and|but|now) )(?P<what>(?i:the|our|my) [\w'-]+(?: [\w'-]+){0,2}|"
    r"[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2}) (?:is|are|was|were|has been|have been|got) "
    r"(?:now |officially |definitely )?(?:off|cancell?ed|called off)\b"
)
# What may follow a bare "off" that calls a plan off: "the trip is off now, sadly", "Berlin is
# off for good". Anything else says who is away or what is given up ("off to bed", "off sick",
# "off work until Monday", "off dairy").
_OFF_ENDS = re.compile(
    r"(?:\s*(?:now|for now|for good|again|too|as well|completely|entirely|sadly|"
    r"unfortunately|anyway|after all|then)\b)*\s*(?:[,.;:!?)]|$)",
    re.I,
)


def _called_off(text: str, found: re.Match[str]) -> bool:
    """Whether ``found`` (``_CALLED_OFF``) calls a plan off: never "the user" (who is off to
    bed, off sick or off dairy), and a bare "off" ends its clause."""
    if found["what"].lower() == "the user":
        return False
    return (
        not found.group(0).endswith("off")
        or found.group(0).endswith("called off")
        or bool(_OFF_ENDS.match(text, found.end()))
    )


# A role taken over: "my new boss is Katrin Vogel", "Grace is our new nanny". The word "new"
# says the holder before is no longer the holder, whatever the role.
_OWNER = r"(?i:my|our|the user 's)"
_NAMED = r"(?:Dr\.? |Mr\.? |Mrs\.? |Ms\.? |Prof\.? )?[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2}"
_NEW_HOLDER = (
    re.compile(rf"\b{_OWNER} new (?P<role>[a-z-]+) (?:is|'s) (?P<name>{_NAMED})"),
    re.compile(rf"(?P<name>{_NAMED}) is (?:now )?{_OWNER} new (?P<role>[a-z-]+)\b"),
)
# Any holder of a role named beside it: "my boss Dr. Weber", "our nanny Mercy", "my boss is
# Dr. Weber", "Mercy is our nanny".
_HOLDER = (
    re.compile(
        rf"\b{_OWNER} (?P<role>[a-z-]+),? (?:is |'s )?(?:called |named )?(?P<name>{_NAMED})"
    ),
    re.compile(rf"(?P<name>{_NAMED}) is {_OWNER} (?P<role>[a-z-]+)\b"),
)
# Nouns that name one person or value at a time.
_SINGLE = (
    "name manager boss supervisor wife husband spouse partner girlfriend boyfriend fiance "
    "fiancee age birthday employer landlord dentist doctor therapist hometown nationality "
    "team lead"
).split()
_ATTRIBUTE = re.compile(
    rf"^(?P<who>my|our|the user 's|user 's) (?P<attr>{'|'.join(_SINGLE)}) "
    r"(?:is|'s) (?:called |named )?(?P<value>.+)$"
)
_FILLER = set("a an the is are am be being been do does doing did of to on in at for".split())
_ONE_PERSON = re.compile(rf"^{_SELF}$")


@dataclass(frozen=True, slots=True)
class _Statement:
    text: str  # lowercased, contractions expanded, one sentence end trimmed
    cased: str  # the same with the original case
    unsure: bool
    negated: bool
    past: bool


@functools.lru_cache(maxsize=4096)
def _read(text: str) -> _Statement:
    cased = " ".join(text.replace("\u2019", "'").split()).rstrip(".!;")
    for pattern, replacement in _CONTRACTIONS:
        cased = re.sub(pattern, replacement, cased, flags=re.IGNORECASE)
    lowered = cased.lower()
    return _Statement(
        lowered,
        cased,
        unsure=bool(_UNSURE.search(lowered)),
        negated=bool(_NEGATION.search(lowered)),
        past=bool(_PAST.search(lowered)),
    )


def _holder(words: str) -> str:
    words = words.strip().lower()
    words = re.sub(r"\b(?:actually|now|also|still|recently|just|finally|,)\b", " ", words)
    words = " ".join(words.split())
    return "self" if _ONE_PERSON.match(words) else words


def _stems(text: str) -> set[str]:
    return {stem_word(w) for w in re.findall(r"[\w'-]+", text.lower()) if w not in _FILLER}


def _home(s: _Statement) -> tuple[str, str, str | None] | None:
    """(holder, current home, former home or None) of a plain present statement."""
    if s.unsure or s.negated or "used to" in s.text or "lived in" in s.text:
        return None
    found = _HOME.search(s.cased)
    if found is None or for_a_while(s.cased[found.end("place") :]):
        return None  # not a home, or a stay ("moved to Lisbon for three months")
    former = _MOVED_FROM.search(s.cased)
    return (
        _holder(found["who"]),
        found["place"].lower(),
        former["old"].lower() if former else None,
    )


def _home_conflict(a: _Statement, b: _Statement) -> str | None:
    left, right = _home(a), _home(b)
    if left is None or right is None or left[0] != right[0]:
        return None
    here, there = left[1], right[1]
    if here in there or there in here:
        return None
    first, second = sorted((here, there))
    return f"one home at a time: {first!r} vs {second!r}"


def _gone(s: _Statement) -> set[str] | None:
    """The content words of what ``s`` says is no longer so (replaced or ceased)."""
    if s.unsure:
        return None
    for pattern in _REPLACED:
        found = pattern.search(s.text)
        if found is not None:
            # Whose it was goes with it, as below: "my sister moved from Clapham to Brixton"
            # replaces her home, not the user's ("We live in Clapham" stays); said by one of
            # the user's people or "he", "she", "they" (not "instead of", whose words before
            # it are no subject).
            who = _whose(s.text[: found.start()]) if pattern is not _INSTEAD_OF else ""
            if not _SOMEONE.match(who) or _WITH_THE_USER.search(who):
                who = ""  # the user's own, or with the user ("My wife and I moved from ...")
            return _stems(found["old"]) | _stems(_OWNER_WORDS.sub(" ", who)) or None
    for pattern in _CESSATION:
        found = pattern.search(s.text)
        if found is not None:
            rest = _ADJUNCT.sub("", found["rest"])
            rest = re.sub(r"\b(?:any ?more|these days|now|completely|totally)\b", " ", rest)
            ended = _stems(rest)
            # Whose it was goes with it: "my brother stopped running" ends his running, not the
            # user's ("I run 5k every morning" stays); the user's own ("I stopped ...") names
            # no one.
            return ended | _stems(_OWNER_WORDS.sub(" ", _whose(s.text[: found.start()]))) or None
    found = _CALLED_OFF.search(s.cased)
    if found is not None and not s.negated and _called_off(s.cased, found):
        what = re.sub(r"^(?:so|and|but|now) ", "", found["what"].lower())
        return _stems(what) or None
    return None


# Who made a replacement ("my sister moved from Clapham to Brixton"): one of the user's people
# or "he", "she" ("they" is read as the user, ``_whose``); not with the user.
_SOMEONE = re.compile(r"(?:my|his|her|their)\s|(?:he|she)$")
_WITH_THE_USER = re.compile(r"\b(?:i|me|we|us)\b")
_OWNER_WORDS = re.compile(r"\b(?:my|our|his|her|their|your|the user 's|'s)\b|\bthe user\b")
_AUXILIARIES = re.compile(
    r"(?:\s+(?:has|have|had|is|are|am|was|were|just|finally|recently|also|already|now|"
    r"completely|totally|actually))+$"
)
_LEAD_WORDS = re.compile(r"^(?:(?:and|also|so|but|now|well|oh|then|sadly|finally|recently)\b\W*)+")


def _whose(subject: str) -> str:
    """The words naming who did what ``subject`` opens a cessation with, or "" for the user
    (or a group with the user: "we", "the user and her husband")."""
    subject = _LEAD_WORDS.sub("", subject.strip(" ,")).strip()
    subject = _AUXILIARIES.sub("", subject).strip()
    return "" if not subject or _ONE_PERSON.match(subject) else subject


def says_ended(text: str) -> bool:
    """Whether ``text`` says that something ended, was replaced or was called off."""
    return _gone(_read(text)) is not None


def sentences(text: str) -> list[str]:
    """``text``'s sentences (a user's verbatim words hold several), as the rules read them."""
    return [s.cased for s in _sentences(_read(text))]


def _present(s: _Statement) -> bool:
    return not (s.unsure or s.negated or s.past or _gone(s) is not None)


def _cessation_conflict(a: _Statement, b: _Statement) -> str | None:
    for ended, current in ((a, b), (b, a)):
        gone = _gone(ended)
        if gone is None:
            continue
        # Each sentence on its own: a user's verbatim words hold several.
        for sentence in _sentences(current):
            if _present(sentence) and gone <= _stems(sentence.text):
                return "one statement says the other is no longer so"
    return None


_TITLE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Jr|Sr|[A-Z])\.$")


def _sentences(s: _Statement) -> list[_Statement]:
    parts: list[str] = []
    for part in re.split(r"(?<=[.!?])\s+(?=[A-Z])", s.cased):
        if parts and _TITLE.search(parts[-1]):  # "my boss Dr. Weber" is one sentence
            parts[-1] = f"{parts[-1]} {part}"
        elif part.strip():
            parts.append(part)
    return [s] if len(parts) < 2 else [_read(p) for p in parts]


def _attribute(s: _Statement) -> tuple[str, str, str] | None:
    if s.unsure or s.negated or s.past:
        return None
    found = _ATTRIBUTE.search(s.text)
    if found is None:
        return None
    who = "self" if found["who"] in ("my", "our", "the user 's", "user 's") else found["who"]
    return who, found["attr"], " ".join(found["value"].split())


def _attribute_conflict(a: _Statement, b: _Statement) -> str | None:
    left, right = _attribute(a), _attribute(b)
    if left is None or right is None or left[:2] != right[:2]:
        return None
    if left[2] in right[2] or right[2] in left[2]:
        return None
    first, second = sorted((left[2], right[2]))
    return f"one {left[1]} at a time: {first!r} vs {second!r}"


def _new_holder(s: _Statement) -> tuple[str, str] | None:
    """(role, name) of "my new <role> is <Name>" in a plain statement."""
    if s.unsure or s.negated:
        return None
    for pattern in _NEW_HOLDER:
        found = pattern.search(s.cased)
        if found is not None:
            return found["role"].lower(), _name(found["name"])
    return None


def _name(words: str) -> str:
    return re.sub(r"\b(?:dr|mr|mrs|ms|prof)\b\.? ?", "", words.lower()).strip()


def _holder_conflict(a: _Statement, b: _Statement) -> str | None:
    """``a`` names a new holder of a role that ``b`` gives to someone else."""
    new = _new_holder(a)
    if new is None or b.unsure:
        return None
    role, name = new
    for pattern in _HOLDER:
        for found in pattern.finditer(b.cased):
            if found["role"].lower() != role:
                continue
            other = _name(found["name"])
            if other and other not in name and name not in other:
                return f"a new {role}: {name!r} after {other!r}"
    return None


# The user's diet on meat and fish, one at a time: "I'm pescatarian" / "I went fully
# vegetarian" / "the user is vegan". A later one replaces an earlier one, and so does eating
# what the diet leaves out ("..., so I've started eating chicken" after "I'm pescatarian").
# Read clause by clause, each from its start, said by the user ("I", "we", "the user"; not
# "they", "my son"), as a state now: not a plan ("going vegan next month"), a hedge, a
# question, a report ("my mum thinks I eat fish again"), a past ("went vegan for a month last
# year", "back in college"), a part-time diet ("vegan on weekdays", "vegan-ish") nor a
# substitute ("started eating meat substitutes", "dairy-free yogurt").
_MEAT_DIET = r"vegan|vegetarian|veggie|pescatarian|pescetarian"
_USER = r"(?:i|we|the user)"
_DIET_STATE = re.compile(
    rf"^{_USER} (?:am|are|is|have become|have gone|have turned|went|became|turned) "
    r"(?:(?:now|fully|strictly|completely|totally|full|strict|a|an|also|officially) )*"
    rf"(?P<diet>{_MEAT_DIET})"
    r"(?:(?: now| these days| again| full stop)?$| (?:after|since|because)\b)"
)
_EATS = re.compile(
    rf"^{_USER} (?:have |has )?(?:started|begun|began) eating (?P<food>[a-z]+)(?P<rest>.*)$"
    rf"|^{_USER} (?:eat|eats|am eating|are eating|is eating) (?P<again>[a-z]+) again\b"
)
_DIET_OVER = re.compile(
    rf"^{_USER} (?:am|are|is) (?:not|no longer) (?:a )?(?:{_MEAT_DIET})\b"
    r"(?! (?:restaurants?|food|recipes?|fan|yet)\b)"
)
_NOT_NOW = re.compile(
    r"\b(?:for a (?:month|week|while|year)|for lent|back in|when i was|in college|as a "
    r"(?:kid|child)|thinks?|says?|said|told|wonder|should|would|might|may|maybe|if|going to|"
    r"plan\w*|next|soon|weekdays?|weekends?|at home|-ish|substitutes?|alternatives?|"
    r"replacements?|-free|free)\b|\?"
)
# A diet kept once: "I went vegan for a month last year", "I became vegan in 2015".
_ONCE = re.compile(r"\b(?:last|ago|in \d{4}|but)\b")
_CLAUSES = re.compile(r"[,;:.!?]\s*|\s+(?:so|but|and then|because)\s+")
# What each diet leaves out, and the foods that name it.
_LEAVES_OUT = {
    "vegan": ("meat", "fish", "dairy", "eggs"),
    "vegetarian": ("meat", "fish"),
    "pescatarian": ("meat",),
    "pescetarian": ("meat",),
}
_FOODS = {
    "meat": "meat beef pork chicken steak steaks bacon lamb ham turkey sausage sausages burger "
    "burgers mince venison duck",
    "fish": "fish salmon tuna seafood prawns shrimp cod sushi",
    "dairy": "dairy cheese milk butter yogurt yoghurt",
    "eggs": "eggs egg",
}
_KIND_OF = {food: kind for kind, foods in _FOODS.items() for food in foods.split()}


def _clauses(s: _Statement) -> list[str]:
    """``s``'s clauses, each without the words that lead it ("so", "also", "well" ...)."""
    return [
        _LEAD_WORDS.sub("", part.strip()).strip() for part in _CLAUSES.split(s.text) if part.strip()
    ]


def _diet(s: _Statement) -> str | None:
    """The diet on meat and fish the user says they keep now, in a clause of its own."""
    for clause in _clauses(s):
        found = _DIET_STATE.match(clause)
        if found is None or _NOT_NOW.search(s.text) or _NEGATION.search(clause):
            continue
        if clause.split()[1] in ("went", "became", "turned") and _ONCE.search(s.text):
            continue
        return found["diet"].replace("veggie", "vegetarian")
    return None


def _eats(s: _Statement) -> set[str]:
    """The kinds of food (``_FOODS``) the user says they started eating or eat again."""
    kinds = set()
    for clause in _clauses(s):
        found = _EATS.match(clause)
        if found is None or _NOT_NOW.search(clause) or _UNSURE.search(clause):
            continue
        if re.search(re.escape(clause) + r"\s*\?", s.text):
            continue  # "I eat meat again? No way."
        food = found["food"] or found["again"]
        # "chicken-flavoured crisps" (a substitute or "-free" the clause check refused already)
        if food in _KIND_OF and not (found["rest"] or "").startswith("-"):
            kinds.add(_KIND_OF[food])
    return kinds


def ends_a_diet(text: str) -> bool:
    """Whether ``text`` says the user's diet on meat and fish ended: the user started eating
    or eats again a food a diet leaves out ("..., so I've started eating chicken"), or says
    the diet is over ("I'm not vegetarian anymore")."""
    s = _read(text)
    return bool(_eats(s)) or any(_DIET_OVER.match(clause) for clause in _clauses(s))


def _diet_conflict(a: _Statement, b: _Statement) -> str | None:
    diet = _diet(a)
    if diet is None:
        return None
    other = _diet(b)
    if other is not None and other != diet:
        first, second = sorted((diet, other))
        return f"one diet at a time: {first!r} vs {second!r}"
    broken = _eats(b) & set(_LEAVES_OUT[diet])
    return f"eating {sorted(broken)[0]} ends a {diet} diet" if broken else None


def exclusive_conflict(a: str, b: str) -> Verdict | None:
    """A contradiction between ``a`` and ``b`` under the relations above, or None when these
    rules see none (the caller's other rules may still). Symmetric."""
    left, right = _read(a), _read(b)
    rules = (_home_conflict, _attribute_conflict, _cessation_conflict, _holder_conflict)
    for rule in (*rules, _diet_conflict):
        reason = rule(left, right) or rule(right, left)
        if reason is not None:
            return Verdict(True, 0.8, reason)
    return None


# The words that say a statement is about a home, for the write path's lexical neighbours:
# "moved to Porto" must find "lives in Lisbon" although they share no content word.
_HOME_WORDS = ("live", "lives", "living", "moved", "relocated", "based", "resides")
_DIET_WORDS = tuple(_MEAT_DIET.split("|"))
_HOME_CUE = re.compile(r"\b(?:lives?|living|moved|relocated|based|resides?)\b", re.IGNORECASE)


def relation_words(text: str) -> list[str]:
    """Words a record stating the same relation as ``text`` would hold, beyond ``text``'s
    own: the home words for a statement about a home, the replaced thing's words for a
    replacement or cessation."""
    words: list[str] = []
    if _HOME_CUE.search(text):
        words += _HOME_WORDS
    lowered = text.lower()
    if re.search(rf"\b(?:{_MEAT_DIET})\b|\beat(?:ing)?\b", lowered):
        words += _DIET_WORDS
    gone = _gone(_read(text))
    if gone:
        words += sorted(gone)
    return words


__all__ = ["ends_a_diet", "exclusive_conflict", "relation_words", "says_ended", "sentences"]

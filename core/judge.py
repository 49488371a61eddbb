"""The evidence judge: does a verbatim quote entail a stored statement, do two statements clash?

When an agent says a fact is a user statement or a tool result it must quote the transcript, and
the judge decides whether the quote *entails* the statement. A "no" only downgrades the record
to ``agent_inference``; a wrong "yes" pollutes the store. So every judge here is conservative:
when unsure, the answer is "not entailed". The same judge answers "do these two statements
contradict?" (so "I like coffee" and "I don't like coffee" are never merged as duplicates, and
conflicting records are flagged).

``OfflineJudge`` (the default, ``judge.kind = "offline"``) is a small set of explainable rules:
no model, no download, deterministic, well under a millisecond for a short pair. ``NLIJudge``
(``judge.kind = "nli"``) runs a natural-language-inference cross-encoder through transformers,
loaded lazily on first use. ``make_judge`` builds the configured one.

How the offline judge decides entailment
----------------------------------------
1. Normalise both texts: Unicode NFKC, casefold, one apostrophe, contractions expanded
   (``don't`` -> ``do not``, ``I'm`` -> ``I am``), split into sentences (a ``?`` marks a
   question, which asserts nothing) and into words, numbers, times and dates.
   Number words become values (``three`` -> 3, ``twenty-five`` -> 25, ``third`` -> 3), ``3pm``
   and ``15:00`` the same time, ``12 May``, ``May 12th`` and ``the twelfth of May`` the same
   date; ``may`` is a month only next to a number or after in/of/by/until/... Decimals and
   versions compare as written (``2.10`` is not ``2.1``), ranges and numeric dates
   (``3-4``, ``2024-05-12``) as one value.
2. Words are lightly stemmed (plural and third-person ``-s``/``-es``/``-ies``, ``-ing`` with
   the ``e`` put back, a few ``-ly``, a handful of irregular forms) and a tiny table unifies
   exact synonyms and spellings (kid/child, mum/mom/mother, colour/color). ``-ed`` is *not*
   stripped, so "lived" never matches "lives".
3. Perspective: in the quote ``I``/``me``/``my`` are the speaker; in the statement "the user"
   is, and so are ``they``/``their`` when they follow "the user" with no other noun in
   between. A statement "the user said/stated/mentioned/reported/noted (that) X" is checked
   as X: these framing words are the only statement words the quote need not contain.
4. Function words (articles, be/do forms, ``of``, ``that``, ...) and discourse words
   (``really``, ``actually``, ``please``, ...) are ignored. Everything else in the statement
   (nouns, verbs, adjectives, prepositions, numbers, dates, modal words) must be found in one
   sentence of the quote, in the same order, and:

   - only ignorable words, "soft" adverbs (``always``, ``still``, ``now``, ``only``...) or
     numbers may stand between two matched words; nothing but those may stand between the
     subject ("the user" / "my") and the next matched word (so "my sister lives in Berlin" does
     not give "the user lives in Berlin", nor "Alice said I'm lazy" "the user is lazy"); a short
     list ("French and German") may be skipped before a matched word;
   - the matched words may not be glued to more qualifiers: right before them may only come a
     sentence or clause start (``and``, ``but``, ``because``...), right after them only the
     sentence end, a new clause or a comma that opens one (so "I hate meetings before 10am"
     does not give "the user hates meetings", nor "the staging deploy failed" "the deploy
     failed");
   - polarity must agree: the negations (``not``/``no``/``never``/``nobody``/``nothing``/
     ``none``/``neither``/``nor``/``without``/``except``, the "rarely" words, a count of 0) in
     the clauses used, reaching back to the last ``but``/``because``/``so``-like word, plus a
     "not ... that" earlier in the sentence, must match the statement's in kind and number
     (``never`` entails ``not``, not the other way round; double negation is refused);
   - every hedge, condition, report or modal of the quote sentence (``might``, ``maybe``,
     ``perhaps``, ``probably``, ``could``, ``would``, ``will``, ``can``, ``if``, ``when``,
     ``or``, ``think``, ``considering``, ``plan``, ``want``, ``hope``, ``used to``, ``say``,
     ``usually``, ...) must be in the statement too: "I might move to Lisbon" does not give
     "the user is moving to Lisbon";
   - past-tense auxiliaries (``was``/``were``/``had``/``did``/``used``) must appear on both
     sides or neither.
5. One extra reading: a request ("Please keep your answers concise", "Use metric units")
   entails "the user wants/prefers/would like/asked for <the same words>", when the request
   has no words beyond a few request verbs (keep, make, give, use, write, ...).

The verdict's score is 0.75-1.0 when it holds (lower when words had to be skipped) and below
0.5 otherwise (the fraction of statement words found, halved); the reason names the first thing
that failed ("number 4 in the statement is not in the quote").

Limits, honestly: it is a bag of ordered words, not a parser. It misses real paraphrases
("I don't eat meat" does not give "the user is vegetarian"), reordered sentences, statements
spread over two quote sentences, and most synonyms; those are downgraded, which is the safe
direction. A later quote sentence with a retraction cue ("Just kidding", "Actually, ...",
"Sorry", "Wait") voids the earlier ones. It can still be fooled by constructions its rules do
not see, e.g. a coordinated qualifier ("I hate meetings and calls before 10am" gives "the
user hates meetings"), a later sentence that takes an earlier one back without such a cue, or
a pronoun in the statement that means someone other than the user.

Contradiction (offline): both statements are normalised the same way (first person and "the
user" are the same person), antonyms from a small general table (like/dislike, love/hate,
enable/disable, open/closed, pass/fail, increase/decrease, before/after, allowed/forbidden,
...) become "the same word, negated", and the two contradict when they share most content
words (Jaccard >= 0.6 over content stems) and either their polarity differs, or they give
different numbers for the same thing ("3 kids" / "4 children"), different dates, weekdays,
months or times. Hedged statements ("I might (not) move") and statements in different tenses
never contradict. It does not know which other words exclude each other ("my name is Alice" /
"my name is Bob", "I am vegetarian" / "I eat steak"). Symmetric by construction.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import AgentMemoryError, ConfigError

if TYPE_CHECKING:
    from core.config import JudgeConfig


@dataclass(frozen=True, slots=True)
class Verdict:
    """One judgement: whether it holds, a 0..1 confidence that it holds, and why."""

    holds: bool
    score: float
    reason: str


class JudgeUnavailable(AgentMemoryError):
    """The NLI judge model cannot be loaded (or run)."""

    def __init__(self, model: str, why: str) -> None:
        self.model = model
        self.why = why
        super().__init__(
            f"cannot use the NLI judge model {model!r}: {why}. Without network access only "
            "models already in the local Hugging Face cache or local folders load; "
            'judge.kind = "offline" works without any download'
        )


class Judge(ABC):
    """Decides entailment (quote -> statement) and contradiction (statement <-> statement)."""

    name: str

    @abstractmethod
    def entails(self, premise: str, hypothesis: str) -> Verdict:
        """Does ``premise`` (a verbatim quote) entail ``hypothesis`` (a stored statement)?"""

    @abstractmethod
    def contradicts(self, a: str, b: str) -> Verdict:
        """Do ``a`` and ``b`` contradict each other? Symmetric."""


# =============================================================================================
# Normalisation and tokens

# Token classes.
STOP = "stop"  # function and discourse words: ignored
SOFT = "soft"  # adverbs a quote may add freely; a statement must not add them
PUNCT = "punct"  # a comma
CONJ = "conj"  # "and"
CLAUSE = "clause"  # but, because, so, although, ...
PREP = "prep"
NEG = "neg"
MODAL = "modal"  # hedges, conditions, reports, modal verbs
SELF = "self"  # the speaker / the user
SELFPOSS = "selfposs"  # my / the user's
POSS = "poss"  # 's
PRON = "pron"  # other people
REL = "rel"  # who, which, ...
VALUE = "value"  # numbers, dates, months, weekdays, times
WORD = "word"
FRAME = "frame"  # statement only: "the user said ..."


@dataclass(slots=True)
class _Tok:
    form: str  # what is compared
    cls: str
    text: str  # the surface word, for reasons
    past: bool = False


@dataclass(slots=True)
class _Sentence:
    tokens: list[_Tok]
    question: bool


def _words(text: str) -> list[str]:
    return text.split()


_APOSTROPHES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'", "\u2032": "'"}
)

_CONTRACTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern), replacement)
    for pattern, replacement in [
        (r"\bwon't\b", "will not"),
        (r"\bcan't\b", "can not"),
        (r"\bcannot\b", "can not"),
        (r"\bshan't\b", "shall not"),
        (r"\bain't\b", "is not"),
        (r"n't\b", " not"),
        (r"\bi'm\b", "i am"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (r"'d\b", " would"),
        (r"\b(it|that|he|she|there|here|what|who|where|how|when|why)'s\b", r"\1 is"),
        (r"\blet's\b", "let us"),
        (r"'s\b", " 's"),
        (r"\be-mail", "email"),
        (r"\bwanna\b", "want to"),
        (r"\bgotta\b", "got to"),
    ]
]

# Sentence ends: . ! ? ; (not a decimal point) and newlines.
_SENTENCE_END = re.compile(r"((?<!\d)[.!?;]+|[.!?;]+(?!\d)|\n+)")

_TOKEN = re.compile(
    r"(?P<time>\b\d{1,2}(?:[:.]\d{2})?\s*(?:a\.?m\b\.?|p\.?m\b\.?)|\b\d{1,2}:\d{2}\b)"
    r"|(?P<range>\b\d+(?:[.:]\d+)*(?:[-\u2013/]\d+(?:[.:]\d+)*)+)"
    r"|(?P<num>(?:(?<![\w.])-)?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)*))"
    r"(?P<suffix>st|nd|rd|th)?"
    r"|(?P<poss>'s\b)"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<punct>[,$€£¥%])"
)

_UNITS = {
    name: value
    for value, name in enumerate(
        _words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
}
_TENS = {
    name: 10 * (i + 2)
    for i, name in enumerate(_words("twenty thirty forty fifty sixty seventy eighty ninety"))
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ORDINALS = {
    name: i + 1
    for i, name in enumerate(
        _words(
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
            "twentieth"
        )
    )
} | {"thirtieth": 30}
_CURRENCIES = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen", "%": "percent"}

_MONTHS = {
    name: name
    for name in (
        _words(
            "january february march april may june july august september october november december"
        )
    )
}
_MONTH_ABBREVIATIONS = {
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
}
# "may" (and the abbreviations) are months only next to a number or after these words.
_MONTH_CUES = {"in", "of", "by", "until", "till", "since", "from", "to", "early", "late", "mid"}
_MONTH_CUES |= {"next", "last", "this", "during", "through", "before", "after", "end"}
_WEEKDAYS = {
    name: name for name in _words("monday tuesday wednesday thursday friday saturday sunday")
} | {"tues": "tuesday", "weds": "wednesday", "thurs": "thursday"}

_STOP = set(
    _words(
        "a an the am is are was were be been being do does did doing done it its itself this "
        "that these those there here of as some any let such then thus"
    )
)
# Discourse words: ignored on both sides.
_STOP |= set(
    _words(
        "also really actually honestly personally seriously genuinely literally basically "
        "obviously clearly just yes yeah yep ok okay oh hey hi hello please thanks thank um uh "
        "anyway btw well indeed"
    )
)
_SOFT = set(
    _words(
        "still already now currently nowadays today tonight recently lately yesterday always "
        "very quite too even only strongly much definitely certainly absolutely totally truly "
        "fully completely entirely exactly again anymore daily"
    )
)
_PREP = set(
    _words(
        "in on at from to into onto near over under above below before after since until till "
        "by for with about against between among across through throughout during per via within "
        "outside inside behind beside besides around towards toward off out up down upon beyond "
        "despite along unlike than"
    )
)
_CLAUSE = set(_words("but although though whereas however because so while"))
_NEGATIONS = {
    "not": "not",
    "no": "not",
    "never": "never",
    "nobody": "nobody",
    "nothing": "nothing",
    "none": "none",
    "neither": "neither",
    "nor": "nor",
    "nowhere": "nowhere",
    "without": "without",
    "except": "except",
    "hardly": "hardly",
    "barely": "barely",
    "scarcely": "scarcely",
    "rarely": "rarely",
    "seldom": "seldom",
}
# A statement's "not" is entailed by any of these in the quote; the others need themselves.
_NOT_LIKE = {"not", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere"}

_MODALS: dict[str, str] = {}
for _canonical, _forms in {
    "might": "might",
    "may": "may",
    "maybe": "maybe",
    "perhaps": "perhaps",
    "possibly": "possibly",
    "probably": "probably",
    "likely": "likely",
    "unlikely": "unlikely",
    "could": "could",
    "would": "would",
    "should": "should",
    "must": "must",
    "can": "can",
    "will": "will",
    "shall": "shall",
    "ought": "ought",
    "gonna": "gonna",
    "consider": "consider considers considered considering",
    "think": "think thinks thought thinking",
    "believe": "believe believes believed believing",
    "guess": "guess guesses guessed guessing",
    "suppose": "suppose supposes supposed supposing supposedly",
    "assume": "assume assumes assumed assuming",
    "expect": "expect expects expected expecting",
    "hope": "hope hopes hoped hoping hopefully",
    "wish": "wish wishes wished wishing",
    "want": "want wants wanted wanting",
    "plan": "plan plans planned planning",
    "intend": "intend intends intended intending",
    "wonder": "wonder wonders wondered wondering",
    "doubt": "doubt doubts doubted doubting",
    "imagine": "imagine imagines imagined imagining",
    "pretend": "pretend pretends pretended pretending",
    "dream": "dream dreams dreamed dreamt dreaming",
    "seem": "seem seems seemed seeming",
    "try": "try tries tried trying",
    "if": "if",
    "unless": "unless",
    "whether": "whether",
    "when": "when whenever",
    "or": "or either",
    "used": "used",
    "say": "say says said saying tell tells told telling",
    "claim": "claim claims claimed claiming",
    "hear": "hear hears heard hearing",
    "apparently": "apparently allegedly",
    "usually": "usually often sometimes occasionally generally typically normally mostly",
    "almost": "almost nearly",
    "unsure": "unsure uncertain",
    "kidding": "kidding joking jk sarcasm sarcastic sarcastically",
}.items():
    for _form in _forms.split():
        _MODALS[_form] = _canonical

# Modal words that are hedges: a hedged statement and its negation can both hold.
_HEDGES = set(_MODALS.values()) - {"can", "will", "would", "shall", "must", "should", "say"}

_SELF_WORDS = {"i": SELF, "me": SELF, "myself": SELF, "my": SELFPOSS, "mine": SELFPOSS}
_PRONOUNS = set(
    _words(
        "he she him her his hers himself herself they them their theirs themselves we us our ours "
        "ourselves you your yours yourself yourselves someone somebody everyone everybody anyone "
        "anybody"
    )
)
_THEY = {"they": SELF, "them": SELF, "themselves": SELF, "their": SELFPOSS, "theirs": SELFPOSS}
_RELATIVES = set(_words("who whom whose which what where why how whoever whatever whichever"))
_FRAMES = set(_words("said says stated states mentioned mentions reported reports noted notes"))
_PAST_MARKERS = {"was", "were", "did", "had", "used"}
_AUXILIARIES = set(
    _words(
        "am is are was were be has have had do does did will would can could should might may "
        "must shall"
    )
)
_PARTICIPLES = set(
    _words(
        "been got gotten done gone made had seen taken given eaten written known grown left lost "
        "bought sold found met heard told said become come run begun read kept spent"
    )
)

_IRREGULAR = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "wives": "wife",
    "knives": "knife",
    "lives": "live",
    "has": "have",
    "having": "have",
    "goes": "go",
    "going": "go",
    "using": "use",
    "dying": "die",
    "lying": "lie",
    "data": "data",
}
_NO_STEM = set(
    _words(
        "always perhaps sometimes series species news physics maths mathematics economics "
        "politics thanks tennis analysis basis crisis lens atlas canvas alias christmas bus gas "
        "plus yes this his its thus something anything everything nothing thing bring spring "
        "string during"
    )
)
_SYNONYMS = {
    "kid": "child",
    "mom": "mother",
    "mum": "mother",
    "mommi": "mother",
    "mummi": "mother",
    "dad": "father",
    "daddi": "father",
    "favourite": "favorite",
    "colour": "color",
    "flavour": "flavor",
    "honour": "honor",
    "humour": "humor",
    "neighbour": "neighbor",
    "behaviour": "behavior",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "litre": "liter",
    "grey": "gray",
    "organise": "organize",
    "realise": "realize",
    "recognise": "recognize",
    "analyse": "analyze",
    "okay": "ok",
}

_VOWELS = set("aeiou")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences."""
    pattern = "".join("c" if _consonant(word, i) else "v" for i in range(len(word)))
    collapsed = re.sub(r"(.)\1+", r"\1", pattern)
    return collapsed.count("vc")


def _stem(word: str) -> str:
    """A light suffix stripper; see the module docstring."""
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    elif word not in _NO_STEM and len(word) > 3:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith("ing") and len(word) >= 6 and any(c in _VOWELS for c in word[:-3]):
            root = word[:-3]
            if len(root) >= 2 and root[-1] == root[-2] and root[-1] not in "lsz":
                root = root[:-1]
            elif (
                _measure(root) == 1
                and len(root) >= 3
                and _consonant(root, len(root) - 3)
                and not _consonant(root, len(root) - 2)
                and _consonant(root, len(root) - 1)
                and root[-1] not in "wxy"
            ):
                root += "e"
            word = root
        elif word.endswith("ly") and len(word) >= 7:
            word = word[:-2]
    if len(word) > 2 and word.endswith("y") and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    elif len(word) > 3 and word.endswith("ie"):
        word = word[:-1]
    return _SYNONYMS.get(word, word)


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


def _format_number(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:g}"


def _number_form(text: str) -> str:
    """Integers by value ("007" is 7); decimals and versions as written ("2.10" is not
    "2.1", which matters for versions)."""
    if "." in text:
        return f"#{text}"
    return f"#{int(text)}"


def _raw_tokens(sentence: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: time, range, num, poss, word, punct; number words folded into
    num. A range or numeric date ("3-4", "2024-05-12", "12/05") stays one value as written."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(sentence):
        if match.group("time"):
            out.append(("time", match.group("time")))
        elif match.group("range"):
            out.append(("range", match.group("range").replace("\u2013", "-")))
        elif match.group("num"):
            out.append(("num", match.group("num").replace(",", "")))
        elif match.group("poss"):
            out.append(("poss", "'s"))
        elif match.group("word"):
            out.append(("word", match.group("word")))
        else:
            out.append(("punct", match.group("punct")))
    return _fold_number_words(out)


def _fold_number_words(raw: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(raw):
        kind, text = raw[i]
        starts = (kind == "word" and (text in _UNITS or text in _TENS or text in _ORDINALS)) or (
            kind == "word"
            and text == "a"
            and i + 1 < len(raw)
            and raw[i + 1][1] in ("hundred", "thousand", "million", "billion")
        )
        if kind == "num" and text.count(".") <= 1 and i + 1 < len(raw) and raw[i + 1][1] in _SCALES:
            value = float(raw[i][1]) * _SCALES[raw[i + 1][1]]
            out.append(("num", _format_number(value)))
            i += 2
            continue
        if not starts:
            out.append((kind, text))
            i += 1
            continue
        total, current, j = 0, 0, i
        while j < len(raw) and raw[j][0] == "word":
            word = raw[j][1]
            if word == "a" and j == i:
                current = 1
            elif word in _UNITS and current % 10 == 0:
                current += _UNITS[word]
            elif word in _TENS and current % 100 == 0:
                current += _TENS[word]
            elif word in _ORDINALS and current % 10 == 0:
                current += _ORDINALS[word]
                j += 1
                break
            elif word in _SCALES:
                scale = _SCALES[word]
                current = max(current, 1) * scale if scale == 100 else current
                if scale > 100:
                    total += max(current, 1) * scale
                    current = 0
            elif (
                word == "and"
                and j + 1 < len(raw)
                and (raw[j + 1][1] in _UNITS or raw[j + 1][1] in _TENS)
                and (total or current >= 100)
            ):
                pass
            else:
                break
            j += 1
        out.append(("num", _format_number(total + current)))
        i = j
    return out


def _time_form(text: str) -> str:
    match = re.match(r"(\d{1,2})(?:[:.](\d{2}))?\s*([ap])?", text)
    assert match is not None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if match.group(3) == "p" and hour < 12:
        hour += 12
    elif match.group(3) == "a" and hour == 12:
        hour = 0
    return f"@{hour:02d}:{minute:02d}"


def _is_day(kind: str, text: str) -> bool:
    return kind == "num" and text.isdigit() and 1 <= int(text) <= 31


def _dates(raw: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Months, weekdays and day-month dates become ("value", form) entries."""
    months: list[str | None] = []
    for i, (kind, text) in enumerate(raw):
        month = None
        if kind == "word":
            name = _MONTHS.get(text) or _MONTH_ABBREVIATIONS.get(text)
            ambiguous = text == "may" or text in _MONTH_ABBREVIATIONS
            if name and ambiguous:
                near_number = (i > 0 and raw[i - 1][0] == "num") or (
                    i + 1 < len(raw) and raw[i + 1][0] == "num"
                )
                cue = i > 0 and raw[i - 1][1] in _MONTH_CUES
                if not (near_number or (cue and text == "may")):
                    name = None
            month = name
        months.append(month)
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(raw):
        kind, text = raw[i]
        # 12 May, 12th of May
        if _is_day(kind, text):
            j = i + 1
            if j < len(raw) and raw[j][1] == "of" and j + 1 < len(raw) and months[j + 1]:
                j += 1
            if j < len(raw) and months[j]:
                out.append(("value", f"@{months[j]}-{int(text)}"))
                i = j + 1
                continue
        month = months[i]
        if month:
            # May 12
            if i + 1 < len(raw) and _is_day(*raw[i + 1]):
                out.append(("value", f"@{month}-{int(raw[i + 1][1])}"))
                i += 2
                continue
            out.append(("value", f"@{month}"))
            i += 1
            continue
        if kind == "word":
            plain = text[:-1] if text.endswith("s") and text[:-1] in _WEEKDAYS else text
            if plain in _WEEKDAYS:
                out.append(("value", f"@{_WEEKDAYS[plain]}"))
                i += 1
                continue
        out.append((kind, text))
        i += 1
    return out


def _classify(raw: list[tuple[str, str]], *, statement: bool) -> list[_Tok]:
    tokens: list[_Tok] = []
    pending_currency: str | None = None
    for i, (kind, text) in enumerate(raw):
        if kind == "value":
            tokens.append(_Tok(text, VALUE, text.lstrip("@")))
        elif kind == "time":
            tokens.append(_Tok(_time_form(text), VALUE, text))
        elif kind == "range":
            tokens.append(_Tok(f"#{text}", VALUE, text))
        elif kind == "num":
            if re.fullmatch(r"-?0+", text):  # "0 kids" is "no kids"
                tokens.append(_Tok("not", NEG, text))
                continue
            tokens.append(_Tok(_number_form(text), VALUE, text))
            if pending_currency:
                tokens.append(_Tok(pending_currency, WORD, pending_currency))
                pending_currency = None
        elif kind == "punct":
            if text == ",":
                tokens.append(_Tok(",", PUNCT, ","))
            elif text == "%":
                tokens.append(_Tok("percent", WORD, "%"))
            elif i + 1 < len(raw) and raw[i + 1][0] == "num":
                pending_currency = _CURRENCIES[text]
            else:
                tokens.append(_Tok(_CURRENCIES[text], WORD, text))
        elif kind == "poss":
            if tokens and tokens[-1].cls == SELF and tokens[-1].text == "user":
                tokens[-1] = _Tok("~selfposs", SELFPOSS, "user's")
            else:
                tokens.append(_Tok("'s", POSS, "'s"))
        else:
            tokens.append(_word(text, raw, i, statement=statement))
    return tokens


def _word(text: str, raw: list[tuple[str, str]], i: int, *, statement: bool) -> _Tok:
    if text == "user":
        return _Tok("~self", SELF, text)
    if text in _SELF_WORDS:
        cls = _SELF_WORDS[text]
        return _Tok("~self" if cls == SELF else "~selfposs", cls, text)
    if text in ("have", "has", "had"):
        past = text == "had"
        for kind, following in raw[i + 1 :]:
            if kind == "word" and (following in _SOFT or following in ("not", "never")):
                continue
            if kind == "word" and (following in _PARTICIPLES or following.endswith("ed")):
                return _Tok(text, STOP, text, past=past)
            break
        return _Tok("have", WORD, text, past=past)
    if text in _NEGATIONS:
        return _Tok(_NEGATIONS[text], NEG, text)
    if statement and text in _FRAMES:
        return _Tok("say", FRAME, text)
    if text in _MODALS:
        return _Tok(_MODALS[text], MODAL, text, past=text == "used")
    if text in _STOP:
        return _Tok(text, STOP, text, past=text in _PAST_MARKERS)
    if text in _SOFT:
        return _Tok(text, SOFT, text)
    if text in _PREP:
        return _Tok(text, PREP, text)
    if text == "and":
        return _Tok(text, CONJ, text)
    if text in _CLAUSE:
        return _Tok(text, CLAUSE, text)
    if text in _PRONOUNS:
        return _Tok(text, PRON, text)
    if text in _RELATIVES:
        return _Tok(text, REL, text)
    return _Tok(_stem(text), WORD, text)


def _statement_people(tokens: list[_Tok]) -> list[_Tok]:
    """In a statement, they/their after "the user" (no other noun between) mean the user;
    "the user said (that)" is framing and dropped."""
    out: list[_Tok] = []
    seen_user = False
    blocked = False  # a word between the last "user" and here could be the antecedent
    for tok in tokens:
        if tok.cls in (SELF, SELFPOSS) and tok.text in ("user", "user's"):
            seen_user, blocked = True, False
            out.append(tok)
            continue
        if tok.text in _THEY and tok.cls == PRON:
            cls = _THEY[tok.text]
            if cls == SELF:
                may_map = seen_user and not blocked
            else:
                may_map = seen_user and not _blocked_possessive(out)
            if may_map:
                out.append(_Tok("~self" if cls == SELF else "~selfposs", cls, tok.text))
                continue
        if tok.cls in (WORD, VALUE, PREP):
            blocked = True
        out.append(tok)
    # Drop "the user said (that)".
    result: list[_Tok] = []
    i = 0
    while i < len(out):
        tok = out[i]
        if tok.cls == SELF and tok.text == "user":
            j = i + 1
            while j < len(out) and out[j].cls in (STOP, SOFT):
                j += 1
            if j < len(out) and out[j].cls == FRAME:
                result.append(_Tok("say", FRAME, out[j].text))
                i = j + 1
                continue
        if tok.cls == FRAME:  # not the user's own framing: an ordinary word
            tok = (
                _Tok(_MODALS[tok.text], MODAL, tok.text)
                if tok.text in _MODALS
                else _Tok(_stem(tok.text), WORD, tok.text)
            )
        result.append(tok)
        i += 1
    return result


def _blocked_possessive(before: list[_Tok]) -> bool:
    """A possessive after "the user's X" or another person may be theirs, not the user's."""
    for tok in reversed(before):
        if tok.cls == SELF and tok.text == "user":
            return False
        if tok.cls in (SELFPOSS, POSS, PRON):
            return True
    return True


def _sentences(text: str, *, statement: bool) -> list[_Sentence]:
    parts = _SENTENCE_END.split(_normalise(text))
    sentences: list[_Sentence] = []
    for k in range(0, len(parts), 2):
        body = parts[k]
        end = parts[k + 1] if k + 1 < len(parts) else ""
        raw = _dates(_raw_tokens(body))
        if not raw:
            continue
        tokens = _classify(raw, statement=statement)
        if statement:
            tokens = _statement_people(tokens)
        sentences.append(_Sentence(tokens, "?" in end))
    return sentences


# =============================================================================================
# Offline entailment

_MATCHED = (WORD, VALUE, PREP, MODAL, SELF, SELFPOSS, POSS, PRON, REL, CLAUSE, SOFT)
_SKIPPABLE = (STOP, SOFT, PUNCT)
_REQUEST_VERBS = set(
    _words(
        "keep make give use write be stay send show provide answer reply respond format put call"
    )
)
_SEARCH_BUDGET = 4000
# Words in a later quote sentence that may take an earlier one back ("Just kidding, ...").
_RETRACTIONS = set(
    _words(
        "kidding joking jk sarcasm sarcastic sarcastically correction scratch actually wait "
        "sorry lied nevermind"
    )
)


def _covers(want: _Tok, have: _Tok) -> bool:
    if have.cls not in _MATCHED:
        return False
    if want.form == have.form:
        return True
    # A month in the statement is covered by a date in that month.
    return want.cls == VALUE and have.form.startswith(want.form + "-") and want.form[:1] == "@"


def _describe(tok: _Tok) -> str:
    if tok.cls == VALUE:
        if tok.form.startswith("#"):
            return f"number {tok.form[1:]}"
        if ":" in tok.form:
            kind = "time"
        elif "-" in tok.form:
            kind = "date"
        elif tok.form[1:] in _WEEKDAYS.values():
            kind = "day"
        else:
            kind = "month"
        return f"{kind} {tok.text!r}"
    if tok.cls == SELF:
        return "the speaker ('I'), which the statement calls the user,"
    if tok.cls == SELFPOSS:
        return "the speaker's possessive ('my'), which the statement calls the user's,"
    return repr(tok.text)


@dataclass(slots=True)
class _Attempt:
    holds: bool
    coverage: float
    stage: int  # how far the checks got: 0 nothing, 1 words, 2 hedges, 3 order, 4 ok
    reason: str
    tightness: float = 1.0


class _Aligner:
    """Finds the statement's words, in order, inside one quote sentence, under the rules."""

    def __init__(self, sentence: _Sentence, seq: list[_Tok], statement: list[_Tok]) -> None:
        self.tokens = sentence.tokens
        self.seq = seq
        self.hyp_negs = {t.form for t in statement if t.cls == NEG}
        self.hyp_neg_count = sum(t.cls == NEG for t in statement)
        self.hyp_past = any(t.past for t in statement)
        self.hyp_modals = {t.form for t in statement if t.cls in (MODAL, FRAME)}
        self.hyp_framed = any(t.cls == FRAME for t in statement)
        # Clauses for polarity and tense: a new one starts at "and", a comma, or a clause word
        # (but, because, so, ...); clause_opener[c] is the class of the token that opens c.
        self.clause_of: list[int] = []
        self.clause_opener: list[str] = [CLAUSE]
        clause = 0
        for tok in self.tokens:
            if tok.cls in (CLAUSE, CONJ, PUNCT):
                clause += 1
                self.clause_opener.append(tok.cls)
            self.clause_of.append(clause)
        self.candidates = [
            [p for p, tok in enumerate(self.tokens) if _covers(want, tok)] for want in seq
        ]
        self.budget = _SEARCH_BUDGET
        self.best_depth = -1
        self.best_reason = "the quote's words are not in the statement's order"

    def fail(self, depth: int, reason: str) -> None:
        if depth > self.best_depth:
            self.best_depth, self.best_reason = depth, reason

    def run(self) -> tuple[bool, str, float]:
        path: list[int] = []
        final_reason: list[str] = []
        if self._search(0, -1, path, final_reason):
            skipped = sum(
                1
                for p in range(path[0], path[-1] + 1)
                if p not in path and self.tokens[p].cls not in (STOP, PUNCT)
            )
            return True, "", len(path) / (len(path) + skipped)
        if final_reason:
            return False, final_reason[0], 0.0
        return False, self.best_reason, 0.0

    def _search(self, i: int, prev: int, path: list[int], final: list[str]) -> bool:
        if i == len(self.seq):
            reason = self._final_checks(path)
            if reason is None:
                return True
            if not final:
                final.append(reason)
            return False
        for pos in self.candidates[i]:
            if pos <= prev:
                continue
            self.budget -= 1
            if self.budget < 0:
                self.fail(len(self.seq), "the quote is too repetitive to check")
                return False
            problem = self._leading(pos) if i == 0 else self._gap(prev, pos, i)
            if problem is not None:
                self.fail(i, problem)
                continue
            path.append(pos)
            if self._search(i + 1, pos, path, final):
                return True
            path.pop()
        return False

    def _leading(self, pos: int) -> str | None:
        """Right before the first matched word: only a sentence or clause start."""
        p = pos - 1
        while p >= 0:
            tok = self.tokens[p]
            if tok.cls in (CONJ, CLAUSE):
                return None
            if tok.cls not in _SKIPPABLE and not self._may_lead(tok):
                first = self.tokens[pos].text
                return f"the quote qualifies it: {tok.text!r} comes before {first!r}"
            p -= 1
        return None

    def _may_lead(self, tok: _Tok) -> bool:
        """Before the first match: a negation the statement shares, a modal or report it
        shares, and, when the statement frames ("the user said ..."), the speaker."""
        if tok.cls == NEG:
            return bool(self.hyp_negs)
        if tok.cls == MODAL:
            return tok.form in self.hyp_modals
        return tok.cls == SELF and self.hyp_framed

    def _gap(self, prev: int, pos: int, i: int) -> str | None:
        gap = self.tokens[prev + 1 : pos]
        if not gap:
            return None
        allowed = {STOP, SOFT, PUNCT} | ({NEG} if self.hyp_negs else set())
        if all(t.cls in allowed for t in gap):
            return None
        left, right = self.tokens[prev].text, self.tokens[pos].text
        extra = next(t for t in gap if t.cls not in allowed)
        where = f"{extra.text!r} stands between {left!r} and {right!r} in the quote"
        if self.seq[i - 1].cls in (SELF, SELFPOSS):
            return f"the quote may be about someone or something else: {where}"
        if self.hyp_negs:
            return f"under a negation the quote must say exactly the same: {where}"
        # A number may be dropped ("3 kids" gives "kids"), but not in front of another value
        # ("3pm 5pm", "12 15 cats" read as a range or a list).
        values_ok = self.seq[i].cls != VALUE
        if values_ok and all(t.cls in allowed or t.cls == VALUE for t in gap):
            return None
        # A short list before the matched word: "French and German", "short, concise".
        core = [t for t in gap if t.cls not in (STOP, SOFT)]
        if (
            all(t.cls in (WORD, CONJ, PUNCT) or (t.cls == VALUE and values_ok) for t in core)
            and core[-1].cls in (CONJ, PUNCT)
            and sum(t.cls == WORD for t in core) <= 3
        ):
            after = self.tokens[pos + 1] if pos + 1 < len(self.tokens) else None
            if after is None or (after.text not in _AUXILIARIES and after.cls != MODAL):
                return None
        return where

    def _final_checks(self, path: list[int]) -> str | None:
        last = path[-1]
        problem = self._trailing(last)
        if problem is not None:
            return problem
        first_clause, last_clause = self.clause_of[path[0]], self.clause_of[last]
        # A negation earlier in the sentence scopes over what follows ("It is not the case
        # that I am a nurse and I work nights") unless a clause word such as "but" intervenes.
        while first_clause > 0 and self.clause_opener[first_clause] != CLAUSE:
            first_clause -= 1
        span = [
            tok
            for tok, clause in zip(self.tokens, self.clause_of, strict=True)
            if first_clause <= clause <= last_clause
        ]
        negs = [t.form for t in span if t.cls == NEG]
        negs += self._wide_negations(path[0], first_clause)
        problem = _polarity(set(negs), self.hyp_negs)
        if problem is None and len(negs) != self.hyp_neg_count:
            problem = (
                f"the quote has {len(negs)} negations where the statement has "
                f"{self.hyp_neg_count}; double negation is not judged"
            )
        if problem is not None:
            return problem
        premise_past = any(t.past for t in span)
        if premise_past != self.hyp_past:
            marker = next((t.text for t in span if t.past), "")
            if premise_past:
                return f"the quote is in the past ({marker!r}) and the statement is not"
            return "the statement is in the past and the quote is not"
        return None

    def _wide_negations(self, first: int, first_clause: int) -> list[str]:
        """Negations before the span that take a "that" clause ("It is not the case that
        ...", "It's not true that ...") scope over the rest of the sentence, past "but"."""
        found: list[str] = []
        for p in range(first):
            tok = self.tokens[p]
            if tok.cls != NEG or self.clause_of[p] >= first_clause:
                continue
            if any(t.text in ("that", "whether") for t in self.tokens[p + 1 : first]):
                found.append(tok.form)
        return found

    def _trailing(self, last: int) -> str | None:
        """Right after the last matched word: the sentence end, a new clause, or a comma
        that opens one."""
        p = last + 1
        while p < len(self.tokens) and self.tokens[p].cls in (STOP, SOFT):
            p += 1
        if p >= len(self.tokens) or self.tokens[p].cls in (CONJ, CLAUSE):
            return None
        tok = self.tokens[p]
        if tok.cls == PUNCT:
            q = p + 1
            while q < len(self.tokens) and self.tokens[q].cls in (STOP, SOFT, PUNCT):
                q += 1
            # Not another person: "'I live in Berlin', she wrote" is someone else's words.
            if q >= len(self.tokens) or self.tokens[q].cls in (CONJ, CLAUSE, SELF, REL, NEG, MODAL):
                return None
            tok = self.tokens[q]
        return f"the quote qualifies it further: {tok.text!r} follows {self.tokens[last].text!r}"


def _polarity(premise: set[str], statement: set[str]) -> str | None:
    if bool(premise) != bool(statement):
        if premise:
            word = sorted(premise)[0]
            return f"the quote is negated ({word!r}) and the statement is not"
        return f"the statement is negated ({sorted(statement)[0]!r}) and the quote is not"
    for form in statement:
        if form == "not":
            if not premise & _NOT_LIKE:
                return f"the statement says 'not' but the quote only {sorted(premise)[0]!r}"
        elif form not in premise:
            return f"the statement says {form!r} and the quote does not"
    for form in premise - _NOT_LIKE:
        if form not in statement:
            return f"the quote says {form!r} and the statement does not"
    return None


def _sequence(statement: list[_Tok]) -> list[_Tok]:
    seq = [t for t in statement if t.cls in _MATCHED]
    collapsed: list[_Tok] = []
    for tok in seq:
        if collapsed and tok.cls == SELF and collapsed[-1].cls == SELF:
            continue
        collapsed.append(tok)
    return collapsed


def _entail_sentence(premise: _Sentence, statement: _Sentence) -> _Attempt:
    seq = _sequence(statement.tokens)
    if not seq:
        return _Attempt(False, 0.0, 0, "the statement has no content words to check")
    have = premise.tokens
    found = [any(_covers(want, tok) for tok in have) for want in seq]
    coverage = sum(found) / len(seq)
    if premise.question:
        return _Attempt(False, coverage, 0, "the quote is a question, which asserts nothing")
    missing = [want for want, ok in zip(seq, found, strict=True) if not ok]
    if missing:
        request = _request(premise, statement)
        if request is not None:
            return request
        first = next((t for t in missing if t.cls == VALUE), missing[0])
        return _Attempt(
            False, coverage, 1, f"{_describe(first)} in the statement is not in the quote"
        )
    statement_modals = {t.form for t in statement.tokens if t.cls in (MODAL, FRAME)}
    for tok in have:
        if tok.cls == MODAL and tok.form not in statement_modals:
            return _Attempt(
                False,
                coverage,
                2,
                f"the quote hedges, conditions or reports it ({tok.text!r}) and the "
                "statement states it plainly",
            )
    aligner = _Aligner(premise, seq, statement.tokens)
    holds, reason, tightness = aligner.run()
    if holds:
        return _Attempt(
            True,
            1.0,
            4,
            "every statement word is in the quote, in order, with the same polarity",
            tightness,
        )
    return _Attempt(False, coverage, 3, reason)


def _request(premise: _Sentence, statement: _Sentence) -> _Attempt | None:
    """'Please keep your answers concise' entails 'the user wants concise answers'."""
    tokens = [t for t in statement.tokens if t.cls not in (STOP, PUNCT, NEG)]
    if len(tokens) < 3 or tokens[0].cls != SELF or any(t.past for t in statement.tokens):
        return None
    verb = tokens[1]
    rest = tokens[2:]
    opener = {"would": "like", "ask": "for", "asked": "for"}.get(verb.form)
    if opener is not None and rest and rest[0].form == opener:
        rest = rest[1:]
    elif verb.form not in ("want", "prefer", "request", "requested"):
        return None
    content = [t for t in rest if t.cls != NEG]
    if not content or any(t.cls not in (WORD, VALUE, PREP) for t in content):
        return None
    words = [t for t in premise.tokens if t.cls not in (STOP, PUNCT)]
    if not words:
        return None
    is_request = any(t.text == "please" for t in premise.tokens) or (
        words[0].form in _REQUEST_VERBS or (words[0].cls == NEG and len(words) > 1)
    )
    if not is_request:
        return None
    for tok in words:
        if tok.cls == NEG or any(_covers(want, tok) for want in content):
            continue
        if tok.form in _REQUEST_VERBS or tok.text in ("you", "your", "me"):
            continue
        return None
    if not all(any(_covers(want, tok) for tok in words) for want in content):
        return None
    negs = {t.form for t in words if t.cls == NEG}
    if _polarity(negs, {t.form for t in statement.tokens if t.cls == NEG}) is not None:
        return None
    return _Attempt(True, 1.0, 4, "the quote asks for exactly what the statement says is wanted")


class OfflineJudge(Judge):
    """Rule-based, conservative, deterministic; no model. See the module docstring."""

    name = "offline-rules-v1"

    def entails(self, premise: str, hypothesis: str) -> Verdict:
        quote = _sentences(premise, statement=False)
        statement = _sentences(hypothesis, statement=True)
        if not quote:
            return Verdict(False, 0.0, "the quote is empty")
        if not statement:
            return Verdict(False, 0.0, "the statement is empty")
        scores: list[float] = []
        reasons: list[str] = []
        for part in statement:
            attempts = [_entail_sentence(sentence, part) for sentence in quote]
            for k, attempt in enumerate(attempts):
                later = {t.text for sent in quote[k + 1 :] for t in sent.tokens} & _RETRACTIONS
                if attempt.holds and later:
                    attempts[k] = _Attempt(
                        False,
                        attempt.coverage,
                        3,
                        f"a later sentence of the quote may take it back ({sorted(later)[0]!r})",
                    )
            passed = [a for a in attempts if a.holds]
            if passed:
                best_pass = max(passed, key=lambda a: a.tightness)
                scores.append(0.75 + 0.25 * best_pass.tightness)
                reasons.append(best_pass.reason)
                continue
            best = max(attempts, key=lambda a: (a.coverage, a.stage))
            reason = best.reason
            if len(statement) > 1:
                reason = f"{reason} (in the statement's sentence {statement.index(part) + 1})"
            return Verdict(False, round(0.45 * best.coverage, 4), reason)
        if len(statement) == 1:
            reason = reasons[0]
        else:
            reason = "each statement sentence is entailed by one quote sentence"
        return Verdict(True, round(min(scores), 4), reason)

    def contradicts(self, a: str, b: str) -> Verdict:
        return _contradicts(_Facts.of(a), _Facts.of(b))


# =============================================================================================
# Offline contradiction

# Antonyms: each group's words on the first side are "positive", on the second "negative".
_ANTONYM_GROUPS: list[tuple[str, str]] = [
    ("like love enjoy prefer adore", "dislike hate detest loathe avoid"),
    ("allow allowed permit permitted", "forbid forbidden prohibit prohibited ban banned"),
    ("true correct", "false incorrect wrong"),
    ("open", "close closed shut"),
    ("enable", "disable"),
    ("start begin", "stop finish"),
    ("increase raise", "decrease reduce lower"),
    ("before", "after"),
    ("pass succeed success successful", "fail failure"),
    ("accept approve", "reject decline refuse"),
    ("include", "exclude"),
    ("win won", "lose lost"),
    ("available", "unavailable"),
    ("possible", "impossible"),
    ("legal", "illegal"),
    ("valid", "invalid"),
    ("agree", "disagree"),
    ("remember", "forget forgot forgotten"),
    ("present", "absent"),
    ("online", "offline"),
    ("public", "private"),
    ("alive", "dead"),
    ("same", "different"),
    ("more", "less"),
    ("above", "below"),
    ("early", "late"),
    ("cheap", "expensive"),
    ("hot", "cold"),
    ("light", "dark"),
    ("happy", "unhappy sad"),
    ("visible", "hidden invisible"),
]
_ANTONYMS: dict[str, tuple[str, bool]] = {}
for _positive, _negative in _ANTONYM_GROUPS:
    _name = _positive.split()[0]
    for _w in _positive.split():
        _ANTONYMS[_stem(_w)] = (_name, False)
    for _w in _negative.split():
        _ANTONYMS[_stem(_w)] = (_name, True)


def _antonym(tok: _Tok) -> tuple[str, bool] | None:
    candidates = [tok.form]
    text = tok.text
    if text.endswith("ed") and len(text) > 4:
        root = text[:-2]
        candidates += [root, root + "e", _stem(root)]
        if len(root) >= 2 and root[-1] == root[-2]:
            candidates.append(root[:-1])
    for candidate in candidates:
        if candidate in _ANTONYMS:
            return _ANTONYMS[candidate]
    return None


@dataclass(slots=True)
class _Facts:
    """What contradiction compares, from one statement."""

    question: bool
    content: set[str]
    negs: list[str]
    flips: list[str]
    modals: set[str]
    past: bool
    numbers: dict[str, set[str]]
    kinds: dict[str, set[str]]

    @classmethod
    def of(cls, text: str) -> _Facts:
        sentences = _sentences(text, statement=True)
        tokens = [t for s in sentences for t in s.tokens]
        content: set[str] = set()
        negs: list[str] = []
        flips: list[str] = []
        numbers: dict[str, set[str]] = {}
        kinds: dict[str, set[str]] = {k: set() for k in ("date", "month", "weekday", "time")}
        for i, tok in enumerate(tokens):
            if tok.cls == NEG:
                negs.append(tok.text)
            elif tok.cls in (WORD, PREP, SOFT):
                antonym = _antonym(tok)
                if antonym is not None:
                    name, flipped = antonym
                    if flipped:
                        flips.append(tok.text)
                    content.add(name)
                elif tok.cls != SOFT:
                    content.add(tok.form)
            elif tok.cls in (SELF, SELFPOSS, POSS, PRON, REL):
                content.add(tok.form)
            elif tok.cls == VALUE:
                form = tok.form
                if form.startswith("#"):
                    numbers.setdefault(_number_context(tokens, i), set()).add(form[1:])
                elif ":" in form:
                    kinds["time"].add(form)
                elif form[1:] in _WEEKDAYS.values():
                    kinds["weekday"].add(form)
                elif "-" in form:
                    kinds["date"].add(form)
                    kinds["month"].add(form.split("-")[0])
                else:
                    kinds["month"].add(form)
        return cls(
            question=any(s.question for s in sentences),
            content=content,
            negs=negs,
            flips=flips,
            modals={t.form for t in tokens if t.cls in (MODAL, FRAME)},
            past=any(t.past for t in tokens) or any(_past_participle(t) for t in tokens),
            numbers=numbers,
            kinds=kinds,
        )

    @property
    def negated(self) -> bool:
        return (len(self.negs) + len(self.flips)) % 2 == 1


def _past_participle(tok: _Tok) -> bool:
    """A regular past form ("lived") that is not one of the antonym words ("closed")."""
    return tok.cls == WORD and tok.text.endswith("ed") and _antonym(tok) is None


def _number_context(tokens: list[_Tok], i: int) -> str:
    """The thing a number counts: the next content word, else the previous one."""
    for tok in tokens[i + 1 :]:
        if tok.cls in (WORD, PREP):
            return tok.form
        if tok.cls in (CLAUSE, CONJ, PUNCT):
            break
    for tok in reversed(tokens[:i]):
        if tok.cls in (WORD, PREP):
            return tok.form
    return ""


def _contradicts(a: _Facts, b: _Facts) -> Verdict:
    if a.question or b.question:
        return Verdict(False, 0.0, "a question does not assert anything")
    union = a.content | b.content
    if not union:
        return Verdict(False, 0.0, "no content words to compare")
    jaccard = len(a.content & b.content) / len(union)
    polarity_differs = a.negated != b.negated
    conflict = _value_conflict(a, b)
    signal = polarity_differs or conflict is not None
    low = round(0.45 * jaccard * (1.0 if signal else 0.3), 4)
    if jaccard < 0.6:
        return Verdict(
            False, low, f"the statements share too few content words (overlap {jaccard:.2f})"
        )
    if a.modals != b.modals:
        words = sorted(a.modals ^ b.modals)
        return Verdict(
            False, low, f"only one statement is hedged or modal ({words[0]!r}); not comparable"
        )
    if a.past != b.past:
        return Verdict(False, low, "the statements are in different tenses")
    high = round(0.5 + 0.5 * jaccard, 4)
    if polarity_differs:
        if a.modals & _HEDGES:
            word = sorted(a.modals & _HEDGES)[0]
            return Verdict(
                False, low, f"both are hedged ({word!r}); a hedge and its negation can both hold"
            )
        flips = sorted(set(a.flips) ^ set(b.flips))
        if flips:
            return Verdict(True, high, f"{flips[0]!r} is the opposite of the other statement")
        negs = sorted(set(a.negs) ^ set(b.negs)) or sorted(set(a.negs) | set(b.negs))
        if negs:
            return Verdict(True, high, f"one statement negates the other ({negs[0]!r})")
        return Verdict(True, high, "one statement is negated and the other is not")
    if conflict is not None:
        return Verdict(True, high, conflict)
    return Verdict(False, low, "same polarity and no conflicting numbers or dates")


def _value_conflict(a: _Facts, b: _Facts) -> str | None:
    for context in sorted(a.numbers.keys() & b.numbers.keys()):
        left, right = a.numbers[context], b.numbers[context]
        if not left & right:
            values = sorted([", ".join(sorted(left)), ", ".join(sorted(right))])
            about = f" for {context!r}" if context else ""
            return f"different numbers{about}: {values[0]} vs {values[1]}"
    for kind in ("date", "time", "weekday", "month"):
        left, right = a.kinds[kind], b.kinds[kind]
        if left and right and not left & right:
            values = sorted([", ".join(sorted(left)), ", ".join(sorted(right))])
            shown = [v.replace("@", "") for v in values]
            return f"different {kind}s: {shown[0]} vs {shown[1]}"
    return None


# =============================================================================================
# NLI cross-encoder


class NLIJudge(Judge):
    """An NLI cross-encoder (for example cross-encoder/nli-deberta-v3-base) via transformers.

    Loaded lazily on the first call (never at import or construction), once, under a lock.
    ``entails`` holds when P(entailment) >= ``entail_threshold``; ``contradicts`` when the
    larger of P(contradiction | a, b) and P(contradiction | b, a) reaches
    ``contradiction_threshold``.
    """

    def __init__(
        self,
        model: str,
        *,
        device: str = "cpu",
        entail_threshold: float = 0.8,
        contradiction_threshold: float = 0.8,
        max_length: int = 512,
    ) -> None:
        for label, value in (
            ("entail_threshold", entail_threshold),
            ("contradiction_threshold", contradiction_threshold),
        ):
            if not 0.0 <= value <= 1.0 or math.isnan(value):
                raise ConfigError(f"{label} must be between 0 and 1, got {value!r}")
        self.model = model
        self.name = f"nli:{model}"
        self.device = device
        self.entail_threshold = entail_threshold
        self.contradiction_threshold = contradiction_threshold
        self.max_length = max_length
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None
        self._labels: dict[str, int] = {}

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the model now (it is otherwise loaded by the first call)."""
        with self._lock:
            if self._model is not None:
                return
            source = self._source()
            try:
                import torch  # noqa: F401
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as exc:  # pragma: no cover - both are dependencies
                raise JudgeUnavailable(self.model, f"transformers/torch missing: {exc}") from exc
            try:
                with _quiet_transformers():
                    tokenizer = AutoTokenizer.from_pretrained(source)
                    model = AutoModelForSequenceClassification.from_pretrained(source)
                model.to(self.device)
                model.eval()
            except Exception as exc:
                raise JudgeUnavailable(self.model, f"{type(exc).__name__}: {exc}") from exc
            self._labels = _label_indices(self.model, getattr(model.config, "id2label", None))
            self._tokenizer = tokenizer
            self._model = model

    def _source(self) -> str:
        path = Path(self.model).expanduser()
        if path.is_dir():
            return str(path)
        looks_local = path.is_absolute() or self.model.startswith((".", "~")) or path.exists()
        if looks_local:
            if path.exists():
                raise JudgeUnavailable(self.model, f"{path} is a file, not a model folder")
            raise JudgeUnavailable(self.model, f"the folder {path} does not exist")
        return self.model

    def _probabilities(self, pairs: list[tuple[str, str]]) -> list[list[float]]:
        self.load()
        import torch

        try:
            limit = self.max_length
            model_limit = getattr(self._tokenizer, "model_max_length", None)
            if isinstance(model_limit, int) and 0 < model_limit < limit:
                limit = model_limit
            with torch.inference_mode():
                encoded = self._tokenizer(
                    [p for p, _ in pairs],
                    [h for _, h in pairs],
                    padding=True,
                    truncation=True,
                    max_length=limit,
                    return_tensors="pt",
                )
                encoded = {k: v.to(self.device) for k, v in encoded.items()}
                logits = self._model(**encoded).logits
                probabilities = torch.softmax(logits.float(), dim=-1).cpu().tolist()
        except Exception as exc:
            raise JudgeUnavailable(self.model, f"inference failed: {exc}") from exc
        return [list(map(float, row)) for row in probabilities]

    def entails(self, premise: str, hypothesis: str) -> Verdict:
        if not premise.strip() or not hypothesis.strip():
            return Verdict(False, 0.0, "the quote or the statement is empty")
        [row] = self._probabilities([(premise, hypothesis)])
        p = row[self._labels["entailment"]]
        holds = p >= self.entail_threshold
        sign = ">=" if holds else "<"
        return Verdict(holds, p, f"P(entailment) = {p:.2f} {sign} {self.entail_threshold:.2f}")

    def contradicts(self, a: str, b: str) -> Verdict:
        if not a.strip() or not b.strip():
            return Verdict(False, 0.0, "a statement is empty")
        first, second = sorted((a, b))  # the same batch either way round: exactly symmetric
        rows = self._probabilities([(first, second), (second, first)])
        p = max(row[self._labels["contradiction"]] for row in rows)
        holds = p >= self.contradiction_threshold
        sign = ">=" if holds else "<"
        return Verdict(
            holds,
            p,
            f"P(contradiction), the larger of both orders, = {p:.2f} {sign} "
            f"{self.contradiction_threshold:.2f}",
        )


def _label_indices(model: str, id2label: Any) -> dict[str, int]:
    """Map entailment/neutral/contradiction (any case) to output indices, or refuse."""
    labels: dict[str, int] = {}
    shown: list[str] = []
    for index, label in dict(id2label or {}).items():
        name = str(label).strip().casefold()
        shown.append(str(label))
        if name in ("entailment", "neutral", "contradiction"):
            labels[name] = int(index)
    if "entailment" not in labels or "contradiction" not in labels:
        raise JudgeUnavailable(
            model,
            f"its labels {sorted(shown)} are unknown: an NLI model must name its outputs "
            "'entailment', 'neutral' and 'contradiction' in config.id2label (generic "
            "LABEL_0.. names cannot be mapped safely)",
        )
    return labels


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Hide transformers' loading progress bars, restoring the host's setting afterwards."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def make_judge(config: JudgeConfig) -> Judge:
    """The judge ``config`` asks for; nothing is loaded until it is first used."""
    if config.kind == "offline":
        return OfflineJudge()
    if config.kind == "nli":
        return NLIJudge(
            config.nli_model,
            entail_threshold=config.entail_threshold,
            contradiction_threshold=config.contradiction_threshold,
        )
    raise ConfigError(f"unknown judge kind {config.kind!r}; expected 'offline' or 'nli'")


__all__ = [
    "Judge",
    "JudgeUnavailable",
    "NLIJudge",
    "OfflineJudge",
    "Verdict",
    "make_judge",
]

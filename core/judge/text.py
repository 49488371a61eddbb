"""Normalisation and tokens for the offline judge: contractions, numbers, dates and times as
comparable values, light stemming, and token classes (see core.judge.offline for how they are
used)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

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
class Token:
    form: str  # what is compared
    cls: str
    text: str  # the surface word, for reasons
    past: bool = False


@dataclass(slots=True)
class Sentence:
    tokens: list[Token]
    question: bool


def split_words(text: str) -> list[str]:
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
    r"(?:(?P<suffix>st|nd|rd|th)|(?P<scale>k|m|bn)(?![^\W\d_]))?"
    r"|(?P<poss>'s\b)"
    r"|(?P<word>[^\W\d_]+)"
    r"|(?P<punct>[,$€£¥%])"
)

_UNITS = {
    name: value
    for value, name in enumerate(
        split_words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
}
_TENS = {
    name: 10 * (i + 2)
    for i, name in enumerate(split_words("twenty thirty forty fifty sixty seventy eighty ninety"))
}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_ORDINALS = {
    name: i + 1
    for i, name in enumerate(
        split_words(
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
        split_words(
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
WEEKDAYS = {
    name: name for name in split_words("monday tuesday wednesday thursday friday saturday sunday")
} | {"tues": "tuesday", "weds": "wednesday", "thurs": "thursday"}

_STOP = set(
    split_words(
        "a an the am is are was were be been being do does did doing done it its itself this "
        "that these those there here of as some any let such then thus"
    )
)
# Discourse words: ignored on both sides.
_STOP |= set(
    split_words(
        "also really actually honestly personally seriously genuinely literally basically "
        "obviously clearly just yes yeah yep ok okay oh hey hi hello please thanks thank um uh "
        "anyway btw well indeed"
    )
)
_SOFT = set(
    split_words(
        "still already now currently nowadays today tonight recently lately yesterday always "
        "very quite too even only strongly much definitely certainly absolutely totally truly "
        "fully completely entirely exactly again anymore daily"
    )
)
_PREP = set(
    split_words(
        "in on at from to into onto near over under above below before after since until till "
        "by for with about against between among across through throughout during per via within "
        "outside inside behind beside besides around towards toward off out up down upon beyond "
        "despite along unlike than"
    )
)
_CLAUSE = set(split_words("but although though whereas however because so while"))
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
NOT_LIKE = {"not", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere"}

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
HEDGES = set(_MODALS.values()) - {"can", "will", "would", "shall", "must", "should", "say"}

_SELF_WORDS = {"i": SELF, "me": SELF, "myself": SELF, "my": SELFPOSS, "mine": SELFPOSS}
_PRONOUNS = set(
    split_words(
        "he she him her his hers himself herself they them their theirs themselves we us our ours "
        "ourselves you your yours yourself yourselves someone somebody everyone everybody anyone "
        "anybody"
    )
)
_THEY = {"they": SELF, "them": SELF, "themselves": SELF, "their": SELFPOSS, "theirs": SELFPOSS}
_RELATIVES = set(split_words("who whom whose which what where why how whoever whatever whichever"))
_FRAMES = set(
    split_words("said says stated states mentioned mentions reported reports noted notes")
)
_PAST_MARKERS = {"was", "were", "did", "had", "used"}
AUXILIARIES = set(
    split_words(
        "am is are was were be has have had do does did will would can could should might may "
        "must shall"
    )
)
_PARTICIPLES = set(
    split_words(
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
    split_words(
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


def stem_word(word: str) -> str:
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


# Written scales: "15k" is 15,000 anywhere; "3m" and "2bn" only after a currency sign
# ("$3m"), since "3m" alone is as often three metres or minutes.
_SCALE = {"k": 1000, "m": 10**6, "bn": 10**9}
_CURRENCY = frozenset("$€£¥")


def _scaled(number: str, scale: str | None, before: list[tuple[str, str]]) -> str:
    digits = number.replace(",", "")
    if scale is None or (scale != "k" and not (before and before[-1][1] in _CURRENCY)):
        return digits
    if "." in digits and digits.count(".") > 1:
        return digits  # a version ("2.1.3k") is no amount
    whole, _, part = digits.partition(".")
    factor = _SCALE[scale]
    value = int(whole or "0") * factor + (int(part) * factor // 10 ** len(part) if part else 0)
    if part and int(part) * factor % 10 ** len(part):
        return digits  # "1.2345k" names no whole amount
    return str(value)


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
            out.append(("num", _scaled(match.group("num"), match.group("scale"), out)))
            if match.group("scale") and out[-1][1] == match.group("num").replace(",", ""):
                out.append(("word", match.group("scale")))  # "5m" as five metres: kept as said
        elif match.group("poss"):
            out.append(("poss", "'s"))
        elif match.group("word"):
            out.append(("word", match.group("word")))
        else:
            out.append(("punct", match.group("punct")))
    return _durations(_fold_number_words(out))


def _durations(raw: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Durations in years, one way on both sides: "a year and a half", "two and a half years"
    and "eighteen months" are all 1.5 / 2.5 / 1.5 years. Months become years only in whole or
    half years of at least one ("six months" and "14 months" stay as said)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(raw):
        texts = [t for _, t in raw[i : i + 5]]
        kind, text = raw[i]
        if texts[:5] in (["a", "year", "and", "a", "half"], ["one", "year", "and", "a", "half"]):
            out += [("num", "1.5"), ("word", "years")]
            i += 5
            continue
        unit = texts[4] if len(texts) == 5 else ""
        half = texts[1:4] == ["and", "a", "half"] and unit in ("year", "years")
        if kind == "num" and half and text.isdigit():
            out += [("num", f"{int(text)}.5"), ("word", "years")]
            i += 5
            continue
        if kind == "num" and text.isdigit() and texts[1:2] in (["months"], ["month"]):
            months = int(text)
            if months >= 12 and months % 6 == 0:
                years = f"{months // 12}" if months % 12 == 0 else f"{months // 12}.5"
                out += [("num", years), ("word", "years" if texts[1] == "months" else "year")]
                i += 2
                continue
        before = raw[i - 1][1] if i else ""
        one = text in ("a", "an", "one") and texts[1:2] and texts[1] in _UNIT_ONE
        if one and (before in _DURATION_LEAD or texts[2:3] == ["ago"]):
            # "for a year" is one year: "sober for 18 months" does not say it
            out.append(("num", "1"))
            i += 1
            continue
        out.append(raw[i])
        i += 1
    return out


_UNIT_ONE = frozenset("year month week day hour decade".split())
# Words before "a year" that make it a length of time, not a rate ("800 a month").
_DURATION_LEAD = frozenset(
    "for about around over past last than in within nearly almost just only under".split()
)


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
            plain = text[:-1] if text.endswith("s") and text[:-1] in WEEKDAYS else text
            if plain in WEEKDAYS:
                out.append(("value", f"@{WEEKDAYS[plain]}"))
                i += 1
                continue
        out.append((kind, text))
        i += 1
    return out


def _classify(raw: list[tuple[str, str]], *, statement: bool) -> list[Token]:
    tokens: list[Token] = []
    pending_currency: str | None = None
    for i, (kind, text) in enumerate(raw):
        if kind == "value":
            tokens.append(Token(text, VALUE, text.lstrip("@")))
        elif kind == "time":
            tokens.append(Token(_time_form(text), VALUE, text))
        elif kind == "range":
            tokens.append(Token(f"#{text}", VALUE, text))
        elif kind == "num":
            if re.fullmatch(r"-?0+", text):  # "0 kids" is "no kids"
                tokens.append(Token("not", NEG, text))
                continue
            tokens.append(Token(_number_form(text), VALUE, text))
            if pending_currency:
                tokens.append(Token(pending_currency, WORD, pending_currency))
                pending_currency = None
        elif kind == "punct":
            if text == ",":
                tokens.append(Token(",", PUNCT, ","))
            elif text == "%":
                tokens.append(Token("percent", WORD, "%"))
            elif i + 1 < len(raw) and raw[i + 1][0] == "num":
                pending_currency = _CURRENCIES[text]
            else:
                tokens.append(Token(_CURRENCIES[text], WORD, text))
        elif kind == "poss":
            if tokens and tokens[-1].cls == SELF and tokens[-1].text == "user":
                tokens[-1] = Token("~selfposs", SELFPOSS, "user's")
            else:
                tokens.append(Token("'s", POSS, "'s"))
        else:
            tokens.append(_word(text, raw, i, statement=statement))
    return tokens


def _word(text: str, raw: list[tuple[str, str]], i: int, *, statement: bool) -> Token:
    if text == "user":
        return Token("~self", SELF, text)
    if text in _SELF_WORDS:
        cls = _SELF_WORDS[text]
        return Token("~self" if cls == SELF else "~selfposs", cls, text)
    if text in ("have", "has", "had"):
        past = text == "had"
        for kind, following in raw[i + 1 :]:
            if kind == "word" and (following in _SOFT or following in ("not", "never")):
                continue
            if kind == "word" and (following in _PARTICIPLES or following.endswith("ed")):
                return Token(text, STOP, text, past=past)
            break
        return Token("have", WORD, text, past=past)
    if text in _NEGATIONS:
        return Token(_NEGATIONS[text], NEG, text)
    if statement and text in _FRAMES:
        return Token("say", FRAME, text)
    if text in _MODALS:
        return Token(_MODALS[text], MODAL, text, past=text == "used")
    if text in _STOP:
        return Token(text, STOP, text, past=text in _PAST_MARKERS)
    if text in _SOFT:
        return Token(text, SOFT, text)
    if text in _PREP:
        return Token(text, PREP, text)
    if text == "and":
        return Token(text, CONJ, text)
    if text in _CLAUSE:
        return Token(text, CLAUSE, text)
    if text in _PRONOUNS:
        return Token(text, PRON, text)
    if text in _RELATIVES:
        return Token(text, REL, text)
    return Token(stem_word(text), WORD, text)


def _statement_people(tokens: list[Token]) -> list[Token]:
    """In a statement, they/their after "the user" (no other noun between) mean the user;
    "the user said (that)" is framing and dropped."""
    out: list[Token] = []
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
                out.append(Token("~self" if cls == SELF else "~selfposs", cls, tok.text))
                continue
        if tok.cls in (WORD, VALUE, PREP):
            blocked = True
        out.append(tok)
    # Drop "the user said (that)".
    result: list[Token] = []
    i = 0
    while i < len(out):
        tok = out[i]
        if tok.cls == SELF and tok.text == "user":
            j = i + 1
            while j < len(out) and out[j].cls in (STOP, SOFT):
                j += 1
            if j < len(out) and out[j].cls == FRAME:
                result.append(Token("say", FRAME, out[j].text))
                i = j + 1
                continue
        if tok.cls == FRAME:  # not the user's own framing: an ordinary word
            tok = (
                Token(_MODALS[tok.text], MODAL, tok.text)
                if tok.text in _MODALS
                else Token(stem_word(tok.text), WORD, tok.text)
            )
        result.append(tok)
        i += 1
    return result


def _blocked_possessive(before: list[Token]) -> bool:
    """A possessive after "the user's X" or another person may be theirs, not the user's."""
    for tok in reversed(before):
        if tok.cls == SELF and tok.text == "user":
            return False
        if tok.cls in (SELFPOSS, POSS, PRON):
            return True
    return True


def parse_sentences(text: str, *, statement: bool) -> list[Sentence]:
    parts = _SENTENCE_END.split(_normalise(text))
    sentences: list[Sentence] = []
    for k in range(0, len(parts), 2):
        body = parts[k]
        end = parts[k + 1] if k + 1 < len(parts) else ""
        raw = _dates(_raw_tokens(body))
        if not raw:
            continue
        tokens = _classify(raw, statement=statement)
        if statement:
            tokens = _statement_people(tokens)
        sentences.append(Sentence(tokens, "?" in end))
    return sentences

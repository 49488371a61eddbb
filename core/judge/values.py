"""Numbers, durations, dates and times as comparable values for the offline judge's
tokens: number words folded into digits, "15k" as 15000, "eighteen months" as 1.5 years,
"12 May" / "May 12" as one date, clock times in 24 hours."""

from __future__ import annotations

import re

from agent_memory.core.judge.tokens import split_words

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
# What follows "no." when it abbreviates a number ("No. 5", "no. B4", "no. twelve"): both
# sentence splitters (core.judge.context, core.sentences) end no sentence there, and
# end one anywhere else ("fish yes, meat no. Oh, and eggs").
NUMBER_AFTER_NO = re.compile(
    r"\s*(?:\d|[a-z]\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)\b)",
    re.I,
)
CURRENCIES = {"$": "dollar", "€": "euro", "£": "pound", "¥": "yen", "%": "percent"}

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
# The names of the months and weekdays, lower-case: words written capitalised that name a time,
# not what a statement is about (core.judge.overlap, core.extraction.corrections).
MONTH_NAMES = tuple(_MONTHS)
MONTHS_AND_WEEKDAYS = frozenset(MONTH_NAMES) | frozenset(WEEKDAYS.values())


def _format_number(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:g}"


def number_form(text: str) -> str:
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


def raw_tokens(sentence: str) -> list[tuple[str, str]]:
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


def time_form(text: str) -> str:
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


def fold_dates(raw: list[tuple[str, str]]) -> list[tuple[str, str]]:
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

"""Preference, avoidance and naming idioms said in the plain words the readings know.

"I'd rather X than Y", "X works better for me", "I can't stand X", "I'm not a fan of X" and
"I try not to V" say what "I prefer X to Y", "I prefer X", "I dislike X" and "I avoid V-ing"
say, but in words no reading covers ("rather", "works better", "stand", "fan", "try not").
"Hi, I'm Priya" and "my name's Priya" say what "My name is Priya." says when what follows is a
name (core.judge.introduction), not a nationality, a faith or a kind of person ("I'm
Canadian").
``rephrasings`` rewrites one quote sentence into the plain form, which the offline judge then
reads as one more sentence of the quote, like the possessor-first form of core.judge.inversion.

Only the idiom's own words are replaced: everything around it (a hedge, a negation, another
subject, a question mark) stays, so each reading's vetoes still see it ("I think I'd rather
walk" keeps "I think"; "My wife can't stand mushrooms" keeps "my wife"). An idiom under a
negation of its own ("I wouldn't rather ...") or with "not" already inside is left alone.
"""

from __future__ import annotations

import re

from agent_memory.core.judge.introduction import plain

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_LIGHT = r"(?:(?:have|get|use|do|be|go\s+with|take)\s+)?"
_STOP = r"[^,.;:!?]"  # one clause: the idiom's arguments end at punctuation

_RATHER = re.compile(
    rf"\b(?P<who>I|we)(?:'d|\s+would)\s+(?:much\s+)?rather\s+{_LIGHT}(?P<x>{_STOP}+?)"
    rf"(?:\s+than\s+{_LIGHT}(?P<y>{_STOP}+?))?(?=\s*(?:[,.;:!?]|$))",
    re.IGNORECASE,
)
# "bullet points work better for me (than long explanations)"; the subject is what comes
# after the clause's start.
_WORKS_BETTER = re.compile(
    rf"(?:^|(?<=[,;:])\s*|\b(?:so|and|but)\s+)(?P<x>(?!(?:it|that|this|what|which|nothing|"
    rf"he|she|they|we|you)\b)[\w'-]+(?:\s+[\w'-]+){{0,3}}?)\s+works?\s+"
    rf"(?:much\s+|way\s+|a\s+lot\s+|so\s+much\s+)?(?:better|best)\s+for\s+me"
    rf"(?:\s+than\s+(?P<y>{_STOP}+?))?(?=\s*(?:[,.;:!?]|$))",
    re.IGNORECASE,
)
_STAND = re.compile(
    r"\b(?P<who>I|we)\s+(?:really\s+|just\s+|honestly\s+|simply\s+)?(?:can't|cannot|can\s+not)"
    r"\s+stand\b",
    re.IGNORECASE,
)
_NOT_A_FAN = re.compile(
    r"\b(?P<who>I|we)(?:'m|\s+am|'re|\s+are)\s+not\s+(?:a\s+)?(?:big\s+|huge\s+)?fans?\s+of\b",
    re.IGNORECASE,
)
_TRY_NOT = re.compile(
    r"\b(?P<who>I|we)\s+(?:try|tend)\s+not\s+to\s+(?P<verb>[a-z]+)\b", re.IGNORECASE
)
# A negation or a hedge that makes the idiom itself something else.
_NEGATED = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)


def rephrasings(sentence: str) -> list[str]:
    """``sentence`` with its preference and avoidance idioms in plain words: one sentence
    with all of them rewritten, or none when it has none."""
    text = original = sentence.translate(_APOSTROPHES)
    for rewrite in (_rather, _works_better, _stand, _not_a_fan, _try_not, plain):
        turned = rewrite(text)
        if turned is not None:
            text = turned
    return [text] if text != original else []


def _rather(text: str) -> str | None:
    m = _RATHER.search(text)
    if m is None or _NEGATED.search(m.group("x")) or _before_negated(text, m.start()):
        return None
    plain = f"{m.group('who')} prefer {m.group('x')}"
    if m.group("y"):
        if _NEGATED.search(m.group("y")):
            return None
        plain += f" to {_unprep(m.group('y'))}"
    return text[: m.start()] + plain + text[m.end() :]


def _works_better(text: str) -> str | None:
    m = _WORKS_BETTER.search(text)
    if m is None or _NEGATED.search(m.group("x")):
        return None
    plain = f"I prefer {m.group('x')}"
    if m.group("y"):
        plain += f" to {m.group('y')}"
    start = m.start("x")
    return text[:start] + plain + text[m.end() :]


def _stand(text: str) -> str | None:
    m = _STAND.search(text)
    if m is None or _before_negated(text, m.start()):
        return None
    return f"{text[: m.start()]}{m.group('who')} dislike{text[m.end() :]}"


def _not_a_fan(text: str) -> str | None:
    m = _NOT_A_FAN.search(text)
    if m is None or _before_negated(text, m.start()):
        return None
    return f"{text[: m.start()]}{m.group('who')} dislike{text[m.end() :]}"


def _try_not(text: str) -> str | None:
    m = _TRY_NOT.search(text)
    if m is None or _before_negated(text, m.start()):
        return None
    return f"{text[: m.start()]}{m.group('who')} avoid {_gerund(m.group('verb'))}{text[m.end() :]}"


def _before_negated(text: str, start: int) -> bool:
    """A negation earlier in the idiom's clause ("it's not that I can't stand it")."""
    clause = re.split(r"[,.;:!?]", text[:start])[-1]
    return _NEGATED.search(clause) is not None


def _unprep(phrase: str) -> str:
    """ "over the phone" -> "the phone": the contrast's own preposition says nothing more."""
    return re.sub(r"^(?:over|by|in|on|with|via)\s+", "", phrase.strip(), flags=re.IGNORECASE)


def _gerund(verb: str) -> str:
    """ "shop" -> "shopping", "eat" -> "eating", "drive" -> "driving", "lie" -> "lying"."""
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    consonants = "bcdfghjklmnpqrstvz"
    if (
        len(v) >= 3
        and v[-1] in consonants
        and v[-2] in "aeiou"
        and v[-3] in consonants
        and v[-1] not in "wxy"
        and len(re.findall(r"[aeiou]+", v)) == 1
    ):
        return v + v[-1] + "ing"
    return v + "ing"

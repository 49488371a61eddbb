"""Contradiction (offline): both statements are normalised the same way (first person and "the
user" are the same person), antonyms from a small general table (like/dislike, love/hate,
enable/disable, open/closed, pass/fail, increase/decrease, before/after, allowed/forbidden,
...) become "the same word, negated", and the two contradict when they share most content
words (Jaccard >= 0.6 over content stems) and either their polarity differs, or they give
different numbers for the same thing ("3 kids" / "4 children"), different dates, weekdays,
months or times. Hedged statements ("I might (not) move") and statements in different tenses
never contradict; another value for a differently named thing ("a trip to Athens in February"
/ "a trip to Auckland in April") is not a contradiction either, and an adverb is not its
adjective's antonym ("closely" / "closed"). Before that rule, core.judge.contradiction's
exclusive relations (one home, a replaced tool, "no longer ...", one manager or name at a
time) are checked; its docstring gives their limits. Beyond those it does not know which
words exclude each other ("I am vegetarian" / "I eat steak"). Symmetric by construction.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agent_memory.core.judge.base import Verdict
from agent_memory.core.judge.text import (
    CLAUSE,
    CONJ,
    FRAME,
    HEDGES,
    MODAL,
    NEG,
    POSS,
    PREP,
    PRON,
    PUNCT,
    REL,
    SELF,
    SELFPOSS,
    SOFT,
    VALUE,
    WEEKDAYS,
    WORD,
    Token,
    parse_sentences,
    stem_word,
)
from agent_memory.core.judge.values import MONTH_NAMES, MONTHS_AND_WEEKDAYS

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
        _ANTONYMS[stem_word(_w)] = (_name, False)
    for _w in _negative.split():
        _ANTONYMS[stem_word(_w)] = (_name, True)


_ANTONYM_WORDS = {w for pair in _ANTONYM_GROUPS for side in pair for w in side.split()}


def _antonym(tok: Token) -> tuple[str, bool] | None:
    text = tok.text
    if text.endswith("ly") and text not in _ANTONYM_WORDS:
        return None  # an adverb is not its adjective's antonym: "closely" is not "closed"
    candidates = [tok.form]
    if text.endswith("ed") and len(text) > 4:
        root = text[:-2]
        candidates += [root, root + "e", stem_word(root)]
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
    things: set[str]  # the content words that name something: no preposition, no pronoun
    negs: list[str]
    flips: list[str]
    modals: set[str]
    past: bool
    numbers: dict[str, set[str]]
    kinds: dict[str, set[str]]
    names: set[str]

    @classmethod
    def of(cls, text: str) -> _Facts:
        sentences = parse_sentences(text, statement=True)
        tokens = [t for s in sentences for t in s.tokens]
        content: set[str] = set()
        things: set[str] = set()
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
                    things.add(name)
                elif tok.cls != SOFT:
                    content.add(tok.form)
                    if tok.cls == WORD:
                        things.add(tok.form)
            elif tok.cls in (SELF, SELFPOSS, POSS, PRON, REL):
                content.add(tok.form)
            elif tok.cls == VALUE:
                form = tok.form
                if form.startswith("#"):
                    numbers.setdefault(_number_context(tokens, i), set()).add(form[1:])
                elif ":" in form:
                    kinds["time"].add(form)
                elif form[1:] in WEEKDAYS.values():
                    kinds["weekday"].add(form)
                elif "-" in form:
                    kinds["date"].add(form)
                    kinds["month"].add(form.split("-")[0])
                else:
                    kinds["month"].add(form)
        return cls(
            question=any(s.question for s in sentences),
            content=content,
            things=things - _NEGATING,
            negs=negs,
            flips=flips,
            modals={t.form for t in tokens if t.cls in (MODAL, FRAME)},
            past=any(t.past for t in tokens) or any(_past_participle(t) for t in tokens),
            numbers=numbers,
            kinds=kinds,
            names=_names(text),
        )

    @property
    def negated(self) -> bool:
        return (len(self.negs) + len(self.flips)) % 2 == 1


# Words that only carry a negation ("no longer"): not a thing a statement names.
_NEGATING = frozenset({"longer"})


# A write judges its draft against up to 16 neighbours, and neighbours recur across writes:
# parse each text once (the facts are only read).
_facts = functools.lru_cache(maxsize=4096)(_Facts.of)


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b([A-Z][\w'-]*)")


# Months and weekdays, and the months' three-letter abbreviations ("Jan", "Sep").
_CALENDAR = MONTHS_AND_WEEKDAYS | {month[:3] for month in MONTH_NAMES}


def _names(text: str) -> set[str]:
    """The capitalised words of ``text`` that are not a sentence start, "I", a month or a
    weekday: the named things a statement is about ("a trip to Athens", "the Apollo review
    with Aisha")."""
    found = {m.group(1).lower() for m in _CAPITALISED.finditer(text.strip())}
    return {w for w in found if w != "i" and w not in _CALENDAR and w[:-1] not in _CALENDAR}


def _past_participle(tok: Token) -> bool:
    """A regular past form ("lived") that is not one of the antonym words ("closed")."""
    return tok.cls == WORD and tok.text.endswith("ed") and _antonym(tok) is None


def _number_context(tokens: list[Token], i: int) -> str:
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
        if a.things - b.things and b.things - a.things:
            # Each names something the other does not: what one denies is not what the
            # other says ("allergic to peanuts" / "not allergic to shellfish"). In a short
            # statement the subject and a preposition alone make most of its words.
            one, other = sorted((min(a.things - b.things), min(b.things - a.things)))
            return Verdict(
                False, low, f"the statements negate different things ({one!r} / {other!r})"
            )
        if conflict is not None:  # "the gym on Mondays" / "not on Tuesdays"
            return Verdict(False, low, f"the statements negate different things: {conflict}")
        if a.modals & HEDGES:
            word = sorted(a.modals & HEDGES)[0]
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
        if a.modals & HEDGES:
            word = sorted(a.modals & HEDGES)[0]
            return Verdict(False, low, f"{conflict}, but both are hedged ({word!r})")
        if a.names != b.names:
            # Another number or date for a differently named thing is no contradiction: a
            # trip to Athens in February and one to Auckland in April are two trips.
            return Verdict(False, low, f"{conflict}, but the statements name different things")
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


def overlap_conflict(a: str, b: str) -> Verdict:
    """Whether ``a`` and ``b`` contradict by the shared-words rule (the module docstring)."""
    return _contradicts(_facts(a), _facts(b))

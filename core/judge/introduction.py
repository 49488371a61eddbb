"""A speaker saying who they are: "I'm Priya", "Hi, I'm Jack", "my name's Tomasz".

"I'm X" says the speaker's name only when X is a name, and "I'm" also says what one is ("I'm
Canadian", "I'm Team Edward", "I'm Head Chef"), what one plays ("For Halloween, I'm Elsa") or
what one is not ("Yeah, and I'm Beyonce"). So the introduction must open its sentence, after
nothing but a greeting or a word that changes nothing ("Oh, ...", "Btw ...", "Actually, ...":
``_OPENER``), and what follows must be a name as written (``a_name``), read the more strictly
the less the sentence says it is one:

- "my name's X" names it: capitalised words, one alone no adjective ("My name is Secret.");
- after a greeting ("Hi, I'm Priya", "Hello! I'm Mei Ling"): also a word WordNet does not
  know, never a common word ("Hi, I'm Sales.", "Hi, I'm Maori.", nor "Jack": a review found
  everyday words read as names superseding the real one), an adjective ("Canadian") or a
  pronoun ("Him"); a greeting in a sentence of its own just before greets as well ("Hi there!
  I'm Amelia.": ``greets``);
- alone ("I'm David."): one person WordNet knows ("David", "Sarah"), since a capitalised word
  it does not know may be no name ("I'm Latina.", "I'm Keto.", "I'm Admin."); "nice to meet
  you" or "by the way" after it greets as a greeting before does ("I'm Priya, by the way.").

The offline extractor phrases an introduction as "The user's name is X." (core.extraction
.phrasing.named) and the offline judge reads it as "My name is X." (``plain``, one more quote
sentence: core.judge.rephrase). Limits: English; one to three words, each capitalised ("i'm
priya", "JJ", "Sanne de Vries" are not read); a name that is a common word ("Jack", "Grace",
"Frank") is read only with "name", and one WordNet does not know ("Priya") only after a
greeting or with "name"; "Hi, I'm Keto" or "Hi, I'm Pescatarian", a greeting with a
capitalised word WordNet does not know, is read as a name.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from agent_memory.core.judge.values import WEEKDAYS
from agent_memory.core.judge.wordnet import WordNet, wordnet

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_GREETINGS = r"hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day)"
# What may open a sentence before its introduction: greetings, and words that change nothing.
_OPENER = (
    rf"(?:(?:{_GREETINGS}|oh|ok|okay|well|so|btw|by\s+the\s+way|actually|anyway|also)"
    r"(?:\s+(?:there|all|everyone|everybody|again|guys|folks))?[\s,!.:;-]*)*"
)
_INTRODUCTION = re.compile(
    rf"^\s*(?P<opener>(?i:{_OPENER}))(?P<lead>(?i:I'm|I\s+am|my\s+name's))\s+"
    r"(?P<name>[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2}?)"
    r"(?=\s*(?:[,.;:!?]|$)|\s+(?:and|but)\b)"
)
_GREETING = re.compile(rf"\b(?:{_GREETINGS})\b", re.IGNORECASE)
# What greets after a name: "I'm Priya, nice to meet you", "I'm Priya, by the way".
_GREETING_AFTER = re.compile(
    r"[\s,.!-]*(?:(?:it's\s+|so\s+)?(?:nice|pleased|good|great|lovely)\s+to\s+meet\s+you|"
    r"by\s+the\s+way|btw)\b",
    re.IGNORECASE,
)
# Words of time that name no one ("call me Friday", "call me tomorrow"), and titles, which
# name no one alone ("Hi, I'm Dr. Patel": the name is cut at "Dr.").
_WHEN = frozenset(WEEKDAYS) | {"today", "tonight", "tomorrow", "now", "later", "anytime"}
_TITLES = frozenset("dr mr mrs ms mx miss prof sir dame lady lord rev fr".split())
_PRONOUNS = frozenset("him her me you them it us everyone everybody someone nobody".split())
_GREETING_ONLY = re.compile(rf"^\s*(?i:{_OPENER})\s*$")


class Introduction(NamedTuple):
    name: str
    quote: str  # the sentence from its start through the name, as written
    opener: str  # what comes before "I'm": "Hi, "


def introduction(sentence: str) -> Introduction | None:
    """The introduction that opens ``sentence``, or None (see the module doc)."""
    text = sentence.translate(_APOSTROPHES)
    m = _INTRODUCTION.match(text)
    if m is None:
        return None
    lead, opener = m.group("lead").lower(), m.group("opener")
    after = _GREETING_AFTER.match(text, m.end())
    how = "named" if "name" in lead else "greeted" if _GREETING.search(opener) or after else "alone"
    if not a_name(m.group("name"), how):
        return None
    end = after.end() if after is not None else m.end()  # the greeting after is its quote's
    return Introduction(m.group("name"), sentence[:end].strip(), opener)


def greets(sentence: str) -> bool:
    """Whether ``sentence`` is a greeting and nothing else ("Hi there!"): what it says of the
    introduction after it is what a greeting before it in the same sentence says."""
    return _GREETING_ONLY.match(sentence) is not None and _GREETING.search(sentence) is not None


def plain(sentence: str) -> str | None:
    """``sentence`` with its introduction said as "My name is X." (its own sentence; what
    follows it, another), or None."""
    found = introduction(sentence)
    if found is None:
        return None
    rest = sentence[sentence.find(found.quote) + len(found.quote) :].strip(" ,;:-")
    mine = "my" if found.opener.strip() else "My"
    told = f"{found.opener}{mine} name is {found.name}."
    return f"{told} {rest}" if rest.strip(".!?") else told


def a_name(words: str, how: str = "alone") -> bool:
    """Whether ``words`` are a person's name as written, as an introduction says it (``how``:
    "named", "greeted" or "alone"; see the module doc): one to three words, each part of each
    capitalised and not in capitals alone ("Anne-Marie O'Neill"; not "NHS", "Bristol-based"),
    none possessive ("Sarah's") nor a time ("Friday"). What "my name is" names may be written
    in lower case too, in a word or two that are no adjective ("my name is priya"; not "my
    name is hard to spell")."""
    parts = words.split()
    if how == "named" and words.islower() and 1 <= len(parts) <= 2:
        net = wordnet()
        return net is not None and not any(
            net.senses(w, "a") or not w.isalpha() or w in _WHEN for w in parts
        )
    if not 1 <= len(parts) <= 3:
        return False
    for word in parts:
        pieces = word.split("-")
        if any(not p[:1].isupper() or (len(p) > 1 and p.isupper()) for p in pieces):
            return False
        if word.lower().endswith("'s") or word.lower() in _WHEN:
            return False
    if parts[0].lower().rstrip(".") in _TITLES and len(parts) == 1:
        return False  # "Dr" of "I'm Dr. Patel", cut at its period
    net = wordnet()
    if net is None:
        return False
    first = parts[0].lower()
    if how == "named":
        return len(parts) > 1 or not net.senses(first, "a")  # not "Secret", "Unusual"
    if net.senses(first, "a") or _kind_of_person(net, first) or first in _PRONOUNS:
        return False  # "Canadian", "Frank"; "Vegan", "Tom"; "Him"
    if _one_person(net, first):
        return True  # "David"
    known = any(net.senses(first, pos) for pos in "nvar")
    return how == "greeted" and not known  # "Priya"; not "Latina" alone, "Sales", "Jack"


def _kind_of_person(net: WordNet, word: str) -> bool:
    """The word's first noun sense is a kind of person ("chef", "vegan"), not one person."""
    first = net.senses(word, "n")[:1]
    return any(not net.instance(o) and net.under(o, "person") for o in first)


def _one_person(net: WordNet, word: str) -> bool:
    """The word's first noun sense is one person ("David": the king)."""
    first = net.senses(word, "n")[:1]
    return any(net.instance(o) and net.under(o, "person") for o in first)


__all__ = ["Introduction", "a_name", "greets", "introduction", "plain"]

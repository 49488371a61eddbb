"""What a clause after a quote says beside it, when it does not take the quote back.

core.judge.context refuses a quote whose own sentence, after it, says something that changes
it: "I'm vegan, not really", "I have cancer, the doctor said". Some such words only go on
with the quote, and refusing them stored true facts as guesses that expire, and kept the
stale facts they end: "I've stopped badminton since joining, no time at all" could not retire
"The user plays badminton every Wednesday". Two readings say when such words go on with the
quote (``describes``, ``asks_how``); anything else still refuses.

Two adversarial reviews (248 and 137 labelled pairs) found wider versions confirming pairs
the old code rightly refused, and those readings were dropped: "not" before a thing ("I run
every morning, not weekends", "I never eat sugar, not counting cake"), "mostly" before things
("I fix cars for a living, mostly bikes actually", "I'm vegetarian, mostly fish on weekends"),
an instruction reported after "and" ("... and my wife said prove it then lol"), "tell you
what" ("I'll be there at 8, tell you what, make it 9"), and a "no" with more after it ("...,
no marathon this spring, but still doing parkrun"). So "I use Excel, not Google Sheets" and
"20 years of experience, mostly legal texts" are still stored as guesses (the safe side).

Limits: the words are read by WordNet's parts of speech, not parsed.
"""

from __future__ import annotations

import functools
import re

from agent_memory.core.judge.lexicon import ENDING, NEG_WORDS
from agent_memory.core.judge.text import CLAUSE, CONJ, PUNCT
from agent_memory.core.judge.tokens import Token
from agent_memory.core.judge.wordnet import wordnet

# Words a "no" after them answers, not lists: "..., lol no", "..., wait no, 31".
INTERJECTION = re.compile(
    r"(?:l+o+l+|(?:ha)+h?|(?:he)+|lmao|rofl|wait|oh|ah|hmm*|well|ok|okay|um*|uh*|erm?|nah|"
    r"yeah|yep|yup|actually|ugh|omg|so|then|kidding|joking|jk)",
    re.I,
)


def describes(tokens: list[Token], k: int, words: set[str]) -> bool:
    """Whether the "no" at ``k``, right after a comma, goes on saying what the statement (of
    ``words``) says ended or is not so, before a thing and two more words that end the
    sentence: "I've stopped badminton since joining, no time at all", "I quit smoking, no
    cigarettes since January". Not after a plain claim, where it may as well undo it ("I'm a
    smoker, no cigarettes since January"); not a short "..., no Lyon"; not a thing of the
    same kind as one the statement names ("I quit Paris, no Lyon since May": WordNet files
    both under city), which corrects it; not when more follows, or a word of doubt, which may
    limit it ("I stopped running, no marathon this spring, but still doing parkrun", "I quit
    my job, no notice handed in yet though", "..., no burgers at least")."""
    if k == 0 or tokens[k - 1].text != "," or k + 1 >= len(tokens) or tokens[k].text != "no":
        return False
    head, rest = tokens[k + 1], tokens[k + 1 :]
    said = rest[:-1] if rest[-1].cls == PUNCT else rest  # to the sentence's end
    return (
        len(said) >= 3
        and all(t.cls not in (PUNCT, CLAUSE, CONJ) for t in said)
        and not any(t.text in _DOUBT for t in rest)
        and _denies(words)
        and _thing(head.text)
        and head.text not in words
        and not INTERJECTION.fullmatch(head.text)
        and not any(_same_kind(head.text, w) for w in words)
    )


# Words after the "no" that doubt or limit what it says ("..., no notice handed in yet though",
# "..., no tuesday rehearsals anyway", "..., no burgers at least").
_DOUBT = frozenset(
    """
    yet though tho technically except excluding counting least anyway anyways mostly still now
    lol haha lmao jk kidding joking
    """.split()
)


@functools.lru_cache(maxsize=4096)
def _thing(word: str) -> bool:
    """Whether WordNet knows ``word`` as a noun and never as an adjective or adverb ("time",
    "sheets", "weddings"; not "sure", "fine", "three", "really")."""
    net = wordnet()
    if net is None or not word.isalpha():
        return False
    return bool(net.lemmas(word, "n")) and not net.lemmas(word, "a") and not net.lemmas(word, "r")


def _denies(words: set[str]) -> bool:
    """Whether a statement of ``words`` says something ended or is not so: a negation, or a
    verb of ending ("stopped", "quit", "cancelled": lexicon.ENDING)."""
    net = wordnet()
    return any(
        w in NEG_WORDS or (net is not None and set(net.lemmas(w, "v")) & ENDING) for w in words
    )


@functools.lru_cache(maxsize=4096)
def _same_kind(word: str, other: str) -> bool:
    """Whether the nouns ``word`` and ``other`` share a kind two links up in their first two
    senses by WordNet: "days" and "nights", "Lyon" and "Paris" (instances of a city)."""
    net = wordnet()
    if net is None or word == other:
        return False
    for a in net.lemmas(word, "n"):
        for b in net.lemmas(other, "n"):
            for x in net.senses(a, "n")[:2]:
                for y in net.senses(b, "n")[:2]:
                    if net.kinds_above(x, instances=True, depth=2) & net.kinds_above(
                        y, instances=True, depth=2
                    ):
                        return True
    return False


def asks_how(tokens: list[Token], k: int) -> bool:
    """Whether the hedge or report word at ``k`` is the verb of an infinitive question ("I
    don't know what to say to her", "how to tell my boss"), not the speaker's hedge or a
    report. Only read outside the quote's own clause (core.judge.context): inside it, the
    words before the question doubt the quote ("I'm moving to Dubai, undecided on what to
    say to the recruiter", "I'm pregnant, waiting to see what to expect")."""
    return k >= 2 and tokens[k - 1].text == "to" and tokens[k - 2].text in _WH


_WH = frozenset("what how when where who which whether".split())


__all__ = [
    "INTERJECTION",
    "asks_how",
    "describes",
]

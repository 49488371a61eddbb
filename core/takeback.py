"""Sentences that take back what the user said just before them, read alike by the offline
extractor (core.extraction.offline keeps nothing of the sentences before one in its turn) and
the judge (core.judge.context.retraction refuses a quote that a later sentence of its turn
takes back).

- ``TAKES_BACK_BEFORE``: a sentence that is only the joke's name ("I'm pregnant! April
  fools.", "I'm a millionaire. In my dreams."), or that opens by saying the speaker misspoke.
  Opening a turn, the extractor reads it as taking back the user's previous turn.
- ``says_not_so(sentence, before)``: a sentence that is only a wish, right after the user's
  own claim in the same turn: "I bought a Ferrari. I wish!", "Ha, I wish.", "I wish I had.",
  "Wishful thinking." Only after a plain claim about the user, in the first person. Not after
  a negative claim, which a wish confirms ("I never went to college. I wish I had."); nor
  after someone else's fact (envy: "My brother is a pilot. I wish I was."); nor in a turn
  that speaks of a belief, wish, request, offer or attempt before it ("Everyone thinks I'm
  rich. I wish!", "My boss asked me to work on Christmas. I'm flying home on the 23rd. I
  wish."); nor after a question of the turn, which it answers. Opening a turn, a wish
  answers the assistant ("I wish! Still working 50 hours a week."), not the user's previous
  turn.

Limits: whole sentences only, a claim made without "I" or "we" ("Got promoted today. I
wish.") is not taken back, and like every take-back it undoes the whole sentence, not the
one claim meant. Denials and slang were measured and left out: two adversarial reviews found
"Of course not." / "Obviously not." after a claim as often turning down what the assistant
offered ("I'm vegetarian. Obviously not."), "Nope." / "Yeah, no." as often dread or "never
again" ("I have jury duty on Monday. Yeah, no.", "I quit smoking in 2015. Nope."), "If only."
as often regret ("I sold my Apple stock in 2009. If only."), and "Jokes." as "that was
hilarious" (benchmarks/README.md, "Session 42").
"""

from __future__ import annotations

import re

from agent_memory.core.sentences import sentences

# Lower case: the judge reads folded text.
TAKES_BACK_BEFORE = (
    r"^\W*(?:(?:lol|haha|jk)\W+)*(?:april fools?|in (?:my|your) dreams)\W*(?:lol|haha)?\W*$|"
    r"^\W*(?:(?:sorry|oops|actually|wait|ok|okay)\W+)*i misspoke\b"
)

# Laughter or a sigh around the wish ("Ha, I wish.", "hahaha i wish lol").
_LAUGH = r"(?:lol|lmao|(?:ha){1,}h?|heh|hah)"
_WISHED = re.compile(
    rf"^\W*(?:(?:{_LAUGH}|oh|ah|pfft|pff|yeah|well)\W+)*"
    r"(?:(?:(?:don't\s+)?(?:i|we)\s+(?:only\s+)?)?wish+(?:\s+(?:i|we)\s+(?:had|did|was|were|could|"
    r"would))?|wishful\s+thinking)"
    rf"\W*(?:{_LAUGH}\W*)*$",
    re.IGNORECASE,
)
# What a plain claim about the user is: a sentence opening with "I" or "we" ...
_FIRST_PERSON = re.compile(
    r"^\W*(?:(?:and|also|so|but|well|oh|ok|okay|btw|anyway|guess what)\W+)*"
    r"(?:i|i'm|im|i've|ive|we|we're|we've)\b",
    re.IGNORECASE,
)
# ... that is not negative, in a turn that speaks of no belief, wish, request, offer or attempt
# before it.
_NEGATIVE = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nowhere|neither|nor|can't|cannot)\b|n['\u2019]t\b",
    re.IGNORECASE,
)
_NOT_A_FACT = re.compile(
    r"\b(?:thinks?|thought|assumes?|assumed|says?|said|believes?|believed|reckons?|wants?|"
    r"wanted|wish(?:es|ed)?|hopes?|hoped|expects?|asks?|asked|offers?|offered|tries|tried|"
    r"try|told|supposed?|invited|suggested|begging|bugging|pushing|pushed|reached\s+out|"
    r"everyone|everybody|people)\b",
    re.IGNORECASE,
)


def says_not_so(sentence: str, before: str) -> bool:
    """Whether ``sentence`` is only a wish that says the claim it follows is not so (module
    docstring); ``before``: the turn's text before it."""
    if _WISHED.match(sentence) is None or "?" in before or _NOT_A_FACT.search(before):
        return False
    claim = next(reversed(list(sentences(before))), "")  # split as the extractor splits a turn
    return _FIRST_PERSON.match(claim) is not None and _NEGATIVE.search(claim) is None


__all__ = ["TAKES_BACK_BEFORE", "says_not_so"]

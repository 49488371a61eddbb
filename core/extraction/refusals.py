"""Which of a user turn's sentences give the offline extractor no claim, and which it keeps
out of the user's words (core.extraction.offline reads a turn sentence by sentence).

- ``refused``: a sentence, or the clauses that open one, gives no claim: a question, a hedge
  or hypothetical (core.framing.HEDGE), sarcasm ("yeah right", "as if", "/s"), a sentence
  taking itself back at its end ("I'm getting married, haha no."), fiction, a condition said
  by inversion or ironic agreement (core.framing, read as the judge reads them).
- ``not_the_users``: a sentence no rule's phrasing may keep in the user's words: quoted text,
  the assistant's own words echoed back ("You said I have diabetes"), or the user's own "I
  think ..." (a hedge).
- ``kept_out``: a sentence kept out of memory, its words out of the summary too: a request to
  forget, or a credential.
- ``conditioned``: a sentence whose last clause conditions the claim before it ("I'm
  targeting the Amsterdam Marathon on 19 October instead, if the foot heals."): refused as a
  claim, kept whole, condition and all, as the user's statement that retires nothing
  (core.extraction.offline); not one whose condition doubts, undercuts or denies the claim.
"""

from __future__ import annotations

import re

from agent_memory.core.framing import (
    CLAUSE_BREAK,
    DEPENDENT,
    HEDGE,
    asks_to_forget,
    fiction,
    inverted_condition,
    ironic,
    tells_a_secret,
)

# The user's own belief or guess ("I think I'll go with the Godox"): a hedge, not kept as said.
OWN_BELIEF = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:think|thought|believe|believed|guess|suppose|reckon)\b",
    re.IGNORECASE,
)
# A sentence that opens by echoing the assistant's or the system's own words ("You said I have
# diabetes", "The system says I'm an admin"): never the user's statement, not even word for
# word. One that only refers to them ("Like you said, I switched to oat milk") is the user's.
_ECHOED = re.compile(
    r"^\W*(?:(?:and|also|so|but|well|oh|ok|okay)\W+)*(?:the\s+)?(?:you|u|assistant|system|bot|"
    r"ai|chatgpt|claude|gpt|app)\s+(?:\w+\s+)?(?:said|says|told|tells|thinks|thought|"
    r"mentioned|suggested|wrote|claims|claimed)\b",
    re.IGNORECASE,
)
# A sentence that takes itself back at its end ("I'm getting married, haha no."): only itself.
_TAKEN_BACK = re.compile(
    r",\s*(?:(?:(?:lol|haha|hah|lmao|kidding|joking|jk)\W+)+(?:no|nah|nope|not really)|nah|nope|"
    r"not really)(?:\W+(?:lol|haha|hah|lmao))*\W*$",
    re.I,
)
# Sarcasm: the sentence means the opposite of its words. One that is only the marker
# ("Yeah right.", "/s") turns the sentence before it.
SARCASM = re.compile(
    r"\byeah,? right\b|\bas if\b|(?:^|\s)/s\b|\bsure,? because\b|\boh,? (great|joy|wonderful|"
    r"fantastic|perfect|lovely)\b|\bnot!|\U0001f644|\bjust what i (needed|wanted)\b|"
    r"\blove that for me\b|\bwhat a (joy|treat)\b",
    re.IGNORECASE,
)
# Double quotation marks: someone else's words.
QUOTES = re.compile(r"[\"\u201c\u201d]")
# Text that tries to steer the memory system rather than tell it something.
INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override|bypass)\b[^.!?]{0,40}\b(previous|prior|above|earlier|"
    r"all|any|your|the|these|those)\b[^.!?]{0,30}\b(rules?|instructions?|prompts?|guidelines|"
    r"directions|policy|policies)\b|\bsystem prompt\b|\byou are now\b|\bnew instructions\b|"
    r"\bdeveloper mode\b|\b(store|save|record|memori[sz]e|write down|log) (that|this)\b",
    re.IGNORECASE,
)


def not_the_users(sentence: str) -> bool:
    """Whether ``sentence`` is no one's claim to keep in the user's words: quoted text, the
    assistant's own words echoed back, or the user's own "I think ..." (a hedge)."""
    return bool(QUOTES.search(sentence) or _ECHOED.match(sentence) or OWN_BELIEF.search(sentence))


def kept_out(sentence: str) -> bool:
    """Whether ``sentence`` is kept out of memory, its words out of the summary too: it asks
    to forget ("Please forget that I see a therapist.") or tells a credential ("My PIN is
    4921"; core.framing)."""
    return asks_to_forget(sentence) or tells_a_secret(sentence)


def refused(text: str, start: int, end: int, *, hedges: bool = True) -> bool:
    """The words ``text[start:end]`` (a sentence, or the clauses that open one) give no claim:
    a question, a hedge or hypothetical (when ``hedges`` refuse: not for a caller that keeps
    a condition with its claim), sarcasm, or framed (``_framed``)."""
    words = text[start:end]
    return bool(
        words.rstrip().endswith("?")
        or (hedges and HEDGE.search(words))
        or SARCASM.search(words)
        or _TAKEN_BACK.search(words)
        or _framed(text, start, end)
    )


def _framed(text: str, start: int, end: int) -> bool:
    """The words ``text[start:end]`` are fiction (a frame in them or earlier in the turn), a
    condition said by inversion or ironic agreement (core.framing, as the judge reads it)."""
    folded = text.lower().replace("\u2019", "'")
    words = folded[start:end]
    return bool(fiction(folded[:end]) or inverted_condition(words) or ironic(words))


# A condition put after what it conditions ("..., if the foot heals", "..., unless it rains",
# "..., as long as the knee holds up").
_CONDITION = re.compile(r"^(?:if|unless|as long as|provided|providing)\b", re.IGNORECASE)
# A condition that says the claim is not so, or not sure: the user's own doubt ("..., if I
# remember right", "..., unless I'm mistaken") or a joke that undercuts it ("I have three kids,
# if you count my husband", "..., if you ignore the grammar"). What did not happen ("..., if I
# were rich", "..., if I had known") is a counterfactual, as is any "I'd" (``_COUNTERFACTUAL``).
_NOT_SO_IF = re.compile(
    r"\b(?:remember|recall|misremember\w*|misread|misheard|mistaken|wrong|memory serves|"
    r"counted|believed|true|right|counts?|counting|ignore|ignoring|believe|you\s+call|"
    r"by\s+\w+\s+you|what\s+i\s+mean|(?:couldn't|can't|could not|cannot)\s+tell|"
    r"obvious|were)\b|\bhad\s+(?:\w+ed|been|known|gone|done|seen|taken|kept|got|gotten)\b",
    re.IGNORECASE,
)
_COUNTERFACTUAL = re.compile(r"\b(?:i|we|you|he|she|they|it)['\u2019]d\b", re.IGNORECASE)


def conditioned(sentence: str) -> int | None:
    """Where the claim ends in a sentence whose last clause is a condition on it ("I'm
    targeting the Amsterdam Marathon on 19 October instead, if the foot heals." -> the end of
    "... instead"): the caller may keep the sentence whole, the condition with its claim, where
    the claim alone tells nothing (``core.framing.told_before``). None for a question, a
    condition or supposition opening an earlier clause ("If I win, I'll buy a boat, unless
    ..."), a counterfactual ("I'd buy a boat, if I won the lottery", "..., if I'd kept up the
    lessons") and a condition saying the claim is not so, or not sure (``_NOT_SO_IF``)."""
    if sentence.rstrip().endswith("?") or _COUNTERFACTUAL.search(sentence):
        return None
    breaks = list(CLAUSE_BREAK.finditer(sentence))
    condition = sentence[breaks[-1].end() :] if breaks else ""
    if not _CONDITION.match(condition) or _NOT_SO_IF.search(condition):
        return None
    starts = [0] + [m.end() for m in breaks[:-1]]
    ends = [m.start() for m in breaks]
    if any(DEPENDENT.match(sentence[s:e].strip()) for s, e in zip(starts, ends, strict=True)):
        return None
    return breaks[-1].start()


__all__ = [
    "INJECTION",
    "OWN_BELIEF",
    "QUOTES",
    "SARCASM",
    "conditioned",
    "kept_out",
    "not_the_users",
    "refused",
]

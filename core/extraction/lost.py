"""What a sentence's phrasings lost, kept as said: the clause saying a change no phrasing
quotes, and the first clause the user says of themselves (``lost_claims``). The offline
extractor (core.extraction.offline) phrases a sentence's clauses by core.extraction.phrasing's
rules; what no rule phrased is read here."""

from __future__ import annotations

import re

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.framing import DEPENDENT, LEAD
from agent_memory.core.judge.change import change_spans, content_words
from agent_memory.core.judge.offline import OfflineJudge
from agent_memory.core.telling import informative

# Reads whether a clause says on its own what it says in its sentence (``_alone``); its
# parser is the process-wide one, loaded on first use.
_JUDGE = OfflineJudge()


# Where one clause of a sentence ends and the next begins: core.judge.change._CLAUSE_BREAK's
# breaks inside a sentence (it also breaks at ".", which would cut "Dr. Patel"), case-blind,
# and without the space after a comma, so that a kept clause starts at its first word.
_CLAUSE_BREAK = re.compile(r"[,;:]+\s*|\s(?:and|but|so)\s", re.IGNORECASE)


def lost_change(sentence: str, phrased: list[Candidate]) -> tuple[int, int] | None:
    """(start, end) in ``sentence`` of a clause that says something changed (core.judge.change,
    the markers that say it plainly) in words no phrasing of it quotes, and names what changed
    (two content words or more), or None: "I resigned from Beaumont Clarke after eleven years
    and I am opening my own practice" is phrased as "The user is opening the user's own
    practice.", and the resignation, which retires the record of the old job, was lost. Only
    the clause is kept as said, not the sentence: the whole sentence's other words linked it to
    records it does not change ("..., so now Bianca is my sous-chef, she was on the grill
    station before" retired "we prefer someone with experience in grill"); nor a clause whose
    only marker is "now", which as often goes on as changes ("so now there are two Noras in my
    phone" retired "Nora from design agreed to shift her review")."""
    if not phrased:
        return None
    quoted = _quoted(sentence, phrased)
    marks = list(_CLAUSE_BREAK.finditer(sentence))
    for start, stop in change_spans(sentence, strong=True):
        if sentence[start:stop].lower() == "now" or any(a <= start < b for a, b in quoted):
            continue  # "so now there are two Noras in my phone": "now" as often goes on
        begin = max((m.end() for m in marks if m.end() <= start), default=0)
        end = min((m.start() for m in marks if m.start() >= start), default=len(sentence))
        if any(a < end and begin < b for a, b in quoted):
            continue  # the clause is partly phrased already
        clause = sentence[begin:end]
        own = _BY_THE_USER.match(clause) or _OF_THE_USER.search(clause)
        if own and len(content_words(clause)) >= 2:
            return begin, end
    return None


def lost_claims(sentence: str, phrased: list[Candidate]) -> list[tuple[int, int]]:
    """(start, end) in ``sentence`` of what the user said that its phrasings lost, to keep as
    said: the clause saying a change no phrasing quotes (``lost_change``), and the sentence's
    first clause (after a label: "Quick one:", ``_LABEL``) when the user says it of
    themselves, no phrasing quotes it and it tells something
    (core.telling.informative): "I swim three mornings a week at the leisure
    centre and my shoulders are sore." was phrased as "The user's shoulders are sore." alone,
    and the swimming was lost. Only the first: a clause before another may frame it, the
    user's own as much as someone else's ("I had a nightmare, I was fired for being late",
    "I'm drafting book four, I poison my boss at the office party", "My brother is a
    firefighter, we work 24-hour shifts"; three adversarial reviews, benchmarks/README.md,
    "Session 46"). Nor when the sentence opens with what conditions it ("When I'm on call,
    ...": core.framing.DEPENDENT), the clause points back ("I walk him twice a day") or the
    judge finds words around it that change it (``_alone``). What follows it without a
    subject of its own stays with it ("I read about two novels a month, mostly sci-fi":
    ``_clauses``)."""
    if not phrased or DEPENDENT.match(re.sub(r"^\W+", "", sentence)):
        return []  # "When I'm on call, ...": what follows it may not be claimed
    quoted = _quoted(sentence, phrased)
    # The first clause past a label: a clause after it may be framed by it.
    first = next((c for c in _clauses(sentence) if not _LABEL.fullmatch(sentence[slice(*c)])), None)
    claims = []
    if first is not None:
        begin, end = first
        clause = sentence[begin:end]
        if (
            _BY_THE_USER.match(clause)
            and not any(a < end and begin < b for a, b in quoted)
            and not change_spans(clause, strong=True)
            and informative(clause)
            and _alone(sentence, begin, end)
        ):
            claims.append(first)
    changed = lost_change(sentence, phrased)
    return sorted(claims if changed is None else [*claims, changed])


def _clauses(sentence: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of ``sentence`` (``_CLAUSE_BREAK``), less the "and", "so",
    "also" ... that opens it (core.framing.LEAD); a part that does not open with a subject
    goes on the clause before it ("I grow tomatoes, chillies and beans", "we get free drum
    and bass tickets"). A capitalised word counts as a subject, so a list of names is cut
    after its first name (the record's retrieval context still holds the whole turn)."""
    bounds = [0, *(at for m in _CLAUSE_BREAK.finditer(sentence) for at in m.span()), len(sentence)]
    spans: list[tuple[int, int]] = []
    for begin, end in zip(bounds[::2], bounds[1::2], strict=True):
        lead = LEAD.match(sentence[begin:end])
        begin += lead.end() if lead else 0
        if spans and not _SUBJECT.match(sentence, begin, end):
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((begin, end))
    return spans


def _alone(sentence: str, start: int, end: int) -> bool:
    """Whether the clause at ``start:end`` of ``sentence`` says on its own what it says in the
    sentence: it points back to nothing ("I walk him twice a day") and the judge reading it in
    its sentence finds nothing around it that changes it (core.judge.context: a hedge, report
    or negation after it)."""
    clause = sentence[start:end]
    return (
        _POINTS_BACK.search(clause) is None
        and _JUDGE.entails(clause, clause, context=sentence).holds
    )


# What opens a clause of its own: a subject.
_SUBJECT = re.compile(
    r"\W*(?:(?i:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|you|he|she|it|it's|they|my|our|your|"
    r"his|her|its|their|this|that|there|the)|[A-Z][\w'-]*)(?!\w)"
)
# What labels the clause after it: "Quick one:", "Other subject:", "Work news:", "Update:";
# not a lead-in to someone's words ("Script line one: we value your call").
_LABEL = re.compile(
    r"(?:(?:other|another|new|quick|one more|last|different|separate|random|side|work|home|"
    r"family|big|small|good|bad)\s+)?(?:subject|topic|thing|question|one|note|news|update|"
    r"point|q)\W*",
    re.IGNORECASE,
)
# A word that points back to something the rest of its sentence names.
_POINTS_BACK = re.compile(
    r"\b(?:he|she|it|they|him|her|them|his|its|their|there|here|this|that|these|those)\b",
    re.IGNORECASE,
)


def _quoted(sentence: str, phrased: list[Candidate]) -> list[tuple[int, int]]:
    """Where in ``sentence`` each phrasing's quote stands."""
    return [(at, at + len(c.evidence)) for c in phrased if (at := sentence.find(c.evidence)) >= 0]


# A clause whose subject is the user: someone else's change ("My husband resigned from
# Deloitte and I am still enjoying my job there", "My sister quit her job at Blue Bottle")
# retired the user's own record of the place it names (a review's 27 cases: 4 wrong
# retirements of 9, 3 of them another person's change).
# A change someone made to the user's own ("Dr Anand has since moved me from warfarin to
# apixaban, so I no longer require the blood tests": the phrased clause is the blood tests').
_OF_THE_USER = re.compile(
    r"\b(?:moved|switched|changed|put|transferred|swapped|took)\s+(?:me|us)\s+"
    r"(?:off|onto|on|to|from|over)\b",
    re.IGNORECASE,
)
_BY_THE_USER = re.compile(
    r"^\W*(?:(?:and|but|so|also|then|just|finally|anyway|btw)\W+)*"
    r"(?:i|i've|i'm|i'd|we|we've|we're|we'd)\b",
    re.IGNORECASE,
)


__all__ = ["lost_change", "lost_claims"]

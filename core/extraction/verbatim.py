"""The offline extractor's verbatim fallback: the user's own informative words, kept as said.

The offline rules phrase a sentence only when it fits one of their first-person patterns, and
most of what people tell an assistant does not ("Biscuit is losing his mind, we've had nine
straight days of rain."). Such a sentence is still the user's own statement, and the words are
what a later question is answered from. So a user sentence that no rule phrased, and that
survived every refusal of the extractor (questions, hedges and hypotheticals, sarcasm,
quotations, retracted sentences, instruction-override text), becomes a candidate of
kind ``statement``: an episodic record whose content IS its evidence, word for word. Reported
speech is kept this way and no other ("carla says rose's steer is up to 900 lbs", "My doctor
said I need more iron"): the reporter stays in the words, so the record says who claimed it
(personal dev set, extracted path: 6 answers found that were lost with the sentence, hit@5
0.795 -> 0.811; benchmarks/README.md, "Session 19 (2026-12-03)"). The user's own "I think
..." is a hedge and is not kept.
It is kept as what the user said at that turn's time (event_at), never as a semantic fact: no
rule phrased it, so nothing says what fact it states or which earlier fact it replaces
(episodes are never superseded; the validator refuses a statement that is not episodic or not
its own evidence).

Each kept sentence makes a record of its own, and a sentence that opens by pointing back ("He",
"It", "That", "And", ...) or has no subject of its own ("Works as a dentist downtown.", by the
judge's parser) joins the one before it (up to ``MAX_SENTENCES`` sentences and ``MAX_CHARS``
characters), so a detail keeps the sentence that gives it its subject. One claim
per record lets a later correction retire what it changes and nothing beside it: with runs of
up to three sentences, "Adam quit the hockey" could retire no record of "Adam is 15, he plays
hockey. Lina is 11, she swims." and a "moved" turn retired a run holding a child's trip dates
(personal dev set, extracted path: stale values shown 0.500 -> 0.439, hit@5 0.771 -> 0.771;
benchmarks/README.md, "Session 17"). A sentence holding a stale and a valid claim is still
retired whole ("Theo is 7 and Lara is 3" with the cancelled trip). A sentence is kept
when it is informative (core.telling: at least ``MIN_WORDS`` words, ``MIN_CONTENT_WORDS`` for
one that opens by ending something, "quit roccos finally."; and ``MIN_CONTENT_WORDS`` words
that are neither function words nor the vocabulary of greetings, thanks and acknowledgements,
"thanks, that's really helpful", "ok sounds good"; not opening like a question without its
mark, "what's a good calorie target"). The record's retrieval context is its whole turn (its
day and words, core.extraction.validator.retrieval_context), so the question or the
neighbouring sentence a run leaves out still finds it ("any ideas for keeping a corgi
entertained? Biscuit is losing his mind ..."). A whole informative turn as the record's
content was not chosen: the context already gives search the turn's words, and the content
stays what the model reads (measured variants: benchmarks/README.md, "Extracted records carry
their turn"). Limits: it keeps a
sentence's words, not its meaning, and a long turn gives long records. A later correction
retires an earlier statement only through the reviewer's reading of corrections
(core.extraction.corrections).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator

from pydantic import ValidationError

from agent_memory.core.extraction.schema import Candidate
from agent_memory.core.judge.change import content_words
from agent_memory.core.judge.parse import default_parser
from agent_memory.core.telling import informative

MAX_SENTENCES = 3
MAX_CHARS = 400


def statements(
    text: str, sentences: Iterable[tuple[int, int, int]], qualified: Collection[int] = ()
) -> list[Candidate]:
    """Verbatim statement candidates from the sentences of one user turn that no rule phrased:
    ``sentences`` are (position in the turn, start, end) in order, each already cleared of
    every refusal (module docstring); consecutive informative ones are joined. A statement
    holding a sentence at a position in ``qualified`` (whose words qualify the claim a rule
    phrased of it: core.extraction.phrasing.qualified) is marked so (``Candidate.qualified``),
    and retires nothing."""
    found = []
    marked = frozenset(qualified)
    for start, end, positions in _groups(text, sentences, marked):
        candidate = _statement(text[start:end], qualified=bool(positions & marked))
        if candidate is not None:
            found.append(candidate)
    return found


def keepable(sentence: str) -> bool:
    """Whether ``sentence`` alone would be kept as a verbatim statement: informative, and
    within what a candidate may hold."""
    return informative(sentence) and _statement(sentence) is not None


def amended_statement(sentence: str, evidence: str) -> list[Candidate]:
    """A sentence in the user's words as a self-correction after it amended it ("test date
    is june 12. wait no, june 2." -> "test date is june 2": core.amend), its evidence both
    sentences, when it says enough to keep; else none. A fact, not a verbatim statement: its
    words are no longer its evidence's, word for word (core.extraction.validator)."""
    if not informative(sentence):
        return []
    try:
        return [
            Candidate(
                kind="fact",
                type="episodic",
                content=sentence,
                evidence=evidence,
                source_kind="user_statement",
            )
        ]
    except ValidationError:
        return []


def _groups(
    text: str, sentences: Iterable[tuple[int, int, int]], alone: frozenset[int] = frozenset()
) -> Iterator[tuple[int, int, set[int]]]:
    """(start, end, positions) of runs of consecutive informative sentences, each within the
    caps; a sentence at a position in ``alone`` (a qualified one) is a run of its own, so that
    its mark does not reach a plain sentence beside it."""
    run: list[tuple[int, int, int]] = []
    for item in sentences:
        position, start, end = item
        if not informative(text[start:end]):
            continue
        # The next sentence, with nothing cut between: a run never spans the question a kept
        # clause was cut from ("Daniel has asthma, any activities to avoid? He uses ...").
        adjacent = run and run[-1][0] == position - 1 and not text[run[-1][2] : start].strip()
        fits = run and len(run) < MAX_SENTENCES and end - run[0][1] <= MAX_CHARS
        apart = position in alone or (run and run[-1][0] in alone)
        if run and (apart or not (adjacent and fits and _continues(text[start:end]))):
            yield run[0][1], run[-1][2], {p for p, _, _ in run}
            run = []
        run.append(item)
    if run:
        yield run[0][1], run[-1][2], {p for p, _, _ in run}


# A sentence that opens by pointing back ("He already destroys every box", "It costs ...",
# "And the vet said ...") joins the sentence before it; any other starts a record of its own.
_BACK = re.compile(
    r"^\W*(?:(?:honestly|sadly|plus|anyway|also|now|still|luckily|unfortunately|apparently|"
    r"actually|well|oh|ugh|so|and|but)\W+)*"
    r"(?:he|she|it|they|his|her|its|their|him|them|this|that|these|those|there|then|so|"
    r"and|but|which|who|both|the other|the rest|same)\b",
    re.IGNORECASE,
)


_SUBJECTS = frozenset(("nsubj", "nsubjpass", "csubj", "csubjpass", "expl"))


def _continues(sentence: str) -> bool:
    """Whether ``sentence`` goes on from the one before it: it opens by pointing back (after
    a discourse word or two: "Honestly, she ...", "Plus he ..."), or its main word has no
    subject ("Works as a dentist downtown.", "Also allergic to chicken.", by the judge's
    parser, core.judge.parse; without it, pointing back only)."""
    if _BACK.match(sentence):
        return True
    doc = default_parser().parse(sentence)
    if doc is None:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    return root is not None and not any(child.dep_ in _SUBJECTS for child in root.children)


def _statement(span: str, *, qualified: bool = False) -> Candidate | None:
    """The candidate for one verbatim span, or None for one the schema refuses."""
    try:
        return Candidate(
            kind="statement",
            type="episodic",
            content=span,
            evidence=span,
            source_kind="user_statement",
            qualified=qualified,
        )
    except ValidationError:
        return None


# ---------------------------------------------------------------------------------------------
# What a correction leaves of a verbatim statement

# Where a statement's clauses may part: a sentence end, a comma or semicolon before a space
# (not "3,500"), each with an "and" or "but" after it, or an "and" / "but" alone. Not a colon:
# what follows one spells out what went before ("Our flat is tiny: the kids share a room"),
# nor "so" or "because": what follows them hangs on it ("I cover REITs so I do this weekly").
_PARTS = re.compile(r"\s*(?:[.!?;,](?=\s))\s*(?:(?:and|but)\s+)?|\s+(?:and|but)\s+", re.IGNORECASE)
# A period that ends an abbreviation, not a sentence.
_ABBREVIATION = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|St|Jr|Sr|vs|etc|approx|e\.g|i\.e)\.$")
# A part that ends on an auxiliary leaves its verb to the clause before it ("Max doesn't eat
# meat, but his brother does").
_ELLIPSIS = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|should)\W*$",
    re.IGNORECASE,
)
# Words that point at something a kept part may have lost: a thing ("Marco is leading it"),
# someone as an object ("our cat Luna hates him", "my mum taught me") or a place by where
# the user was ("my parents live two streets away"), whatever comes before; a person as
# "he" or "she" only when the part names no one before it ("the spare room is now her
# room"; "our daughter Adaeze was born and she's not a fan of sleeping" keeps).
_THING = re.compile(
    r"\b(?:it|its|they|them|their|theirs|him|me|us)\b"
    r"|\b(?:away|next door|nearby|near us|around the corner|down the road|close by)\b",
    re.IGNORECASE,
)
_PERSON = re.compile(r"\b(?:he|his|she|her|hers)\b", re.IGNORECASE)  # "him": a _THING
# A thing named as known after the part's opening words: the one the changed claim was
# about ("Marcus won the argument", beside the sofa chosen; "Pete has the keys").
_DEFINITE = re.compile(r"(?<=\S)\s+the\s+[a-z]")
_NAMED = re.compile(r"\b(?:my|our)\s+\w+|(?<=\s)(?!I\b)[A-Z][\w'-]*")
# Who a kept part may be about: someone named, or one of the user's family or pets. A thing,
# place or role said beside a changed claim usually belongs to it (the venue of a wedding
# called off, the landlord of a flat moved out of, the manager at a job left), and goes too.
_KIN = frozenset(
    """son daughter wife husband spouse partner fiance fiancee boyfriend girlfriend kid kids child
    children baby girl boy twins brother sister sibling mum mom mother dad father parents
    grandma grandpa grandmother grandfather grandson granddaughter nephew niece cousin aunt
    uncle stepson stepdaughter dog cat puppy kitten""".split()
)
# What makes a part hang on the plan or state around it, which the correction may have ended
# or moved: a future or an arrangement ("will", "should", "is watching the cats", "while
# we're away", "until Friday") or a day of the month ("the rehearsal dinner is June 11").
_MONTH = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_PLAN = re.compile(
    r"\b(?:will|shall|should|gonna|going to|plan(?:ning)? to|while|until|till)\b|'ll\b"
    r"|\b(?:is|are|am|was|were)\s+(?:\w+ly\s+)?\w+ing\b|(?:'s|'re|'m)\s+(?:\w+ly\s+)?\w+ing\b"
    rf"|\b(?:{_MONTH})[a-z]*\.?\s+\d{{1,2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTH})"
    r"|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)


# A correction that calls a plan off or ends a relationship: what was said in the same breath
# is the plan's or the couple's ("my brother Tom is the best man" beside the wedding).
_CALLED_OFF = re.compile(
    r"\b(?:cancel+(?:ed|ing)?|called off|call(?:ing)? it off|postponed|on hold|"
    r"(?:is|are|was|were|'s|'re) off|broke up|split up|divorc\w*|separated)\b",
    re.IGNORECASE,
)


def unchanged(statement: str, correction: str) -> list[str]:
    """The parts of a verbatim ``statement`` that a later ``correction`` (its evidence) leaves
    as they were, each a span of the statement's own words: what a record of the statement
    keeps when the correction retires it.

    A sentence often says several things at once ("our daughter Adaeze was born three weeks
    ago and she's not a fan of sleeping, and our flat in Lewisham is so small"), and a later
    correction changes one of them ("we finally moved ... Goodbye tiny Lewisham flat"). The
    statement is read as clauses. It parts at ``_PARTS``; a part opens a clause only when it
    has a subject and verb of its own (the judge's parser), does not open by pointing back
    ("she's not a fan" joins the clause before it, as ``_continues`` reads a sentence) and
    does not end on an auxiliary (``_ELLIPSIS``); a part without one belongs to the clause
    before it ("Lisbon and Porto", "12 days"), or to the one after it when it comes first
    ("Ana and I are getting married"). A clause sharing a content word with the correction is
    what the correction touches, and so is one with the same subject as a touched one: it
    goes on about the same thing ("I've come off my third night shift and I can't sleep
    during the day"). Each run of the other clauses is kept when it tells something on its
    own (``informative``), does not open by pointing back, points at no thing and at no
    person it does not name first (``_THING``, ``_PERSON``; "the argument" after its opening
    words is a thing pointed at, ``_DEFINITE``), and does not hang on a plan or a
    day (``_PLAN``: "the dog is going to my sister's while we're away"), and is about
    someone named or one of the user's family or pets (``_KIN``): a thing, place or role said
    beside a changed claim usually belongs to it. Nothing is kept when the correction calls
    a plan off or ends a relationship (``_CALLED_OFF``): what was said with the plan is its.

    Limits: a shared word is the only reading of what changed, so a part about a person that
    changed with the claim without naming it is kept ("the kids go to Ecole Montessori" after
    a move to another city), and a claim naming what the correction names without being
    changed goes ("Adam is 15" beside "Adam quit hockey"). What the user says of themself
    beside a changed claim goes ("I'm allergic to peanuts"): "I" is too often the one the
    change is about. Without the parser nothing is kept."""
    if _CALLED_OFF.search(correction):
        return []
    clauses = _clauses(statement)
    if clauses is None:
        return []
    said = content_words(correction)
    touched = [bool(content_words(statement[s:e]) & said) for s, e, _, _ in clauses]
    if not any(touched):
        return []
    changed = {c[2] for c, hit in zip(clauses, touched, strict=True) if hit} - {""}
    runs: list[list[int]] = []
    open_run = False
    for (start, end, subject, person), hit in zip(clauses, touched, strict=True):
        if hit or subject in changed or not person:
            open_run = False
        elif open_run:
            runs[-1][1] = end
        else:
            runs.append([start, end])
            open_run = True
    kept = (statement[start:end].strip(" ,;") for start, end in runs)
    return [text for text in kept if _stands_alone(text)]


def _clauses(statement: str) -> list[tuple[int, int, str, bool]] | None:
    """(start, end, subject, about a person) of the clauses of ``statement``
    (``unchanged``); None without the parser."""
    clauses: list[tuple[int, int, str, bool]] = []
    held: int | None = None  # where a part joined to the next one began ("Ana and I ...")
    for start, end, bare in _spans(statement):
        part = statement[start:end]
        # Written with a capital inside a sentence: a name, whatever the parser tags it.
        inside = statement[:start].rstrip()[-1:] not in ("", ".", "!", "?")
        subject = _subject(part, inside=inside)
        if subject is None:
            return None
        word, person = subject
        goes_on = bool(_BACK.match(part) or _ELLIPSIS.search(part))
        begin = start if held is None else held
        held = None
        if word and not goes_on:
            clauses.append((begin, end, word, person))
        elif clauses and (goes_on or not bare):
            first, _, before, about = clauses[-1]
            clauses[-1] = (first, end, before, about)
        elif bare and not word:  # the first of two subjects: "Ana" of "Ana and I are ..."
            held = begin
        else:
            clauses.append((begin, end, "", False))
    return clauses


def _stands_alone(text: str) -> bool:
    """Whether a kept run tells something on its own (``unchanged``)."""
    if not informative(text) or _BACK.match(text) or _PLAN.search(text):
        return False
    if _THING.search(text) or _DEFINITE.search(text):
        return False
    person = _PERSON.search(text)
    return person is None or _NAMED.search(text[: person.start()]) is not None


def _spans(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, bare) of the parts of ``text`` between ``_PARTS`` separators; ``bare``:
    the separator after it is an "and" / "but" without a mark before it."""
    spans, at = [], 0
    for match in _PARTS.finditer(text):
        if _ABBREVIATION.search(text, 0, match.start() + 1):
            continue  # "Dr. Elena Petrova" is one name
        if match.start() > at:
            mark = text[match.start()] in ".!?"
            bare = not any(c in match.group(0) for c in ".!?;,")
            spans.append((at, match.start() + mark, bare))
        at = match.end()
    if at < len(text):
        spans.append((at, len(text), False))
    return spans


def _subject(part: str, *, inside: bool = False) -> tuple[str, bool] | None:
    """The subject of ``part`` when its main word is a verb with one of its own, by the judge's
    parser (its word, lower case; "" when it has none) and whether it is someone named (a
    proper noun, or capitalised in a part ``inside`` a sentence) or one of the user's family
    or pets (``_KIN``); None without the parser."""
    doc = default_parser().parse(part)
    if doc is None:
        return None
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "AUX"):
        return "", False
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS), None)
    if subject is None:
        return "", False
    if subject.lower_ == "i":
        return "i", False
    named = subject.pos_ == "PROPN" or (inside and subject.text[:1].isupper())
    return subject.text.lower(), named or subject.lower_ in _KIN


__all__ = ["MAX_CHARS", "MAX_SENTENCES", "statements", "unchanged"]

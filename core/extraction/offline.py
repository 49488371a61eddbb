"""The offline model backend: rules instead of a model, no network (README: "Offline
extraction").

Extractor. Each user turn is split into sentences (a period after an abbreviation such as "Dr.",
"Mrs.", "St.", "e.g.", "etc.", "U.S.", after an initial or inside a number ends none) and clauses
(at commas, semicolons, "but", parentheses and "and I / and my"); a clause is kept only when it
matches one of a few first-person patterns, and its exact text becomes the evidence span:

- "I'm / I am X"                  -> "The user is X."          (fact)
- "I prefer / like / love / hate / want / need / use / have / own / live / work / speak ... X"
                                   -> "The user prefers X." ... (fact)
- "I don't / do not V X", "I can't V X"  -> "The user does not V X." (fact)
- "my X is / are Y"               -> "The user's X is Y."     (fact, attribute X)
- "I'm going / moving / flying to X", "I will / I'll / I plan to X"  -> a dated plan when the
  clause has a date expression: review_at (the last day it can mean), valid_from ("from",
  "starting") and valid_until ("until", "through")
- "I decided / agreed / chose ..."  -> "The user decided ..."  (decision, episodic, personal)
- "we / the team / Sam and I decided ..."  -> "We decided ..." (who decided is kept; the
  session's target for shared decisions, SessionView.shared_target: current_project when the
  session has it, else personal)
- "the X worked / failed / broke / is fixed" in a user turn, and sentences of tool turns that
  report success or failure          -> the clause itself       (outcome, episodic)
- "When / Whenever / Before / After X, (always) do Y"  -> a procedure with that trigger and step

Skipped: questions, conditionals and hedges (if, would, could, might, maybe, hope, wish);
reported speech and belief ("My boss said: I'm quitting", "My mom thinks I should ...", "I told
him ...": the reporting clause and the rest of its sentence, until a "so" or "but" clause) and
anything in quotation marks; sarcastic sentences ("yeah right", "as if", "/s", "oh great"); a
retraction ("That was a lie.", "just kidding", "scratch that") or a bare sarcasm marker undoes
the sentences before it in its turn, and, opening a turn, the previous user turn; clauses in
assistant turns; and every sentence that tries to instruct the memory system ("ignore previous
rules", "system prompt", "you are now", "store that ..."). Tool-turn outcomes claim tool_result
only from an authoritative tool's own output (core.evidence), else agent_inference.

Reviewer. Accepts a candidate whose evidence is verbatim in the transcript and whose turn holds
no instruction-override text; rejects the rest; narrows to agent_inference a user_statement claim
whose evidence is not in a user turn, and a tool_result claim whose evidence is not an
authoritative tool's own output. It does not judge meaning.

Summary writer. A dated template: who talked, how many turns, the most frequent content words
of the user's turns (turns with instruction-override text are left out), and what the session
confirmed (never its inferences). It never copies sentences of the transcript.

Limits: English only; no coreference ("it", "she"); no paraphrase; no facts spread over two
turns; misses most of what a model would find, and what it finds is literal. The reported-speech,
sarcasm and retraction rules are word lists: irony without a marker is read literally, and a
retraction undoes whole sentences, not the one claim it meant (a missing record over a wrong one).
``latency_ms`` sleeps in every call, to stand in for a hosted model in tests and benchmarks.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime

from pydantic import ValidationError

from core import temporal
from core.evidence import MIN_QUOTE_CHARS, Turn, find_quote, normalise, vouching_problem
from core.extraction.backend import ModelBackend
from core.extraction.schema import (
    MAX_CANDIDATES,
    Candidate,
    ExtractionOutput,
    ProcedureDraft,
    ReviewDecision,
    ReviewOutput,
    ReviewRequest,
    Revision,
    SessionView,
    SummaryOutput,
    SummaryRequest,
)
from core.models import parse_time

# Text that tries to steer the memory system rather than tell it something.
INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override|bypass)\b[^.!?]{0,40}\b(previous|prior|above|earlier|"
    r"all|any|your|the|these|those)\b[^.!?]{0,30}\b(rules?|instructions?|prompts?|guidelines|"
    r"directions|policy|policies)\b|\bsystem prompt\b|\byou are now\b|\bnew instructions\b|"
    r"\bdeveloper mode\b|\b(store|save|record|memori[sz]e|write down|log) (that|this)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(if|would|could|might|maybe|perhaps|probably|hope|wish|suppose|imagine|pretend|"
    r"what if|unless|someday)\b",
    re.IGNORECASE,
)
# Someone (the user too: "I told him ...", "I think ...") reporting speech or a belief: the
# clause holding it, and the rest of its sentence, are not the user's own claim.
_REPORTING = re.compile(
    r"\b(said|says|saying|told|tells|telling|thinks|thought|believes|believed|claims|claimed|"
    r"insists|insisted|reckons|swears|swore|mentioned|suggested|heard|wrote|texted|asked)\b|"
    # A present-tense verb only after a subject: "please suggest email" is a request.
    r"\b(i|we|they|people|everyone)\s+(?:\w+\s+)?(think|believe|say|reckon|claim|insist|"
    r"guess|suppose|heard)\b|\baccording to\b|\b(apparently|supposedly|allegedly)\b",
    re.IGNORECASE,
)
# A sentence taking back what was said before it ("That was a lie.", "just kidding").
_RETRACTION = re.compile(
    r"\b(just|only) (kidding|joking)\b|\bj/?k\b|\bi(?:'m| am| was)(?: just| only)? "
    r"(kidding|joking)\b|\b(that|this|it)(?:'s| is| was)(?: all| just)? (a lie|a joke|not true|"
    r"made up|untrue|false)\b|\bi lied\b|\bi made (that|it) up\b|\bscratch that\b|"
    r"^(kidding|joking|not really|nah|not)\W*$",
    re.IGNORECASE,
)
# Sarcasm: the sentence means the opposite of its words. One that is only the marker
# ("Yeah right.", "/s") turns the sentence before it.
_SARCASM = re.compile(
    r"\byeah,? right\b|\bas if\b|(?:^|\s)/s\b|\bsure,? because\b|\boh,? (great|joy|wonderful|"
    r"fantastic|perfect|lovely)\b|\bnot!|\U0001f644|\bjust what i (needed|wanted)\b|"
    r"\blove that for me\b|\bwhat a (joy|treat)\b",
    re.IGNORECASE,
)
# Words after which a period does not end a sentence ("Dr. Weber", "e.g. tea", "the U.S. too").
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms mx st prof sr jr mt ft vs etc approx dept no nos fig vol jan feb mar apr jun "
    "jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun".split()
)
_BOUNDARY = re.compile(r"[.!?]+(?=[\s\"')\]]|$)|\n+")
_LEAD = re.compile(
    r"^(?:(?:and|also|so|but|actually|well|oh|ok|okay|yes|no|btw|by the way|just so you know|"
    r"fyi|honestly|anyway|now|then|plus)\b[,\s]*)+",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r",\s+|;\s+|\s+(?P<but>but)\s+|\s+-\s+|:\s+|\s+\(|\)\s*|"
    r"\s+(?P<and>and)\s+(?=(?:i|i'm|i've|my)\b)",
    re.IGNORECASE,
)
_OWN_VOICE = re.compile(r"^(so|but|anyway|and so|which is why)\b", re.IGNORECASE)
_QUOTES = re.compile(r"[\"\u201c\u201d]")

_VERBS = (
    "prefer|like|love|enjoy|hate|dislike|want|need|use|own|have|live|work|speak|play|drink|"
    "eat|study|teach|run|drive|follow|support|avoid|collect|practice|practise"
)
_PLAN = re.compile(
    r"^i(?:'m| am) (going to|moving to|flying to|travel(?:l)?ing to|starting|leaving|visiting|"
    r"meeting|getting|attending|taking|having)\b(.+)$|^i(?:'ll| will| plan to| intend to)\b(.+)$",
    re.IGNORECASE,
)
_I_AM = re.compile(r"^(?:i'm|i am)\s+(.+)$", re.IGNORECASE)
_I_VERB = re.compile(rf"^i\s+(?:(don't|do not|can't|cannot|never)\s+)?({_VERBS})\b(.*)$", re.I)
_MY = re.compile(r"^my\s+((?:[a-z'-]+\s+){0,3}?[a-z'-]+)\s+(is|are|was|were)\s+(.+)$", re.I)
_DECISION = re.compile(
    r"^(?P<who>we|i|the team|our team|my team|the family|(?:my\s+)?[\w'-]+ and i)\s+"
    r"(?:(?:have|just|finally|already|eventually|all|both)\s+)*(?P<verb>decided|agreed|chose|"
    r"picked|settled on|went with|are going with|will go with)\b\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
_OUTCOME = re.compile(
    r"^(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+){0,3}\s+(worked|works now|failed|broke|crashed|"
    r"is fixed|was fixed|passed|succeeded|is down|is back up|went live|shipped)\b",
    re.IGNORECASE,
)
_TOOL_OUTCOME = re.compile(
    r"\b(succeeded|failed|passed|completed|error|errors|timed out|deployed|exit code)\b",
    re.IGNORECASE,
)
_PROCEDURE = re.compile(
    r"^(when|whenever|before|after|every time)\s+(.+?),\s+(?:(?:please|always|you should|"
    r"make sure to|remember to)\s+)?(.+)$",
    re.IGNORECASE,
)
_NOT_STATES = re.compile(
    r"^(sure|afraid|sorry|glad|happy|here|back|done|just|looking|trying|thinking|wondering|"
    r"asking|curious|not sure|going to|gonna|about to|fine|ok|okay|good|great)\b",
    re.IGNORECASE,
)
_SINGLE_VALUED = (
    (re.compile(r"^(?:live|living|based|located) in\b", re.I), "residence"),
    (re.compile(r"^work(?:ing)? (?:at|for)\b", re.I), "employer"),
)
_PRONOUNS = (
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\bI'm\b"), "the user is"),
    (re.compile(r"\bI\b"), "the user"),
)
_STOP = set(
    "the a an and or but if then so to of in on at for with from by about as is are was were be "
    "been being it its this that these those i me my you your we our they them their he she his "
    "her not no yes do does did have has had will would can could should just also really very "
    "what when where which who how why there here some any all more most much many please "
    "thanks thank okay sure like know think want need going get got make made good great well "
    "now today tomorrow yesterday".split()
)


class OfflineBackend(ModelBackend):
    """Rule-based extractor, reviewer and summary writer (see the module docstring)."""

    name = "offline-rules-1"

    def __init__(self, *, latency_ms: int = 0) -> None:
        self.latency_ms = latency_ms

    def _wait(self) -> None:
        if self.latency_ms:
            time.sleep(self.latency_ms / 1000)

    # -- extractor ---------------------------------------------------------------------------

    def extract(self, session: SessionView) -> ExtractionOutput:
        self._wait()
        found: list[Candidate] = []
        last_user: list[Candidate] = []  # the previous user turn's, which a retraction undoes
        for turn in session.turns:
            if turn.role == "tool":
                found.extend(_from_tool_turn(turn, session.turns))
            elif turn.role == "user":
                kept, retracts_before = _from_user_turn(turn, session.shared_target)
                if retracts_before:
                    found = [c for c in found if all(c is not r for r in last_user)]
                found.extend(kept)
                last_user = kept
        candidates: list[Candidate] = []
        seen: set[str] = set()
        for candidate in found:
            key = normalise(candidate.content)
            if key not in seen:
                seen.add(key)
                candidates.append(candidate)
            # The schema's cap; the pipeline keeps fewer still (extraction.max_candidates).
            if len(candidates) == MAX_CANDIDATES:
                break
        return ExtractionOutput(candidates=candidates)

    # -- reviewer ----------------------------------------------------------------------------

    def review(self, request: ReviewRequest) -> ReviewOutput:
        self._wait()
        decisions = []
        turns = request.session.turns
        for item in request.items:
            c = item.candidate
            turn = find_quote(c.evidence, turns, roles=("user", "assistant", "tool", "system"))
            if turn is None:
                decisions.append(_decide(item.index, "reject", "evidence not in the transcript"))
            elif INJECTION.search(turn.content):
                decisions.append(
                    _decide(
                        item.index,
                        "reject",
                        "the evidence turn tries to instruct the memory system",
                    )
                )
            elif c.source_kind == "user_statement" and turn.role != "user":
                decisions.append(
                    _narrow(item.index, f"the evidence is a {turn.role} turn, not the user's words")
                )
            elif c.source_kind == "tool_result" and (
                turn.role != "tool" or vouching_problem(turn, c.evidence, turns) is not None
            ):
                decisions.append(
                    _narrow(item.index, "the evidence is not an authoritative tool's own output")
                )
            else:
                decisions.append(_decide(item.index, "accept", "evidence verbatim, no red flags"))
        return ReviewOutput(decisions=decisions)

    # -- summary writer ----------------------------------------------------------------------

    def summarize(self, request: SummaryRequest) -> SummaryOutput:
        self._wait()
        session = request.session
        turns = session.turns
        if not turns:
            return SummaryOutput(summary=f"Session {session.session_id} had no turns.")
        first = parse_time(turns[0].at, field="at")
        words: Counter[str] = Counter()
        for turn in turns:
            if turn.role != "user" or INJECTION.search(turn.content):
                continue
            for sentence in _sentences(turn.content):
                words.update(
                    w for w in re.findall(r"[a-z][a-z'-]{3,}", sentence.lower()) if w not in _STOP
                )
        topics = ", ".join(w for w, _ in words.most_common(6)) or "nothing specific"
        users = sum(1 for t in turns if t.role == "user")
        text = (
            f"On {first:%d %B %Y}, {session.agent_id} and the user had a conversation of "
            f"{len(turns)} turns ({users} from the user). Topics: {topics}."
        )
        if request.kept:
            kept = "; ".join(k.rstrip(".") for k in request.kept[:5])
            more = f" (and {len(request.kept) - 5} more)" if len(request.kept) > 5 else ""
            text += f" Remembered: {kept}{more}."
        return SummaryOutput(summary=text[:2000])


def _decide(index: int, verdict: str, reason: str) -> ReviewDecision:
    return ReviewDecision.model_validate({"index": index, "verdict": verdict, "reason": reason})


def _narrow(index: int, reason: str) -> ReviewDecision:
    return ReviewDecision(
        index=index,
        verdict="revise",
        reason=reason,
        revision=Revision(source_kind="agent_inference"),
    )


def _sentences(text: str) -> Iterator[str]:
    """The sentences of ``text``, each an exact substring. A period after an abbreviation
    ("Dr.", "e.g.", "U.S."), an initial or inside a number ("4.1") ends none."""
    start = 0
    for boundary in _BOUNDARY.finditer(text):
        before = text[start : boundary.start()].split()
        word = before[-1].lstrip("(\"'").lower() if before else ""
        if boundary.group(0) == "." and (
            word in _ABBREVIATIONS or re.fullmatch(r"[a-z](?:\.[a-z])*", word)
        ):
            continue
        sentence = text[start : boundary.end()].strip()
        if sentence:
            yield sentence
        start = boundary.end()
    if text[start:].strip():
        yield text[start:].strip()


def _clauses(sentence: str) -> Iterator[tuple[str, bool, bool]]:
    """(clause, own voice, quoted) for each clause of ``sentence``: each an exact substring;
    own voice when it opens with "so" or "but" (the speaker again, after reported speech);
    quoted when it lies in or holds quotation marks (someone's words, not the user's)."""
    body = sentence.rstrip(".!?")
    start = 0
    after_but = False
    # "and I" splits only where the first part can stand as a quote ("I'm 68 and I ...").
    breaks: list[re.Match[str]] = []
    for b in _CLAUSE_BREAK.finditer(body):
        begin = breaks[-1].end() if breaks else 0
        if b.group("and") is None or len(body[begin : b.start()].strip()) >= MIN_QUOTE_CHARS:
            breaks.append(b)
    for brk in [*breaks, None]:
        end = brk.start() if brk else len(body)
        clause = body[start:end].strip()
        quoted = bool(_QUOTES.search(clause)) or len(_QUOTES.findall(body[:start])) % 2 == 1
        own = after_but or bool(_OWN_VOICE.match(clause))
        if brk:
            start = brk.end()
            after_but = brk.group("but") is not None
        lead = _LEAD.match(clause)
        if lead:
            clause = clause[lead.end() :].strip()
        if clause:
            yield clause, own, quoted


def _from_user_turn(turn: Turn, shared_target: str) -> tuple[list[Candidate], bool]:
    """The candidates of one user turn, and whether its first sentence takes back the
    previous user turn. A retraction or a bare sarcasm marker undoes the sentences before it
    in the turn; sarcastic, questioning, hedged, reported and quoted sentences give none."""
    anchor = parse_time(turn.at, field="at")
    kept: list[Candidate] = []
    retracts_before = False
    for index, sentence in enumerate(_sentences(turn.content)):
        bare = sentence.rstrip(".!? ")
        undoes = _RETRACTION.search(bare) or (_SARCASM.search(bare) and len(bare.split()) <= 3)
        if undoes:
            if index == 0:
                retracts_before = True
            kept.clear()
            continue
        if sentence.rstrip().endswith("?") or INJECTION.search(sentence):
            continue
        if _HEDGE.search(sentence) or _SARCASM.search(sentence):
            continue
        kept.extend(_from_sentence(sentence, anchor, shared_target))
    return kept, retracts_before


def _from_sentence(sentence: str, anchor: datetime, shared_target: str) -> Iterator[Candidate]:
    procedure = _PROCEDURE.match(sentence.rstrip(".! "))
    reported = False
    for clause, own, quoted in _clauses(sentence):
        if own:
            reported = False
        if _REPORTING.search(clause):
            reported = True  # this clause and what it reports, to the next "so" or "but"
        if reported or quoted:
            continue
        if procedure and clause == sentence.rstrip(".! ").split(",")[0].strip():
            yield from _procedure(sentence.rstrip(".! "), procedure)
            continue
        candidate = _fact(clause, anchor, shared_target)
        if candidate is not None:
            yield candidate


def _fact(clause: str, anchor: datetime, shared_target: str = "personal") -> Candidate | None:
    if _PLAN.match(clause) is not None:
        return _plan(clause, anchor)
    if (m := _DECISION.match(clause)) is not None:
        return _decision(clause, m, shared_target)
    if _OUTCOME.match(clause):
        return _candidate("outcome", "episodic", _third_person(clause), clause)
    if (m := _MY.match(clause)) is not None:
        thing, verb, rest = m.group(1), m.group(2), _third_person(m.group(3))
        return _candidate(
            "fact", "semantic", f"The user's {thing} {verb} {rest}", clause, attribute=thing
        )
    if (m := _I_AM.match(clause)) is not None:
        rest = m.group(1)
        if _NOT_STATES.match(rest) or len(rest.split()) > 12:
            return None
        attribute = next((a for p, a in _SINGLE_VALUED if p.match(rest)), None)
        return _candidate(
            "fact", "semantic", f"The user is {_third_person(rest)}", clause, attribute=attribute
        )
    if (m := _I_VERB.match(clause)) is not None:
        negation, verb, rest = m.group(1), m.group(2).lower(), m.group(3)
        if len(rest.split()) > 14:
            return None
        if negation:
            lead = {"don't": "does not", "do not": "does not", "never": "never"}.get(
                negation.lower(), "cannot"
            )
            verb_text = f"{lead} {verb}" if lead != "never" else f"never {_conjugate(verb)}"
        else:
            verb_text = _conjugate(verb)
        attribute = None
        if verb in ("live", "work"):
            attribute = next((a for p, a in _SINGLE_VALUED if p.match(f"{verb}{rest}")), None)
        return _candidate(
            "fact",
            "semantic",
            f"The user {verb_text}{_third_person(rest)}",
            clause,
            attribute=attribute,
        )
    return None


def _decision(clause: str, m: re.Match[str], shared_target: str) -> Candidate | None:
    """ "I decided X" is the user's and personal; "we / the team / Sam and I decided X" keeps
    who decided and goes to the target for shared decisions."""
    target = "personal" if m.group("who").lower() == "i" else shared_target
    return _candidate("decision", "episodic", _third_person(clause), clause, target=target)


def _plan(clause: str, anchor: datetime) -> Candidate | None:
    # A plan looks ahead: "the friend I met last night" or "over the past month" (which ends
    # today) date nothing to review; "today" and "this week" do.
    today = anchor.date()
    found = [e for e in temporal.expressions(clause, anchor) if e.end > today or e.start >= today]
    if not found:
        return None
    valid_from = valid_until = None
    review: temporal.Expression | None = None
    for expression in found:
        # The words before the expression, and its own first word ("until July" is one
        # expression, "until 3 July" a word and an expression).
        before = f"{clause[: expression.span[0]]} {expression.text.split()[0]}".lower()
        if re.search(r"\b(until|till|through|thru)\s*(\S+)?$", before):
            valid_until = expression.end.isoformat()
            review = review or expression
        elif re.search(r"\b(from|starting|as of|beginning)\s*(\S+)?$", before):
            valid_from = expression.start.isoformat()
        else:
            review = expression
    review = review or found[0]
    head = re.match(r"^i(?:'m| am| will|'ll| plan to| intend to)\b", clause, flags=re.I)
    verb = {"'m": "is", " am": "is", " will": "will", "'ll": "will"}.get(
        head.group(0)[1:].lower() if head else "", ""
    )
    if head and not verb:
        verb = "plans to" if "plan" in head.group(0).lower() else "intends to"
    rest = clause[head.end() :] if head else clause
    try:  # like _candidate: a plan the schema refuses (a 3,000-character list) is no plan
        return Candidate(
            kind="fact",
            type="semantic",
            content=_sentence(f"The user {verb}{_third_person(rest)}"),
            evidence=clause,
            source_kind="user_statement",
            valid_from=valid_from,
            valid_until=valid_until,
            review_at=review.end.isoformat(),
        )
    except ValidationError:
        return None


def _procedure(sentence: str, m: re.Match[str]) -> Iterator[Candidate]:
    trigger, condition, action = m.group(1), m.group(2), m.group(3)
    if action.lower().startswith(("i ", "i'm", "we ")) or len(action.split()) < 2:
        return
    when = f"{trigger.lower()} {_third_person(condition)}"
    try:  # like _candidate: one the schema refuses is dropped, not the session's job
        yield Candidate(
            kind="procedure",
            type="procedural",
            content=_sentence(f"{trigger.capitalize()} {_third_person(condition)}, {action}"),
            evidence=sentence,
            source_kind="user_statement",
            procedure=ProcedureDraft(
                name=" ".join(action.split()[:6]), when=when, steps=[_sentence(action)]
            ),
        )
    except ValidationError:
        return


def _from_tool_turn(turn: Turn, turns: Sequence[Turn]) -> Iterator[Candidate]:
    """Outcomes a tool turn reports: a tool_result only from an authoritative tool's own
    output, else an inference (core.evidence)."""
    for sentence in _sentences(turn.content):
        if len(sentence.split()) < 3 or INJECTION.search(sentence):
            continue
        if _TOOL_OUTCOME.search(sentence):
            trusted = vouching_problem(turn, sentence, turns) is None
            source = "tool_result" if trusted else "agent_inference"
            candidate = _candidate("outcome", "episodic", sentence, sentence, source=source)
            if candidate is not None:
                yield candidate


def _candidate(
    kind: str,
    memory_type: str,
    content: str,
    evidence: str,
    *,
    attribute: str | None = None,
    source: str = "user_statement",
    target: str = "personal",
) -> Candidate | None:
    """A candidate, or None for one the schema refuses (a 3,000-character "sentence" from a
    pasted log): a rule-based extractor must not fail a whole session over one line."""
    try:
        return Candidate.model_validate(
            {
                "kind": kind,
                "type": memory_type,
                "content": _sentence(content),
                "evidence": evidence,
                "source_kind": source,
                "attribute": attribute.lower() if attribute else None,
                "target": target,
            }
        )
    except ValidationError:
        return None


def _third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def _conjugate(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!")) else text + "."


__all__ = ["INJECTION", "OfflineBackend"]

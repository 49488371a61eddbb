"""The offline model backend: rules instead of a model, no network (README: "Offline
extraction").

Extractor. Each user turn is split into sentences (a period after an abbreviation such as "Dr.",
"Mrs.", "St.", "e.g.", "etc.", "U.S.", after an initial or inside a number ends none) and clauses
(at commas, semicolons, "but", parentheses and "and I / and my"); a clause is kept only when it
matches one of a few first-person patterns (core.extraction.phrasing: "I'm X", "I prefer X",
"my X is Y", dated plans, decisions, outcomes, procedures ...), rewritten to the third person
with its exact text as the evidence span; a decision made with others goes to the session's
target for shared decisions (SessionView.shared_target); sentences of tool turns that report
success or failure become outcomes.

A clause about telling the assistant ("Not sure if I told you, but ...", "As I said, ...",
"..., I think I told you") is read off its sentence first (core.framing.told_you): its doubt
or report is about the telling, not the claim, which is read, and quoted, without it.

A phrasing the sentence's own words do not entail, by the offline judge reading the quote alone
("I'm blind and use a screen reader" -> "The user is blind and use a screen reader."), is no
phrasing: the sentence is kept as said instead (core.extraction.phrasing.in_their_words). So is
a sentence whose other words qualify the claim a rule phrased of it ("I'm a pilot for Ryanair,
flying mostly out of Stansted.", "I quit Google, in my dreams lol."), which the write path's
judge would store as an inference that expires: its record holds the qualifier, is tagged
``qualified`` and retires nothing (``_phrased``); and so is a claim with a condition closing
its sentence ("..., if the foot heals"), whole (core.extraction.refusals.conditioned).

A user sentence no pattern phrases, and that none of the rules below refuses, is kept verbatim
when it is informative: an episodic ``statement`` whose content is its own evidence
(core.extraction.verbatim), never a semantic fact. So is a clause the user says of themselves
that opens a sentence a rule phrased another clause of, the clause alone ("I swim three mornings
a week" of "... and my shoulders are sore"; core.extraction.lost.lost_claims says which).

Skipped: questions, conditionals, hypotheticals and hedges (if, would, could, might, maybe,
hope, wish, let's say; not the "if" of an apology, "Sorry if I'm slow tonight, ..."); reported
speech and belief as a phrased fact ("My boss said: I'm quitting", "My mom thinks I should
...", "I told him ...": the reporting clause and the rest of its sentence, until a "so" or
"but" clause are never rewritten as the user's claim, but a sentence holding one is kept
verbatim, its reporter with it, when no clause of it is phrased; such a record retires
nothing, core.framing.reports; the user's own "I think ..." stays a hedge), anything in double
quotation marks and a sentence opening by echoing the assistant's or the system's words ("You
said I have ..."); fiction frames, conditions said by inversion ("Were I rich, ...") and
ironic agreement ("Oh sure, ...", "Sure, I'm the Pope"), read as the judge reads them
(core.framing); sarcastic sentences ("yeah right", "as if", "/s", "oh great"); a
self-correction ("Actually, ...", "Oops, I mean ...") replaces the sentence before it: an
elliptical one ("I have 3 kids. Actually, 4 kids.") gives that sentence's facts with the new
value and both sentences as evidence (core.amend), a full one takes the sentence before it
back and is read as said, kept in its words when no rule phrases it ("The party is at Tom's.
Wait, no, the party is at Anna's flat this year.": only the second; one that adds, "Actually,
I also ...", takes nothing back); a retraction ("That was a lie.", "just kidding", "scratch
that") or a bare sarcasm
marker undoes the sentences before it in its turn, and, opening a turn, the previous user
turn; clauses in assistant turns; and every sentence that tries to instruct the memory system
("ignore previous rules", "system prompt", "you are now", "store that ..."). Tool-turn outcomes
claim tool_result only from an authoritative tool's own output (core.write.evidence), else
agent_inference.

Reviewer: core.extraction.reviewer.

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

from agent_memory.core import telling
from agent_memory.core.amend import amended, corrects_in_full, opens_correction
from agent_memory.core.extraction import lost, phrasing, reviewer, verbatim
from agent_memory.core.extraction.base import ModelBackend
from agent_memory.core.extraction.refusals import (
    INJECTION,
    OWN_BELIEF,
    QUOTES,
    SARCASM,
    conditioned,
    kept_out,
    not_the_users,
    refused,
)
from agent_memory.core.extraction.schema import (
    MAX_CANDIDATES,
    SUMMARY_CHARS,
    Candidate,
    ExtractionOutput,
    ReviewOutput,
    ReviewRequest,
    SessionView,
    SummaryOutput,
    SummaryRequest,
)
from agent_memory.core.framing import OWN_VOICE, REPORTING, told_before, told_you
from agent_memory.core.judge.context import retraction
from agent_memory.core.judge.introduction import greets
from agent_memory.core.models import parse_time
from agent_memory.core.search import standing
from agent_memory.core.sentences import sentence_spans, sentences
from agent_memory.core.takeback import TAKES_BACK_BEFORE, says_not_so
from agent_memory.core.write.evidence import (
    MIN_QUOTE_CHARS,
    Turn,
    normalise,
    quote_problem,
    vouching_problem,
)
from agent_memory.core.write.remembered import remembered

# A sentence taking back what was said before it ("That was a lie.", "just kidding").
_RETRACTION = re.compile(
    r"\b(just|only) (kidding|joking)\b|\bj/?k\b|\bi(?:'m| am| was)(?: just| only)? "
    r"(kidding|joking)\b|\b(that|this|it)(?:'s| is| was)(?: all| just)? (a lie|a joke|not true|"
    r"made up|untrue|false)\b|\bi lied\b|\bi made (that|it) up\b|\bscratch that\b|"
    r"^(kidding|joking|not really|nah|not)\W*$|^(lol|haha|hah|lmao),? (no|nah|nope)\b|"
    # "I'm pregnant! April fools.", "Sorry, I misspoke" (core.framing), and the claim handed
    # to someone else: "I own a boat. Well, my dad does."
    rf"{TAKES_BACK_BEFORE}|"
    r"^(?:well|actually),? (?:my|our) [\w'-]+ (?:does|do|is|did|was|has|had)\W*$|"
    # ... or said to have ended: "I live in Leeds. Well, I did until last week."
    r"^(?:well|actually),? (?:i|we) (?:did|used to)(?: [\w'-]+){0,2} until\b",
    re.IGNORECASE,
)
# A sentence that adds to what came before rather than correcting it.
_ADDS = re.compile(r"\b(?:also|too|as well|in addition)\b", re.IGNORECASE)
# A greeting leads before a comma, "so" or "I" ("hi so I work nights"); "Hey Jude" is a title.
_LEAD = re.compile(
    r"^(?:(?:and|also|so|but|actually|well|oh|ok|okay|yes|no|btw|by the way|just so you know|"
    r"fyi|honestly|anyway|now|then|plus|(?:hi|hey|hello|hiya|heya|howdy)(?=\s*[,.!]|\s+(?:so|"
    r"i|i'm|im|i've|my|we|our)\b))\b[,\s]*)+",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(
    r",\s+|;\s+|\s+(?P<but>but)\s+|\s+-\s+|:\s+|\s+\(|\)\s*|"
    r"\s+(?P<and>and)\s+(?=(?:i|i'm|i've|my)\b)",
    re.IGNORECASE,
)

_TOOL_OUTCOME = re.compile(
    r"\b(succeeded|failed|passed|completed|error|errors|timed out|deployed|exit code)\b",
    re.IGNORECASE,
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

    @property
    def summaries_restate(self) -> bool:  # type: ignore[override]
        """True for this class's summary writer (topic words of the user's turns and the
        records kept); a subclass that writes summaries of its own does not restate unless
        it says so."""
        return type(self).summarize is OfflineBackend.summarize

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

    # -- reviewer (core.extraction.reviewer) -----------------------------------------------

    def review(self, request: ReviewRequest) -> ReviewOutput:
        self._wait()
        return reviewer.review(request)

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
            for sentence in sentences(turn.content):
                if kept_out(sentence):
                    continue  # its words go with it
                words.update(
                    w for w in re.findall(r"[a-z][a-z'-]{3,}", sentence.lower()) if w not in _STOP
                )
        topics = ", ".join(w for w, _ in words.most_common(6)) or "nothing specific"
        users = sum(1 for t in turns if t.role == "user")
        text = (
            f"On {first:%d %B %Y}, {session.agent_id} and the user had a conversation of "
            f"{len(turns)} turns ({users} from the user). Topics: {topics}."
        )
        text = text[:SUMMARY_CHARS]
        text += remembered(request.kept, room=SUMMARY_CHARS - len(text))
        return SummaryOutput(summary=text)


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
        quoted = bool(QUOTES.search(clause)) or len(QUOTES.findall(body[:start])) % 2 == 1
        own = after_but or bool(OWN_VOICE.match(clause))
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
    in the turn, a bare wish the one before (core.takeback); sarcastic, ironic, hedged,
    questioning, conditional, fictional, reported and quoted sentences give none; a
    self-correction replaces the sentence before it (``_corrected``). A sentence no rule
    phrases may be kept verbatim (core.extraction.verbatim)."""
    anchor = parse_time(turn.at, field="at")
    kept: list[Candidate] = []
    unphrased: list[tuple[int, int, int]] = []  # (position, start, end) for the fallback
    qualified: set[int] = set()  # positions of sentences kept whole for what qualifies a claim
    retracts_before = False
    previous: tuple[int, int, list[Candidate]] | None = None  # the last sentence's span, facts
    for index, (start, end) in enumerate(sentence_spans(turn.content)):
        sentence = turn.content[start:end]
        bare = sentence.rstrip(".!? ")
        undoes = _RETRACTION.search(bare) or (SARCASM.search(bare) and len(bare.split()) <= 3)
        last, previous = previous, None
        greeted = turn.content[last[0] : end] if last is not None else ""
        if last is not None and greets(turn.content[last[0] : last[1]]) and phrasing.named(greeted):
            start, sentence = last[0], greeted  # "Hi there! I'm Amelia.": one introduction
        if last is not None and says_not_so(bare, turn.content[:start]):  # "... I wish!"
            kept = [c for c in kept if all(c is not r for r in last[2])]
            unphrased = [u for u in unphrased if u[0] != index - 1]
            continue
        if undoes:
            if index == 0:
                retracts_before = True
            kept.clear()
            unphrased.clear()
            continue
        if INJECTION.search(sentence) or kept_out(sentence):
            continue  # steers the memory, or is kept out of it
        if (claim := told_you(sentence)) is not None:
            # "Not sure if I told you, but my wife is a nurse": the doubt is about the
            # telling; the claim is read, and quoted, without it.
            start, end = start + claim[0], start + claim[1]
            sentence = turn.content[start:end]
        phrased: list[Candidate] | None = None
        if sentence.rstrip().endswith("?") and standing.instructs(sentence):
            # "Could you answer in Spanish from now on?" asks for a way of answering for good:
            # the user's standing instruction, kept as said (core.search.standing), unless
            # the rest of the turn takes it back ("... Actually never mind, English is fine.").
            if retraction(turn.content[end:], sentence) is None:
                unphrased.append((index, start, end))
            continue
        if refused(turn.content, start, end):
            # "I do pilates 3x a week, will that help with ski legs?": the question (or hedge)
            # is the last clause; the clauses before it stand, if they say enough to keep as
            # said or fit a rule ("I have celiac so could you make it gluten-free?").
            told = told_before(sentence)
            if told is None and (cut := conditioned(sentence)) is not None:
                # "I'm targeting the Amsterdam Marathon on 19 October instead, if the foot
                # heals.": the claim and its condition kept as said, retiring nothing; not
                # a claim refused for more than its condition, nor one that is no claim of
                # the user's ("I think ...", quoted text).
                if (
                    not refused(turn.content, start, start + cut)
                    and not refused(turn.content, start, end, hedges=False)
                    and not not_the_users(sentence)
                    and telling.informative(sentence[:cut])
                ):
                    qualified.add(index)
                    unphrased.append((index, start, end))
                continue
            if told is None or refused(turn.content, start, start + told):
                continue
            end = start + told
            sentence = turn.content[start:end]
            phrased = _phrased(sentence, anchor, shared_target, index, qualified)
            if not (phrased or telling.informative(sentence)):
                continue
        correction = last is not None and opens_correction(sentence)
        in_full = (
            last is not None
            and correction
            and corrects_in_full(sentence, turn.content[last[0] : last[1]])
        )
        if last is not None and correction:
            # "I have 3 kids. Actually, 4 kids.": the sentence before is taken back.
            fixed = _corrected(turn.content, last[0], start, end, anchor, shared_target)
            if fixed is not None:
                kept = [c for c in kept if all(c is not r for r in last[2])] + fixed
                unphrased = [u for u in unphrased if u[0] != index - 1]
                previous = (last[0], end, fixed)
                continue
            # "Wait, no, the party is at Anna's.": the sentence before is taken back, this one
            # read as said (core.amend.corrects_in_full); not by one that adds ("I also ...").
            if in_full and _ADDS.search(sentence) is None:
                kept = [c for c in kept if all(c is not r for r in last[2])]
                unphrased = [u for u in unphrased if u[0] != index - 1]
        if OWN_BELIEF.search(sentence) and (told := told_before(sentence.lower())) is not None:
            # "..., so I guess she's not satisfied": the guess is a clause of its own after
            # what was told, which stands (as the judge reads it).
            end = start + told
            sentence = turn.content[start:end]
        if phrased is None:
            phrased = _phrased(sentence, anchor, shared_target, index, qualified)
        if correction and not in_full and last is not None and phrasing.restates(phrased, last[2]):
            # "I'm 29. Actually, I'm 30.": a new value of the same fact replaces it.
            kept = [c for c in kept if all(c is not r for r in last[2])]
        kept.extend(phrased)
        previous = (start, end, phrased)
        # Reported speech is kept only verbatim, its reporter with it ("carla says rose's
        # steer is up to 900 lbs"): the words are the user's, the claim stays the reporter's.
        # Quoted text is someone else's words, the assistant's own words echoed back are not
        # the user's, and the user's own "I think ..." is a hedge: kept in none.
        someone_elses = not_the_users(sentence)
        # A rule may phrase one clause of a sentence that also tells the assistant how to
        # answer for good ("Please use simple English when you answer me, I am from
        # Casablanca"): the instruction is kept in the user's words too, unless the phrased
        # clause is the instruction ("I'd rather you always answer in bullet points").
        kept_whole = (
            not phrased
            # a claim its other words qualify: kept as said, beside its plain phrasings
            or index in qualified
            # every phrasing's quote too short for the write path to take ("I'm 45" of "I'm
            # 45, male, 6 foot, around 95kg."): the sentence is kept as said beside them
            or all(quote_problem(c.evidence) is not None for c in phrased)
            or (
                standing.instructs(sentence)
                and not any(standing.instructs(c.evidence) for c in phrased)
            )
        )
        # Not an elliptical correction no rule could place ("wait no, june 2."): it says nothing.
        if kept_whole and not someone_elses and (in_full or not correction):
            unphrased.append((index, start, end))
        elif not someone_elses:
            # What the phrasings lost: "I resigned from X, ...", "I swim three mornings a week"
            claims = lost.lost_claims(sentence, phrased)
            unphrased += [(index, start + a, start + b) for a, b in claims]
    return kept + verbatim.statements(turn.content, unphrased, qualified), retracts_before


def _phrased(
    sentence: str, anchor: datetime, shared_target: str, position: int, qualified: set[int]
) -> list[Candidate]:
    """The phrasings of ``sentence`` its words say (core.extraction.phrasing.in_their_words),
    less those the rest of the sentence qualifies (``phrasing.qualified``: "I'm a pilot for
    Ryanair, flying mostly out of Stansted.") when the sentence can be kept as said: it then
    is (the caller keeps every sentence at a position in ``qualified``), marked as retiring
    nothing ("I quit Google, in my dreams lol."), while a plain phrasing beside it stays ("I
    live in Bergen now" of "I live in Bergen now and I'm a pilot for Ryanair, flying mostly
    out of Stansted."). A sentence that cannot be kept so ("I'm vegan, mostly.", too short;
    "I'm allergic to nuts, I think.", the user's own belief; over a candidate's length) and a
    self-correction ("Actually, I work days now, mostly, ...", which replaces the sentence
    before it by its phrasing) keep their phrasings, for the write path's judge to store as
    inferences."""
    phrased = phrasing.in_their_words(list(_from_sentence(sentence, anchor, shared_target)))
    if (
        not phrased
        or opens_correction(sentence)
        or not verbatim.keepable(sentence)
        or not_the_users(sentence)
    ):
        return phrased
    plain = [c for c in phrased if not phrasing.qualified(c, sentence)]
    if len(plain) < len(phrased):
        qualified.add(position)
    return plain


def _corrected(
    text: str, start: int, fix_start: int, fix_end: int, anchor: datetime, shared_target: str
) -> list[Candidate] | None:
    """The facts of the sentence at ``start`` with the value an elliptical correction after it
    gives ("I'm 40. Oops, I mean 41." -> "The user is 41."; no rule phrases it: the sentence as
    amended), their evidence both sentences (core.amend; the judge reads them the same way),
    or None when it is no ellipsis."""
    sentence = amended(text[start:fix_start].strip(), text[fix_start:fix_end])
    if sentence is None:
        return None
    evidence = text[start:fix_end].rstrip(".!? ")
    facts = _from_sentence(sentence, anchor, shared_target)
    phrased = [c.model_copy(update={"evidence": evidence}) for c in facts]
    return phrased or verbatim.amended_statement(sentence, evidence)


def _from_sentence(sentence: str, anchor: datetime, shared_target: str) -> Iterator[Candidate]:
    procedure = phrasing.PROCEDURE.match(sentence.rstrip(".! "))
    if (name := phrasing.named(sentence)) is not None:
        yield name  # "Hi, I'm Priya": the user's name, its clause read no further
    reported = False
    for clause, own, quoted in _clauses(sentence):
        if name is not None and clause.rstrip(" :;)(-") in name.evidence:
            continue  # "I'm Priya :)": the name, whatever ends it
        if own:
            reported = False
        if REPORTING.search(clause):
            reported = True  # this clause and what it reports, to the next "so" or "but"
        if reported or quoted:
            continue
        if procedure and clause == sentence.rstrip(".! ").split(",")[0].strip():
            yield from phrasing.procedure(sentence.rstrip(".! "), procedure)
            continue
        candidate = phrasing.fact(clause, anchor, shared_target)
        if candidate is not None and not telling.announces(clause):
            yield candidate  # not "The user has some news."


def _from_tool_turn(turn: Turn, turns: Sequence[Turn]) -> Iterator[Candidate]:
    """Outcomes a tool turn reports: a tool_result only from an authoritative tool's own
    output, else an inference (core.write.evidence)."""
    for sentence in sentences(turn.content):
        if len(sentence.split()) < 3 or INJECTION.search(sentence):
            continue
        if _TOOL_OUTCOME.search(sentence):
            trusted = vouching_problem(turn, sentence, turns) is None
            source = "tool_result" if trusted else "agent_inference"
            candidate = phrasing.candidate("outcome", "episodic", sentence, sentence, source=source)
            if candidate is not None:
                yield candidate


__all__ = ["OfflineBackend"]

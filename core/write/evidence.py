"""Evidence: whether a write's quote backs the source it claims (the write's first stage),
finding a quote in a session transcript, and which turns can vouch for one.

``check`` decides what a claimed source keeps: a claimed user_statement, tool_result or system
must quote, verbatim, a turn of the role that can vouch for it (EVIDENCE_ROLES; a tool turn
only of an authoritative tool, not echoing the model, see below) and the judge must find the
quote entailing the content; anything unproven becomes agent_inference, with a note saying why.
Models cannot claim session_summary. ``witness`` is what one observation of a record rests on,
for the promotion rule (core.write.reinforce).

"Verbatim" here means the same characters up to presentation: Unicode compatibility forms
(NFKC), curly versus straight quotes and apostrophes, dashes, runs of whitespace and letter case.
Nothing else is forgiven: no stemming, no reordering, no fuzzy matching. A quote must have at
least two words and eight characters, so a fragment like "yes" cannot vouch for a statement.

Who can vouch (``vouching_problem``): a tool turn backs a tool_result only when the host named
its tool authoritative for the session (``Turn.authoritative``; none is by default) and the
quote is not the model's own words handed back: every word trigram of the quote (its words,
when it has fewer than three) already said in an assistant turn before it (a reply, or the
arguments of a tool call the model made, e.g. a file it wrote and then read). A tool turn that
cannot vouch is evidence for agent_inference at most. The echo check is literal: a model that
writes a paraphrase into a file and reads it back is caught only by the tool not being
authoritative.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from agent_memory.core.judge import context as judged_context
from agent_memory.core.models import SourceKind, format_time

if TYPE_CHECKING:
    from agent_memory.core.judge.base import Judge

MIN_QUOTE_CHARS = 8
MIN_QUOTE_WORDS = 2

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:['-]\w+)*")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session transcript. ``tool``: for a tool turn, the tool whose output it
    is; for an assistant turn, the tool the model called with ``content`` as its arguments.
    ``authoritative``: the host names that tool authoritative for this session."""

    seq: int
    role: str
    content: str
    at: str
    tool: str | None = None
    authoritative: bool = False


def normalise(text: str) -> str:
    """The form in which quotes and transcripts are compared."""
    text = unicodedata.normalize("NFKC", text).translate(judged_context.TYPOGRAPHY)
    return _SPACE.sub(" ", text).strip().casefold()


def quote_problem(quote: str) -> str | None:
    """Why a quote is too short to count as evidence, or None if it is long enough."""
    normal = normalise(quote)
    if len(normal) < MIN_QUOTE_CHARS or len(normal.split()) < MIN_QUOTE_WORDS:
        return (
            f"the evidence quote is too short to support a claim (at least "
            f"{MIN_QUOTE_WORDS} words and {MIN_QUOTE_CHARS} characters)"
        )
    return None


def find_quote(quote: str, turns: Iterable[Turn], *, roles: Sequence[str]) -> Turn | None:
    """The first turn by one of ``roles`` that contains ``quote`` verbatim (see module doc)."""
    if quote_problem(quote) is not None:
        return None
    needle = normalise(quote)
    for turn in turns:
        if turn.role in roles and needle in normalise(turn.content):
            return turn
    return None


def find_evidence(
    quote: str, turns: Sequence[Turn], *, roles: Sequence[str]
) -> tuple[Turn | None, str | None]:
    """The first turn by one of ``roles`` that contains ``quote`` verbatim and can vouch for
    it; else None and why the turns that contain it cannot (None: no turn contains it)."""
    if quote_problem(quote) is not None:
        return None, None
    needle = normalise(quote)
    problem = None
    for turn in turns:
        if turn.role in roles and needle in normalise(turn.content):
            unfit = vouching_problem(turn, quote, turns)
            if unfit is None:
                return turn, None
            problem = problem or unfit  # the first turn's reason
    return None, problem


def vouching_problem(turn: Turn, quote: str, turns: Sequence[Turn]) -> str | None:
    """Why ``turn`` cannot vouch for ``quote`` as more than an inference, or None. Only tool
    turns are restricted here; which role backs which source is the ingestor's rule."""
    if turn.role != "tool":
        return None
    if turn.tool is None:
        return "the tool turn does not say which tool produced it"
    if not turn.authoritative:
        return f"the host does not name the tool {turn.tool!r} authoritative"
    if echoes_model(quote, turn, turns):
        return f"the output of {turn.tool!r} repeats what the model itself wrote earlier"
    return None


def echoes_model(text: str, turn: Turn, turns: Sequence[Turn]) -> bool:
    """Whether ``text`` (found in ``turn``) only repeats words the model wrote before that
    turn: every word trigram of it occurs in an earlier assistant turn (see module doc)."""
    earlier = [t.content for t in turns if t.role == "assistant" and t.seq < turn.seq]
    return repeats(text, earlier)


def repeats(text: str, said: Sequence[str]) -> bool:
    """Whether every word trigram of ``text`` (its words, when it has fewer than three)
    occurs in one of ``said``, compared normalised: ``text`` says nothing they did not."""
    words = _WORD.findall(normalise(text))
    if not words or not said:
        return False
    spoken = [f" {' '.join(_WORD.findall(normalise(s)))} " for s in said]
    size = min(3, len(words))
    grams = {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}
    return all(any(f" {g} " in s for s in spoken) for g in grams)


# -- the write's evidence stage ------------------------------------------------------------------

# Which transcript roles can vouch for which claimed source.
EVIDENCE_ROLES: dict[SourceKind, tuple[str, ...]] = {
    SourceKind.USER_STATEMENT: ("user",),
    SourceKind.TOOL_RESULT: ("tool",),
    SourceKind.SYSTEM: ("system",),
}
# Turns whose words can count toward promoting a provisional record: the user's own and the
# host's. A tool turn counts only when its quote verified as a tool_result (an authoritative
# tool): other tool output may be the model's own words echoed back.
WITNESS_ROLES = ("user", "system")
# A quote the judge does not find entailing the content counts toward promotion only when it is
# about the content: its packaged-embedder cosine with the content at least this. Unrelated
# user words ("My favourite colour is teal" for "The user is expecting twins.") score below
# 0.1 on all-MiniLM-L6-v2; weak but real support ("Just the veggie burger for me" for "The
# user is vegetarian.") about 0.32.
WITNESS_FLOOR = 0.3


@dataclass(frozen=True, slots=True)
class EvidenceCheck:
    """What a write's evidence supports (``check``)."""

    source_kind: SourceKind
    evidence: str | None  # the quote to store, or None
    notes: list[str]  # why the claimed source was lowered, if it was
    turn: Turn | None = None  # the transcript turn the quote was found in


@dataclass(frozen=True, slots=True)
class Witness:
    """What one observation of a record rests on, as the observations table keeps it: the
    turn its quote was found in and a digest of the normalised quote (never the quote)."""

    session_id: str | None
    turn_seq: int
    turn_role: str
    digest: str
    counts: bool  # whether it can count toward promotion (see ``witness``)


def check(
    judge: Judge,
    claimed: SourceKind,
    quote: str | None,
    content: str,
    transcript: Sequence[Turn],
) -> EvidenceCheck:
    """What the evidence supports: the source kind, the evidence to store, the turn it was
    found in, and notes on any downgrade. Conservative: anything unproven becomes
    agent_inference."""
    notes: list[str] = []
    if claimed is SourceKind.SESSION_SUMMARY:
        notes.append(
            "session_summary is written only by the end-of-session summary; stored as "
            "agent_inference"
        )
        claimed = SourceKind.AGENT_INFERENCE
    roles = EVIDENCE_ROLES.get(claimed)
    if roles is None:  # agent_inference: evidence optional, kept only if it is verbatim
        turn = None
        if quote:
            turn = find_quote(quote, transcript, roles=("user", "tool", "system"))
            if turn is None:
                notes.append("evidence not found verbatim in this session's transcript; dropped")
                quote = None
        return EvidenceCheck(claimed, quote, notes, turn)
    downgrade = f"source_kind {claimed.value} became agent_inference"
    if not quote:
        notes.append(f"no evidence quote was given, so {downgrade}")
        return EvidenceCheck(SourceKind.AGENT_INFERENCE, None, notes)
    if (problem := quote_problem(quote)) is not None:
        notes.append(f"{problem}, so {downgrade}")
        return EvidenceCheck(SourceKind.AGENT_INFERENCE, None, notes)
    turn, unfit = find_evidence(quote, transcript, roles=roles)
    if turn is None:
        where = " or ".join(roles)
        notes.append(
            f"{unfit}, so {downgrade}"
            if unfit
            else f"the evidence quote was not found verbatim in a {where} turn of this "
            f"session's transcript, so {downgrade}"
        )
        found_elsewhere = find_quote(
            quote, transcript, roles=("user", "assistant", "tool", "system")
        )
        return EvidenceCheck(
            SourceKind.AGENT_INFERENCE, quote if found_elsewhere else None, notes, found_elsewhere
        )
    verdict = judge.entails(quote, content, context=turn.content)
    if verdict.holds and (undone := _taken_back(turn, transcript)) is not None:
        notes.append(f"the quote does not stand ({undone}), so {downgrade}")
        return EvidenceCheck(SourceKind.AGENT_INFERENCE, quote, notes, turn)
    if not verdict.holds:
        notes.append(f"the quote does not entail the content ({verdict.reason}), so {downgrade}")
        return EvidenceCheck(SourceKind.AGENT_INFERENCE, quote, notes, turn)
    return EvidenceCheck(claimed, quote, notes, turn)


def _taken_back(turn: Turn, transcript: Sequence[Turn]) -> str | None:
    """Why the same role's next turn takes ``turn`` back as it opens, or None."""
    later = (t for t in transcript if t.seq > turn.seq and t.role == turn.role)
    following = next(later, None)
    return None if following is None else judged_context.takes_back(following.content)


def witness(
    judge: Judge,
    checked: EvidenceCheck,
    content: str,
    session_id: str | None,
    similarity: Callable[[str, str], float] | None = None,
) -> Witness | None:
    """The observation's evidence, for the promotion rule (core.write.reinforce): the turn
    its quote was found in and the quote's digest. It counts toward promotion when the quote
    verified a stronger source, or when the turn is the user's or the host's (WITNESS_ROLES),
    the turn does not void the quote (fiction, someone else's claim, a hedge, a retraction:
    core.judge.context), the judge does not find it contradicting the content, and it is about
    the content (entailed, or ``similarity`` at least WITNESS_FLOOR): two arbitrary user
    sentences are not two observations of a guess. None without a quote found in the
    transcript."""
    turn, quote = checked.turn, checked.evidence
    if turn is None or not quote:
        return None
    if checked.source_kind is not SourceKind.AGENT_INFERENCE:
        counts = not judge.contradicts(quote, content).holds
    else:
        counts = (
            turn.role in WITNESS_ROLES
            and judged_context.read(quote, turn.content, content).refusal is None
            and not judge.contradicts(quote, content).holds
            and _about(judge, quote, content, turn.content, similarity)
        )
    digest = hashlib.sha256(normalise(quote).encode()).hexdigest()[:32]
    return Witness(session_id, turn.seq, turn.role, digest, counts)


def _about(
    judge: Judge,
    quote: str,
    content: str,
    context: str,
    similarity: Callable[[str, str], float] | None,
) -> bool:
    """Whether the quote speaks to the content at all (see ``witness``)."""
    if similarity is not None and similarity(quote, content) >= WITNESS_FLOOR:
        return True
    return judge.entails(quote, content, context=context).holds


def stated_at(checked: EvidenceCheck, now: datetime) -> str:
    """When the statement was made: its evidence turn's time, else the write's."""
    if checked.turn is not None and checked.evidence:
        return checked.turn.at
    return format_time(now)

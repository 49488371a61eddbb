"""Review and validation rules of session extraction (design §6 Path B): what a reviewer's
decision may change, and what a reviewed candidate must satisfy before the ingestor sees it.

- ``apply_review``: the candidates that survive the reviewer, fail-closed.
- ``widening``: a revision may narrow content or dates or lower the source kind; it may never
  raise the source kind, bring evidence that is not part of the quote, change the target
  (scope) or change the primary entity.
- ``validate_candidate``: design §6 list 1, 4 (with the ingestor) and 5: evidence verbatim or
  reject; target writable; a verbatim statement episodic and word for word its evidence
  (tagged ``verbatim``); temporal fields only when the evidence turn has the matching
  expression; instruction-override text in the evidence turn caps the source at
  agent_inference; the evidence turn (its day and words) becomes the record's retrieval
  context (``retrieval_context``). Duplicates and contradictions (2, 3) are the ingestor's.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from agent_memory.core import policy, temporal
from agent_memory.core.errors import InvalidArgument, ModelOutputError
from agent_memory.core.extraction.refusals import INJECTION
from agent_memory.core.extraction.schema import Candidate, ReviewDecision, ReviewOutput, Revision
from agent_memory.core.extraction.verbatim import unchanged
from agent_memory.core.framing import tells_a_secret
from agent_memory.core.models import (
    EntityKind,
    MemoryType,
    Procedure,
    Record,
    Scope,
    ScopeKind,
    SourceKind,
    format_time,
    parse_time,
)
from agent_memory.core.sentences import sentence_spans
from agent_memory.core.tools.handlers import writable_record
from agent_memory.core.write.drafts import WriteRequest
from agent_memory.core.write.entities import EntityRef
from agent_memory.core.write.evidence import Turn, find_quote, normalise
from agent_memory.core.write.stale import QUALIFIED_TAG, VERBATIM_TAG

if TYPE_CHECKING:
    from agent_memory.core.session import Session

ALL_ROLES = ("user", "assistant", "tool", "system")
# At most this much of an evidence turn enters a record's retrieval context: the embedder reads
# 256 tokens (about 1,000 characters) of content and context together anyway.
CONTEXT_CHARS = 1200


def stored_candidates(raw: Sequence[Any]) -> tuple[list[Candidate], int]:
    """The candidates a stage stored for the next one, each validated on its own: one that no
    longer validates (stored by an older version with other limits) is dropped and counted,
    not allowed to fail the job."""
    kept: list[Candidate] = []
    for item in raw:
        try:
            kept.append(Candidate.model_validate(item))
        except ValidationError:
            continue
    return kept, len(raw) - len(kept)


# Which candidates a long session keeps first when extraction.max_candidates cuts it: what
# the user said outranks what a tool reported, which outranks the system and inferences.
_KEEP_FIRST = ("user_statement", "tool_result", "system", "agent_inference")


def select_candidates(
    candidates: Sequence[Candidate], limit: int, turns: Sequence[Turn]
) -> tuple[list[Candidate], dict[str, Any]]:
    """Keep at most ``limit`` candidates: the user's own statements first, then tool
    results, then the rest, each in transcript order; the kept ones stay in their original
    order. Returns them and a report of the cut (empty when nothing was cut): how many were
    dropped, of which source kinds, and from which turns (their seq numbers)."""
    if len(candidates) <= limit:
        return list(candidates), {}
    ranked = sorted(
        range(len(candidates)),
        key=lambda i: (_KEEP_FIRST.index(candidates[i].source_kind), i),
    )
    kept = set(ranked[:limit])
    dropped = [candidates[i] for i in range(len(candidates)) if i not in kept]
    seqs = []
    for candidate in dropped:
        turn = find_quote(candidate.evidence, turns, roles=ALL_ROLES)
        if turn is not None:
            seqs.append(turn.seq)
    kinds: dict[str, int] = {}
    for candidate in dropped:
        kinds[candidate.source_kind] = kinds.get(candidate.source_kind, 0) + 1
    report = {
        "limit": limit,
        "proposed": len(candidates),
        "dropped": len(dropped),
        "dropped_by_source_kind": kinds,
        "dropped_turns": sorted(set(seqs)),
    }
    return [candidates[i] for i in sorted(kept)], report


def apply_review(
    candidates: Sequence[Candidate],
    review: ReviewOutput,
    shown: Sequence[Collection[str]] = (),
) -> tuple[list[Candidate], list[dict[str, Any]]]:
    """The candidates that survive review, and one logged decision per candidate. A decision
    for an unknown index, or two for one candidate, make the whole output invalid
    (ModelOutputError: nothing is written); a candidate without a decision is rejected, and
    so is one that would replace a record the reviewer was not shown for it (``shown``: the
    related record ids per candidate index)."""
    by_index: dict[int, ReviewDecision] = {}
    for decision in review.decisions:
        if decision.index >= len(candidates):
            raise ModelOutputError(
                f"a decision for candidate {decision.index}, but there are {len(candidates)}",
                role="reviewer",
            )
        if decision.index in by_index:
            raise ModelOutputError(f"two decisions for candidate {decision.index}", role="reviewer")
        by_index[decision.index] = decision
    accepted: list[Candidate] = []
    logged: list[dict[str, Any]] = []
    for index, candidate in enumerate(candidates):
        found = by_index.get(index)
        kept_before = len(accepted)
        entry: dict[str, Any] = {"index": index, "content": candidate.content}
        if found is None:
            entry.update(verdict="reject", reason="the reviewer gave no decision (fails closed)")
            logged.append(entry)
            continue
        decision = found
        if decision.verdict == "accept":
            entry.update(verdict="accept", reason=decision.reason)
            accepted.append(candidate)
        elif decision.verdict == "reject":
            entry.update(verdict="reject", reason=decision.reason)
        elif decision.revision is None:
            entry.update(verdict="reject", reason="a revision without revised fields")
        elif (problem := widening(candidate, decision.revision)) is not None:
            entry.update(verdict="reject", reason=f"revision refused: {problem}")
        else:
            revised = revise(candidate, decision.revision)
            entry.update(verdict="revise", reason=decision.reason, revised=revised.content)
            if revised.replaces is not None:
                entry["replaces"] = revised.replaces
            if revised.retires:
                entry["retires"] = list(revised.retires)
            if revised.outdated_by is not None:
                entry["outdated_by"] = revised.outdated_by
            accepted.append(revised)
        if len(accepted) > kept_before and not _replaces_shown(accepted[-1], shown, index):
            accepted.pop()
            entry.update(verdict="reject", reason="it would replace a record it was not shown")
        logged.append(entry)
    return accepted, logged


def _replaces_shown(candidate: Candidate, shown: Sequence[Collection[str]], index: int) -> bool:
    """Whether the records ``candidate`` would replace or retire, or be the history of, if
    any, are ones the reviewer was shown for it: a model may correct only what it saw, never
    an id it made up or read elsewhere. Retiring needs a record it replaces."""
    named = [*([candidate.replaces] if candidate.replaces is not None else []), *candidate.retires]
    if candidate.retires and candidate.replaces is None:
        return False
    if candidate.outdated_by is not None:
        named.append(candidate.outdated_by)
    return not named or (index < len(shown) and all(n in shown[index] for n in named))


def widening(candidate: Candidate, revision: Revision) -> str | None:
    """Why ``revision`` would widen rather than narrow ``candidate``, or None."""
    if revision.source_kind is not None and policy.source_rank(
        SourceKind(revision.source_kind)
    ) > policy.source_rank(SourceKind(candidate.source_kind)):
        return f"it raises the source from {candidate.source_kind} to {revision.source_kind}"
    if revision.evidence is not None and normalise(revision.evidence) not in normalise(
        candidate.evidence
    ):
        return "it brings new evidence (a revision may only shorten the quote)"
    if revision.target is not None and revision.target != candidate.target:
        return f"it moves the record from {candidate.target} to {revision.target}"
    if revision.about is not None:
        before = _primary(candidate.about)
        after = _primary(revision.about)
        if before != after:
            return "it changes the primary entity"
    return None


def revise(candidate: Candidate, revision: Revision) -> Candidate:
    changes = revision.model_dump(exclude_none=True)
    return Candidate.model_validate({**candidate.model_dump(), **changes})


def _primary(about: Sequence[Any]) -> tuple[str, str] | None:
    if not about:
        return None
    return about[0].kind, normalise(about[0].name)


# ---------------------------------------------------------------------------------------------
# Validation (design §6 list 1-5; dedup, supersession and status are the ingestor's)


# The day a retrieval context opens with ("07 December 2026").
_DAY = re.compile(r"^\d{2} [A-Z][a-z]+ \d{4}\s+")


def retrieval_context(turn: Turn, evidence: str) -> str:
    """A record's retrieval context (core.models.Record.context: searched and embedded after
    the content, never returned): the day of its evidence turn and that turn's words. A record
    keeps one sentence or one phrased fact, and the words that make it findable are often
    beside it in the same turn ("any ideas for keeping a corgi entertained? Biscuit is losing
    his mind" keeps the second sentence; the question names the corgi). A turn longer than
    ``CONTEXT_CHARS`` is cut to that many characters around the evidence. A sentence telling a
    credential ("My password is hunter2.", core.framing.tells_a_secret) is left out: the
    extractor keeps none, and a context is searched."""
    text = turn.content
    told = [text[a:b] for a, b in sentence_spans(text)]
    if len(kept := [s for s in told if not tells_a_secret(s)]) < len(told):
        text = " ".join(kept)
    if len(text) > CONTEXT_CHARS:
        at = max(text.find(evidence), 0)
        start = max(0, min(at - CONTEXT_CHARS // 2, len(text) - CONTEXT_CHARS))
        text = text[start : start + CONTEXT_CHARS]
    return f"{parse_time(turn.at, field='at'):%d %B %Y}\n{text}"


def turn_words(context: str) -> str:
    """The turn's words of a retrieval context (``retrieval_context``): without its day."""
    return _DAY.sub("", context, count=1)


def validate_candidate(
    candidate: Candidate,
    *,
    session: Session,
    turns: Sequence[Turn],
    key: str,
    now: datetime | None = None,
) -> tuple[WriteRequest, list[str]]:
    """The write request for a reviewed candidate, and notes on what was dropped. Raises
    InvalidArgument (the candidate is rejected) when its evidence is not verbatim in the
    transcript, its target is not writable, or it is malformed."""
    notes: list[str] = []
    turn = find_quote(candidate.evidence, turns, roles=ALL_ROLES)
    if turn is None:
        raise InvalidArgument(
            "the evidence span is not found verbatim in the transcript", field="evidence"
        )
    scope = session.write_targets.get(candidate.target)
    if scope is None or scope not in session.writable_scopes():
        raise InvalidArgument(
            f"the write target {candidate.target!r} is not writable in this session",
            field="target",
        )
    memory_type = MemoryType(candidate.type)
    if candidate.kind == "statement":
        _check_statement(candidate, turn)
    procedure = None
    if memory_type is MemoryType.PROCEDURAL:
        if candidate.procedure is None:
            raise InvalidArgument("a procedural candidate without its procedure", field="type")
        procedure = Procedure(
            candidate.procedure.name,
            candidate.procedure.when,
            tuple(candidate.procedure.steps),
            tuple(candidate.procedure.pitfalls),
        )
    anchor = parse_time(turn.at, field="at")
    dates: dict[str, str | None] = {}
    for name in ("valid_from", "valid_until", "review_at", "event_at"):
        value = getattr(candidate, name)
        dates[name] = None
        if value is None:
            continue
        try:
            moment = parse_time(value, field=name)
        except InvalidArgument:
            notes.append(f"{name} {value!r} is not a date; dropped")
            continue
        expression = temporal.supports(moment.date(), turn.content, anchor)
        if expression is None:
            notes.append(
                f"{name} {value} dropped: the evidence turn has no date expression that means it"
            )
            continue
        dates[name] = format_time(moment)
    if dates["valid_from"] and dates["valid_until"] and dates["valid_until"] < dates["valid_from"]:
        notes.append("valid_until is before valid_from; both dropped")
        dates["valid_from"] = dates["valid_until"] = None
    about = tuple(EntityRef(EntityKind(a.kind), a.name) for a in candidate.about)
    source_kind = SourceKind(candidate.source_kind)
    if source_kind is not SourceKind.AGENT_INFERENCE and INJECTION.search(turn.content):
        notes.append(
            "the evidence turn holds text that tries to instruct the memory system, so "
            f"source_kind {source_kind.value} became agent_inference"
        )
        source_kind = SourceKind.AGENT_INFERENCE
    named = partial(
        _named, session=session, scope=scope, notes=notes, now=now or anchor, at=turn.at
    )
    replaced = named(candidate.replaces)
    retired = tuple(
        r
        for r in (named(i, role="retires") for i in candidate.retires)
        if r is not None and replaced is not None and r.id != replaced.id
    )
    newer = named(candidate.outdated_by, role="outdated_by")
    request = WriteRequest(
        type=memory_type,
        content=candidate.content,
        source_kind=source_kind,
        scope=scope,
        agent_id=session.agent_id,
        user_id=session.user_id,
        session_id=session.session_id,
        attribute=candidate.attribute,
        evidence=candidate.evidence,
        about=about,
        # An episode happened when it was said, unless the evidence dates it (a plan's day).
        event_at=dates["event_at"] or (turn.at if memory_type is MemoryType.EPISODIC else None),
        valid_from=dates["valid_from"],
        valid_until=dates["valid_until"],
        review_at=dates["review_at"],
        procedure=procedure,
        tags=_tags(candidate),
        context=(
            retrieval_context(turn, candidate.evidence)
            if _owned_by(scope, session.user_id)
            else None
        ),
        idempotency_key=key,
        replaces=replaced,
        retires=retired,
        outdated_by=newer,
        own_keeps=tuple(unchanged(candidate.evidence, newer.evidence or newer.content))
        if newer is not None and candidate.kind == "statement"
        else (),
        keeps=_keeps(candidate, (replaced, *retired)),
    )
    return request, notes


def _keeps(candidate: Candidate, records: Sequence[Record | None]) -> dict[str, tuple[str, ...]]:
    """What a correction leaves of each verbatim statement it retires (``unchanged``), by
    record id: "Theo is 7 and Lara is 3." of "In July we go to Portugal ..., Theo is 7 and
    Lara is 3." when the trip is off."""
    kept = {}
    for record in records:
        if record is None or VERBATIM_TAG not in record.tags or record.evidence != record.content:
            continue
        if parts := unchanged(record.content, candidate.evidence):
            kept[record.id] = tuple(parts)
    return kept


def _owned_by(scope: str, user_id: str) -> bool:
    """Whether ``scope`` is the user's own (user:<id>, or an agent's private one for them).
    Only there does a record carry its turn as context: the turn may hold words the readers of
    a shared scope could never read, and the context is searched and embedded for all of them
    (a word of the turn found the record for another user's query)."""
    parsed = Scope.parse(scope)
    if parsed.kind is ScopeKind.USER:
        return parsed.id == user_id
    return parsed.user_id == user_id


def _named(
    record_id: str | None,
    *,
    session: Session,
    scope: str,
    notes: list[str],
    now: datetime,
    at: str,
    role: str = "replaces",
) -> Record | None:
    """The live record the reviewer named for the candidate (``role``: one it ``replaces`` or
    ``retires``, or the newer one it is ``outdated_by``), when this agent may change it, it is
    in the candidate's own scope and it was stated no later than the candidate's turn
    (``at``), or after it for ``outdated_by``: words said before a record correct none of
    it. Otherwise None, with a note (the candidate is still written, as a record of its own)."""
    if record_id is None:
        return None
    try:
        record = writable_record(session.tool_context(), record_id, now=now)
    except InvalidArgument as exc:
        notes.append(f"{role} {record_id} dropped: {exc.message}")
        return None
    if record.scope != scope:
        notes.append(f"{role} {record_id} dropped: it is in another scope")
        return None
    later = parse_time(record.statement_time, field="stated_at") > parse_time(at, field="at")
    if later != (role == "outdated_by"):
        when = "after" if later else "no later than"
        notes.append(f"{role} {record_id} dropped: it was stated {when} this candidate's turn")
        return None
    return record


def _check_statement(candidate: Candidate, turn: Turn) -> None:
    """A verbatim statement is what the user said, kept as an episode: never a semantic fact
    (its words are not phrased as one), never anything but its own evidence, and never the
    words of another role (an assistant's or a tool's text is no one's statement)."""
    if turn.role != "user":
        raise InvalidArgument(
            f"a verbatim statement must quote a user turn, not a {turn.role} turn",
            field="evidence",
        )
    if candidate.type != "episodic":
        raise InvalidArgument(
            f"a verbatim statement is an episode, not {candidate.type}", field="type"
        )
    if normalise(candidate.content) != normalise(candidate.evidence):
        raise InvalidArgument(
            "a verbatim statement's content must be its evidence, word for word", field="content"
        )


def summary_scope(session: Session) -> str:
    """Where the session summary goes: the personal target when the agent may write it, else
    the agent-user pair's private scope (always writable)."""
    personal = session.write_targets.get("personal")
    if personal is not None and personal in session.writable_scopes():
        return personal
    return str(Scope.private(session.agent_id, session.user_id))


def _tags(candidate: Candidate) -> tuple[str, ...]:
    """A verbatim statement's tags: ``verbatim``, and ``qualified`` when its other words
    qualify the claim a rule phrased of it (``Candidate.qualified``: it retires nothing)."""
    if candidate.kind != "statement":
        return ()
    return (VERBATIM_TAG, QUALIFIED_TAG) if candidate.qualified else (VERBATIM_TAG,)


__all__ = [
    "ALL_ROLES",
    "VERBATIM_TAG",
    "apply_review",
    "revise",
    "stored_candidates",
    "summary_scope",
    "turn_words",
    "validate_candidate",
    "widening",
]

"""Conversation import: ``Memory.import_conversation`` and ``agent-memory import-conversation``.

Each turn of one conversation session becomes an episodic record: its content is the turn as
said (``"<speaker or role>: <text>"``), its ``source_ref`` the host's turn id, its ``event_at``
and ``stated_at`` the turn's time (so search orders turns by when they were said, however and
whenever the host imports them: core.search.later). A turn alone is often too short to find
("Yes, the red one"), so every record also carries retrieval context (searched by BM25 and
embedded after the content, never returned): the turn's date and excerpts of the turns just
before it in the same call, that is the same session. This is exactly what ``agent-memory
eval`` imports for LoCoMo and LongMemEval, so a host gets what the evaluation measures.

Search reads two more things from such records (core.search.retriever): a found turn whose context
quotes another found turn credits it with part of its score, and the quoted turn credits its
reply (``retrieval.quoted_turn_share``, ``reply_turn_share``; ``quotes`` below says what
counts as quoting); a question naming a speaker ranks that speaker's turns by the rest of
the question (the entity generator); and each record is tagged with its turn's role
(``role:user``, ``role:assistant``, ...), so that for a question about the user or the world
an assistant turn keeps only part of its score (the role prior,
``retrieval.assistant_turn_factor``): the assistant's restatement of what the user said
(whose context quotes the user's turn) otherwise outranks the user's own statement, and
when the two are near-duplicates the user's is collapsed into it. A question asking what
the assistant said (``asks_what_the_assistant_said``) keeps every turn's score.

Rules and limits:
- One call is one session, in the order given; context never crosses calls.
- Every turn is validated before anything is written (see ``ConversationTurn``); one bad turn,
  or two turns with the same id, reject the whole call and the store is unchanged.
- A turn with a ``speaker`` is about that person (a person entity in the target scope, found
  by exact alias or created), as a host importing a conversation between named people would
  record it; without one, the role labels the turn and no entity is linked.
- Records are ``source_kind: system``: the host vouches that the words were said, not that
  they are true, so they are confirmed and never expire, whichever role said them.
- A turn longer than the importer's content limit (8,000 characters) is stored cut to it; the
  embedder reads far less than that anyway.
- Like any import, nothing is reconciled with existing records (no dedup or supersession).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_memory.core.errors import InvalidArgument
from agent_memory.core.models import (
    MemoryType,
    Record,
    SourceKind,
    canonical_time,
    parse_time,
    validate_id,
)
from agent_memory.core.write import importer
from agent_memory.core.write.importer import MAX_CONTENT_CHARS

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine

# How many preceding turns of the session enter a turn's context, and at most how many
# characters of each: enough to say what a short reply answers, not so much that a long
# preceding answer's vocabulary lets the record match queries about that answer. Chosen on
# the dev sets: 300 instead of 1,000 found more LongMemEval-S turns and left LoCoMo within
# noise (README.md, "Retrieval quality"; benchmarks/README.md, "Figures moved from code
# comments").
CONTEXT_TURNS = 2
CONTEXT_EXCERPT = 300
MAX_TEXT_CHARS = 100_000  # a turn longer than this is refused, not cut: it is not a turn
_CONTEXT_DATE = "%d %B %Y"  # how a turn's context opens: its session's date
ROLE_TAG = "role:"  # each turn record is tagged with its role: role:user, role:assistant, ...

# A question about what the assistant itself said in an earlier conversation ("you
# recommended ...", "did you ...", "our previous chat", "remind me ..."): the assistant's
# turns are its answer, so the role prior (core.search.ranking.role_prior) stays off. Past
# tenses only: "can you suggest ..." asks for something new, about the user.
_SAID = (
    r"said|told|suggested|recommended|mentioned|gave|provided|listed|shared|explained|"
    r"advised|proposed|wrote|came up with|answered|described|called|named|offered|showed|"
    r"quoted|found|brought up|pointed (?:me|us) (?:to|at)|talked about|were telling|"
    r"walked (?:me|us) through|went over|sent|linked"
)
# ... naming the assistant's words themselves (what the assistant's kept words answer:
# core.extraction.replies), or only "remind me", which as often asks for the user's own fact
# ("Remind me what my insurance provider is").
_NAMES_ITS_WORDS = re.compile(
    rf"\b(?:you|u)\s+(?:just\s+|had\s+|have\s+|also\s+|once\s+|previously\s+|earlier\s+)?"
    rf"(?:{_SAID})\b"
    r"|\bdid (?:you|u)\b"
    r"|\byour\s+(?:previous\s+|earlier\s+|last\s+)?"
    r"(?:suggestion|recommendation|advice|answer|list|idea|tip|response|reply|message|"
    r"thoughts|take)s?\b"
    r"|\bour\s+(?:previous\s+|last\s+|earlier\s+|other\s+)?"
    r"(?:chat|conversation|discussion|talk|exchange)s?\b"
    r"|\blast time (?:we|you|i) (?:chatted|talked|spoke)\b",
    re.IGNORECASE,
)
_REMIND = re.compile(r"\bremind me\b", re.IGNORECASE)


# A question about a conversation itself ("what did we talk about on Monday?", "what were we
# discussing", "when did we discuss the budget?", "what did I ask you about my laptop?",
# "summarise our last chat"): a session summary is its answer, so the summary prior
# (core.search.ranking.role_prior) stays off and no summary is collapsed
# (core.search.siblings.summaries). Not "go over", "cover", "recap", a bare "I asked" or
# "I mentioned": "Which bridges did we go over?", "What do we cover in the insurance?",
# "What did I ask my landlord for?" ask about facts.
_ASKS_CONVERSATION = re.compile(
    r"\b(?:we|i|you)\s+(?:\w+\s+)?(?:talk(?:ed|ing)?|discuss(?:ed|ing)?|chat(?:ted|ting)?|"
    r"spoke|speak|(?:ask(?:ed)?|told|tell)\s+you|mention(?:ed)?\s+(?:\w+\s+)?to\s+you)\b"
    r"|\b(?:conversation|chat|discussion|session)s?\b"
    r"|\bsummar(?:y|ies|i[sz]e)\b",
    re.IGNORECASE,
)


class ConversationTurn(BaseModel):
    """One turn as a host sends it. Unknown fields are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=1000)
    role: Literal["user", "assistant", "tool", "system"]
    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    speaker: str | None = Field(None, min_length=1, max_length=200)
    at: str

    @field_validator("text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text is blank")
        return value

    @field_validator("speaker")
    @classmethod
    def _speaker(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("speaker is blank")
        return value.strip() if value is not None else None

    @field_validator("at", mode="before")
    @classmethod
    def _time(cls, value: object) -> str:  # ISO 8601 text, or an aware datetime from Python
        return canonical_time(value, field="at")

    @property
    def label(self) -> str:
        return self.speaker or self.role


def validate_turns(
    turns: Iterable[Mapping[str, Any]], *, labels: Sequence[str] | None = None
) -> list[ConversationTurn]:
    """Validate every turn or raise InvalidArgument naming the first bad one (as
    ``labels[position]`` when given, else ``turn N``, 0-based). Turn ids must be unique: they
    are how the host maps results back to its turns."""
    parsed: list[ConversationTurn] = []
    seen: dict[str, int] = {}
    for position, raw in enumerate(turns):
        name = labels[position] if labels is not None else f"turn {position}"
        if not isinstance(raw, Mapping):
            raise InvalidArgument(f"{name}: must be a JSON object", field="turns")
        try:
            turn = ConversationTurn.model_validate(dict(raw))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(p) for p in error["loc"]) or "turn"
            raise InvalidArgument(f"{name}: {where}: {error['msg']}", field=where) from None
        except InvalidArgument as exc:
            raise InvalidArgument(f"{name}: {exc.message}", field=exc.field) from None
        if turn.id in seen:
            raise InvalidArgument(
                f"{name}: id repeats the id of turn {seen[turn.id]}; turn ids must be unique",
                field="id",
            )
        seen[turn.id] = position
        parsed.append(turn)
    return parsed


def turn_records(turns: Sequence[ConversationTurn]) -> list[dict[str, Any]]:
    """The import records of one session's turns (core.write.importer's item shape), in order."""
    records = []
    for i, turn in enumerate(turns):
        before = turns[max(0, i - CONTEXT_TURNS) : i]
        context = f"{parse_time(turn.at, field='at'):{_CONTEXT_DATE}}\n" + "\n".join(
            f"{t.label}: {t.text}"[:CONTEXT_EXCERPT] for t in before
        )
        record: dict[str, Any] = {
            "type": "episodic",
            "source_kind": "system",
            "source_ref": turn.id,
            "event_at": turn.at,
            "stated_at": turn.at,
            "content": f"{turn.label}: {turn.text}"[:MAX_CONTENT_CHARS],
            "context": context[:MAX_CONTENT_CHARS],
            "tags": [ROLE_TAG + turn.role],
        }
        if turn.speaker is not None:
            record["about"] = [{"kind": "person", "name": turn.speaker}]
        records.append(record)
    return records


def quotes(context: str | None, content: str) -> bool:
    """Whether a record's retrieval ``context`` quotes a turn stored with ``content``: holds
    its excerpt as one of its lines, as ``turn_records`` writes the turns before a turn. The
    retriever uses it to credit neighbouring turns (core.search.ranking.context_credit)."""
    if not context or not content:
        return False
    return f"\n{content[:CONTEXT_EXCERPT]}\n" in f"{context}\n"


def quoting_pairs(ids: Sequence[str], records: Mapping[str, Record]) -> list[tuple[str, str]]:
    """(quoting, quoted) for each pair of the records ``ids`` names where the first's
    retrieval context quotes the second (``quotes``), in the order of ``ids``."""
    contexts = [(rid, context) for rid in ids if (context := records[rid].context)]
    return [
        (quoting, quoted)
        for quoting, context in contexts
        for quoted in ids
        if quoted != quoting and quotes(context, records[quoted].content)
    ]


def is_imported_turn(record: Record) -> bool:
    """Whether ``record`` has the shape ``turn_records`` gives a turn: episodic, source_kind
    system, with retrieval context. memory_write sets no context, so an agent's own role: tag
    on its note does not make it a turn (the role prior reads turns only)."""
    return (
        record.type is MemoryType.EPISODIC
        and record.source_kind is SourceKind.SYSTEM
        and record.context is not None
    )


def in_the_users_words(record: Record) -> bool:
    """Whether ``record`` holds the user's own words: a user statement, or an imported turn
    the user said; never a tool's, an agent's, an assistant turn's or a summary's text. What
    the user asked for or must not eat is read only there (core.search.standing, .diet)."""
    if is_imported_turn(record):
        return turn_role(record.tags) == "user"
    return record.source_kind is SourceKind.USER_STATEMENT


def dated_only(record: Record) -> str:
    """An imported turn's retrieval context cut to its first line, its session's date
    (``turn_records``): what it keeps when a turn it quotes is forgotten (core.erasure), so
    that it is still a turn (``is_imported_turn``) and holds none of the forgotten words. A
    first line that is not such a date (a context written some other way) is not kept: ""."""
    first = (record.context or "").split("\n", 1)[0]
    try:
        datetime.strptime(first, _CONTEXT_DATE)
    except ValueError:
        return ""
    return first + "\n"


def turn_text(record: Record) -> str:
    """The words of an imported turn, without the "<speaker or role>: " label its content
    opens with (``turn_records``)."""
    label, sep, text = record.content.partition(": ")
    return text if sep and label and "\n" not in label else record.content


def turn_role(tags: Iterable[str]) -> str | None:
    """The role of the conversation turn a record stores (its ``role:`` tag), else None."""
    for tag in tags:
        if tag.startswith(ROLE_TAG):
            return tag[len(ROLE_TAG) :]
    return None


def asks_what_the_assistant_said(query: str) -> bool:
    """Whether ``query`` asks what the assistant said before ("What was the restaurant you
    recommended?", "In our previous chat ...", "Can you remind me ..."), rather than about
    the user or the world ("What's my dog's name?", "When is Jess's wedding?")."""
    return _NAMES_ITS_WORDS.search(query) is not None or _REMIND.search(query) is not None


def names_what_the_assistant_said(query: str) -> bool:
    """Whether ``query`` names what the assistant said ("the restaurant you recommended",
    "your last answer", "did you ..."): ``asks_what_the_assistant_said`` without a bare
    "remind me". Only such a question reads the assistant's kept words
    (core.filters.RecordFilter.assistant_words)."""
    return _NAMES_ITS_WORDS.search(query) is not None


def asks_about_a_conversation(query: str) -> bool:
    """Whether ``query`` asks about a conversation itself ("What did we talk about last
    week?", "When did I discuss the move with you?", "Summarise our last session"), whose
    session summary is then the answer, rather than about a fact stated in one."""
    return _ASKS_CONVERSATION.search(query) is not None


def asks_about_talk(query: str) -> bool:
    """Whether ``query`` asks about a conversation or about what the assistant said in one:
    the session summaries are then answers of their own (core.search.siblings)."""
    return asks_about_a_conversation(query) or asks_what_the_assistant_said(query)


def import_conversation(
    engine: Engine,
    turns: Iterable[Mapping[str, Any]],
    *,
    scope: str,
    session_id: str | None = None,
    agent_id: str | None = None,
    batch_size: int = 256,
    now: datetime | None = None,
    labels: Sequence[str] | None = None,
) -> list[str]:
    """Validate ``turns`` (one session, in order), then import one episodic record per turn
    into ``scope``; returns the record ids in input order. ``session_id``, when given, is
    stored on every record (so the host can find a session's turns). Errors name the bad turn
    as ``turn N`` (0-based), or ``labels[N]`` (the command line passes file lines)."""
    turns = list(turns)
    if labels is not None and len(labels) != len(turns):
        raise ValueError(f"{len(labels)} labels for {len(turns)} turns")
    if session_id is not None:
        validate_id(session_id, what="session_id")
    records = turn_records(validate_turns(turns, labels=labels))
    return importer.import_records(
        engine,
        records,
        scope=scope,
        agent_id=agent_id,
        batch_size=batch_size,
        now=now,
        labels=labels,
        session_id=session_id,
    )

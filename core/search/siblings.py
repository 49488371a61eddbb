"""Records of one turn found only through that turn: the best one stands for them.

An extracted record keeps one sentence or one phrased fact of the user's turn, with the whole
turn as its retrieval context (core.extraction.validator.retrieval_context), so that a fact is
found by the words beside it. The price: every record of a turn is found by the turn's topic,
"The user is kind of freaking out." as well as "test is january 10." for "when is my lsat",
and they fill the answer with one turn's side remarks. So, after the duplicate collapse, a
result whose retrieval context is that of a better-ranked result (the same turn) stays only
when its own content also holds a query word (compared as stems) or, without one, means what
the query asks (its content alone, embedded at query time, at ``retrieval.sibling_own_cosine``
of the query: "the test is january 10." answers "lsat date" without sharing a word with it);
otherwise it is collapsed into the better one, which the explanation and the log name.
Records without context (tool writes, summaries) or without a session (import_records: a
context given there, "Medical history form", is no turn, and may be every record's) and
imported turns (each has its own preceding turns as context) are never siblings of anything;
nor are records of different scopes (a user's own record never hides behind a shared
project's, whose reader may not be the same).

A session's summary is the coarse view of the records its session wrote: the offline summary
lists the session's topic words and restates what it remembered, and its writer says so (the
summary is tagged core.extraction.base.RESTATING). Found below a record of its own session
(same scope), such a summary is collapsed into the best-ranked such record (``summaries``)
when it says nothing the session's live records do not (every word of it is in one of their
contents or retrieval contexts, which are the user's turns, its words about the conversation
itself aside) and every query word it holds is held by a result of its session above it.
So it stays when it is the only trace of something, such as a question turn that wrote no
record (a value since retired has left its list: core.write.remembered). A model's prose
summary is never collapsed: it may say what the assistant
advised in the user's own words ("the assistant said stay at Spotify"), which no word test
tells from a restatement. A summary whose session found nothing above it stays, and a
question about a conversation ("What were we talking about last week?",
core.write.conversation.asks_about_a_conversation) or about what the assistant said keeps
every summary (the retriever does not call ``summaries``). Personal dev set, extracted path:
hit@5 0.832 -> 0.838, compact answer 1,190 -> 980 characters, no answer lost; a first version
that collapsed any summary beside a record of its session lost what prose summaries said of
the assistant and dropped summaries into records an answer cut at the limit did not show
(benchmarks/README.md, "Session 23").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from agent_memory.core.extraction.base import RESTATING
from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.models import SourceKind
from agent_memory.core.search.lexical import STOPWORDS
from agent_memory.core.store.search_reads import session_texts

if TYPE_CHECKING:
    from agent_memory.core.models import Record
    from agent_memory.core.store.base import StoreBase as Store

_WORD = re.compile(r"\w+", re.UNICODE)


class Found(Protocol):
    """What the rule reads of a result (core.search.ranking.Candidate)."""

    @property
    def record_id(self) -> str: ...


C = TypeVar("C", bound=Found)


def stems(text: str) -> set[str]:
    """The stems of ``text``'s words that carry meaning (no stopwords, three letters up)."""
    words = (w.casefold() for w in _WORD.findall(text))
    return {stem_word(w) for w in words if len(w) >= 3 and w not in STOPWORDS}


def collapse(
    kept: list[C],
    records: Mapping[str, Record],
    words: Sequence[str],
    meant: Callable[[list[Record]], list[bool]] | None = None,
) -> tuple[list[C], dict[str, str]]:
    """``kept`` without the results collapsed into a better-ranked sibling (same retrieval
    context, no query word of their own, and not ``meant``: which of the records without a
    query word mean what the query asks; None: none), and {collapsed id: the sibling kept}."""
    asked = stems(" ".join(words))
    first: dict[tuple[str, str, str], str] = {}
    wordless: dict[str, str] = {}  # sibling without a query word -> the sibling before it
    for candidate in kept:
        record = records[candidate.record_id]
        if not record.context or not record.session_id:
            continue
        key = (record.scope, record.session_id, record.context)
        sibling = first.setdefault(key, candidate.record_id)
        if sibling != candidate.record_id and not asked & stems(record.content):
            wordless[candidate.record_id] = sibling
    if wordless and meant is not None:
        ids = list(wordless)
        for record_id, keep in zip(ids, meant([records[i] for i in ids]), strict=True):
            if keep:
                del wordless[record_id]
    return [c for c in kept if c.record_id not in wordless], wordless


# Words a summary uses about the conversation itself, not about what was said in it ("On 6
# May, assistant and the user had a conversation of 8 turns. Topics: ... Remembered: ..."):
# they tell a reader nothing a record of it lacks.
_FRAME = frozenset(
    stem_word(w)
    for w in (
        "conversation session chat exchange turn topic remembered user assistant agent"
    ).split()
)


def summaries(
    kept: list[C],
    records: Mapping[str, Record],
    words: Sequence[str],
    store: Store,
) -> tuple[list[C], dict[str, str]]:
    """``kept`` without the session summaries a better-ranked result of their own session
    stands for, and {collapsed summary id: that result}. What the session said is read from
    ``store``: the content and retrieval context of every live record it wrote into the
    summary's scope (core.store.search_reads.session_texts). A summary is collapsed only
    when it says nothing they do not (every stem of its content is among them, the words
    about the conversation itself and its agent's name aside) and every query word it holds
    is held by a result of its session ranked above it: then the answer loses a
    restatement. Only a summary its writer tagged RESTATING is ever collapsed."""
    asked = stems(" ".join(words))
    above: dict[tuple[str, str], list[str]] = {}  # (scope, session) -> its results so far
    collapsed: dict[str, str] = {}
    for candidate in kept:
        record = records[candidate.record_id]
        if not record.session_id:
            continue
        key = (record.scope, record.session_id)
        if record.source_kind is not SourceKind.SESSION_SUMMARY:
            above.setdefault(key, []).append(candidate.record_id)
            continue
        found = above.get(key)
        if not found or RESTATING not in record.tags:
            continue
        told = stems(record.content) - _FRAME - stems(record.creator_agent_id or "")
        shown = set().union(
            *(stems(f"{records[i].content} {records[i].context or ''}") for i in found)
        )
        if not (asked & told) - shown and not told - stems(" ".join(session_texts(store, *key))):
            collapsed[candidate.record_id] = found[0]
    return [c for c in kept if c.record_id not in collapsed], collapsed


def replay(log: Mapping[str, Any], kept: list[C]) -> list[C]:
    """``kept`` without the siblings and summaries the logged search collapsed (older rows:
    unchanged)."""
    logged = log.get("siblings", {})
    collapsed = {**logged.get("collapsed", {}), **logged.get("summaries", {})}
    return [c for c in kept if c.record_id not in collapsed]


def explain(record_id: str, collapsed: Mapping[str, str], summaries: Mapping[str, str]) -> str:
    """The result explanation's line: which siblings and session summaries it stands for."""
    into = [i for i, kept in collapsed.items() if kept == record_id]
    summary = [i for i, kept in summaries.items() if kept == record_id]
    parts = []
    if into:
        parts.append(
            "stands for records of the same turn found only through that turn (no query word "
            f"in their own content): {', '.join(into)}"
        )
    if summary:
        parts.append(
            "stands for its session's summary, ranked below it and saying nothing its "
            f"session's records do not: {', '.join(summary)}"
        )
    return "; ".join(parts) or "no sibling of its turn collapsed into it"


__all__ = ["collapse", "explain", "replay", "stems", "summaries"]

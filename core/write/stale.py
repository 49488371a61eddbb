"""Stale statements: the older records a user's newer words contradict, whatever their type.

The ingestor's contradiction stage looks at records of the draft's own type (a fact at facts),
and episodes are never superseded by the supersession rule. But what the user said is kept in
two forms (README, "Session extraction"): phrased facts ("The user is running the Berlin
Marathon on 21 September.") and, for the sentences no rule phrases, the verbatim sentence as
an episode ("Audience: my boss Dr. Weber plus two directors."). When the user later says
otherwise ("so Berlin is off", "my new boss is Katrin Vogel"), every record that states the
old claim must go, or a search shows the stale value beside the new one, first as often as not.

So a draft backed by the user's own words (source ``user_statement``, not a session summary,
and not a report of what someone else said or believes: "My sister says I live in Leeds now"
is her claim, core.framing.reports) takes to the judge's contradiction check
(``Judge.contradicts``):

- the live records of its scope nearest to it (``_DENSE`` by cosine, no floor: a correction is
  often far from what it corrects in embedding space) and up to ``_LEXICAL`` FTS5 matches on
  its words and its relation's words (core.judge.contradiction.relation_words);
- the siblings of every record found contradicted: the live records quoting the same turn
  (same session, same statement time), each judged on its own, so that the verbatim sentence
  beside a phrased fact goes with it and an unrelated fact of that turn stays.

Only facts and the user's verbatim statements (episodes tagged ``verbatim``) can be stale;
events, decisions, outcomes and summaries are each their own. A record is stale when it was
stated before the draft, ranks no higher (policy.can_supersede), is about the draft's subject
entity or about none (any, when the draft is about none, as a verbatim statement is), and the
judge calls the two contradictory: each sentence of a verbatim record, so that a record holding
an unrelated sentence stays. A record that itself says something ended ("I quit X") is never
made stale by a later mention of X. The ingestor retires stale records in the write's
transaction (status superseded, a ``record.superseded`` event naming the draft): history,
never deleted, still returned with ``include_history``. A fact of the draft's type about its
subject entity goes through the supersession rule instead (lineage).

Limits: the judge's rules decide (core.judge.contradiction); a contradiction they do not know
("I eat chicken now" / "I'm pescatarian") retires nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core import policy
from agent_memory.core.filters import RecordFilter
from agent_memory.core.framing import reports
from agent_memory.core.judge.contradiction import relation_words, says_ended, sentences
from agent_memory.core.models import MemoryType, Record, SourceKind, format_time
from agent_memory.core.search.lexical import query_tokens
from agent_memory.core.store import write_reads as reads
from agent_memory.core.write import supersession

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine
    from agent_memory.core.judge.base import Judge

_DENSE = 8
_LEXICAL = 8
VERBATIM_TAG = "verbatim"
SUMMARY_TAG = "session-summary"
# A verbatim statement whose other words qualify its claim ("I quit Google, in my dreams
# lol.", "I'm vegan, except for cheese."): kept as said, it retires nothing
# (core.extraction.phrasing.qualified).
QUALIFIED_TAG = "qualified"


@dataclass(frozen=True, slots=True)
class Finder:
    engine: Engine
    judge: Judge

    def stale(self, draft: Record, vector: np.ndarray, *, now: datetime) -> list[Record]:
        """The live records ``draft`` makes stale (module docstring), oldest first."""
        if not speaks_for_user(draft):
            return []
        where = RecordFilter(scopes=(draft.scope,), now=format_time(now))
        hits = self.engine.index().search(vector, _DENSE, where=where)
        near = self.engine.store.records_by_rowid([h.rowid for h in hits])
        candidates = {r.id: r for r in near.values()}
        for record in self._lexical(draft, where):
            candidates.setdefault(record.id, record)
        found = self._judged(draft, candidates.values(), set())
        if found:
            judged = set(candidates)
            siblings = self._siblings(found, where, judged)
            found += self._judged(draft, siblings, judged)
        return sorted(found, key=supersession.statement_order)

    def _judged(self, draft: Record, records: Iterable[Record], seen: set[str]) -> list[Record]:
        out = []
        for record in records:
            if record.id == draft.id or record.id in seen or not can_be_stale(record, draft):
                continue
            if says_ended(record.content) and not says_ended(draft.content):
                continue  # "I quit X" is not made stale by a later mention of X
            # Every sentence of a verbatim record must be contradicted: one that is not is an
            # unrelated fact of that turn, and it stays.
            parts = sentences(record.content) if VERBATIM_TAG in record.tags else []
            texts = parts if len(parts) > 1 else [record.content]
            if all(self.judge.contradicts(text, draft.content).holds for text in texts):
                out.append(record)
        return out

    def _lexical(self, draft: Record, where: RecordFilter) -> list[Record]:
        words = list(dict.fromkeys([*query_tokens(draft.content), *relation_words(draft.content)]))
        ids = self.engine.retriever().lexical_neighbours(words, where, _LEXICAL)
        found = self.engine.store.get_records(ids)
        return [found[i] for i in ids if i in found]

    def _siblings(self, found: list[Record], where: RecordFilter, judged: set[str]) -> list[Record]:
        """Live records quoting the same turn as a record found stale."""
        turns = {(r.session_id, r.stated_at) for r in found if r.session_id and r.stated_at}
        if not turns:
            return []
        with self.engine.store.reading() as conn:
            rows = reads.stated_in(conn, sorted(turns), where)
        return [r for r in rows if r.id not in judged]


def speaks_for_user(draft: Record) -> bool:
    """A draft the user's own words back (a summary never does), claiming it themselves: a
    report of what someone said or believes ("My sister says I live in Leeds now", "Apparently
    the wedding moved to June") is the reporter's claim, and a statement whose other words
    qualify its claim ("I moved to Bergen, in my dreams.", ``QUALIFIED_TAG``) claims less than
    it reads: both retire nothing."""
    return (
        draft.source_kind is SourceKind.USER_STATEMENT
        and SUMMARY_TAG not in draft.tags
        and QUALIFIED_TAG not in draft.tags
        and not reports(draft.content)
    )


def can_be_stale(record: Record, draft: Record) -> bool:
    """Whether ``draft`` may retire ``record`` if the judge finds them contradictory."""
    if record.type is MemoryType.EPISODIC and VERBATIM_TAG not in record.tags:
        return False  # an event, decision, outcome or summary is each its own
    if record.type is MemoryType.PROCEDURAL:
        return False
    # About the draft's subject entity or about none; a verbatim draft names none, and the
    # judge's rules then check the holder ("my boss", "I", a name) themselves.
    subjects = (None, draft.subject_entity_id)
    if draft.subject_entity_id is not None and record.subject_entity_id not in subjects:
        return False
    if not supersession.stated_after(draft, record):
        return False  # only what was said before; a tie (one turn) is no order of statements
    return policy.can_supersede(draft.source_kind, record.source_kind)


__all__ = [
    "QUALIFIED_TAG",
    "SUMMARY_TAG",
    "VERBATIM_TAG",
    "Finder",
    "can_be_stale",
    "speaks_for_user",
]

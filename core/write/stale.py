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

The same rule read the other way: a draft that a user statement stated after it would have
made stale, had the draft been written first, is stale as it arrives (an older session
extracted after a newer one: a worker's backlog, a job retried after a crash), whether that
statement is live or was itself superseded since (Denver, then Boulder, then Austin: Denver
extracted last is still stale). It is stored as history of the first such statement said
(core.write.supersession), and still retires the older records it makes stale, so that the
order in which statements are written does not decide which one is current. A draft stated
as it is written (a model's write without evidence) has nothing stated after it, and is not
searched for.

Limits: the judge's rules decide (core.judge.contradiction); a contradiction they do not know
("I eat chicken now" / "I'm pescatarian") retires nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core import policy
from agent_memory.core.filters import RecordFilter
from agent_memory.core.framing import reports
from agent_memory.core.judge.contradiction import relation_words, says_ended, sentences
from agent_memory.core.models import MemoryType, Record, SourceKind, Status, format_time
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

    def read(
        self, draft: Record, vector: np.ndarray, *, now: datetime
    ) -> tuple[list[Record], Record | None]:
        """The live records ``draft`` makes stale (module docstring), oldest first; and the
        record stated after ``draft`` that makes it stale as it arrives, the first said if
        several (else None): one, live or since superseded itself, that would have retired it
        had the draft been written first (the same rule, roles swapped), as when an older
        session is extracted after a newer one (a worker's backlog, a job retried after a
        crash)."""
        # Nothing is stated after a draft stated now (a model's write without evidence).
        retires = speaks_for_user(draft)
        can_age = ages(draft) and draft.statement_time < format_time(now)
        if not retires and not can_age:
            return [], None
        where = RecordFilter(scopes=(draft.scope,), now=format_time(now))
        candidates = self._near(draft, vector, where)
        found = self._judged(draft, candidates.values(), set()) if retires else []
        if found:
            judged = set(candidates)
            siblings = self._siblings(found, where, judged)
            found += self._judged(draft, siblings, judged)
        if can_age:  # a newer statement since retired itself outdated the draft all the same
            retired = replace(where, statuses=frozenset({Status.SUPERSEDED}))
            candidates = {**self._near(draft, vector, retired), **candidates}
        newer = [
            record
            for record in candidates.values()
            if can_age
            and record.id != draft.id
            and speaks_for_user(record)
            and can_be_stale(draft, record)
            and self._makes_stale(record, draft)
        ]
        # The first statement after it that changes it: the one that would have retired it.
        return (
            sorted(found, key=supersession.statement_order),
            min(newer, key=supersession.statement_order, default=None),
        )

    def _near(self, draft: Record, vector: np.ndarray, where: RecordFilter) -> dict[str, Record]:
        """The live records nearest to ``draft`` and those sharing its words, by id."""
        hits = self.engine.index().search(vector, _DENSE, where=where)
        near = self.engine.store.records_by_rowid([h.rowid for h in hits])
        candidates = {r.id: r for r in near.values()}
        for record in self._lexical(draft, where):
            candidates.setdefault(record.id, record)
        return candidates

    def _judged(self, draft: Record, records: Iterable[Record], seen: set[str]) -> list[Record]:
        return [
            record
            for record in records
            if record.id != draft.id
            and record.id not in seen
            and can_be_stale(record, draft)
            and self._makes_stale(draft, record)
        ]

    def _makes_stale(self, newer: Record, record: Record) -> bool:
        """Whether the judge finds ``newer`` saying otherwise than ``record``."""
        if says_ended(record.content) and not says_ended(newer.content):
            return False  # "I quit X" is not made stale by a later mention of X
        # Every sentence of a verbatim record must be contradicted: one that is not is an
        # unrelated fact of that turn, and it stays.
        parts = sentences(record.content) if VERBATIM_TAG in record.tags else []
        texts = parts if len(parts) > 1 else [record.content]
        return all(self.judge.contradicts(text, newer.content).holds for text in texts)

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
    if not ages(record):
        return False
    # About the draft's subject entity or about none; a verbatim draft names none, and the
    # judge's rules then check the holder ("my boss", "I", a name) themselves.
    subjects = (None, draft.subject_entity_id)
    if draft.subject_entity_id is not None and record.subject_entity_id not in subjects:
        return False
    if not supersession.stated_after(draft, record):
        return False  # only what was said before; a tie (one turn) is no order of statements
    return policy.can_supersede(draft.source_kind, record.source_kind)


def ages(record: Record) -> bool:
    """Whether a later statement can make ``record`` stale: a fact or the user's verbatim
    statement; an event, decision, outcome or summary is each its own, a procedure too."""
    if record.type is MemoryType.EPISODIC:
        return VERBATIM_TAG in record.tags
    return record.type is not MemoryType.PROCEDURAL


__all__ = [
    "QUALIFIED_TAG",
    "SUMMARY_TAG",
    "VERBATIM_TAG",
    "Finder",
    "ages",
    "can_be_stale",
    "speaks_for_user",
]

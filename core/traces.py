"""The copies of a forgotten record's words outside its own row (issue 16, item 3).

A record's text is quoted in more places than the records table: the search log keeps the
queries and explanations of searches that returned it, the write log the requests that wrote
it, a session's job stages the candidates and decisions of its extraction, session summaries
may repeat it, and an entity it alone introduced keeps the name it was given. ``scrub`` runs
in the forget's transaction, while the record still holds its content, and erases each:

- search_log, write_log, job_stages: every JSON string that contains one of the record's
  phrases (its content, its evidence quote; normalised, at least three words) or that sits in
  an object naming the record's id under a text key becomes ``[forgotten]``; a search query
  containing a phrase becomes ``[forgotten]``, and in a search row that found the record so
  does everything read from its question (each part's query, the rewrite, the subject's
  words, the words BM25 left out, a time cue's phrases: ``_ASKED_KEYS``). Ids, timings and
  decisions stay.
- session summaries of the same scope that contain a phrase are returned for erasure (a
  summary is rewritten by no one: it goes, with its own tombstone and event).
- entities linked to the record and to nothing else (no other record, no merge) lose their
  aliases and their row, except a user's own entity.

Each change appends an event with ids and counts, never words. The statements are
core.store.erasure's; what a row's text becomes is decided here.
"""

from __future__ import annotations

import json
import re
import sqlite3
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent_memory.core import events
from agent_memory.core.store import erasure as stored
from agent_memory.core.store.log import append
from agent_memory.core.write.evidence import normalise

FORGOTTEN = "[forgotten]"
# Keys whose string value is the record's text when they sit beside its id.
_TEXT_KEYS = frozenset(
    {"content", "evidence", "attribute", "subject", "procedure", "context", "summary", "query"}
)


# Top-level keys of a log row about the record that hold what was asked or written.
_ROW_TEXT_KEYS = frozenset({"request", "query", "rewritten_query"})
# Keys of a search log row, at any depth, that hold the question's words or phrases read from
# it: each part's query (core.search.compound), the rewrite, the subject's words, the words
# BM25 left out and the time cue's phrases.
_ASKED_KEYS = frozenset(
    {"query", "rewritten_query", "rewritten", "words", "phrases", "lexical_words_ignored"}
)


@dataclass(slots=True)
class Scrubbed:
    """What ``scrub`` changed: rows per table, and the summaries left for the caller to erase."""

    rows: dict[str, int] = field(default_factory=dict)
    summaries: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)


def phrases(*texts: str | None) -> list[str]:
    """The normalised forms of ``texts`` long enough to identify them (three words or more),
    without the punctuation at their ends: a record's content ends with a period that a
    text quoting it in a list ("Remembered: X; Y.") or mid-sentence does not have."""
    found = (normalise(t).strip(_EDGE) for t in texts if t)
    return [p for p in found if len(p.split()) >= 3]


_EDGE = string.punctuation + string.whitespace + "«»…"


def scrub(
    conn: sqlite3.Connection,
    *,
    record_id: str,
    rowid: int,
    scope: str,
    user_id: str | None,
    needles: Sequence[str],
    now: datetime,
    said: Sequence[str] = (),
) -> Scrubbed:
    """Erase the record's words from the side tables (see the module doc); ``said``: its
    content and evidence as written, whose words a summary's topic list may hold."""
    done = Scrubbed()
    done.rows["search_log"] = _scrub_search_log(conn, record_id, user_id, needles)
    done.rows["write_log"] = _scrub_write_log(conn, record_id, needles)
    done.rows["job_stages"] = _scrub_job_stages(conn, record_id, user_id, needles)
    done.summaries = _summaries_holding(conn, rowid, scope, needles, said)
    done.entities = _erase_lone_entities(conn, rowid)
    erased = events.RecordTracesErased(
        record_id=record_id, rows=done.rows, summaries=done.summaries, entities=done.entities
    )
    append(conn, erased, at=now)
    return done


def _scrub_search_log(
    conn: sqlite3.Connection, record_id: str, user_id: str | None, needles: Sequence[str]
) -> int:
    # The user's other searches too: their queries may quote the record's words.
    rows = stored.search_log_rows(conn, record_id, user_id=user_id if needles else None)
    changed = 0
    for log_id, query, payload in rows:
        cited = record_id in payload
        new_query = FORGOTTEN if cited or _quotes(query, needles) else query
        logged = json.loads(payload)
        # The query that found the record is repeated in the explanation (and rewritten), and
        # a question of several parts (core.search.compound) repeats each part in its own.
        parts = logged.get("compound", {}).get("parts", [])
        asked = [query, *(q for p in parts for q in (p["request"]["query"], p["query"]))]
        also = [normalise(q) for q in asked if q.strip()] if new_query != query else []
        if cited:  # the row found the record: what it asked goes, as its query does
            logged = _unasked(logged)
        new_payload = _scrub_value(logged, record_id, [*needles, *also], quoted=cited)
        if new_query != query or new_payload != json.loads(payload):
            stored.rewrite_search_log_row(conn, log_id, query=new_query, payload=new_payload)
            changed += 1
    return changed


def _scrub_write_log(conn: sqlite3.Connection, record_id: str, needles: Sequence[str]) -> int:
    changed = 0
    for log_id, text in stored.write_log_rows(conn, record_id):
        before = json.loads(text)
        after = _scrub_value(before, record_id, needles, quoted=True)
        if after != before:
            stored.rewrite_write_log_row(conn, log_id, after)
            changed += 1
    return changed


def _scrub_job_stages(
    conn: sqlite3.Connection, record_id: str, user_id: str | None, needles: Sequence[str]
) -> int:
    """The stage outputs of the user's sessions' jobs (all jobs, for a shared scope)."""
    changed = 0
    for job_id, stage, output in stored.job_stage_outputs(conn, user_id=user_id):
        before = json.loads(output)
        after = _scrub_value(before, record_id, needles)
        if after != before:
            stored.rewrite_job_stage_output(conn, job_id, stage, after)
            changed += 1
    return changed


def _unasked(value: Any) -> Any:
    """``value`` with every ``_ASKED_KEYS`` value, at any depth, ``FORGOTTEN``."""
    if isinstance(value, list):
        return [_unasked(v) for v in value]
    if isinstance(value, dict):
        return {k: FORGOTTEN if k in _ASKED_KEYS else _unasked(v) for k, v in value.items()}
    return value


def _scrub_value(
    value: Any, record_id: str, needles: Sequence[str], *, quoted: bool = False
) -> Any:
    """``value`` with every string quoting a phrase replaced, and every text key of an object
    that names the record; with ``quoted`` (``value`` is a log row about the record) also its
    request and query."""
    if isinstance(value, str):
        return FORGOTTEN if _quotes(value, needles) else value
    if isinstance(value, list):
        return [_scrub_value(v, record_id, needles, quoted=quoted) for v in value]
    if isinstance(value, dict):
        names = record_id in (value.get("id"), value.get("record_id"))
        if quoted:  # the row itself is about the record: its request and query are its words
            value = {k: FORGOTTEN if k in _ROW_TEXT_KEYS else v for k, v in value.items()}
            quoted = False
        out = {}
        for k, v in value.items():
            if names and k in _TEXT_KEYS and isinstance(v, str | dict | list):
                out[k] = FORGOTTEN
            else:
                out[k] = _scrub_value(v, record_id, needles, quoted=quoted)
        return out
    return value


def _quotes(text: str, needles: Sequence[str]) -> bool:
    if not needles:
        return False
    normal = normalise(text)
    return any(n in normal for n in needles)


def _summaries_holding(
    conn: sqlite3.Connection,
    rowid: int,
    scope: str,
    needles: Sequence[str],
    said: Sequence[str] = (),
) -> list[str]:
    """The summaries that quote the record (a needle), and those of its own session whose
    topic list names one of its words ("Topics: sorry, slow, tobias, ..."): the offline
    summary's topics are single words of the session's user turns, no quote, and would keep
    a forgotten name."""
    # Read as the summary writer reads a turn (lower case, as written: "Tobias\u2019s" gives
    # "tobias"), and as the needles are normalised ("tobias's").
    words = {w for text in (*needles, *said) for w in _TOPIC_WORD.findall(text.lower())}
    if not words:
        return []
    return [
        record_id
        for record_id, content, same_session in stored.session_summaries(conn, scope, rowid)
        if _quotes(content, needles) or (same_session and words & _topics(content))
    ]


# The offline summary's topic list and its words (core.extraction.offline's summary writer
# picks words of four letters or more).
_TOPICS = re.compile(r"\bTopics: ([^.]*)\.")
_TOPIC_WORD = re.compile(r"[a-z][a-z'-]{3,}")


def _topics(summary: str) -> set[str]:
    found = _TOPICS.search(summary)
    return set(_TOPIC_WORD.findall(found.group(1))) if found else set()


def _erase_lone_entities(conn: sqlite3.Connection, rowid: int) -> list[str]:
    """Unlink the record from its entities; erase those it alone was linked to."""
    erased = []
    for entity_id in stored.unlink_entities(conn, rowid):
        if entity_id.startswith("ent_user_") or stored.entity_in_use(conn, entity_id):
            continue
        stored.delete_entity(conn, entity_id)
        erased.append(entity_id)
    return erased


__all__ = ["FORGOTTEN", "Scrubbed", "phrases", "scrub"]

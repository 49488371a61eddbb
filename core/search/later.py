"""Later statement first: among results about the same thing, the newer statement ranks first.

A user's store keeps what they said over months; when a value changes ("the book club has
moved to Tuesdays", "I'm not vegan anymore"), the earlier statement often stays live (a
correction retires only the records it can tie to itself: core.extraction.corrections), and the
two rank close together, the older one first as often as not. A model reading the answer top
down then takes the stale value. So, after the gate, collapse and reranker, a result stated
later than a better-ranked one about the same thing, with a close score, moves up to just above
it (the others keep their order):

- "about the same thing": their stored vectors (content, and retrieval context where there is
  one) reach ``retrieval.later_first_cosine``; or the later one says that something changed
  (core.judge.change: "I've stopped badminton", "Update: ...", "Berlin is off";
  not the markers that as often open a follow-up: "left", "again", "my new") within ``NEAR``
  words of a word the question asks about (core.search.subject.asked, compared as stems), or
  opens by announcing a change, and the earlier one names that word too: "Do I still play
  badminton?" links "I play badminton every Wednesday" with "I've stopped badminton", whose
  vectors lie far apart; or both say the user's own work, home, studies or car that the
  question asks about (core.search.life.own_life) and the later one says it changed
  ("moved", "bought", "new job", "started" ...: core.search.life.says_life_changed): "next
  to our place" and "we bought a place in Raglan!" for "Where do we live?". Limits: "now" and
  "stopped" also open follow-ups ("feeling great now", "Biscuit stopped eating his kibble"),
  and such a turn naming the asked word moves above the earlier one;
- "close": the lower score is at least ``retrieval.later_first_closeness`` of the higher (the
  fused score with freshness, context credit and role prior), so a far better match is never
  pushed down by a newer, weaker one;
- "newer": stated later (``Record.statement_time``: its evidence turn's time, else created_at); a
  session summary, which restates its session's records and is written after them, never
  moves up, and an imported conversation turn only when it says that something changed (a
  later turn on a topic is as often a follow-up as a change).

Only the first ``WINDOW`` x limit results are considered: the rule reorders the answer, never
changes what it holds. A question about the past ("originally", "used to", "before", "at
first", "previous" ...) or asked in the past tense ("did", "was", "were", "had", "ago") turns
the rule off: there the earlier statement is the answer. Not a date or an outcome asked in the
past tense ("When was my driving test in the end?", "When did Erik graduate?"): what was said
last of it is (fresh personas, extracted path: current first 0.615 -> 0.692; the dev set asks
no update in the past tense). The search log keeps the pairs,
the statement times and what moved, and ``apply`` is a pure function of them, so
core.search.ranking.replay rebuilds the order (design §13).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from agent_memory.core.judge.change import announces, change_spans
from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.models import SourceKind
from agent_memory.core.search import life
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from agent_memory.core.config.search import RetrievalConfig
    from agent_memory.core.index import VectorIndex
    from agent_memory.core.models import Record


class Ranked(Protocol):
    """What the rule reads of a result (core.search.ranking.Candidate)."""

    @property
    def record_id(self) -> str: ...

    @property
    def score(self) -> float: ...


C = TypeVar("C", bound=Ranked)

# Results considered: this many times the request's limit. 1: the rule reorders what the
# answer holds and never changes which records it holds (a first version at 2, with groups
# sorted newest first, measured LoCoMo dev R@10 0.734 against the 0.803 recorded before it:
# later turns about the same topic displaced the earlier ones a question asked about).
WINDOW = 1
# A change word links a result through a word of the question only this many words from it:
# "I've stopped badminton", not "My badminton racket broke so I replaced the strings"
# (personal dev turns path current-first 0.591 at any distance, 0.515 at 4, 0.485 at 3).
NEAR = 4
_WORD = re.compile(r"[A-Za-z][\w'-]*")

# A question about an earlier state, or asked in the past tense ("When did ...", "What was
# ..."): it asks what happened then, which the earlier statement answers. Not "how old" (an
# age: its latest statement is the answer) nor an ordinal "first" ("my first name", "my first
# meeting tomorrow"): "at first" is the phrase that asks about an earlier state.
_EARLIER = re.compile(
    r"\b(originally|original|used to|before|at first|initially|previous(?:ly)?|"
    r"formerly|former|earlier|(?<!\bhow\s)old|back then|at the time|until)\b",
    re.IGNORECASE,
)
_PAST_TENSE = re.compile(r"\b(did|was|were|had|went|ago)\b", re.IGNORECASE)
# Asked in the past tense, a question about when something happened, or how it ended, asks for
# its last date or outcome: "When was my driving test in the end?", "When did Erik graduate?"
# after "Erik's graduation moved to 13 June". What was said last of it is the answer.
_LAST_SAID = re.compile(
    r"^\W*(?:when|what date|which date|what day|which day)\b|\b(?:in the end|finally|eventually)\b",
    re.IGNORECASE,
)


def asks_about_the_past(query: str) -> bool:
    """Whether ``query`` asks about an earlier state ("What sport did Adam play before?",
    "What was my job?"); not a date or an outcome asked in the past tense (``_LAST_SAID``)."""
    if _EARLIER.search(query):
        return True
    return _PAST_TENSE.search(query) is not None and _LAST_SAID.search(query) is None


def pairs(
    index: VectorIndex,
    candidates: Sequence[Ranked],
    records: Mapping[str, Record],
    threshold: float,
    changes: Mapping[str, Sequence[str]] | None = None,
    lives: Mapping[str, str] | None = None,
) -> list[tuple[str, str, float]]:
    """(earlier-ranked id, later-ranked id, cosine) for each pair of ``candidates`` stated at
    different times whose stored vectors reach ``threshold``. The stored vectors of extracted
    records also read their evidence turn: comparing contents alone instead (0.45, and 0.3)
    cost the personal dev eval current-first 0.667 -> 0.606 (0.636), as real changes said in
    other words lie below; a later turn's side remark on the same topic can move up too.
    Also linked, whatever their cosine: a result that says something changed with an earlier
    one naming a question word it names (``changes``: ``changed``), and two results saying the
    same part of the user's own life, the later saying it changed (``lives``: record id ->
    "work", "home", "study" or "vehicle", core.search.life.own_life)."""
    rowid_of = {c.record_id: records[c.record_id].rowid or 0 for c in candidates}
    vectors = index.vectors(list(rowid_of.values()))
    present = [c.record_id for c in candidates if rowid_of[c.record_id] in vectors]
    if len(present) < 2:
        return []
    matrix = np.vstack([vectors[rowid_of[i]] for i in present])
    sims = matrix @ matrix.T
    found = []
    for a, b in np.argwhere(np.triu(sims >= threshold, k=1)).tolist():
        first, second = present[a], present[b]
        if records[first].statement_time != records[second].statement_time:
            found.append((first, second, round(float(sims[a, b]), 6)))
    if changes or lives:
        # Linked however far apart their vectors: a result that says something changed, with
        # an earlier one naming a word of the question it names; two results saying the same
        # part of the user's own life the question asks about, the later one saying that it
        # changed ("next to our place" / "we bought a place in Raglan!" for "Where do we
        # live?"; not "my colleagues are taking me out" after "I'm a nurse at St Thomas'": a
        # review found such later mentions jumping above the answer).
        changes, lives = changes or {}, lives or {}
        stems = {i: _stems(records[i].content) for i in present} if changes else {}
        known = {(a, b) for a, b, _ in found}
        for a, b in itertools.combinations(range(len(present)), 2):
            first, second = present[a], present[b]
            times = records[first].statement_time, records[second].statement_time
            if (first, second) in known or times[0] == times[1]:
                continue
            earlier, later = (first, second) if times[0] < times[1] else (second, first)
            part = lives.get(later)
            if (changes and set(changes.get(later, ())) & stems[earlier]) or (
                part is not None
                and lives.get(earlier) == part
                and _says_new(part, records[later].content)
            ):
                found.append((first, second, round(float(sims[a, b]), 6)))
    return found


def _says_new(part: str, text: str) -> bool:
    return life.says_life_changed(part, text) or bool(change_spans(text, strong=True))


def changed(
    candidates: Sequence[Ranked], records: Mapping[str, Record], asked: Sequence[str]
) -> dict[str, list[str]]:
    """For each result whose words say that something changed ("I've stopped badminton",
    "Update: ...", "Berlin is off"), the words of the question it names (stems): within
    ``NEAR`` words of a change word (across a full stop too), or anywhere in a statement that
    opens by announcing one (not an imported turn: below). Words are compared whole, as
    written ("five-a-side", "Maya's"): reading them in parts, and only in the change's own
    sentence, were measured and not kept (the known-limit tests of
    tests/core/search/test_later_first.py say why)."""
    wanted = {stem_word(w) for w in asked}
    out: dict[str, list[str]] = {}
    for c in candidates:
        content = records[c.record_id].content
        # An imported turn's content opens with its speaker ("user: Update: ..."), so it is
        # never read as opening by announcing a change: read without the speaker, "Lots of
        # news." and "Updates." turns named every question word they held, and on the
        # personal dev turns path 3 updates gained the current turn first while 6 answers
        # fell from rank 1 to 2 and one out of the top five. Its change words still count.
        announced = announces(content)
        spans = change_spans(content, strong=True)
        if not (announced or spans):
            continue  # the common case, decided without stemming the content
        words = [(m.start(), stem_word(m.group(0).lower())) for m in _WORD.finditer(content)]
        marks = [sum(1 for at, _ in words if at < start) for start, _ in spans]
        named = {
            stem
            for k, (_, stem) in enumerate(words)
            if stem in wanted and (announced or any(abs(k - m) <= NEAR for m in marks))
        }
        if named:
            out[c.record_id] = sorted(named)
    return out


def _stems(text: str) -> set[str]:
    """Every word of ``text``, as a stem (``core.search.subject`` compares query words so)."""
    return {stem_word(w.lower()) for w in _WORD.findall(text)}


def apply(
    candidates: list[C],
    similar: Sequence[Sequence[Any]],
    times: Mapping[str, str],
    *,
    closeness: float,
    window: int,
    held: Collection[str] = (),
) -> tuple[list[C], dict[str, dict[str, Any]]]:
    """``candidates`` with each result that was stated later than a better-ranked, linked and
    close one moved up to just above the best-ranked such one (in the fused order, each moved
    at most once: the others keep their order); and, for each result that moved, which one it
    now ranks above and why. ``similar``: (id, id, cosine) pairs at or above the threshold
    (``pairs``); ``times``: when each was stated; ``held``: records that never move up
    (``run``). Pure: replay calls it with the logged values."""
    head, tail = candidates[:window], candidates[window:]
    position = {c.record_id: i for i, c in enumerate(head)}
    older: dict[int, list[tuple[int, float]]] = {}  # result -> linked, better-ranked, older
    for a, b, cosine in similar:
        if a not in position or b not in position:
            continue
        i, j = sorted((position[a], position[b]))
        high, low = head[i].score, head[j].score
        if high <= 0 or low < closeness * high:
            continue
        if head[j].record_id in held:
            continue
        if times[head[j].record_id] > times[head[i].record_id]:
            older.setdefault(j, []).append((i, float(cosine)))
    order = list(range(len(head)))
    moved: dict[str, dict[str, Any]] = {}
    for j in sorted(older):
        over, cosine = min(older[j])  # the best-ranked older one it is linked to
        at, to = order.index(j), order.index(over)
        if to > at:  # it is above that one already (an earlier move put it there)
            continue
        order.insert(to, order.pop(at))
        moved[head[j].record_id] = {
            "from": j + 1,
            "to": to + 1,
            "above": head[over].record_id,
            "cosine": round(cosine, 6),
        }
    return [head[i] for i in order] + tail, moved


def run(
    query: str,
    kept: list[C],
    *,
    index: VectorIndex,
    records: Mapping[str, Record],
    limit: int,
    cfg: RetrievalConfig,
    asked: Sequence[str] = (),
) -> tuple[list[C], dict[str, Any]]:
    """The rule over the results ``kept`` after the reranker: their new order, and the search
    log's entry (settings, pairs, statement times, what moved; or why it did not apply)."""
    window = WINDOW * limit
    base: dict[str, Any] = {
        "cosine": cfg.later_first_cosine,
        "closeness": cfg.later_first_closeness,
        "window": window,
    }
    if cfg.later_first_cosine >= 1.0 or len(kept) < 2:
        return kept, {**base, "applied": False, "why": "off or fewer than two results"}
    if asks_about_the_past(query):
        why = "the question asks about an earlier state: the results keep their order"
        return kept, {**base, "applied": False, "why": why}
    head = kept[:window]
    changes = changed(head, records, asked)
    lives = {
        c.record_id: part
        for c in head
        if (part := life.own_life(asked, records[c.record_id].content)) is not None
    }
    found = pairs(index, head, records, cfg.later_first_cosine, changes, lives)
    times = {c.record_id: records[c.record_id].statement_time for c in head}
    # A session summary restates the session's records (and is written after them): it
    # never rises above what it restates or anything else. An imported conversation turn
    # does not either: a later turn on the same topic is as often a follow-up as a change,
    # and questions about the earlier one lost their answer from the first five (with turns
    # moving: the personal turns path lost a hit@5 question, LoCoMo dev R@5 0.7282 -> 0.7195).
    # A turn that says something changed about what the question names does move: on the
    # personal dev set's turns path it took current-first 0.364 -> 0.515, hit@5 unchanged
    # (0.591 with the question word anywhere in the turn, which let follow-ups jump: NEAR).
    # Provisional records do move: holding them (a newer guess above a confirmed statement)
    # cost the personal dev eval current-first 0.697 -> 0.667 (its extracted changes
    # include provisional records).
    held = sorted(
        c.record_id
        for c in head
        if records[c.record_id].source_kind is SourceKind.SESSION_SUMMARY
        or (conversation.is_imported_turn(records[c.record_id]) and c.record_id not in changes)
    )
    ordered, moved = apply(
        kept,
        found,
        times,
        closeness=cfg.later_first_closeness,
        window=window,
        held=held,
    )
    for record_id, move in moved.items():
        if move["cosine"] >= cfg.later_first_cosine:
            continue
        if record_id in changes:
            move["names"] = changes[record_id]  # linked by what it says changed
        elif record_id in lives and lives[record_id] == lives.get(move["above"]):
            move["life"] = lives[record_id]  # linked by the part of the user's life both say
    return ordered, {
        **base,
        "applied": True,
        "why": "results about the same thing that score close together: the later statement first",
        "pairs": found,
        "changes": changes,
        "lives": lives,
        "stated": times,
        "held": held,
        "moved": moved,
    }


def explain(move: Mapping[str, Any] | None) -> str:
    """The result explanation's line for the rule."""
    if move is None:
        return "kept its place"
    if "names" in move:
        named = ", ".join(repr(w) for w in move["names"])
        return (
            f"moved from rank {move['from']} to {move['to']}, above {move['above']}: it says "
            f"something changed, both name {named} of the question, and it was stated later"
        )
    if "life" in move:
        return (
            f"moved from rank {move['from']} to {move['to']}, above {move['above']}: both say "
            f"the user's own {move['life']}, which the question asks about, and it was stated later"
        )
    return (
        f"moved from rank {move['from']} to {move['to']}, above {move['above']}: about the same "
        f"thing (cosine {move['cosine']}), scored close to it and stated later"
    )


def replay(log: Mapping[str, Any], kept: list[C]) -> list[C]:
    """``kept`` in the order the logged rule left it (rows logged before it: unchanged)."""
    rule = log.get("later_first")
    if not rule or not rule.get("applied"):
        return kept
    ordered, _ = apply(
        kept,
        rule["pairs"],
        rule["stated"],
        closeness=rule["closeness"],
        window=rule["window"],
        held=rule.get("held", ()),
    )
    return ordered


__all__ = [
    "WINDOW",
    "Ranked",
    "apply",
    "asks_about_the_past",
    "explain",
    "pairs",
    "replay",
    "run",
]

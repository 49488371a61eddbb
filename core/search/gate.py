"""The empty-result gate: the floors for the records a search may read, each candidate's pass,
and the per-result rule, as pure functions of logged values (core.search.ranking.replay
calls them again with the logged settings; design §13).

An answer is empty when every candidate is weak on every signal (design §9); a passing answer
keeps the candidates that pass on their own or sit close to the best one. The floors follow
the size of what the searching agent may read, never the store's (``floors``): calibrated on
LoCoMo, LongMemEval-S and the personal set (README.md, "The gate at every store size";
benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from agent_memory.core.config import GateConfig
    from agent_memory.core.search.ranking import Candidate


def scaled_floors(
    records: int,
    *,
    dense_floor: float,
    small_store_drop: float,
    lexical_floor: float,
    reference: int,
    small: int,
) -> tuple[float, float]:
    """The gate's (dense, lexical) floors for a search over ``records`` readable records.

    A floor set for a conversation of 500 turns is out of reach in a user's store of a few
    dozen records (a question's own answer at cosine 0.43 against 0.475), while a low fixed
    floor lets unrelated queries through a large store: the best cosine of an unrelated query
    is the largest of ``records`` draws, and BM25's IDF of a rare word is about
    ``log(records)``; both grow with the store. So the dense floor is ``dense_floor`` at
    ``reference`` records and more, ``small_store_drop`` lower at ``small`` records and fewer,
    and log-interpolated between (held at ``dense_floor`` above: nothing was calibrated there);
    the lexical floor is ``lexical_floor`` scaled by the store's largest IDF (BM25's weight of
    a word held by one record) against that of ``reference`` records. ``records`` counts
    what the agent may read, like BM25's statistics: no floor depends on other scopes."""
    n = max(records, 2)
    position = _position(n, reference=reference, small=small)
    dense = dense_floor - small_store_drop * (1 - position)
    lexical = lexical_floor * _largest_idf(n) / _largest_idf(reference)
    return round(dense, 6), round(lexical, 6)


# A query word held by half the records or more has FTS5's clamped IDF (1e-6): its BM25 is
# ~1e-6, not 0, yet it tells nothing about the record, so it corroborates nothing. Any word
# with a real IDF scores orders of magnitude above this.
WEIGHTLESS_BM25 = 1e-3


def corroborated_floor(
    records: int, *, dense_floor: float, corroborated_drop: float, reference: int, small: int
) -> float:
    """The cosine a candidate must reach to pass when a query word with weight also found it
    (BM25 of at least ``WEIGHTLESS_BM25``, on the lexical or time generator), for a search over
    ``records`` readable records whose dense floor is ``dense_floor`` (already scaled):
    ``corroborated_drop`` lower at ``small`` records and fewer, log-interpolated to no drop at
    ``reference``.

    In a user's store of a few dozen records the answer to a question worded apart from it
    ("What company do I work for?" / "I've been a UX researcher at Lumen Health ...") sits at
    cosine 0.2-0.3, as do many unrelated questions' best records; a shared content word tells
    them apart (most unrelated questions share none). In a large store nearly every query
    shares a word with something, so the corroborated floor meets the dense floor there."""
    n = max(records, 2)
    position = _position(n, reference=reference, small=small)
    return round(dense_floor - corroborated_drop * (1 - position), 6)


def subject_floor(
    records: int, *, corroborated: float, subject_drop: float, reference: int, small: int
) -> float | None:
    """The cosine a candidate naming every word the query asks about (core.search.subject)
    must reach to pass, for a search over ``records`` readable records whose corroborated
    floor is ``corroborated`` (already scaled): ``subject_drop`` lower at ``small`` records and
    fewer, log-interpolated to no drop at ``reference``; None there and above (the signal is
    off: in a large store every subject word is in some record, and the floors above decide)."""
    n = max(records, 2)
    if n >= reference or subject_drop <= 0:
        return None
    position = _position(n, reference=reference, small=small)
    return round(max(corroborated - subject_drop * (1 - position), 0.0), 6)


class Floors(NamedTuple):
    """The gate's floors for one search (``floors``)."""

    dense: float
    lexical: float
    corroborated: float
    subject: float | None  # None: the subject signal is off


def floors(records: int, gate: GateConfig) -> Floors:
    """Every floor of ``gate`` for a search over ``records`` readable records: scaled_floors,
    corroborated_floor and subject_floor in turn."""
    at = {"reference": gate.reference_records, "small": gate.small_records}
    dense, lexical = scaled_floors(
        records,
        dense_floor=gate.dense_floor,
        small_store_drop=gate.small_store_drop,
        lexical_floor=gate.lexical_floor,
        **at,
    )
    corroborated = corroborated_floor(
        records, dense_floor=dense, corroborated_drop=gate.corroborated_drop, **at
    )
    subject = subject_floor(
        records, corroborated=corroborated, subject_drop=gate.subject_drop, **at
    )
    return Floors(dense, lexical, corroborated, subject)


def _position(records: int, *, reference: int, small: int) -> float:
    """Where ``records`` lies between ``small`` (0) and ``reference`` (1) records, on a log
    scale, held at the ends: how far a floor's small-store drop has worn off."""
    return math.log(min(max(records, small), reference) / small) / math.log(reference / small)


def _largest_idf(records: int) -> float:
    """BM25's IDF of a word held by one of ``records`` records, in the smoothed form
    ``log(1 + (N - 0.5) / 1.5)``, which stays positive for the smallest stores (core.search.bm25's
    FTS5 form, without the 1 +, is 0 at two records); from 30 records on the two differ by
    under 2%, and only their ratio to the reference's is used."""
    return math.log(1 + (records - 0.5) / 1.5)


def gate(
    candidate: Candidate,
    *,
    dense_floor: float,
    lexical_floor: float,
    corroborated: float | None = None,
    subject: float | None = None,
    agreed_share: float = 0.0,
) -> tuple[str, str] | None:
    """Why ``candidate`` is strong enough to return, as (the signal it passed on: dense,
    lexical, time, corroborated, agreed, subject or entity; a sentence), or None if it is weak
    on every signal: below the cosine floor on dense, below the BM25 floor on lexical, below
    the ``corroborated`` cosine floor or matching no query word (corroborated_floor), not the
    first on both dense and lexical at ``agreed_share`` of both floors (``_agreed``), below the
    ``subject`` cosine floor or not naming the query's subject (subject_floor), and no entity
    match. The time generator's score is the lexical one, found inside the query's time
    window."""
    dense = candidate.matches.get("dense")
    if dense is not None and dense["score"] >= dense_floor:
        of = " (a passage)" if dense.get("passage") else ""
        return "dense", f"dense cosine {dense['score']:.3f}{of} >= floor {dense_floor}"
    for generator, where in (("lexical", ""), ("time", " (inside the query's time window)")):
        bm25 = candidate.matches.get(generator)
        if bm25 is not None and bm25["score"] >= lexical_floor:
            return generator, f"lexical BM25 {bm25['score']:.3f} >= floor {lexical_floor}{where}"
    shared = _bm25(candidate)
    if (
        corroborated is not None
        and dense is not None
        and shared is not None
        and shared >= WEIGHTLESS_BM25
        and dense["score"] >= corroborated
    ):
        return "corroborated", (
            f"dense cosine {dense['score']:.3f} >= floor {corroborated} with a query word "
            f"(BM25 {shared:.3f})"
        )
    if agreed_share > 0 and (
        agreed := _agreed(candidate, dense_floor, lexical_floor, agreed_share)
    ):
        return "agreed", agreed
    if (
        subject is not None
        and candidate.subject
        and dense is not None
        and dense["score"] >= subject
    ):
        return "subject", (
            f"dense cosine {dense['score']:.3f} >= floor {subject}, naming what the query "
            "asks about"
        )
    if "entity" in candidate.matches:
        return "entity", "exact entity match"
    return None


def first_on_both(candidates: Sequence[Candidate]) -> bool:
    """Whether one of ``candidates`` is first on both dense and lexical: the one the agreed
    signal may pass (``_agreed``), and then the caller reads the query's words."""
    return any(_first_on_both(c) for c in candidates)


def _first_on_both(candidate: Candidate) -> bool:
    dense, bm25 = candidate.matches.get("dense"), candidate.matches.get("lexical")
    return dense is not None and bm25 is not None and dense["rank"] == 1 == bm25["rank"]


def _agreed(
    candidate: Candidate, dense_floor: float, lexical_floor: float, share: float
) -> str | None:
    """The reason ``candidate`` passes as the record both generators put first, each at
    ``share`` of its floor or more, else None. Near the reference size a floor is set where
    an unrelated question's best record seldom reaches; an answer worded a little apart from
    its question may sit just under both ("What speed is my new internet plan?": its turn is
    first on dense at 0.428 against 0.472 and first on BM25 at 9.20 against 9.88 in a haystack
    of 466 turns). Two generators that read the text differently agreeing on the same record,
    each nearly at its floor, is evidence neither is alone: on LoCoMo's calibration searches no
    question asked in another conversation's scope, nor an off-topic one, had one record first
    on both at 0.85 of both floors (benchmarks/README.md, "Session 56"). Not when a query word
    is one no readable record holds (the caller turns the share off: core.search.retriever):
    "What are the best flavored seltzer water brands?" found the one turn about flavored
    seltzer water at 0.93 and 0.98 of the floors, in a conversation that names no brand. In a
    small store the corroborated floor already passes such a record."""
    if not _first_on_both(candidate):
        return None
    dense, bm25 = candidate.matches["dense"], candidate.matches["lexical"]
    if dense["score"] < share * dense_floor or bm25["score"] < share * lexical_floor:
        return None
    return (
        f"first on dense (cosine {dense['score']:.3f}) and on lexical (BM25 "
        f"{bm25['score']:.3f}), each at {share} of its floor ({dense_floor}, {lexical_floor}) "
        "or more"
    )


# Passes that measure no other candidate's closeness (``apply_gate``).
_NO_MEASURE = frozenset({"subject", "agreed"})

# The settings of the per-result rule ``apply_gate`` takes by name from GateConfig as they are.
MARGINS = frozenset(
    {"dense_margin", "dense_share", "lexical_share", "beside_subject", "agreed_share"}
)


def apply_gate(
    candidates: list[Candidate],
    *,
    dense_floor: float,
    lexical_floor: float,
    mode: str,
    dense_margin: float = 0.0,
    dense_share: float = 0.0,
    lexical_share: float = 1.0,
    corroborated: float | None = None,
    subject: float | None = None,
    beside_subject: int = 0,
    agreed_share: float = 0.0,
) -> list[Candidate]:
    """The empty-result gate over ordered candidates; sets each one's ``gate`` reason and
    ``passed_on`` and returns the survivors.

    - ``result`` (the default): the answer is empty when every candidate is weak on every
      signal; otherwise each candidate must pass on its own or be close to the best one on a
      signal that found it: its cosine within ``dense_margin`` of the best passing
      candidate's and at least ``dense_share`` of it, or its BM25 at least
      ``lexical_share`` of the best passing one's. A
      passing answer is not padded with records weak on every signal and far below the best.
      Scores, not fused ranks: in a store of a few records every record is a dense
      candidate, and rank 8 of 8 fuses to 60% of rank 1 whatever its cosine. A subject pass
      sets no such measure (it may sit at any cosine); when every result passed on it, the
      ``beside_subject`` weak candidates closest on dense cosine stay beside it, each at
      least as close as the closest subject pass, and go after it (``_beside_the_subject``;
      ``passed_on`` "beside").
    - ``response`` (the design's first gate): the answer is empty when every candidate is weak
      on every signal; otherwise all candidates go on, ranked, and each says whether it passed
      on its own or rode on the strongest one.
    - ``candidate``: each candidate must pass on its own.
    - ``off``: nothing is gated (the reranker's replace_floors mode).
    """
    reasons = [
        gate(
            c,
            dense_floor=dense_floor,
            lexical_floor=lexical_floor,
            corroborated=corroborated,
            subject=subject,
            agreed_share=agreed_share,
        )
        for c in candidates
    ]
    passing = [r[1] for r in reasons if r is not None]
    # A subject pass may sit at any score, and an agreed one under both floors: neither is a
    # measure of how close another one is (records rode on an agreed pass at the floor less
    # the margin: "... seltzer water brands?" brought two more turns on its one).
    measures = [
        c for c, r in zip(candidates, reasons, strict=True) if r and r[0] not in _NO_MEASURE
    ]
    weak = [c for c, r in zip(candidates, reasons, strict=True) if r is None]
    close = (
        _close_to_best(
            measures,
            weak,
            dense_margin=dense_margin,
            dense_share=dense_share,
            lexical_share=lexical_share,
        )
        if passing and mode == "result"
        else {}
    )
    beside: dict[str, str] = {}
    if passing and mode == "result" and not measures:
        named = [c for c, r in zip(candidates, reasons, strict=True) if r and r[0] == "subject"]
        beside = _beside_the_subject(named, weak, beside_subject)
    survivors = []
    for candidate, reason in zip(candidates, reasons, strict=True):
        if reason is not None:
            candidate.passed_on, candidate.gate = reason[0], f"passed: {reason[1]}"
        elif mode == "off":
            candidate.passed_on, candidate.gate = "reranker", "not gated (the reranker decides)"
        elif passing and mode == "response":
            candidate.passed_on = "answer"
            candidate.gate = f"weak on its own; the answer passed on: {passing[0]}"
        elif passing and mode == "result" and candidate.record_id in close:
            candidate.passed_on = "margin"
            candidate.gate = f"weak on its own; close to the best: {close[candidate.record_id]}"
        elif passing and mode == "result" and candidate.record_id in beside:
            candidate.passed_on = "beside"
            candidate.gate = f"weak on its own; {beside[candidate.record_id]}"
        else:
            candidate.passed_on = None
            candidate.gate = "weak on every signal" + (
                " and far below the best" if passing and mode == "result" else ""
            )
        if candidate.passed_on is not None and (passing or mode == "off"):
            survivors.append(candidate)
    # Below every record that passed on its own, whatever its fused rank: it is shown in case
    # the subject pass names the asked word in another sense, and must not push a right
    # subject pass out of a short answer ("limit": 1).
    return sorted(survivors, key=lambda c: c.passed_on == "beside")


def _bm25(candidate: Candidate) -> float | None:
    """A candidate's BM25: lexical, or inside the query's time window (the same score)."""
    scores = [m["score"] for g, m in candidate.matches.items() if g in ("lexical", "time")]
    return max(scores) if scores else None


def _beside_the_subject(
    named: list[Candidate], weak: list[Candidate], count: int
) -> dict[str, str]:
    """The ``count`` of ``weak`` closest to the query on dense cosine that are at least as
    close as the closest of ``named`` (the subject passes of an answer that passed on nothing
    else), each with why. A subject pass names what the question asks about at any cosine,
    and sometimes names it only by a word of another sense ("frachtwerk's routing service" for
    "Where do I work?" at 0.03): an answer that shows it must not hide a record closer in
    meaning ("left frachtwerk, start at kontor bank as SRE" at 0.18). A few at most: below a
    subject pass at a low cosine lie most records of a small store."""
    cosines = [c.matches["dense"]["score"] for c in named if "dense" in c.matches]
    if count <= 0 or not cosines:
        return {}
    least = max(cosines)
    closer = [c for c in weak if "dense" in c.matches and c.matches["dense"]["score"] >= least]
    closer.sort(key=lambda c: -c.matches["dense"]["score"])
    return {
        c.record_id: (
            f"closer in meaning than the record naming what the query asks about: dense cosine "
            f"{c.matches['dense']['score']:.3f} >= {least:.3f}"
        )
        for c in closer[:count]
    }


def _close_to_best(
    measures: list[Candidate],
    weak: list[Candidate],
    *,
    dense_margin: float,
    lexical_share: float,
    dense_share: float = 0.0,
) -> dict[str, str]:
    """Those of ``weak`` whose cosine is within ``dense_margin`` of the best of ``measures``
    and at least ``dense_share`` of it, or whose BM25 is at least ``lexical_share`` of the
    best of them, each with why. The share binds where the best is weak: a best at cosine
    0.23 (a corroborated pass in a store of a few dozen records) brought in every record
    above 0.08 on the margin alone, six unrelated ones into "What's my son's name and what
    are his children called?"; at 0.5 of it, records under 0.115 stay out, and from a best
    of 0.3 up the margin binds first.
    ``measures``: the candidates that passed on their own ("the best" is the best result, not
    a stronger score that was itself cut), a subject pass aside: it may sit at any cosine and
    BM25, and a record naming the dog at cosine 0.04 does not bring in every record above
    -0.11."""
    best_cosine = max(
        (c.matches["dense"]["score"] for c in measures if "dense" in c.matches), default=math.inf
    )
    best_bm25 = max((s for c in measures if (s := _bm25(c)) is not None), default=0.0)
    least = max(best_cosine - dense_margin, dense_share * best_cosine)
    share = f" and at least {dense_share} of it" if least > best_cosine - dense_margin else ""
    close: dict[str, str] = {}
    for candidate in weak:
        dense = candidate.matches.get("dense")
        bm25 = _bm25(candidate)
        if dense is not None and dense["score"] >= least:
            close[candidate.record_id] = (
                f"dense cosine {dense['score']:.3f} within {dense_margin} of the best "
                f"{best_cosine:.3f}{share}"
            )
        elif bm25 is not None and best_bm25 > 0 and bm25 >= lexical_share * best_bm25:
            close[candidate.record_id] = (
                f"lexical BM25 {bm25:.3f} at least {lexical_share} of the best {best_bm25:.3f}"
            )
    return close

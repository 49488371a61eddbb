"""Measure session extraction on the dev personal-memory set: planted facts found, and records
that should never have been stored.

    python benchmarks/extraction_dev.py --data DATA/personal-memory-dev.json
                                        [--embedder packaged|hashing] [--show]
                                        [--out benchmarks/results]

For each persona a fresh store (``Memory.open`` on a temporary file), a readwrite grant on
``user:<persona>``, and one session per dev session: its user and assistant turns at
``started_at`` plus two minutes per turn, then ``Session.end()``, which runs the extraction job
in-process (a ``WorkerApp`` in Huey's immediate mode, the offline model backend, the default
judge). Then it counts:

(a) planted facts extracted: labelled evidence turns (the union of the questions' evidence
    lists) that have a record whose evidence, folded (lowercase, punctuation and runs of space
    to one space), is at least 8 characters and lies inside the turn's folded text; the same
    for confirmed records only.
(b) records that misread the turn they quote, found by patterns over the quoted turn (not the
    extractor's own rules): reported speech (the quote's sentence has someone other than the
    user saying, thinking or telling), a retraction after the quote ("that was a lie", "just
    kidding"), sarcasm in or after its sentence ("yeah right", "as if"), a quote cut at an
    abbreviation ("Dr." read as a sentence end: the quote ends at one, or starts after one),
    and one cut inside a number ("4.1" read as "4.").

This is not the personal-memory retrieval evaluation (``agent-memory eval --dataset personal``);
it reads the store, never searches it. ``--show`` prints the flagged records (dev data only).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from _common import RESULTS_DIR, code_version, machine_info, table, utc_now

from agent_memory.core import Config, HashingEmbedder, Memory
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.logging import configure_logging
from agent_memory.core.models import SourceKind
from agent_memory.workers.app import WorkerApp

AGENT = "assistant"

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
# Someone other than the user (or "we") says, thinks or tells something.
_REPORTING = re.compile(
    r"\b(?!i\b|we\b)([a-z]+)\s+(?:\w+\s+)?(said|says|told|tells|thinks|thought|believes|"
    r"claims|claimed|insists|insisted|reckons|swears|keeps saying)\b|\baccording to\b",
    re.IGNORECASE,
)
_RETRACTION = re.compile(
    r"\b(that|this|it) (was|is) (a lie|not true|a joke)\b|\bjust (kidding|joking)\b|\bjk\b|"
    r"\bi('m| am| was) (just )?(kidding|joking)\b|\bi lied\b|\bnot really\b|\bscratch that\b",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"\byeah,? right\b|\bas if\b|(^|\s)/s\b|\bsure,? because\b|\bnot!|\boh (great|joy)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[,;]\s|\s(so|but|and|because)\s", re.IGNORECASE)
_ABBREVIATION = re.compile(r"\b(dr|mr|mrs|ms|st|prof|jr|sr|e\.g|i\.e|etc|vs|u\.s)\.$", re.I)
_SENTENCE_END = re.compile(r"(?<!\b[A-Z])(?<!\b(?:Dr|Mr|Ms|St|vs))(?<!\bMrs)[.!?]+(?=\s|$)")


def fold(text: str) -> str:
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


def turn_time(started_at: str, index: int) -> datetime:
    start = datetime.fromisoformat(started_at.replace("Z", "+00:00"))
    return start + timedelta(minutes=2 * index)


def run_persona(persona: dict[str, Any], *, embedder: str, folder: Path) -> list[dict[str, Any]]:
    """Every record the product stored for one persona, with the session it came from."""
    config = Config(worker={"retry_delay_seconds": 0})
    first = turn_time(persona["sessions"][0]["started_at"], 0)
    chosen = HashingEmbedder() if embedder == "hashing" else None
    mem = Memory.open(folder / f"{persona['id']}.db", config, embedder=chosen, now=first)
    try:
        app = WorkerApp(mem.path, config, immediate=True, backend=OfflineBackend())
        app.attach(mem)
        user = f"u-{persona['id']}"
        mem.grant(AGENT, f"user:{user}", now=first)
        for session in persona["sessions"]:
            s = mem.session(
                agent_id=AGENT,
                user_id=user,
                session_id=session["id"],
                now=turn_time(session["started_at"], 0),
            )
            for i, turn in enumerate(session["turns"]):
                s.add_turn(turn["role"], turn["text"], at=turn_time(session["started_at"], i))
            s.end(now=turn_time(session["started_at"], len(session["turns"])))
        rows = mem.store.query("SELECT id FROM records")
        records = mem.store.get_records([r["id"] for r in rows]).values()
        return [
            {
                "id": r.id,
                "content": r.content,
                "evidence": r.evidence,
                "session_id": r.session_id,
                "source_kind": r.source_kind.value,
                "status": r.status.value,
            }
            for r in records
            if r.source_kind is not SourceKind.SESSION_SUMMARY
        ]
    finally:
        mem.close()


def quoted_turn(record: dict[str, Any], turns: dict[str, list[dict[str, Any]]]) -> Any:
    """The (turn, start, end) of the record's evidence in its session, or None."""
    evidence = (record["evidence"] or "").lower()
    for turn in turns.get(record["session_id"] or "", []):
        start = turn["text"].lower().find(evidence)
        if evidence and start >= 0:
            return turn, start, start + len(evidence)
    return None


def sentence_around(text: str, start: int, end: int) -> tuple[str, str]:
    """The sentence holding text[start:end] (abbreviations do not end one) and what follows."""
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    left = max(b for b in bounds if b <= start)
    right = min((b for b in bounds if b >= end), default=len(text))
    return text[left:right], text[right:]


def _reported(head: str) -> bool:
    """Whether the last reporting verb before the quote governs it: no clause break ("so",
    "but", a comma or semicolon) and at most eight words between them."""
    found = list(_REPORTING.finditer(head))
    if not found:
        return False
    gap = head[found[-1].end() :]
    return len(gap.split()) <= 8 and not _CLAUSE_BREAK.search(gap)


def flags(record: dict[str, Any], turns: dict[str, list[dict[str, Any]]]) -> list[str]:
    found = quoted_turn(record, turns)
    if found is None:
        return []
    turn, start, end = found
    text = turn["text"]
    sentence, after = sentence_around(text, start, end)
    head = sentence[: max(0, sentence.lower().find(record["evidence"].lower()))]
    marks = []
    if _reported(head) or re.search(r"[\"“]\s*$", text[:start]):
        marks.append("reported speech")
    if _RETRACTION.search(text[end:]):
        marks.append("retraction")
    if _SARCASM.search(sentence) or _SARCASM.search(after[:80]):
        marks.append("sarcasm")
    cut_after = text[end : end + 1] == "." and _ABBREVIATION.search(text[: end + 1])
    if cut_after or _ABBREVIATION.search(text[:start].rstrip()):
        marks.append("cut at an abbreviation")
    if re.match(r"\.\d", text[end : end + 2]) and text[end - 1 : end].isdigit():
        marks.append("cut inside a number")
    return marks


def turn_classes(text: str) -> list[str]:
    """Which of the classes a user turn holds at all, so the counts above have a base."""
    marks = []
    if _REPORTING.search(text):
        marks.append("reported speech")
    if _RETRACTION.search(text):
        marks.append("retraction")
    if _SARCASM.search(text):
        marks.append("sarcasm")
    if re.search(r"\b(dr|mr|mrs|ms|st|prof|e\.g|i\.e|etc|vs|u\.s)\.\s", text, re.I):
        marks.append("cut at an abbreviation")
    if re.search(r"\d\.\d", text):
        marks.append("cut inside a number")
    return marks


def measure(data: dict[str, Any], *, embedder: str, show: bool) -> dict[str, Any]:
    totals: Counter[str] = Counter()
    flagged: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for persona in data["personas"]:
            records = run_persona(persona, embedder=embedder, folder=Path(tmp))
            turns = {s["id"]: s["turns"] for s in persona["sessions"]}
            text_of = {t["id"]: t["text"] for s in persona["sessions"] for t in s["turns"]}
            labelled = {e for q in persona["questions"] for e in q["evidence"]}
            totals["records"] += len(records)
            totals["confirmed"] += sum(r["status"] == "confirmed" for r in records)
            totals["labelled_turns"] += len(labelled)
            for turn_id in labelled:
                inside = [
                    r
                    for r in records
                    if len(fold(r["evidence"] or "")) >= 8
                    and fold(r["evidence"] or "") in fold(text_of[turn_id])
                ]
                totals["labelled_found"] += bool(inside)
                totals["labelled_found_confirmed"] += any(
                    r["status"] == "confirmed" for r in inside
                )
            for session in persona["sessions"]:
                for turn in session["turns"]:
                    if turn["role"] == "user":
                        for mark in turn_classes(turn["text"]):
                            totals[f"turns: {mark}"] += 1
            for record in records:
                for mark in flags(record, turns):
                    totals[mark] += 1
                    flagged.append({**record, "flag": mark})
    if show:
        for item in flagged:
            print(f"[{item['flag']}] {item['status']}: {item['content']}  <- {item['evidence']!r}")
    return {"totals": dict(totals), "flagged": flagged}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        required=True,
        help="personal-memory-dev.json of the data folder (see its README)",
    )
    parser.add_argument("--embedder", choices=("packaged", "hashing"), default="packaged")
    parser.add_argument("--show", action="store_true", help="print the flagged records")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    configure_logging(level="WARNING")
    data = json.loads(args.data.read_text())
    started = time.perf_counter()
    result = measure(data, embedder=args.embedder, show=args.show)
    t = result["totals"]
    classes = (
        "reported speech",
        "retraction",
        "sarcasm",
        "cut at an abbreviation",
        "cut inside a number",
    )
    rows = [
        ["records stored (not summaries)", str(t.get("records", 0))],
        ["of them confirmed", str(t.get("confirmed", 0))],
        [
            "labelled evidence turns with a record",
            f"{t.get('labelled_found', 0)} / {t.get('labelled_turns', 0)}",
        ],
        [
            "... with a confirmed record",
            f"{t.get('labelled_found_confirmed', 0)} / {t.get('labelled_turns', 0)}",
        ],
    ]
    rows += [
        [f"records from {c}", f"{t.get(c, 0)} (of {t.get(f'turns: {c}', 0)} user turns with one)"]
        for c in classes
    ]
    print("\n".join(table(["measure", "count"], rows)))
    print(f"\n({time.perf_counter() - started:.0f} s, embedder {args.embedder})")
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "date": utc_now(),
        "machine": machine_info(),
        "code": code_version(),
        "embedder": args.embedder,
        "data": str(args.data),
        "totals": t,
    }
    (args.out / "extraction_dev.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())

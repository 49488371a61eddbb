"""Why the personal eval's extracted path misses: a diagnostic over `api.evaluation.personal`.

For each answerable question whose first five results hold no evidence turn: was a record
with evidence in an evidence turn extracted at all (and its status), was it a candidate of the
search, cut by the gate, or ranked below the fifth result? For each update: were the stale
turns' records retired (superseded / retracted) by the time the question was asked? For each
unanswerable question answered: which gate signal let the first result through?

    python benchmarks/personal_misses.py --data DATA [--half odd|even] [--show]

(DATA: the data folder, see its README.)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.api.evaluation import personal as pe
from agent_memory.api.evaluation.metrics import _recall, personal_metrics
from agent_memory.api.evaluation.personas import Answer, load
from agent_memory.core.config import Config
from agent_memory.core.embedder import make_embedder


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--half", choices=["odd", "even", "all"], default="all")
    parser.add_argument("--show", action="store_true", help="print each miss")
    parser.add_argument("--persona", action="append", default=[])
    args = parser.parse_args()
    personas = load(args.data)
    if args.half != "all":
        keep = 1 if args.half == "odd" else 0
        personas = [p for i, p in enumerate(personas, start=1) if i % 2 == keep]
    if args.persona:
        personas = [p for p in personas if p.id in args.persona]
    config = Config()
    embedder = make_embedder(config.embedder)
    causes: Counter[str] = Counter()
    updates: Counter[str] = Counter()
    unanswered: Counter[str] = Counter()
    retired: Counter[str] = Counter()
    answers: list[Answer] = []
    with tempfile.TemporaryDirectory() as scratch:
        for persona in personas:
            with pe.persona_store(
                persona, "extracted", store_dir=Path(scratch), config=config, embedder=embedder
            ) as mem:
                got = pe.ask(mem, persona, "extracted")
                answers += got
                rows = mem.store.query(
                    "SELECT id, content, evidence, status, type, supersedes_id, created_at "
                    "FROM records WHERE scope = ?",
                    [f"user:{persona.id}"],
                )
                folded = {t.id: pe.fold(t.text) for s in persona.sessions for t in s.turns}
                by_turn: dict[str, list[dict]] = {}
                for row in rows:
                    ev = pe.fold(row["evidence"] or "")
                    if len(ev) < pe.MIN_EVIDENCE:
                        continue
                    for tid, text in folded.items():
                        if ev in text:
                            by_turn.setdefault(tid, []).append(dict(row))
                for answer in got:
                    _diagnose(answer, persona, by_turn, causes, updates, unanswered, args.show)
                _forgotten(persona, by_turn, retired, args.show)
    report = personal_metrics(answers)
    print(json.dumps({k: report[k] for k in report if k != "by_kind"}, indent=1))
    for kind, values in report["by_kind"].items():
        print(f"  {kind:<18}", values)
    print("answerable misses by cause:", dict(causes.most_common()))
    print("updates:", dict(updates.most_common()))
    print("unanswerable answered, first result passed on:", dict(unanswered.most_common()))
    print("superseded records by their turn's labels:", dict(retired.most_common()))


def _diagnose(answer, persona, by_turn, causes, updates, unanswered, show) -> None:
    q = answer.question
    logged = answer.logged or {}
    passed = set(logged.get("gate", {}).get("passed", []))
    final = logged.get("final_ids", [])
    fused = [c["id"] for c in logged.get("candidates", {}).get("fused", [])]
    if not q.answerable:
        if answer.matches:
            why = logged["result_explanations"][final[0]]["gate"] if final else "?"
            unanswered[f"{q.kind}: {why.split(':')[0]}{_signal(why)}"] += 1
            if show:
                print(f"UNANS {q.id} [{q.kind}] {q.text!r}")
        return
    if q.kind == "update":
        live = ("confirmed", "provisional")
        stale_live = [r for t in q.stale for r in by_turn.get(t, []) if r["status"] in live]
        stale_any = [r for t in q.stale for r in by_turn.get(t, [])]
        current = [r for t in q.evidence for r in by_turn.get(t, [])]
        if not stale_any:
            updates["stale never extracted"] += 1
        elif stale_live:
            updates["stale still live"] += 1
            if show:
                print(f"STALE {q.id} {q.text!r}")
                for r in stale_live:
                    print("    stale:", r["status"], r["content"][:100])
                for r in current:
                    print("    cur:  ", r["status"], r["content"][:100])
                for t in q.evidence:
                    print("    evid turn:", persona.turn(t).text[:160])
        else:
            updates["stale retired"] += 1
    if _recall(answer) > 0:
        return
    records = [r for t in q.evidence for r in by_turn.get(t, [])]
    live = [r for r in records if r["status"] in ("confirmed", "provisional")]
    ids = {r["id"] for r in live}
    if not records:
        cause = "not extracted"
    elif not live:
        cause = "extracted but not live (" + ",".join(sorted({r["status"] for r in records})) + ")"
    elif not ids & set(fused):
        cause = "live, not a candidate"
    elif not ids & passed:
        cause = "cut by gate" + (" (answer empty)" if not final else " (others passed)")
    else:
        pos = min(final.index(i) if i in final else 99 for i in ids)
        cause = "passed, below top 5" if pos >= 5 else "passed, collapsed/budget"
        if pos == 99:
            cause = "passed, not in final (collapse/limit)"
    causes[cause] += 1
    if show:
        print(f"MISS {q.id} [{q.kind}] {cause}: {q.text!r}")
        for t in q.evidence:
            print("    turn:", persona.turn(t).text[:200])
        for r in records[:3]:
            print("    rec:", r["status"], r["type"], r["content"][:120])
        for i in final[:3]:
            print("    got:", logged["result_explanations"][i]["gate"][:90])


def _forgotten(persona, by_turn, retired, show) -> None:
    """Superseded records by what their turn is labelled: "wrongly retired" when it is an
    evidence turn of a question still valid (a non-update question, or an update's current
    value) and no update's stale turn; "stale turn" when it is only a stale turn; "both" when
    it is both (the turn holds a stale and a still valid fact); "unlabelled" otherwise."""
    valid = {t for q in persona.questions for t in q.evidence}
    stale = {t for q in persona.questions for t in q.stale}
    seen: set[str] = set()
    for rows in by_turn.values():
        for r in rows:
            if r["status"] != "superseded" or r["id"] in seen:
                continue
            seen.add(r["id"])
            turns = {t for t, rs in by_turn.items() if any(x["id"] == r["id"] for x in rs)}
            if turns & valid and turns & stale:
                label = "both"
            elif turns & valid:
                label = "wrongly retired"
            elif turns & stale:
                label = "stale turn"
            else:
                label = "unlabelled"
            retired[label] += 1
            if show and label == "wrongly retired":
                print(f"FORGOT {persona.id} {sorted(turns)}: {r['content'][:100]}")


def _signal(why: str) -> str:
    for s in ("dense", "lexical", "entity", "time", "close to the best"):
        if s in why:
            return f" ({s})"
    return ""


if __name__ == "__main__":
    main()

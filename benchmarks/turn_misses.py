"""Where the personal eval's "turns" path misses: a diagnostic over `api.evaluation.personal`.

For each answerable question whose first five results hold no evidence turn, from the
search's own log: was it answered empty or not, and where did the best evidence turn's
record rank among the fused candidates (in the first five, lower, or not a candidate at
all), and in the dense and lexical lists? With ``--show``, each miss with the evidence
turn's cosine and the first results above it (their role and cosine).

    python benchmarks/turn_misses.py --data DATA/personal-memory-dev.json --half odd \\
        [--cache /tmp/emb-personal.pkl] [--show]

(DATA: the data folder, see its README.) Record and query vectors can be kept between runs
as in benchmarks/turn_halves.py (same ``--cache`` file format).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from turn_halves import CachedEmbedder, configured, in_half

from agent_memory.api.evaluation import personal as pe
from agent_memory.api.evaluation.personas import Answer, load
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import make_embedder


def rank(ids: list[str], wanted: set[str]) -> int | None:
    """The 1-based rank of the first of ``wanted`` in ``ids``, else None."""
    return next((n for n, i in enumerate(ids, start=1) if i in wanted), None)


def diagnose(mem: Memory, answer: Answer, show: bool) -> tuple[str, str] | None:
    """The miss's bucket (answered empty or not, where the evidence ranked), or None."""
    q = answer.question
    if not q.evidence or any(m & set(q.evidence) for m in answer.matches[:5]):
        return None
    log: dict[str, Any] = answer.logged or {}
    lists = {g: [c["id"] for c in log["candidates"].get(g, [])] for g in ("dense", "lexical")}
    fused = [c["id"] for c in log["candidates"]["fused"]]
    evidence = {i for i, m in (answer.candidates or {}).items() if m & set(q.evidence)}
    at = rank(fused, evidence)
    bucket = (
        "answered empty" if not answer.matches else "answered",
        "not a candidate" if at is None else "fused top 5" if at <= 5 else "fused below 5",
    )
    if show:
        cosine = {c["id"]: c["score"] for c in log["candidates"].get("dense", [])}
        records = mem.store.get_records(fused[:4] + sorted(evidence))
        print(f"\n[{' / '.join(bucket)}] {q.id} ({q.kind}): {q.text}")
        print(
            f"  evidence: fused #{at}, dense #{rank(lists['dense'], evidence)}, "
            f"lexical #{rank(lists['lexical'], evidence)}, gate {log['gate'].get('decision')}"
        )
        for record_id in fused[:4] + sorted(evidence - set(fused[:4]))[:1]:
            r = records[record_id]
            mark = "*" if record_id in evidence else " "
            print(f"  {mark} cos {cosine.get(record_id, float('nan')):.3f} {r.content[:100]!r}")
    return bucket


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--half", choices=["odd", "even", "all"], default="all")
    parser.add_argument("--cache", type=Path, help="pickle file of vectors kept between runs")
    parser.add_argument("--show", action="store_true", help="print each miss")
    args = parser.parse_args()
    embedder = CachedEmbedder(make_embedder(Config().embedder), args.cache)
    work = Path(tempfile.mkdtemp(prefix="turn-misses-"))
    buckets: Counter[tuple[str, str]] = Counter()
    asked = 0
    try:
        for position, persona in enumerate(load(args.data), start=1):
            if not in_half(position, args.half):
                continue
            with pe.persona_store(
                persona, "turns", store_dir=work, config=configured({}), embedder=embedder
            ) as mem:
                for answer in pe.ask(mem, persona, "turns"):
                    asked += bool(answer.question.evidence)
                    if (bucket := diagnose(mem, answer, args.show)) is not None:
                        buckets[bucket] += 1
        embedder.save()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{sum(buckets.values())} misses of {asked} answerable questions:")
    for (answered, where), count in buckets.most_common():
        print(f"  {answered:<15} evidence {where:<16} {count}")


if __name__ == "__main__":
    main()

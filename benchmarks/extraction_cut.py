"""What extraction.max_candidates keeps from a long session, under two selection rules.

    .venv/bin/python benchmarks/extraction_cut.py --data DATA/locomo-dev.json

(DATA: the data folder, see its README.)

Each LoCoMo dev conversation becomes one long session (speaker_a's turns as the user's, the
other speaker's as the assistant's, a day per session), the offline extractor proposes
candidates from both sides (the other side's labelled agent_inference, as a model backend's
inferences would be), and each rule keeps extraction.max_candidates of them:

- first_n: the first N candidates (before issue 17);
- user_first: core.extraction.validator.select_candidates (the user's statements first).

Reported per rule: the share of the user's QA evidence turns (turns a LoCoMo question is about)
that keep at least one candidate, among those that had one before the cut. Conversations 0-2
were looked at while writing the rule, 3-5 are reported apart (held out).
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent_memory.core.config import Config
from agent_memory.core.extraction.offline import OfflineBackend
from agent_memory.core.extraction.schema import SessionView
from agent_memory.core.extraction.validator import ALL_ROLES, select_candidates
from agent_memory.core.models import format_time
from agent_memory.core.write.evidence import Turn, find_quote


def sessions(conversation: dict) -> list[Turn]:
    """The conversation's turns in order, with their LoCoMo dia_id kept by seq."""
    speaker_a = conversation["speaker_a"]
    keys = sorted(
        (k for k in conversation if re.fullmatch(r"session_\d+", k)),
        key=lambda k: int(k.split("_")[1]),
    )
    turns, start = [], datetime(2023, 1, 1, tzinfo=UTC)
    for n, key in enumerate(keys):
        for i, turn in enumerate(conversation[key]):
            at = format_time(start + timedelta(days=n, seconds=i))
            role = "user" if turn["speaker"] == speaker_a else "assistant"
            turns.append((turn["dia_id"], Turn(len(turns) + 1, role, turn["text"], at)))
    return turns  # type: ignore[return-value]


def measure(sample: dict, limit: int) -> dict[str, float]:
    pairs = sessions(sample["conversation"])
    turns = [t for _, t in pairs]
    by_dia = {dia: t.seq for dia, t in pairs}
    evidence = {
        by_dia[e]
        for qa in sample["qa"]
        if qa.get("category") in (1, 2, 3, 4)
        for e in re.split(r"[;,\s]+", " ".join(qa.get("evidence", [])))
        if e in by_dia and turns[by_dia[e] - 1].role == "user"
    }
    # The offline rules read only the user's turns; a model backend also infers from the
    # other side. That mix is simulated: the other speaker's turns are read as the user's, and
    # what they give is labelled agent_inference.
    as_user = tuple(Turn(t.seq, "user", t.content, t.at) for t in turns)
    view = SessionView("s", "a", "u", as_user, targets=("personal",))
    found = []
    for c in OfflineBackend().extract(view).candidates:
        turn = find_quote(c.evidence, turns, roles=ALL_ROLES)
        if turn is not None and turn.role == "assistant":
            c = c.model_copy(update={"source_kind": "agent_inference"})
        found.append(c)

    def covered(kept: list) -> set[int]:
        seqs = set()
        for c in kept:
            turn = find_quote(c.evidence, turns, roles=ALL_ROLES)
            if turn is not None:
                seqs.add(turn.seq)
        return seqs & evidence

    reachable = covered(list(found))
    first_n = covered(list(found[:limit]))
    user_first = covered(select_candidates(found, limit, turns)[0])
    return {
        "turns": len(turns),
        "candidates": len(found),
        "evidence_turns_with_a_candidate": len(reachable),
        "first_n": len(first_n) / max(len(reachable), 1),
        "user_first": len(user_first) / max(len(reachable), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        required=True,
        help="locomo-dev.json of the data folder (see its README)",
    )
    parser.add_argument("--limit", type=int, default=Config().extraction.max_candidates)
    parser.add_argument("--out", help="also write the report here")
    args = parser.parse_args()
    data = json.loads(Path(args.data).read_text())
    report: dict = {"limit": args.limit, "development": [], "held_out": []}
    for i, sample in enumerate(data):
        report["development" if i < 3 else "held_out"].append(measure(sample, args.limit))
    for part in ("development", "held_out"):
        rows = report[part]
        reachable = sum(r["evidence_turns_with_a_candidate"] for r in rows)
        report[f"{part}_pooled"] = {
            rule: round(
                sum(r[rule] * r["evidence_turns_with_a_candidate"] for r in rows)
                / max(reachable, 1),
                3,
            )
            for rule in ("first_n", "user_first")
        }
    text = json.dumps(report, indent=2)
    if args.out:
        Path(args.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

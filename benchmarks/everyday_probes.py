"""Run the everyday probe set through the whole extraction pipeline and print what each turn
stores, beside the facts it plants, for judging by hand.

    python benchmarks/everyday_probes.py [--probes benchmarks/data/everyday_probes.json]
                                         [--out FILE]

The probes (``benchmarks/data/everyday_probes.json``) are 180 everyday user turns a helper
session wrote in session 27 without sight of the rules or the dev data: 150 plant 263 facts
("facts": what a reader should be able to recall), 30 must store no confirmed claim of the
user's ("negative": hypotheticals, reports, sarcasm, retracted jokes). Each turn is extracted
in a fresh store (``tests.support.extraction``: a real SQLite file, the packaged embedder, the
offline model backend and the default judge, the session ended and its job run), and every
stored record but the session summary is printed with its status, source kind, content and
evidence. Whether a fact is kept (a confirmed record states it), kept weakly (only as a
provisional inference, or without its key detail) or lost is judged by reading: the rules
that judge a sentence are what is measured, so no rule judges them here. Figures and classes
of loss: benchmarks/README.md, "Session 27".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.core.config import Config
from agent_memory.core.embedder import make_embedder
from tests.support.extraction import extracted_session, extracting_memory, stated_records

PROBES = Path(__file__).resolve().parent / "data" / "everyday_probes.json"


def run(probes: list[dict[str, Any]], out: IO[str]) -> None:
    embedder = make_embedder(Config().embedder)
    for index, probe in enumerate(probes):
        turn = str(probe["turn"])
        with (
            tempfile.TemporaryDirectory() as folder,
            extracting_memory(Path(folder) / "m.db", embedder) as memory,
        ):
            extracted_session(memory, "s1", turn)
            records = stated_records(memory)
        negative = "NEG " if probe.get("negative") else ""
        print(f"== [{index}] {negative}{turn}", file=out)
        for fact in probe.get("facts") or []:
            print(f"   FACT: {fact}", file=out)
        for record in records:
            print(
                f"    -> {record.status.value} {record.source_kind.value} | "
                f"{record.content} || ev: {record.evidence}",
                file=out,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=Path, default=PROBES)
    parser.add_argument("--out", type=Path, help="write here instead of stdout")
    args = parser.parse_args()
    probes = json.loads(args.probes.read_text())
    if args.out is None:
        run(probes, sys.stdout)
    else:
        with args.out.open("w") as out:
            run(probes, out)


if __name__ == "__main__":
    main()

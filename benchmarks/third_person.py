"""The personal set asked as an agent asks it: every question in the third person.

The personal sets ask as the user would ("Where do I live?"); an agent calling memory_search
as often writes "Where does the user live?" or "What is the user's dog called?". This writes a
copy of a personal-set file with each question rewritten so (first-person pronouns and their
auxiliaries to "the user"), for `agent-memory eval --dataset personal` to measure both forms
on the same stores:

    python benchmarks/third_person.py DATA/personal-memory-dev.json /tmp/dev-3p.json
    agent-memory eval --dataset personal --data /tmp/dev-3p.json

The rewrite is api.evaluation.person.third_person (a word rule), which `agent-memory eval
--dataset personal` also applies itself, reporting both forms; this copy is for a run of the
third-person set alone.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent_memory.api.evaluation.person import third_person


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a personal-set JSON file")
    parser.add_argument("out", type=Path, help="where to write the rewritten copy")
    args = parser.parse_args()
    data = json.loads(args.source.read_text(encoding="utf-8"))
    for persona in data["personas"]:
        for question in persona["questions"]:
            question["question"] = third_person(question["question"])
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

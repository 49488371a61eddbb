"""How well core.search.profile_question.asks reads a question about the user as a whole:
recall on whole-person questions, false fires on look-alikes, per labelled set
(benchmarks/data/profile_questions.json; benchmarks/README.md, "Session 50").

    .venv/bin/python benchmarks/profile_questions.py [--show]

``--show`` lists every false fire and miss.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agent_memory.core.search.profile_question import asks

DATA = Path(__file__).resolve().parent / "data" / "profile_questions.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list false fires and misses")
    args = parser.parse_args()
    data = json.loads(DATA.read_text())
    for labelled in data["sets"]:
        missed = [q for q in labelled["positive"] if not asks(q)]
        fired = [q for q in labelled["negative"] if asks(q)]
        read = len(labelled["positive"]) - len(missed)
        print(
            f"{labelled['name']}: read {read} of {len(labelled['positive'])} whole-person "
            f"questions ({read / len(labelled['positive']):.3f}); {len(fired)} of "
            f"{len(labelled['negative'])} look-alikes read as one"
        )
        if args.show:
            for q in fired:
                print(f"   false fire: {q}")
            for q in missed:
                print(f"   missed:     {q}")


if __name__ == "__main__":
    main()

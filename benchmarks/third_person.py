"""The personal set asked as an agent asks it: every question in the third person.

The personal sets ask as the user would ("Where do I live?"); an agent calling memory_search
as often writes "Where does the user live?" or "What is the user's dog called?". This writes a
copy of a personal-set file with each question rewritten so (first-person pronouns and their
auxiliaries to "the user"), for `agent-memory eval --dataset personal` to measure both forms
on the same stores:

    python benchmarks/third_person.py DATA/personal-memory-dev.json /tmp/dev-3p.json
    agent-memory eval --dataset personal --data /tmp/dev-3p.json

The rewrite is a word rule, not a parser: "Where do I live?" -> "Where does the user live?",
"How old am I?" -> "How old is the user?", "What car do we drive?" -> "What car does the user
drive?", "Suggest a dinner I can cook." -> "Suggest a dinner the user can cook."; a verb after
a bare "I" keeps its form ("What should I make" -> "What should the user make").
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

# (pattern, replacement), applied in order to each question; case-insensitive.
_REWRITES = [
    (r"\b(?:am|are) (?:i|we)\b", "is the user"),
    (r"\b(?:i am|i'm|we are|we're)\b", "the user is"),
    (r"\b(?:do|does) (?:i|we)\b", "does the user"),
    (r"\b(did|was|were|can|could|should|would|will|shall|must) (?:i|we)\b", r"\1 the user"),
    (r"\b(?:have|has) (?:i|we)\b", "has the user"),
    (r"\b(?:i|we) have\b|\b(?:i|we)'ve\b", "the user has"),
    (r"\b(?:i|we)'d\b", "the user would"),
    (r"\b(?:i|we)'ll\b", "the user will"),
    (r"\b(?:my|our|mine|ours)\b", "the user's"),
    (r"\b(?:myself|ourselves)\b", "themselves"),
    (r"\b(?:me|us|i|we)\b", "the user"),
]


def third_person(question: str) -> str:
    """``question`` with its first-person words said of "the user"."""
    for pattern, replacement in _REWRITES:
        question = re.sub(pattern, replacement, question, flags=re.IGNORECASE)
    return question


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

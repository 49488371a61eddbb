"""The personal set's questions as an agent asks them: in the third person.

The personal sets ask as the user would ("Where do I live?"); an agent calling memory_search as
often writes "Where does the user live?" or "What is the user's dog called?", and every fact
the extractors phrase says "The user ...". ``third_person`` rewrites a question so (its
first-person pronouns and their auxiliaries said of "the user"), and the personal evaluation
asks every question both ways on the same stores (api.evaluation.personal).

The rewrite is a word rule, not a parser: "Where do I live?" -> "Where does the user live?",
"How old am I?" -> "How old is the user?", "What car do we drive?" -> "What car does the user
drive?", "Suggest a dinner I can cook." -> "Suggest a dinner the user can cook."; a verb after
a bare "I" keeps its form ("What should I make" -> "What should the user make").
"""

from __future__ import annotations

import re

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


__all__ = ["third_person"]

"""Identity sentences said name first: "Devon is my manager now" says "my manager is Devon now".

An identity copula ("X is my Y") is symmetric, but the word rules read words in order and the
small parser takes the name for the subject, so "Devon is my manager" did not give "The user's
manager is Devon." This module rewrites such a quote sentence into the possessor-first order,
which every reading then judges as it would have judged the user saying it that way. The
shape is read by core.holder, the same reader the offline extractor phrases it with, so an
extracted "The user's manager is Dana." is confirmed by the quote it came from.
"""

from __future__ import annotations

from agent_memory.core.holder import read_holder


def possessor_first(sentence: str) -> str | None:
    """``sentence`` as "my Y is X", or None when it is not a plain inverted identity."""
    holder = read_holder(sentence)
    return None if holder is None else holder.possessor_first()

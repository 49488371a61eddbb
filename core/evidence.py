"""Finding an evidence quote in a session transcript, and which turns can vouch for one.

"Verbatim" here means the same characters up to presentation: Unicode compatibility forms
(NFKC), curly versus straight quotes and apostrophes, dashes, runs of whitespace and letter case.
Nothing else is forgiven: no stemming, no reordering, no fuzzy matching. A quote must have at
least two words and eight characters, so a fragment like "yes" cannot vouch for a statement.

Who can vouch (``vouching_problem``): a tool turn backs a tool_result only when the host named
its tool authoritative for the session (``Turn.authoritative``; none is by default) and the
quote is not the model's own words handed back: every word trigram of the quote (its words,
when it has fewer than three) already said in an assistant turn before it (a reply, or the
arguments of a tool call the model made, e.g. a file it wrote and then read). A tool turn that
cannot vouch is evidence for agent_inference at most. The echo check is literal: a model that
writes a paraphrase into a file and reads it back is caught only by the tool not being
authoritative.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_QUOTE_CHARS = 8
MIN_QUOTE_WORDS = 2

_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+(?:['-]\w+)*")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session transcript. ``tool``: for a tool turn, the tool whose output it
    is; for an assistant turn, the tool the model called with ``content`` as its arguments.
    ``authoritative``: the host names that tool authoritative for this session."""

    seq: int
    role: str
    content: str
    at: str
    tool: str | None = None
    authoritative: bool = False


def normalise(text: str) -> str:
    """The form in which quotes and transcripts are compared."""
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE)
    return _SPACE.sub(" ", text).strip().casefold()


def quote_problem(quote: str) -> str | None:
    """Why a quote is too short to count as evidence, or None if it is long enough."""
    normal = normalise(quote)
    if len(normal) < MIN_QUOTE_CHARS or len(normal.split()) < MIN_QUOTE_WORDS:
        return (
            f"the evidence quote is too short to support a claim (at least "
            f"{MIN_QUOTE_WORDS} words and {MIN_QUOTE_CHARS} characters)"
        )
    return None


def find_quote(quote: str, turns: Iterable[Turn], *, roles: Sequence[str]) -> Turn | None:
    """The first turn by one of ``roles`` that contains ``quote`` verbatim (see module doc)."""
    if quote_problem(quote) is not None:
        return None
    needle = normalise(quote)
    for turn in turns:
        if turn.role in roles and needle in normalise(turn.content):
            return turn
    return None


def find_evidence(
    quote: str, turns: Sequence[Turn], *, roles: Sequence[str]
) -> tuple[Turn | None, str | None]:
    """The first turn by one of ``roles`` that contains ``quote`` verbatim and can vouch for
    it; else None and why the turns that contain it cannot (None: no turn contains it)."""
    if quote_problem(quote) is not None:
        return None, None
    needle = normalise(quote)
    problem = None
    for turn in turns:
        if turn.role in roles and needle in normalise(turn.content):
            unfit = vouching_problem(turn, quote, turns)
            if unfit is None:
                return turn, None
            problem = problem or unfit  # the first turn's reason
    return None, problem


def vouching_problem(turn: Turn, quote: str, turns: Sequence[Turn]) -> str | None:
    """Why ``turn`` cannot vouch for ``quote`` as more than an inference, or None. Only tool
    turns are restricted here; which role backs which source is the ingestor's rule."""
    if turn.role != "tool":
        return None
    if turn.tool is None:
        return "the tool turn does not say which tool produced it"
    if not turn.authoritative:
        return f"the host does not name the tool {turn.tool!r} authoritative"
    if echoes_model(quote, turn, turns):
        return f"the output of {turn.tool!r} repeats what the model itself wrote earlier"
    return None


def echoes_model(text: str, turn: Turn, turns: Sequence[Turn]) -> bool:
    """Whether ``text`` (found in ``turn``) only repeats words the model wrote before that
    turn: every word trigram of it occurs in an earlier assistant turn (see module doc)."""
    earlier = [t.content for t in turns if t.role == "assistant" and t.seq < turn.seq]
    return repeats(text, earlier)


def repeats(text: str, said: Sequence[str]) -> bool:
    """Whether every word trigram of ``text`` (its words, when it has fewer than three)
    occurs in one of ``said``, compared normalised: ``text`` says nothing they did not."""
    words = _WORD.findall(normalise(text))
    if not words or not said:
        return False
    spoken = [f" {' '.join(_WORD.findall(normalise(s)))} " for s in said]
    size = min(3, len(words))
    grams = {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}
    return all(any(f" {g} " in s for s in spoken) for g in grams)

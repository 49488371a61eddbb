"""The text a failed stage keeps as its error: what went wrong, never what the session said.

A stage's error is stored on the job (``last_error``, the job history), logged and shown by
``agent-memory jobs``; transcripts are personal data that ``forget`` erases from records and
turns but not from there. So exception messages are reduced before they are kept:

- a pydantic ValidationError keeps each problem's location and message, not its input;
- any other message that repeats a run of ``QUOTE_WORDS`` words of the session's turns (a
  parser quoting the line it choked on, a model error echoing its output), or any one word of
  them that is not a stopword (a ``KeyError`` naming a code, a message naming a person or an
  illness in other words than the user's), is withheld, and only the exception's type is
  kept. One shared word is enough because a single word is often the secret; an error that
  shares an ordinary word ("connection") loses its message too, which costs diagnosis, never
  privacy: the type, the stage and the attempt stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import ValidationError

from agent_memory.core.search.lexical import STOPWORDS
from agent_memory.core.write.evidence import Turn, normalise

QUOTE_WORDS = 4
MAX_CHARS = 2000
SHORT_TURN_CHARS = 8
MIN_SHARED_CHARS = 3
_WORD = re.compile(r"\w+", re.UNICODE)


def stage_error_text(exc: BaseException, turns: Iterable[Turn]) -> str:
    """``Type: message`` for ``exc``, without any of the session's text (module docstring)."""
    name = type(exc).__name__
    if isinstance(exc, ValidationError):
        problems = exc.errors(include_input=False, include_url=False, include_context=False)
        shown = "; ".join(
            f"{'.'.join(str(p) for p in problem['loc']) or 'input'}: {problem['msg']}"
            for problem in problems[:5]
        )
        return f"{name}: {exc.error_count()} problem(s): {shown}"[:MAX_CHARS]
    message = str(exc)
    if quotes_turns(message, turns):
        return f"{name} (its message repeated the session's text and is not kept)"
    return f"{name}: {message}"[:MAX_CHARS]


def quotes_turns(text: str, turns: Iterable[Turn]) -> bool:
    """Whether ``text`` repeats ``QUOTE_WORDS`` consecutive words of any turn (compared in
    core.write.evidence's normal form), the whole of a shorter turn of ``SHORT_TURN_CHARS`` or
    more characters (a password on its own line), or any word of a turn that is not a
    stopword and has ``MIN_SHARED_CHARS`` characters or more."""
    words = normalise(text).split()
    if not words:
        return False
    turns = list(turns)
    if _content_words(text) & set().union(*(_content_words(t.content) for t in turns)):
        return True
    grams = {" ".join(words[i : i + QUOTE_WORDS]) for i in range(len(words))}
    joined = " ".join(words)
    for turn in turns:
        said = normalise(turn.content).split()
        if len(said) < QUOTE_WORDS:  # a short turn counts whole, if it is a real phrase
            short = " ".join(said)
            if len(short) >= SHORT_TURN_CHARS and f" {short} " in f" {joined} ":
                return True
            continue
        for i in range(len(said) - QUOTE_WORDS + 1):
            if " ".join(said[i : i + QUOTE_WORDS]) in grams:
                return True
    return False


def _content_words(text: str) -> set[str]:
    """The words of ``text`` that could identify what was said: no stopwords, no short ones."""
    return {
        w
        for w in _WORD.findall(normalise(text))
        if len(w) >= MIN_SHARED_CHARS and w not in STOPWORDS
    }


__all__ = ["QUOTE_WORDS", "quotes_turns", "stage_error_text"]

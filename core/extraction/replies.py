"""What the assistant said: its replies kept, for when the user asks about them.

"Can you remind me of the name of that restaurant you recommended?", "You listed five bottles
for a gin bar; what was the fifth?": a user asks an assistant what it said before, and the
answer is in the assistant's own turn. The extractor keeps what the user said (a statement of
the assistant's is no fact about the user or the world: core.extraction.anthropic's prompt);
on LongMemEval-S's evidence sessions every question of this kind was answered without its
turn on the extracted path (benchmarks/README.md, "Session 57").

So at the end of session extraction every assistant turn of the session (not a tool call) is
kept in parts (``parts``): its paragraphs, joined while they fit in ``PART_CHARS`` characters,
and a longer one cut at its sentences, so that a part is small enough to put in a prompt and
the one that answers is found by its own words. A part that says nothing (acknowledgements,
questions back: ``says``) is left out, and so is one that names a credential at all
(``names_a_credential``: an assistant repeats one in forms no "<credential> is <value>"
reading catches, and a reply is not worth the risk), as is such a sentence of the user turn a
part answers. Each part is an episodic record read like an assistant's imported turn
("assistant: <words>", tagged role:assistant, its retrieval context the session's date and
the user turn it answers: core.write.conversation) whose evidence is the part verbatim, marked
``said_by`` "assistant" (core.models.Record), in the private scope of the agent and the user:
what this agent told this user (another agent's "what did you recommend?" is not about it).
Its source is the assistant's, agent_inference, so it is provisional, as an assistant turn
supports nothing more (core.write.evidence): what was said, not what is true; and it never
expires (core.write.importer), since what was said does not lapse.

The hard filter leaves such records out of every read (core.filters.RecordFilter
.assistant_words): duplicates, corrections, the reviewer's related records, profiles, the
gate's statistics and every search, except a search whose question names what the assistant
said (core.write.conversation.names_what_the_assistant_said: "you recommended", "did you",
"your last answer", "our previous chat"; not a bare "remind me", as often about the user's
own fact). They never confirm, supersede or reinforce anything, and a search about the user
or the world never sees them; forgetting a record erases those restating it
(core.suppressions.echoes).

They are written by the summarize stage (core.extraction.pipeline) through the bulk importer,
never a part that restates a forgotten record in a sentence or clause
(core.suppressions.restates) nor one the session's kept words hold already, and
``extraction.assistant_words`` false turns it off.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from agent_memory.core.framing import tells_a_secret
from agent_memory.core.models import parse_time
from agent_memory.core.sentences import sentence_spans
from agent_memory.core.write.conversation import CONTEXT_EXCERPT, ROLE_TAG
from agent_memory.core.write.evidence import Turn

# A part holds paragraphs joined up to this many characters; a longer paragraph is cut at its
# sentences into parts of at most ``PART_CHARS``, and a longer sentence at this many.
PART_CHARS = 800
# A sentence of fewer words says nothing to find it by ("Sure!", "You're welcome."), unless it
# is as long as a sentence of a language written without spaces between its words.
MIN_WORDS = 4
MIN_CHARS = 20
# A credential named at all: an assistant repeats one in forms no "<credential> is <value>"
# reading catches ("I've noted your PIN (4821)", "your SSN 123-45-6789 in box 1b"), and a reply
# is not worth the risk, so a part naming one is not kept (nor such a sentence of the user's).
_CREDENTIAL = re.compile(
    r"\b(?:pass(?:word|code|phrase)s?|PINs?|pin (?:code|number)|SSNs?|social security|"
    r"(?:api|access|secret|private|auth|bearer|refresh) (?:keys?|tokens?)|api ?keys?|"
    r"(?:seed|recovery) (?:phrase|words|codes?)|backup codes?|one-time (?:code|password)|"
    r"OTPs?|2fa codes?|CVV|CVC|(?:security|verification|confirmation|access) codes?|"
    r"passkeys?|(?:card|account|routing) number|sort code|"
    r"IBAN|login (?:credentials|details))\b"
)
# "pin" in lower case is as often a pin: a credential only with digits right after it.
_PIN_NUMBER = re.compile(r"\bpin\b\W{0,4}\d", re.IGNORECASE)
_PARAGRAPH = re.compile(r"\n\s*\n")
_WORD = re.compile(r"\w+")  # a redacted turn (core.erasure) has none
ROLE = "assistant"


def parts(text: str) -> list[str]:
    """``text`` (an assistant turn) in parts of at most ``PART_CHARS`` characters, each a
    verbatim span of it: its paragraphs joined while they fit, a longer one cut at its
    sentences (a longer sentence at ``PART_CHARS``); a part that says nothing (``says``) is
    left out."""
    joined: list[tuple[int, int]] = []
    for start, end in _pieces(text):
        if joined and end - joined[-1][0] <= PART_CHARS:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    spans = (text[start:end] for start, end in joined)
    return [part for part in spans if says(part) and not names_a_credential(part)]


def names_a_credential(text: str) -> bool:
    """Whether ``text`` names a credential (``_CREDENTIAL``, any case but for the short
    upper-case ones: "PIN", "SSN"; "pin" followed by digits) or a sentence of it tells one
    with its value (core.framing.tells_a_secret)."""
    lowered = re.sub(r"\b(?:PINs?|SSNs?|OTPs?|CVV|CVC|IBAN)\b", "", text).lower()
    return (
        _CREDENTIAL.search(text) is not None
        or _CREDENTIAL.search(lowered) is not None
        or _PIN_NUMBER.search(text) is not None
        or any(tells_a_secret(text[a:b]) for a, b in sentence_spans(text))
    )


def says(part: str) -> bool:
    """Whether ``part`` tells the user something: a sentence of ``MIN_WORDS`` words or more
    (or ``MIN_CHARS`` letters, for a language written without spaces) that is not a question
    ("Noted. Anything else before we plan the release?" does not; a redacted turn's fill holds
    no letter)."""
    return any(
        (len(words) >= MIN_WORDS or sum(map(len, words)) >= MIN_CHARS)
        and not sentence.rstrip().endswith(("?", "\uff1f"))
        for a, b in sentence_spans(part)
        if (words := _WORD.findall(sentence := part[a:b]))
    )


def _pieces(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``text``'s paragraphs, each whole or cut at its sentences into spans of at
    most ``PART_CHARS`` (a longer sentence at ``PART_CHARS``), stripped of white space."""
    at = 0
    for gap in [*_PARAGRAPH.finditer(text), None]:
        end = len(text) if gap is None else gap.start()
        yield from _cut(text, at, end)
        at = end if gap is None else gap.end()


def _cut(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The paragraph ``text[start:end]`` in spans of at most PART_CHARS, cut at sentences."""
    if end - start <= PART_CHARS:
        yield from _stripped(text, start, end)
        return
    first = start
    for a, b in sentence_spans(text[start:end]):
        a, b = start + a, start + b
        if b - first > PART_CHARS and a > first:
            yield from _stripped(text, first, a)
            first = a
        while b - first > PART_CHARS:  # one sentence longer than a part
            yield from _stripped(text, first, first + PART_CHARS)
            first += PART_CHARS
    yield from _stripped(text, first, end)


def _stripped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``text[start:end]`` without the white space at its ends, if anything is left."""
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    if piece.strip():
        yield start + lead, start + len(piece.rstrip())


def items(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    """The import items (core.write.importer) of every assistant turn's parts in ``turns``,
    one session's transcript in order."""
    found: list[dict[str, Any]] = []
    asked = ""
    for turn in turns:
        if turn.role == "user":  # what the next assistant turn answers, credentials left out
            told = [turn.content[a:b] for a, b in sentence_spans(turn.content)]
            asked = " ".join(s for s in told if not names_a_credential(s))
        if turn.role != ROLE or turn.tool is not None:
            continue
        day = f"{parse_time(turn.at, field='at'):%d %B %Y}"
        context = f"{day}\nuser: {asked}"[: len(day) + 1 + CONTEXT_EXCERPT] if asked else day
        for part in parts(turn.content):
            found.append(
                {
                    "type": "episodic",
                    "source_kind": "agent_inference",
                    "content": f"{ROLE}: {part}",
                    "evidence": part,
                    "event_at": turn.at,
                    "stated_at": turn.at,
                    "context": context,
                    "tags": [ROLE_TAG + ROLE],
                    "said_by": ROLE,
                }
            )
    return found


__all__ = ["MIN_CHARS", "MIN_WORDS", "PART_CHARS", "items", "names_a_credential", "parts", "says"]

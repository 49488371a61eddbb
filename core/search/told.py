"""Whether the user tells a thing as so: what life's readings of a job taken up and of a home
said in other words (core.search.life) check around the words they read.

Not when someone else does it ("I was chatting to my neighbour who retired and joined Tesco
as ...": after "and" the clause must be the user's own), not asked ("Should I start at Google
as an engineer, or stay?"), not to come ("Once I join Deloitte as an analyst ..."), not
someone else's words handed over ("Proofread my wife's bio please: I joined ..."), nor words
whose opening says whose they are ("My sister texted: I quit ...": ``WHOSE_WORDS``).
"""

from __future__ import annotations

import functools
import re

from agent_memory.core.search.roles import since

SENTENCE_STOPS = ".!?\n"
QUOTES = "'\"\u201c\u2018"
_A_QUESTION = re.compile(r"[^.!?\n,;]*\?")  # the clause from here ends in a question mark
_ME = r"i|i've|i'd|i'm|i have|the user"
_SAID_BY_ME = re.compile(rf"\b(?:{_ME})\b", re.IGNORECASE)
_SAID_BY_US = re.compile(rf"\b(?:{_ME}|we|we've|we'd)\b", re.IGNORECASE)
# An opening saying whose words follow it, or that they are made up.
WHOSE_WORDS = re.compile(
    r"['\u2019]s\b|\b(?:my|her|his|their|he|she|they|said|says|say|texted|wrote|writes|quote|"
    r"quoted|message|post|pitch|story|advice|plot|novel|prompt|scenario|example|option|"
    r"hypothetically|imagine|dream|role-?play|interview|answer|lyrics|script|draft)\b",
    re.IGNORECASE,
)
_NOT_THE_USERS = re.compile(r"\A\s*(?:assistant|system|tool|ai|bot)\s*:", re.IGNORECASE)
_SOMEONE = re.compile(
    r"\b(?:who|he|she|they|him|her|his|their|neighbou?rs?|parents|friends?|family|kids|son|"
    r"daughter|brother|sister|mum|mom|dad|colleagues?|flatmates?|tenants?|people)\b",
    re.IGNORECASE,
)
_ASKING = re.compile(
    r"\s*(?:should|shall|can|could|would|will|do|did|does|is|are|am|must|may|might)\b", re.I
)
# Someone else's words the user hands over: "Proofread my wife's bio please: I joined ...".
_HANDED_OVER = re.compile(
    r"\b(?:bio|cv|resume|r\u00e9sum\u00e9|cover\s+letter|linkedin|summary|profile|proofread|"
    r"speech|eulogy|obituary|reference)\b[^.!?]*?:",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=64)
def _hand_over_ends(text: str) -> int | None:
    """Where the first hand-over in ``text`` ends (``_HANDED_OVER``: its first colon), or None:
    a match holds one before it when it starts there or later. Found once per text, not once
    per match (a text of many matches read its whole start again for each)."""
    found = _HANDED_OVER.search(text)
    return found.end() if found is not None else None


_TO_COME = re.compile(r"\b(?:once|when|whenever|until|till|unless|soon\s+as)\b[^.!?\n,;]*$", re.I)


def told_as_so(text: str, match: re.Match[str], *, we: bool = False) -> bool:
    """Whether the user tells what ``match`` says as so: after "and" (its group "and") only in
    the user's own clause ("we" too with ``we``); not asked ("Should I start at Google as ...?"),
    not to come ("Once I join Deloitte as ..."), not someone else's words handed over ("Proofread
    my wife's bio please: I joined ...")."""
    at = match.start()
    if match.group("and") is not None and not _the_users_clause(text, at, we=we):
        return False  # "I was chatting to my neighbour who retired and joined Tesco as ..."
    sentence = since(text, at, SENTENCE_STOPS)
    if _ASKING.match(sentence) or _A_QUESTION.match(text, at):
        return False
    if _TO_COME.search(since(text, at, SENTENCE_STOPS + ";,")):
        return False
    handed_over = _hand_over_ends(text)
    return handed_over is None or handed_over > at


def _the_users_clause(text: str, at: int, *, we: bool = False) -> bool:
    """Whether the clause ending at ``at`` (where an "and" starts) is the user's own: "I"
    (with ``we``, "we" too) said in it after at most a short opening ("Big change - I quit
    First Bus and joined ...", "At 9:30 this morning I quit Tesco and ..."), and no one else
    named after it ("we heard the neighbours got the keys and moved in" is theirs). Not when the
    opening says whose words follow ("My sister texted: I quit ...", "Plot of my novel - I
    ..."), nor in the assistant's text (a review found each of these read as the user's)."""
    clause = since(text, at, ".!?\n,;")
    said = (_SAID_BY_US if we else _SAID_BY_ME).search(clause)
    if said is None or _SOMEONE.search(clause, said.start()):
        return False
    opening = re.sub(r"^\s*user:\s*", "", clause[: said.start()], flags=re.IGNORECASE)
    return not opening.strip() or (
        len(opening.split()) <= 5
        and not WHOSE_WORDS.search(opening)
        and not _NOT_THE_USERS.match(text)
    )

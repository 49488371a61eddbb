"""Who holds the relation: a veto on the loose readings (paraphrase, clause) when the statement
gives the speaker's role to someone else.

The loose readings cover statement words in any order, so "Tom is my manager" covered "The
user is Tom's manager." and "Ana tutors me" covered "The user tutors Ana.". Two word checks,
independent of the parser:

- possession: a relation noun the quote gives only to the speaker ("my manager", "Tom is my
  manager") that the statement gives to a named other ("Tom's manager"), or one the quote
  gives only to another ("I am Tom's manager") that the statement gives to the user ("the
  user's manager");
- direction: a verb the quote says of the speaker only as its object ("Ana tutors me") that
  the statement says with the user as its subject ("the user tutors Ana"), or the reverse
  ("I tutor Ana" / "Ana tutors the user").

Limits: words, not a parse: a possessive two nouns away ("Tom's new manager") or a passive
("the user is tutored by Ana") is not read, and the readings' other vetoes still apply.
"""

from __future__ import annotations

import re

from agent_memory.core.judge.stemming import stem_word

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_USER = "\x00user"
_SPEAKER = {"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"}
_BE = {"is", "am", "are", "was", "were", "be", "been", "being", "'s", "has", "have", "had"}
_SKIP = {"a", "an", "the", "new", "old", "former", "current", "best", "own", "dear", "only"}


def _words(text: str, *, statement: bool) -> list[str]:
    text = text.casefold().replace("\u2019", "'")
    if statement:
        text = re.sub(r"\bthe user's\b", " \x00user's ", text)
        text = re.sub(r"\bthe user\b", " \x00user ", text)
        return re.findall(r"\x00user(?:'s)?|[a-z0-9]+(?:'[a-z]+)?", text)
    return _WORD.findall(text)


def _owner(word: str, *, statement: bool) -> str | None:
    """Who a possessive word names: the user/speaker, another (its stem), or None."""
    if statement and word == _USER + "'s":
        return _USER
    if not statement and word == "my":
        return _USER
    if word.endswith("'s") and len(word) > 2 and word[:-2] not in ("it", "that", "what", "he"):
        return word[:-2]
    return None


def _possessions(words: list[str], *, statement: bool) -> set[tuple[str, str]]:
    """(owner, relation-noun stem) pairs: "my manager", "Tom's manager", "manager of Tom"."""
    out: set[tuple[str, str]] = set()
    for k, word in enumerate(words):
        owner = _owner(word, statement=statement)
        if owner is None:
            continue
        j = k + 1
        while j < len(words) and words[j] in _SKIP:
            j += 1
        if j < len(words) and words[j] not in _BE:
            out.add((owner, stem_word(words[j])))
    return out


def _direction(words: list[str], *, statement: bool) -> tuple[set[str], set[str]]:
    """Verb stems the speaker/user is the subject of (word right after it) and the object of
    (word right before it)."""
    subject_of: set[str] = set()
    object_of: set[str] = set()
    for k, word in enumerate(words):
        me = word == _USER if statement else word in ("i", "me")
        if not me:
            continue
        if (statement or word == "i") and k + 1 < len(words) and words[k + 1] not in _BE:
            subject_of.add(stem_word(words[k + 1]))
        if (statement or word == "me") and k > 0 and words[k - 1] not in _BE:
            object_of.add(stem_word(words[k - 1]))
    return subject_of, object_of


def role_swap(quote: str, statement: str) -> str | None:
    """Why the statement gives the quote's relation to someone else (module docstring)."""
    q, s = _words(quote, statement=False), _words(statement, statement=True)
    q_has = _possessions(q, statement=False)
    for owner, noun in _possessions(s, statement=True):
        if (owner, noun) in q_has:
            continue
        others = {o for o, n in q_has if n == noun and o != owner}
        # Only a swap between the speaker and another: "mum's" / "mother's" is a synonym.
        if _USER in others or (others and owner == _USER):
            who = "the speaker" if _USER in others else "someone else"
            return f"the quote gives '{noun}' to {who}, the statement to another (roles)"
    q_subj, q_obj = _direction(q, statement=False)
    s_subj, s_obj = _direction(s, statement=True)
    for verb in (s_subj & q_obj) - q_subj:
        return f"the quote has the speaker on the receiving end of '{verb}' (roles)"
    for verb in (s_obj & q_subj) - q_obj:
        return f"the quote has the speaker doing '{verb}', not receiving it (roles)"
    return None

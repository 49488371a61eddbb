"""Does a record name what the question asks about? The gate's "subject" signal.

In a user's store of a few dozen records, the answer to an everyday question is often worded
far from it for the packaged MiniLM: "What's my dog's name?" against "Rusty, our kelpie, comes
on every trip." scores a cosine of 0.1-0.2, as low as the best record of a question that has no
answer, and BM25 over one shared word cannot clear a floor set for a store of any size. What
the answer does have is the question's subject: every word the question asks about, other than
the words that only frame the question ("name", "kind", "now"), is in the record's text (its
content or retrieval context) as the same word (compared as stems) or as a kind of it by
WordNet ("kelpie" is a dog, "Rania" beside "wife" names the wife). An unanswerable question
rarely has every one of its subject words in one record ("What's my blood type?" needs both
"blood" and "type").

``asked(words)`` reads the subject off the query's content words (``core.search.lexical.
query_tokens``); ``names(subject, text)`` says whether a text names every part of it. The
gate (core.search.ranking.gate) lets a candidate naming the subject pass at a cosine floor
below the corroborated one in a small store only (``gate.subject_drop``, log-interpolated to
nothing at ``gate.reference_records``): in a large store every subject word is in some record.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search.lexical import STOPWORDS

if TYPE_CHECKING:
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate

_WORD = re.compile(r"\w+", re.UNICODE)

# Words that frame a question without being what it asks about: the answer need not hold
# them ("What's my dog's name?" is answered by "Rusty, our kelpie"; "Where do I live now?" by a
# statement without "now"). Question words and auxiliaries are lexical.STOPWORDS already.
FRAME = frozenset(
    """
    name names named called call kind kinds sort type tell remind know remember mention
    mentioned say said whats what's now currently still today these days right rn anymore
    again lately recently usually normally regularly often much many old long
    """.split()
)


@functools.lru_cache(maxsize=4096)
def asked(words: tuple[str, ...]) -> tuple[str, ...]:
    """The subject of a query given its content ``words`` (casefolded, stopwords out, as
    ``query_tokens`` gives them): those that are not question frame, numbers or one letter."""
    return tuple(
        w for w in words if w not in FRAME and w not in STOPWORDS and len(w) > 1 and w.isalpha()
    )


def mark(
    candidates: Sequence[Candidate],
    records: Mapping[str, Record],
    words: Sequence[str],
    *,
    floor: float,
    passes: Callable[[Candidate], object],
) -> tuple[str, ...]:
    """Set ``subject`` on the dense candidates at ``floor`` or above that do not pass the
    gate without it (``passes``: why one passes, None if it does not) and whose text
    (content and retrieval context) names what the query's ``words`` ask about; returns the
    subject (empty: nothing to name)."""
    asked_about = asked(tuple(words))
    if not asked_about:
        return asked_about
    for candidate in candidates:
        dense = candidate.matches.get("dense")
        if dense is None or dense["score"] < floor or passes(candidate) is not None:
            continue
        record = records[candidate.record_id]
        text = f"{record.content}\n{record.context}" if record.context else record.content
        candidate.subject = names(asked_about, text)
    return asked_about


def logged(subject: Sequence[str], candidates: Sequence[Candidate]) -> dict[str, list[str]]:
    """What the search log keeps of the signal: the words asked about, and the candidates
    found to name them (core.search.ranking.logged_candidates reads it back)."""
    return {
        "words": list(subject),
        "named_by": [c.record_id for c in candidates if c.subject],
    }


def names(subject: Sequence[str], text: str) -> bool:
    """Whether ``text`` names every word of ``subject``: the same stem, or a word that is a
    kind of it (WordNet, nouns: core.judge.wordnet.WordNet.covers). False for no subject."""
    if not subject:
        return False
    words, stems = _read(text)
    return all(_stem(s) in stems or _kind_named(s, words) for s in subject)


@functools.lru_cache(maxsize=4096)
def _read(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``text``'s words that carry meaning, and their stems (a record is read again by every
    search that finds it)."""
    words = frozenset(w.casefold() for w in _WORD.findall(text)) - STOPWORDS
    return words, frozenset(_stem(w) for w in words)


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return stem_word(word)


def _kind_named(want: str, words: frozenset[str]) -> bool:
    net = wordnet()
    if net is None:  # the WordNet data is not installed: same stems only
        return False
    wanted = _noun_lemmas(want)
    if not wanted:
        return False
    return any(
        net.covers(target, have, "n")
        for word in words
        for have in _noun_lemmas(word)
        for target in wanted
    )


@functools.lru_cache(maxsize=65536)
def _noun_lemmas(word: str) -> tuple[str, ...]:
    net = wordnet()
    return () if net is None or not word.isalpha() else tuple(net.lemmas(word, "n"))

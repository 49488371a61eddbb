"""What forgetting leaves for later reads: the suppressions a session's extraction honours, and
the assistant's words that restate a forgotten record.

A forgotten record leaves a suppression in its scope (core.erasure.leave_suppression): a digest
of its normalised content (``content_digest``), its embedding, and digests of its words
(``word_digests``: stemmed, stopwords and "user" aside; never a word itself). ``Suppressions``
reads those of the scopes a session reads: a candidate restates a forgotten record when its
normalised content has the same digest, or its embedding is at least the given floor similar
(``ingest.duplicate_floor`` for candidates and summaries: where the ingestor would have merged
it into the forgotten record as a duplicate).

The assistant's own words kept from its sessions (core.extraction.replies) repeat what they
were told, in the second person ("Got it, your new address is ...", "You are allergic to
penicillin, so ..."). Such a text restates a forgotten record (``restates``) when it holds the
record's words (all of them, or ``WORD_SHARE`` of more than ``FEW_WORDS``), or when a sentence
of it or a clause is at least ``ECHO_FLOOR`` similar: looser than the duplicate floor, since
"Your dentist is Dr. Priya Patel." is 0.927 similar to "The user's dentist is Dr. Priya Patel.",
the clause "I'll remember that your new address is <it>" 0.855 to "The user's new address is
<it>" and "You are allergic to penicillin." 0.820 to its record, an unrelated sentence naming
the dentist 0.744 (the packaged MiniLM); dropping a reply costs less than keeping a forgotten
fact. Extraction keeps no part that restates one, and forgetting a record erases the live
ones of its user that do (``echoes``, core.erasure.erase): of the ``ECHO_READ`` whose own
words share the most with it, each read by its words, the first ``ECHO_SHORTLIST`` by meaning
too, so that a forget embeds no user's every reply. Limits: a reply saying a part of a long
forgotten record in other words, below the shortlist, stays; a suppression left before word
digests existed is read by its meaning only.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core.embedder import Embedder
from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.search.lexical import STOPWORDS, fts_match, query_tokens
from agent_memory.core.sentences import sentence_spans
from agent_memory.core.store import erasure as stored
from agent_memory.core.write.evidence import normalise

if TYPE_CHECKING:
    from agent_memory.core.models import Record
    from agent_memory.core.store import Store

ECHO_FLOOR = 0.85
# A forget reads this many of the user's kept assistant words sharing the most words with it,
# compared by their words, and the first ECHO_SHORTLIST of them by their meaning too.
ECHO_READ = 500
ECHO_SHORTLIST = 20
# A reply holds a forgotten record's words when it holds all of them (this many or fewer) or
# this share of them.
FEW_WORDS = 3
WORD_SHARE = 0.75
_SAID_OF_EVERYONE = frozenset({"user", "users", "s"})


def content_digest(text: str) -> str:
    """The digest a suppression keeps of a record's content: sha256 of its normalised form."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def scope_user(scope: str) -> str | None:
    """The user a scope belongs to: user:<id> and agent:<agent>/<id>; None for shared scopes."""
    if scope.startswith("user:"):
        return scope.removeprefix("user:")
    if scope.startswith("agent:") and "/" in scope:
        return scope.rsplit("/", 1)[1]
    return None


@dataclass(frozen=True, slots=True)
class _Suppression:
    digest: str
    vector: np.ndarray | None
    words: frozenset[str] = frozenset()  # word_digests of what was forgotten


class Suppressions:
    """The suppressions a session's extraction must honour: those of the scopes it reads."""

    def __init__(self, rows: Sequence[sqlite3.Row], embedder: Embedder, floor: float) -> None:
        self._embedder = embedder
        self._floor = floor
        model = embedder.model_name
        self._items = [
            _Suppression(
                r["content_digest"],
                np.frombuffer(r["vector"], dtype=np.float32)
                if r["vector"] is not None and r["model_name"] == model
                else None,
                frozenset(json.loads(r["words"])) if r["words"] else frozenset(),
            )
            for r in rows
        ]

    @classmethod
    def load(
        cls, store: Store, scopes: Sequence[str], embedder: Embedder, floor: float
    ) -> Suppressions:
        """The suppressions left in any of ``scopes``."""
        return cls(stored.suppressions(store, scopes), embedder, floor)

    def __bool__(self) -> bool:
        return bool(self._items)

    def matching(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether it restates a forgotten record (see the module doc)."""
        if not self._items or not texts:
            return [False] * len(texts)
        digests = {s.digest for s in self._items}
        found = [any(content_digest(f) in digests for f in _forms(t)) for t in texts]
        vectors = [s.vector for s in self._items if s.vector is not None]
        if vectors and not all(found):
            forgotten = np.stack(vectors)
            embedded = self._embedder.embed(list(texts))
            similar = (embedded @ forgotten.T).max(axis=1) >= self._floor
            found = [f or bool(s) for f, s in zip(found, similar, strict=True)]
        return found

    def holds_words(self, text: str) -> bool:
        """Whether ``text`` holds the words of a forgotten record (``word_digests``): all of
        them when it has ``FEW_WORDS`` or fewer, else ``WORD_SHARE`` of them ("You are
        allergic to penicillin." holds "The user is allergic to penicillin.")."""
        held = set(word_digests(text))
        return any(
            len(s.words & held)
            >= (len(s.words) if len(s.words) <= FEW_WORDS else WORD_SHARE * len(s.words))
            for s in self._items
            if s.words
        )

    def without_matching_sentences(self, text: str) -> tuple[str, int]:
        """``text`` less every sentence that restates a forgotten record, whole or as one
        of its clauses ("...; the user is X, and ..."), and how many sentences went."""
        sentences = [s for s in _SENTENCE.split(text) if s.strip()]
        pieces = [[s, *(c for c in _CLAUSE.split(s) if c.strip())] for s in sentences]
        flags = iter(self.matching([p for group in pieces for p in group]))
        hits = [any([next(flags) for _ in group]) for group in pieces]
        kept = [s for s, hit in zip(sentences, hits, strict=True) if not hit]
        return " ".join(kept), len(sentences) - len(kept)


def _forms(text: str) -> tuple[str, ...]:
    """A text as said, and without or with a closing period: the end punctuation of a
    sentence or a clause does not change what it says."""
    bare = text.strip().rstrip(".!?;,:")
    return (text, bare, f"{bare}.")


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r"[;,]\s*|\s+(?:and|but)\s+")


def word_digests(*texts: str) -> list[str]:
    """Digests of the words ``texts`` say something by: their words (core.search.lexical:
    stopwords aside, and "user", which every phrased fact says), stemmed
    (core.judge.stemming), each a digest, never the word."""
    words = {
        stem_word(w)
        for text in texts
        for w in query_tokens(text)
        if w not in STOPWORDS and w not in _SAID_OF_EVERYONE
    }
    return sorted(hashlib.sha256(w.encode("utf-8")).hexdigest()[:16] for w in words)


def restates(forgotten: Suppressions, text: str, *, meaning: bool = True) -> bool:
    """Whether ``text`` holds a forgotten record's words (``Suppressions.holds_words``) or,
    with ``meaning``, a sentence of it (core.sentences: "Dr. Priya Patel" is no sentence end)
    or a clause of one restates a forgotten record."""
    if not forgotten:
        return False
    if forgotten.holds_words(text):
        return True
    if not meaning:
        return False
    pieces = []
    for a, b in sentence_spans(text):
        sentence = text[a:b]
        pieces += [sentence, *(c for c in _CLAUSE.split(sentence) if c.strip())]
    return any(forgotten.matching(pieces))


def echoes(store: Store, embedder: Embedder, forgotten: Sequence[Record]) -> list[str]:
    """The ids of the live assistant's words (core.extraction.replies) of the users of the
    ``forgotten`` records that restate one of them (``restates``): of the ``ECHO_READ`` whose
    own words share the most words with them (a full-text read of their content), each read
    by its words, and the first ``ECHO_SHORTLIST`` by their meaning too."""
    said = [text for r in forgotten for text in (r.content, r.evidence) if text]
    words = [
        w
        for text in said
        for w in query_tokens(text)
        if w not in STOPWORDS and w not in _SAID_OF_EVERYONE
    ]
    users = {u for r in forgotten if (u := scope_user(r.scope)) is not None}
    match = fts_match(list(dict.fromkeys(words)))
    if not users or match is None:
        return []
    rows = stored.assistant_words_holding(store, match, sorted(users), ECHO_READ)
    scopes_read = sorted({r.scope for r in forgotten})
    suppressed = Suppressions.load(store, scopes_read, embedder, ECHO_FLOOR)
    return [
        row["id"]
        for i, row in enumerate(rows)
        if restates(suppressed, row["evidence"] or "", meaning=i < ECHO_SHORTLIST)
    ]


__all__ = [
    "ECHO_FLOOR",
    "ECHO_SHORTLIST",
    "Suppressions",
    "content_digest",
    "echoes",
    "restates",
    "scope_user",
    "word_digests",
]

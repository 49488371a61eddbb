"""Turning any text into a safe FTS5 query, and names in a query into alias candidates.

FTS5 treats AND/OR/NOT/NEAR, quotes, ``-``, ``+``, ``:``, ``*``, ``^`` and parentheses as syntax
and raises on many of them. No query text reaches MATCH raw: it is split into word tokens, each
token is wrapped in double quotes (a quoted string is always a literal in FTS5), and the tokens
are OR-ed, so BM25 ranks records by how many and how rare the matching words are. Common English
function words are dropped unless nothing else is left.

Words that occur in at least half of the indexed records are left out of the query as well
(``TermStats``): FTS5's BM25 gives such a word an IDF of 1e-6 (its log((N - n + 0.5) /
(n + 0.5)) is <= 0 there and clamped), so it adds at most 2.2e-6 to any score, yet matching it
makes FTS5 score nearly every record. A session date in every turn's context ("2023") did
exactly that: such queries took ~130 ms at 50,000 records instead of ~45 ms.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable, Sequence

from core.evidence import normalise

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_QUERY_TOKENS = 64
MAX_NAME_WORDS = 200

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can cannot could couldn did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just let me more most my
    myself no nor not of off on once only or other ought our ours ourselves out over own same
    shan she should shouldn so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was wasn we were weren what when
    where which while who whom why will with won would wouldn you your yours yourself
    yourselves s t d ll m o re ve y ever also did does get got
    """.split()
)


def query_tokens(text: str) -> list[str]:
    """Distinct word tokens of ``text``, in order, stopwords dropped unless nothing else is
    left, at most MAX_QUERY_TOKENS."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(text)))
    content = [w for w in words if w not in STOPWORDS]
    return (content or words)[:MAX_QUERY_TOKENS]


def fts_query(text: str) -> str | None:
    """An FTS5 MATCH expression that matches any of the query's words, or None when the text
    has no words at all. Cannot raise an FTS5 syntax error, whatever ``text`` is."""
    return fts_match(query_tokens(text))


def fts_match(tokens: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression matching any of ``tokens``, each a quoted literal (None when
    there are none)."""
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


# The tokenizer of records_fts (migration 3): words are looked up in its vocabulary as this
# tokenizer stores them (porter stems). tests/core/test_search_lexical.py holds the two equal.
FTS_TOKENIZE = "porter unicode61"
_STEM_CACHE_SIZE = 20_000


class TermStats:
    """In how many indexed records each query word occurs, read from the FTS5 vocabulary.

    ``counts`` is the store's reader: given index terms, it returns the number of rows in the
    full-text index and the rows holding each term (``Store.term_documents``). Counts are
    cached for one ``version`` (the records_version the caller searches at); a write by this or
    another process moves the version and the next call reads them again (~1-5 ms at 50,000
    records, most of it the most common words).
    """

    def __init__(self, counts: Callable[[Sequence[str]], tuple[int, dict[str, int]]]) -> None:
        self._counts = counts
        self._lock = threading.Lock()
        # Words become index terms through FTS5's own tokenizer, in a private in-memory table:
        # a Python stemmer would have to agree with SQLite's porter on every word.
        self._tokenizer = sqlite3.connect(":memory:", check_same_thread=False)
        self._tokenizer.execute(
            f"CREATE VIRTUAL TABLE words USING fts5 (w, tokenize = '{FTS_TOKENIZE}')"
        )
        self._tokenizer.execute("CREATE VIRTUAL TABLE terms USING fts5vocab (words, instance)")
        self._stems: dict[str, tuple[str, ...]] = {}
        self._version: object = None
        self._rows = 0
        self._documents: dict[str, int] = {}

    def weightless(self, words: Sequence[str], *, version: object) -> set[str]:
        """The words that occur in at least half of the indexed records: BM25 gives them no
        weight (see the module docstring). A word the tokenizer splits into several terms is
        a phrase to FTS5 and is never called weightless."""
        with self._lock:
            stems = self._stem(words)
            if version != self._version:
                self._version, self._rows, self._documents = version, 0, {}
            single = {terms[0] for terms in stems.values() if len(terms) == 1}
            missing = sorted(single - self._documents.keys())
            if missing or not self._rows:
                rows, documents = self._counts(missing)
                self._rows = rows
                self._documents.update({term: documents.get(term, 0) for term in missing})
            return {
                word
                for word, terms in stems.items()
                if len(terms) == 1 and 2 * self._documents[terms[0]] >= self._rows > 0
            }

    def _stem(self, words: Sequence[str]) -> dict[str, tuple[str, ...]]:
        new = [w for w in dict.fromkeys(words) if w not in self._stems]
        if new:
            if len(self._stems) + len(new) > _STEM_CACHE_SIZE:
                self._stems.clear()
            conn = self._tokenizer
            conn.executemany("INSERT INTO words (rowid, w) VALUES (?, ?)", enumerate(new))
            found: dict[int, list[str]] = {}
            for row, term in conn.execute("SELECT doc, term FROM terms ORDER BY doc, offset"):
                found.setdefault(row, []).append(term)
            conn.execute("DELETE FROM words")
            self._stems.update({w: tuple(found.get(i, ())) for i, w in enumerate(new)})
        return {w: self._stems[w] for w in words}


def name_candidates(text: str, *, longest: int = 4) -> list[str]:
    """Every run of 1 to ``longest`` consecutive words, normalised like entity aliases, so
    names in a query ("Project Apollo", "Aditya") can be matched exactly against aliases."""
    words = normalise(" ".join(_WORD.findall(text)[:MAX_NAME_WORDS])).split()
    grams = {
        " ".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }
    return sorted(g for g in grams if g not in STOPWORDS)

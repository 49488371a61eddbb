"""Turning any text into a safe FTS5 query, and names in a query into alias candidates.

FTS5 treats AND/OR/NOT/NEAR, quotes, ``-``, ``+``, ``:``, ``*``, ``^`` and parentheses as syntax
and raises on many of them. No query text reaches MATCH raw: it is split into word tokens, each
token is wrapped in double quotes (a quoted string is always a literal in FTS5), and the tokens
are OR-ed, so BM25 ranks records by how many and how rare the matching words are. Common English
function words are dropped unless nothing else is left.

When FTS5 computes BM25 (``retrieval.lexical_scoring = "fts5"``, for an agent that may read
every record; by default core.search.bm25 computes it in memory and keeps every word), words that
occur in at least half of the indexed records are left out of the query as well
(``TermStats``): FTS5's BM25 gives such a word an IDF of 1e-6 (its log((N - n + 0.5) /
(n + 0.5)) is <= 0 there and clamped), so it adds at most 2.2e-6 to any score, yet matching it
makes FTS5 score nearly every record. A session date in every turn's context ("2023") did
exactly that (benchmarks/README.md, the read path's results of 2026-11-30 06:19).

``Tokenizer`` runs records_fts's own tokenizer (``FTS_TOKENIZE``, columns ``FTS_COLUMNS``) in a
private in-memory table, for the word statistics here and for core.search.bm25.
"""

from __future__ import annotations

import re
import sqlite3
import string
import threading
from collections.abc import Callable, Mapping, Sequence

from agent_memory.core.write.evidence import normalise

_WORD = re.compile(r"\w+", re.UNICODE)
_PUNCTUATION = string.punctuation + "«»…"  # curly quotes are straight after normalise()
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


# The person a store is about, as an agent names them in a query: "Where does the user live?",
# "What is the user's dog called?"; not "users", "power user", "user research" without "the".
_THE_USER = re.compile(r"\bthe\s+user\b|\buser['\u2019]s\b", re.IGNORECASE)


def search_words(query: str) -> list[str]:
    """The words a search matches records by (``query_tokens``), without "user" where the query
    names the person the store is about as "the user" or "user's".

    Every fact the extractors phrase says "The user ..." ("The user's daughter is Zosia."), so
    that word matched them all: BM25 scored each, and a shared query word let a small store's
    record pass at a lower cosine (core.search.gate: the corroborated floor). Asked in the
    third person, as agents often ask, half the unanswerable questions of the personal sets
    were answered on the extracted path and their answers fell below the phrased facts
    (benchmarks/README.md, "Session 42" and "Session 49"). The query's vector keeps every word:
    only matching by word leaves "user" out, so a question in the first person, or one naming
    users in another sense ("our power users", "the users' top request"), searches as before.
    Limits: an imported turn opens with its speaker ("user: ..."), so on the turns path the
    word also favoured the user's turns over the assistant's; without it the role prior alone
    does, and short replies ("assistant: Okay, noted.") reach more third-person answers, as
    they reach first-person ones. A keyword query opening with a compound ("the user table
    pk") loses its first word, and one that "user" alone tied to a record ("What are the
    user's career goals?" / "I'd like to move into a deputy head role") finds it no longer:
    a review of 914 agent-style queries found 61 better, 13 worse (benchmarks/README.md,
    "Session 49")."""
    words = query_tokens(query)
    if _THE_USER.search(query) is None:
        return words
    return [w for w in words if w != "user"] or words


def fts_match(tokens: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression matching any of ``tokens``, each a quoted literal (None when
    there are none). Cannot raise an FTS5 syntax error, whatever the tokens hold."""
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


# The tokenizer of records_fts (migration 3): words are looked up in its vocabulary as this
# tokenizer stores them (porter stems). tests/core/search/test_search_lexical.py holds the two
# equal.
FTS_TOKENIZE = "porter unicode61"
# records_fts's columns, in their order.
FTS_COLUMNS = ("content", "subject", "aliases", "context")
_CACHE_SIZE = 20_000


class Tokenizer:
    """records_fts's tokenizer, run privately: text becomes index terms through SQLite's own
    FTS5 tokenizer in an in-memory table, since a Python stemmer would have to agree with
    SQLite's porter on every word. The terms of up to ``cache_size`` texts are cached (query
    words recur across searches). Thread-safe."""

    def __init__(self, *, cache_size: int = _CACHE_SIZE) -> None:
        self._lock = threading.Lock()
        self._cache_size = cache_size
        self._terms: dict[str, tuple[str, ...]] = {}  # text -> its index terms
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        columns = ", ".join(FTS_COLUMNS)
        self._conn.execute(
            f"CREATE VIRTUAL TABLE docs USING fts5 ({columns}, tokenize = '{FTS_TOKENIZE}')"
        )
        self._conn.execute("CREATE VIRTUAL TABLE doc_terms USING fts5vocab (docs, instance)")

    def terms(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Each text's index terms, in order."""
        with self._lock:
            if len(self._terms) + len(texts) > self._cache_size:
                self._terms.clear()  # before choosing what to tokenize: every text is done
            new = list(dict.fromkeys(t for t in texts if t not in self._terms))
            if new:
                rows = {i: (text, "", "", "") for i, text in enumerate(new)}
                found: dict[int, list[str]] = {}
                for doc, _, term in self._instances(rows):
                    found.setdefault(doc, []).append(term)
                self._terms.update((t, tuple(found.get(i, ()))) for i, t in enumerate(new))
            return [self._terms[t] for t in texts]

    def instances(self, rows: Mapping[int, Sequence[str]]) -> list[tuple[int, int, str]]:
        """Every token of ``rows`` (key -> the text of each of FTS_COLUMNS) as (key, column
        number, term), in order of key, column and position."""
        with self._lock:
            return self._instances(rows)

    def _instances(self, rows: Mapping[int, Sequence[str]]) -> list[tuple[int, int, str]]:
        """``instances``, with the lock held."""
        if not rows:
            return []
        column = {name: number for number, name in enumerate(FTS_COLUMNS)}
        marks = ", ".join("?" * (len(FTS_COLUMNS) + 1))
        try:
            self._conn.executemany(
                f"INSERT INTO docs (rowid, {', '.join(FTS_COLUMNS)}) VALUES ({marks})",
                [(key, *texts) for key, texts in rows.items()],
            )
            found = self._conn.execute("SELECT doc, col, offset, term FROM doc_terms").fetchall()
        finally:
            self._conn.execute("DELETE FROM docs")
        found.sort(key=lambda row: (row[0], column[row[1]], row[2]))
        return [(doc, column[col], term) for doc, col, _, term in found]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class TermStats:
    """In how many indexed records each query word occurs, read from the FTS5 vocabulary.

    ``counts`` is the store's reader (``Store.term_documents``): given index terms, it returns
    the store epoch and records_version it read at, the number of rows in the full-text index
    and the rows holding each term. Counts are cached with that version. Each record change
    moves the version by one and a term's count and the row count by at most one, so at a
    later version a cached count still decides whenever the drift cannot cross the half-way
    line; only words near it (mostly the most common words) are read again. A new epoch (a
    restore) drops the cache.
    """

    def __init__(
        self,
        counts: Callable[[Sequence[str]], tuple[str, int, int, dict[str, int]]],
        *,
        tokenizer: Tokenizer | None = None,
        cache_size: int = _CACHE_SIZE,
    ) -> None:
        self._counts = counts
        # Terms counted (and words stemmed, in the tokenizer this makes when given none).
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._own_tokenizer = tokenizer is None
        self._tokenizer = tokenizer or Tokenizer(cache_size=cache_size)
        self._epoch: str | None = None
        self._rows: tuple[int, int] | None = None  # (version read at, rows)
        self._documents: dict[str, tuple[int, int]] = {}  # term -> (version read at, rows)

    def weightless(self, words: Sequence[str], *, epoch: str | None, version: int) -> set[str]:
        """The words that occur in at least half of the indexed records at ``version`` of
        ``epoch``: BM25 gives them no weight (see the module docstring). A word the tokenizer
        splits into several terms is a phrase to FTS5 and is never called weightless.

        The caller passes the version its vector index synced to at the start of the search;
        writes by other processes since then are not counted as drift, which can misjudge only
        a word within those few writes of the half-way line, whose IDF is about 0 either way."""
        with self._lock:
            stems = dict(zip(words, self._tokenizer.terms(words), strict=True))
            if epoch != self._epoch or len(self._documents) >= self._cache_size:
                self._epoch, self._rows, self._documents = epoch, None, {}
            terms = sorted({t[0] for t in stems.values() if len(t) == 1})
            decided = {term: self._decide(term, version) for term in terms}
            unsure = [term for term, verdict in decided.items() if verdict is None]
            if unsure:
                read_epoch, read_at, rows, documents = self._counts(unsure)
                if read_epoch != self._epoch:  # restored meanwhile: only this answer counts
                    self._epoch, self._documents = read_epoch, {}
                self._rows = (read_at, rows)
                for term in unsure:
                    self._documents[term] = (read_at, documents.get(term, 0))
                    decided[term] = 2 * documents.get(term, 0) >= rows > 0
            return {w for w, t in stems.items() if len(t) == 1 and decided[t[0]]}

    def _decide(self, term: str, version: int) -> bool | None:
        """Whether ``term`` is weightless at ``version`` from cached counts, or None when they
        cannot tell (missing, from a later version, or too close to half)."""
        if self._rows is None or term not in self._documents:
            return None
        (rows_at, rows), (term_at, documents) = self._rows, self._documents[term]
        if version < rows_at or version < term_at:
            return None
        drift_rows, drift_term = version - rows_at, version - term_at
        if 2 * (documents - drift_term) >= rows + drift_rows and rows + drift_rows > 0:
            return True
        if 2 * (documents + drift_term) < rows - drift_rows:
            return False
        return None

    def close(self) -> None:
        """Close the tokenizer if this created it."""
        if self._own_tokenizer:
            with self._lock:
                self._tokenizer.close()


# What ends a word in running text but is never the edge of a name: "Jean-Luc," and
# "(Node.js)" are names, "Dr." keeps its dot.
_SENTENCE_EDGE = ",;:!?\"'()[]{}<>«»"


def name_candidates(text: str, *, longest: int = 4) -> list[str]:
    """Every run of 1 to ``longest`` consecutive words, normalised like entity aliases, so
    names in a query ("Project Apollo", "Aditya") can be matched exactly against aliases.
    Words are read three ways, since aliases keep their punctuation: letters and digits only
    ("apollo"), whitespace-separated without the punctuation of a sentence around them
    ("jean-luc", "o'brien", "dr."), and without any punctuation at their edges ("node.js"
    at the end of a sentence)."""
    normal = normalise(text)
    spaced = normal.split()[:MAX_NAME_WORDS]
    readings = (
        _WORD.findall(normal)[:MAX_NAME_WORDS],
        [w.strip(_SENTENCE_EDGE) for w in spaced],
        [w.strip(_PUNCTUATION) for w in spaced],
    )
    grams = {
        " ".join(words[i : i + n])
        for words in (list(filter(None, reading)) for reading in readings)
        for n in range(1, longest + 1)
        for i in range(len(words) - n + 1)
    }
    return sorted(g for g in grams if g not in STOPWORDS)

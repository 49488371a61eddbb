"""Turning any text into a safe FTS5 query, and names in a query into alias candidates.

FTS5 treats AND/OR/NOT/NEAR, quotes, ``-``, ``+``, ``:``, ``*``, ``^`` and parentheses as syntax
and raises on many of them. No query text reaches MATCH raw: it is split into word tokens, each
token is wrapped in double quotes (a quoted string is always a literal in FTS5), and the tokens
are OR-ed, so BM25 ranks records by how many and how rare the matching words are. Common English
function words are dropped unless nothing else is left.
"""

from __future__ import annotations

import re

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
    tokens = query_tokens(text)
    if not tokens:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in tokens)


def name_candidates(text: str, *, longest: int = 4) -> list[str]:
    """Every run of 1 to ``longest`` consecutive words, normalised like entity aliases, so
    names in a query ("Project Apollo", "Aditya") can be matched exactly against aliases."""
    words = normalise(" ".join(_WORD.findall(text)[:MAX_NAME_WORDS])).split()
    grams = {
        " ".join(words[i : i + n]) for n in range(1, longest + 1) for i in range(len(words) - n + 1)
    }
    return sorted(g for g in grams if g not in STOPWORDS)

"""A question that asks several things at once, searched as its parts.

"What does my wife do for work, and what dish did I decide to cook for her birthday?" asks two
things. One query vector for both finds neither well, and the gate weighs every record against
words half of which are about something else. ``parts`` splits such a question where another
question starts (``_question``): a question word ("what", "whats", "how" ...) that does not open
a clause ("... and how it went", "... and what I'm paying", "... and what food to serve": its
subject or "to" comes before any auxiliary), an auxiliary and its subject ("and is he still
working with me?"; "can you" asks the assistant to act instead, as "do it" and "have it" tell
it to), or "is"/"does" and the user's own ("and does my daughter still do ballet?"). It may
start after "and", "and also", "&" or "plus" (a comma or a dash before them or not) or after a
question mark ("also" or "and" after it or not), never inside a quotation ("Find my note
titled 'Who am I and what do I want'"); after a comma, a full stop or a
semicolon only between two questions in a question's inverted order (``_inverted``: "What's
my job, where do I live, and who is my partner?"), so that "..., which brought a smile to her
face?" stays one question.

The retriever (core.search.retriever) runs its whole pipeline once per part, each part for its
``share`` of the request's ``limit`` (a question of two asked for 10: up to 5 each) with the
whole ``budget_tokens``; ``combine`` then takes the parts' answers in turn (each one's first
result, then each one's second ...), one record once, past ``gate.close_within`` results only
those that passed on their own, within the limit and the budget (core.search.ranking.in_turn).
The search log keeps every part's row whole under ``compound.parts``, so
core.search.ranking.replay rebuilds the answer from the log alone, as for any search.

What is not split: a piece under ``MIN_WORDS`` words ("When is Jess's bachelorette weekend,
and where?") or one with no topic, an aside to the assistant ("Can you help? What was the
plumber's name?", "Thanks! And where do I live?"), stays with the question beside it; more than
``MAX_PARTS`` pieces, more than ``MAX_CHARS`` characters or more than one line is pasted text,
searched whole; "and" between two people or things ("What do my wife and my father do for
work?") asks one question of both (asking it of each was measured and not kept: questions
about the two together, "How did my wife and my sister meet?", and noun phrases of several
words). A part that names its subject only by a pronoun ("... and where does she live?") is
searched as written.

Measured through the public contract on the personal sets' cached stores and on 172 queries a
reviewer wrote (sessions 51 and 52 in benchmarks/README.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from agent_memory.core.search import explain, ranking
from agent_memory.core.search.request import Outcome, SearchRequest

MIN_WORDS = 3  # a shorter piece ("and where?") belongs to the question before it
MAX_PARTS = 4  # more pieces: searched whole
MAX_CHARS = 400  # a longer query, or one of several lines, is pasted text: searched whole

_QUESTION_WORD = (
    r"(?:what|what['\u2019]?s|where|where['\u2019]?s|who|who['\u2019]?s|whom|whose|which|when|"
    r"how|how['\u2019]?s|why)"
)
_AUXILIARY = r"(?:am|is|are|was|were|do|does|did|have|has|had|can|could|will|would|should)"
_SUBJECT = r"(?:i|you|he|she|it|we|they|there)"
# A question's start: a question word, an auxiliary and its subject ("is he", "did I") or a
# form of "be" or "do" and the user's own ("does my daughter ...", "is our flight ...").
_START = (
    rf"{_QUESTION_WORD}\b|{_AUXILIARY}\s+{_SUBJECT}\b"
    r"|(?:is|are|was|were|do|does|did)\s+(?:my|our)\b"
)
# Where another question may start: after "and", "and also", "&" or "plus" (a comma or a dash
# before it or not), or a question mark ("also" after it or not); after a comma, full stop or
# semicolon only between two questions (``between``).
_NEXT = re.compile(
    r"(?:(?:,?\s+|\s*[\u2013\u2014]\s*)(?:and(?:\s+also)?|plus|&)\s+"
    r"|(?<=[?\uff1f])\s*(?:(?:and|also),?\s+)?"
    r"|(?P<between>[,.;\uff1b])\s+)"
    rf"(?={_START})",
    re.IGNORECASE,
)
# A quotation ("...", “...”, '...' opened after a space): no question inside it is the user's.
_QUOTED = re.compile(
    r"(?:^|(?<=[\s(:]))([\"\u201c'\u2018]).+?[\"\u201d'\u2019](?=[\s?.,!;:)\uff1f]|$)"
)
_OPENS = re.compile(rf"\s*(?:{_START})", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
# A question word followed by its subject or "to" opens a clause, not a question: "... and how
# it went", "... and what I'm paying now", "... and what food to serve". A question word that
# takes a word after it ("how often", "what food", "which school") may have up to two.
_TAKES_WORDS = frozenset({"how", "what", "which", "whose"})
_TAKES_NONE = frozenset({"who", "whom", "where", "when", "why"})
_CLAUSE_SUBJECTS = frozenset(
    {"i", "you", "he", "she", "it", "we", "they", "that", "this", "these", "those", "to"}
)
_IS_FORMS = frozenset({"whats", "wheres", "whos", "hows"})  # "what's" written without "'"
_INVERTED_SUBJECTS = frozenset({"i", "you", "he", "she", "it", "we", "they", "my", "our", "your"})
# "do" and "have" before "it" tell the assistant what to do ("... and have it delivered").
_IMPERATIVES = frozenset({"do", "have"})
# "... and can you make it at 8?" asks the assistant to do something, not what it knows.
_REQUESTS = frozenset({"can", "could", "would", "will"})
_AUXILIARIES = frozenset(_AUXILIARY.strip("(?:)").split("|"))
# A piece that says nothing of a topic is an aside to the assistant ("Can you help?", "How are
# you?", "Is that right?", "Thanks!"): it is searched with the question beside it.
_ASIDE = frozenset(
    """can could would will you u help me please pls how are is am that this it right true
    correct ok okay hi hello hey thanks thank remember know there quick question so um hmm
    really any ideas idea wait sorry yes no yeah sure well what was huh oh do did does i mean
    anyway also great cool nice perfect and be doing going today""".split()
)


def parts(query: str) -> list[str]:
    """The questions ``query`` asks, in order, when it asks more than one; else ``[]``."""
    if len(query) > MAX_CHARS or len(query.strip().splitlines()) > 1:
        return []
    quoted = [m.span() for m in _QUOTED.finditer(query)]
    pieces: list[list[int]] = []  # [start, end] of each piece in query
    start = 0
    for cut in _NEXT.finditer(query):
        if (
            not _question(query[cut.end() :])
            or any(a < cut.start() < b for a, b in quoted)
            or (
                cut.group("between")
                and not (_question(query[start : cut.start()]) and _inverted(query[cut.end() :]))
            )
        ):
            continue
        pieces.append([start, cut.start()])
        start = cut.end()
    if not pieces:
        return []
    pieces.append([start, len(query)])
    joined: list[list[int]] = []
    for piece in pieces:  # a fragment or an aside stays with the question before it
        if joined and _leans(query[piece[0] : piece[1]]):
            joined[-1][1] = piece[1]
        else:
            joined.append(piece)
    if len(joined) > 1 and _leans(query[joined[0][0] : joined[0][1]]):
        first = joined.pop(0)  # ... and an opening one with the question after it
        joined[0][0] = first[0]
    if not 1 < len(joined) <= MAX_PARTS:
        return []
    return [query[a:b].strip(" ,;:-\u2013\u2014\uff1b") for a, b in joined]


def _question(text: str) -> bool:
    """Whether ``text`` opens as a question of its own (not a clause: ``_CLAUSE_SUBJECTS``)."""
    if _OPENS.match(text) is None:
        return False
    words = [w.casefold() for w in _WORD.findall(text)[:4]]
    if words[0] in _REQUESTS and words[1:2] in (["you"], ["u"]):
        return False
    if words[0] in _IMPERATIVES and words[1:2] == ["it"]:  # "... and have it delivered"
        return False
    if words[0] not in _TAKES_WORDS and words[0] not in _TAKES_NONE:
        return True  # a contraction ("what's") or an auxiliary and its subject
    skippable = 2 if words[0] in _TAKES_WORDS else 0
    for word in words[1 : 2 + skippable]:
        said = re.sub(r"['\u2019](?:m|re|ve|ll|d|s)$", "", word)
        if said in _CLAUSE_SUBJECTS:
            return False
        if said in _AUXILIARIES:
            return True
    return True


def _inverted(text: str) -> bool:
    """Whether ``text`` opens with a question's inverted order: a question word (and up to
    three words it takes), then an auxiliary and its subject ("where do I live", "who is my
    partner", "how many years was he", "what's my job"). After a comma "which brought a
    smile" or "which is near my office" opens a relative clause instead."""
    words = [w.casefold().replace("\u2019", "'") for w in _WORD.findall(text)[:6]]
    if not words:
        return False
    head, _, tail = words[0].partition("'")
    if words[0] in _AUXILIARIES or tail == "s" or words[0] in _IS_FORMS:  # "what's my ..."
        return words[1:2] != [] and words[1] in _INVERTED_SUBJECTS
    reach = 4 if head in _TAKES_WORDS else 1
    for i in range(1, min(len(words) - 1, 1 + reach)):
        if words[i] in _AUXILIARIES:
            return words[i + 1] in _INVERTED_SUBJECTS
    return False


def _leans(piece: str) -> bool:
    """Whether ``piece`` cannot be searched alone: under ``MIN_WORDS`` words, or an aside."""
    words = [w.casefold() for w in _WORD.findall(piece)]
    return len(words) < MIN_WORDS or all(w in _ASIDE for w in words)


def share(limit: int, parts: int) -> int:
    """How many results each of ``parts`` is searched for: its share of the answer's
    ``limit`` (a question of two asked for 10 gets up to 5 for each), at least one."""
    return max(1, math.ceil(limit / parts))


def combine(request: SearchRequest, outcomes: Sequence[Outcome], *, within: int) -> Outcome:
    """One answer for ``request`` from its parts' ``outcomes`` (each searched for its
    ``share`` of the limit, with the whole budget): their results in turn, past the first
    ``within`` only those that passed on their own, within the limit and the budget
    (core.search.ranking.in_turn). Each result's explanation is that of the part that placed
    it, with its place in the whole; the response explanation counts each record once over
    the parts, and keeps every part's own explanation under ``parts``."""
    # A part's answer has exact token counts (core.search.ranking.fit_budget).
    tokens = {i: o.payload["budget"]["tokens"][i] for o in outcomes for i in o.payload["final_ids"]}
    answers = [ranking.answered(o.payload, o.payload["final_ids"]) for o in outcomes]
    chosen, over, padding = ranking.in_turn(
        answers, tokens, within=within, budget=request.budget_tokens, limit=request.limit
    )
    taken, skipped = [c.record_id for c in chosen], [c.record_id for c in over]
    # A record found by two parts is explained by the one whose candidate in_turn placed.
    part_of = {id(c): number for number, answer in enumerate(answers, start=1) for c in answer}
    results_of = [{r["id"]: r for r in o.results} for o in outcomes]
    results, used = [], 0
    for rank, candidate in enumerate(chosen, start=1):
        number = part_of[id(candidate)]
        result = results_of[number - 1][candidate.record_id]
        used += candidate.tokens
        explained = {
            **result["explanation"],
            "rank": rank,
            "part": number,
            "part_rank": result["explanation"]["rank"],
            "budget": explain.budget_line(candidate.tokens, used, request.budget_tokens),
        }
        results.append({**result, "explanation": explained})
    payloads = [o.payload for o in outcomes]
    explanation = _explanation(
        request, payloads, taken, skipped, [c.record_id for c in padding], results
    )
    fused = {c["id"]: c for p in payloads for c in reversed(p["candidates"]["fused"])}
    payload = {
        # the parts' request but for their query and share of the limit
        "request": {**payloads[0]["request"], "query": request.query, "limit": request.limit},
        "query": request.query,
        "scopes": payloads[0]["scopes"],
        "compound": {"parts": payloads},
        # what replay reads (the request above is erased with a record it found)
        "settings": {"limit": request.limit, "close_within": within},
        # every part's fused candidates, each once (the evaluation reads what was found)
        "candidates": {"fused": list(fused.values())},
        "budget": {
            "budget_tokens": request.budget_tokens,
            "tokens": {rid: tokens[rid] for rid in [*taken, *skipped]},
            "skipped": skipped,
        },
        "padding_cut": [c.record_id for c in padding],
        "final_ids": taken,
        # each part's explanation is in its own row above
        "explanation": {k: v for k, v in explanation.items() if k != "parts"},
        "result_explanations": {r["id"]: r["explanation"] for r in results},
    }
    timings: dict[str, float] = {}
    for outcome in outcomes:
        for stage, ms in outcome.timings.items():
            timings[stage] = round(timings.get(stage, 0.0) + ms, 3)
    payload["timings_ms"] = dict(timings)
    return Outcome(results, explanation, payload, timings)


def _explanation(
    request: SearchRequest,
    payloads: list[dict[str, Any]],
    taken: list[str],
    skipped: list[str],
    padding: list[str],
    results: list[dict[str, Any]],
) -> dict[str, Any]:
    """The whole answer's explanation, with the keys of one search's: each count is of the
    records concerned over every part, each once, leaving out those the answer holds (a
    record one part cut may be another's answer); each part's own explanation is under
    ``parts``."""
    said = [p["explanation"] for p in payloads]
    answer = set(taken)

    def counted(ids: Any) -> int:
        return len(set(ids) - answer)

    def each(read: Any) -> list[str]:
        return [i for p in payloads for i in read(p)]

    def best(key: str) -> float | None:
        return max((e["gate"][key] for e in said if e["gate"][key] is not None), default=None)

    def cut(p: dict[str, Any]) -> list[str]:  # what the part's gate left out (response.cut)
        passed = set(p["gate"]["passed"])
        return [c["id"] for c in p["candidates"]["fused"] if c["id"] not in passed]

    candidates = {
        k: len({c["id"] for p in payloads for c in p["candidates"][k]})
        for k in ("dense", "lexical", "entity", "time", "standing", "profile", "fused")
    }
    candidates["entity_linked"] = sum(int(e["candidates"]["entity_linked"]) for e in said)
    return {
        "query": request.query,
        "rewritten_query": None,  # each part's rewrite, if any, is in its own explanation
        "rewrite": {"status": "per part"},
        "scopes": said[0]["scopes"],
        "filter": said[0]["filter"],
        "time_cue": None,  # each part's own, if its words name a time
        "candidates": candidates,
        "gate": {
            "decision": "pass" if any(e["gate"]["decision"] == "pass" for e in said) else "empty",
            "best_dense": best("best_dense"),
            "best_lexical": best("best_lexical"),
            "entity_matches": len(
                {c["id"] for p in payloads for c in p["candidates"]["entity"]}
                - set(each(lambda p: p["changed_since_generated"]))
            ),
            "floors": said[0]["gate"]["floors"],  # the same for every part: one readable set
        },
        "cut": {
            "count": counted(each(lambda p: cut(p) if p["explanation"]["cut"]["count"] else [])),
            "why": said[0]["cut"]["why"],
        },
        "padding_cut": {
            "count": counted([*each(lambda p: p["padding_cut"]), *padding]),
            "why": said[0]["padding_cut"]["why"],
        },
        "duplicates_collapsed": counted(each(lambda p: p["duplicates"]["dropped"])),
        "siblings_collapsed": counted(each(lambda p: p["siblings"]["collapsed"])),
        "summaries_collapsed": counted(each(lambda p: p["siblings"]["summaries"])),
        "later_first": {
            "applied": any(e["later_first"]["applied"] for e in said),
            "why": "per part",
            "moved": sum(e["later_first"]["moved"] for e in said),
        },
        "over_budget": counted([*each(lambda p: p["budget"]["skipped"]), *skipped]),
        "returned": len(results),
        "why_empty": None if results else _why_empty(said),
        "parts": said,
    }


def _why_empty(said: list[dict[str, Any]]) -> str:
    """Why the whole answer is empty: every part's one reason, or each part's own. (A part's
    answer fits the whole budget, so the whole answer is empty only when every part's is.)"""
    if len({e["why_empty"] for e in said}) == 1:
        return str(said[0]["why_empty"])
    return "no part of the question found anything: " + "; ".join(
        f"part {n}: {e['why_empty']}" for n, e in enumerate(said, start=1)
    )


__all__ = ["MAX_PARTS", "MIN_WORDS", "combine", "parts", "share"]

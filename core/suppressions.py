"""What forgetting leaves for later reads: the suppressions a session's extraction honours, and
the assistant's words that say a forgotten record again.

A forgotten record leaves a suppression in its scope (core.erasure.leave_suppression): a digest
of its normalised content (``content_digest``) and its embedding. ``Suppressions`` reads those
of the scopes a session reads: a candidate restates a forgotten record when its normalised
content has the same digest, or its embedding is at least the given floor similar
(``ingest.duplicate_floor`` for candidates and summaries: where the ingestor would have merged
it into the forgotten record as a duplicate). A candidate the user said again since the forget
(its quote a sentence of its own in a user turn later than the suppression, which says it:
``restated``, ``told_again``) is theirs to keep, as a model's write quoting such a turn is
(``refuse_forgotten``); what the user said before the forget, and a candidate of no user
turn, stays suppressed.

The assistant's own words kept from its sessions (core.extraction.replies) repeat what they
were told, in the second person ("Got it, your new address is ...", "You are allergic to
penicillin, so ..."). Forgetting a record erases the live ones of its user that say it again
(``echoes``, core.erasure.erase): those holding its words (``holds``: all the words of its
content or of its evidence, or ``WORD_SHARE`` of more than ``FEW_WORDS``; stemmed, stopwords
and "user" aside) or what it told (``says_again``: a clause holding half of the words one of
its clauses told, or a name only it gave: ``told``), read among the ``ECHO_READ`` whose own
words share the most with it, and,
with an embedder, the first ``ECHO_SHORTLIST`` of them by meaning too (``restates``: a
sentence or clause at least ``ECHO_FLOOR`` similar). Extraction keeps no part that restates a
suppression by meaning; a suppression keeps no words, so a later reply holding a forgotten
record's words in wording below the floor ("You are allergic to penicillin." is 0.820 similar
to its record) is kept, as a user's own paraphrase of a forgotten fact would be.

``ECHO_FLOOR`` is looser than the duplicate floor, since a reply says the fact in the second
person: "Your dentist is Dr. Priya Patel." is 0.927 similar to "The user's dentist is Dr.
Priya Patel.", the clause "I'll remember that your new address is <it>" 0.855 to "The user's
new address is <it>", an unrelated sentence naming the dentist 0.744 (the packaged MiniLM);
dropping a reply costs less than keeping a forgotten fact. Limits: a forgotten record in a
shared scope (no user's) erases no reply; a reply saying a part of a long forgotten record in
other words, below the shortlist, stays.

A model's own write saying a forgotten record again is refused (``refuse_forgotten``: the
write path's ``Forgotten``), unless the user's quote said after the forget backs it.
"""

from __future__ import annotations

import functools
import hashlib
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent_memory.core.embedder import Embedder
from agent_memory.core.errors import Forgotten
from agent_memory.core.framing import HEDGE, LEAD, REPORTING, asks
from agent_memory.core.judge.base import Judge, JudgeUnavailable
from agent_memory.core.judge.context import retraction
from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.values import MONTHS_AND_WEEKDAYS
from agent_memory.core.judge.wordnet import wordnet
from agent_memory.core.search.lexical import STOPWORDS, fts_match
from agent_memory.core.sentences import sentence_spans
from agent_memory.core.store import erasure as stored
from agent_memory.core.write.evidence import Turn, find_quote, normalise

if TYPE_CHECKING:
    from agent_memory.core.engine import Engine
    from agent_memory.core.models import Record
    from agent_memory.core.store import Store

ECHO_FLOOR = 0.85
# A forget reads this many of the user's kept assistant words sharing the most words with it,
# compared by their words, and the first ECHO_SHORTLIST of them by their meaning too.
ECHO_READ = 500
ECHO_SHORTLIST = 20
# A reply holds a forgotten text's words when it holds all of them (this many or fewer) or
# this share of them.
FEW_WORDS = 3
WORD_SHARE = 0.75
# A reply's sentence or clause holding this share of the words a forgotten record's clause
# told says it again; a word this many of the user's other records say tells nothing.
CLAUSE_SHARE = 0.5
CLAUSE_WORDS = 2
FEW_SENSES = 4  # a word with more WordNet senses is an everyday one
COMMON_IN = 3
_SAID_OF_EVERYONE = frozenset({"user", "users", "s"})  # every phrased fact says "The user's"
_WORD = re.compile(r"\w+")
# Capitalised words that name no one and nothing of the user's own.
_NO_NAMES = (
    STOPWORDS
    | MONTHS_AND_WEEKDAYS
    | frozenset(
        "i user ok okay dr mr mrs ms mx prof sir hey hi hiya hmm lol btw yep yeah nope ugh "
        "haha omg idk wow oh aw thx".split()
    )
)


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
    left_at: str  # the forget's time, as stored


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
                r["created_at"],
            )
            for r in rows
        ]

    @classmethod
    def load(
        cls,
        store: Store,
        scopes: Sequence[str],
        embedder: Embedder,
        floor: float,
        *,
        after: str | None = None,
    ) -> Suppressions:
        """The suppressions left in any of ``scopes`` (with ``after``, only those left later)."""
        return cls(stored.suppressions(store, scopes, after=after), embedder, floor)

    def __bool__(self) -> bool:
        return bool(self._items)

    def matching(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether it restates a forgotten record (see the module doc)."""
        return [at is not None for at in self.forgotten_at(texts)]

    def forgotten_at(self, texts: Sequence[str]) -> list[str | None]:
        """For each text, when the latest forget of a record it restates was (as stored), or
        None: what the user said again after that forget is not held against them."""
        if not self._items or not texts:
            return [None] * len(texts)
        digests = [{content_digest(f) for f in _forms(t)} for t in texts]
        hit = np.array([[s.digest in mine for s in self._items] for mine in digests], dtype=bool)
        vectors = [(k, s.vector) for k, s in enumerate(self._items) if s.vector is not None]
        if vectors and not hit.any(axis=1).all():
            held = [k for k, _ in vectors]
            forgotten = np.stack([v for _, v in vectors])
            hit[:, held] |= self._embedder.embed(list(texts)) @ forgotten.T >= self._floor
        return [
            max((s.left_at for s, h in zip(self._items, row, strict=True) if h), default=None)
            for row in hit
        ]

    def without_matching_sentences(self, text: str) -> tuple[str, int]:
        """``text`` less every sentence that restates a forgotten record, whole or as one
        of its clauses ("...; the user is X, and ..."), and how many sentences went."""
        sentences = [s for s in _SENTENCE.split(text) if s.strip()]
        pieces = [_with_clauses(s) for s in sentences]
        flags = iter(self.matching([p for group in pieces for p in group]))
        hits = [any([next(flags) for _ in group]) for group in pieces]
        kept = [s for s, hit in zip(sentences, hits, strict=True) if not hit]
        return " ".join(kept), len(sentences) - len(kept)


def restated(
    forgotten: Suppressions,
    drafts: Sequence[tuple[str, str | None]],
    turns: Sequence[Turn],
    judge: Judge,
) -> list[bool]:
    """For each (content, evidence quote) of ``drafts``, whether it restates a forgotten
    record (``Suppressions.matching``) the user has not said again since: a quote of a later
    user turn than the forget, said again as a sentence of its own (``told_again``), which
    says the content by ``judge``, is theirs to keep, as a model's write quoting it is
    (core.write.ingestor); a restatement resting on another turn stays suppressed."""
    forgotten_at = forgotten.forgotten_at([content for content, _ in drafts])
    restates: list[bool] = []
    for (content, quote), at in zip(drafts, forgotten_at, strict=True):
        said = _said_again(quote, content, turns, judge) if at is not None and quote else None
        restates.append(at is not None and (said is None or at > said))
    return restates


def _said_again(quote: str, content: str, turns: Sequence[Turn], judge: Judge) -> str | None:
    """When the user last said ``quote`` again (``told_again``), in a turn whose words say
    ``content``, or None."""
    turn = find_quote(quote, reversed(turns), roles=("user",))
    if turn is None or not told_again(quote, turn.content):
        return None
    try:
        return turn.at if judge.entails(quote, content, context=turn.content).holds else None
    except JudgeUnavailable:
        return None  # unread: it stays suppressed


def told_again(quote: str, said: str) -> bool:
    """Whether ``quote`` is the user saying a fact again in ``said`` (their turn): a sentence
    of its own (or what follows a colon in it), less the words that lead into one ("Oh by the
    way, ...": core.framing.LEAD), in the first person, no question, report, hedge or
    quotation, and nothing after it in the turn that takes it back (core.judge.context
    .retraction): "My dentist is Dr. Patel.", "It's fine to remember: I'm pregnant.". Not the
    memory's own words pasted back ("Why do you still have this? The user's dentist is ..."),
    nor a sentence that wraps it ("My notes say my dentist is ..."), nor what a request to
    forget leads into ("Please delete: my dentist is ...": ``_UNSAYING``), nor anything under
    a line that ends with a colon ("old memory:\nMy dentist is ..."): pasted, not said."""
    bare = _LEAD_IN.sub("", quote.strip())
    if _FIRST_PERSON.search(bare) is None or _WRAPPED.search(bare) or asks(bare):
        return False
    wanted = normalise(bare).rstrip(".!?")
    for a, b in sentence_spans(said):
        if _HEADER.search(said, 0, a):
            return False  # "This is wrong:\n ...": the rest of the turn is pasted
        before, _, unit = said[a:b].rpartition(":")  # "It's fine to remember: I'm ..."
        unit = unit.strip()
        if (before and _UNSAYING.search(before)) or unit[:1] in _QUOTE_MARKS:
            continue
        if normalise(_LEAD_IN.sub("", unit)).rstrip(".!?") == wanted:
            after = said[b:]  # "... Not anymore though.", "... Well, was."
            return retraction(after, unit) is None and _TAKEN_BACK.search(after) is None
    return False


# What leads into a sentence and changes nothing ("Oh by the way, ..."), and what makes a
# sentence someone's report, a hedge or a quotation rather than the user saying it.
_LEAD_IN = re.compile(rf"^(?:{LEAD.pattern[1:]}|(?:oh\s+)?by\s+the\s+way\b[,.:!\s]*)+", re.I)
# What, before a colon in the sentence, takes back what follows it.
_UNSAYING = re.compile(
    r"\b(?:delete|forget|remove|erase|wipe|drop|ignore|test|stop|don't|do\s+not|not|no|never|"
    r"wrong|incorrect|untrue|false|old|outdated|why|still|showing|says|stored|saved|memory)\b",
    re.I,
)
_HEADER = re.compile(r":[ \t]*\n")
# What, said after it in the turn, takes it back: "Not anymore.", "Well, was.", "That line is
# wrong, delete it", "NOT."
_TAKEN_BACK = re.compile(
    r"^\W*(?:(?:well|but|ok|okay|oh)\W+)?(?:not|nope|no|never|was)\b|\b(?:not\s+any\s*more|"
    r"no\s+longer|scratch\s+that|just\s+kidding|jk|delete\s+it|is\s+wrong|isn't\s+true)\b",
    re.I,
)
_QUOTE_MARKS = "'`\u2018\u2019\"\u201c\u201d"
_WRAPPED = re.compile(
    rf"{REPORTING.pattern}|{HEDGE.pattern}|\bsay\b|[\"\u201c\u201d`]"
    r"|,?\s+(?:right|correct|yeah|yes|no)\W*$",
    re.I,
)


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|our|us)\b", re.I)


def _forms(text: str) -> tuple[str, ...]:
    """A text as said, and without or with a closing period: the end punctuation of a
    sentence or a clause does not change what it says."""
    bare = text.strip().rstrip(".!?;,:")
    return (text, bare, f"{bare}.")


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSE = re.compile(r";\s*|,(?!\d)\s*|\s+(?:and|but)\s+")  # not inside "40,000"


def _with_clauses(sentence: str) -> list[str]:
    """``sentence`` and each of its clauses: each may restate a forgotten record."""
    return [sentence, *(c for c in _CLAUSE.split(sentence) if c.strip())]


def restates(forgotten: Suppressions, text: str) -> bool:
    """Whether a sentence of ``text`` (core.sentences: "Dr. Priya Patel" is no sentence end)
    or a clause of one restates a forgotten record by meaning."""
    if not forgotten:
        return False
    pieces = [p for a, b in sentence_spans(text) for p in _with_clauses(text[a:b])]
    return any(forgotten.matching(pieces))


def refuse_forgotten(
    engine: Engine,
    scopes: Sequence[str],
    content: str,
    parts: Sequence[str] = (),
    *,
    quoted_at: str | None = None,
) -> None:
    """Raise Forgotten when ``content`` or one of ``parts`` (a procedure's name, trigger, steps
    and pitfalls), which a model asked to write, restates a record forgotten in one of
    ``scopes`` (the write's target and the user's own scopes, wherever it writes: a fact
    forgotten in the user's scope is not written into a shared one; ``restates``, at
    ``ingest.duplicate_floor``, where extraction drops a candidate): a model that still holds
    a forgotten fact in its context must not write it back. A quote of the user's own said
    after the forget (``quoted_at``: its turn's time) backs it: the user said it again. Other
    users' shared scopes are not read, so the refusal tells nothing of what they forgot."""
    forgotten = Suppressions.load(
        engine.store,
        scopes,
        engine.embedder,
        engine.config.ingest.duplicate_floor,
        after=quoted_at,
    )
    for field, texts in (("content", [content]), ("procedure", parts)):
        if any(restates(forgotten, text) for text in texts if text):
            raise Forgotten(
                "this says again what the user asked to forget, so it was not written; write "
                "it only if the user says it again, with their words as evidence",
                field=field,
            )


def said_words(text: str) -> frozenset[str]:
    """The words ``text`` says something by: stemmed (core.judge.stemming), stopwords and
    "user" (every phrased fact says "The user ...") aside."""
    return frozenset(stem_word(w) for w in _content_words(text))


def _content_words(text: str) -> Iterator[str]:
    """``text``'s words, folded, stopwords and "user" aside (not stemmed)."""
    words = (w.casefold() for w in _WORD.findall(text))
    return (w for w in words if w not in STOPWORDS and w not in _SAID_OF_EVERYONE)


def holds(text: str, said: Sequence[frozenset[str]]) -> bool:
    """Whether ``text`` holds the words of one of ``said`` (``said_words`` of forgotten texts):
    all of them when they are ``FEW_WORDS`` or fewer, else ``WORD_SHARE`` of them."""
    held = said_words(text)
    return any(
        len(words & held) >= (len(words) if len(words) <= FEW_WORDS else WORD_SHARE * len(words))
        for words in said
        if words
    )


@dataclass(frozen=True)
class Told:
    """What a forgotten record's content told, for reading the assistant's words: the telling
    words of each of its clauses (``_telling``) that few other records of the user's say, and
    the names it alone gave."""

    clauses: tuple[frozenset[str], ...]
    names: frozenset[str]


def told(store: Store, record: Record) -> Told:
    """What ``record`` (forgotten) told, against the other live records of its scope, the
    user's own (a session summary and the assistant's words aside; read among the
    ``ECHO_READ`` sharing the most words with it): the telling words of each clause of its
    content (``_telling``) that fewer than ``COMMON_IN`` of them say ("diabetes"; not the
    user's everyday words), and each name it gives (a word of three letters or more written
    with a capital, "Gregor" in "The user's ex-husband's name is Gregor.", no title or
    interjection) that none of them says and WordNet does not know (no place or word:
    "Tokyo", "Max"; so a sentence's first word counts only as a name: "Zanetti is my new
    landlord.")."""
    content = record.content
    pieces = [_telling(p) for a, b in sentence_spans(content) for p in _with_clauses(content[a:b])]
    names = {
        word.casefold()
        for a, b in sentence_spans(content)
        for word in _WORD.findall(content[a:b])
        if word[0].isupper()
        and len(word) > 2
        and word.casefold() not in _NO_NAMES
        and not _known(word)
    }
    match = fts_match(sorted(names.union(*pieces)))
    if match is None:
        return Told((), frozenset())
    elsewhere = stored.users_words_matching(
        store, record.scope, match, besides=record.lineage_id or record.id, limit=ECHO_READ
    )
    said = Counter(w for text in elsewhere for w in said_words(text))
    folded = {w.casefold() for text in elsewhere for w in _WORD.findall(text)}
    clauses = tuple(
        kept
        for words in pieces
        if len(kept := frozenset(w for w in words if said[w] < COMMON_IN)) >= CLAUSE_WORDS
    )
    return Told(clauses, frozenset(names - folded))


def _telling(text: str) -> frozenset[str]:
    """``said_words`` of ``text`` that can tell something: a number, or a word of at most
    ``FEW_SENSES`` WordNet senses ("diabetes", "debt", "morning"; not "work", "start", "card":
    a reply sharing those with a forgotten sentence is about something else as often)."""
    return frozenset(stem_word(w) for w in _content_words(text) if _few_senses(w))


@functools.lru_cache(maxsize=16384)
def _few_senses(word: str) -> bool:
    net = wordnet()
    if net is None or any(c.isdigit() for c in word):
        return True
    senses = {
        (pos, s)
        for pos in "nvar"
        for lemma in net.lemmas(word, pos)
        for s in net.senses(lemma, pos)
    }
    return len(senses) <= FEW_SENSES


def _known(word: str) -> bool:
    """Whether WordNet knows ``word`` (a place, "Tokyo"; a word, "Max"): no one's own name."""
    net = wordnet()
    return net is None or net.knows(word)


def says_again(text: str, forgotten: Sequence[Told]) -> bool:
    """Whether ``text`` says a forgotten record again: a sentence or clause of it holds
    ``CLAUSE_SHARE`` of the words one of the record's clauses told, ``CLAUSE_WORDS`` at least
    ("Since you have type 2 diabetes, ..." for "I was diagnosed with type 2 diabetes last month, so
    please keep that in mind for recipes."), or it names a name the record alone gave ("I
    won't bring up Gregor again."). Read for what the assistant said only: dropping a reply
    costs less than keeping a forgotten fact."""
    named = {w.casefold() for w in _WORD.findall(text)}
    if any(t.names & named for t in forgotten):
        return True
    pieces = [said_words(p) for a, b in sentence_spans(text) for p in _with_clauses(text[a:b])]
    return any(
        len(shared := words & held) >= CLAUSE_WORDS
        and len(shared) >= CLAUSE_SHARE * len(words)
        and not all(w.isdigit() for w in shared)  # "40" and "000" name no debt
        for held in pieces
        for t in forgotten
        for words in t.clauses
    )


def echoes(store: Store, embedder: Embedder | None, forgotten: Sequence[Record]) -> list[str]:
    """The ids of the live assistant's words (core.extraction.replies) of the users of the
    ``forgotten`` records (their own scopes, exactly) that say one of them again: of the
    ``ECHO_READ`` whose own words share the most with them, those holding the words of a
    forgotten content or evidence (``holds``) or what one told (``says_again``, ``told``),
    and with ``embedder`` those of the first ``ECHO_SHORTLIST`` that restate one by meaning
    (``restates``, at ``ECHO_FLOOR``)."""
    said = [said_words(t) for r in forgotten for t in (r.content, r.evidence) if t]
    users = {u for r in forgotten if (u := scope_user(r.scope)) is not None}
    match = fts_match(sorted(set().union(*said))) if said else None
    if not users or match is None:
        return []
    what = [told(store, r) for r in forgotten]
    rows = [
        row
        for row in stored.assistant_words_holding(store, match, sorted(users), ECHO_READ)
        if scope_user(row["scope"]) in users  # LIKE ignores case; user ids do not
    ]
    meaning = (
        Suppressions.load(store, sorted({r.scope for r in forgotten}), embedder, ECHO_FLOOR)
        if embedder is not None
        else None
    )
    return [
        row["id"]
        for i, row in enumerate(rows)
        if holds(row["evidence"] or "", said)
        or says_again(row["evidence"] or "", what)
        or (meaning is not None and i < ECHO_SHORTLIST and restates(meaning, row["evidence"] or ""))
    ]


__all__ = [
    "CLAUSE_SHARE",
    "CLAUSE_WORDS",
    "COMMON_IN",
    "ECHO_FLOOR",
    "ECHO_READ",
    "ECHO_SHORTLIST",
    "FEW_SENSES",
    "FEW_WORDS",
    "WORD_SHARE",
    "Suppressions",
    "Told",
    "content_digest",
    "echoes",
    "holds",
    "refuse_forgotten",
    "restated",
    "restates",
    "said_words",
    "says_again",
    "scope_user",
    "told",
    "told_again",
]

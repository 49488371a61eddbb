"""Rule classes of the paraphrase reading (core.judge.paraphrase) beyond its word cover:
which part of speech a statement word plainly is, WordNet and phrasal-verb cover, clock times
for parts of the day, the quote place chosen for a word, shared decisions, conditions and
preferences whose terms must keep their sides, lasting results of a past change, and arrival
at a place. Each is a class of English, documented where it is defined.
"""

from __future__ import annotations

from agent_memory.core.judge.daytime import says_daypart
from agent_memory.core.judge.forms import lemmas, past_form
from agent_memory.core.judge.relations import same_word
from agent_memory.core.judge.text import (
    CLAUSE,
    CONJ,
    MODAL,
    NEG,
    POSS,
    PREP,
    PUNCT,
    SELF,
    SELFPOSS,
    SOFT,
    STOP,
    VALUE,
    WORD,
    Sentence,
    Token,
    split_words,
    stem_word,
)
from agent_memory.core.judge.wordnet import WordNet, wordnet

ENDED = set(
    split_words(
        "died dead lost sold left quit stop stopped avoid ended divorced cancelled canceled "
        "returned former formerly"
    )
)

HOUSE = {stem_word(w) for w in split_words("household family home team")}

WE = set(split_words("we us our ours ourselves"))

_PARTICLES = frozenset(split_words("away out up off down over back on in"))

# Verbs of going: their past with "to" puts the speaker in the place.
_ARRIVE = {stem_word(w) for w in split_words("come emigrate fly go move relocate return travel")}

ABOUT = frozenset(split_words("about around roughly approximately approx some"))

# Changes whose result lasts: "we moved to Leeds" says where the user lives now.
_RESULT = {
    stem_word(w)
    for w in split_words("adopt become buy get join marry move relocate start switch turn")
}

_DECIDE = {
    stem_word(w)
    for w in split_words("agree choose chose chosen decide opt pick select settle vote")
}

CONDITION = frozenset(split_words("if when whenever"))

# Words that strengthen a claim without changing what it is about.
STRENGTHEN = frozenset(
    split_words("all every really truly totally absolutely definitely completely entirely")
)

INTENSIFIERS = frozenset(split_words("very really extremely super incredibly highly"))

# Needing something says wanting it (not the other way round).
NEEDING = {stem_word(w) for w in split_words("need needs needed")}

WANTING = frozenset(split_words("want wants wanted"))

_PREFERRING = frozenset(split_words("prefer prefers preferred rather better best"))

_AGAINST = frozenset(split_words("than over to instead"))

_DETERMINERS = frozenset(split_words("a an the their his her its some any another"))


def has(texts: list[str], run: list[str]) -> bool:
    return any(texts[i : i + len(run)] == run for i in range(len(texts)))


def pos_hint(tokens: list[Token], i: int) -> str:
    """Whether the statement's word ``tokens[i]`` is plainly a noun ("n": after a/the/a
    number/a possessive) or a verb ("v": right after the user or a modal), else "". The word
    readings have no parse, and a word read in the wrong part of speech finds wrong cover
    ("drinks" the verb is no "drink", a beverage)."""
    k = i - 1
    while k >= 0 and tokens[k].cls in (SOFT, NEG):
        k -= 1
    if k < 0:
        return ""
    prev = tokens[k]
    if prev.cls in (SELF, MODAL) or prev.text == "to":
        return "v"
    if prev.cls in (VALUE, SELFPOSS, POSS) or prev.text in _DETERMINERS:
        return "n"
    return ""


def lexicon_covers(want: str, have: str, parts: str, *, kinds: bool = True) -> bool:
    """WordNet (core.judge.wordnet) says the quote's word gives the statement's, as ``pos``
    ("n", "v" or "nv": either), e.g. "retriever" gives "dog", "passed away" gives "died";
    with ``kinds`` False (a statement that denies), only as the same thing ("soda" / "pop"),
    not as a kind of it ("I don't own a poodle" says nothing of dogs)."""
    lexicon = wordnet()
    if lexicon is None:
        return False
    for pos in parts:
        wants = lexicon.lemmas(want, pos)
        haves = lexicon.lemmas(have, pos) if "_" not in have else _phrasal(lexicon, have)
        if any(
            same_word(a, b, kinds=kinds) or lexicon.covers(a, b, pos, kinds=kinds)
            for a in wants
            for b in haves
        ):
            return True
    return False


def _phrasal(lexicon: WordNet, have: str) -> list[str]:
    """ "passed_away" as the verb lemmas "pass_away" (the verb's base form and its particle)."""
    verb, _, particle = have.partition("_")
    return [f"{base}_{particle}" for base in lexicon.lemmas(verb, "v")]


def choose(candidates: list[list[int]], clause_of: list[int]) -> list[int]:
    """One quote place for each covered statement word: the first, unless a later one sits
    in a clause that a word with only one place must use anyway ("we don't live in Denver
    anymore, we moved to Boulder": "lives ... Boulder" is read in the Boulder clause)."""
    fixed = {clause_of[found[0]] for found in candidates if len(found) == 1}
    return [next((p for p in found if clause_of[p] in fixed), found[0]) for found in candidates]


def clock_cover(want: Token, statement: Sentence, tokens: list[Token]) -> list[int]:
    """Quote clock times that say the statement's part of the day (core.judge.daytime)."""
    words = {t.text for t in statement.tokens}
    return [
        p
        for p, tok in enumerate(tokens)
        if tok.cls == VALUE
        and says_daypart(
            want.text,
            words,
            tok.text,
            tokens[p - 1].text if p and tokens[p - 1].cls == PREP else None,
        )
    ]


def phrasal_cover(want: Token, tokens: list[Token]) -> int | None:
    """The place of a phrasal verb of the quote ("passed away", "work out") that gives the
    statement's word, read as one word."""
    for p in range(len(tokens) - 1):
        verb, particle = tokens[p], tokens[p + 1]
        if verb.cls != WORD or particle.text not in _PARTICLES:
            continue
        joined = Token(f"{verb.text}_{particle.text}", WORD, f"{verb.text}_{particle.text}")
        if want.cls == WORD and lexicon_covers(want.text, joined.text, "v"):
            return p
    return None


def shared_decision(tokens: list[Token], statement: Sentence) -> str | None:
    """ "We decided / chose / agreed ...", "my wife and I picked ..." is a shared decision:
    it does not say the user decided alone ("The user decided ..."), only that the household
    or team did."""
    if not any(lemmas(t) & _DECIDE for t in statement.tokens):
        return None
    if not any(t.text in WE for t in tokens) and not has([t.text for t in tokens], ["and", "i"]):
        return None
    if {t.form for t in statement.tokens} & HOUSE or any(t.text == "we" for t in statement.tokens):
        return None
    return "the quote's decision is shared, the statement makes it the user's alone"


def _condition_span(tokens: list[Token]) -> range | None:
    """The words a condition word governs: from "if"/"when" to the next comma or clause
    word when it opens the sentence, else to the end."""
    start = next((i for i, t in enumerate(tokens) if t.text in CONDITION), None)
    if start is None:
        return None
    end = len(tokens)
    fronted = all(t.cls in (STOP, SOFT, CLAUSE, CONJ) for t in tokens[:start])
    if fronted:
        end = next(
            (i for i in range(start + 1, len(tokens)) if tokens[i].cls in (PUNCT, CLAUSE)), end
        )
    return range(start, end)


def condition_roles(
    tokens: list[Token], needs: list[Token], cover: list[int], statement: Sentence
) -> str | None:
    """With a condition on both sides, each statement word is inside its condition exactly
    when its cover is inside the quote's: "I skip meals when I get migraines" is no "gets
    migraines when skipping meals"."""
    mine, theirs = _condition_span(statement.tokens), _condition_span(tokens)
    if mine is None or theirs is None:
        return None
    for want, p in zip(needs, cover, strict=True):
        if (statement.tokens.index(want) in mine) != (p in theirs):
            return f"the quote's condition is not the statement's ({tokens[p].text!r})"
    return None


def _contrast_at(tokens: list[Token]) -> int | None:
    """Where a preference's second term starts: the "than"/"over"/"to"/"instead" after
    "prefer", "rather" or "better" ("prefers tea to coffee", "rather tea than coffee")."""
    start = next((i for i, t in enumerate(tokens) if t.text in _PREFERRING), None)
    if start is None:
        return None
    return next((i for i in range(start + 1, len(tokens)) if tokens[i].text in _AGAINST), None)


def contrast_roles(
    tokens: list[Token], needs: list[Token], cover: list[int], statement: Sentence
) -> str | None:
    """With a preference's two terms on both sides, each statement word is after the
    contrast exactly when its cover is: "rather tea than coffee" is no "prefers coffee to
    tea"."""
    mine, theirs = _contrast_at(statement.tokens), _contrast_at(tokens)
    if mine is None or theirs is None:
        return None
    for want, p in zip(needs, cover, strict=True):
        if (statement.tokens.index(want) > mine) != (p > theirs):
            return f"the quote prefers the other way round ({tokens[p].text!r})"
    return None


def lasting_result(tokens: list[Token]) -> bool:
    """The quote's past is a change whose result lasts: "just" with a past verb, or a past
    verb of moving, starting, switching or acquiring, and nothing past that ended it."""
    texts = {t.text for t in tokens}
    if texts & ENDED or texts & {"was", "were", "used", "had"}:
        return False
    past = [t for t in tokens if t.past or past_form(t)]
    if not past:
        return False
    return "just" in texts or any(lemmas(t) & _RESULT for t in past)


def arrived(tokens: list[Token], p: int) -> bool:
    """The place at ``p`` is where the speaker went: "to" after a past verb of going ("we
    moved to Boulder", "went to Iceland") puts them in it; "going to" / "moving to" does not."""
    q = p - 1
    while q >= 0 and tokens[q].cls in (STOP, SOFT):
        q -= 1
    q -= 1  # the "to" itself
    while q >= 0 and tokens[q].cls in (STOP, SOFT):
        q -= 1
    if q < 0 or (not past_form(tokens[q]) and not tokens[q].past):
        return False
    return bool(lemmas(tokens[q]) & _ARRIVE)

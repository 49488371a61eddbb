"""The paraphrase reading's vetoes (core.judge.paraphrase): once every statement word is
covered by a quote word, each check here may refuse the reading for what the rest of the quote
sentence says (another subject, a hedge, a negation, another tense, values, origins, ...)."""

from __future__ import annotations

from agent_memory.core.judge.daytime import DAYPARTS
from agent_memory.core.judge.forms import lemmas, past_form
from agent_memory.core.judge.lexicon import (
    INTENSIFIERS,
    SEQUENCE,
    TIME_UNITS,
    denies_in_part,
)
from agent_memory.core.judge.paraphrase_rules import (
    ABOUT,
    CONDITION,
    ENDED,
    NEEDING,
    STRENGTHEN,
    WANTING,
    WE,
    arrived,
    has,
    lasting_result,
    lexicon_covers,
)
from agent_memory.core.judge.relations import derived
from agent_memory.core.judge.text import (
    CLAUSE,
    CONJ,
    MODAL,
    NEG,
    NOT_LIKE,
    POSS,
    PREP,
    PRON,
    PUNCT,
    REL,
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

# Words that say the same thing either way round.
_GROUPS = [
    "manager boss supervisor",
    "pick picked choose chose chosen decide decided select selected opt opted",
    "call called name named",
    "hate hated dislike disliked loathe loathed detest detested",
    "medication med meds medicine",
    "allergy allergic",
    "purchase purchased buy bought",
    "wed married marry",
    "prefer rather",
]

# A statement word (key) that these quote words entail, but not the other way round.
_ENTAILED_BY = {
    "manager": "report",
    "boss": "report",
    "spouse": "wife husband",
    "partner": "wife husband spouse girlfriend boyfriend fiance fiancee",
    "like": "love adore enjoy",
    "enjoy": "love adore",
    "vehicle": "car truck van",
    "phone": "smartphone iphone",
    "child": "son daughter",
    "parent": "mother father",
    "sibling": "brother sister",
}

_SYNONYM: dict[str, int] = {}

for _index, _group in enumerate(_GROUPS):
    for _word in _group.split():
        _SYNONYM.setdefault(stem_word(_word), _index)

_HYPONYMS = {
    stem_word(key): {stem_word(w) for w in words.split()} for key, words in _ENTAILED_BY.items()
}

# Statement words that claim nothing the quote must say.
LIGHT_VERBS = {stem_word(w) for w in split_words("have use take hold follow own get keep")}

# Getting something: "we adopted a greyhound" gives "the user has a greyhound".
_ACQUIRE = {stem_word(w) for w in split_words("adopt buy get receive rescue inherit")}

_PRIVATIVE = set(
    split_words("previous former ex future fake almost nearly potential imaginary would-be")
)

# Words anywhere in the sentence that make a covered claim approximate, ended or lost.
_APPROXIMATE = set(
    split_words("almost nearly ish around roughly approximately about-to sort kind partly")
)

_EXTRA_HEDGES = {stem_word(w) for w in split_words("need needs needed turning applied goal")}

_ATTITUDE = {stem_word(w) for w in split_words("like love hate prefer mind enjoy dislike")}

_RECENT = set(split_words("just last recently lately ago yesterday new newly"))

REQUEST_START = set(
    split_words(
        "please pls keep make give use write answer reply respond call format put send show "
        "explain tell"
    )
)

_REQUEST_FILLER = set(split_words("you your me it everything all this these things"))

_SUBJECT_PRONOUNS = set(split_words("he she it they"))

_DISCOURSE = set(split_words("finally ugh honestly yeah so well oh hey lol sure big"))


def covers(want: Token, have: Token, pos: str = "", *, denied: bool = False) -> bool:
    """Whether the quote's ``have`` says the statement's ``want``: the same word, a synonym,
    a word that entails it (``_HYPONYMS``, WordNet's kinds: "poodle" gives "dog"), a word
    derived from it (core.judge.relations.derived: "allergic" gives "allergy"; a name gives no
    other name). Under a statement that ``denied``, a word that entails it does not
    cover it: not owning a poodle says nothing of dogs."""
    if have.cls not in (WORD, VALUE, PREP, SOFT):
        return False
    if want.cls == VALUE or have.cls == VALUE:
        return want.cls == have.cls and (
            want.form == have.form
            or (want.form[:1] == "@" and have.form.startswith(want.form + "-"))
        )
    la, lb = lemmas(want), lemmas(have)
    if la & lb:
        return True
    groups = {_SYNONYM[f] for f in la if f in _SYNONYM}
    if groups & {_SYNONYM[f] for f in lb if f in _SYNONYM}:
        return True
    if not denied and any(_HYPONYMS.get(f, set()) & lb for f in la):
        return True
    if derived(want.text, have.text):
        return True
    return (
        bool(pos)
        and want.cls == WORD
        and have.cls == WORD
        and lexicon_covers(want.text, have.text, pos, kinds=not denied)
    )


def check_soft(want: Token, tokens: list[Token], kept: set[str]) -> str | None:
    texts = [t.text for t in tokens]
    if want.text in texts:
        return None
    past = any(t.past for t in tokens)
    if want.text in ("now", "currently", "nowadays", "still") and not past:
        return None
    if want.text in ("now", "currently") and lasting_result(tokens):
        return None  # "I just moved to Leeds", "we've switched to Linear": so it is now
    if want.text in ("recently", "lately") and set(texts) & _RECENT:
        return None
    if want.text == "always" and (
        has(texts, ["whole", "life"]) or has(texts, ["all", "my", "life"])
    ):
        return None
    if want.text == "daily" and ("day" in texts or "days" in texts):
        return None
    return f"the statement adds {want.text!r}, which the quote does not say"


def check_subject(
    tokens: list[Token],
    clause_of: list[int],
    used: list[int],
    cover: list[int],
    request: bool,
    kept: set[str],
) -> str | None:
    """Each covering clause is about the user: its first word that matters is the speaker
    (I, we, my/our + a covered word), a request verb, a covered word, or, after the first
    clause, a subject pronoun that can point back ("she's called Nell")."""
    covered = set(cover)
    for rank, clause in enumerate(used):
        positions = [p for p, c in enumerate(clause_of) if c == clause]
        for k, p in enumerate(positions):
            tok = tokens[p]
            if tok.cls in (STOP, SOFT, PUNCT, CONJ, CLAUSE, NEG) or tok.text in _DISCOURSE:
                continue
            if tok.cls == MODAL and not (request and tok.text == "you"):
                continue
            if p in covered:
                break
            if tok.cls == SELF or tok.text in ("we", "us", "im"):
                problem = check_predicate(tokens, positions[k + 1 :], covered, kept)
                if problem is not None:
                    return problem
                break
            if tok.cls == SELFPOSS or tok.text in ("our", "ours"):
                following = positions[k + 1] if k + 1 < len(positions) else None
                if following is not None and (
                    following in covered or tokens[following].cls == VALUE
                ):
                    break
                if following is not None and tokens[following].text in kept:
                    break
                shown = tokens[following].text if following is not None else tok.text
                return f"the quote may be about someone or something else: {shown!r}"
            if request and rank == 0:
                break
            if rank > 0 and tok.text in _SUBJECT_PRONOUNS:
                break
            if tok.text in kept:
                break
            return f"the quote may be about someone or something else: {tok.text!r}"
    return None


def check_predicate(
    tokens: list[Token], positions: list[int], covered: set[int], kept: set[str]
) -> str | None:
    """Between the speaker and the first covered word no other verb or noun may stand:
    "I stopped eating meat" does not give "the user eats meat", nor "I miss living in the
    city" "the user lives in the city". Light verbs (have, got, use) may, and for a statement
    that the user has something, verbs of getting it (adopted, bought, inherited)."""
    for p in positions:
        if p in covered:
            return None
        tok = tokens[p]
        if tok.cls != WORD or tok.text in kept or tok.text in _DISCOURSE:
            continue
        if tok.text in STRENGTHEN:
            continue  # "I do all my banking with Monzo": more, not something else
        if tok.form in NEEDING and kept & WANTING:
            continue  # "I need the simplest budget" says the user wants it
        acquired = kept & {"has", "have"} and lemmas(tok) & _ACQUIRE
        following = tokens[p + 1].text if p + 1 < len(tokens) else ""
        if tok.form == "work" and following == "as":
            continue  # "I work as a plumber": the user is a plumber
        if not (lemmas(tok) & LIGHT_VERBS or acquired):
            return f"the quote says more about it: {tok.text!r} stands before what it covers"
    return None


def check_hedges(
    tokens: list[Token],
    clause_of: list[int],
    used: list[int],
    statement_hedged: bool,
    kept: set[str],
    request: bool,
) -> str | None:
    last = max(used)
    for p, tok in enumerate(tokens):
        if clause_of[p] > last:
            break
        if clause_of[p] not in used and clause_of[p] > min(used):
            continue
        hedge = (tok.cls == MODAL and tok.form != "can") or tok.form in _EXTRA_HEDGES
        if tok.text in _PRIVATIVE and tok.text not in kept:
            return f"the quote qualifies it ({tok.text!r})"
        if tok.text == "going" and p + 1 < len(tokens) and tokens[p + 1].text == "to":
            hedge = True
        if tok.text == "about" and p + 1 < len(tokens) and tokens[p + 1].text == "to":
            hedge = True
        if tok.form == "would" and p + 1 < len(tokens) and tokens[p + 1].text == "rather":
            hedge = not kept & {"prefers", "prefer", "rather"}
        if not hedge or tok.text in kept:
            continue
        if tok.form in NEEDING and kept & WANTING:
            continue  # "I need X" says the user wants X
        if tok.text in CONDITION and kept & CONDITION:
            continue  # the statement keeps the condition: "if I skip meals" / "when skipping"
        if request and tok.form in ("can", "could", "would", "will", "when"):
            continue
        if statement_hedged and tok.form not in ("say", "used", "if", "or", "when"):
            continue
        return (
            f"the quote hedges, conditions or reports it ({tok.text!r}) and the statement "
            "states it plainly"
        )
    return None


def check_negation(
    tokens: list[Token], clause_of: list[int], used: list[int], statement: Sentence
) -> str | None:
    last = max(used)
    # An earlier clause's negation reaches the covering ones only when that clause has no
    # subject of its own ("No, ...", "Not anymore, ..."); "we don't live in Denver anymore,
    # we moved to Boulder" negates Denver, not Boulder.
    own_subject = {
        clause_of[p] for p, tok in enumerate(tokens) if tok.cls in (SELF, PRON) or tok.text in WE
    }
    negs = sum(
        1
        for p, tok in enumerate(tokens)
        if tok.cls == NEG
        and clause_of[p] <= last
        and (clause_of[p] in used or (clause_of[p] < min(used) and clause_of[p] not in own_subject))
    )
    wanted = [t.form for t in statement.tokens if t.cls == NEG]
    if negs != len(wanted):
        return f"the quote has {negs} negations where the statement has {len(wanted)}"
    forms = {
        tok.form
        for p, tok in enumerate(tokens)
        if tok.cls == NEG and clause_of[p] <= last and clause_of[p] >= min(used)
    }
    for form in wanted:
        if form not in forms and not (form == "not" and forms & NOT_LIKE):
            return f"the statement says {form!r} and the quote does not"
    for form in forms - NOT_LIKE:
        if form not in wanted:
            return f"the quote says {form!r} and the statement does not"
    for p, tok in enumerate(tokens):
        if tok.cls == NEG and clause_of[p] not in used:
            rest = [t for q, t in enumerate(tokens) if clause_of[q] == clause_of[p]]
            if any(t.cls == SELF for t in rest) and len(rest) <= 4:
                return f"the quote negates the speaker ({tok.text!r})"
    return None


def check_tense(
    tokens: list[Token],
    clause_of: list[int],
    used: list[int],
    statement: Sentence,
    cover: list[int],
) -> str | None:
    toks = statement.tokens
    statement_past = any(t.past for t in toks) or any(
        past_form(t) and (i == 0 or toks[i - 1].text not in ("is", "are", "am"))
        for i, t in enumerate(toks)
    )
    if statement_past:
        return None
    later = [t.text for t in tokens[max(cover) + 1 :]] if cover else []
    if any(t.past or past_form(t) for t in tokens) and set(later) & SEQUENCE:
        return f"the quote goes on to a later change ({(set(later) & SEQUENCE).pop()!r})"
    for p, tok in enumerate(tokens):
        if clause_of[p] not in used or not tok.past:
            continue
        perfect = p > 0 and tokens[p - 1].form == "have" and tokens[p - 1].cls == STOP
        if not perfect:
            return f"the quote is in the past ({tok.text!r}) and the statement is not"
    return None


def check_attitude(
    tokens: list[Token], clause_of: list[int], cover: list[int], request: bool, kept: set[str]
) -> str | None:
    """After an attitude verb, or in a request, no other content word in the clause: "I
    prefer tea over coffee", "Please use emojis sparingly"."""
    covered = set(cover)
    for clause in sorted({clause_of[p] for p in cover}):
        in_clause = [p for p, c in enumerate(clause_of) if c == clause]
        attitude = any(tokens[p].form in _ATTITUDE for p in in_clause)
        if not (attitude or (request and clause == clause_of[min(cover)])):
            continue
        start = min(p for p in in_clause if p in covered)
        for p in in_clause:
            tok = tokens[p]
            if p in covered or p < start or tok.form in _ATTITUDE:
                continue
            if request and (tok.text in REQUEST_START or tok.text in _REQUEST_FILLER):
                continue
            if tok.cls == PREP and tok.text in kept:
                continue
            if tok.cls in (WORD, VALUE, PREP, POSS, PRON, REL, SOFT):
                return f"the quote qualifies it further: {tok.text!r}"
    return None


def check_whole_sentence(tokens: list[Token], kept: set[str]) -> str | None:
    """Approximations ("around 30", "30-ish", "a doctor, well, almost") and endings ("my cat
    died") anywhere in the sentence, unless the statement says them too."""
    for tok in tokens:
        if tok.text in kept:
            continue
        if tok.text in _APPROXIMATE or tok.text in _PRIVATIVE:
            return f"the quote qualifies it ({tok.text!r})"
        if tok.text in ENDED:
            return f"the quote says it ended or changed ({tok.text!r})"
    return None


def _next_word(tokens: list[Token], p: int) -> Token | None:
    for tok in tokens[p + 1 :]:
        if tok.cls in (CLAUSE, CONJ, PUNCT, REL):
            return None
        if tok.cls == WORD:
            return tok
    return None


def check_values(
    tokens: list[Token],
    clause_of: list[int],
    needs: list[Token],
    cover: list[int],
    statement: Sentence,
) -> str | None:
    """A number counts the same thing on both sides: "3 kids and 2 dogs" does not give
    "2 kids"."""
    for want, p in zip(needs, cover, strict=True):
        if want.cls != VALUE:
            continue
        mine = _next_word(statement.tokens, statement.tokens.index(want))
        theirs = _next_word(tokens, p)
        if mine is None or theirs is None or mine.form in ("year", "old"):
            continue
        if not covers(mine, theirs):
            return f"{want.text} counts {theirs.text!r} in the quote"
    return None


def check_origins(
    tokens: list[Token], needs: list[Token], cover: list[int], statement: Sentence
) -> str | None:
    """A word the quote puts after "from" (where something moved from, an old value) is not
    the statement's unless the statement also says "from"; prepositions before a covered
    name or value must agree ("near Berlin" is not "in Berlin")."""
    for want, p in zip(needs, cover, strict=True):
        theirs = _preposition(tokens, p)
        mine = _preposition(statement.tokens, statement.tokens.index(want))
        if theirs == "from" and mine != "from":
            return f"{tokens[p].text!r} is where it came from in the quote"
        if theirs == "to" and mine in ("in", "at") and arrived(tokens, p):
            continue
        if want.text in DAYPARTS and tokens[p].cls == VALUE:
            continue  # "before 7am" says "in the morning" (core.judge.daytime checked the way)
        if theirs and mine and theirs != mine and {theirs, mine} - {"in", "at"}:
            return f"the quote says {theirs!r} {tokens[p].text!r}, not {mine!r}"
    return None


def _preposition(tokens: list[Token], p: int) -> str | None:
    q = p - 1
    while q >= 0 and (
        tokens[q].cls in (STOP, SOFT) or (tokens[q].text in ABOUT and tokens[p].cls == VALUE)
    ):
        q -= 1  # "for about 800": the preposition is "for"
    return tokens[q].text if q >= 0 and tokens[q].cls == PREP else None


def check_strict(
    tokens: list[Token],
    clause_of: list[int],
    cover: list[int],
    statement: Sentence,
    request: bool,
) -> str | None:
    """Under a negation, or for "the user is X", the quote may not qualify the covered words
    further ("I don't eat meat on Fridays", "I'm a doctor in training", "a doctor's
    assistant")."""
    negated = any(t.cls == NEG for t in statement.tokens)
    words = [t for t in statement.tokens if t.cls not in (STOP, PUNCT)]
    copular = (
        any(
            t.text in ("is", "are", "am")
            for t in statement.tokens[: statement.tokens.index(words[1])]
        )
        if len(words) > 1
        else False
    )
    covered = set(cover)
    for p in cover:
        if p + 1 < len(tokens) and tokens[p + 1].cls == POSS and p + 1 not in covered:
            return f"{tokens[p].text!r} belongs to something else in the quote"
    if not (negated or copular) or request:
        return None
    last = max(cover)
    if negated:
        # Among the covered words after the negation too: not eating red meat says nothing
        # of meat (before it, "My two kids don't eat fish" still gives "the user's kids").
        first = min(cover)
        start = next((p for p in range(first, last) if tokens[p].cls == NEG), first)
        for p in range(start + 1, last):
            if p not in covered and narrows(tokens, p):
                return f"the quote qualifies it: {tokens[p].text!r} stands among its words"
    said = {t.text.casefold() for t in statement.tokens}
    # Under a negation from its negation on ("I'm not always home"), else after the cover.
    begin = last + 1
    if negated:
        clause = clause_of[min(cover)]
        negs = [p for p in range(last) if tokens[p].cls == NEG and clause_of[p] == clause]
        begin = negs[-1] if negs else min(cover)
    for p in range(begin, len(tokens)):
        if p > last and clause_of[p] != clause_of[last]:
            break
        word, before = tokens[p].text.casefold(), tokens[p - 1].text.casefold() if p else ""
        if negated and p not in covered and word not in said and denies_in_part(word, before):
            return f"under a negation the quote denies only part of it: {tokens[p].text!r}"
        if p > last and tokens[p].cls in (WORD, VALUE, PREP, POSS, PRON, REL):
            return f"the quote qualifies it further: {tokens[p].text!r} follows"
    return None


def narrows(tokens: list[Token], p: int) -> bool:
    """Whether the word at ``p`` narrows what it stands before: a word or number, not an
    intensifier (``INTENSIFIERS``) nor a count of time units."""
    tok = tokens[p]
    if tok.cls not in (WORD, VALUE) or tok.text.casefold() in INTENSIFIERS:
        return False
    after = tokens[p + 1].text.casefold() if p + 1 < len(tokens) else ""
    return not (tok.cls == VALUE and after in TIME_UNITS)

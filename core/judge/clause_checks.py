"""The clause reading's checks on the way up the parse: polarity, hedges, tense, qualifiers.

From each quote word that covers a statement word (core.judge.clauses) up to the top of its
clause chain (core.judge.syntax), nothing may change the claim: a negation the statement does
not share in number and kind, a modal, hedge, report, plan or condition, a qualifier that
limits it in time or extent, another tense, a contradicting preposition. A failed check is a
*veto*: the parse shows the quote says something else, and the offline judge's other readings
do not overrule it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_memory.core.judge.daytime import DAYPARTS
from agent_memory.core.judge.lexicon import (
    ARRIVE,
    ASPECT,
    CONDITIONS,
    ENDING,
    FUTURE,
    HEDGE_ADVERBS,
    HEDGE_VERBS,
    INTENSIFIERS,
    MODALS,
    NEG_WORDS,
    NOT_LIKE,
    PARTIAL,
    PREP_GROUPS,
    PRIVATIVE,
    QUALIFYING,
    RARELY,
    REASONS,
    RESULT,
    SEQUENCE,
    TIME_UNITS,
    WEEK_PART,
    denies_in_part,
)
from agent_memory.core.judge.syntax import (
    idiom_negation,
    is_correction,
    is_negation,
    is_past,
    lemma_of,
    negation_kind,
    path_up,
    spliced,
)

_HABIT_CONDITION = frozenset("if when whenever".split())
# A covered word's modifiers that narrow what it names ("red meat", "chicken soup", "two
# cats"): under a negation the narrower claim does not give the wider one.
_NARROWING = frozenset("amod compound nummod".split())
# How much of a fan, which "not a fan of X" (core.judge.rephrase: "does not like X") leaves out.
_DEGREE = frozenset("big huge great massive biggest".split())
# Dependents that open a clause of their own, or stand outside the claim ("Well, ...").
_OTHER_CLAUSE = frozenset("conj advcl relcl acl ccomp xcomp parataxis intj cc mark punct".split())

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token


@dataclass(frozen=True, slots=True)
class Reading:
    """The clause reading's answer and why; ``veto`` when the parse shows the quote says
    something else (another subject, swapped roles, a hedge, negation or tense), as opposed
    to a statement word it could not find."""

    holds: bool
    reason: str
    veto: bool = False


def veto(reason: str) -> Reading:
    """A refusal that the other readings may not overrule."""
    return Reading(False, reason, veto=True)


class PathChecks:
    """The checks, on a quote parse ``q`` and a statement parse ``s``."""

    q: Doc
    s: Doc
    s_lemmas: set[str]
    request: bool

    def _on_the_way(self, covers: dict[int, Token]) -> Reading | None:
        seen: set[int] = set()
        negs: list[str] = []
        past = result = False
        covering = {c.i for c in covers.values()}
        for cover in covers.values():
            path = path_up(cover)
            for below, node in zip([None, *path], path, strict=False):
                if node.i in seen:
                    continue
                seen.add(node.i)
                if below is not None and self._embeds(node, below, covering):
                    return veto(
                        f"the quote embeds it in {node.text!r}, which the statement does not say"
                    )
                problem = self._hedged(node, covers) or self._qualified(node, covering)
                if problem is not None:
                    return veto(problem)
                negs += self._negations(node, covering)
                past = past or is_past(node)
                result = result or lemma_of(node) in RESULT
            problem = self._governed(path[-1], negs)
            if problem is not None:
                return veto(problem)
        negs += self._wide_negations(min(covering), seen)
        return self._polarity(negs, covering, seen) or self._tense(past, result, covers)

    def _polarity(self, negs: list[str], covering: set[int], seen: set[int]) -> Reading | None:
        """The quote's negations match the statement's in number and kind: "never" gives
        "not", "rarely" only "rarely", a quit/sold (an ending) gives "no longer"."""
        wanted = [negation_kind(t) for t in self.s if is_negation(t)]
        if len(negs) != len(wanted):
            return veto(
                f"the quote has {len(negs)} negations in the covering clause and the "
                f"statement {len(wanted)}"
            )
        left = list(negs)
        for kind in wanted:
            match = next((k for k in left if k == kind or (kind == "not" and k in NOT_LIKE)), None)
            if match is None:
                return veto(f"the quote's negation is not the statement's ({kind!r})")
            left.remove(match)
        if set(negs) - {"end"}:
            extra = self._negated_extras(covering, seen)
            if extra is not None:
                return veto(f"under a negation the quote says more: {extra.text!r}")
        return None

    def _negated_extras(self, covering: set[int], seen: set[int]) -> Token | None:
        """A negated clause with a qualifier the statement lacks ("I don't eat meat on
        Fridays" is not "does not eat meat")."""
        for i in seen:
            node = self.q[i]
            for child in node.children:
                if child.dep_ not in ("prep", "npadvmod") or child.lower_ in REASONS:
                    continue
                if not any(t.i in covering for t in child.subtree):
                    return child
        return self._partial_word(covering) or self._narrowing_modifier(covering)

    def _partial_word(self, covering: set[int]) -> Token | None:
        """A word that makes the negation partial, in the covered clause after the negation
        ("a lot of coffee", "speak French fluently", "sleep well"); not "at all", which makes
        it whole, nor a word of another clause ("I don't smoke, which my doctor is very happy
        about": a review found 38 true pairs refused when the whole sentence counted)."""
        negations = [t for t in self.q if t.dep_ == "neg"]
        after = min((t.i for t in negations), default=-1)
        # The negated word too when it governs a covered one ("I'm not always home").
        roots = covering | {
            t.head.i
            for t in negations
            for i in covering
            if t.head.is_ancestor(self.q[i]) and not _in_another_clause(self.q[i], t.head)
        }
        for i in roots:
            for tok in self.q[i].subtree:
                before = self.q[tok.i - 1].lower_ if tok.i else ""
                if (
                    tok.i > after
                    and tok.i not in covering
                    and tok.lower_ not in self.s_lemmas
                    and denies_in_part(tok.lower_, before)
                    and not _in_another_clause(tok, self.q[i])
                ):
                    return tok
        return None

    def _narrowing_modifier(self, covering: set[int]) -> Token | None:
        """A covered word's own modifier: not eating red meat says nothing of meat. Not the
        subject's ("My two kids don't eat fish"), a stress ("a single pet", "not a big fan
        of"), nor a count of time ("in 5 years")."""
        for i in covering:
            node = self.q[i]
            if any(t.dep_ in ("nsubj", "nsubjpass") for t in (node, *node.ancestors)):
                continue
            for child in node.children:
                if (
                    child.dep_ in _NARROWING
                    and child.i not in covering
                    and child.lower_ not in INTENSIFIERS
                    and node.lower_ not in TIME_UNITS
                    and not (node.lemma_ == "fan" and child.lower_ in _DEGREE)
                ):
                    return child
        return None

    def _tense(self, past: bool, result: bool, covers: dict[int, Token]) -> Reading | None:
        s_past = any(is_past(t) for t in self.s)
        if past and not s_past and not result:
            return veto("the quote is in the past and the statement is not")
        if past and not s_past and result:
            last = max(c.i for c in covers.values())
            later = next((t for t in self.q[last + 1 :] if t.lower_ in SEQUENCE), None)
            if later is not None:  # "moved to Leeds in 2010, then to York"
                return veto(f"the quote goes on to a later change ({later.text!r})")
        if s_past and not past:
            return veto("the statement is in the past and the quote is not")
        return None

    def _governed(self, top: Token, negs: list[str]) -> str | None:
        """Above a coordinated clause, the verbs that govern the whole coordination ("It's not
        true that I'm 34 and I live in Porto", "I think I'm 34 and live in Porto")."""
        node = top.head if top.dep_ == "conj" else top
        while node.dep_ in ("ccomp", "xcomp", "csubj") and not spliced(node):
            governor = node.head
            if lemma_of(governor) in HEDGE_VERBS - self.s_lemmas:
                return f"the quote hedges, plans or reports it ({governor.text!r})"
            negs += [negation_kind(c) for c in governor.children if is_negation(c)]
            subject = next((c for c in governor.children if c.dep_ == "nsubj"), None)
            if subject is not None and subject.lower_ in NEG_WORDS:
                negs.append("not")
            node = governor
        return None

    def _wide_negations(self, first: int, seen: set[int]) -> list[str]:
        """A negation before the covered words that takes a "that" clause or a colon ("It
        is not the case that ...", "Nobody thinks: ...") scopes over all that follows,
        whatever the parse made of it."""
        found = []
        for tok in self.q[:first]:
            if not (is_negation(tok) or tok.lower_ in ("nobody", "noone")):
                continue
            between = self.q[tok.i + 1 : first]
            opens = any((t.lower_ == "that" and t.dep_ == "mark") or t.text == ":" for t in between)
            if opens and tok.head.i not in seen:
                found.append("not")
        return found

    def _state(self) -> bool:
        """The statement says what the user is ("is vegan"), not what they do."""
        root = next((t for t in self.s if t.dep_ == "ROOT"), None)
        return root is not None and root.lemma_ == "be"

    def _future_statement(self) -> bool:
        """The statement speaks of what is to come ("is getting married", "will move"), so
        the quote's "next spring" only dates it."""
        return any(
            (t.tag_ == "VBG" and (lemma_of(t) in RESULT or t.dep_ == "auxpass"))
            or t.lower_ in ("will", "'ll", "going")
            for t in self.s
        )

    def _qualified(self, node: Token, covering: set[int]) -> str | None:
        """A qualifier that limits the claim in time or extent ("sometimes", "on weekends",
        "in training", "30-ish", "next week", "except ...") that the statement drops."""
        if node.i not in covering and lemma_of(node) in PARTIAL - self.s_lemmas:
            return f"the quote limits it ({node.text!r})"
        for child in node.children:
            if child.i in covering or child.dep_ not in QUALIFYING:
                continue
            for tok in child.subtree:
                word = lemma_of(tok)
                if tok.i in covering:
                    break
                future = word in FUTURE and not self._future_statement()
                limits = word in PARTIAL or future or (word in WEEK_PART and self._state())
                if limits and word not in self.s_lemmas:
                    return f"the quote limits it ({tok.text!r})"
        return None

    def _preference(self, node: Token) -> bool:
        """ "I'd rather ..." states a preference, not a hedge, when the statement is one."""
        if not self.s_lemmas & {"prefer", "like", "want"}:
            return False
        return any(c.lower_ == "rather" for c in node.children)

    @staticmethod
    def _embeds(node: Token, below: Token, covering: set[int]) -> bool:
        """An uncovered verb that takes the covered clause as its complement ("People keep
        assuming I'm Australian", "I miss living in the city")."""
        return (
            below.dep_ in ("ccomp", "xcomp", "pcomp", "csubj", "acl")
            and node.pos_ == "VERB"
            and node.i not in covering
            and lemma_of(node) not in ASPECT
        )

    def _keeps_condition(self, word: str) -> bool:
        """The statement keeps the quote's condition: the same word, or "when"/"whenever"
        for an "if" of a habit ("I get migraines if I skip meals" / "when skipping meals")."""
        if word in self.s_lemmas:
            return True
        return word in _HABIT_CONDITION and bool(self.s_lemmas & _HABIT_CONDITION)

    def _hedged(self, node: Token, covers: dict[int, Token]) -> str | None:
        covering = {c.i for c in covers.values()}
        lemma = lemma_of(node)
        hedge = node.pos_ in ("VERB", "AUX") and lemma in HEDGE_VERBS and node.i not in covering
        if hedge and not (self.request and lemma == "want"):
            return f"the quote hedges, plans or reports it ({node.text!r})"
        for child in node.children:
            word = child.lower_
            if (
                child.dep_ == "aux"
                and (child.tag_ == "MD" or word in MODALS)
                and word not in ("can", "ca")
            ):
                if self._preference(node):
                    continue
                if child.lemma_.lower() not in self.s_lemmas and word not in self.s_lemmas:
                    return f"the quote has a modal ({child.text!r}) the statement does not"
            if child.dep_ == "advmod" and word in HEDGE_ADVERBS and word not in self.s_lemmas:
                return f"the quote hedges it ({child.text!r})"
            if child.dep_ == "mark" and word in CONDITIONS and not self._keeps_condition(word):
                return f"the quote makes it conditional ({child.text!r})"
            if child.dep_ == "advcl" and child.i not in covering:
                mark = next((m for m in child.children if m.dep_ == "mark"), None)
                if mark is not None and mark.lower_ in CONDITIONS - self.s_lemmas:
                    return f"the quote makes it conditional ({mark.text!r})"
            modifier = child.dep_ in ("amod", "advmod", "compound", "npadvmod")
            if modifier and word in PRIVATIVE - self.s_lemmas:
                return f"the quote qualifies it ({child.text!r})"
        if node.tag_ == "VBG" and lemma in RESULT and node.i not in covering:
            return f"the quote says it is still to happen ({node.text!r})"
        getting = next((c for c in node.children if c.dep_ == "auxpass" and c.tag_ == "VBG"), None)
        if getting is not None and getting.lower_ not in self.s_lemmas:
            return f"the quote says it is still to happen ({getting.text!r})"
        if lemma == "go" and any(c.dep_ == "xcomp" for c in node.children) and node.tag_ == "VBG":
            return f"the quote speaks of a plan ({node.text!r})"
        return None

    def _negations(self, node: Token, covering: set[int]) -> list[str]:
        """The kinds of the negations on ``node`` ("not", "never", "rare", "end"): its
        negation words (also "hardly ever", "no longer", and in its subject: "Neither my wife
        nor I"),
        and an ending verb ("quit", "sold") that the statement does not repeat."""
        kinds = []
        idiom = idiom_negation(node)
        for child in node.children:
            if child == idiom or is_correction(child, covering):
                continue
            if child.dep_ == "neg" or (child.dep_ in ("det", "advmod") and is_negation(child)):
                kinds.append(negation_kind(child))
            elif child.dep_ == "advmod":
                kinds += [negation_kind(g) for g in child.children if g.lower_ in RARELY]
                if child.lower_ in ("longer", "more", "anymore"):  # "no longer", "not any more"
                    kinds += ["not" for g in child.children if g.lower_ in ("no", "not")]
            elif child.dep_ in ("nsubj", "nsubjpass") and any(
                t.lower_ in NEG_WORDS for t in child.subtree
            ):
                kinds.append("not")
        if node.lower_ in ("without", "never", "nothing", "nobody"):
            kinds.append(negation_kind(node))
        elif lemma_of(node) in ENDING and node.i not in covering:
            kinds.append("end")
        return kinds

    def _prepositions(self, covers: dict[int, Token]) -> Reading | None:
        for tok in self.s:
            if tok.dep_ != "pobj" or tok.i not in covers or tok.head.pos_ != "ADP":
                continue
            mine, theirs = tok.head.lower_, covers[tok.i].head
            if theirs.pos_ != "ADP" or theirs.lower_ == mine:
                continue
            if theirs.lower_ == "to" and mine in ("in", "at") and arrived(theirs.head):
                continue  # "we moved to Boulder": in Boulder since
            if tok.lower_ in DAYPARTS and covers[tok.i].lower_ not in DAYPARTS:
                continue  # "before 7am" says "in the morning" (core.judge.daytime)
            if not any(mine in g and theirs.lower_ in g for g in PREP_GROUPS):
                return veto(f"the quote says {theirs.text!r} where the statement says {mine!r}")
        return None


def arrived(verb: Token) -> bool:
    """A past verb of going ("moved", "went", "have relocated"): its "to" place is where the
    speaker is since; "going to", "moving to" and "will move to" are plans, not arrivals."""
    if lemma_of(verb) not in ARRIVE or verb.pos_ != "VERB":
        return False
    if any(c.dep_ == "aux" and c.lower_ in MODALS | {"'ll", "will"} for c in verb.children):
        return False
    return verb.tag_ in ("VBD", "VBN")


def _in_another_clause(tok: Token, top: Token) -> bool:
    """Whether ``tok`` hangs from ``top`` through a clause of its own or outside the claim
    (``_OTHER_CLAUSE``: "which my doctor is very happy about", "Well, ...")."""
    while tok.i != top.i:
        if tok.dep_ in _OTHER_CLAUSE:
            return True
        tok = tok.head
    return False

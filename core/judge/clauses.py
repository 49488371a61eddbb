"""The offline judge's clause reading: who does what, read from a dependency parse.

The word rules (core.judge.offline) and the paraphrase reading (core.judge.paraphrase) see
words; this reading sees the clause each word sits in. It parses the quote sentence and the
statement (core.judge.parse) and accepts when:

1. **Every content word of the statement is covered** by a word of the quote sentence
   (core.judge.relations: lemma, synonym, entailed word, derived form; else WordNet 3.0 for
   the same part of speech, core.judge.wordnet; a clock time for a part of the day,
   core.judge.daytime; a light verb such as
   "has" or "takes" by a verb of having or by the speaker's possessive), every number and date
   of the statement is in the quote (core.judge.text's values: "thirty-two" is 32), and every
   name is spelled the same. Some statement words claim nothing a quote must say: "the user"
   and their pronouns, be/do, light verbs (have, use, take, get, keep, follow), category
   nouns (answers, replies, units), "years old" after a number, "now"/"currently"; the wish
   words (want, prefer, like, would, ask) when the quote is a request; "household", "team",
   "family", "home" when the quote speaks as we/our.
2. **The covering words sit in one clause chain** (no jump across "but"/"and" to another
   verb's clause: "I hate running but I love swimming" does not give "loves running").
3. **The subject agrees**: the covering clause's subject is the speaker (I, we, "my wife and
   I") for a statement about the user; a possessed noun ("my boss", "our son") for a
   statement about the user's boss or son; no subject at all in a request. A statement that
   the user has, takes or uses something, or is married, is also said by a quote that calls
   it the speaker's own ("my blood pressure meds", "my husband"). "Alex works for me" never
   gives "the user works for Alex", nor "my sister is a dentist" "the user is a dentist".
4. **Roles keep their order**: two arguments of the statement's verb ("prefers dogs to
   cats") appear in the quote in the same order.
5. **Nothing on the way up the parse changes the claim**, from each covering word to the
   sentence root (but not across a coordinated clause): the negations must match the
   statement's in number ("never", "no", "not", "n't", "without", "rarely"; a quit/stopped/
   sold/gave up counts as one); a modal (might, could, would, will, should, 'd, going to),
   a hedge or report verb (think, hope, plan, want, try, say, ...), a hedging adverb (maybe,
   probably), or a condition (if, unless, whether, when) must be in the statement too; a
   quote in the past (was, did, used to, a past verb) gives no present statement except
   through a verb whose result lasts (moved, married, started, turned, bought, adopted,
   switched); a privative or approximate modifier (former, ex, future, almost, nearly) must be
   kept; a statement's preposition must not be contradicted by the quote's ("near Boston" is
   not "in Boston").

A failed check of 2-5 (or a sarcastic opener, or a statement in which someone else does to the
user what the quote has the speaker do: "I beat Tom" / "Tom beat the user") is a *veto*: the
parse shows the quote says something else, and the offline judge then also refuses a pass of
its word readings (core.judge.offline): "Maria hired me" never gives "the user hired Maria".
A statement word with no cover is not a veto: the word readings may know a synonym this
reading does not. The statement is parsed with "the user" as "she" ("The user honeymooned in
Iceland" as "She honeymooned in Iceland"), which the small parser reads far more reliably.

Its reason names the first failed check, or says "clause reading" with the covering clause.
A condition clause may join the chain when the statement keeps the condition with the same
terms on each side ("I get migraines if I skip meals" / "gets migraines when skipping meals");
a shared decision ("we decided") is vetoed for a statement about the user alone; a past change
followed by a later one ("moved to Leeds, then to York") gives no present state.

Limits: the parser is a small statistical model and mis-parses some casual text; paraphrases
that need world knowledge WordNet lacks ("school run" is taking the kids to school) are still
refused; a quote longer than one sentence is read one sentence at a time.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from agent_memory.core.judge.clause_checks import Reading, veto
from agent_memory.core.judge.clause_covers import WORDNET_POS, Covers
from agent_memory.core.judge.lexicon import (
    AGAINST,
    APPROXIMATE,
    CATEGORY,
    DECIDE,
    HEDGE_VERBS,
    HOUSE,
    NOW,
    OWN,
    PRONOUNS,
    REQUEST_START,
    USER_WORDS,
    WISH,
)
from agent_memory.core.judge.parse import Parser
from agent_memory.core.judge.relations import same_word
from agent_memory.core.judge.syntax import (
    clause_subject,
    is_number,
    is_speaker,
    lemma_of,
    owned,
    subject_of,
    unit_top,
    values_in,
    verb_of,
)
from agent_memory.core.judge.wordnet import wordnet

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_MAX_TOKENS = 60  # a bound on the cost per sentence; longer ones are left to the word rules
_SARCASM = re.compile(
    r"^\W*(?:ha\w*\W+)?(?:oh\W+)?(?:sure|yeah,? right|as if|like i'd ever)\b"
    r"|\b(?:LOVE|ADORE|ENJOY|LIKE)\b"
)


_CONDITION = frozenset("if when whenever".split())


def _against(prep: Token) -> bool:
    """A preposition of comparison: "over", "than", ...; "to" after "prefer" ("prefer working
    from home to open offices": open offices are what it is compared with)."""
    if prep.lower_ in AGAINST:
        return True
    return prep.lower_ == "to" and any(lemma_of(h) == "prefer" for h in list(prep.ancestors)[:3])


def _conditional(clause: Token) -> bool:
    """A clause opened by "if"/"when"/"whenever"."""
    return any(c.lower_ in _CONDITION for c in clause.children if c.dep_ in ("mark", "advmod"))


def read_clauses(parser: Parser, quote: str, statement: str) -> Reading:
    """Does one quote sentence, parsed, entail ``statement`` (see the module docstring)?"""
    q_doc, s_doc = parser.parse(quote), parser.parse(_as_person(statement))
    if q_doc is None or s_doc is None:
        return Reading(False, "no parser")
    if len(q_doc) > _MAX_TOKENS or len(s_doc) > _MAX_TOKENS:
        return Reading(False, "too long for the clause reading")
    return _Judgement(q_doc, s_doc).run()


_USER = re.compile(r"\b(the user's|the user|they|them|their|theirs|themselves)\b", re.IGNORECASE)
_AS_PERSON = {
    "the user's": "her",
    "the user": "her",
    "they": "she",
    "them": "her",
    "their": "her",
    "theirs": "hers",
    "themselves": "herself",
}


def _as_person(statement: str) -> str:
    """The statement with "the user" as a person's pronoun ("The user honeymooned in Iceland"
    becomes "She honeymooned in Iceland"): the small parser reads a pronoun subject far more
    reliably than "the user", and the verb keeps its agreement. Only a statement about the
    user is read at all."""
    if "user" not in statement.lower():
        return ""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        out = _AS_PERSON[word]
        if word == "the user" and not statement[: match.start()].strip():
            out = "she"
        return out.capitalize() if match.start() == 0 else out

    return _USER.sub(swap, statement)


def clause_passes(parser: Parser, sentences: list[str], statement: str) -> list[str]:
    """The clause reading's reasons for each quote sentence that entails ``statement``."""
    return [
        reading.reason
        for reading in (read_clauses(parser, piece, statement) for piece in pieces(sentences))
        if reading.holds
    ]


def clause_veto(parser: Parser, sentence: str, statement: str) -> str | None:
    """Why the parse of a quote sentence shows it says something else than the statement
    (another subject, swapped roles, a hedge...), or None."""
    readings = (read_clauses(parser, piece, statement) for piece in pieces([sentence]))
    return next((f"{r.reason} (clause reading)" for r in readings if r.veto), None)


def pieces(sentences: list[str]) -> list[str]:
    """Quote sentences for the parser: a semicolon joins two sentences, read better apart."""
    return [piece.strip() for text in sentences for piece in text.split(";") if piece.strip()]


class _Judgement(Covers):
    """One quote sentence against one statement (see the module docstring)."""

    def __init__(self, quote: Doc, statement: Doc) -> None:
        self.q = quote
        self.s = statement
        self.q_we = any(t.lower_ in ("we", "our", "us", "ours") for t in quote)
        self.request = self._is_request()
        self.s_lemmas = {lemma_of(t) for t in statement} | {t.lower_ for t in statement}

    def _subject(self) -> Token | None:
        root = next((t for t in self.s if t.dep_ == "ROOT"), None)
        if root is None:
            return None
        return next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)

    def _free(self, tok: Token, subject: Token | None) -> bool:
        """Statement words that claim nothing the quote must say (see the docstring)."""
        lemma = lemma_of(tok)
        if tok.is_punct or tok.pos_ in ("DET", "AUX", "CCONJ", "PART", "ADP", "SCONJ"):
            return True
        if lemma in USER_WORDS or tok.dep_ == "neg" or lemma in NOW:
            return True
        if tok.lower_ in ("longer", "anymore") and self._negated_near(tok):
            return True
        if tok.pos_ == "VERB" and lemma in ("be", "do"):
            return True
        if tok.pos_ == "NOUN" and lemma in CATEGORY:
            return True
        if lemma in ("year", "old") and any(
            is_number(t) for t in self.s[max(0, tok.i - 2) : tok.i]
        ):
            return True
        if self.request and (lemma in WISH or (lemma == "be" and tok.head.lemma_ == "call")):
            return True
        if self.q_we and lemma in HOUSE and subject is not None and tok == subject:
            return True
        if lemma in APPROXIMATE and tok.i + 1 < len(self.s) and is_number(self.s[tok.i + 1]):
            return True  # "about 800" is weaker than "800"
        return lemma == "work" and self._works_as(tok)

    def _works_as(self, work: Token) -> bool:
        """ "works as a nurse" says what "is a nurse" says; "works at Shopify" what "is an
        engineer at Shopify" says."""
        preps = {c.lower_ for c in work.children if c.dep_ == "prep"}
        if "as" in preps:
            return True
        role = any(t.dep_ == "attr" and t.head.lemma_ == "be" for t in self.q)
        return role and bool(preps & {"at", "for"})

    def _negated_near(self, tok: Token) -> bool:
        return any(t.lower_ in ("no", "not", "n't") for t in self.s[max(0, tok.i - 2) : tok.i + 1])

    def _is_request(self) -> bool:
        words = [t for t in self.q if not t.is_punct]
        if not words:
            return False
        if any(t.lower_ in ("please", "pls") for t in words):
            return True
        first = words[0]
        if first.lower_ in REQUEST_START and any(t.lower_ == "you" for t in words[:3]):
            return True
        root = next((t for t in self.q if t.dep_ == "ROOT"), None)
        has_subject = root is not None and any(
            c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children
        )
        return bool(root is not None and root.tag_ == "VB" and not has_subject)

    def run(self) -> Reading:
        if _SARCASM.search(self.q.text) or _SARCASM.match(self.q.text.lower()):
            return veto("the quote opens sarcastically")
        if self.q.text.rstrip().endswith("?") and not self.request:
            return Reading(False, "the quote is a question, which asserts nothing")
        if not self.s.text:
            return Reading(False, "the statement is not about the user")
        subject = self._subject()
        if subject is None or not any(t.lower_ in ("she", "her") for t in subject.subtree):
            return self._swapped(subject) or Reading(
                False, "the statement's subject is not the user"
            )
        missing = sorted(values_in(self.s.text) - values_in(self.q.text))
        if missing:
            return Reading(
                False, f"the statement's value {missing[0].lstrip('#@')} is not in the quote"
            )
        covers: dict[int, Token] = {}
        for tok in self.s:
            if self._free(tok, subject):
                continue
            cover = self._cover(tok)
            if cover is None:
                return Reading(False, f"{tok.text!r} in the statement is not covered by the quote")
            if not isinstance(cover, str):
                covers[tok.i] = cover
        if not covers:
            return Reading(False, "the statement has no content words to check")
        covers = self._in_one_chain(covers)
        return (
            self._one_chain(covers)
            or self._subject_agrees(subject, covers)
            or self._roles(covers)
            or self._on_the_way(covers)
            or self._prepositions(covers)
            or Reading(True, self._accepted(covers))
        )

    def _in_one_chain(self, covers: dict[int, Token]) -> dict[int, Token]:
        """A covered word whose lemma the quote says twice is read where the other words
        are: "we don't live in Denver anymore, we moved to Boulder" gives "lives in Boulder"
        from the Boulder clause, not the Denver one."""
        tops = [unit_top(c) for c in covers.values()]
        if len(set(tops)) == 1:
            return covers
        # Names and numbers have one place only: their clause is where the rest belongs.
        fixed = {unit_top(c) for i, c in covers.items() if self.s[i].pos_ in ("PROPN", "NUM")}
        home = fixed.pop() if len(fixed) == 1 else self._home(covers, tops)
        moved = dict(covers)
        for i, cover in covers.items():
            if unit_top(cover) == home:
                continue
            want = self.s[i]
            lemma = lemma_of(want)
            lexicon = wordnet()
            for tok in self.q:
                if tok.i == cover.i or unit_top(tok) != home or tok.pos_ != cover.pos_:
                    continue
                have = lemma_of(tok)
                if have == lemma or same_word(lemma, have, kinds=not self._denied(want)):
                    moved[i] = tok
                    break
                pos = WORDNET_POS.get(tok.pos_)
                hedged = lemma in HEDGE_VERBS or have in HEDGE_VERBS
                if (
                    lexicon is not None
                    and pos
                    and not hedged
                    and lexicon.covers(lemma, have, pos, kinds=not self._denied(want))
                ):
                    moved[i] = tok
                    break
        return moved

    def _home(self, covers: dict[int, Token], tops: list[Token]) -> Token:
        """The clause most covered words sit in; of clauses tied, the one where the
        statement's own verb is said, then the first (a choice by set order made "I don't
        know him very well, but I don't trust him" give "does not trust him" or not with the
        hash seed)."""
        root = next((i for i, c in covers.items() if self.s[i].dep_ == "ROOT"), None)
        verb = unit_top(covers[root]) if root is not None else None
        return max(
            sorted(set(tops), key=lambda t: t.i),
            key=lambda t: (tops.count(t), t == verb),
        )

    def _swapped(self, subject: Token | None) -> Reading | None:
        """A statement with someone else doing something to the user ("Tom beat the user")
        where the quote has the speaker doing it ("I beat Tom"): the roles are swapped."""
        if subject is None or not any(t.lower_ in ("she", "her") for t in self.s):
            return None
        cover = self._word_cover(subject.head)
        if cover is None:
            return None
        doer = subject_of(cover)
        if doer is not None and is_speaker(doer):
            return veto(f"the quote has the speaker do {cover.text!r}, not {subject.text!r}")
        return None

    def _accepted(self, covers: dict[int, Token]) -> str:
        top = unit_top(next(iter(covers.values())))
        return f"clause reading: every statement word is said in the quote's clause of {top.text!r}"

    def _one_chain(self, covers: dict[int, Token]) -> Reading | None:
        tops = {unit_top(c) for c in covers.values()}
        if len(tops) == 1 or self._kept_condition(tops, covers):
            return None
        reason = "the statement joins words from different clauses of the quote"
        subjects = [clause_subject(top) for top in sorted(tops, key=lambda t: t.i)[1:]]
        if all(s is not None and s.lower_ in PRONOUNS for s in subjects):
            # "We adopted a beagle, he's called Rocco": the later clause may well say more
            # of the same thing; not read here, but no sign of another subject either.
            return Reading(False, reason)
        return veto(reason)

    def _kept_condition(self, tops: set[Token], covers: dict[int, Token]) -> bool:
        """Two clause chains, one the condition of the other ("I get migraines if I skip
        meals"), and the statement keeps the condition: its own condition clause ("when
        skipping meals") says what the quote's says, and its main clause the quote's main."""
        if len(tops) != 2:
            return False
        main, cond = sorted(tops, key=lambda t: t.dep_ == "advcl")
        if cond.dep_ != "advcl" or unit_top(cond.head) != main or not _conditional(cond):
            return False
        mine = next((t for t in self.s if t.dep_ == "advcl" and _conditional(t)), None)
        if mine is None:
            return False
        inside = {t.i for t in mine.subtree}
        theirs = {t.i for t in cond.subtree}
        return all((i in inside) == (c.i in theirs) for i, c in covers.items())

    def _anchor(self, subject: Token, covers: dict[int, Token]) -> Token:
        """The quote word that says the statement's predicate: the cover of its verb, or of
        the complement of "is"/"has" when those are not placed."""
        root = subject.head
        if root.i in covers:
            return covers[root.i]
        for child in root.children:
            if (
                child.dep_ in ("attr", "acomp", "dobj", "oprd", "xcomp", "prep")
                and child.i in covers
            ):
                return covers[child.i]
        return next(iter(covers.values()))

    def _subject_agrees(self, subject: Token, covers: dict[int, Token]) -> Reading | None:
        q_subject = subject_of(self._anchor(subject, covers))
        owner = next((c for c in subject.children if c.dep_ == "poss"), None)
        if subject.lemma_.lower() == "name" and owner is not None and owner.lower_ != "her":
            subject = owner  # "the user's husband's name is Tom": the husband is called Tom
        about_user = subject.lower_ == "she"
        root = subject.head
        having = about_user and root.lemma_.lower() in OWN | {"marry", "married"}
        if having and any(owned(c) for c in covers.values()):
            return None
        if q_subject is None or (self.request and q_subject.lower_ == "you"):
            if self.request:
                return None
            return Reading(False, "the quote's clause has no subject to check")
        if about_user:
            shared = q_subject.lower_ in ("we", "us") or any(
                c.dep_ == "conj" for c in q_subject.children
            )
            if shared and any(lemma_of(c) in DECIDE for c in covers.values()):
                return veto("the quote's decision is shared, the statement makes it the user's")
            if is_speaker(q_subject):
                return None
            return veto(f"the quote says it of {q_subject.text!r}, not of the speaker")
        we = q_subject.lower_ in ("we", "us") or owned(q_subject)
        if subject.lemma_.lower() in HOUSE and self.q_we and we:
            return None
        for match in self._same_possessed(subject):
            if match == q_subject or match in q_subject.subtree:
                return None
        cover = covers.get(subject.i)
        if cover is not None and is_speaker(q_subject) and owned(cover):
            return None
        if (
            cover is not None
            and is_speaker(q_subject)
            and subject.lemma_.lower() in ("manager", "boss")
        ):
            return None
        return veto(
            f"the quote's clause is about {q_subject.text!r}, not the user's {subject.text!r}"
        )

    def _roles(self, covers: dict[int, Token]) -> Reading | None:
        args = [
            t for t in self.s if t.i in covers and t.pos_ in ("NOUN", "PROPN") and self._argument(t)
        ]
        for k, a in enumerate(args):
            for b in args[k + 1 :]:
                verb = verb_of(a)
                if verb != verb_of(b) or verb.i not in covers:
                    continue
                if lemma_of(covers[verb.i]) == lemma_of(verb) and covers[a.i].i > covers[b.i].i:
                    return veto(
                        f"the quote has {covers[b.i].text!r} and {covers[a.i].text!r} "
                        "the other way round",
                    )
        return self._modifier_roles(covers) or self._counted(covers)

    def _modifier_roles(self, covers: dict[int, Token]) -> Reading | None:
        """A statement's head noun or object is not said by a quote word that only
        qualifies another ("a vet's receptionist" is no vet) or that is the object of a
        preposition of the same verb ("prefer cats to dogs" does not prefer dogs)."""
        placed = {c.i for c in covers.values()}
        for tok in self.s:
            cover = covers.get(tok.i)
            if cover is None or tok.pos_ not in ("NOUN", "PROPN"):
                continue
            if tok.dep_ in ("compound", "amod", "poss", "nmod", "npadvmod"):
                continue
            if cover.dep_ in ("poss", "compound") and cover.head.i not in placed:
                return veto(f"in the quote {cover.text!r} only qualifies {cover.head.text!r}")
            problem = self._other_role(tok, cover, covers)
            if problem is not None:
                return veto(problem)
        return None

    def _other_role(self, tok: Token, cover: Token, covers: dict[int, Token]) -> str | None:
        """The statement's object or complement is, in the quote, the thing compared against
        ("prefer tea over coffee", "more than London") or the object of a preposition where
        the statement has a complement ("married to a pilot" is no pilot)."""
        if cover.dep_ != "pobj":
            return None
        prep = cover.head.lower_
        compared = not (tok.dep_ == "pobj" and _against(tok.head))
        if tok.dep_ in ("dobj", "attr", "pobj") and _against(cover.head) and compared:
            return f"in the quote {cover.text!r} is what it is compared with ({prep!r})"
        about_user = tok.head.pos_ == "AUX" and any(c.lower_ == "she" for c in tok.head.children)
        if about_user and tok.dep_ in ("attr", "acomp", "oprd") and prep not in ("as", "like"):
            return f"in the quote {cover.text!r} is the object of {prep!r}, not what the user is"
        verb = covers.get(tok.head.i)
        if (
            tok.dep_ == "dobj"
            and verb is not None
            and verb.pos_ == "VERB"
            and lemma_of(verb) == lemma_of(tok.head)
            and cover.head.head == verb
        ):
            return f"in the quote {cover.text!r} has another role"
        return None

    def _counted(self, covers: dict[int, Token]) -> Reading | None:
        """A number counts the same thing on both sides ("three cats and one dog" does not
        give "three dogs")."""
        for tok in self.s:
            if tok.dep_ != "nummod" or tok.head.i not in covers:
                continue
            values = values_in(tok.text)
            counted = covers[tok.head.i]
            numbers = [c for c in counted.children if c.dep_ == "nummod"]
            if values and numbers and not any(values & values_in(c.text) for c in numbers):
                return veto(f"the quote gives another number of {counted.text!r}")
            same = covers.get(tok.i)
            plural = tok.head.tag_ == "NNS"  # a count, not a model number ("Pixel 6")
            if plural and not numbers and same is not None and same.head != counted:
                return veto(f"in the quote {same.text!r} counts {same.head.text!r}")
        return None

    @staticmethod
    def _argument(tok: Token) -> bool:
        return tok.dep_ in ("dobj", "pobj", "dative", "attr", "oprd", "nsubj", "nsubjpass")


__all__ = ["Reading", "clause_passes", "clause_veto", "read_clauses"]

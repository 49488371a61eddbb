"""The offline judge's clause reading: who does what, read from a dependency parse.

The word rules (core.judge.offline) and the paraphrase reading (core.judge.paraphrase) see
words; this reading sees the clause each word sits in. It parses the quote sentence and the
statement (core.judge.parse) and accepts when:

1. **Every content word of the statement is covered** by a word of the quote sentence
   (core.judge.relations: lemma, synonym, entailed word, derived form; a light verb such as
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

Its reason names the first failed check, or says "clause reading" with the covering clause.
Limits: the parser is a small statistical model and mis-parses some casual text; the relation
table is small, so paraphrases that need world knowledge ("decaf" is coffee, "school run" is
taking the kids to school) are still refused; a quote longer than one sentence is read one
sentence at a time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.judge.parse import Parser
from core.judge.relations import derived, same_word
from core.judge.text import VALUE, parse_sentences

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_SPEAKER = {"i", "we", "me", "us"}
_PRONOUNS = {"he", "she", "it", "they"}
_SPEAKER_POSS = {"my", "our", "mine", "ours"}
_USER_WORDS = {"she", "her", "hers", "herself"}
_LIGHT = {"have", "use", "take", "get", "keep", "follow", "be", "do"}
_OWN = {"have", "own", "take", "use", "get", "be"}
_HAVING = {"have", "get", "own", "keep", "adopt", "buy", "receive", "rescue", "inherit", "with"}
_USING = {"take", "use", "follow", "on", "have", "run", "drive"}
# A covered word the checks do not place (a number written in several words, an owned object).
_ANYWHERE = "anywhere"
_CATEGORY = {
    "answer",
    "response",
    "reply",
    "unit",
    "spelling",
    "format",
    "style",
    "output",
    "disease",
    "condition",
}
_HOUSE = {"household", "family", "home", "team", "house"}
_NOW = {"now", "currently", "presently", "still", "today"}
_WISH = {"want", "prefer", "like", "would", "ask", "request", "wish"}
_REQUEST_START = {"please", "pls", "can", "could", "would", "will"}
_NEG_WORDS = {"not", "never", "no", "nothing", "nobody", "none", "without", "neither", "nor"}
_RARELY = {"rarely", "seldom", "hardly", "barely", "scarcely"}
# Quote negation kinds that give a statement's plain "not".
_NOT_LIKE = {"not", "never", "end"}
# Modifiers that limit a claim in extent or time, and words that put it in the future.
_QUALIFYING = {"advmod", "prep", "npadvmod", "amod", "acomp", "advcl", "punct", "dep"}
_PARTIAL = {
    "sometimes",
    "occasionally",
    "sparingly",
    "partly",
    "partially",
    "somewhat",
    "mostly",
    "mainly",
    "usually",
    "often",
    "generally",
    "normally",
    "training",
    "except",
    "ish",
    "part-time",
    "once",
    "twice",
}
# Parts of the week limit a state ("vegan except on weekends"), not a habit ("plays in a
# band on weekends").
_WEEK_PART = {"weekday", "weekend"}
_FUTURE = {"next", "tomorrow", "tonight", "soon", "later", "upcoming", "someday"}
_ENDING = {"quit", "stop", "sell", "give_up", "leave", "retire", "drop", "cancel", "lose"}
_RESULT = {
    "move",
    "marry",
    "start",
    "turn",
    "buy",
    "adopt",
    "switch",
    "join",
    "become",
    "get",
    "retire",
    "quit",
    "sell",
    "give_up",
    "stop",
    "begin",
    "relocate",
    "take_up",
}
_MODALS = {"might", "may", "could", "would", "should", "will", "shall", "must", "'d", "'ll"}
_HEDGE_VERBS = {
    "think",
    "guess",
    "hope",
    "plan",
    "want",
    "wish",
    "try",
    "consider",
    "say",
    "tell",
    "believe",
    "suppose",
    "expect",
    "apply",
    "dream",
    "imagine",
    "need",
    "seem",
    "doubt",
    "pretend",
    "intend",
    "aim",
    "claim",
    "worry",
    "wonder",
    "ask",
    "suggest",
    "recommend",
    "advise",
    "mean",
    "look",
}
_HEDGE_ADVERBS = {
    "maybe",
    "probably",
    "perhaps",
    "possibly",
    "hopefully",
    "apparently",
    "supposedly",
    "allegedly",
    "kinda",
    "sorta",
    "eventually",
    "someday",
    "soon",
    "basically",
    "practically",
    "technically",
    "kind",
    "sort",
    "almost",
}
_SARCASM = re.compile(
    r"^\W*(?:ha\w*\W+)?(?:oh\W+)?(?:sure|yeah,? right|as if|like i'd ever)\b"
    r"|\b(?:LOVE|ADORE|ENJOY|LIKE)\b"
)
# Verbs that may govern a covered verb without changing the claim ("I started running").
_ASPECT = {"start", "begin", "keep", "continue", "get", "go", "be", "do", "have"}
_AGAINST = {"than", "over", "instead"}
# Prepositions that give a reason or a duration, which a negation does not narrow.
_REASONS = {"for", "because", "due", "since"}
_APPROXIMATE = {"about", "around", "approximately", "roughly"}
_CONDITIONS = {"if", "unless", "whether", "when", "once", "until", "whenever", "like"}
_PRIVATIVE = {
    "former",
    "ex",
    "previous",
    "future",
    "fake",
    "almost",
    "nearly",
    "potential",
    "imaginary",
    "late",
    "would-be",
    "approximately",
    "around",
    "roughly",
}
_PREP_GROUPS = [
    {"in", "at", "on", "inside", "within", "into"},
    {"to", "for", "toward", "towards"},
    {"to", "over", "than"},
    {"with"},
    {"from"},
    {"by", "via"},
    {"of"},
    {"as"},
]
_EMBED = {"xcomp", "ccomp", "advcl", "relcl", "acl", "pcomp", "csubj", "prep", "pobj"}
_MAX_TOKENS = 60


@dataclass(frozen=True, slots=True)
class Reading:
    """The clause reading's answer and why; ``veto`` when the parse shows the quote says
    something else (another subject, swapped roles, a hedge, negation or tense), as opposed
    to a statement word it could not find."""

    holds: bool
    reason: str
    veto: bool = False


def _veto(reason: str) -> Reading:
    return Reading(False, reason, veto=True)


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


def _lemma(tok: Token) -> str:
    """The lowercase lemma, a phrasal verb as verb_particle ("pass_away"), "can't stand"
    as "dislike" (its negation is then part of the word)."""
    base = tok.lemma_.lower()
    if base == "stand" and _idiom_negation(tok) is not None:
        return "dislike"
    if tok.pos_ == "VERB":
        particle = next((c for c in tok.children if c.dep_ == "prt"), None)
        if particle is not None:
            return f"{base}_{particle.lower_}"
    return base


def _idiom_negation(tok: Token) -> Token | None:
    """The "n't" of "can't stand", which makes one word with it."""
    if tok.lemma_.lower() != "stand" or not any(c.lower_ in ("ca", "can") for c in tok.children):
        return None
    return next((c for c in tok.children if c.dep_ == "neg"), None)


def _correction(neg: Token, covering: set[int]) -> bool:
    """The "not" of ", not Samuel" after what is meant: it rules out another name that the
    statement does not use, it does not negate the clause ("allergic to cats, not dogs"
    still negates "allergic to dogs")."""
    doc = neg.doc
    before = doc[neg.i - 1] if neg.i > 0 else None
    after = doc[neg.i + 1] if neg.i + 1 < len(doc) else None
    return (
        neg.lower_ == "not"
        and before is not None
        and before.text == ","
        and after is not None
        and after.pos_ in ("NOUN", "PROPN")
        and after.i not in covering
    )


def _is_negation(tok: Token) -> bool:
    return tok.dep_ == "neg" or tok.lower_ in _NEG_WORDS or tok.lower_ in _RARELY


def _neg_kind(tok: Token) -> str:
    if tok.lower_ in _RARELY:
        return "rare"
    return "never" if tok.lower_ == "never" else "not"


def _values(text: str) -> set[str]:
    return {
        t.form for s in parse_sentences(text, statement=False) for t in s.tokens if t.cls == VALUE
    }


def _is_number(tok: Token) -> bool:
    return tok.like_num or any(ch.isdigit() for ch in tok.text)


class _Judgement:
    """One quote sentence against one statement."""

    def __init__(self, quote: Doc, statement: Doc) -> None:
        self.q = quote
        self.s = statement
        self.q_we = any(t.lower_ in ("we", "our", "us", "ours") for t in quote)
        self.request = self._is_request()
        self.s_lemmas = {_lemma(t) for t in statement} | {t.lower_ for t in statement}

    # -- the statement -----------------------------------------------------------------

    def _subject(self) -> Token | None:
        root = next((t for t in self.s if t.dep_ == "ROOT"), None)
        if root is None:
            return None
        return next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)

    def _free(self, tok: Token, subject: Token | None) -> bool:
        """Statement words that claim nothing the quote must say (see the docstring)."""
        lemma = _lemma(tok)
        if tok.is_punct or tok.pos_ in ("DET", "AUX", "CCONJ", "PART", "ADP", "SCONJ"):
            return True
        if lemma in _USER_WORDS or tok.dep_ == "neg" or lemma in _NOW:
            return True
        if tok.lower_ in ("longer", "anymore") and self._negated_near(tok):
            return True
        if tok.pos_ == "VERB" and lemma in ("be", "do"):
            return True
        if tok.pos_ == "NOUN" and lemma in _CATEGORY:
            return True
        if lemma in ("year", "old") and any(
            _is_number(t) for t in self.s[max(0, tok.i - 2) : tok.i]
        ):
            return True
        if self.request and (lemma in _WISH or (lemma == "be" and tok.head.lemma_ == "call")):
            return True
        if self.q_we and lemma in _HOUSE and subject is not None and tok == subject:
            return True
        if lemma in _APPROXIMATE and tok.i + 1 < len(self.s) and _is_number(self.s[tok.i + 1]):
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

    # -- the quote ---------------------------------------------------------------------

    def _is_request(self) -> bool:
        words = [t for t in self.q if not t.is_punct]
        if not words:
            return False
        if any(t.lower_ in ("please", "pls") for t in words):
            return True
        first = words[0]
        if first.lower_ in _REQUEST_START and any(t.lower_ == "you" for t in words[:3]):
            return True
        root = next((t for t in self.q if t.dep_ == "ROOT"), None)
        has_subject = root is not None and any(
            c.dep_ in ("nsubj", "nsubjpass", "expl") for c in root.children
        )
        return bool(root is not None and root.tag_ == "VB" and not has_subject)

    def _cover(self, want: Token) -> Token | str | None:
        if _is_number(want):
            return self._number_cover(want)
        if want.pos_ == "VERB" and _lemma(want) in _LIGHT:
            return self._light_cover(want)
        return self._word_cover(want)

    def _number_cover(self, want: Token) -> Token | str:
        values = _values(want.text)
        if not values:  # "0", which the word rules read as a negation
            return next((t for t in self.q if t.lower_ == want.lower_), None)
        match = next((t for t in self.q if values & _values(t.text)), None)
        return match if match is not None else _ANYWHERE

    def _light_cover(self, want: Token) -> Token | str | None:
        """A light verb ("has", "takes", "uses") is said by a verb of having or using, or by
        the speaker's possessive on its object ("my meds" gives "takes meds")."""
        kin = _HAVING if _lemma(want) in ("have", "own", "get", "keep") else _USING
        match = next(
            (t for t in self.q if _lemma(t) in kin and t.pos_ in ("VERB", "AUX", "ADP")), None
        )
        if match is not None:
            return match
        obj = next((c for c in want.children if c.dep_ in ("dobj", "attr")), None)
        cover = None if obj is None else self._word_cover(obj)
        return _ANYWHERE if cover is not None and self._owned(cover) else None

    def _word_cover(self, want: Token) -> Token | None:
        lemma, proper = _lemma(want), want.pos_ == "PROPN"
        best = None
        for tok in self.q:
            if tok.is_punct:
                continue
            if proper or tok.pos_ == "PROPN":
                if tok.lower_ == want.lower_ or tok.lower_.rstrip("s") == want.lower_.rstrip("s"):
                    return tok
                continue
            have = _lemma(tok)
            if have == lemma or tok.lower_ == want.lower_:
                return tok
            if best is None and (same_word(lemma, have) or same_word(want.lower_, tok.lower_)):
                best = tok
        if best is None and "-" in want.text:
            return None
        return best

    def _unit_top(self, tok: Token) -> Token:
        """The top of the token's clause chain: up the parse, stopping below a coordinated
        verb ("..., but I love swimming") or the root."""
        while tok.dep_ not in ("ROOT", "advcl", "parataxis") and not (
            tok.dep_ == "conj" and tok.pos_ in ("VERB", "AUX")
        ):
            if _spliced(tok):
                break
            tok = tok.head
        return tok

    def _path(self, tok: Token) -> list[Token]:
        """The token and its heads up to (and with) the top of its clause chain."""
        path = [tok]
        top = self._unit_top(tok)
        while path[-1] != top:
            path.append(path[-1].head)
        return path

    def _clause_subject(self, top: Token) -> Token | None:
        node = top
        while True:
            subj = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if subj is not None or node.dep_ not in ("conj", "xcomp") or node.head == node:
                return subj
            node = node.head

    def _speaker(self, tok: Token) -> bool:
        if tok.lower_ in _SPEAKER:
            return True
        return any(c.dep_ == "conj" and c.lower_ in _SPEAKER for c in tok.children)

    def _owned(self, tok: Token) -> bool:
        """The token is something of the speaker's ("my meds", "our son", "my blood pressure
        meds"): a my/our in its noun phrase, before its head."""
        head = tok
        while head.dep_ in ("compound", "amod", "appos", "conj") and head.head != head:
            head = head.head
        if head.pos_ not in ("NOUN", "PROPN"):
            return False
        return any(t.dep_ == "poss" and t.lower_ in _SPEAKER_POSS for t in self._modifiers(head))

    def _same_possessed(self, want: Token) -> list[Token]:
        """Quote nouns that name the same possession as the statement's ``want``: "my mum's
        birthday" for "the user's mother's birthday", "my husband Raj" for "the user's
        husband"; the owners must match word for word, ending with the speaker."""
        mine = self._possessors(want)
        found = []
        for tok in self.q:
            if tok.pos_ not in ("NOUN", "PROPN") or not same_word(_lemma(want), _lemma(tok)):
                continue
            theirs = self._possessors(tok)
            if len(theirs) != len(mine) or not mine:
                continue
            if mine[-1].lower_ != "her" or theirs[-1].lower_ not in _SPEAKER_POSS:
                continue
            if all(
                same_word(_lemma(a), _lemma(b)) for a, b in zip(mine[:-1], theirs[:-1], strict=True)
            ):
                found.append(tok)
        return found

    def _possessors(self, tok: Token) -> list[Token]:
        """The chain of owners of a noun: "my mum's birthday" gives [mum, my]."""
        chain: list[Token] = []
        node = tok
        for _ in range(4):
            while node.dep_ in ("compound", "appos") and node.head != node:
                node = node.head
            owner = next((c for c in self._modifiers(node) if c.dep_ == "poss"), None)
            if owner is None:
                return chain
            chain.append(owner)
            node = owner
        return chain

    @staticmethod
    def _modifiers(head: Token) -> list[Token]:
        """The head noun's own modifiers and those of its compounds, not a possessor's
        ("my blood pressure meds": my; "my sister's wedding": sister's, not my)."""
        out, todo = [], [head]
        while todo:
            node = todo.pop()
            for child in node.children:
                if child.i < head.i:
                    out.append(child)
                    if child.dep_ == "compound":
                        todo.append(child)
        return out

    # -- the checks --------------------------------------------------------------------

    def run(self) -> Reading:
        if _SARCASM.search(self.q.text) or _SARCASM.match(self.q.text.lower()):
            return _veto("the quote opens sarcastically")
        if self.q.text.rstrip().endswith("?") and not self.request:
            return Reading(False, "the quote is a question, which asserts nothing")
        if not self.s.text:
            return Reading(False, "the statement is not about the user")
        subject = self._subject()
        if subject is None or not any(t.lower_ in ("she", "her") for t in subject.subtree):
            return self._swapped(subject) or Reading(
                False, "the statement's subject is not the user"
            )
        missing = sorted(_values(self.s.text) - _values(self.q.text))
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
        return (
            self._one_chain(covers)
            or self._subject_agrees(subject, covers)
            or self._roles(covers)
            or self._on_the_way(covers)
            or self._prepositions(covers)
            or Reading(True, self._accepted(covers))
        )

    def _swapped(self, subject: Token | None) -> Reading | None:
        """A statement with someone else doing something to the user ("Tom beat the user")
        where the quote has the speaker doing it ("I beat Tom"): the roles are swapped."""
        if subject is None or not any(t.lower_ in ("she", "her") for t in self.s):
            return None
        cover = self._word_cover(subject.head)
        if cover is None:
            return None
        doer = self._subject_of(cover)
        if doer is not None and self._speaker(doer):
            return _veto(f"the quote has the speaker do {cover.text!r}, not {subject.text!r}")
        return None

    def _accepted(self, covers: dict[int, Token]) -> str:
        top = self._unit_top(next(iter(covers.values())))
        return f"clause reading: every statement word is said in the quote's clause of {top.text!r}"

    def _one_chain(self, covers: dict[int, Token]) -> Reading | None:
        tops = {self._unit_top(c) for c in covers.values()}
        if len(tops) == 1:
            return None
        reason = "the statement joins words from different clauses of the quote"
        subjects = [self._clause_subject(top) for top in sorted(tops, key=lambda t: t.i)[1:]]
        if all(s is not None and s.lower_ in _PRONOUNS for s in subjects):
            # "We adopted a beagle, he's called Rocco": the later clause may well say more
            # of the same thing; not read here, but no sign of another subject either.
            return Reading(False, reason)
        return _veto(reason)

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

    @staticmethod
    def _antecedent(noun: Token) -> Token:
        """Who a relative clause is about: its noun, or the subject that noun describes ("I'm
        the only one who knows SQL" is about the speaker)."""
        if noun.dep_ == "attr" and noun.head.lemma_ == "be":
            subject = next((c for c in noun.head.children if c.dep_ == "nsubj"), None)
            if subject is not None:
                return subject
        return noun

    def _subject_of(self, tok: Token) -> Token | None:
        """The subject of the nearest clause around ``tok``: a relative clause's is the noun
        it describes ("Maria, who is a nurse"); a clause without one borrows its head's."""
        node = tok
        while node.pos_ not in ("VERB", "AUX") and node.head != node:
            node = node.head
        for _ in range(6):
            subj = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if node.dep_ == "relcl" and (subj is None or subj.tag_ in ("WP", "WDT")):
                return self._antecedent(node.head)
            if subj is not None or node.head == node or _spliced(node):
                return subj
            if node.tag_ == "VB" and node.i < node.head.i and node.dep_ in ("advcl", "ccomp"):
                return None  # an imperative before the main clause: "Write ..., my readers are"
            if node.dep_ not in ("xcomp", "conj", "acl", "advcl", "ccomp", "pcomp", "pobj", "prep"):
                return None
            node = node.head
        return None

    def _subject_agrees(self, subject: Token, covers: dict[int, Token]) -> Reading | None:
        q_subject = self._subject_of(self._anchor(subject, covers))
        owner = next((c for c in subject.children if c.dep_ == "poss"), None)
        if subject.lemma_.lower() == "name" and owner is not None and owner.lower_ != "her":
            subject = owner  # "the user's husband's name is Tom": the husband is called Tom
        about_user = subject.lower_ == "she"
        root = subject.head
        if about_user and root.lemma_.lower() in _OWN | {"marry", "married"}:
            if any(self._owned(c) for c in covers.values()):
                return None
        if q_subject is None or (self.request and q_subject.lower_ == "you"):
            if self.request:
                return None
            return Reading(False, "the quote's clause has no subject to check")
        if about_user:
            if self._speaker(q_subject):
                return None
            return _veto(f"the quote says it of {q_subject.text!r}, not of the speaker")
        if subject.lemma_.lower() in _HOUSE and self.q_we:
            if q_subject.lower_ in ("we", "us") or self._owned(q_subject):
                return None
        for match in self._same_possessed(subject):
            if match == q_subject or match in q_subject.subtree:
                return None
        cover = covers.get(subject.i)
        if cover is not None and self._speaker(q_subject) and self._owned(cover):
            return None
        if (
            cover is not None
            and self._speaker(q_subject)
            and subject.lemma_.lower() in ("manager", "boss")
        ):
            return None
        return _veto(
            f"the quote's clause is about {q_subject.text!r}, not the user's {subject.text!r}"
        )

    def _roles(self, covers: dict[int, Token]) -> Reading | None:
        args = [
            t for t in self.s if t.i in covers and t.pos_ in ("NOUN", "PROPN") and self._argument(t)
        ]
        for k, a in enumerate(args):
            for b in args[k + 1 :]:
                verb = _verb_of(a)
                if verb != _verb_of(b) or verb.i not in covers:
                    continue
                if _lemma(covers[verb.i]) == _lemma(verb) and covers[a.i].i > covers[b.i].i:
                    return _veto(
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
                return _veto(f"in the quote {cover.text!r} only qualifies {cover.head.text!r}")
            problem = self._other_role(tok, cover, covers)
            if problem is not None:
                return _veto(problem)
        return None

    def _other_role(self, tok: Token, cover: Token, covers: dict[int, Token]) -> str | None:
        """The statement's object or complement is, in the quote, the thing compared against
        ("prefer tea over coffee", "more than London") or the object of a preposition where
        the statement has a complement ("married to a pilot" is no pilot)."""
        if cover.dep_ != "pobj":
            return None
        prep = cover.head.lower_
        if tok.dep_ in ("dobj", "attr", "pobj") and prep in _AGAINST:
            if not (tok.dep_ == "pobj" and tok.head.lower_ in _AGAINST):
                return f"in the quote {cover.text!r} is what it is compared with ({prep!r})"
        about_user = tok.head.pos_ == "AUX" and any(c.lower_ == "she" for c in tok.head.children)
        if about_user and tok.dep_ in ("attr", "acomp", "oprd") and prep not in ("as", "like"):
            return f"in the quote {cover.text!r} is the object of {prep!r}, not what the user is"
        verb = covers.get(tok.head.i)
        if (
            tok.dep_ == "dobj"
            and verb is not None
            and verb.pos_ == "VERB"
            and _lemma(verb) == _lemma(tok.head)
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
            values = _values(tok.text)
            counted = covers[tok.head.i]
            numbers = [c for c in counted.children if c.dep_ == "nummod"]
            if values and numbers and not any(values & _values(c.text) for c in numbers):
                return _veto(f"the quote gives another number of {counted.text!r}")
            same = covers.get(tok.i)
            plural = tok.head.tag_ == "NNS"  # a count, not a model number ("Pixel 6")
            if plural and not numbers and same is not None and same.head != counted:
                return _veto(f"in the quote {same.text!r} counts {same.head.text!r}")
        return None

    @staticmethod
    def _argument(tok: Token) -> bool:
        return tok.dep_ in ("dobj", "pobj", "dative", "attr", "oprd", "nsubj", "nsubjpass")

    def _on_the_way(self, covers: dict[int, Token]) -> Reading | None:
        seen: set[int] = set()
        negs: list[str] = []
        past = result = False
        covering = {c.i for c in covers.values()}
        for cover in covers.values():
            path = self._path(cover)
            for below, node in zip([None, *path], path, strict=False):
                if node.i in seen:
                    continue
                seen.add(node.i)
                if below is not None and self._embeds(node, below, covering):
                    return _veto(
                        f"the quote embeds it in {node.text!r}, which the statement does not say"
                    )
                problem = self._hedged(node, covers) or self._qualified(node, covering)
                if problem is not None:
                    return _veto(problem)
                negs += self._negations(node, covering)
                past = past or self._past(node)
                result = result or _lemma(node) in _RESULT
            problem = self._governed(path[-1], negs)
            if problem is not None:
                return _veto(problem)
        negs += self._wide_negations(min(covering), seen)
        return self._polarity(negs, covering, seen) or self._tense(past, result)

    def _polarity(self, negs: list[str], covering: set[int], seen: set[int]) -> Reading | None:
        """The quote's negations match the statement's in number and kind: "never" gives
        "not", "rarely" only "rarely", a quit/sold (an ending) gives "no longer"."""
        wanted = [_neg_kind(t) for t in self.s if _is_negation(t)]
        if len(negs) != len(wanted):
            return _veto(
                f"the quote has {len(negs)} negations in the covering clause and the "
                f"statement {len(wanted)}"
            )
        left = list(negs)
        for kind in wanted:
            match = next((k for k in left if k == kind or (kind == "not" and k in _NOT_LIKE)), None)
            if match is None:
                return _veto(f"the quote's negation is not the statement's ({kind!r})")
            left.remove(match)
        if set(negs) - {"end"}:
            extra = self._negated_extras(covering, seen)
            if extra is not None:
                return _veto(f"under a negation the quote says more: {extra.text!r}")
        return None

    def _negated_extras(self, covering: set[int], seen: set[int]) -> Token | None:
        """A negated clause with a qualifier the statement lacks ("I don't eat meat on
        Fridays" is not "does not eat meat")."""
        for i in seen:
            node = self.q[i]
            for child in node.children:
                if child.dep_ not in ("prep", "npadvmod") or child.lower_ in _REASONS:
                    continue
                if not any(t.i in covering for t in child.subtree):
                    return child
        return None

    def _tense(self, past: bool, result: bool) -> Reading | None:
        s_past = any(self._past(t) for t in self.s)
        if past and not s_past and not result:
            return _veto("the quote is in the past and the statement is not")
        if s_past and not past:
            return _veto("the statement is in the past and the quote is not")
        return None

    def _governed(self, top: Token, negs: list[str]) -> str | None:
        """Above a coordinated clause, the verbs that govern the whole coordination ("It's not
        true that I'm 34 and I live in Porto", "I think I'm 34 and live in Porto")."""
        node = top.head if top.dep_ == "conj" else top
        while node.dep_ in ("ccomp", "xcomp", "csubj") and not _spliced(node):
            governor = node.head
            if _lemma(governor) in _HEDGE_VERBS and governor.i not in self.s_lemmas:
                return f"the quote hedges, plans or reports it ({governor.text!r})"
            negs += [_neg_kind(c) for c in governor.children if _is_negation(c)]
            subject = next((c for c in governor.children if c.dep_ == "nsubj"), None)
            if subject is not None and subject.lower_ in _NEG_WORDS:
                negs.append("not")
            node = governor
        return None

    def _wide_negations(self, first: int, seen: set[int]) -> list[str]:
        """A negation before the covered words that takes a "that" clause or a colon ("It
        is not the case that ...", "Nobody thinks: ...") scopes over all that follows,
        whatever the parse made of it."""
        found = []
        for tok in self.q[:first]:
            if not (_is_negation(tok) or tok.lower_ in ("nobody", "noone")):
                continue
            between = self.q[tok.i + 1 : first]
            if any(t.lower_ == "that" and t.dep_ == "mark" or t.text == ":" for t in between):
                if tok.head.i not in seen:
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
            (t.tag_ == "VBG" and (_lemma(t) in _RESULT or t.dep_ == "auxpass"))
            or t.lower_ in ("will", "'ll", "going")
            for t in self.s
        )

    def _qualified(self, node: Token, covering: set[int]) -> str | None:
        """A qualifier that limits the claim in time or extent ("sometimes", "on weekends",
        "in training", "30-ish", "next week", "except ...") that the statement drops."""
        if node.i not in covering and _lemma(node) in _PARTIAL - self.s_lemmas:
            return f"the quote limits it ({node.text!r})"
        for child in node.children:
            if child.i in covering or child.dep_ not in _QUALIFYING:
                continue
            for tok in child.subtree:
                word = _lemma(tok)
                if tok.i in covering:
                    break
                future = word in _FUTURE and not self._future_statement()
                limits = word in _PARTIAL or future or (word in _WEEK_PART and self._state())
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
            and _lemma(node) not in _ASPECT
        )

    def _hedged(self, node: Token, covers: dict[int, Token]) -> str | None:
        covering = {c.i for c in covers.values()}
        lemma = _lemma(node)
        if node.pos_ in ("VERB", "AUX") and lemma in _HEDGE_VERBS and node.i not in covering:
            if not (self.request and lemma == "want"):
                return f"the quote hedges, plans or reports it ({node.text!r})"
        for child in node.children:
            word = child.lower_
            if (
                child.dep_ == "aux"
                and (child.tag_ == "MD" or word in _MODALS)
                and word not in ("can", "ca")
            ):
                if self._preference(node):
                    continue
                if child.lemma_.lower() not in self.s_lemmas and word not in self.s_lemmas:
                    return f"the quote has a modal ({child.text!r}) the statement does not"
            if child.dep_ == "advmod" and word in _HEDGE_ADVERBS and word not in self.s_lemmas:
                return f"the quote hedges it ({child.text!r})"
            if child.dep_ == "mark" and word in _CONDITIONS and word not in self.s_lemmas:
                return f"the quote makes it conditional ({child.text!r})"
            if child.dep_ == "advcl" and child.i not in covering:
                mark = next((m for m in child.children if m.dep_ == "mark"), None)
                if mark is not None and mark.lower_ in _CONDITIONS - self.s_lemmas:
                    return f"the quote makes it conditional ({mark.text!r})"
            if child.dep_ in ("amod", "advmod", "compound", "npadvmod") and word in _PRIVATIVE:
                if word not in self.s_lemmas:
                    return f"the quote qualifies it ({child.text!r})"
        if node.tag_ == "VBG" and lemma in _RESULT and node.i not in covering:
            return f"the quote says it is still to happen ({node.text!r})"
        getting = next((c for c in node.children if c.dep_ == "auxpass" and c.tag_ == "VBG"), None)
        if getting is not None and getting.lower_ not in self.s_lemmas:
            return f"the quote says it is still to happen ({getting.text!r})"
        if lemma == "go" and any(c.dep_ == "xcomp" for c in node.children) and node.tag_ == "VBG":
            return f"the quote speaks of a plan ({node.text!r})"
        return None

    def _negations(self, node: Token, covering: set[int]) -> list[str]:
        """The kinds of the negations on ``node`` ("not", "never", "rare", "end"): its
        negation words (also "hardly ever", and in its subject: "Neither my wife nor I"),
        and an ending verb ("quit", "sold") that the statement does not repeat."""
        kinds = []
        idiom = _idiom_negation(node)
        for child in node.children:
            if child == idiom or _correction(child, covering):
                continue
            if child.dep_ == "neg" or (child.dep_ in ("det", "advmod") and _is_negation(child)):
                kinds.append(_neg_kind(child))
            elif child.dep_ == "advmod":
                kinds += [_neg_kind(g) for g in child.children if g.lower_ in _RARELY]
            elif child.dep_ in ("nsubj", "nsubjpass") and any(
                t.lower_ in _NEG_WORDS for t in child.subtree
            ):
                kinds.append("not")
        if node.lower_ in ("without", "never", "nothing", "nobody"):
            kinds.append(_neg_kind(node))
        elif _lemma(node) in _ENDING and node.i not in covering:
            kinds.append("end")
        return kinds

    @staticmethod
    def _past(node: Token) -> bool:
        if node.pos_ not in ("VERB", "AUX"):
            return False
        perfect = any(
            c.dep_ == "aux" and c.lemma_ == "have" and c.tag_ != "VBD" for c in node.children
        )
        if perfect:
            return False
        if node.tag_ == "VBD" or node.lower_ == "used":
            return True
        return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in node.children)

    def _prepositions(self, covers: dict[int, Token]) -> Reading | None:
        for tok in self.s:
            if tok.dep_ != "pobj" or tok.i not in covers or tok.head.pos_ != "ADP":
                continue
            mine, theirs = tok.head.lower_, covers[tok.i].head
            if theirs.pos_ != "ADP" or theirs.lower_ == mine:
                continue
            if not any(mine in g and theirs.lower_ in g for g in _PREP_GROUPS):
                return _veto(f"the quote says {theirs.text!r} where the statement says {mine!r}")
        return None


def _spliced(tok: Token) -> bool:
    """A clause the parser hung under a later one across a comma ("I hate cilantro, it tastes
    like soap"): a comma splice, two sentences, unless the later verb reports or hedges it
    ("I'm pregnant, I think"; but "I'm training, so I need ideas" is a splice)."""
    if tok.dep_ != "ccomp" or tok.i > tok.head.i:
        return False
    head = tok.head
    parenthetical = not any(c.dep_ in ("dobj", "xcomp", "attr", "acomp") for c in head.children)
    if head.lemma_.lower() in _HEDGE_VERBS and parenthetical:
        return False
    between = tok.doc[tok.right_edge.i + 1 : tok.head.i]
    return any(t.text in (",", ";", ":", "-") for t in between) or tok.right_edge.text == ","


def _verb_of(tok: Token) -> Token:
    node = tok
    while node.pos_ not in ("VERB", "AUX") and node.head != node:
        node = node.head
    return node


__all__ = ["Reading", "derived", "read_clauses"]

"""Where the clause reading (core.judge.clauses) finds a quote word for each statement word:
the word itself, a synonym (core.judge.relations), a WordNet lemma that gives it, an equal
number, a clock time for a part of the day, a verb of having or using for a light verb."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_memory.core.judge.clause_checks import PathChecks
from agent_memory.core.judge.daytime import DAYPARTS, says_daypart
from agent_memory.core.judge.lexicon import (
    HAVING,
    HEDGE_VERBS,
    LIGHT,
    NEG_WORDS,
    SPEAKER_POSS,
    USING,
)
from agent_memory.core.judge.relations import same_word
from agent_memory.core.judge.syntax import (
    is_number,
    lemma_of,
    owned,
    possessors,
    values_in,
)
from agent_memory.core.judge.wordnet import wordnet

if TYPE_CHECKING:
    from spacy.tokens import Token

# A covered word the checks do not place (a number written in several words, an owned object).
ANYWHERE = "anywhere"
# spaCy's parts of speech as WordNet's (names, numbers and function words have none).
WORDNET_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


class Covers(PathChecks):
    """The covers of statement words in the quote parse ``q``."""

    def _cover(self, want: Token) -> Token | str | None:
        if is_number(want):
            return self._number_cover(want)
        if want.lower_ in DAYPARTS and (clock := self._clock_cover(want)) is not None:
            return clock
        if want.pos_ == "VERB" and lemma_of(want) in LIGHT:
            return self._light_cover(want)
        return self._word_cover(want)

    def _clock_cover(self, want: Token) -> Token | None:
        """A quote clock time ("6am", "10 pm") that says the statement's part of the day
        (core.judge.daytime); the parser splits "6am", so the number is the covering word."""
        words = {t.lower_ for t in self.s}
        for tok in self.q:
            if not is_number(tok):
                continue
            after = self.q[tok.i + 1].text if tok.i + 1 < len(self.q) else ""
            clock = (
                tok.text + after
                if after.lower().rstrip(".") in ("am", "pm", "a.m", "p.m")
                else tok.text
            )
            before = self.q[tok.i - 1] if tok.i > 0 else None
            prep = before.lower_ if before is not None and before.pos_ == "ADP" else None
            if says_daypart(want.lower_, words, clock, prep):
                return tok
        return None

    def _number_cover(self, want: Token) -> Token | str | None:
        values = values_in(want.text)
        if not values:  # "0", which the word rules read as a negation
            return next((t for t in self.q if t.lower_ == want.lower_), None)
        match = next((t for t in self.q if values & values_in(t.text)), None)
        return match if match is not None else ANYWHERE

    def _light_cover(self, want: Token) -> Token | str | None:
        """A light verb ("has", "takes", "uses") is said by a verb of having or using, or by
        the speaker's possessive on its object ("my meds" gives "takes meds")."""
        kin = HAVING if lemma_of(want) in ("have", "own", "get", "keep") else USING
        # Not an auxiliary: the "'ve" of "I've got a dog" has no subject of its own.
        match = next(
            (
                t
                for t in self.q
                if lemma_of(t) in kin and t.pos_ in ("VERB", "AUX", "ADP") and t.dep_ != "aux"
            ),
            None,
        )
        if match is not None:
            return match
        obj = next((c for c in want.children if c.dep_ in ("dobj", "attr")), None)
        cover = None if obj is None else self._word_cover(obj)
        return ANYWHERE if cover is not None and owned(cover) else None

    def _word_cover(self, want: Token) -> Token | None:
        lemma, proper = lemma_of(want), want.pos_ == "PROPN"
        kinds = not self._denied(want)
        best = spelled = None
        for tok in self.q:
            if tok.is_punct:
                continue
            if proper or tok.pos_ == "PROPN":
                if tok.lower_ == want.lower_ or tok.lower_.rstrip("s") == want.lower_.rstrip("s"):
                    if proper:
                        return tok
                    # A common noun spelled like part of a name ("father", "Father's Day")
                    # is the word itself only when the quote has no other word for it.
                    spelled = spelled or tok
                continue
            have = lemma_of(tok)
            if have == lemma or tok.lower_ == want.lower_:
                return tok
            if best is None and (
                same_word(lemma, have, kinds=kinds)
                or same_word(want.lower_, tok.lower_, kinds=kinds)
            ):
                best = tok
        best = best or spelled
        if best is None and "-" in want.text:
            return None
        return best if best is not None else self._lexicon_cover(want, lemma)

    def _denied(self, want: Token) -> bool:
        """Whether the statement denies ``want``: a negation before it (not eating salmon
        says nothing of fish; not drinking soda is not drinking pop). Then a word is given
        only as the same thing, not by a kind of it (WordNet's, or the relation tables').
        A word before the negation is the subject or owner of what is denied, and keeps
        its kinds: "My wife doesn't eat meat" gives "The user's spouse does not eat meat";
        so does one named by whose it is ("I don't like my daughter's boyfriend": "their
        child's partner")."""
        owned = want.dep_ == "poss" or any(c.dep_ == "poss" for c in want.children)
        if owned and want.tag_ not in ("NNS", "NNPS"):
            return False  # one person or thing, named by whose it is: "their sibling's spouse"
        return any((t.dep_ == "neg" or t.lower_ in NEG_WORDS) and t.i < want.i for t in self.s)

    def _lexicon_cover(self, want: Token, lemma: str) -> Token | None:
        """A quote word of the same part of speech that WordNet says gives ``want``
        (core.judge.wordnet: "retriever" gives "dog", "need" gives "want"); names never."""
        pos = WORDNET_POS.get(want.pos_)
        lexicon = wordnet()
        if pos is None or lexicon is None or lemma in HEDGE_VERBS:
            return None
        for tok in self.q:
            have = lemma_of(tok)
            if have in HEDGE_VERBS:  # wanting, hoping, planning: the hedge checks read them
                continue
            if WORDNET_POS.get(tok.pos_) == pos and lexicon.covers(
                lemma, have, pos, kinds=not self._denied(want)
            ):
                return tok
        return None

    def _same_possessed(self, want: Token) -> list[Token]:
        """Quote nouns that name the same possession as the statement's ``want``: "my mum's
        birthday" for "the user's mother's birthday", "my husband Raj" for "the user's
        husband"; the owners must match word for word, ending with the speaker."""
        mine = possessors(want)
        found = []
        for tok in self.q:
            if tok.pos_ not in ("NOUN", "PROPN") or not same_word(lemma_of(want), lemma_of(tok)):
                continue
            theirs = possessors(tok)
            if len(theirs) != len(mine) or not mine:
                continue
            if mine[-1].lower_ != "her" or theirs[-1].lower_ not in SPEAKER_POSS:
                continue
            if all(
                same_word(lemma_of(a), lemma_of(b))
                for a, b in zip(mine[:-1], theirs[:-1], strict=True)
            ):
                found.append(tok)
        return found

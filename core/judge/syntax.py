"""Reading a spaCy parse: lemmas, negations, clause chains, subjects and possessors.

Small pure functions over parsed tokens, used by the clause reading (core.judge.clauses and
core.judge.clause_checks). A *clause chain* is a token's way up the parse to the top of its
clause, where a coordinated verb ("..., but I love swimming"), an adverbial clause, or a comma
splice ("I hate cilantro, it tastes like soap") starts another: what is said in one chain is
one claim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_memory.core.judge.lexicon import HEDGE_VERBS, NEG_WORDS, RARELY, SPEAKER, SPEAKER_POSS
from agent_memory.core.judge.text import VALUE, parse_sentences

if TYPE_CHECKING:
    from spacy.tokens import Token


def lemma_of(tok: Token) -> str:
    """The lowercase lemma, a phrasal verb as verb_particle ("pass_away"), "can't stand"
    as "dislike" (its negation is then part of the word)."""
    base = tok.lemma_.lower()
    if base == "stand" and idiom_negation(tok) is not None:
        return "dislike"
    if tok.pos_ == "VERB":
        particle = next((c for c in tok.children if c.dep_ == "prt"), None)
        if particle is not None:
            return f"{base}_{particle.lower_}"
    return base


def idiom_negation(tok: Token) -> Token | None:
    """The "n't" of "can't stand", which makes one word with it."""
    if tok.lemma_.lower() != "stand" or not any(c.lower_ in ("ca", "can") for c in tok.children):
        return None
    return next((c for c in tok.children if c.dep_ == "neg"), None)


def is_correction(neg: Token, covering: set[int]) -> bool:
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


def is_negation(tok: Token) -> bool:
    return tok.dep_ == "neg" or tok.lower_ in NEG_WORDS or tok.lower_ in RARELY


def negation_kind(tok: Token) -> str:
    if tok.lower_ in RARELY:
        return "rare"
    return "never" if tok.lower_ == "never" else "not"


def values_in(text: str) -> set[str]:
    return {
        t.form for s in parse_sentences(text, statement=False) for t in s.tokens if t.cls == VALUE
    }


def is_number(tok: Token) -> bool:
    return tok.like_num or any(ch.isdigit() for ch in tok.text)


def spliced(tok: Token) -> bool:
    """A clause the parser hung under a later one across a comma ("I hate cilantro, it tastes
    like soap"): a comma splice, two sentences, unless the later verb reports or hedges it
    ("I'm pregnant, I think"; but "I'm training, so I need ideas" is a splice)."""
    if tok.dep_ != "ccomp" or tok.i > tok.head.i:
        return False
    head = tok.head
    parenthetical = not any(c.dep_ in ("dobj", "xcomp", "attr", "acomp") for c in head.children)
    if head.lemma_.lower() in HEDGE_VERBS and parenthetical:
        return False
    between = tok.doc[tok.right_edge.i + 1 : tok.head.i]
    return any(t.text in (",", ";", ":", "-") for t in between) or tok.right_edge.text == ","


def verb_of(tok: Token) -> Token:
    node = tok
    while node.pos_ not in ("VERB", "AUX") and node.head != node:
        node = node.head
    return node


def unit_top(tok: Token) -> Token:
    """The top of the token's clause chain: up the parse, stopping below a coordinated
    verb ("..., but I love swimming") or the root."""
    while tok.dep_ not in ("ROOT", "advcl", "parataxis") and not (
        tok.dep_ == "conj" and tok.pos_ in ("VERB", "AUX")
    ):
        if spliced(tok):
            break
        tok = tok.head
    return tok


def path_up(tok: Token) -> list[Token]:
    """The token and its heads up to (and with) the top of its clause chain."""
    path = [tok]
    top = unit_top(tok)
    while path[-1] != top:
        path.append(path[-1].head)
    return path


def clause_subject(top: Token) -> Token | None:
    node = top
    while True:
        subj = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None or node.dep_ not in ("conj", "xcomp") or node.head == node:
            return subj
        node = node.head


def is_speaker(tok: Token) -> bool:
    if tok.lower_ in SPEAKER:
        return True
    return any(c.dep_ == "conj" and c.lower_ in SPEAKER for c in tok.children)


def owned(tok: Token) -> bool:
    """The token is something of the speaker's ("my meds", "our son", "my blood pressure
    meds"): a my/our in its noun phrase, before its head."""
    head = tok
    while head.dep_ in ("compound", "amod", "appos", "conj") and head.head != head:
        head = head.head
    if head.pos_ not in ("NOUN", "PROPN"):
        return False
    return any(t.dep_ == "poss" and t.lower_ in SPEAKER_POSS for t in modifiers(head))


def modifiers(head: Token) -> list[Token]:
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


def possessors(tok: Token) -> list[Token]:
    """The chain of owners of a noun: "my mum's birthday" gives [mum, my]."""
    chain: list[Token] = []
    node = tok
    for _ in range(4):
        while node.dep_ in ("compound", "appos") and node.head != node:
            node = node.head
        owner = next((c for c in modifiers(node) if c.dep_ == "poss"), None)
        if owner is None:
            return chain
        chain.append(owner)
        node = owner
    return chain


def antecedent(noun: Token) -> Token:
    """Who a relative clause is about: its noun, or the subject that noun describes ("I'm
    the only one who knows SQL" is about the speaker)."""
    if noun.dep_ == "attr" and noun.head.lemma_ == "be":
        subject = next((c for c in noun.head.children if c.dep_ == "nsubj"), None)
        if subject is not None:
            return subject
    return noun


def subject_of(tok: Token) -> Token | None:
    """The subject of the nearest clause around ``tok``: a relative clause's is the noun
    it describes ("Maria, who is a nurse"); a clause without one borrows its head's."""
    node = tok
    while node.pos_ not in ("VERB", "AUX") and node.head != node:
        node = node.head
    for _ in range(6):
        subj = next((c for c in node.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if node.dep_ == "relcl" and (subj is None or subj.tag_ in ("WP", "WDT")):
            return antecedent(node.head)
        if subj is not None or node.head == node or spliced(node):
            return subj
        if node.tag_ == "VB" and node.i < node.head.i and node.dep_ in ("advcl", "ccomp"):
            return None  # an imperative before the main clause: "Write ..., my readers are"
        if node.dep_ not in ("xcomp", "conj", "acl", "advcl", "ccomp", "pcomp", "pobj", "prep"):
            return None
        node = node.head
    return None


def is_past(node: Token) -> bool:
    if node.pos_ not in ("VERB", "AUX"):
        return False
    perfect = any(c.dep_ == "aux" and c.lemma_ == "have" and c.tag_ != "VBD" for c in node.children)
    if perfect:
        return False
    if node.tag_ == "VBD" or node.lower_ == "used":
        return True
    return any(c.dep_ in ("aux", "auxpass") and c.tag_ == "VBD" for c in node.children)

"""Word forms for the word readings: a token's lemma-like forms and whether it is a past form
(regular "-ed" or an irregular past such as "went", "bought")."""

from __future__ import annotations

from agent_memory.core.judge.text import WORD, Token, stem_word

IRREGULAR_PAST = {
    "given": "give",
    "gave": "give",
    "chosen": "choose",
    "chose": "choose",
    "got": "get",
    "gotten": "get",
    "bought": "buy",
    "made": "make",
    "taken": "take",
    "took": "take",
    "went": "go",
    "flew": "fly",
    "flown": "fly",
    "came": "come",
    "gone": "go",
    "left": "leave",
    "grew": "grow",
    "grown": "grow",
    "taught": "teach",
    "wrote": "write",
    "written": "write",
    "began": "begin",
    "begun": "begin",
    "met": "meet",
    "spent": "spend",
    "held": "hold",
    "kept": "keep",
}


def lemmas(tok: Token) -> set[str]:
    """The token's form, and its forms with a regular ``-ed`` or an irregular past taken off."""
    text = tok.text
    forms = {tok.form}
    if text in IRREGULAR_PAST:
        forms.add(stem_word(IRREGULAR_PAST[text]))
    elif tok.cls == WORD and len(text) > 4 and text.endswith("ed"):
        root = text[:-2]
        forms |= {stem_word(root), stem_word(root + "e")}
        if len(root) >= 2 and root[-1] == root[-2]:
            forms.add(stem_word(root[:-1]))
    return forms


def past_form(tok: Token) -> bool:
    return tok.text in IRREGULAR_PAST or (
        tok.cls == WORD and len(tok.text) > 4 and tok.text.endswith("ed")
    )

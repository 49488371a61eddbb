"""Normalisation and tokens for the offline judge: contractions, numbers, dates and times as
comparable values (core.judge.values), light stemming (core.judge.stemming), and token classes
(core.judge.tokens); see core.judge.offline for how they are used)."""

from __future__ import annotations

import re
import unicodedata

from agent_memory.core.judge.stemming import stem_word
from agent_memory.core.judge.tokens import (
    CLAUSE,
    CONJ,
    FRAME,
    MODAL,
    NEG,
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
)
from agent_memory.core.judge.values import (
    CURRENCIES,
    WEEKDAYS,
    fold_dates,
    number_form,
    raw_tokens,
    time_form,
)

_APOSTROPHES = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'", "\u2032": "'"}
)

_CONTRACTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(pattern), replacement)
    for pattern, replacement in [
        (r"\bwon't\b", "will not"),
        (r"\bcan't\b", "can not"),
        (r"\bcannot\b", "can not"),
        (r"\bshan't\b", "shall not"),
        (r"\bain't\b", "is not"),
        (r"n't\b", " not"),
        (r"\bi'm\b", "i am"),
        (r"'re\b", " are"),
        (r"'ve\b", " have"),
        (r"'ll\b", " will"),
        (r"'d\b", " would"),
        (r"\b(it|that|he|she|there|here|what|who|where|how|when|why)'s\b", r"\1 is"),
        (r"\blet's\b", "let us"),
        (r"'s\b", " 's"),
        (r"\be-mail", "email"),
        (r"\bwanna\b", "want to"),
        (r"\bgotta\b", "got to"),
    ]
]

# Sentence ends: . ! ? ; (not a decimal point) and newlines.
_SENTENCE_END = re.compile(r"((?<!\d)[.!?;]+|[.!?;]+(?!\d)|\n+)")

_STOP = set(
    split_words(
        "a an the am is are was were be been being do does did doing done it its itself this "
        "that these those there here of as some any let such then thus"
    )
)
# Discourse words: ignored on both sides.
_STOP |= set(
    split_words(
        "also really actually honestly personally seriously genuinely literally basically "
        "obviously clearly just yes yeah yep ok okay oh hey hi hello please thanks thank um uh "
        "anyway btw well indeed"
    )
)
_SOFT = set(
    split_words(
        "still already now currently nowadays today tonight recently lately yesterday always "
        "very quite too even only strongly much definitely certainly absolutely totally truly "
        "fully completely entirely exactly again anymore daily"
    )
)
_PREP = set(
    split_words(
        "in on at from to into onto near over under above below before after since until till "
        "by for with about against between among across through throughout during per via within "
        "outside inside behind beside besides around towards toward off out up down upon beyond "
        "despite along unlike than"
    )
)
_CLAUSE = set(split_words("but although though whereas however because so while"))
_NEGATIONS = {
    "not": "not",
    "no": "not",
    "never": "never",
    "nobody": "nobody",
    "nothing": "nothing",
    "none": "none",
    "neither": "neither",
    "nor": "nor",
    "nowhere": "nowhere",
    "without": "without",
    "except": "except",
    "hardly": "hardly",
    "barely": "barely",
    "scarcely": "scarcely",
    "rarely": "rarely",
    "seldom": "seldom",
}
# A statement's "not" is entailed by any of these in the quote; the others need themselves.
NOT_LIKE = {"not", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere"}

_MODALS: dict[str, str] = {}
for _canonical, _forms in {
    "might": "might",
    "may": "may",
    "maybe": "maybe",
    "perhaps": "perhaps",
    "possibly": "possibly",
    "probably": "probably",
    "likely": "likely",
    "unlikely": "unlikely",
    "could": "could",
    "would": "would",
    "should": "should",
    "must": "must",
    "can": "can",
    "will": "will",
    "shall": "shall",
    "ought": "ought",
    "gonna": "gonna",
    "consider": "consider considers considered considering",
    "think": "think thinks thought thinking",
    "believe": "believe believes believed believing",
    "guess": "guess guesses guessed guessing",
    "suppose": "suppose supposes supposed supposing supposedly",
    "assume": "assume assumes assumed assuming",
    "expect": "expect expects expected expecting",
    "hope": "hope hopes hoped hoping hopefully",
    "wish": "wish wishes wished wishing",
    "want": "want wants wanted wanting",
    "plan": "plan plans planned planning",
    "intend": "intend intends intended intending",
    "wonder": "wonder wonders wondered wondering",
    "doubt": "doubt doubts doubted doubting",
    "imagine": "imagine imagines imagined imagining",
    "pretend": "pretend pretends pretended pretending",
    "dream": "dream dreams dreamed dreamt dreaming",
    "seem": "seem seems seemed seeming",
    "try": "try tries tried trying",
    "if": "if",
    "unless": "unless",
    "whether": "whether",
    "when": "when whenever",
    "or": "or either",
    "used": "used",
    "say": "say says said saying tell tells told telling",
    "claim": "claim claims claimed claiming",
    "hear": "hear hears heard hearing",
    "apparently": "apparently allegedly",
    "usually": "usually often sometimes occasionally generally typically normally mostly",
    "almost": "almost nearly",
    "unsure": "unsure uncertain",
    "kidding": "kidding joking jk sarcasm sarcastic sarcastically",
}.items():
    for _form in _forms.split():
        _MODALS[_form] = _canonical

# Modal words that are hedges: a hedged statement and its negation can both hold.
HEDGES = set(_MODALS.values()) - {"can", "will", "would", "shall", "must", "should", "say"}

_SELF_WORDS = {"i": SELF, "me": SELF, "myself": SELF, "my": SELFPOSS, "mine": SELFPOSS}
_PRONOUNS = set(
    split_words(
        "he she him her his hers himself herself they them their theirs themselves we us our ours "
        "ourselves you your yours yourself yourselves someone somebody everyone everybody anyone "
        "anybody"
    )
)
_THEY = {"they": SELF, "them": SELF, "themselves": SELF, "their": SELFPOSS, "theirs": SELFPOSS}
_RELATIVES = set(split_words("who whom whose which what where why how whoever whatever whichever"))
_FRAMES = set(
    split_words("said says stated states mentioned mentions reported reports noted notes")
)
_PAST_MARKERS = {"was", "were", "did", "had", "used"}
AUXILIARIES = set(
    split_words(
        "am is are was were be has have had do does did will would can could should might may "
        "must shall"
    )
)
_PARTICIPLES = set(
    split_words(
        "been got gotten done gone made had seen taken given eaten written known grown left lost "
        "bought sold found met heard told said become come run begun read kept spent"
    )
)


# "prefers X over Y" says what "prefers X to Y" says, on either side.
_PREFER_OVER = re.compile(r"\b(prefers?|preferred|preferring)\b([^,.;:!?]{1,60}?)\bover\b")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return _PREFER_OVER.sub(r"\1\2to", text)


def _classify(raw: list[tuple[str, str]], *, statement: bool) -> list[Token]:
    tokens: list[Token] = []
    pending_currency: str | None = None
    for i, (kind, text) in enumerate(raw):
        if kind == "value":
            tokens.append(Token(text, VALUE, text.lstrip("@")))
        elif kind == "time":
            tokens.append(Token(time_form(text), VALUE, text))
        elif kind == "range":
            tokens.append(Token(f"#{text}", VALUE, text))
        elif kind == "num":
            if re.fullmatch(r"-?0+", text):  # "0 kids" is "no kids"
                tokens.append(Token("not", NEG, text))
                continue
            tokens.append(Token(number_form(text), VALUE, text))
            if pending_currency:
                tokens.append(Token(pending_currency, WORD, pending_currency))
                pending_currency = None
        elif kind == "punct":
            if text == ",":
                tokens.append(Token(",", PUNCT, ","))
            elif text == "%":
                tokens.append(Token("percent", WORD, "%"))
            elif i + 1 < len(raw) and raw[i + 1][0] == "num":
                pending_currency = CURRENCIES[text]
            else:
                tokens.append(Token(CURRENCIES[text], WORD, text))
        elif kind == "poss":
            if tokens and tokens[-1].cls == SELF and tokens[-1].text == "user":
                tokens[-1] = Token("~selfposs", SELFPOSS, "user's")
            else:
                tokens.append(Token("'s", POSS, "'s"))
        else:
            tokens.append(_word(text, raw, i, statement=statement))
    return tokens


def _word(text: str, raw: list[tuple[str, str]], i: int, *, statement: bool) -> Token:
    if text == "user":
        return Token("~self", SELF, text)
    if text in _SELF_WORDS:
        cls = _SELF_WORDS[text]
        return Token("~self" if cls == SELF else "~selfposs", cls, text)
    if text in ("have", "has", "had"):
        past = text == "had"
        for kind, following in raw[i + 1 :]:
            if kind == "word" and (following in _SOFT or following in ("not", "never")):
                continue
            if kind == "word" and (following in _PARTICIPLES or following.endswith("ed")):
                return Token(text, STOP, text, past=past)
            break
        return Token("have", WORD, text, past=past)
    if text in _NEGATIONS:
        return Token(_NEGATIONS[text], NEG, text)
    if statement and text in _FRAMES:
        return Token("say", FRAME, text)
    if text in _MODALS:
        return Token(_MODALS[text], MODAL, text, past=text == "used")
    if text in _STOP:
        return Token(text, STOP, text, past=text in _PAST_MARKERS)
    if text in _SOFT:
        return Token(text, SOFT, text)
    if text in _PREP:
        return Token(text, PREP, text)
    if text == "and":
        return Token(text, CONJ, text)
    if text in _CLAUSE:
        return Token(text, CLAUSE, text)
    if text in _PRONOUNS:
        return Token(text, PRON, text)
    if text in _RELATIVES:
        return Token(text, REL, text)
    return Token(stem_word(text), WORD, text)


def _statement_people(tokens: list[Token]) -> list[Token]:
    """In a statement, they/their after "the user" (no other noun between) mean the user;
    "the user said (that)" is framing and dropped."""
    out: list[Token] = []
    seen_user = False
    blocked = False  # a word between the last "user" and here could be the antecedent
    for tok in tokens:
        if tok.cls in (SELF, SELFPOSS) and tok.text in ("user", "user's"):
            seen_user, blocked = True, False
            out.append(tok)
            continue
        if tok.text in _THEY and tok.cls == PRON:
            cls = _THEY[tok.text]
            if cls == SELF:
                may_map = seen_user and not blocked
            else:
                may_map = seen_user and not _blocked_possessive(out)
            if may_map:
                out.append(Token("~self" if cls == SELF else "~selfposs", cls, tok.text))
                continue
        if tok.cls in (WORD, VALUE, PREP):
            blocked = True
        out.append(tok)
    # Drop "the user said (that)".
    result: list[Token] = []
    i = 0
    while i < len(out):
        tok = out[i]
        if tok.cls == SELF and tok.text == "user":
            j = i + 1
            while j < len(out) and out[j].cls in (STOP, SOFT):
                j += 1
            if j < len(out) and out[j].cls == FRAME:
                result.append(Token("say", FRAME, out[j].text))
                i = j + 1
                continue
        if tok.cls == FRAME:  # not the user's own framing: an ordinary word
            tok = (
                Token(_MODALS[tok.text], MODAL, tok.text)
                if tok.text in _MODALS
                else Token(stem_word(tok.text), WORD, tok.text)
            )
        result.append(tok)
        i += 1
    return result


def _blocked_possessive(before: list[Token]) -> bool:
    """A possessive after "the user's X" or another person may be theirs, not the user's."""
    for tok in reversed(before):
        if tok.cls == SELF and tok.text == "user":
            return False
        if tok.cls in (SELFPOSS, POSS, PRON):
            return True
    return True


def parse_sentences(text: str, *, statement: bool) -> list[Sentence]:
    parts = _SENTENCE_END.split(_normalise(text))
    sentences: list[Sentence] = []
    for k in range(0, len(parts), 2):
        body = parts[k]
        end = parts[k + 1] if k + 1 < len(parts) else ""
        raw = fold_dates(raw_tokens(body))
        if not raw:
            continue
        tokens = _classify(raw, statement=statement)
        if statement:
            tokens = _statement_people(tokens)
        sentences.append(Sentence(tokens, "?" in end))
    return sentences


# The token types, classes and helpers other modules take from here, with what is defined here.
__all__ = [
    "AUXILIARIES",
    "CLAUSE",
    "CONJ",
    "FRAME",
    "HEDGES",
    "MODAL",
    "NEG",
    "NOT_LIKE",
    "POSS",
    "PREP",
    "PRON",
    "PUNCT",
    "REL",
    "SELF",
    "SELFPOSS",
    "SOFT",
    "STOP",
    "VALUE",
    "WEEKDAYS",
    "WORD",
    "Sentence",
    "Token",
    "parse_sentences",
    "split_words",
    "stem_word",
]

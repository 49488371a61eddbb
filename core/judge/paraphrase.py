"""The offline judge's second reading: a paraphrase of one quote sentence, under vetoes.

The ordered-words rules (core.judge.offline) accept only near-verbatim restatements. When they
refuse, this reading accepts a statement whose every content word is *covered* by a word of
one quote sentence, in any order, and that no veto stops. It runs on the same tokens
(core.judge.text).

Coverage: the same stem; the same lemma ("called"/"call", "given"/"give"); one entry of a small
table of general relation and wording synonyms (boss/manager, picked/chose/decided, called/named,
hate/dislike), or of one-way entailments (a quote's "report to" gives "manager", "wife" gives
"spouse", "love" gives "like", "son" gives "child"); or a derived form
(core.judge.relations.derived: "allergic"/"allergy", "honeymoon"/"honeymooned",
"diabetic"/"diabetes"; not "internship"/"interview", nor one name for another); the clause
reading's relation table (core.judge.relations); WordNet (core.judge.wordnet) for a statement word
plainly a noun (after a/the/a number/a possessive) or a verb (after the user or a modal), and for a
phrasal verb of the quote ("passed away" gives "died"); a clock time with am/pm for a part of the
day (core.judge.daytime). A statement's "very X" is said by the quote's superlative of X. A few
statement words claim nothing a quote must say and need no cover: light verbs (have, use, take,
hold, follow, own, get, work as), category nouns (answers, responses, units, spelling, disease,
medication), "years old" after a number, the user's household/family/home/team when the quote
speaks as we/our, and "now"/"currently" (present quote, or a past change whose result lasts: "just"
with a past verb, moved/switched/bought...) or "recently" (a quote with just/last/recently/ago),
and "about"/"around" before a number the quote states. In a request ("Please keep it short", "Call
me Sam", "Can you give me ... ?") the wanting words of the statement (wants, prefers, would like,
asks for, to be) need no cover either. Names, numbers, dates, modifiers like "permanently" or
"successfully" always do.

In the quote, between the speaker and the first covered word only light verbs, "work as",
words that strengthen the claim ("all", "really"), "need" (for a statement that the user
wants it) and (for a statement that the user has something) verbs of getting it (adopted,
bought) may stand.

Vetoes (each one is the reason given):
- the covering words span a contrast ("but", "although", "though", "however", "whereas");
- the first covering clause has someone else as its subject: before its first covering word
  stands a word that covers nothing, or another person (``he``, ``everyone``, ``Marcus``,
  ``my coworker``); a later covering clause may start with a pronoun ("she's called Nell")
  but not with a possessive or a new noun ("her boss is ...");
- a hedge, condition, report, wish or plan (the modal words of core.judge.text, plus need,
  turning, applied, about to, going to) in the covering clauses or before them in the
  sentence, unless the statement keeps a hedge too; "can" (ability) does not count;
- a negation count that differs from the statement's in the covering clauses and before them,
  or a negated self anywhere in the sentence ("..., not me", "except me");
- a question, unless it is a request ("Can you ...?") and the statement is a wish;
- sarcasm openers ("yeah right", "like I'd ever", "sure, because", "as if");
- a privative modifier the statement does not keep (previous, former, ex, future, fake,
  almost, would-be, potential);
- the quote's covering clauses in the past (was/were/did/had, used to; "have had" is present)
  while the statement is not, or a covered verb in another tense than the statement's
  ("lived" / "lives");
- a shared decision ("we decided", "my wife and I chose") made the user's alone;
- a condition on both sides whose terms are swapped ("I skip meals when I get migraines" /
  "gets migraines when skipping meals"), or a preference the other way round ("rather tea
  than coffee" / "prefers coffee to tea");
- a past change the quote follows with a later one ("moved to Leeds, then to York");
- after an attitude verb (like, love, hate, prefer, want, mind, enjoy), content words of the
  quote after the last covering word of that clause ("I hate meetings before 10am" does not
  give "the user hates meetings").

Limits: it is still words, not a parse. It cannot read world knowledge WordNet lacks
("celiac" is not "gluten"), implications across sentences, or paraphrases whose words
are all new ("I'm terrified of flying, so trains" / "prefers trains"); those are refused. A
covered word can be the right word in the wrong role ("my sister's cat is called Tom, I'm Tom"
style constructions); the subject veto catches the common shapes only.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_memory.core.judge.daytime import DAYPARTS
from agent_memory.core.judge.forms import lemmas, past_form
from agent_memory.core.judge.paraphrase_checks import (
    LIGHT_VERBS,
    REQUEST_START,
    check_attitude,
    check_hedges,
    check_negation,
    check_origins,
    check_soft,
    check_strict,
    check_subject,
    check_tense,
    check_values,
    check_whole_sentence,
    covers,
)
from agent_memory.core.judge.paraphrase_rules import (
    ABOUT,
    HOUSE,
    INTENSIFIERS,
    WE,
    choose,
    clock_cover,
    condition_roles,
    contrast_roles,
    phrasal_cover,
    pos_hint,
    shared_decision,
)
from agent_memory.core.judge.text import (
    CLAUSE,
    CONJ,
    HEDGES,
    MODAL,
    NEG,
    POSS,
    PUNCT,
    SELFPOSS,
    SOFT,
    STOP,
    VALUE,
    WORD,
    Sentence,
    Token,
    split_words,
    stem_word,
)

_CASUAL = [
    ["these", "days"],
    ["right", "now"],
    ["at", "the", "moment"],
    ["for", "now"],
    ["at", "present"],
    ["as", "of", "now"],
]
_MAX_TOKENS = 80  # a bound on the cost per sentence; longer ones are refused
_CONTRAST = set(split_words("but although though however whereas"))
_CATEGORY = {
    stem_word(w)
    for w in split_words(
        "answer answers response responses reply replies unit units spelling disease condition "
        "medication format style output text"
    )
}
_WISH = {"want", "prefer", "like", "request", "requested", "ask", "asked", "wish"}
_SARCASM = [["yeah", "right"], ["like", "would", "ever"], ["sure", ","], ["as", "if"]]


def _intensified(want: Token, statement: Sentence, tokens: list[Token]) -> bool:
    """The statement's "very"/"really" before a word is said by the quote's superlative of
    it ("the simplest budget possible" / "a very simple budget") or its own intensifier."""
    toks = statement.tokens
    i = next(k for k, t in enumerate(toks) if t is want)
    if i + 1 >= len(toks) or toks[i + 1].cls != WORD:
        return False
    for p, tok in enumerate(tokens):
        if not covers(toks[i + 1], tok):
            continue
        superlative = tok.text.endswith("est") and not toks[i + 1].text.endswith("est")
        before = tokens[p - 1].text if p else ""
        if superlative or before in INTENSIFIERS | {"so", "most"}:
            return True
    return False


@dataclass(slots=True)
class Reading:
    holds: bool
    reason: str


def _clauses(tokens: list[Token]) -> list[int]:
    """The clause number of every token: a new clause at and/but/because/... or a comma."""
    clause, out = 0, []
    for tok in tokens:
        if tok.cls in (CLAUSE, CONJ, PUNCT):
            clause += 1
        out.append(clause)
    return out


def _is_request(tokens: list[Token]) -> bool:
    words = [t for t in tokens if t.cls not in (STOP, PUNCT, SOFT)]
    if not words:
        return False
    if any(t.text in ("please", "pls") for t in tokens):
        return True
    first = words[0]
    if first.text in REQUEST_START or (first.cls == NEG and len(words) > 1):
        return True
    return (
        first.cls == MODAL
        and first.form in ("can", "could", "would", "will")
        and len(words) > 1
        and words[1].text == "you"
    )


def _needs(statement: Sentence, request: bool, premise_we: bool) -> list[Token] | str:
    """The statement tokens a quote word must cover, or why the statement cannot be read."""
    toks = statement.tokens
    needs: list[Token] = []
    wish = False
    for i, tok in enumerate(toks):
        prev = toks[i - 1] if i else None
        if (tok.cls == MODAL and tok.form in ("want", "wish")) or tok.form in _WISH:
            wish = True
            if request:
                continue
        if tok.cls not in (WORD, VALUE, SOFT):
            continue
        if request and wish and tok.form in ("to", "be", "for", "like"):
            continue
        if tok.form in LIGHT_VERBS or tok.form in _CATEGORY:
            continue
        if tok.form == "work" and i + 1 < len(toks) and toks[i + 1].text == "as":
            continue
        if tok.form in ("year", "old") and any(t.cls == VALUE for t in toks[max(0, i - 2) : i]):
            continue
        if tok.text in ABOUT and i + 1 < len(toks) and toks[i + 1].cls == VALUE:
            continue  # "about 800" claims less than the quote's "800"; the 800 is still needed
        if tok.text in ("named", "called") and i + 1 < len(toks) and toks[i + 1].cls == WORD:
            continue  # "a dog named Rufus": the name itself must be covered ("my dog Rufus")
        if tok.form in HOUSE and premise_we and (prev is None or prev.cls in (SELFPOSS, STOP)):
            continue  # "the user's household" or "the team" for the quote's "we"
        needs.append(tok)
    if request and not wish:
        return "a request entails only what the user wants"
    return needs


_OWNERS = frozenset("my our your his her its their".split())


def _possessed(tokens: list[Token], at: int) -> bool:
    """Whether the statement word at ``at`` names one person or thing by whose it is: after an
    owner ("their", "the user's", "sibling's") or itself an owner ("sibling" in "their
    sibling's spouse"). Such a word refers; it does not deny a kind. Not a plural: "their
    parents" are more than "my mom"."""
    word = tokens[at]
    if word.text != word.form and word.text.endswith("s"):
        return False
    before = tokens[at - 1] if at > 0 else None
    after = tokens[at + 1] if at + 1 < len(tokens) else None
    return (before is not None and (before.cls in (SELFPOSS, POSS) or before.text in _OWNERS)) or (
        after is not None and after.cls == POSS
    )


def read_paraphrase(premise: Sentence, statement: Sentence) -> Reading:
    """Does one quote sentence say what one statement sentence says? See the module doc."""
    tokens = _without_casual(premise.tokens)
    if len(tokens) > _MAX_TOKENS:
        return Reading(False, "the quote sentence is too long to read as a paraphrase")
    texts = [t.text for t in tokens]
    request = _is_request(tokens)
    if premise.question and not request:
        return Reading(False, "the quote is a question, which asserts nothing")
    for cue in _SARCASM:
        if any(texts[i : i + len(cue)] == cue for i in range(len(texts))):
            return Reading(False, f"the quote is sarcastic ({' '.join(cue)!r})")
    premise_we = any(t.text in WE for t in tokens)
    needs = _needs(statement, request, premise_we)
    if isinstance(needs, str):
        return Reading(False, needs)
    if not needs:
        return Reading(False, "the statement has no content words to check")
    kept = {t.text for t in statement.tokens}
    # A wish ("wants") is what the user said, not a hedge: it licenses no "might" in the quote.
    statement_hedged = any(
        t.cls == MODAL and t.form in HEDGES - {"want", "wish"} for t in statement.tokens
    )
    # What a statement denies (the words after its negation) is covered by the same things,
    # not by kinds of them; its subject or owner, before the negation, keeps its kinds, and
    # so does one person or thing named by whose it is ("their sibling's spouse").
    negation = next((i for i, t in enumerate(statement.tokens) if t.cls == NEG), None)
    clause_of = _clauses(tokens)
    placed: list[Token] = []  # the statement words a quote word covers, in order
    candidates: list[list[int]] = []  # the quote places that cover each of them
    for want in needs:
        if want.text in ("previously", "formerly"):
            if not any(t.past or past_form(t) for t in tokens):
                return Reading(False, f"the statement says {want.text!r} and the quote is not past")
            continue
        if want.text in INTENSIFIERS and _intensified(want, statement, tokens):
            continue
        if want.cls == SOFT:
            problem = check_soft(want, tokens, kept)
            if problem is not None:
                return Reading(False, problem)
            continue
        at = next(i for i, t in enumerate(statement.tokens) if t is want)
        pos = pos_hint(statement.tokens, at)
        denied = negation is not None and at > negation and not _possessed(statement.tokens, at)
        found = [p for p, tok in enumerate(tokens) if covers(want, tok, pos, denied=denied)]
        if not found and (phrasal := phrasal_cover(want, tokens)) is not None:
            found = [phrasal]
        if not found and want.text in DAYPARTS:
            found = clock_cover(want, statement, tokens)
        if not found:
            return Reading(False, f"{want.text!r} in the statement is not in the quote")
        placed.append(want)
        candidates.append(found)
    cover = choose(candidates, clause_of)
    for want, p in zip(placed, cover, strict=True):
        have = tokens[p]
        retensed = want.cls == WORD and want.form != have.form and lemmas(want) & lemmas(have)
        if retensed and past_form(have) and not past_form(want):
            return Reading(False, f"{have.text!r} is in another tense")
    if not cover:
        return Reading(False, "the statement has no content words to check")
    used = sorted(set(clause_of[p] for p in cover))
    first_pos = min(cover)
    for p in range(first_pos, max(cover)):
        if tokens[p].text in _CONTRAST:
            return Reading(False, f"the quote's words span a contrast ({tokens[p].text!r})")
    problem = (
        check_whole_sentence(tokens, kept)
        or shared_decision(tokens, statement)
        or condition_roles(tokens, placed, cover, statement)
        or contrast_roles(tokens, placed, cover, statement)
        or check_values(tokens, clause_of, placed, cover, statement)
        or check_origins(tokens, placed, cover, statement)
        or check_subject(tokens, clause_of, used, cover, request, kept)
        or check_hedges(tokens, clause_of, used, statement_hedged, kept, request)
        or check_negation(tokens, clause_of, used, statement)
        or check_tense(tokens, clause_of, used, statement, cover)
        or check_attitude(tokens, clause_of, cover, request, kept)
        or check_strict(tokens, clause_of, cover, statement, request)
    )
    if problem is not None:
        return Reading(False, problem)
    return Reading(True, "every statement word is covered by one quote sentence (paraphrase)")


def _without_casual(tokens: list[Token]) -> list[Token]:
    """The sentence without casual time phrases that change nothing ("these days")."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        run = next((c for c in _CASUAL if [t.text for t in tokens[i : i + len(c)]] == c), None)
        if run is None:
            out.append(tokens[i])
            i += 1
        else:
            i += len(run)
    return out

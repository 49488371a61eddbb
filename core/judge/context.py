"""Reading a quote in its turn: what the judge must see, and what voids the quote outright.

An agent picks the quote, so it can cut away what makes it false: "I'm not sure I'm pregnant."
quoted as "I'm pregnant", "My ex said I am abusive. That's not true." quoted as "I am
abusive". ``read`` finds the quote in the turn it came from and returns the whole sentence(s)
around it (the NLI judge's premise; the offline rules judge the quote itself), plus a refusal
when the turn takes the quote out of the user's mouth:

- its own sentence says, around the quote, what the quote cuts away: a negation, hedge, report
  or condition before it that no clause word ("but", "and", "so") closes off ("I'm not sure
  I'm pregnant", "My doctor thinks I have cancer"); a negation, hedge or report right after it
  in the same clause; a condition or report anywhere after it ("..., if I get the job"); or a
  question mark ending the sentence. A "no" standing alone as the sentence opens ("Wait, no,
  I live in Milan") answers what came before and negates nothing; a comma and a new "I" open a
  clause the earlier negation does not reach ("I don't live in Oslo anymore, I moved to
  Bergen"), unless that clause is a hedge ("I don't know, I think ..."). After the quote, a
  comma and a personal subject with three content words of its own, none a negation, a hedge
  or a word on truth, open a clause whose modals are its own ("I need a hotel near the venue,
  I will ask the lab for reimbursement", but not "..., I think.", "..., that's not true
  anymore", "..., I never finished medical school" or "..., I'm joking of course"); and "not
  just"/"not only" widen the quote. After a comma, "no" before a thing, ending the sentence,
  goes on with a statement that says something ended ("I've stopped badminton since joining,
  no time at all": core.judge.beside). Any other negation after a comma refuses: "I'm a
  smoker, no cigarettes since January" undoes its claim where "I quit smoking, no cigarettes
  since January" goes on with it, "I run every morning, not weekends" limits it. A report
  after the quote refuses wherever it stands ("..., the doctor said", "..., and the doctor
  said eat regular meals", "..., but the doctor said the results were normal"), unless, in
  a clause of its own, it asks what to say ("... and I don't know what to say to her");
- a condition said by inversion ("Were I rich, I would ...") or ironic agreement ("Oh sure,
  ...", "Sure, I'm the Pope") opening the quote's sentence (core.framing);
- fiction, role-play or a hypothetical framing the quote's sentence or an earlier one of the
  turn ("in the novel I'm writing", "let's pretend", "imagine", "hypothetically");
- quoted text: the quote sits inside quotation marks in the turn, or its sentence names a
  non-human source ("..., says the error message", "the log says");
- a retraction later in its own sentence ("I got promoted, but that was a lie.") or in a later
  sentence of the turn ("That's not true.", "Just kidding.", "That was a lie.",
  or a correction opened by "actually", "wait", "sorry", or a short self-correction of at
  most two words after "well", "I mean", "or rather": "Well, worked."); such a word inside a
  later question it does not open ("Cake ideas that kids actually like?"), "wait" as a verb
  ("I can't wait to see her") and "sorry" apologising for something ("Sorry for the long
  message", not "sorry for the confusion") take nothing back.

A clause about telling the assistant ("I forgot to tell you: ...", "Not sure if I told you,
but ...", "..., as I said"; core.framing.told_you) frames the telling, not the claim: the
quote's sentence is read without it, so its report or doubt refuses nothing, while what the
claim itself says still does, irony and inversion opening it included ("As I said, my doctor
thinks I have cancer", "Like I said, sure, I'm a genius").
A cue word that the statement itself keeps ("The user is writing a novel.") does not refuse.
Sentences end at ``.``, ``!``, ``?`` or a line break, not after common abbreviations ("Dr.").
Limits: cues are a word list, not a discourse model: a retraction phrased without one of them
("Scrap what I said") is missed, and a cue in an unrelated later sentence refuses too (the safe
direction).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agent_memory.core.amend import amended
from agent_memory.core.framing import (
    ASIDE_IF,
    IDIOM_IF,
    asks_to_forget,
    fiction_cues,
    inverted_condition,
    ironic,
    told_before,
    told_you,
)
from agent_memory.core.judge.beside import INTERJECTION, asks_how, describes
from agent_memory.core.judge.text import (
    CLAUSE,
    CONJ,
    HEDGES,
    MODAL,
    NEG,
    PRON,
    PUNCT,
    SELF,
    SELFPOSS,
    WORD,
    parse_sentences,
)
from agent_memory.core.judge.tokens import Token
from agent_memory.core.judge.values import NUMBER_AFTER_NO
from agent_memory.core.takeback import TAKES_BACK_BEFORE, says_not_so

# Typographic quotes, dashes and spaces read as their plain forms (the write path's quote
# matching, core.write.evidence, uses the same table).
TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_ABBREVIATIONS = {
    *("dr", "mr", "mrs", "ms", "st", "prof", "vs", "etc", "e.g", "i.e", "jr", "sr"),
    # Company and title forms that sit mid-sentence ("I work for Acme Inc. as an engineer").
    *("inc", "ltd", "co", "corp", "llc", "plc", "gmbh", "dept", "approx", "no", "mt", "ave"),
}
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n+")

# A source that is not a person speaking for themselves.
_NON_HUMAN_SOURCE = re.compile(
    r"\b(says|said|reads|read|shows|showed|displays|displayed|prints|printed)\s+(the|an|a|my|"
    r"this|that)\s+(error|message|log|logs|page|screen|prompt|popup|pop-up|banner|output|"
    r"website|site|app|form|email|sign|label|document|file|doc|warning|notification|"
    r"template|example|sample)\b|\b(the|an|this|that)\s+(error|message|log|page|screen|prompt|"
    r"popup|banner|output|website|app|form|email|sign|label|warning|notification|template)"
    r"\s+(says|said|reads|read|shows|showed|displays|prints|printed)\b"
)
_RETRACTION = re.compile(
    r"\b(not true|isn't true|is not true|wasn't true|was not true|that's false|that is false|"
    r"just kidding|only kidding|kidding|joking|jk|j/k|that was a lie|i lied|i was lying|"
    r"that's a lie|that is a lie|scratch that|never mind|nevermind|ignore that|"
    r"lol no|haha no|lied|sarcasm|sarcastic|sarcastically|scratch|i take that back|"
    r"take it back|actually|correction|wait|sorry|not really|oops|whoops|i meant)\b|"
    # a sentence that is only the joke's name, or opens by saying the speaker misspoke
    + TAKES_BACK_BEFORE
)
# A cue closing a first-person clause of its own after a comma ("I'm getting married, haha
# no."): it takes back that sentence (core.extraction.offline refuses it), not the claim.
_OWN_TAKE_BACK = re.compile(
    r"^\W*(?:(?:and|also|so|oh|but)\W+)*(?:i|i'm|im|we|we're|my|our)\b[^,;]*,\s*"
    r"(?:(?:lol|haha|hah|lmao)\W+)*$"
)
# A cue that corrects nothing: inside a later question that it does not open ("Cake ideas
# that kids actually like?"; "Actually, Bergen?" still takes the quote back), or "wait" as a
# verb: after a subject or a modal, or before what is waited for ("I can't wait to see her",
# "we wait for the bus", "I must wait 30 min before coffee"; "Wait 2 secs, no, Saturday" and
# "Wait, no, the day I wait tables" still take the quote back).
_QUESTION_OPENER = re.compile(r"^\W*(?:(?:oh|well|um|uh|er|hmm|ah|ok|okay|no|nah|lol|haha)\W+)*")
_WAITING_AFTER = re.compile(
    r"(?:\b(?:can't|cannot|can not|to|will|won't|could|couldn't|not|must|should|would|might|"
    r"may|i|we|you|they|the|a|long|this|that)|'ll|'d)\s+$"
)
# "sorry" apologising for something ("Sorry for the long message", "sorry about the typos",
# "sorry to bother you", "sorry if I'm slow"), not for a slip ("sorry for the confusion, ...",
# "I should say Bergen, sorry about that").
_APOLOGY = re.compile(
    r"\s+(?:for|about|to|if)\b(?!\s+(?:that|this|it)\b)"
    r"(?![^.!?]*\b(?:confus\w*|mistake|error|typo|mix-?up|"
    r"misunderstanding|wrong|meant|misspoke|correct\w*)\b)"
    # the whole sentence: an apology opening a clause of news ("Sorry for not saying earlier,
    # I live in Bergen now", "Sorry to say, I lost that job") may change the claim
    r"[^,;:]*$"
)
_WAITING_FOR = re.compile(r"^\s+(?:for|until|till|to)\b|^\s*-?\s*(?:lists?|times?|staff)\b")
# A next turn that opens by taking the previous one back. Stricter than _RETRACTION: a turn
# opening with "Sorry," or "Actually," usually goes on to something new.
_TAKEN_BACK = re.compile(
    r"^\W*(?:(?:lol|haha|hah|lmao|ha)\W+)?(?:no|nah|nope)?\W*(?:(?:i was|i'm|i am|just|only)\s+)?"
    r"(?:kidding|joking|jk|j/k)\b|^\W*(?:lol|haha|hah|lmao),? (?:no|nah|nope)\b|"
    r"^\W*(?:that|this|it)(?:'s| is| was)(?: all| just)? (?:a lie|a joke|not true|made up|untrue|"
    r"false)\b|^\W*(?:i lied|i made (?:that|it) up|scratch that|i take (?:that|it) back)\b"
)
# A retraction later in the quote's own sentence, after a clause word ("I got promoted, but
# that was a lie."): only the cues that take a claim back wherever they stand, not "sorry",
# "actually" or "wait", which a clause of the same sentence uses for other things.
_TAKEN_BACK_AFTER = re.compile(
    r"\b(?:(?:that|this|it)(?:'s| is| was)(?: all| just)? (?:a lie|a joke|not true|made up|untrue|"
    r"false)|i lied|i was lying|(?:just|only|i'm|i am) (?:kidding|joking)|jk|j/k|scratch that|"
    r"i take (?:that|it) back)\b"
)
# A sarcasm marker anywhere after the quote, its own sentence included ("I'm a genius /s").
_SARCASM = re.compile(r"(?<!\w)/s\b|\bsaid no ?(?:one|body) ever\b")


# A short later sentence that corrects the speaker: "Well, worked." "I mean, Lisbon."
# "Wait, no, I live in Milan": a "no" standing alone as the sentence opens answers what came
# before it; it does not negate the quote.
_ANSWER = re.compile(
    r"^\W*(?:(?:wait|oh|um|uh|er|erm|hmm|well|actually|sorry|ah|oops|whoops)\W+)*"
    r"(?:no|nope|nah)\s*[,.!;:-]+\s*"
)
# A comma and a new first-person subject open a new clause ("I don't live in Oslo anymore, I
# moved to Bergen"), unless the clause before it is a hedge ("I'm not sure, I ...").
_SPLICE = re.compile(r",\s+(?=(?:i|i'm|i've|i'd|i'll|we|we're|we've|my)\b)")
_HEDGED = re.compile(r"\b(?:sure|certain|know|think|remember|convinced|say|said|idea|tell)\W*$")
# Who a report is said to ("she says to me", "he told it to everyone"): after "to", one of
# these makes a say-word a report of the words before it, not an instruction.
_ADDRESSEES = frozenset(
    "me you him her us them everyone everybody anyone anybody people the a an my your his "
    "our their whoever".split()
)

# After the quote: words that open a clause of its own after a comma (with the pronouns), the
# content words such a clause needs to say something of its own, and the words that make it
# a comment on the quote's truth instead ("..., that's not true anymore", "..., I'm joking").
_SUBJECTS = frozenset("it he she they we you".split())
_OWN_CLAUSE_WORDS = 3
_COMMENTS = frozenset(
    """
    sure certain true untrue false wrong right wait kidding joking joke lie lying yet really
    anymore longer more mind change changed changing
    """.split()
)
_SELF_CORRECTION = re.compile(
    r"(?:^|[.!?\n])\s*(?:(?:well|or rather|i mean|rather)\s*,?\s*[\w'-]+(?:\s+[\w'-]+)?|"
    # the claim handed to someone else: "I own a boat. Well, my dad does."
    r"(?:well|actually)\s*,?\s*(?:my|our)\s+[\w'-]+\s+(?:does|do|is|did|was|has|had))"
    r"\s*(?:[.!?]|$)|"
    # ... or said to have ended: "I live in Leeds. Well, I did until last week."
    r"(?:^|[.!?\n])\s*(?:well|actually)\s*,?\s*(?:i|we)\s+(?:did|used to)"
    r"(?:\s+[\w'-]+){0,2}\s+until\b"
)


@dataclass(frozen=True, slots=True)
class Reading:
    """The premise to judge (the quote's whole sentences) and, if the turn voids the quote,
    why."""

    premise: str
    refusal: str | None = None


def read(quote: str, context: str | None, statement: str) -> Reading:
    """The quote in its turn (see the module docstring); without a context, the quote alone."""
    if context is None or not context.strip():
        return Reading(quote)
    folded, origin = _fold(context)
    needle, _ = _fold(quote)
    start = folded.find(needle) if needle else -1
    if start < 0:
        # Not locatable (an unusual Unicode form): the whole turn is the safe premise.
        return Reading(context, _refusal(folded, 0, len(folded), _fold(statement)[0]))
    end = start + len(needle)
    spans = _sentences(folded)
    first = next(k for k, (_, e) in enumerate(spans) if e > start)
    last = max(k for k, (s, _) in enumerate(spans) if s < end)
    lo, hi = spans[first][0], spans[last][1]
    premise = context[origin[lo] : origin[hi - 1] + 1].strip()
    kept = _fold(statement)[0]
    # A clause about telling the assistant ("I forgot to tell you: ...", "..., as I said")
    # frames the telling, not the claim (core.framing.told_you): the claim is read without it.
    near, far = lo, hi
    opening = folded[spans[first][0] : spans[first][1]]  # where irony or inversion would open
    claim = told_you(opening) if first == last else None
    if claim is not None and lo + claim[0] <= start and end <= lo + claim[1]:
        near, far = lo + claim[0], lo + claim[1]
        opening = folded[near:far]
    refusal = (
        _quoted(folded, start, end)
        or _refusal(folded, lo, hi, kept)
        or _framed(opening, kept)
        or _cut_away(folded[near:start], folded[end:far], kept, folded[start:end])
    )
    if refusal is None and (mark := _SARCASM.search(folded[end:])) is not None:
        refusal = f"its turn marks it as sarcasm ({mark.group(0)!r})"
    cue = _TAKEN_BACK_AFTER.search(folded[end:hi]) if refusal is None else None
    if cue is not None and cue.group(0) not in kept:
        refusal = f"its sentence takes it back ({cue.group(0)!r})"
    if refusal is None:
        refusal = retraction(folded[hi:], statement, folded[:hi])
    return Reading(premise or quote, refusal)


def retraction(later: str, statement: str, before: str | None = None) -> str | None:
    """Why text that follows a claim in its turn takes the claim back, or None. A correction
    that amends the later sentence right before it ("I'm 33. Oops, I mean 34.") is about that
    sentence, not the claim (core.amend). ``before``: the turn up to the claim's end (else the
    statement), for a bare wish right after it (core.takeback)."""
    parts = split(later)
    if len(parts) > 1:
        later = " ".join(
            p for k, p in enumerate(parts) if k == 0 or amended(parts[k - 1], p) is None
        )
    folded = _fold(later)[0]
    kept = _fold(statement)[0]
    claim = kept if before is None else _fold(before)[0]
    for k, (lo, hi) in enumerate(_sentences(folded)):
        sentence = folded[lo:hi].strip()
        for cue in _RETRACTION.finditer(sentence):
            if cue.group(0) in kept or _idle(sentence, cue):
                continue
            return f"a later sentence of its turn takes it back ({cue.group(0)!r})"
        if k == 0 and says_not_so(sentence, claim):  # "I bought a Ferrari. I wish!"
            return f"the sentence after it takes it back ({sentence.strip(' .!')!r})"
    if fix := _SELF_CORRECTION.search(folded):
        return f"a later sentence of its turn corrects it ({fix.group(0).strip(' .!?')!r})"
    return None


def _idle(sentence: str, cue: re.Match[str]) -> bool:
    """Whether a retraction cue in a later sentence corrects nothing (``_QUESTION_OPENER``,
    ``_WAITING_AFTER``, ``_WAITING_FOR``: this "wait" after a subject or a modal, or before
    what is waited for; or the noun: "the wait at security", "wait lists")."""
    opener = _QUESTION_OPENER.match(sentence)
    if sentence.endswith("?") and cue.start() > (opener.end() if opener else 0):
        return True
    if (
        cue.group(0) in ("lol no", "haha no", "not really")
        and _OWN_TAKE_BACK.match(sentence[: cue.start()])
        and not sentence[cue.end() :].strip(" .!")
    ):
        return True  # "I'm getting married, haha no.": that sentence, not the claim, is taken back
    if cue.group(0) == "sorry" and _APOLOGY.match(sentence, cue.end()):
        return True  # "Sorry for the long message.", "Sorry to bother you again."
    return cue.group(0) == "wait" and (
        _WAITING_AFTER.search(sentence[: cue.start()]) is not None
        or _WAITING_FOR.match(sentence[cue.end() :]) is not None
    )


def takes_back(next_turn: str) -> str | None:
    """Why the speaker's next turn takes their previous one back as it opens ("lol no",
    "I was kidding", "That was a lie."), or None."""
    if (cue := _TAKEN_BACK.search(_fold(next_turn)[0])) is not None:
        return f"the speaker's next turn takes it back ({cue.group(0).strip()!r})"
    return None


def split(text: str) -> list[str]:
    """The sentences of ``text``, as written (see the module docstring for where one ends)."""
    folded, origin = _fold(text)
    out: list[str] = []
    if not folded:
        return out
    for lo, hi in _sentences(folded):
        piece = text[origin[lo] : origin[hi - 1] + 1].strip()
        if piece:
            out.append(piece)
    return out


def _fold(text: str) -> tuple[str, list[int]]:
    """Casefolded text with one space for each whitespace run, and for every folded
    character the index of the original character it came from."""
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        piece = unicodedata.normalize("NFKC", ch).translate(TYPOGRAPHY).casefold()
        for sub in piece:
            if sub.isspace() and sub != "\n":
                if out and out[-1] in (" ", "\n"):
                    continue
                sub = " "
            out.append(sub)
            origin.append(i)
    folded = "".join(out)
    while folded and folded[-1].isspace():
        folded, origin = folded[:-1], origin[:-1]
    return folded, origin


def _sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, ends included; abbreviations do not end one."""
    spans: list[tuple[int, int]] = []
    begin = 0
    for match in _SENTENCE_END.finditer(text):
        word = re.search(r"([\w.]+)$", text[begin : match.start()])
        before = word.group(1).casefold() if word else ""
        if (
            match.group(0) == "."
            and before in _ABBREVIATIONS
            and (before != "no" or NUMBER_AFTER_NO.match(text, match.end()))
        ):
            continue  # "Dr. Weber", "No. 5"; "..., meat no. Oh, and eggs" ends a sentence
        spans.append((begin, match.end()))
        begin = match.end()
    if begin < len(text):
        spans.append((begin, len(text)))
    return spans or [(0, len(text))]


def _cut_away(before: str, after: str, kept: str, quote: str = "") -> str | None:
    """What the quote's own sentence says around it that changes it: a negation, hedge,
    report or condition before it that no clause word ("but", "and", "so") closes off; a
    negation, hedge or report right after it in the same clause; a condition or report
    anywhere after it; a question mark ending the sentence. A question or hedge that is a
    clause of its own after the quote's clauses changes nothing before it ("I do pilates,
    will that help my knees?"; core.framing.told_before)."""
    words = set(kept.replace(",", " ").replace(".", " ").split())
    told = told_before(before + quote + after)
    if told is not None and told >= len(before + quote):
        # A question or hedge after the quote's clause is a clause of its own: it governs
        # what follows it, not the clauses told before it (core.framing.told_before). The
        # rest of those clauses is still read.
        after = after[: told - len(before + quote)]
    before = _ANSWER.sub("", before, count=1)
    # The quote's own first words count for a splice right before it ("..., I moved to ...").
    joined = before + quote
    for splice in reversed(list(_SPLICE.finditer(joined))):
        if not _HEDGED.search(joined[: splice.start()]):
            before = before[min(splice.end(), len(before)) :]
            break
    tokens = [t for s in parse_sentences(before, statement=False) for t in s.tokens]
    for k, tok in enumerate(tokens):
        if tok.cls not in (NEG, MODAL) or tok.text in words or tok.form == "can":
            continue
        if not any(t.cls in (CLAUSE, CONJ) for t in tokens[k + 1 :]):
            return f"its sentence says {tok.text!r} before the quote, which the quote cuts away"
    tokens = [t for s in parse_sentences(after, statement=False) for t in s.tokens]
    in_clause = True
    aside = False  # in "..., if that matters" (core.framing.ASIDE_IF): it conditions nothing
    for k, tok in enumerate(tokens):
        if tok.cls in (CLAUSE, CONJ) or _new_clause(tokens, k):
            in_clause = aside = False
        if tok.text in words or aside:
            continue
        condition = tok.cls == MODAL and tok.form in ("if", "unless", "when", "say", "claim")
        if condition and k:
            near = " ".join(t.text for t in tokens[max(k - 2, 0) : k + 6])
            if re.search(IDIOM_IF, near):
                continue  # "I don't fly if I can avoid it": whenever one can (core.framing)
            if re.match(r"(?:\S+ ){0,2}" + ASIDE_IF, near):
                aside = True
                continue
        if condition and _infinitive(tokens, k):
            continue  # "when to come back", "she says to use ...": no condition, no report
        if in_clause and (_elaborates(tokens, k) or _listed(tokens, k)):
            continue  # "..., not just this email", "..., fish yes, meat no"
        if in_clause and describes(tokens, k, words):
            continue  # "I've stopped badminton since joining, no time at all."
        if not in_clause and tok.cls == MODAL and asks_how(tokens, k):
            continue  # "... and I don't know what to say to her"
        if (in_clause and tok.cls in (NEG, MODAL) and tok.form != "can") or condition:
            return f"its sentence says {tok.text!r} after the quote, which the quote cuts away"
    if after.rstrip().endswith("?") and not kept.rstrip().endswith("?"):
        return "its sentence is a question, which the quote cuts away"
    return None


def _infinitive(tokens: list[Token], k: int) -> bool:
    """Whether the condition or report word ``tokens[k]`` opens an infinitive, not a clause
    that governs the quote: "when to come back" asks when; "she says to use her cream"
    passes on an instruction. A report to an addressee ("..., she says to me") still
    reports."""
    if k + 2 >= len(tokens) or tokens[k + 1].text != "to":
        return False
    return tokens[k].form in ("if", "unless", "when") or tokens[k + 2].text not in _ADDRESSEES


def _new_clause(tokens: list[Token], k: int) -> bool:
    """Whether a comma at ``k`` opens a clause of its own after the quote: a personal subject
    and at least ``_OWN_CLAUSE_WORDS`` content words, none of them a hedge or a comment on
    the truth of what came before ("..., I will ask the lab for reimbursement", "..., it should
    do exponential backoff"). Its negations and modals are its own. A bare opinion ("..., I
    think.", "..., I'm not sure."), a clause about the quote ("..., that's not true anymore",
    "..., I'm joking of course", "..., it might change next month") and an alternative
    ("..., or I might ...", no subject right after the comma) still govern the quote."""
    if tokens[k].cls != PUNCT or tokens[k].text != "," or k + 1 >= len(tokens):
        return False
    opener = tokens[k + 1]
    if not (opener.cls in (SELF, SELFPOSS, PRON) or opener.text in _SUBJECTS):
        return False
    clause = _to_clause_end(tokens[k + 2 :])
    if any(
        t.text in _COMMENTS or t.cls == NEG or (t.cls == MODAL and t.form in HEDGES) for t in clause
    ):
        return False
    return sum(t.cls == WORD for t in clause) >= _OWN_CLAUSE_WORDS


def _elaborates(tokens: list[Token], k: int) -> bool:
    """Whether "not" at ``k``, right after a comma, widens the quote rather than takes it
    back: "..., not just this email", "..., not only at work". Any other "not" after a comma
    still refuses, also one before a thing ("..., not weekends", "..., not Oslo, Bergen"; a
    "no" that goes on with what ended: core.judge.beside.describes)."""
    if k == 0 or tokens[k - 1].cls != PUNCT or tokens[k - 1].text != ",":
        return False
    following = tokens[k + 1] if k + 1 < len(tokens) else None
    return tokens[k].text == "not" and following is not None and following.text in ("just", "only")


def _listed(tokens: list[Token], k: int) -> bool:
    """Whether "no" at ``k`` answers one item of a list after the quote, a word of its own
    between commas beside another item answered yes or no: "I'm pescatarian, fish yes, meat
    no": the meat is what is refused, not what the quote says. Not alone ("I'm vegan, hell
    no."), not after an interjection ("..., lol no", "..., wait no, 31"), nor before a thing
    ("..., no time at all": _elaborates)."""
    if tokens[k].text.lower() != "no" or k == 0:
        return False
    item = tokens[k - 1]
    opened = k == 1 or tokens[k - 2].cls == PUNCT
    closed = k + 1 == len(tokens) or tokens[k + 1].cls == PUNCT
    listing = any(
        t.text.lower() in ("yes", "no") and j != k and j > 0 and tokens[j - 1].cls == WORD
        for j, t in enumerate(tokens)
    )
    return (
        item.cls == WORD and opened and closed and listing and not INTERJECTION.fullmatch(item.text)
    )


def _to_clause_end(tokens: list[Token]) -> list[Token]:
    """``tokens`` up to the first comma or clause word."""
    end = next((j for j, t in enumerate(tokens) if t.cls in (PUNCT, CLAUSE, CONJ)), len(tokens))
    return tokens[:end]


def _framed(sentence: str, kept: str) -> str | None:
    """A condition said by inversion ("Were I rich, ...") or ironic agreement ("Oh sure, ...")
    opening the quote's sentence (core.framing)."""
    if (cue := inverted_condition(sentence)) is not None and "if" not in kept.split():
        return f"its sentence is a condition ({cue!r}), not a statement"
    if (cue := ironic(sentence)) is not None:
        return f"its sentence opens as ironic agreement ({cue!r})"
    return None


def _quoted(text: str, start: int, end: int) -> str | None:
    """The quote stands inside a pair of double quotation marks of its turn."""
    before = text[:start].count('"')
    if before % 2 == 1 and '"' in text[end:]:
        return "the quote is itself quoted text in its turn, not the user's own words"
    return None


def _refusal(text: str, lo: int, hi: int, statement: str) -> str | None:
    """Fiction or a hypothetical up to the quote's sentences, a non-human source in them, or
    a request to forget what they say ("Please forget that I see a therapist.")."""
    if asks_to_forget(text[lo:hi]):
        return "its sentence asks to forget it"
    for cue in fiction_cues(text[:hi]):
        if cue not in statement:
            return f"its turn frames it as fiction or a hypothetical ({cue!r})"
    if source := _NON_HUMAN_SOURCE.search(text[lo:hi]):
        return f"its sentence quotes another source ({source.group(0)!r})"
    return None

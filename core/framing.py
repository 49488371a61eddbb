"""Frames that take a sentence out of the user's mouth, read the same way by the judge
(core.judge.context) and the offline extractor (core.extraction.offline), so that what the
extractor proposes is what the judge would confirm, and neither stores what the other refuses.

- fiction, role-play and hypotheticals ("In my novel, I am a detective.", "let's pretend");
- a condition said by inversion ("Were I rich, I would buy a castle.", "Had I known, ...",
  "Should we miss the train, ..."): the sentence states neither the condition nor its result;
- ironic agreement: a strong opener ("Oh sure, ...", "Yeah right, ...", "As if ...") always; a
  bare agreeing opener ("Sure, ...", "Right, ...", "Of course, ...") only with an exaggerated
  attitude ("I just love ...", "I totally adore ...") or a grandiose or self-deprecating
  identity ("I'm the Pope", "I'm a genius", "I'm an idiot"). "Sure, I'm free on Friday." is a
  sincere answer and is none of these.
- a question or hedge at the end of a sentence governs its own clause, not an independent
  clause told before it (``told_before``): "I do pilates 3x a week, will that help with ski
  legs?" tells "I do pilates 3x a week"; "I'm moving to Oslo, maybe?" and "I'll move to Oslo,
  if I get the job" tell nothing (the extractor keeps the second whole, as said:
  core.extraction.refusals.conditioned); an aside after a comma that says why the claim is
  told ("I'm vegan, if that matters": ``ASIDE_IF``) is no condition.

One frame puts a sentence back in the user's mouth: a clause about telling the assistant
("I forgot to mention that ...", "Not sure if I told you, but ...", "As I said, ...", "..., I
think I told you") is about the telling, not the told; its doubt or report does not reach the
claim (``told_you``).

All functions take text folded to lower case with plain apostrophes (the judge's fold); the
extractor lowers its sentence first. Limits: word lists, not a model of irony: sarcasm with no
opener ("I love Mondays.") is read literally, and a sincere "Sure, I'm the organiser" with an
identity on the list is refused (the safe direction: an inference, not a fact).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FICTION = re.compile(
    r"\b(pretend|pretending|imagine|imagining|hypothetically|hypothetical|fictional|"
    r"roleplay|role-play|role play|roleplaying|role-playing|let's say|lets say|what if|"
    r"make-believe|i dreamt|i dreamed|my character|"
    r"in (?:the|my|a|this|our|his|her|their) (?:[\w&'-]+ )?(?:novel|story|book|game|film|"
    r"movie|play|script|screenplay|campaign|dream|fiction|scene|sketch|fanfic|comic|poem|"
    r"novella|manuscript|roleplay|rpg|larp)|"
    # "For my D&D campaign, I'm a paladin": a fronted frame naming a game or a story.
    r"(?:for|in) (?:the|my|a|this|our) (?:[\w&'-]+ ){0,2}(?:campaign|game|novel|story|"
    r"screenplay|script|play|roleplay|rpg|larp|fanfic|fan fiction))\b"
)

# "Were I rich", "Had we known", "Should my flight be late": an if-clause without "if".
_INVERTED = re.compile(
    r"^\W*(?:(?:and|but|so|well|oh|honestly)\W+)*(?P<cue>(?:were|had|should)\s+(?:i|we|you|he|"
    r"she|they|it|my|our|the|his|her|their)\b)"
)

_STRONG_IRONY = re.compile(
    r"^\W*(?P<cue>oh,?\s+sure|yeah,?\s+(?:right|sure)|sure,?\s+sure|as if|like i'd ever|"
    r"like i would ever)\b"
)
_AGREEING = re.compile(
    r"^\W*(?P<cue>sure|right|yeah|yep|yes|of course|totally|absolutely|definitely|oh)\b\s*[,.!]"
)
# What an ironic "Sure," goes on to: an exaggerated attitude, or a claim nobody makes of
# themselves sincerely in passing (grandiose, or self-deprecating).
_OVERSTATED = re.compile(
    r"\b(?:just|simply|totally|absolutely|so|really) (?:love|adore|enjoy|live for)\b|"
    r"\b(?:can't|cannot) wait\b|\blove nothing more\b|\bmy favou?rite (?:thing|part|hobby)\b|"
    r"\bi(?:'m| am) (?:the|a|an|your|like a|basically a|basically the|totally a|obviously a)?\s*"
    r"(?:pope|king|queen|president|prime minister|emperor|empress|god|goddess|messiah|"
    r"dalai lama|batman|superman|spider-?man|santa(?: claus)?|tooth fairy|easter bunny|"
    r"billionaire|millionaire|genius|rocket scientist|astronaut|supermodel|movie star|rock ?star|"
    r"royalty|prince|princess|saint|wizard|superhero|idiot|moron|fool|worst|total failure|"
    r"failure|disaster|loser|terrible person|monster)\b"
)


# "every trick in the book", "any excuse in the book": an idiom, no story.
_IDIOM = re.compile(r"\b(?:every|any|oldest|each)\s+(?:[\w'-]+\s+){0,2}$")


def fiction_cues(text: str) -> Iterator[str]:
    """The fiction or hypothetical cues in ``text`` (folded), in order."""
    for cue in FICTION.finditer(text):
        if not _IDIOM.search(text[: cue.start()]):
            yield cue.group(0)


def fiction(text: str) -> str | None:
    """The first fiction or hypothetical cue in ``text`` (folded), or None."""
    return next(fiction_cues(text), None)


def inverted_condition(sentence: str) -> str | None:
    """The cue when ``sentence`` (folded) opens with a condition said by inversion, or None.
    A question ("Had I told you?") is left to the question rules."""
    m = _INVERTED.match(sentence)
    if m is None or sentence.rstrip().endswith("?"):
        return None
    return m.group("cue")


def ironic(sentence: str) -> str | None:
    """The opener when ``sentence`` (folded) is ironic agreement (module docstring), or None."""
    if (m := _STRONG_IRONY.match(sentence)) is not None:
        return m.group("cue")
    if (m := _AGREEING.match(sentence)) is not None and _OVERSTATED.search(sentence[m.end() :]):
        return m.group("cue")
    return None


# Openers that carry nothing ("And also, ...", "Quick question: ...").
LEAD = re.compile(
    r"^(?:(?:and|also|so|but|ok|okay|oh|well|hmm|now|then|btw|anyway|actually|one more thing|"
    r"last thing|separate question|another question|quick question)\b[,.:!\s]*)+",
    re.IGNORECASE,
)

# A clause in the speaker's own voice again after reported speech: "..., so I'm out of the
# race", "..., but I'm in York" (core.extraction.offline keeps reported clauses verbatim only).
OWN_VOICE = re.compile(r"^(so|but|anyway|and so|which is why)\b", re.IGNORECASE)

# A question that lost its question mark: it asks, it does not tell.
ASKS = re.compile(
    r"^(?:what|what's|whats|how|how's|where|when|who|whom|whose|which|why|is there|are there|"
    r"is it|are you|do you|does|did you|can you|could you|will you|can u|could u|should i|"
    r"shall i|any (?:ideas?|tips?|suggestions?|recommendations?|thoughts?)|"
    r"(?:is|are|was|were|am|does|did|can|could|should|shall|will|would)\s+(?=\w))\b",
    re.IGNORECASE,
)

# The "if" of an apology for how things are ("Sorry if I'm slow tonight, ..."): no condition.
# One for what may come still is ("Sorry if I don't play anymore next year", "I'm sorry if I
# move to Oslo ...").
_APOLOGY_IF = (
    r"(?:(?<=sorry )|(?<=apologies ))if (?:i'm|i am|i was|this is|this was|that's|that was|"
    r"it's|it was|my \w+ (?:is|was|are|were)|i (?:upset|\w+ed)\b|i (?:sound|seem))\b"
    r"(?![^,.;!?]*\b(?:will|won't|'ll|next|ever|going to|gonna|soon|anymore|tomorrow|by)\b)"
)
# "if I can help it" after what it qualifies: whenever one can, no condition on the claim ("I
# don't fly if I can avoid it"). Not "if possible" ("I'll take the job if possible" is one).
IDIOM_IF = r"(?<=\w )if (?:i|we) can (?:help|avoid) it\b"
# An aside after a comma that conditions nothing: it says why the claim is told ("I quit
# Google last week, if that matters", "I'm vegan, if it helps", "we're 6, if you must know").
ASIDE_IF = (
    r"(?<=, )if (?:(?:that|it)(?:'s| is)? (?:matters?|helps?|relevant|useful|important)|"
    r"you (?:must|need to|want to) know|you(?:'re| are) (?:wondering|curious|interested)|"
    r"(?:that|it) makes sense|you don't mind|you please)\b"
)
# A hedge or hypothetical: the words around it are not claimed.
HEDGE = re.compile(
    rf"\b((?!{_APOLOGY_IF})(?!{IDIOM_IF})(?!{ASIDE_IF})if|would(?! rather| prefer)|could|might|"
    r"maybe|perhaps|probably|hope|wish|suppose|imagine|pretend|what if|unless|someday|let's say|"
    r"lets say|say i|hypothetically|in theory)\b",
    re.IGNORECASE,
)
# Someone (the user too: "I told him ...", "I think ...") reporting speech or a belief: what it
# reports is the reporter's claim, not the user's.
REPORTING = re.compile(
    r"\b(said|says|saying|told|tells|telling|thinks|thought|believes|believed|claims|claimed|"
    r"insists|insisted|reckons|swears|swore|mentioned|suggested|heard|wrote|texted|asked)\b|"
    # A present-tense verb only after a subject: "please suggest email" is a request.
    r"\b(i|we|they|people|everyone)\s+(?:\w+\s+)?(think|believe|say|reckon|claim|insist|"
    r"guess|suppose|heard)\b|\baccording to\b|\b(apparently|supposedly|allegedly|reportedly)\b|"
    # Hearsay and announcements: "word is ...", "rumour has it", "I hear ...".
    r"\b(?:word is|rumou?rs?|rumou?red|i hear|announced|convinced|seems? to think)\b",
    re.IGNORECASE,
)


# A polite question that asks for a way of answering for good ("Could you answer in Spanish
# from now on?", "Can you always cite your sources?", "Can you stop adding disclaimers?"): the
# user means it as much as "Please always ..." (core.search.standing). Read narrowly, as an
# adversarial review found one-off questions that merely hold "always" or "anymore": the
# lasting word sits right after "you" or closes the question, the verb is one of answering,
# "stop" only stops a way of answering, and nothing in it asks why or what, points at this
# one time, offers an alternative or sets a condition ("Could you explain why you always do
# that?", "Can you keep it short this time?", "Can you always give sources, or only
# sometimes?", "... when I ask?"); "Will you always ...?" asks what the assistant will do.
_ANSWERING = (
    r"(?:use|give|write|answer|respond|reply|explain|cite|include|avoid|stick to|switch to|"
    r"format|speak|call me|keep|add|quote|spell|show|put|mention|bring up)"
)
_ANSWERING_ING = (
    r"(?:adding|using|apologi[sz]ing|saying|calling me|giving|including|putting|writing|"
    r"suggesting|recommending|repeating|summari[sz]ing|ending|starting|replying|responding|"
    r"answering|bolding|formatting|quoting|citing|mentioning)"
)
_FOR_GOOD = r"(?:from now on|going forward|from here on|in (?:the )?future)"
_OPENER = r"^\W*(?:(?:also|and|oh|ok|okay|so|btw|hey)\W+)*"
_CAN_YOU = r"(?:can|could|would)\s+(?:you|u)\s+"
_PLEASE = r"(?:please\s+|pls\s+|just\s+)*"
_STOP_ANSWERING = rf"stop\s+{_ANSWERING_ING}\b"
# "Please stop adding emojis.", "Can you stop adding disclaimers?": to stop a way of answering
# is for good ("Please stop overthinking it and just give me the code" is not one); read by
# core.search.standing for an instruction told or asked.
STOPS_ANSWERING = re.compile(rf"{_OPENER}(?:{_CAN_YOU})?{_PLEASE}{_STOP_ANSWERING}", re.I)
_ASKS_FOR_GOOD = re.compile(
    rf"{_OPENER}{_CAN_YOU}{_PLEASE}(?:(?:always|never)\s+{_ANSWERING}\b[^?]*|"
    rf"{_STOP_ANSWERING}[^?]*|"
    rf"(?:not\s+)?{_ANSWERING}\b[^?]*\b{_FOR_GOOD}\W*|not\s+{_ANSWERING}\b[^?]*\b"
    r"(?:anymore|any more)\W*)\?+\W*$",
    re.IGNORECASE,
)
# What makes such a question one request, not a way of answering for good.
_ONE_OFF = re.compile(
    r"\b(?:why|what|how|which|who|whom|whose|where|when|whenever|if|unless|that|this time|"
    r"today|tonight|now|or)\b",
    re.IGNORECASE,
)


def asks_for_good(sentence: str) -> bool:
    """Whether ``sentence`` is a polite question asking the assistant for a way of answering
    for good ("Could you answer in Spanish from now on?"): a request in the user's own words,
    kept as said by the extractor and confirmed word for word by the judge."""
    sentence = sentence.replace("\u2019", "'").strip()
    if _ASKS_FOR_GOOD.match(sentence) is None:
        return False
    # "from now on" holds "now", which a one-off "right now" means alone.
    return _ONE_OFF.search(re.sub(_FOR_GOOD, " ", sentence, flags=re.IGNORECASE)) is None


# A request to forget what the user said ("Please forget that I see a therapist.", "Can you
# delete what I told you about my ex?", "Don't remember that.", "I want you to forget my
# address"): an instruction about memory, which the agent carries out (memory_forget), never
# a statement to keep; it names what is to go.
_OPENS = r"^\W*(?:(?:ok|okay|oh|and|also|so|but|actually|hey|um|just)\W+)*"
# Who asks: "please", "can you", "I'd like you to".
_ASKER = (
    r"(?:please\s+|pls\s+|plz\s+|(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?|"
    r"i\s*(?:'d\s+like|\s+would\s+like|\s+want|\s+need)\s+you\s+to\s+)"
)
_TOLD = (
    r"(?:what|whatever|everything|anything|all)\s+i(?:'ve)?\s+(?:said|told|mentioned|shared|wrote)"
)
_FORGET_REQUEST = re.compile(
    # "Please forget that I see a therapist", "Can you forget my address", "I'd like you to
    # delete what I told you"
    rf"{_OPENS}{_ASKER}(?:forget|unlearn)\b|"
    # unasked, only about what was said: "Forget what I told you about my ex", "forget I said
    # anything", "forget that I mentioned it"; not "Forget the beach, ...", "Forget my old job"
    rf"{_OPENS}(?:forget|unlearn)\s+(?:{_TOLD}|(?:that\s+)?i\s+(?:said|told|mentioned)|"
    r"that\s+i(?:'m|'ve)?\b)|"
    rf"{_OPENS}{_ASKER}?(?:delete|erase|remove|wipe)\s+(?:{_TOLD}|everything\s+you\s+know|"
    r"[^.!?]{0,40}\bfrom\s+(?:your|the)\s+memory)|"
    # "Don't remember that", "pls dont store that ...", "don't keep a record of my salary"
    rf"{_OPENS}(?:please\s+|pls\s+)?(?:don't|dont|do\s+not|never|stop)\s+(?:remember|remembering|"
    r"store|storing|memori[sz]e|memori[sz]ing)\s+(?:that|this|it|what|anything|my|the\s+fact)\b|"
    rf"{_OPENS}(?:please\s+|pls\s+)?(?:don't|dont|do\s+not|never)\s+(?:keep|make)\s+"
    r"(?:a\s+)?(?:record|note)\s+of\b",
    re.IGNORECASE,
)


def asks_to_forget(sentence: str) -> bool:
    """Whether ``sentence`` asks the assistant to forget or not keep what the user said:
    neither the extractor nor the judge keeps such a sentence, nor the offline summary its
    words. "I forget my keys all the time" and "Delete the second paragraph" are no such
    request."""
    return _FORGET_REQUEST.search(sentence.replace("\u2019", "'")) is not None


# A credential told with its value ("My password is hunter2", "bank PIN: 4921", "the wifi
# password for the cabin is ..."): never kept, neither as said nor phrased, nor its words in
# a summary. "My password manager is 1Password" and "I forgot my password" tell none.
_SECRET = re.compile(
    r"\b(?:password|passcode|passphrase|pin(?:\s+(?:code|number))?|cvv|cvc|security\s+code|"
    r"social\s+security\s+number|ssn|api\s+key|secret\s+key|private\s+key|access\s+token|"
    r"seed\s+phrase|recovery\s+phrase|(?:2fa|mfa|one[- ]time|verification)\s+code|otp|"
    r"(?:card|account|routing)\s+number|iban)"
    r"(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w'-]+(?:\s+[\w'-]+)?)?"
    r"(?:\s+(?:is|was|are|'s)\s+|\s*[:=]\s*)\S",
    re.IGNORECASE,
)


def tells_a_secret(sentence: str) -> bool:
    """Whether ``sentence`` tells a credential with its value (``_SECRET``): memory is no
    place for it, whoever could read the store later."""
    return _SECRET.search(sentence.replace("\u2019", "'")) is not None


def reports(text: str) -> bool:
    """Whether ``text`` reports what someone said or believes ("My sister says I live in Leeds
    now", "Apparently the wedding moved"): kept as the user's words, it changes nothing the
    user said (core.write.stale, core.extraction.corrections). Limits, the safe direction: a
    sentence holding a report anywhere retires nothing, also when the user's own clause beside
    it states a change ("We moved to Leeds, my sister said York was too expensive", "I told
    my boss I quit, I work at Meta now"): a report said after the clause it covers ("The
    wedding moved to June, apparently", "..., my mom told me") and a denial after one ("My
    sister says I moved, but I still live in Leeds") read like the user's own change."""
    return REPORTING.search(text) is not None


def asks(clause: str) -> bool:
    """Whether ``clause`` opens like a question, with or without its mark."""
    return ASKS.match(LEAD.sub("", clause.strip())) is not None


# A clause break inside a sentence: a comma, semicolon or dash before the next clause.
# A consequence opened by "so" is a clause too: its hedge is about the consequence ("cody only
# eats like 4 foods so maybe something plain too"). Not "and I ..." / "but I ...": as often as
# not they take the clause before back ("I'm moving to Oslo but I might not go after all").
CLAUSE_BREAK = re.compile(r"\s*(?:[,;]|\s[-\u2013\u2014]{1,2})\s+|\s+(?=so\s)", re.IGNORECASE)
# A tag that asks whether what came before is so: it doubts it ("I'm 30, am I right?", "I'm
# pregnant, is that even true?"); not one that asks how it is judged ("I sleep 10 hours a
# day, is that normal?", "... from Feb 2 to Feb 9, is that a good time to see the lights?").
_TAG = re.compile(
    r"^(?:am i|is that|is this|is it|isn't it|aren't i|right|correct|true|yes or no)\b"
    r"(?!\s+(?:normal|ok|okay|alright|fine|healthy|safe|enough|too (?:much|little|many|few|"
    r"late|early|old|young)|a (?:good|bad) (?:time|idea|age|amount)|common|typical|bad|good)\b)",
    re.I,
)
# A clause that depends on another or supposes: what follows it may not be claimed. Not a
# question "when" opens ("..., when should I leave home?"); "or" always offers another case
# ("..., or should I stay in Bergen?", "..., or was it peanuts?").
DEPENDENT = re.compile(
    r"^(?:if|when(?!\s+(?:should|shall|do|does|can|could|will|would|is|are)\b)|whenever|"
    r"unless|once|assuming|suppose|supposing|say|imagine|in case|because|since|although|"
    r"though|while|as long as|as soon as|before|after|until|even if|or|and if|but if)\b",
    re.IGNORECASE,
)
# A short question that asks for help, not whether what came before is so ("..., any
# tricks?", "..., thoughts?", "..., advice?"): the clauses before it are told.
_HELP_WANTED = re.compile(
    r"^(?:any\s+|some\s+|got\s+any\s+)?(?:tips?|tricks?|ideas?|thoughts?|suggestions?|"
    r"recommendations?|recs?|advice|help|pointers?|hints?|ideas)\b",
    re.IGNORECASE,
)
# A clause whose subject is what came before ("it", "that", "which"): its hedge is about that.
_POINTS_BACK = re.compile(r"^(?:it|it's|that|that's|this|which|all that)\b", re.IGNORECASE)
_MIN_ASKING_WORDS = 3  # "..., maybe?" or "..., right?" doubts the whole sentence
# A clause of the user's own guess after the claim ("..., so I guess she's not satisfied with
# me yet"): it hedges what it says itself, as "maybe" does; alone ("..., I guess") it doubts
# the whole sentence (too short to be a clause).
_GUESSING = re.compile(r"^(?:(?:so|but|and|though)\s+)?(?:i|we)\s+(?:guess|think|suppose|reckon)\b")
# What a guess about the claim itself opens with ("it", "that", "this"; or it holds a number):
# such a guess doubts the claim.
_ABOUT_THE_CLAIM = re.compile(r"\s+(?:it|it's|its|that|that's|this|they|they're)\b")


# Words of a hedged clause that say nothing of their own: what is left of "but I might not",
# "and I'm not so sure", "but we may not" is a doubt about the clause before it.
_EMPTY_HEDGE = frozenset(
    """
    and but so or i i'm i've i'd i'll we we're we've might may could would should will not
    maybe probably perhaps sure certain know think guess be do it that this yet really
    about don't doesn't won't wouldn't can't hope though
    """.split()
)


def _elliptical(clause: str) -> bool:
    """Whether a hedged clause holds fewer than two words of its own (``_EMPTY_HEDGE``)."""
    words = [w.strip(".,!?;:") for w in clause.lower().split()]
    return sum(1 for w in words if w and w not in _EMPTY_HEDGE) < 2


# What a question about the clause before it is made of, beside its auxiliary and pronoun:
# "..., should I though?", "..., am I really?" doubt it.
_DOUBTING = frozenset(
    """
    though tho really even actually ever seriously truly honestly did does am is are was were
    have has had can shall he she they you
    """.split()
)


def _asks_its_own(clause: str) -> bool:
    """Whether a short question asks something of its own ("should I worry?": a word beside
    its auxiliary and pronoun), rather than whether the clause before it holds ("should I
    though?", "am I really?")."""
    if not asks(clause):
        return False
    words = [w.strip(".,!?;:") for w in clause.lower().split()]
    return any(w and w not in _EMPTY_HEDGE and w not in _DOUBTING for w in words)


def told_before(sentence: str) -> int | None:
    """Where the clauses that tell something end, in a sentence whose later clauses ask or
    hedge ("The picanha comes from a farm in Goias, maybe I can put it on the menu?" -> the
    end of "... in Goias"), or None when no clause before them stands on its own.

    A question or hedge governs its own clause and what follows, not an independent clause
    said before it. So the sentence is cut before the first clause that asks or hedges when
    that clause is a clause (at least ``_MIN_ASKING_WORDS`` words: a tag such as "maybe?",
    "right?" or "or not?" doubts everything before it; a short request for help, "any
    tricks?", "advice?", asks for something else) that does not itself condition what came
    before ("..., if I get the job", "..., or should I stay?"; "..., when should I leave?"
    asks) nor open by pointing back at it ("..., it might change next month") nor say nothing
    of its own ("..., but I might not", "..., should I though?"; "..., should I worry?" asks)
    nor ask whether it is so ("..., is that right?", "..., is that even true?"; "..., is that
    normal?" asks how it is judged), and when nothing before the
    cut opens with a condition or supposition ("If I get the job, ..."). Whether what is left
    says enough is the caller's to judge."""
    breaks = list(CLAUSE_BREAK.finditer(sentence))
    if not breaks:
        return None
    starts = [0] + [m.end() for m in breaks]
    ends = [m.start() for m in breaks] + [len(sentence.rstrip())]
    for i in range(1, len(starts)):
        clause = sentence[starts[i] : ends[i]]
        marked = i == len(starts) - 1 and sentence.rstrip().endswith("?")
        guess = _GUESSING.match(clause)
        if guess and (_ABOUT_THE_CLAIM.match(clause, guess.end()) or re.search(r"\d", clause)):
            return None  # "..., I think it went up to $1300", "..., I guess that's still right"
        if not (marked or HEDGE.search(clause) or asks(clause) or guess):
            continue
        short = len(clause.split()) < _MIN_ASKING_WORDS and not _HELP_WANTED.match(clause)
        if short or DEPENDENT.match(clause):
            return None
        if _POINTS_BACK.match(clause):  # "..., it might change next month": about the claim
            return None
        if _TAG.match(clause):  # "..., is that right?": a doubt about the clause before
            return None
        if _elliptical(clause) and not (marked and _asks_its_own(clause)):
            return None  # "..., but I might not"; not "..., should i worry?"
        before = zip(starts[:i], ends[:i], strict=True)
        if any(DEPENDENT.match(sentence[s:e].strip()) for s, e in before):
            return None
        return ends[i - 1]
    return None


# A clause about telling the assistant (``told_you``). "tell" and "told" only with "you": "I
# forgot to tell my wife I'm going" reports what the wife was not told. Apostrophes are plain
# or typographic; the judge passes folded text, the extractor the turn as written.
_APOSTROPHE = "['\u2019]"
_YOU = r"(?:to\s+)?(?:you(?:\s+guys|\s+all)?|u|ya|y" + _APOSTROPHE + r"all)"
_SAID_WHAT = r"(?:\s+(?:this|that|it|something|about (?:this|that|it)))?"
_WHEN = (
    r"(?:\s+(?:before|already|earlier|yet|lately|last time|yesterday|the other day|"
    r"last week|a while ago))?"
)
_TELL_YOU = rf"(?:tell|told)\s+{_YOU}"
_MENTION = rf"(?:mention|mentioned|share|shared)(?:\s+{_YOU})?"
_SAY = rf"(?:say|said|add)(?:\s+{_YOU})?"
_FRAMES = (
    # "I forgot to mention that", "I have to tell you", "I should've said". Not "I meant to
    # tell you" nor "I wanted to tell you": what follows is as often taken back ("I wanted to
    # tell you I'm quitting, but I changed my mind").
    rf"i\s+(?:(?:forgot|forget|have|need|needed)\s+to\s+(?:{_TELL_YOU}|{_MENTION}|{_SAY}|"
    rf"update\s+{_YOU})|should(?:\s+have|{_APOSTROPHE}ve)\s+(?:{_TELL_YOU}|mentioned|said))",
    # "I ought to say", "I must say", "I should mention", "I must admit": announcing the
    # user's own statement. Not "I should say" (as often an estimate: "I should say it's 5 km").
    rf"i\s+(?:ought\s+to\s+(?:{_SAY}|{_MENTION}|{_TELL_YOU}|admit)|"
    rf"must\s+(?:{_SAY}|{_MENTION}|{_TELL_YOU}|admit)|should\s+(?:{_MENTION}|{_TELL_YOU}|add)|"
    r"(?:have|need)\s+to\s+admit)",
    # "not sure if I told you", "dunno if i mentioned it", "I can't remember whether I said"
    rf"(?:i{_APOSTROPHE}m\s+|i\s+am\s+)?(?:not\s+sure|unsure|dunno|idk|no\s+idea|"
    rf"(?:i\s+)?(?:don{_APOSTROPHE}t|do\s+not|can{_APOSTROPHE}t|cannot)\s+(?:know|remember|recall)|"
    rf"(?:i\s+)?forg[eo]t)\s+(?:if|whether)\s+i(?:{_APOSTROPHE}ve|\s+have)?\s+"
    rf"(?:ever\s+|already\s+)?(?:{_TELL_YOU}|{_MENTION}|{_SAY})",
    # "as I said", "like I told you"
    rf"(?:as|like)\s+i\s+(?:{_TELL_YOU}|{_MENTION}|{_SAY}|say)",
    # "I think I told you", "I already mentioned"
    rf"(?:i\s+think\s+)?i(?:{_APOSTROPHE}ve|\s+have)?\s+(?:already\s+)?(?:{_TELL_YOU}|mentioned)",
    # "in case I didn't mention it"
    rf"in\s+case\s+i\s+(?:didn{_APOSTROPHE}t|did\s+not|haven{_APOSTROPHE}t|have\s+not|never|"
    rf"forgot\s+to)\s+(?:{_TELL_YOU}|{_MENTION}|{_SAY})",
)
# Not a question about the telling ("Did I tell you I'm adopted?", "Did I mention I have a
# meeting at 3 or was it 4?"): it is as often a joke, a test or a real doubt, and its question
# mark is what keeps the claim out.
_TELLING = rf"(?:{'|'.join(_FRAMES)}){_SAID_WHAT}{_WHEN}"
_OPENERS = (
    r"(?:(?:and|also|so|but|ok|okay|oh|well|btw|by the way|anyway|one more thing|another thing|"
    r"last thing|just so you know)\b[,.:!\s-]*)*"
)
# After the frame: a mark or a clause word, or the claim's own first-person subject right away
# ("not sure if I told you I moved").
_BREAK = r"\s*(?:[,:;]|\s-+|\s?[\u2013\u2014])\s*(?:(?:but|that|so)\b\s*)?|\s+(?:but|that|so)\b\s*"
_SUBJECT = rf"(?=(?:i|i{_APOSTROPHE}(?:m|ve|d|ll)|im|ive|we|we{_APOSTROPHE}(?:re|ve)|my|our)\b)"
_OPENING_TELLING = re.compile(
    rf"^\W*{_OPENERS}{_TELLING}(?:{_BREAK}|\s+{_SUBJECT})",
    re.IGNORECASE,
)
_CLOSING_TELLING = re.compile(
    rf"\s*(?:[,;]|\s-+|\s?[\u2013\u2014])\s*{_TELLING}\s*[.!]*\s*$",
    re.IGNORECASE,
)
_MIN_CLAIM_WORDS = 2


def told_you(sentence: str) -> tuple[int, int] | None:
    """The (start, end) of what ``sentence`` claims when a clause of it is only about telling
    the assistant, or None when none is.

    Such a clause opens the sentence ("I forgot to mention that I just moved", "Not sure if I
    ever told you, but my wife is a nurse", "As I said before, I live in Leeds") or closes it
    ("I'm vegetarian, as I said", "..., I think I told you"); its hedge ("not sure if") or
    report ("I said") is about whether the assistant was told, not about what was. "Tell"
    counts only as telling "you" ("I forgot to tell my wife I'm going" is no such clause).
    Not a frame: a question about the telling ("Did I tell you I'm adopted?", as often a joke
    or a real doubt: "... I have a meeting at 3 or was it 4?"), nor "I meant / wanted to tell
    you", which is as often taken back ("..., but I changed my mind"). What is left must hold
    at least ``_MIN_CLAIM_WORDS`` words; whether it claims anything (a question, a hedge of its
    own) is for the caller's other rules."""
    start, end = 0, len(sentence.rstrip())
    if (m := _OPENING_TELLING.match(sentence)) is not None:
        start = m.end()
    if (m := _CLOSING_TELLING.search(sentence, start)) is not None and m.start() < end:
        end = m.start()
    if start == 0 and end == len(sentence.rstrip()):
        return None
    if len(sentence[start:end].split()) < _MIN_CLAIM_WORDS:
        return None
    return start, end


__all__ = [
    "ASIDE_IF",
    "ASKS",
    "CLAUSE_BREAK",
    "DEPENDENT",
    "FICTION",
    "HEDGE",
    "IDIOM_IF",
    "LEAD",
    "OWN_VOICE",
    "REPORTING",
    "STOPS_ANSWERING",
    "asks",
    "asks_for_good",
    "asks_to_forget",
    "fiction",
    "fiction_cues",
    "inverted_condition",
    "ironic",
    "reports",
    "tells_a_secret",
    "told_before",
    "told_you",
]

"""Standing instructions: what the user asked for on every request, returned with every task.

A user tells an assistant how to answer once and means it for good: "Please always give me the
values in reais, not dollars", "I do all my statistics in R, not Python please", "When you use
difficult words please explain me in Spanish". The next request it should shape ("What is a
reasonable daily budget for food in Buenos Aires?", "Show me how to do a linear regression")
shares no word and no meaning with it: the packaged MiniLM puts them at a cosine of 0.0-0.2, as
far as an unrelated record, so the gate cut the one record the agent most needed (personal
dev set: 12 of the 17 tasks that missed their record; benchmarks/README.md, "Session 18").

So when the query asks for a task (``asks_task``: a request, a how-to, an estimate or advice;
never a question about a stored fact such as "What's my blood type?", nor a request for the
user's own stored thing such as "Find my dentist's number"; and a question for what the
assistant knows, ``asks_knowledge``, asked of a store holding none of its words:
core.search.retriever), a candidate that did not pass the
gate on its own and is a standing instruction (``is_standing``) passes on that signal: at most
``MAX_STANDING`` of them (the best fused scores), the one stated last first, after the results
that passed on their own (``place``). Besides the generators' candidates, the records the
markers' words find (``MARKERS``, a lexical query of their own, core.search.ranking.joined) are
read, so an instruction far from the task in a store of any size is a candidate. A standing
instruction is a sentence of the user's own (a user statement or an imported user turn; never a
tool's, an agent's, an assistant turn's or a summary's) addressed to the assistant (it says
"please", "when you", "make sure", opens with "always" / "never" / "keep" ..., states a
preference, or changes how to answer "from now on" without the user as its subject; or a polite
question asking for a way of answering, "Could you answer in Spanish from now on?") that says it
holds in general ("always", "never", "from now on", "for everything", "all my", "when you answer
...", "stop adding ...");
one request ("Please keep this email short"), a mention or report ("My boss always says
please ..."), or a habit ("I can never sleep before midnight") is not.

Limits: the words are English patterns; a task worded as a statement ("I'm writing my speech
tonight") is not read as a task; the lookup reads the ``depth`` records its words score best,
so in a store with more records full of "please" and "always" an instruction may be missed;
and every standing instruction found comes with every task, relevant or not, which is what
"always" asked for.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_memory.core.extraction.whose import PEOPLE
from agent_memory.core.framing import STOPS_ANSWERING, asks_for_good
from agent_memory.core.search import diet
from agent_memory.core.search.lexical import STOPWORDS, query_tokens
from agent_memory.core.write import conversation

if TYPE_CHECKING:
    from agent_memory.core.models import Record
    from agent_memory.core.search.ranking import Candidate

MAX_STANDING = 3
# The words a standing instruction is found by, whatever the task (a lexical query of its own).
MARKERS = query_tokens("always never please pls plz whenever prefer rather everything anything")

# Verbs that open a request to the assistant ("Give me ...", "Explain what ...", "Can you show
# me ..."). Not "remind", "recall": "Remind me of my mom's name" asks for a stored fact.
_REQUEST_VERBS = (
    "give|explain|suggest|recommend|help|write|draft|make|create|plan|show|find|compare|list|"
    "translate|summari[sz]e|calculate|convert|estimate|design|prepare|build|generate|outline|"
    "rewrite|edit|proofread|check|review|fix|teach|walk|describe|brainstorm|come up|put together|"
    "organi[sz]e|sketch|propose|work out|figure out|cook|bake|tell me (?:how|a|an|some|about)"
)
_LEAD = r"^(?:(?:ok(?:ay)?|so|now|hey|hi|also|and|please|pls|plz|quick question)[,:]?\s+)*"
_TASK = re.compile(
    rf"{_LEAD}(?:"
    rf"(?:{_REQUEST_VERBS})\b"  # "Give me a pasta recipe for tonight."
    rf"|(?:can|could|would|will) (?:you|u) (?:please )?(?:{_REQUEST_VERBS})\b"  # "Can you ..."
    r"|(?:what|which) would you (?:suggest|recommend)\b"
    r"|how (?:to|(?:do|can|should|would|could) (?:i|we))\b"  # a how-to
    r"|(?:what|which)(?: is|'s|s| are| would be) (?:a |an |the )?(?:good|reasonable|best|better|"
    r"right|cheapest|easiest|fastest|safest|ideal)\b"  # advice
    r"|how (?:much|long|far|big|many|often)\b.*\b(?:would|should|will) (?!i be\b)"  # an estimate
    r"|(?:should|shall) (?:i|we)\b|(?:what|which|where|how)\b.*\b(?:should|can) (?:i|we)\b"
    r"|is it (?:better|worth|safe|ok|okay|possible|a good idea)\b"
    r"|(?:i|we) need (?:to|a|an|some|help|ideas|advice)\b"
    rf"|(?:i|we)(?:'d| would)? (?:like|want) (?:a|an|some|to (?:{_REQUEST_VERBS}))\b|let's\b"
    r"|(?:tips|ideas|suggestions|advice|recommendations) (?:for|on|about)\b"
    r")|\bpros and cons\b|\bany (?:\w+ )?(?:ideas|tips|suggestions|recommendations|advice)\b",
    re.IGNORECASE,
)
# ... unless what it asks for is the user's own stored thing ("Find my dentist's phone
# number", "Help me remember my mom's name", "Can you check when my flight is?", "What's the
# best restaurant I've been to?"), or what someone said ("... according to my doctor"). Work
# on the user's thing is still a task ("Help me plan my week", "Proofread my essay").
_RECALLS = re.compile(
    r"\b(?:give|find|list|show|tell|check|get|fetch|pull up|send|look up)(?: me| us)?(?: out| up)? "
    r"(?:(?:what|when|where|who|which|how|if|whether) (?:is |are |was )?)?(?:my|our)\b"
    r"|\bany (?:ideas?|clue) (?:what|when|where|who|which|how|if|whether) (?:is |are )?(?:my|our)\b"
    r"|\b(?:remember|recall|know|find out|look up)\b"
    r"|\b(?:i|we)(?:'ve| have| had)? (?:been|went|found|bought|used|tried|visited|saw|did|got)\b"
    r"|\baccording to\b|\bwhat you know\b",
    re.IGNORECASE,
)

# A sentence spoken to the assistant: a polite request, an instruction about its answers, or
# a preference; never one that mentions or reports the word ("I always say please to
# waiters", "My boss always says please use metric").
_ADDRESSED = re.compile(
    r"\b(?:please|pls|plz|when you|i(?: would|'d)? (?:prefer|rather|want you to|like it when|"
    r"like you to)|i need you to|you (?:should|must|have to)|make sure|the user prefers|"
    # a formal "I'd prefer", of the answers only: "I should prefer cheaper flights" is a duty
    r"i should prefer (?:that |if )?(?:you\b|(?:\w+ )?(?:answers|replies|responses)\b)|"
    r"the user would rather)\b"
    r"|^(?:(?:also|and|oh|fyi|actually|ok|okay|so|now|from now on|going forward|"
    r"in (?:the )?future),? )*"
    r"(?:always|never|don't|do not|stop|keep|use|give|write|explain|show|no need|answer|respond|"
    r"reply|cite|include|avoid|stick to)\b",
    re.IGNORECASE,
)
# "Prices in euros from now on", "English only from now on": a change of how to answer, said
# without a verb; never the user's own change ("I'm vegan from now on").
_FROM_NOW = re.compile(r"\b(?:from now on|going forward|from here on)\b", re.IGNORECASE)
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|i'll|we|we're|my|our)\b", re.IGNORECASE)
_REPORTED = re.compile(
    r"\b(?:says|said|saying|tells|told|asks|asked)\b|\bsay (?:please|thanks|thank)\b",
    re.IGNORECASE,
)
# Times that make a request once: today's, and (after "when we talk") a day or a moment named.
_TODAY = r"tomorrow|2morrow|tmrw|tonight|today"
_ONCE = (
    rf"{_TODAY}|next|later|again|on|at|this|after|before|in|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
# ... that says it holds in general, not for this one request ("like always" looks back).
_GENERAL = re.compile(
    r"\b(?<!like )(?<!as )(?:always|never)\b|"
    r"\b(?:every ?time|from now on|going forward|in (?:the )?future|in general|any ?time|"
    r"each time|anymore|any more|"
    # "When you use difficult words, ..." holds for good; "when you see Tom" is once.
    r"(?:when|whenever) you(?:'re)? (?:answer|reply|respond|write|use|give|suggest|explain|"
    r"recommend|translate|show|make|create|draft|list|mention|quote|cite|summari[sz]e|describe|"
    r"talk|send)|for (?:basically |pretty much |just about )?(?:everything|anything|all)|"
    r"all my|all of my|all (?:your )?(?:future )?(?:answers|replies|responses|questions)|"
    r"every (?:answer|reply|response))\b",
    re.IGNORECASE,
)
# "... imperial measurements when we speak", "in our chats": whenever the two talk, not once
# ("when we talk tomorrow", "when we talk Monday", "... right now": ``_NOW_ONLY``) nor with
# someone else ("when we speak to the bank": "we" is the user and another).
_WHEN_WE_TALK = re.compile(
    r"\bwhen(?:ever)? we(?:'re| are)? (?:speak(?:ing)?|talk(?:ing)?|chat(?:ting)?|"
    rf"correspond(?:ing)?|have a (?:chat|conversation))(?! (?:{_ONCE}|to|with)\b)"
    r"|\b(?:in|during) our (?:chats|conversations|talks)\b",
    re.IGNORECASE,
)
# A manner of answering ("keep it casual", "keep answers short", "no essays") is said for
# good only with a sign that it is about the user rather than the text at hand: "with me"
# ("keep it casual w me, no essays"), answers in general ("keep your answers short"), or
# the reader's own lasting reason ("keep it short, I read this on my phone", "I'm dyslexic
# so keep things simple"). Without one it is as often a request for one text ("Explain
# recursion, keep it simple", "Keep it short, it's for a tweet"), so it is not; nor with a
# time that makes it once ("keep it short this time, I'm on my phone right now").
_MANNER = re.compile(
    r"\bkeep (?:it|them|things|everything|(?:your |the )?(?:answers|replies|responses|"
    r"explanations))(?: (?:super|really|very|nice and|pretty|fairly|quite|short and))? "
    r"(?:short|brief|simple|casual|concise|informal|plain|basic|light|chill|chatty|friendly|"
    r"sweet|jargon-free)\b"
    r"|\bno (?:essays|jargon|fancy words|big words|waffle|fluff|walls? of text|"
    r"long (?:answers|replies|paragraphs|explanations))\b",
    re.IGNORECASE,
)
_FOR_THE_USER = re.compile(
    r"\b(?:with|w/?) me\b"
    r"|\b(?:your |the )?(?:answers|replies|responses|explanations)\b"
    r"|\b(?:on|from) my (?:phone|mobile)\b|\bnot my first language\b|\bnon-native\b"
    r"|\b(?:i'm|im|i am) (?:dyslexic|(?:a )?beginner|not (?:a )?(?:native|technical|tech))",
    re.IGNORECASE,
)
_NOW_ONLY = re.compile(
    rf"\b(?:{_TODAY}|for now|this time|right now|at the moment|in a (?:rush|hurry))\b",
    re.IGNORECASE,
)
# "always" / "never" of someone's habit, not of the answers: "I always forget", "I can never
# sleep before midnight", "she always says".
_HABIT = re.compile(
    r"\b(?:i|he|she|they|we|it|my \w+)(?: can| could| will| would| do| did|'d|'ll)? "
    r"(?:always|never)\b",
    re.IGNORECASE,
)
# What a survivor that did not pass on its own passed on (core.search.gate.apply_gate).
_RIDERS = frozenset({"margin", "beside", "answer"})
CONSTRAINT_GATE = "passed: a dietary constraint the user stated, for a food task or question"
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_WORD = re.compile(r"\w+")
# Words any instruction may hold, which say nothing of what it is about.
_INSTRUCTING = frozenset(
    "please pls plz always never whenever prefer rather everything anything from now going "
    "forward future use give write answer answers reply keep stop only more actually instead "
    "make sure want need like".split()
)


# Words that make a question about the user, the assistant or someone they spoke of ("When did
# she leave?").
_PERSONAL = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'll|i'd|me|my|mine|myself|we|we're|we've|we'll|we'd|us|our|ours|"
    r"ourselves|you|you're|you've|you'll|you'd|your|yours|yourself|u|ur|he|he's|she|she's|him|"
    r"her|his|hers|they|they're|them|their|theirs)\b",
    re.IGNORECASE,
)
# What makes a question about the user's own world though it says no "my": a thing of theirs
# ("What time is the flight?", "Where are the car keys?", "that restaurant"), unless it is a
# general one of something ("the boiling point of water", "the current recommendation for
# vitamin D"); or something that happened ("What happened yesterday?").
_THEIRS = re.compile(
    r"\b(?:that|this|those|these)\s+\w+"
    r"|\bthe\s+(?!(?:\w+\s+)?\w+\s+(?:of|for|between)\b)\w+"
    r"|\b(?:did|was|were|had|happened|went|yesterday|today|tonight|tomorrow|last|next)\b"
    # someone's ("mum's birthday"), not a contraction ("what's", "it's")
    r"|\b(?!(?:what|who|where|when|how|it|that|there|here|he|she|let)'s)\w+'s\b"
    rf"|\b(?:{'|'.join(sorted(PEOPLE))})s?\b",
    re.IGNORECASE,
)
# A question word opening a question of two words or more ("What causes migraines?"; not "Who
# won?", whose subject is what came before, nor "Any allergies?").
_ASKS = re.compile(
    r"^\W*(?:what|what's|whats|which|who|who's|whom|whose|where|where's|when|when's|why|how|"
    r"how's|is|are|do|does|can|could|should|would|will)\b(?:\W+\w+){2,}",
    re.IGNORECASE,
)
# A name past the question's first word ("How old is Lara?", "When is Jess's wedding?"): the
# question is about someone or something of the user's world, stored or not. One capital
# letter alone is no name ("vitamin D").
_NAMED = re.compile(r"(?<=\s)[^\W\d_][^\W_]*(?<=\w)(?=\W|$)")


def asks_knowledge(query: str) -> bool:
    """Whether ``query`` is a question (``_ASKS``) that says nothing of the user, the assistant,
    anyone they spoke of or anyone of theirs, names nothing, no thing of theirs and nothing
    that happened (``_THEIRS``: "What time is the flight?", "mum's birthday") ("What's the
    current recommendation for vitamin D supplements in breastfed babies?"). Asked of a store
    holding none of its words, it is the assistant's to answer from what it knows, as a task
    is (core.search.retriever)."""
    text = " ".join(query.replace("\u2019", "'").split())
    if not _ASKS.match(text):
        return False
    if _PERSONAL.search(text) or _RECALLS.search(text) or _THEIRS.search(text):
        return False
    return not any(w[0].isupper() and len(w) > 1 for w in _NAMED.findall(text))


def asks_task(query: str) -> bool:
    """Whether ``query`` asks the assistant to do something (a request, a how-to, an estimate,
    advice) rather than for a stored fact."""
    text = " ".join(query.replace("\u2019", "'").lstrip("\u00bf\u00a1 ").split())
    sentences = _sentences(text)
    if any(s.endswith("?") and not _task(s) for s in sentences):
        return False  # "Who is my doctor? I need to call her." asks for a fact
    return any(_task(s) for s in sentences)


def _task(sentence: str) -> bool:
    return bool(_TASK.search(sentence)) and not _RECALLS.search(sentence)


def instructs(sentence: str) -> bool:
    """Whether ``sentence`` is an instruction for good: addressed to the assistant (not a
    mention or report of one), general, and not a question ("Please always use metric units.")."""
    sentence = sentence.replace("\u2019", "'").strip()
    return _addressed(sentence) and _general(sentence)


def _addressed(sentence: str) -> bool:
    """Spoken to the assistant (not a question, unless one that asks for a way of answering
    for good, core.framing.asks_for_good; not a mention or report of a request)."""
    if _REPORTED.search(sentence):
        return False
    if sentence.endswith("?"):
        return asks_for_good(sentence)
    if _ADDRESSED.search(sentence):
        return True
    return any(
        _FROM_NOW.search(clause) and not _SPEAKER.search(clause)
        for clause in re.split(r"[,;:]", sentence)
    )


def _general(sentence: str) -> bool:
    """Said to hold for good: a general marker, with "always" / "never" not of a habit;
    whenever the user and the assistant talk (``_WHEN_WE_TALK``); or a manner of answering
    said of the user, not of the text at hand (``_MANNER``); neither of the last two with a
    time that makes it once (``_NOW_ONLY``)."""
    found = [m.group(0).lower() for m in _GENERAL.finditer(sentence)]
    if any(word not in ("always", "never") for word in found) or STOPS_ANSWERING.match(sentence):
        return True
    if _NOW_ONLY.search(sentence) is None and (
        _WHEN_WE_TALK.search(sentence)
        or (_MANNER.search(sentence) and _FOR_THE_USER.search(sentence))
    ):
        return True
    return bool(found) and len(_HABIT.findall(sentence)) < len(found)


def is_standing(record: Record) -> bool:
    """Whether ``record`` holds an instruction the user gave for good: a sentence of its content
    or evidence that ``instructs``, or one addressed to the assistant whose whole sentence in
    the record's turn is general ("I prefer bullet points over long paragraphs, for basically
    everything" gives "The user prefers bullet points over long paragraphs."). Only the user's
    own words: a user statement or an imported user turn, never a tool's or an agent's text
    (a fetched page saying "Please always run the deploy script with --force" is no
    instruction of the user's), an assistant's turn or a session summary."""
    if not conversation.in_the_users_words(record):
        return False
    addressed = [
        sentence
        for text in (record.content, record.evidence or "")
        for sentence in _sentences(text)
        if _addressed(sentence)
    ]
    if not addressed:
        return False
    whole = _whole_sentence(record.evidence or "", record.context or "")
    return any(_general(sentence) for sentence in [*addressed, whole])


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text.replace("\u2019", "'"))]


def _whole_sentence(evidence: str, context: str) -> str:
    """The sentence of ``context`` (the record's turn) that holds ``evidence``, or ""."""
    evidence = evidence.rstrip(".!? ")
    at = context.find(evidence) if evidence else -1
    if at < 0:
        return ""
    start = max(context.rfind(mark, 0, at) for mark in ".!?\n") + 1
    ends = [i for i in (context.find(mark, at + len(evidence)) for mark in ".!?\n") if i >= 0]
    return context[start : min(ends, default=len(context)) + 1].strip().replace("\u2019", "'")


def lookup_words(task: bool, diet_up_to: int | None) -> list[str]:
    """The words that find the records a query may need however far their meaning is from
    it: a task's standing instructions (``MARKERS``), and the dietary constraints of a query
    about what the user eats (``diet_up_to``: core.search.diet.wanted; ``diet.MARKERS``)."""
    return [*(MARKERS if task else []), *(diet.MARKERS if diet_up_to is not None else [])]


@dataclass(frozen=True, slots=True)
class Admitted:
    """What ``admit`` made of an answer, as the search log keeps it (the gate's "standing",
    "standing_above", "constraints" and "replaced"; replay places them again): ``answer``;
    a task's ``standing`` instructions and dietary constraints, added in this order, and the
    older instruction each goes ``above``; the dietary ``constraints`` in their places' order
    (a task's added ones; a question's, placed first); the earlier diets ``replaced``."""

    answer: list[Candidate]
    standing: list[Candidate] = field(default_factory=list)
    above: dict[str, str] = field(default_factory=dict)
    constraints: list[Candidate] = field(default_factory=list)
    replaced: list[Candidate] = field(default_factory=list)


def admit(
    task: bool,
    ordered: Sequence[Candidate],
    records: Mapping[str, Record],
    survivors: list[Candidate],
    *,
    diet_up_to: int | None = None,
) -> Admitted:
    """When the query asks for a task (``task``, read by ``asks_task``): the survivors with up
    to ``MAX_STANDING`` standing instructions that did not pass on their own (cut, or close to
    the best only) passing as such (``place``): those stated last, newest first, since a later
    instruction may take an earlier one back ("No more French please, only English from now
    on" over "Please always answer me in French"). One that passed on its own keeps its place
    (it is what the task is about: "Please always write my recipes in French" for "Give me a
    pasta recipe"), unless an added one stated later names what it names: that one goes right
    above it ("Stop the French please; English from now on"). A task about food also gets up
    to ``diet.MAX_CONSTRAINTS`` of the dietary constraints that did not pass on their own (of
    strength ``diet_up_to`` or surer: core.search.diet.wanted; ``_for_task``), after the
    instructions. A question about what the user may eat (``diet_up_to`` set, no
    task) is answered with its constraints first (``_for_question``, ``first``)."""
    if not task:
        if diet_up_to is None:
            return Admitted(survivors)
        constraints, replaced = _for_question(ordered, records, survivors, diet_up_to)
        if not constraints and not replaced:
            return Admitted(survivors)
        return Admitted(first(survivors, constraints), constraints=constraints, replaced=replaced)
    own = [c for c in survivors if c.passed_on not in _RIDERS]
    taken = {id(c) for c in own}

    def stated(c: Candidate) -> str:
        return records[c.record_id].statement_time

    chosen = sorted(
        (c for c in ordered if id(c) not in taken and is_standing(records[c.record_id])),
        key=stated,
        reverse=True,
    )[:MAX_STANDING]
    taken |= {id(c) for c in chosen}
    constraints = [] if diet_up_to is None else _for_task(ordered, records, taken, diet_up_to)
    if not chosen and not constraints:
        return Admitted(survivors)
    older = [
        (c, _topic(records[c.record_id].content)) for c in own if is_standing(records[c.record_id])
    ]
    above: dict[str, str] = {}
    for new in chosen:
        words = _topic(records[new.record_id].content)
        for old, topic in older:
            if stated(old) < stated(new) and words & topic:
                above[new.record_id] = old.record_id
                break
    chosen += constraints
    answer = place(survivors, chosen, above, constraints={c.record_id for c in constraints})
    return Admitted(answer, chosen, above, constraints)


def _level(record: Record, up_to: int, *, asked: bool) -> int | None:
    """``record``'s strength (core.search.diet.strength) if it is ``up_to`` or surer, else
    None; for a question (``asked``), a diet ended answers a question about the diet as a diet
    does (``diet.ends_a_diet``)."""
    found = diet.strength(record)
    if found is None and asked and up_to >= 1 and diet.ends_a_diet(record):
        found = 1
    return found if found is not None and found <= up_to else None


def _for_question(
    ordered: Sequence[Candidate],
    records: Mapping[str, Record],
    survivors: Sequence[Candidate],
    up_to: int,
) -> tuple[list[Candidate], list[Candidate]]:
    """What a question about what the user may eat (core.search.diet.asks_constraints) is answered
    with first: its constraints of strength ``up_to`` or surer, every one the gate let through,
    in the answer's order (the closest to the question first: "I hate olives" for "What foods
    do I hate?"), then up to ``diet.MAX_CONSTRAINTS`` more it cut (``_surest``); the user's
    diet on meat (or its end) stated last before any earlier one among them; and the earlier
    diets it neither adds nor puts first (``diet.replaced_diets``: one the gate let through
    keeps its place after them, since the question may name it: "Am I pescatarian?")."""
    replaced = diet.replaced_diets(ordered, records)
    gone = {id(c) for c in replaced}
    level = {
        id(c): found
        for c in ordered
        if id(c) not in gone
        and (found := _level(records[c.record_id], up_to, asked=True)) is not None
    }
    passed = {id(c) for c in survivors}
    cut = _surest([c for c in ordered if id(c) in level and id(c) not in passed], records, level)
    chosen = [c for c in survivors if id(c) in level] + cut
    # The user's diet on meat (or its end) stated last goes before any earlier one among them.
    diets = [
        c
        for c in chosen
        if diet.own_meat_diet(records[c.record_id]) or diet.ends_a_diet(records[c.record_id])
    ]
    if diets:
        latest = max(diets, key=lambda c: records[c.record_id].statement_time)
        chosen.remove(latest)
        chosen.insert(chosen.index(diets[0]) if diets[0] is not latest else 0, latest)
    return chosen, replaced


def _for_task(
    ordered: Sequence[Candidate], records: Mapping[str, Record], taken: Set[int], up_to: int
) -> list[Candidate]:
    """The dietary constraints a food task gets besides its answer: those of strength ``up_to`` or
    surer among ``ordered`` but the ``taken`` (ids of the candidates already placed) and the
    diets a later one replaced (``diet.replaced_diets``), at most ``diet.MAX_CONSTRAINTS``
    (``_surest``)."""
    gone = set(taken) | {id(c) for c in diet.replaced_diets(ordered, records)}
    level = {
        id(c): found
        for c in ordered
        if id(c) not in gone
        and (found := _level(records[c.record_id], up_to, asked=False)) is not None
    }
    return _surest([c for c in ordered if id(c) in level], records, level)


def _surest(
    candidates: Sequence[Candidate], records: Mapping[str, Record], level: Mapping[int, int]
) -> list[Candidate]:
    """At most ``diet.MAX_CONSTRAINTS`` of ``candidates``: the surest first (an allergy before a
    diet before a dislike, by ``level``), then those stated last."""
    latest = sorted(candidates, key=lambda c: records[c.record_id].statement_time, reverse=True)
    return sorted(latest, key=lambda c: level[id(c)])[: diet.MAX_CONSTRAINTS]


def _topic(text: str) -> set[str]:
    """What an instruction is about: its words but function words and instruction words."""
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 2} - STOPWORDS - _INSTRUCTING


def place(
    survivors: list[Candidate],
    chosen: Sequence[Candidate],
    above: Mapping[str, str],
    *,
    constraints: Collection[str] = (),
) -> list[Candidate]:
    """``survivors`` with the ``chosen`` standing instructions (and dietary constraints: the
    ids in ``constraints``) marked so and placed, in their order: each right above the
    survivor ``above`` names for it, the others after the survivors that passed on their own
    and before those only close to the best one (an instruction the user gave for every task
    is surer to apply than a record weak on every signal). Pure: replay calls it with the
    logged choice."""
    if not chosen:
        return survivors
    for candidate in chosen:
        if candidate.record_id in constraints:  # core.search.diet
            candidate.passed_on = "constraint"
            candidate.gate = CONSTRAINT_GATE
        else:
            candidate.passed_on = "standing"
            candidate.gate = "passed: a standing instruction of the user's, for a task"
    picked = {id(c) for c in chosen}
    rest = [c for c in survivors if id(c) not in picked]
    own = [c for c in rest if c.passed_on not in _RIDERS]
    placed_above = {c.record_id for c in own}
    answer: list[Candidate] = []
    for candidate in own:
        answer += [c for c in chosen if above.get(c.record_id) == candidate.record_id]
        answer.append(candidate)
    answer += [c for c in chosen if above.get(c.record_id) not in placed_above]
    return answer + [c for c in rest if c.passed_on in _RIDERS]


def first(survivors: list[Candidate], constraints: Sequence[Candidate]) -> list[Candidate]:
    """A question about what the user may eat: its dietary ``constraints`` first, in their
    order (those that did not pass on their own marked so), then the other survivors. Pure:
    replay calls it with the logged choice."""
    for candidate in constraints:
        if candidate.passed_on is None or candidate.passed_on in _RIDERS:
            candidate.passed_on = "constraint"
            candidate.gate = CONSTRAINT_GATE
    placed = {c.record_id for c in constraints}
    return [*constraints, *(c for c in survivors if c.record_id not in placed)]

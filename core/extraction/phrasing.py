"""The offline extractor's phrasing: how one first-person clause of a user turn becomes a
third-person candidate (core.extraction.offline reads the turn into sentences and clauses and
decides which clauses may speak for the user; this module only phrases them).

- "I'm / I am X"                  -> "The user is X."          (fact)
- "I prefer / like / love / hate / want / need / use / have / own / live / work / speak ... X"
                                   -> "The user prefers X." ... (fact)
- "I'd rather / I would prefer X"  -> "The user would rather X." (fact: a preference)
- "I don't / do not V X", "I can't V X"  -> "The user does not V X." (fact)
- "my X is / are Y", "Y is (now) my X"  -> "The user's X is Y."  (fact, attribute X: a later
  holder of the same X supersedes the earlier one through the ingestor)
- "Hi, I'm Priya", "my name's Priya"  -> "The user's name is Priya." (fact, attribute name:
  a sentence that opens with it, when what follows is a name, core.judge.introduction: ``named``)
- "(please) call me Liz"  -> "The user wants to be called Liz." (fact)
- "I stopped / quit / gave up / no longer X"  -> "The user has stopped X." (fact)
- "I'm going / moving / flying to X", "I will / I'll / I plan to X"  -> a dated plan when the
  clause has a date expression: event_at (the day it happens, else the day it starts),
  review_at (the last day it can mean), valid_from ("from", "starting") and valid_until
  ("until", "through")
- "I decided / agreed / chose ..."  -> "The user decided ..."  (decision, episodic, personal)
- "we / the team / Sam and I decided ..."  -> "We decided ..." (who decided is kept; the
  session's target for shared decisions)
- "we're moving / pushing / dropping / launching ... <object>"  -> the clause, kept in "we"
  (decision, the target for shared decisions, as above)
- "I moved / relocated to <Place>"  -> "The user moved to <Place>." (fact, attribute residence;
  not a stay: "for three weeks", "for the semester": core.judge.change.for_a_while)
- "the X worked / failed / broke / is fixed"  -> the clause itself (outcome, episodic)
- "When / Whenever / Before / After X, (always) do Y"  -> a procedure with that trigger and step

The clause itself is the evidence span. A phrasing its clause's words do not entail, by the
offline judge, is dropped (``in_their_words``), and the sentence is kept as said; so is one the
rest of its sentence qualifies (``qualified``: "..., flying mostly out of Stansted."). Limits:
English only; literal patterns; no coreference ("it", "she") and no paraphrase.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from pydantic import ValidationError

from agent_memory.core import temporal
from agent_memory.core.extraction.schema import Candidate, ProcedureDraft
from agent_memory.core.holder import Holder, read_holder
from agent_memory.core.judge.change import for_a_while
from agent_memory.core.judge.introduction import a_name, introduction
from agent_memory.core.judge.offline import OfflineJudge

# "I'd rather / I would prefer X" states a preference; it is not a hedge ("would" alone is).
_RATHER = re.compile(r"^i(?:'d| would) (rather|prefer)\b(.+)$", re.IGNORECASE)

_VERBS = (
    "prefer|like|love|enjoy|hate|dislike|want|need|use|own|have|live|work|speak|play|drink|"
    "eat|study|teach|run|drive|follow|support|avoid|collect|practice|practise"
)

_PLAN = re.compile(
    r"^i(?:'m| am) (going to|moving to|flying to|travel(?:l)?ing to|starting|leaving|visiting|"
    r"meeting|getting|attending|taking|having)\b(.+)$|^i(?:'ll| will| plan to| intend to)\b(.+)$",
    re.IGNORECASE,
)

_I_AM = re.compile(r"^(?:i'm|i am)\s+(.+)$", re.IGNORECASE)

_I_VERB = re.compile(rf"^i\s+(?:(don't|do not|can't|cannot|never)\s+)?({_VERBS})\b(.*)$", re.I)

_CALL_ME = re.compile(
    r"^(?:please\s+|you\s+can\s+)?(?:just\s+)?call\s+me\s+(?P<name>.+?)\W*$", re.I
)

_MY = re.compile(r"^my\s+((?:[a-z'-]+\s+){0,3}?[a-z'-]+)\s+(is|are|was|were)\s+(.+)$", re.I)
# What an elliptical clause leaves of its verb's object: "... and my son is too" says what the
# clause before it said, which a clause alone cannot phrase ("The user's son is too.").
_ELLIPTICAL = re.compile(r"^(?:(?:too|also|as well|either|neither|not|so|the same)\W*)+$", re.I)

# "I stopped drinking beer", "I've quit Rocco's", "I no longer run": a habit or role ended.
_STOPPED = re.compile(
    r"^i(?:'ve| have)?\s+(?:just\s+|finally\s+|completely\s+)?(?P<verb>stopped|quit|gave up|"
    r"given up|no longer)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)

_DECISION = re.compile(
    r"^(?P<who>we|i|the team|our team|my team|the family|(?:my\s+)?[\w'-]+ and i)\s+"
    r"(?:(?:have|just|finally|already|eventually|all|both)\s+)*(?P<verb>decided|agreed|chose|"
    r"picked|settled on|went with|are going with|will go with)\b\s*(?P<rest>.+)$",
    re.IGNORECASE,
)

# "We're moving the launch to March", "the team will drop the beta": a plan made with others
# changes something it names (an object follows the verb: "we're moving to Porto" is a move).
_TEAM_PLAN = re.compile(
    r"^(?P<who>we|the team|our team|my team|(?:my\s+)?[\w'-]+ and i)(?:'re|'ll|\s+are|\s+is|"
    r"\s+will|\s+are going to|'re going to|\s+plan to|\s+intend to|\s+have|'ve)?\s+"
    r"(?:just\s+|now\s+)?(?P<verb>(?:mov|push|postpon|delay|launch|ship|releas|switch|dropp|cancel+|adopt|migrat|"
    r"freez|deprecat|reschedul|renam|merg|scrapp|sunsett?)(?:ing|e|ed)?)\s+"
    r"(?!to\b|from\b|in\b|into\b|out\b|house\b|home\b|abroad\b|away\b|back\b|over\b)(?P<rest>\S.*)$",
    re.IGNORECASE,
)

# "I moved to Bergen", "I've relocated to New York": where the user lives now.
_MOVED = re.compile(
    r"^[iI](?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?(?:moved|relocated)\s+"
    r"(?:back\s+)?to\s+(?P<place>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)(?P<rest>.*)$"
)

_OUTCOME = re.compile(
    r"^(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+){0,3}\s+(worked|works now|failed|broke|crashed|"
    r"is fixed|was fixed|passed|succeeded|is down|is back up|went live|shipped)\b",
    re.IGNORECASE,
)
PROCEDURE = re.compile(
    r"^(when|whenever|before|after|every time)\s+(.+?),\s+(?:(?:please|always|you should|"
    r"make sure to|remember to)\s+)?(.+)$",
    re.IGNORECASE,
)
# A fact whose object is said only before it ("I love it", "I don't have one yet", "... and I
# never have"): phrased alone, a fact about nothing ("The user never has."), so the sentence
# is kept as said. The object's first word only: not "in IT support", "one brother".
_DANGLES = re.compile(
    r"^\W*(?:(?:yet|too|either|already|now|anymore|at all|before)\W*)*$"
    r"|^\W*(?-i:it|them|her|him|his|their|there)\b(?!')"
    r"|^\W*ones?\b(?=\s*(?:$|[.,;!?]|(?:yet|too|either|already|now|anymore)\b))",
    re.IGNORECASE,
)
# A plan keeps its date whatever its object; one of a pronoun alone ("I'm meeting them") not.
_NOTHING_BUT_IT = re.compile(r"^\W*(?:(?-i:it|them|her|him|there)\b)?\W*$", re.IGNORECASE)
_NOT_STATES = re.compile(
    r"^(sure|afraid|sorry|glad|happy|here|back|done|just|looking|trying|thinking|wondering|"
    r"asking|curious|not sure|going to|gonna|about to|fine|ok|okay|good|great)\b",
    re.IGNORECASE,
)

_SINGLE_VALUED = (
    (re.compile(r"^(?:live|living|based|located) in\b", re.I), "residence"),
    (re.compile(r"^work(?:ing)? (?:at|for)\b", re.I), "employer"),
)

_PRONOUNS = (
    (re.compile(r"\bmy\b", re.I), "the user's"),
    (re.compile(r"\bmine\b", re.I), "the user's"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\bme\b", re.I), "the user"),
    (re.compile(r"\bI'm\b"), "the user is"),
    (re.compile(r"\bI\b"), "the user"),
)


# Reads whether a clause's words say what a rule phrased from them (``in_their_words``); its
# parser is the process-wide one, loaded on first use.
_JUDGE = OfflineJudge()


def in_their_words(phrased: list[Candidate]) -> list[Candidate]:
    """``phrased`` (the candidates one sentence gave), or none of them when the words of one
    do not say what its phrasing says, by the offline judge reading the quote alone: "I'm
    blind and use a screen reader" was phrased "The user is blind and use a screen reader.",
    which the judge refuses ("joins words from different clauses") and the write path then
    stored as an inference, with nothing in the user's words beside it. The caller keeps the
    sentence as said instead (core.extraction.verbatim), whole, so that another clause
    phrased with it is not kept twice. What the turn around a quote does to it (a hedge, a
    report after it) is the write path's to judge, as for any quote."""
    if any(not _JUDGE.entails(c.evidence, c.content).holds for c in phrased):
        return []
    return phrased


def qualified(phrased: Candidate, sentence: str) -> bool:
    """Whether the rest of ``sentence`` changes what ``phrased`` (one of its phrasings, said by
    its quote alone: ``in_their_words``) says: a hedge, negation, condition, joke or report the
    quote cuts away, by the offline judge reading the quote in its sentence
    (core.judge.context): "I'm a pilot for Ryanair, flying mostly out of Stansted." gave "The
    user is a pilot for Ryanair.", which "mostly" qualifies; "I quit Google, in my dreams
    lol." gave "The user has quit Google.". The write path would store such a phrasing as an
    inference that expires; the caller keeps the sentence as said instead, marked so that it
    retires nothing (core.extraction.offline)."""
    return not _JUDGE.entails(phrased.evidence, phrased.content, context=sentence).holds


def fact(clause: str, anchor: datetime, shared_target: str = "personal") -> Candidate | None:
    if (m := _PLAN.match(clause)) is not None:
        rest = m.group(2) or m.group(3) or ""
        return None if _NOTHING_BUT_IT.match(rest) else _plan(clause, anchor)
    if (m := _DECISION.match(clause)) is not None:
        return _decision(clause, m, shared_target)
    if _TEAM_PLAN.match(clause) is not None:
        return candidate(
            "decision", "episodic", _third_person(clause), clause, target=shared_target
        )
    if (m := _MOVED.match(clause)) is not None and not for_a_while(m.group("rest")):
        # Keyed as the residence, so it supersedes the earlier "lives in" through the ingestor
        # (not a stay: "I moved to Lisbon for three months", kept as said).
        text = f"The user moved to {m.group('place')}{_third_person(m.group('rest'))}"
        return candidate("fact", "semantic", text, clause, attribute="residence")
    if _OUTCOME.match(clause):
        return candidate("outcome", "episodic", _third_person(clause), clause)
    if (m := _RATHER.match(clause)) is not None:
        rest = _third_person(m.group(2))
        return candidate("fact", "semantic", f"The user would {m.group(1).lower()}{rest}", clause)
    if (holder := _named_holder(clause)) is not None:
        # "Bianca is my sous-chef", "Dana is now my manager": keyed like "my sous-chef is
        # Bianca" so that a later holder supersedes an earlier one. The judge reads the quote
        # with the same reader (core.holder), so the record is confirmed by its own words.
        what = holder.what
        return candidate(
            "fact", "semantic", f"The user's {what} is {holder.who}", clause, attribute=what
        )
    if (m := _STOPPED.match(clause)) is not None:
        if _DANGLES.search(m.group("rest")):
            return None  # "I quit it": what was quit is said before
        verb, rest = m.group("verb").lower(), _third_person(m.group("rest"))
        if verb == "no longer":  # "I no longer run" -> "The user no longer runs"
            first, _, tail = rest.partition(" ")
            text = f"no longer {_conjugate(first.lower())} {tail}"
        else:
            text = f"has {'given up' if verb.startswith('g') else verb} {rest}"
        return candidate("fact", "semantic", f"The user {text}", clause)
    if (m := _CALL_ME.match(clause)) is not None and a_name(m.group("name"), "greeted"):
        return candidate(
            "fact", "semantic", f"The user wants to be called {m.group('name')}", clause
        )
    if (m := _MY.match(clause)) is not None:
        if _ELLIPTICAL.match(m.group(3)):
            return None
        thing, verb, rest = m.group(1), m.group(2), _third_person(m.group(3))
        if thing.lower() == "name" and (verb.lower() != "is" or not a_name(rest, "named")):
            return None  # "My name is hard to spell", "My name was Smith": no name, or not now
        return candidate(
            "fact", "semantic", f"The user's {thing} {verb} {rest}", clause, attribute=thing
        )
    if (m := _I_AM.match(clause)) is not None:
        rest = m.group(1)
        if _NOT_STATES.match(rest) or len(rest.split()) > 12:
            return None
        attribute = next((a for p, a in _SINGLE_VALUED if p.match(rest)), None)
        return candidate(
            "fact", "semantic", f"The user is {_third_person(rest)}", clause, attribute=attribute
        )
    if (m := _I_VERB.match(clause)) is not None:
        negation, verb, rest = m.group(1), m.group(2).lower(), m.group(3)
        if len(rest.split()) > 14 or _DANGLES.search(rest):
            return None
        if negation:
            lead = {"don't": "does not", "do not": "does not", "never": "never"}.get(
                negation.lower(), "cannot"
            )
            verb_text = f"{lead} {verb}" if lead != "never" else f"never {_conjugate(verb)}"
        else:
            verb_text = _conjugate(verb)
        attribute = None
        if verb in ("live", "work"):
            attribute = next((a for p, a in _SINGLE_VALUED if p.match(f"{verb}{rest}")), None)
        return candidate(
            "fact",
            "semantic",
            f"The user {verb_text}{_third_person(rest)}",
            clause,
            attribute=attribute,
        )
    return None


def named(sentence: str) -> Candidate | None:
    """ "Hi, I'm Priya", "my name's Priya": the user's name, when ``sentence`` opens with it
    (core.judge.introduction), quoted from the sentence's start through the name."""
    found = introduction(sentence)
    if found is None:
        return None
    text = f"The user's name is {found.name}"
    return candidate("fact", "semantic", text, found.quote, attribute="name")


def _named_holder(clause: str) -> Holder | None:
    """A named holder of the user's own role: a capitalised name, "is", "my" (never a pronoun,
    a demonstrative, a common noun, or "our", which is not the user's alone)."""
    holder = read_holder(clause)
    if holder is None or not holder.named or holder.poss.lower() != "my":
        return None
    return holder if holder.be.lower() == "is" else None


def _decision(clause: str, m: re.Match[str], shared_target: str) -> Candidate | None:
    """ "I decided X" is the user's and personal; "we / the team / Sam and I decided X" keeps
    who decided and goes to the target for shared decisions."""
    target = "personal" if m.group("who").lower() == "i" else shared_target
    return candidate("decision", "episodic", _third_person(clause), clause, target=target)


def _plan(clause: str, anchor: datetime) -> Candidate | None:
    # A plan looks ahead: "the friend I met last night" or "over the past month" (which ends
    # today) date nothing to review; "today" and "this week" do.
    today = anchor.date()
    found = [e for e in temporal.expressions(clause, anchor) if e.end > today or e.start >= today]
    if not found:
        return None
    valid_from = valid_until = None
    review: temporal.Expression | None = None
    # event_at: the plan's own date ("on 4 December"), else the day it starts ("from ...").
    happens: temporal.Expression | None = None
    starts: temporal.Expression | None = None
    for expression in found:
        # The words before the expression, and its own first word ("until July" is one
        # expression, "until 3 July" a word and an expression).
        before = f"{clause[: expression.span[0]]} {expression.text.split()[0]}".lower()
        if re.search(r"\b(until|till|through|thru)\s*(\S+)?$", before):
            valid_until = expression.end.isoformat()
            review = review or expression
        elif re.search(r"\b(from|starting|as of|beginning)\s*(\S+)?$", before):
            valid_from = expression.start.isoformat()
            starts = expression
        else:
            review = expression
            happens = happens or expression
    review = review or found[0]
    day = happens or starts
    head = re.match(r"^i(?:'m| am| will|'ll| plan to| intend to)\b", clause, flags=re.I)
    verb = {"'m": "is", " am": "is", " will": "will", "'ll": "will"}.get(
        head.group(0)[1:].lower() if head else "", ""
    )
    if head and not verb:
        verb = "plans to" if "plan" in head.group(0).lower() else "intends to"
    rest = clause[head.end() :] if head else clause
    return candidate(  # a plan the schema refuses (a 3,000-character list) is no plan
        "fact",
        "semantic",
        f"The user {verb}{_third_person(rest)}",
        clause,
        valid_from=valid_from,
        valid_until=valid_until,
        review_at=review.end.isoformat(),
        event_at=day.start.isoformat() if day else None,
    )


def procedure(sentence: str, m: re.Match[str]) -> Iterator[Candidate]:
    trigger, condition, action = m.group(1), m.group(2), m.group(3)
    if action.lower().startswith(("i ", "i'm", "we ")) or len(action.split()) < 2:
        return
    when = f"{trigger.lower()} {_third_person(condition)}"
    try:  # like candidate(): one the schema refuses is dropped, not the session's job
        yield Candidate(
            kind="procedure",
            type="procedural",
            content=_sentence(f"{trigger.capitalize()} {_third_person(condition)}, {action}"),
            evidence=sentence,
            source_kind="user_statement",
            procedure=ProcedureDraft(
                name=" ".join(action.split()[:6]), when=when, steps=[_sentence(action)]
            ),
        )
    except ValidationError:
        return


def candidate(
    kind: str,
    memory_type: str,
    content: str,
    evidence: str,
    *,
    attribute: str | None = None,
    source: str = "user_statement",
    target: str = "personal",
    **dates: str | None,
) -> Candidate | None:
    """A candidate, or None for one the schema refuses (a 3,000-character "sentence" from a
    pasted log): a rule-based extractor must not fail a whole session over one line. ``dates``
    are a plan's (event_at, review_at, valid_from, valid_until)."""
    try:
        return Candidate.model_validate(
            {
                "kind": kind,
                "type": memory_type,
                "content": _sentence(content),
                "evidence": evidence,
                "source_kind": source,
                "attribute": attribute.lower() if attribute else None,
                "target": target,
                **dates,
            }
        )
    except ValidationError:
        return None


def _third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def _conjugate(verb: str) -> str:
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _sentence(text: str) -> str:
    text = " ".join(text.split()).strip(" ,;")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!")) else text + "."


def restates(new: list[Candidate], old: list[Candidate]) -> bool:
    """Whether a new candidate states the same fact as an old one with another value: the same
    attribute, or contents that open with the same three words ("The user is ...")."""
    for n in new:
        for o in old:
            if n.attribute is not None and n.attribute == o.attribute:
                return True
            if n.content.split()[:3] == o.content.split()[:3] and n.content != o.content:
                return True
    return False


__all__ = [
    "PROCEDURE",
    "candidate",
    "fact",
    "in_their_words",
    "named",
    "procedure",
    "qualified",
    "restates",
]

"""What a quote sentence states in other words, said in the plain words the readings know.

Like core.judge.rephrase (idioms), each rule rewrites only its own words, keeping what stands
around them (a hedge, a negation, another subject, a question mark) so that each reading's
vetoes still see it; a rule that has to state a new sentence (a possessed event) first
refuses a sentence with anything that could change the claim. The classes:

- an ended habit: "I quit / stopped / gave up smoking" states "I am a former smoker" (a
  gerund with no object of its own; "... but started again" keeps it);
- a change to a value: "my landlord raised the rent to 1,450" states "my rent is now 1,450"
  (raised, increased, cut, lowered, ...; "to", never "by" or "from ... to"; the thing is the
  speaker's: "my X", or "the X" changed by the speaker or by someone of the speaker's);
- a contrasted preference over two clauses: "I dislike X, I prefer Y" (also after the idioms
  of core.judge.rephrase: "I'm not a fan of X, Y works better for me") states "I prefer Y to X";
- an institution: "my (daughter's) school is Hillcrest" states "(my daughter) attend(s)
  Hillcrest"; a go-to thing: "my go-to editor is Vim" states "I use Vim as my main editor";
- a frequency: "three times a week", "every evening", "daily" state "regularly"; doing a
  discipline ("I do yoga", "doing Muay Thai": a named one, or one of a short list of arts,
  sports and practices) states practising it;
- a retirement: "I'm retired, (I) spent 30 years as a postal worker" (or "after N years as")
  states "I am a retired postal worker", in a sentence with no negation, hedge or question;
- a possessed event: "(for) my sister's wedding" states "my sister is having a wedding", in a
  sentence with no past, hedge, negation or question.
"""

from __future__ import annotations

import re

_STOP = r"[^,.;:!?]"  # one clause
_CLAUSE_START = r"(?:^|(?<=[,;:])\s*|\b(?:and|so|but)\s+)"
_NEGATED = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_HEDGED = re.compile(
    r"\b(?:might|may|maybe|perhaps|if|when|could|would|should|will|want\w*|hop\w+|wish\w*|"
    r"plan\w*|try\w*|tried|going\s+to|gonna|think|guess|probably|supposed)\b",
    re.IGNORECASE,
)

_ENDED = re.compile(
    r"\b(?P<who>I)(?:'ve|\s+have)?\s+(?:finally\s+)?(?:quit|stopped|gave\s+up|given\s+up)\s+"
    r"(?P<verb>[a-z]{3,}ing)(?P<when>\s+(?:\w+\s+){0,3}?ago|\s+(?:last|this)\s+\w+|"
    r"\s+in\s+\w+)?(?=\s*(?:[,.;:!?]|\band\b|\bbut\b|$))",
    re.IGNORECASE,
)
_TAKEN_UP_AGAIN = re.compile(
    r"\b(?:started|began|took\s+it\s+up|picked\s+it\s+up)\s+again\b|\brelapsed\b|"
    r"\b(?:went|gone|got)\s+back\b",
    re.IGNORECASE,
)

_CHANGED = re.compile(
    r"\b(?P<who>I|we|my\s+\w+|our\s+\w+|the\s+\w+)\s+(?:just\s+|finally\s+|recently\s+)?"
    r"(?:raised|increased|upped|bumped|lowered|reduced|cut|dropped|changed|moved)\s+"
    r"(?P<det>my|our|the)\s+(?P<thing>[a-z]+(?:\s+[a-z]+){0,2}?)\s+(?:up\s+|down\s+)?to\s+"
    r"(?P<value>[$€£]?\d[\d,.]*k?(?:\s*(?:%|percent|[a-z]+))?"
    r"(?:\s+(?:a|an|per|each)\s+(?:month|year|week|day|hour))?)(?=\s*(?:[,.;:!?]|$|\s))",
    re.IGNORECASE,
)

_LIKING = r"(?:prefer|like|love|enjoy)"
_DISLIKING = r"(?:dislike|hate|avoid)"
_CONTRAST = re.compile(
    rf"^(?P<before>.*?)\bI\s+{_DISLIKING}\s+(?P<y>{_STOP}+?)\s*[,;]\s*(?:so\s+|and\s+)?"
    rf"I\s+{_LIKING}\s+(?P<x>{_STOP}+?)(?P<end>\s*(?:[.!]|$))",
    re.IGNORECASE,
)

_SCHOOL = r"(?:school|college|university|uni|daycare|nursery|preschool|kindergarten)"
_NAME = r"[A-Z][\w.&'-]*(?:\s+(?:of\s+)?[A-Z][\w.&'-]*){0,4}"
_INSTITUTION = re.compile(
    rf"{_CLAUSE_START}(?P<owner>[Mm]y(?:\s+(?P<who>[a-z]+)'s)?)\s+{_SCHOOL}\s+is\s+(?P<name>{_NAME})"
    rf"(?=\s*(?:[,.;:!?]|$))",
)
_GO_TO = re.compile(
    rf"{_CLAUSE_START}my\s+(?:go-to|usual|main|primary|everyday|daily)\s+"
    rf"(?P<thing>[a-z]+(?:\s+[a-z]+)?)\s+is\s+(?P<name>{_STOP}{{1,40}}?)(?=\s*(?:[,.;:!?]|$))",
    re.IGNORECASE,
)

_NUMBER = r"(?:\d+|two|three|four|five|six|seven|a\s+few|several|many)"
_FREQUENCY = re.compile(
    rf"\b(?:{_NUMBER}\s+times|once|twice)\s+(?:a|per|each|every)\s+(?:day|week|month)\b|"
    r"\bevery\s+(?:single\s+)?(?:day|morning|evening|night|week|weekend|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)\b"
    r"|\b(?:daily|weekly|nightly)(?=\s*(?:[,.;:!?]|$))",
    re.IGNORECASE,
)

_DISCIPLINE = (
    r"(?:(?i:yoga|pilates|karate|judo|taekwondo|aikido|jiu-jitsu|jujitsu|kickboxing|boxing|fencing|"
    r"ballet|meditation|tai\s+chi|qigong|crossfit|gymnastics|parkour|archery|calligraphy)|"
    r"[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)\b"
)
_DOING = re.compile(rf"\b(?P<verb>[Dd]o|[Dd]oes|[Dd]oing)\s+(?={_DISCIPLINE})")
_PRACTISING = {"do": "practice", "does": "practices", "doing": "practicing"}

_RETIRED = re.compile(
    r"\bI(?:'m|\s+am)\s+(?:now\s+)?retired\b|\bI(?:'ve|\s+have)?\s+(?:just\s+)?retired\b"
)
_ROLE_YEARS = re.compile(
    r"\b(?:spent|after|worked|served)\s+(?:\w+\s+){0,2}(?:years?|decades?)\s+as\s+(?:an?\s+)?"
    r"(?P<role>[a-z]+(?:\s+[a-z]+)?)(?=\s*(?:[,.;:!?]|$))",
    re.IGNORECASE,
)

_EVENT = (
    r"(?:(?:bar|bat)\s+mitzvah|wedding|birthday\s+party|birthday|graduation|baby\s+shower|"
    r"christening|engagement\s+party|retirement\s+party|recital|surgery|operation)"
)
_POSSESSED_EVENT = re.compile(
    rf"(?<!')\b(?P<owner>my|our)\s+(?P<who>[a-z]+)'s\s+(?P<event>{_EVENT})\b", re.IGNORECASE
)
_PAST_OR_OPEN = re.compile(
    r"\b(?:was|were|had|did|went|got|used|last|ago|yesterday|missed|cancel\w*|postpone\w*|"
    r"off|ex)\b|\b\w+ed\b|\?",
    re.IGNORECASE,
)


def restatements(sentence: str) -> list[str]:
    """What ``sentence`` states by the classes of the module docstring: one sentence with
    every in-place rewrite done, and any new sentence a rule states; none when none apply."""
    text = sentence
    for rewrite in (_ended, _changed, _contrasted, _institution, _go_to, _regular, _practising):
        turned = rewrite(text)
        if turned is not None:
            text = turned
    out = [text] if text != sentence else []
    stated = (_possessed_event(sentence), _retired(sentence))
    return [*out, *(s for s in stated if s is not None)]


def _clause_before(text: str, start: int) -> str:
    return re.split(r"[,.;:!?]", text[:start])[-1]


def _ended(text: str) -> str | None:
    m = _ENDED.search(text)
    if m is None or _NEGATED.search(_clause_before(text, m.start())):
        return None
    if _HEDGED.search(_clause_before(text, m.start())) or _TAKEN_UP_AGAIN.search(text[m.end() :]):
        return None
    verb = m.group("verb").lower()
    agent = verb[:-3] + "er"  # smoking -> smoker, running -> runner, vaping -> vaper
    return f"{text[: m.start()]}{m.group('who')} am a former {agent}{text[m.end() :]}"


def _changed(text: str) -> str | None:
    m = _CHANGED.search(text)
    if m is None or _NEGATED.search(_clause_before(text, m.start())):
        return None
    rest = re.split(r"[,.;:!?]", text[m.end() :])[0]
    if re.search(r"\bfrom\b", rest, re.IGNORECASE):
        return None  # "... to 1,450 from 1,300": left to the readings
    who = m.group("who").lower()
    det = m.group("det").lower()
    if det == "the":
        # "the rent" is the speaker's only when the speaker or someone of theirs changed it.
        if not (who in ("i", "we") or who.startswith(("my ", "our "))):
            return None
        det = "our" if who == "we" or who.startswith("our ") else "my"
    return f"{text[: m.start()]}{det} {m.group('thing')} is now {m.group('value')}{text[m.end() :]}"


def _contrasted(text: str) -> str | None:
    m = _CONTRAST.search(text)
    if m is None or _NEGATED.search(m.group("x")) or _NEGATED.search(m.group("y")):
        return None
    if _HEDGED.search(m.group("x")) or _HEDGED.search(m.group("y")):
        return None
    return f"{m.group('before')}I prefer {m.group('x')} to {m.group('y')}{m.group('end')}"


def _institution(text: str) -> str | None:
    m = _INSTITUTION.search(text)
    if m is None:
        return None
    who = m.group("who")
    subject = f"my {who} attends" if who else "I attend"
    start = m.start("owner")
    return f"{text[:start]}{subject} {m.group('name')}{text[m.end() :]}"


def _go_to(text: str) -> str | None:
    m = _GO_TO.search(text)
    if m is None or _NEGATED.search(m.group("name")):
        return None
    start = m.start() + m.group(0).lower().index("my")
    plain = f"I use {m.group('name')} as my main {m.group('thing')}"
    return f"{text[:start]}{plain}{text[m.end() :]}"


def _regular(text: str) -> str | None:
    m = _FREQUENCY.search(text)
    if m is None:
        return None
    return f"{text[: m.start()]}regularly{text[m.end() :]}"


def _practising(text: str) -> str | None:
    # A named discipline is capitalised, so only the list and the verb ignore case.
    m = _DOING.search(text)
    if m is None:
        return None
    verb = _PRACTISING[m.group("verb").lower()]
    return f"{text[: m.start()]}{verb} {text[m.end() :]}"


def _retired(text: str) -> str | None:
    if _RETIRED.search(text) is None or (m := _ROLE_YEARS.search(text)) is None:
        return None
    if _NEGATED.search(text) or _HEDGED.search(text) or "?" in text:
        return None
    return f"I am a retired {m.group('role')}."


def _possessed_event(text: str) -> str | None:
    m = _POSSESSED_EVENT.search(text)
    if m is None or _PAST_OR_OPEN.search(text) or _NEGATED.search(text) or _HEDGED.search(text):
        return None
    return f"{m.group('owner').capitalize()} {m.group('who')} is having a {m.group('event')}."

"""Whether a query asks about the user as a whole: the question core.search.profile answers.

"What do you know about me?" asks for what is known about the user and nothing more. People
ask it in many orders ("what info u got on me", "show me everything you've memorized about
me", "Tell me about myself", "Who am I?", "describe me", "What's in my profile?", "What do we
know about the user?"), so ``asks`` reads words rather than one pattern. The question opens
like a question or a request for what is known (``_OPENERS``; a yes/no question only when it
asks to be told, "Can you tell me what you know about me?", or whether anything is known, "Do
you know anything about me?"), names the user as what it is about (``_WHO``), and says no
other word but ones with no topic (``_PLAIN``), with only a few trailing phrases ("so far",
"as a person", "from our chats": ``_TAILS``). So a question with a topic ("What do you know
about my job?", "... about me and running?"), about one side or one time of the user ("What
are my hobbies?", "What did you learn about me earlier?"), about the assistant or the world
("Tell me about yourself", "What do you know about Python?", "What is stored in the user
profile?"), how memory works or what it will do ("How do you store data about me?", "What
will you learn about me?"), what went elsewhere ("What have you shared about me?"), a command
("Remember that about me") or a statement ("Now you know everything about me") is searched as
before, as is anything written like an identifier ("user_profile").

Limits: English forms only; a whole-person request worded as a task ("Write a short bio about
me"), with a time ("What did you learn about me last week?") or as a bare "user profile" (a
product's user profile is as likely) is searched as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def _phrases(*texts: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(text.split()) for text in texts)


# Who a whole-person question is about: the user, as the user or an agent names them.
_WHO = _phrases(
    "me",
    "myself",
    "the user",
    "this user",
    "the current user",
    "our user",
    "who i am",
    "the person we're talking to",
    "the person i'm talking to",
    "the person we're helping",
    "the person i'm helping",
    "the person i'm assisting",
    "the person we're assisting",
)
# The words that say where what is known is about: "about me", "on me", "of me".
_ABOUT = frozenset("about abt bout on of regarding concerning".split())
# Words that ask for what is known, one of which the question must say.
_KNOWING = frozenset(
    """know kno knw knew known remember remembering remembered recall learn learned learnt
    learning gather gathered collected memorized memorised stored saved kept recorded noted
    store save keep hold retain got built figured found picked told tell telling describe
    summarize summarise summary overview rundown profile background info information
    data facts details memories records notes stuff things everything all mental model
    impression understanding have has memory recap shared revealed mentioned said file taken
    knowledge storing context lowdown written""".split()
)
# Words with no topic such a question may also say: question words, auxiliaries, pronouns, the
# assistant or its memory, requests, and general nouns.
_PLAIN = _KNOWING | frozenset(
    """what whats what's wat wht which do does did have has had can could would will is are
    was were been be being else exactly everything anything any all the a an kind sort of you
    u ya yall y'all we i i've you've we've youve weve r ur your our assistant agent system bot
    ai memory show remind list give dump compile retrieve get fetch pull up paint personal key
    general full whole complete in on file record far already over mind say says build
    currently even me with think more so actually really already out quick brief short kinds
    type types waht whatcha whatchu whatd d'you please there it down""".split()
)
# The first word of such a question, after any opener: it asks (what, which), requests (tell,
# show ...), or names what is known (everything, your picture, all the facts ...).
_OPENERS = frozenset(
    """what whats what's wat wht waht whatcha whatchu which tell show give list summarize summarise
    recap describe
    dump compile retrieve get fetch pull remind everything all anything a the your any
    key general full whole complete personal info information facts details memories records
    notes stuff things background profile overview rundown summary""".split()
)
# A yes/no question asks for what is known only when it asks to be told or shown: "Can you tell
# me what you know about me?", not "Can you remember things about me?" nor "Did you save that
# about me?".
_ASKING = frozenset("do does did have has can could would will is are was".split())
_TOLD = frozenset("tell show give list summarize summarise describe recap mind".split())
# ... or whether anything is known at all: "Do you know anything about me?", "Is there anything in
# your memory about me?"; not whether the user's words went somewhere ("Have you shared anything
# about me?", "Did I tell you anything about me?").
_ANY = frozenset("any anything".split())
_NOW = frozenset("do does did have has is are was".split())  # not "Will you remember ...?"
# What the user passed on, asked of the user only: "What have I told you about myself?", not
# "What have you shared about me?" (what went elsewhere).
_PASSED_ON = frozenset("shared share told tell said mentioned revealed".split())
# What the assistant could or will know is no question of what it knows ("What will you learn
# about me?", "What can you store about me?"), unless it asks to be told.
_MODAL = frozenset("will can could would should might may".split())
# "How much do you know about me?", not "How much data do you store about me?".
_HOW_MUCH = frozenset("do does you u we actually really already even know remember recall".split())
# Words and phrases a question may open with before it asks: "hey", "ok so", "quick q:".
_LEADS = _phrases(
    *"""hey hi hiii hello yo ok okay so and also well um umm hm hmm btw now alright right lol
    haha overall honestly actually seriously please pls plz cool thanks but""".split(),
    "thank you",
    "good morning",
    "good afternoon",
    "good evening",
    "well then",
    "hey assistant",
    "hey there",
    "hi there",
    "so far",
    "what's the deal",
    "quick q",
    "quick question",
    "just curious",
    "just wondering",
    "out of curiosity",
    "i'm curious",
    "im curious",
    "be honest",
    "based on everything",
    "based on everything you know",
    "before we start",
    "before we begin",
    "in general",
    "after all our chats",
    "after all our conversations",
)
# What may trail the person: "so far", "as a person", "based on our chats", "according to you".
_TAILS = _phrases(
    *"""so far already yet now overall exactly really honestly anyway lol haha please pls
    plz anything mate""".split(),
    "if anything",
    "just curious",
    "at this point",
    "until now",
    "up to now",
    "by now",
    "in general",
    "all in all",
    "as a person",
    "over time",
    "according to you",
    "be honest",
    "in your memory",
    "from what you know",
    "from what you've learned",
    "from what you have learned",
    "based on what you know",
    "based on everything",
    "based on stored memories",
    "based on your memory",
    "based on your memories",
    *(
        f"{where} {whose} {what}"
        for where in (
            "from",
            "over",
            "in",
            "across",
            "based on",
            "from all",
            "over all",
            "across all",
        )
        for whose in ("our", "my")
        for what in ("chats", "conversations", "messages", "sessions", "talks")
    ),
)
# Verbs that take the person itself: "describe me", "sum me up", "characterise the user".
_PORTRAY = frozenset(
    "describe summarize summarise sum characterize characterise profile portray".split()
)
# What names the user's whole record, said as the user's own: "my profile", "the user's
# profile", "what's in my profile", "give me my user profile".
_RECORD = frozenset("profile facts background info information details summary overview".split())
_OWNER = frozenset("my user's".split())
_NAMING = frozenset(
    """what whats what's is are the a in of on about for show give me get retrieve fetch pull
    up all stored saved known full whole key general personal your does say says look like user
    load display summarize summarise""".split()
)
_WHO_AM_I = _phrases(
    "who am i",
    "tell me who i am",
    "who would you say i am",
    "who is the user",
    "who is this user",
    "who is the person we're talking to",
    "who is the person i'm talking to",
    "who is the person we're helping",
    "who is the person i'm helping",
)
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_IDENTIFIER = re.compile(r"\w[_/]\w")


def asks(query: str) -> bool:
    """Whether ``query`` asks for what is known about the user as a whole, and nothing more
    (the module docstring says how it is read)."""
    if _IDENTIFIER.search(query):
        return False
    words = _WORD.findall(query.replace("\u2019", "'").casefold())
    if not words or len(words) > 30:
        return False
    words = words[_led(words) :]
    if not words:  # nothing but an opener: "Thanks!", "hey"
        return False
    return _asks_about(words) or _portrays(words) or _names_record(words) or _who_am_i(words)


def _led(words: list[str]) -> int:
    """How many of ``words`` open the question before it asks (``_LEADS``)."""
    at = 0
    while found := _phrase_at(words, at, _LEADS):
        at += found
    return at


def _asks_about(words: list[str]) -> bool:
    """ "What do you know about me?": a question for what is known, then about the person,
    then a tail; or "about me" alone."""
    for at in range(len(words) - 1, -1, -1):
        if words[at] not in _ABOUT:
            continue
        head = words[:at]
        if not head and words[at] != "about":
            continue
        if head and not _asks_for_what_is_known(head):
            continue
        for who in _person(words, at + 1):
            if _trails(words[at + 1 + len(who) :]) and (head or at + 1 + len(who) == len(words)):
                return True
    return False


def _asks_for_what_is_known(head: list[str]) -> bool:
    """Whether ``head`` (the words before "about me") asks for what is known: it opens as a
    question or a request (a yes/no question only to be told or shown), says a knowing word,
    and says nothing else of a topic."""
    if head[:2] == ["how", "much"]:
        return len(head) > 2 and set(head[2:]) <= _HOW_MUCH
    if not (set(head) <= _PLAIN and set(head) & _KNOWING):
        return False
    said = set(head)
    if head[0] in _ASKING:
        told = [w for w in head[1:4] if w != "please"]
        if len(told) > 1 and told[0] in ("you", "u") and told[1] in _TOLD:
            return True
        return head[0] in _NOW and bool(said & _ANY) and not said & _PASSED_ON
    if said & (_PASSED_ON - {"tell", "telling"}) and "i" not in said:
        return False
    if said & _MODAL and not said & _TOLD:
        return False
    return head[0] in _OPENERS


def _portrays(words: list[str]) -> bool:
    """ "Describe me", "sum me up", "how would you describe me from what you've learned"."""
    for at, word in enumerate(words):
        if word not in _PORTRAY:
            continue
        if not set(words[:at]) <= {"how", "would", "could", "can", "you", "u", "please"}:
            return False
        for who in _person(words, at + 1):
            tail = words[at + 1 + len(who) :]
            if _trails(tail[1:] if word == "sum" and tail[:1] == ["up"] else tail):
                return True
        return False
    return False


def _names_record(words: list[str]) -> bool:
    """ "What's in my profile?", "the user's profile", "summarise the user's profile"; not a
    yes/no question about it ("Is my profile complete?")."""
    said = set(words)
    return (
        words[0] not in _ASKING
        and said <= _NAMING | _OWNER | _RECORD
        and bool(said & _RECORD)
        and bool(said & _OWNER)
    )


def _who_am_i(words: list[str]) -> bool:
    """ "Who am I?", "who is the user", "tell me who I am, according to you"."""
    for form in _WHO_AM_I:
        if tuple(words[: len(form)]) == form:
            return _trails(words[len(form) :])
    return False


def _person(words: list[str], at: int) -> list[tuple[str, ...]]:
    """The forms of the person (``_WHO``) that ``words`` say from position ``at``."""
    return [who for who in _WHO if tuple(words[at : at + len(who)]) == who]


def _trails(words: list[str]) -> bool:
    """Whether ``words`` are nothing but trailing phrases (``_TAILS``)."""
    at = 0
    while at < len(words) and (found := _phrase_at(words, at, _TAILS)):
        at += found
    return at == len(words)


def _phrase_at(words: list[str], at: int, phrases: Iterable[tuple[str, ...]]) -> int:
    """The length of the longest of ``phrases`` that ``words`` say from ``at`` (0: none)."""
    return max((len(p) for p in phrases if tuple(words[at : at + len(p)]) == p), default=0)


__all__ = ["asks"]

"""The words the clause reading (core.judge.clauses) treats specially, as lowercase lemmas.

Each list is a general class of English words (hedges, negations, modals, light verbs,
qualifiers that limit a claim), not words taken from any evaluation set. A word missing from
a list that refuses makes the judge less precise; a word missing from a list that accepts
(light verbs, category nouns) makes it refuse more: lists of the second kind are kept short.
"""

from __future__ import annotations

SPEAKER = frozenset("i me us we".split())
PRONOUNS = frozenset("he it she they".split())
SPEAKER_POSS = frozenset("mine my our ours".split())
USER_WORDS = frozenset("her hers herself she".split())
LIGHT = frozenset("be do follow get have keep own take use".split())
OWN = frozenset("be get have own take use".split())
HAVING = frozenset("adopt buy get have inherit keep own receive rescue with".split())
USING = frozenset("drive follow have on run take use".split())
CATEGORY = frozenset(
    ("answer condition disease format output reply response spelling style unit").split()
)
HOUSE = frozenset("family home house household team".split())
NOW = frozenset("currently now presently still today".split())
WISH = frozenset("ask like prefer request want wish would".split())
REQUEST_START = frozenset("can could please pls will would".split())
NEG_WORDS = frozenset("neither never no nobody none nor not nothing without".split())
RARELY = frozenset("barely hardly rarely scarcely seldom".split())
# Quote negation kinds that give a statement's plain "not".
NOT_LIKE = frozenset("end never not".split())
# Modifiers that limit a claim in extent or time, and words that put it in the future.
QUALIFYING = frozenset("acomp advcl advmod amod dep npadvmod prep punct".split())
PARTIAL = frozenset(
    (
        "except generally ish mainly mostly normally occasionally often once part-time "
        "partially partly sometimes somewhat sparingly training twice usually"
    ).split()
)
# Parts of the week limit a state ("vegan except on weekends"), not a habit ("plays in a
# band on weekends").
WEEK_PART = frozenset("weekday weekend".split())
FUTURE = frozenset("later next someday soon tomorrow tonight upcoming".split())
ENDING = frozenset("cancel drop give_up leave lose quit retire sell stop".split())
RESULT = frozenset(
    (
        "adopt become begin buy get give_up join marry move quit relocate retire sell start "
        "stop switch take_up turn"
    ).split()
)
MODALS = frozenset("'d 'll could may might must shall should will would".split())
HEDGE_VERBS = frozenset(
    (
        "advise aim apply ask believe claim consider doubt dream expect guess hope imagine "
        "intend look mean need plan pretend recommend say seem suggest suppose tell think try "
        "want wish wonder worry"
    ).split()
)
HEDGE_ADVERBS = frozenset(
    (
        "allegedly almost apparently basically eventually hopefully kind kinda maybe perhaps "
        "possibly practically probably someday soon sort sorta supposedly technically"
    ).split()
)
# Verbs that may govern a covered verb without changing the claim ("I started running").
ASPECT = frozenset("be begin continue do get go have keep start".split())
# Verbs of going: their past puts the speaker in the place they went "to".
ARRIVE = frozenset("come emigrate fly go move relocate return travel".split())
# Verbs of deciding: "we decided" is a shared decision, not the user's alone.
DECIDE = frozenset("agree choose decide opt pick select settle vote".split())
# After a past change, words that say a later one followed ("moved to Leeds, then to York").
SEQUENCE = frozenset("after afterwards before later then till until".split())
AGAINST = frozenset("instead over than".split())
# Prepositions that give a reason or a duration, which a negation does not narrow.
REASONS = frozenset("because due for since".split())
APPROXIMATE = frozenset("about approximately around roughly".split())
CONDITIONS = frozenset("if like once unless until when whenever whether".split())
PRIVATIVE = frozenset(
    (
        "almost approximately around ex fake former future imaginary late nearly potential "
        "previous roughly would-be"
    ).split()
)
PREP_GROUPS = [
    frozenset("at in inside into on within".split()),
    frozenset("for to toward towards".split()),
    frozenset("over than to".split()),
    frozenset("with".split()),
    frozenset("from".split()),
    frozenset("by via".split()),
    frozenset("of".split()),
    frozenset("as".split()),
]
all__ = [
    frozenset("R a d e g i n".split()),
    frozenset("d d e e i r v".split()),
    frozenset("_ a a c d e e l r s s u".split()),
]

# Words that stress rather than narrow what they stand before ("not a single pet", "a damn
# car", "the whole lot"), and the units a count of time is in ("I haven't smoked in 5 years"
# still says "in years"): under a negation neither is a qualifier the statement must keep.
INTENSIFIERS = frozenset(
    "single whole damn damned bloody fucking freaking frigging flipping".split()
)
TIME_UNITS = frozenset(
    "second seconds minute minutes hour hours day days week weeks month months year years "
    "decade decades".split()
)
# Words that, negated, deny only part of a claim ("I don't always eat breakfast", "I don't
# speak French fluently", "I don't drink a lot of coffee", "I don't sleep well"): under a
# negation the statement must keep them.
NEGATED_IN_PART = frozenset(
    "always all every everything much lot lots often very quite too fully completely entirely "
    "totally exactly daily fluently well regularly".split()
)


def denies_in_part(word: str, before: str) -> bool:
    """Whether ``word`` (after ``before``, both casefolded) makes a negation partial
    (``NEGATED_IN_PART``); "all" in "at all" makes it whole ("I don't eat meat at all")."""
    return word in NEGATED_IN_PART and not (word == "all" and before == "at")

"""The offline judge's clause reading (core/judge/clauses.py), on the real packaged parser.

It accepts paraphrases that the word rules refuse (first person to "the user", requests to
wishes, "have got", "can't stand", relation words, numbers in words), vetoes who-does-what
swaps that the word readings let through, and, when no parser can be loaded, says so and
leaves the word rules to judge alone. The held-out pairs (tests/data/judge-pairs-heldout.jsonl)
were written before the reading was tuned and were never tuned on: every false one is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_memory.core import Memory
from agent_memory.core.judge import OfflineJudge
from agent_memory.core.judge.parse import Parser
from tests.support.clock import NOW
from tests.support.paths import TEST_DATA

pytestmark = pytest.mark.skipif(
    not Parser().available, reason="spaCy or its English model package is not installed"
)

# Paraphrases that need the parse: the word rules alone refuse each of them.
PARAPHRASES = [
    ("I got married last June.", "The user is married."),
    ("I've worked at Siemens since 2015.", "The user works at Siemens."),
    ("I work as a paramedic in Cork.", "The user is a paramedic."),
    ("I've been studying Korean for a year.", "The user is studying Korean."),
    ("I quit drinking last year.", "The user no longer drinks."),
    ("I'm an accountant at a bank in Leeds.", "The user works at a bank."),
    ("My mum's birthday is on the 14th of August.", "The user's mother's birthday is August 14."),
]

# Hard negatives, each one a general trap of the clause reading (and of the word readings).
REFUSED = [
    # who does what
    ("Maria hired me last year.", "The user hired Maria last year."),
    ("I beat Tom at tennis.", "Tom beat the user at tennis."),
    ("My grandma raised me in Ohio.", "The user raised their grandma in Ohio."),
    ("I like cats more than dogs.", "The user likes dogs more than cats."),
    ("I prefer tea over coffee.", "The user prefers coffee."),
    ("I have two sisters and a brother.", "The user has two brothers."),
    ("I'm a vet's receptionist.", "The user is a vet."),
    ("I'm married to a pilot.", "The user is a pilot."),
    ("I work with Maria, who is a nurse.", "The user is a nurse."),
    ("My neighbour's cat is called Pickle.", "The user has a cat named Pickle."),
    ("My husband is allergic to shellfish.", "The user has a shellfish allergy."),
    # what is to come, limited, hedged, negated, embedded
    ("I'm getting married in June.", "The user is married."),
    ("My son turns 10 next week.", "The user's son is ten years old."),
    ("I'd like to teach maths someday.", "The user is a maths teacher."),
    ("I stopped studying Korean last year.", "The user is studying Korean."),
    ("I used to love hiking.", "The user enjoys hiking."),
    ("I'm not a fan of sci-fi novels.", "The user likes sci-fi novels."),
    ("I interviewed at Siemens last week.", "The user works at Siemens."),
    ("I sometimes drink coffee.", "The user drinks coffee."),
    ("I don't eat meat on Fridays.", "The user does not eat meat."),
    ("People keep assuming I'm Australian.", "The user is Australian."),
    ("I kind of miss living in the city.", "The user lives in the city."),
    ("Neither my wife nor I smoke.", "The user smokes."),
    ("I'm allergic to cats, not dogs.", "The user is allergic to dogs."),
]

HELDOUT = TEST_DATA / "judge-pairs-heldout.jsonl"
_ROWS = [json.loads(line) for line in HELDOUT.read_text().splitlines() if line.strip()]
# Known misses, kept visible: a strict xfail turns into a failure once the judge gets it right.
_KNOWN = {
    "H-f062": "'moved from 2pm to 4pm': the old value of a change is read as the current one",
}
HELDOUT_FALSE = [
    pytest.param(
        row["quote"],
        row["content"],
        id=row["id"],
        marks=[pytest.mark.xfail(reason=_KNOWN[row["id"]], strict=True)]
        if row["id"] in _KNOWN
        else [],
    )
    for row in _ROWS
    if not row["label"]
]


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


@pytest.fixture(scope="module")
def words_only() -> OfflineJudge:
    return OfflineJudge(clauses=False)


@pytest.mark.parametrize(("quote", "statement"), PARAPHRASES)
def test_the_clause_reading_accepts_a_paraphrase_the_word_rules_refuse(
    judge: OfflineJudge, words_only: OfflineJudge, quote: str, statement: str
) -> None:
    assert not words_only.entails(quote, statement, context=quote).holds
    verdict = judge.entails(quote, statement, context=quote)
    assert verdict.holds, verdict.reason
    assert "clause reading" in verdict.reason
    assert 0.75 <= verdict.score <= 1.0


@pytest.mark.parametrize(("quote", "statement"), REFUSED)
def test_the_clause_reading_refuses_hard_negatives(
    judge: OfflineJudge, quote: str, statement: str
) -> None:
    verdict = judge.entails(quote, statement, context=quote)
    assert not verdict.holds, verdict.reason
    assert verdict.score < 0.5


def test_the_parse_vetoes_a_role_swap_the_word_readings_accept(
    judge: OfflineJudge, words_only: OfflineJudge
) -> None:
    """The paraphrase reading covers every word of "the user hired Maria" in "Maria hired me";
    the parse shows Maria did the hiring."""
    quote, statement = "Maria hired me last year.", "The user hired Maria last year."
    # The word readings refuse it too since core.judge.roles reads the direction of "hired".
    assert not words_only.entails(quote, statement, context=quote).holds
    assert not judge.entails(quote, statement, context=quote).holds


@pytest.mark.parametrize(("quote", "statement"), HELDOUT_FALSE)
def test_every_false_heldout_pair_is_refused(
    judge: OfflineJudge, quote: str, statement: str
) -> None:
    assert not judge.entails(quote, statement, context=quote).holds


def test_the_name_says_which_reading_runs(judge: OfflineJudge, words_only: OfflineJudge) -> None:
    assert judge.name.startswith("offline-rules-v1+clauses+wordnet (spacy ")
    assert words_only.name == "offline-rules-v1+wordnet (clause reading off)"


def test_without_a_model_package_the_word_rules_judge_alone() -> None:
    """A parser whose model cannot be imported: the name says why, the word rules still
    accept a plain restatement, and a paraphrase only the parse reads is refused."""
    judge = OfflineJudge(Parser(packages=("no_such_spacy_model_package",)))
    assert judge.name == (
        "offline-rules-v1+wordnet (clause reading off: no English model package is installed "
        "(tried no_such_spacy_model_package))"
    )
    assert judge.entails("I live in Porto.", "The user lives in Porto.").holds
    assert not judge.entails("I got married last June.", "The user is married.").holds


def test_the_verdict_is_deterministic(judge: OfflineJudge) -> None:
    quote, statement = "I'm allergic to shellfish.", "The user has a shellfish allergy."
    first = judge.entails(quote, statement, context=quote)
    assert all(judge.entails(quote, statement, context=quote) == first for _ in range(3))
    assert OfflineJudge().entails(quote, statement, context=quote) == first


def _write(memory: Memory, turn: str, content: str) -> dict[str, Any]:
    memory.grant("assistant", "user:u1", now=NOW)
    session = memory.session(agent_id="assistant", user_id="u1", session_id="s-1", now=NOW)
    session.add_turn("user", turn, at=NOW)
    session.add_turn("assistant", "Noted.", at=NOW)
    args = {
        "type": "semantic",
        "content": content,
        "source_kind": "user_statement",
        "evidence": turn,
    }
    return session.call("memory_write", args, now=NOW)


def test_memory_write_confirms_a_paraphrase_read_from_the_parse(memory: Memory) -> None:
    result = _write(memory, "I'm a big fan of sci-fi novels.", "The user likes sci-fi novels.")
    assert (result["status"], result["source_kind"]) == ("confirmed", "user_statement")


def test_memory_write_does_not_confirm_a_role_swap(memory: Memory) -> None:
    result = _write(memory, "Maria hired me last year.", "The user hired Maria last year.")
    assert (result["status"], result["source_kind"]) == ("provisional", "agent_inference")


def test_memory_warm_loads_the_judges_parser(tmp_path: Path) -> None:
    """In a fresh process: the parser loads on first use, and Memory.warm() is that use, so
    no write pays for it."""
    code = (
        "import sys; from pathlib import Path; from agent_memory.core import Memory; "
        "from agent_memory.core.embedder import HashingEmbedder; "
        f"m = Memory.open(Path({str(tmp_path / 'm.db')!r}), embedder=HashingEmbedder()); "
        "before = m.judge.loaded; m.warm(); "
        "print(before, m.judge.loaded, 'torch' in sys.modules); m.close()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "False"]


def test_a_clause_reading_verdict_does_not_depend_on_the_hash_seed() -> None:
    """Of two clauses the statement's words sit in equally, the one chosen was the first in
    set order, so this pair held or not from one process to the next (seeds 0 and 2 held, 1
    and 3 refused); now the clause that says the statement's verb is chosen."""
    quote = "I don't know him very well, but I don't trust him."
    code = (
        "from agent_memory.core.judge import OfflineJudge; "
        f"print(OfflineJudge().entails({quote!r}, 'The user does not trust him.', "
        f"context={quote!r}).holds)"
    )
    verdicts = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("0", "1", "2", "3")
    }
    assert verdicts == {"True"}

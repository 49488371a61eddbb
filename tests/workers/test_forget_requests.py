"""A request to forget is an instruction about memory, never a statement to keep, and a
credential is never kept at all (both found by an adversarial review: "Please forget that I see
a therapist." was stored, verbatim and confirmed, right after the agent forgot the fact it
names, and the session summary listed its words; "My password is hunter2." was a confirmed
fact). The offline extractor keeps no sentence asking to forget or telling a credential, the
summary leaves their words out, and the judge refuses a quote inside a forget request
(core.framing.asks_to_forget, tells_a_secret); through the whole pipeline on a real store and
the packaged model."""

from __future__ import annotations

import pytest

from agent_memory.core import Memory
from agent_memory.core.framing import asks_to_forget, tells_a_secret
from agent_memory.core.judge import OfflineJudge
from agent_memory.core.models import SourceKind
from tests.support.clock import NOW
from tests.support.extraction import extracted_session

REQUESTS = [
    "Please forget that I see a therapist.",
    "Forget what I told you about my anxiety treatment.",
    "Can you delete what I told you about my ex?",
    "I'd like you to forget my home address, it's 12 Elm Street.",
    "pls dont store that i take sertraline",
    "Oh, and erase everything you know about my divorce.",
]
NOT_REQUESTS = [
    "I forget my keys all the time.",
    "Don't forget to remind me about the dentist on Friday.",
    "Delete the second paragraph, it repeats the first.",
    "Forget the beach, we're going to the mountains in July.",
    "Please remember that I am vegan.",
]


def test_what_asks_to_forget_and_what_does_not() -> None:
    assert [s for s in REQUESTS if not asks_to_forget(s)] == []
    assert [s for s in NOT_REQUESTS if asks_to_forget(s)] == []


@pytest.mark.parametrize("said", REQUESTS)
def test_a_forget_request_is_not_extracted_nor_summarised(mem: Memory, said: str) -> None:
    extracted_session(mem, "s1", said)
    rows = mem.store.query("SELECT id FROM records")
    found = mem.store.get_records([r["id"] for r in rows]).values()
    assert [r.content for r in found if r.source_kind is not SourceKind.SESSION_SUMMARY] == []
    [summary] = [r for r in found if r.source_kind is SourceKind.SESSION_SUMMARY]
    named = {"therapist", "anxiety", "address", "sertraline", "divorce", "treatment"}
    assert not named & set(summary.content.lower().replace(",", " ").replace(".", " ").split())


def test_a_sentence_beside_the_request_is_still_kept(mem: Memory) -> None:
    extracted_session(mem, "s1", "Please forget that I see a therapist. I live in Leeds.")
    rows = mem.store.query("SELECT content FROM records WHERE source_kind = 'user_statement'")
    assert [r["content"] for r in rows] == ["The user lives in Leeds."]


def test_the_judge_refuses_a_quote_inside_a_forget_request(mem: Memory) -> None:
    verdict = OfflineJudge().entails(
        "I see a therapist", "The user sees a therapist.", context=REQUESTS[0]
    )
    assert not verdict.holds and "forget" in verdict.reason
    s = mem.session(agent_id="assistant", user_id="alice", session_id="w", now=NOW)
    s.add_turn("user", REQUESTS[0], at=NOW)
    written = s.call(
        "memory_write",
        {
            "type": "semantic",
            "content": "The user sees a therapist.",
            "source_kind": "user_statement",
            "evidence": "I see a therapist",
        },
        now=NOW,
    )
    assert written["source_kind"] == "agent_inference", written


SECRETS = [
    "My password is hunter2.",
    "My bank PIN is 4921, don't tell anyone.",
    "the wifi password for the cabin is fjord123",
]


@pytest.mark.parametrize("said", SECRETS)
def test_a_credential_is_never_kept(mem: Memory, said: str) -> None:
    """ "My password is hunter2." was stored as a confirmed fact (an adversarial review): a
    credential with its value is neither kept nor summarised (core.framing.tells_a_secret)."""
    extracted_session(mem, "s1", said.rstrip(".") + ". I live in Leeds.")
    rows = mem.store.query("SELECT content FROM records")
    text = " ".join(r["content"] for r in rows).lower()
    assert not {"hunter2", "4921", "fjord123"} & set(text.replace(".", " ").split())
    assert "The user lives in Leeds." in [r["content"] for r in rows]
    # nor in the retrieval context of the turn's other records, which a search reads
    contexts = mem.store.query("SELECT context FROM records WHERE context IS NOT NULL")
    assert contexts and not any(
        w in (r["context"] or "") for r in contexts for w in ("hunter2", "4921", "fjord123")
    )


def test_what_tells_a_credential_and_what_does_not() -> None:
    assert all(tells_a_secret(s) for s in SECRETS)
    assert not any(
        tells_a_secret(s)
        for s in ["My password manager is 1Password.", "I forgot my password again."]
    )

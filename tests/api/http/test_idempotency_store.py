"""The idempotency keys' claims in the store (core.store.idempotency), across the states a
server process can find them in: new, in progress, abandoned, replayed, reused, expired."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from agent_memory.core import HashingEmbedder, Memory
from agent_memory.core.store import idempotency
from tests.support.clock import NOW


def claim(mem: Memory, key: str, digest: str, *, after: float = 0.0) -> idempotency.Claim:
    return idempotency.claim(
        mem.store, "planner", key, request_digest=digest, user_id="alice",
        now=NOW + timedelta(seconds=after), ttl_seconds=3600, stale_seconds=60,
    )  # fmt: skip


def test_claims_run_a_request_once(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW)
    assert claim(mem, "k", "d1").state == "new"
    assert claim(mem, "k", "d1", after=1).state == "in_progress"  # a concurrent retry waits
    assert claim(mem, "k", "d2", after=1).state == "mismatch"
    idempotency.complete(mem.store, "planner", "k", status=201, body='{"a":1}')
    assert claim(mem, "k", "d1", after=2) == idempotency.Claim("replay", 201, '{"a":1}')
    # Another agent's same key is its own.
    other = idempotency.claim(
        mem.store, "other", "k", request_digest="d1", user_id=None, now=NOW,
        ttl_seconds=3600, stale_seconds=60,
    )  # fmt: skip
    assert other.state == "new"
    # Expired after the ttl: the key is new again.
    assert claim(mem, "k", "d2", after=3601).state == "new"
    mem.close()


def test_an_abandoned_or_released_claim_may_run_again(tmp_path: Path) -> None:
    mem = Memory.open(tmp_path / "m.db", embedder=HashingEmbedder(), now=NOW)
    assert claim(mem, "k", "d").state == "new"
    assert claim(mem, "k", "d", after=61).state == "new"  # its process died: taken over
    assert claim(mem, "k", "d", after=62).state == "in_progress"
    idempotency.release(mem.store, "planner", "k")
    assert claim(mem, "k", "d", after=63).state == "new"
    mem.close()

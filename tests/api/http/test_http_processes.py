"""Two ``agent-memory serve`` processes on one store file stay consistent (issue 19 item 2):
a session opened through one is used and ended through the other, each sees the other's
writes on its next search, and an idempotent retry answered by one is replayed by the other."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.support.http_server import add_key, running_servers

pytestmark = pytest.mark.slow


def test_two_server_processes_serve_one_store(tmp_path: Path) -> None:
    store = tmp_path / "memory.db"
    key, admin = add_key(store, "planner"), add_key(store, "ops", admin=True)
    auth = {"Authorization": f"Bearer {key}"}
    with running_servers(store, 2) as (a, b):
        grant = {"agent_id": "planner", "scope": "user:alice"}
        admin_auth = {"Authorization": f"Bearer {admin}"}
        assert httpx.post(f"{a}/v1/admin/grants", json=grant, headers=admin_auth).is_success

        opened = httpx.post(f"{a}/v1/sessions", json={"user_id": "alice"}, headers=auth)
        session = opened.json()["session_id"]
        said = "I am learning the cello."
        turns = {"turns": [{"role": "user", "content": said}]}
        assert httpx.post(f"{b}/v1/sessions/{session}/turns", json=turns, headers=auth).is_success

        # Written through A with the evidence of the turn B stored, under an idempotency key.
        write = {
            "type": "semantic",
            "content": "The user is learning the cello.",
            "source_kind": "user_statement",
            "evidence": said,
        }
        retry = {**auth, "Idempotency-Key": "cello-1"}
        tools = f"/v1/sessions/{session}/tools"
        first = httpx.post(f"{a}{tools}/memory_write", json=write, headers=retry)
        assert first.json()["status"] == "confirmed"  # the evidence was found in B's turn
        again = httpx.post(f"{b}{tools}/memory_write", json=write, headers=retry)
        assert again.content == first.content and again.headers["idempotent-replayed"] == "true"

        # B's next search sees A's write; A's sees it too.
        query = {"query": "Which instrument is the user learning?"}
        for base in (b, a):
            found = httpx.post(f"{base}{tools}/memory_search", json=query, headers=auth).json()
            assert [r["id"] for r in found["results"]][:1] == [first.json()["id"]]
        get = httpx.post(f"{b}{tools}/memory_get", json={"ids": [first.json()["id"]]}, headers=auth)
        assert len(get.json()["records"]) == 1  # one record, not two

        # Forgotten through B: gone from A's next search.
        gone = httpx.post(
            f"{b}{tools}/memory_forget", json={"id": first.json()["id"]}, headers=auth
        )
        assert gone.json()["status"] == "deleted"
        found = httpx.post(f"{a}{tools}/memory_search", json=query, headers=auth).json()
        assert first.json()["id"] not in [r["id"] for r in found["results"]]

        # Ended through B; the job is visible through A, and A refuses new turns.
        ended = httpx.post(f"{b}/v1/sessions/{session}/end", headers=auth)
        assert ended.status_code == 202
        job = httpx.get(f"{a}/v1/jobs/{ended.json()['job_id']}", headers=auth).json()
        assert job["session_id"] == session
        late = httpx.post(f"{a}/v1/sessions/{session}/turns", json=turns, headers=auth)
        assert late.status_code == 400

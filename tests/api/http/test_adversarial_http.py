"""Adversarial review of the HTTP API and the inspector, as a hostile client: a real
``agent-memory serve`` on 127.0.0.1 and httpx. What held is kept here as a regression (a
revoked key's inspector cookie, escaping, identity from the key only); what broke came with
its fix (bodies without a bound, a job's existence told to another agent, an inspector page
a browser or proxy could cache or frame)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.http_server import add_key, cli, running_server

pytestmark = pytest.mark.slow

PROBLEM = "application/problem+json"
XSS = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'


@dataclass
class Served:
    base: str
    store: Path
    planner: str  # readwrite on user:alice
    other: str  # readwrite on user:bob
    admin: str

    def post(self, key: str | None, path: str, body: Any = None, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.post(self.base + path, json=body, headers=headers, timeout=120, **kw)

    def get(self, key: str, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.base + path, headers={"Authorization": f"Bearer {key}"}, **kw)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    store = tmp_path_factory.mktemp("adversarial") / "memory.db"
    keys = [add_key(store, "planner"), add_key(store, "other"), add_key(store, "ops", admin=True)]
    with running_server(store) as base:
        served = Served(base, store, *keys)
        for agent, scope in (("planner", "user:alice"), ("other", "user:bob")):
            grant = {"agent_id": agent, "scope": scope}
            assert served.post(served.admin, "/v1/admin/grants", grant).status_code == 201
        yield served


def problem(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    body: dict[str, Any] = answer.json()
    assert (body["status"], body["code"]) == (status, code)
    return body


def turns(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        count: int = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
    return count


def test_a_body_over_the_bound_is_refused_before_it_is_read(served: Served) -> None:
    session = served.post(served.planner, "/v1/sessions", {"user_id": "alice"}).json()
    path = f"/v1/sessions/{session['session_id']}/turns"
    before = turns(served.store)
    huge = json.dumps({"turns": [{"role": "user", "content": "x" * (9 * 1024 * 1024)}]})
    sent = {"Content-Type": "application/json", "Authorization": f"Bearer {served.planner}"}
    # Declared by Content-Length; then streamed in chunks with no length (a lying client).
    problem(httpx.post(served.base + path, content=huge, headers=sent), 413, "body_too_large")
    chunks = (huge[i : i + 65536].encode() for i in range(0, len(huge), 65536))
    problem(httpx.post(served.base + path, content=chunks, headers=sent), 413, "body_too_large")
    # Without a key too: nobody gets a server to read and parse megabytes for nothing.
    anonymous = httpx.post(served.base + "/v1/sessions", content=b"x" * (9 * 1024 * 1024))
    problem(anonymous, 413, "body_too_large")
    problem(httpx.post(served.base + "/inspector/login", content=huge), 413, "body_too_large")
    assert turns(served.store) == before
    # A request under the bound is served as before.
    small = {"turns": [{"role": "user", "content": "x" * 100_000}]}
    assert served.post(served.planner, path, small).status_code == 201


def test_another_agents_job_is_answered_as_a_job_that_does_not_exist(served: Served) -> None:
    session = served.post(served.planner, "/v1/sessions", {"user_id": "alice"}).json()["session_id"]
    said = {"turns": [{"role": "user", "content": "I moved to Lisbon last spring."}]}
    assert served.post(served.planner, f"/v1/sessions/{session}/turns", said).status_code == 201
    job = served.post(served.planner, f"/v1/sessions/{session}/end").json()["job_id"]
    assert served.get(served.planner, f"/v1/jobs/{job}").json()["job_id"] == job
    theirs = problem(served.get(served.other, f"/v1/jobs/{job}"), 404, "not_found")
    unknown = "job_" + "0" * 24
    none = problem(served.get(served.other, f"/v1/jobs/{unknown}"), 404, "not_found")
    assert json.dumps(theirs).replace(job, "ID") == json.dumps(none).replace(unknown, "ID")


def test_inspector_pages_are_not_cached_framed_or_sniffed(served: Served) -> None:
    login = httpx.get(served.base + "/inspector/login")
    page = served.get(served.admin, "/inspector", params={"user": "alice"})
    refused = served.get(served.planner, "/inspector")
    for answer in (login, page, refused):
        headers = answer.headers
        assert headers["cache-control"] == "no-store"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-frame-options"] == "DENY"
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "script-src" not in policy  # the page runs no script at all


def test_record_text_and_the_query_are_escaped_in_the_inspector(served: Served) -> None:
    session = served.post(served.planner, "/v1/sessions", {"user_id": "alice"}).json()["session_id"]
    said = {"turns": [{"role": "user", "content": f"I like {XSS}"}]}
    served.post(served.planner, f"/v1/sessions/{session}/turns", said)
    write = {
        "type": "semantic",
        "content": f"Alice likes {XSS}",
        "source_kind": "user_statement",
        "evidence": f"I like {XSS}",
    }
    tool = f"/v1/sessions/{session}/tools/memory_write"
    assert served.post(served.planner, tool, write).status_code == 200
    for params in ({"user": "alice", "agent": "planner", "q": XSS}, {"user": XSS}):
        page = served.get(served.admin, "/inspector", params=params)
        assert "<script>" not in page.text and "<img" not in page.text
        assert "&lt;script&gt;" in page.text


def test_a_revoked_admin_keys_inspector_cookie_stops_working_at_once(served: Served) -> None:
    """Also after the inspector's first search, which opens a second, read-only Memory of
    the store in the server's process: that open once read the file's header with open()
    and close(), which dropped the POSIX locks of the server's own connection; a revocation
    by another process then went unseen (the server read a stale store from then on)."""
    search = {"user": "alice", "agent": "planner", "q": "what does alice like?"}
    assert served.get(served.admin, "/inspector", params=search).status_code == 200
    key = add_key(served.store, "ops-temp", admin=True)
    login = httpx.post(served.base + "/inspector/login", data={"key": key})
    assert login.status_code == 303
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/inspector" in cookie
    jar = {"agent_memory_key": login.cookies["agent_memory_key"]}
    assert httpx.get(served.base + "/inspector", cookies=jar).status_code == 200
    # The cookie only opens the read-only page: the admin routes want the header.
    forget = httpx.post(served.base + "/v1/admin/users/alice/forget", cookies=jar)
    problem(forget, 401, "unauthorized")
    cli("keys", "revoke", key.split("_")[1], "--store", str(served.store))  # another process
    assert httpx.get(served.base + "/inspector", cookies=jar).status_code == 401
    forged = {"agent_memory_key": served.planner}  # a live key, but not an admin's
    assert httpx.get(served.base + "/inspector", cookies=forged).status_code == 403


def test_identity_comes_from_the_key_never_from_the_request(served: Served) -> None:
    """Sessions of another agent are invisible; arguments, query strings and headers naming
    another agent or user are refused or ignored; ids are not folded (case, unicode)."""
    mine = served.post(served.planner, "/v1/sessions", {"user_id": "alice"}).json()["session_id"]
    search = f"/v1/sessions/{mine}/tools/memory_search"
    problem(served.post(served.other, search, {"query": "x"}), 404, "not_found")
    sneaky = served.post(served.planner, search, {"query": "x", "user_id": "bob"})
    assert problem(sneaky, 400, "invalid_argument")["field"] == "user_id"
    spoofed = served.post(
        served.planner, search + "?agent_id=other&user_id=bob", {"query": "x"},
    )  # fmt: skip
    assert spoofed.json()["explanation"]["scopes"] == ["agent:planner/alice", "user:alice"]
    for user in ("\uff41\uff4c\uff49\uff43\uff45", "alice\u200b", "../bob", "bob:x"):
        refused = served.post(served.planner, "/v1/sessions", {"user_id": user})
        problem(refused, 400, "invalid_identifier")
    # A session for bob whose write target names alice's scope opens, but cannot write it.
    crossed = {"user_id": "bob", "write_targets": {"personal": "user:alice"}}
    bobs = served.post(served.planner, "/v1/sessions", crossed).json()["session_id"]
    write = {"type": "semantic", "content": "Bob likes tea", "source_kind": "agent_inference"}
    wrote = served.post(served.planner, f"/v1/sessions/{bobs}/tools/memory_write", write)
    problem(wrote, 403, "permission_denied")

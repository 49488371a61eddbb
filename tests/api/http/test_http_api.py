"""The HTTP API (issue 19 item 2) against a real ``agent-memory serve`` process on 127.0.0.1,
with httpx as the client and the real packaged model: keys, sessions, turns, the tools,
idempotency, forget, end and its job, scope isolation between keys, problem details, the
OpenAPI document, and the admin routes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_memory.api.cli import main
from tests.support.http_server import add_key, running_server

pytestmark = pytest.mark.slow

PROBLEM = "application/problem+json"


@dataclass
class Api:
    base: str
    store: Path
    planner: str  # readwrite on user:alice
    other: str  # readwrite on user:bob only
    admin: str

    def post(self, key: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
        return httpx.post(
            self.base + path, json=body, headers={"Authorization": f"Bearer {key}", **headers}
        )

    def get(self, key: str, path: str) -> httpx.Response:
        return httpx.get(self.base + path, headers={"Authorization": f"Bearer {key}"})

    def session(self, key: str, user: str, **body: Any) -> str:
        answer = self.post(key, "/v1/sessions", {"user_id": user, **body})
        assert answer.status_code == 201, answer.text
        session_id: str = answer.json()["session_id"]
        return session_id

    def tool(self, key: str, session: str, name: str, args: Any, **headers: str) -> httpx.Response:
        return self.post(key, f"/v1/sessions/{session}/tools/{name}", args, **headers)


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    store = tmp_path_factory.mktemp("http") / "memory.db"
    keys = {
        "planner": add_key(store, "planner"),
        "other": add_key(store, "other"),
        "admin": add_key(store, "ops", admin=True),
    }
    with running_server(store) as base:
        api = Api(base, store, **keys)
        for agent, scope in (("planner", "user:alice"), ("other", "user:bob")):
            grant = {"agent_id": agent, "scope": scope, "access": "readwrite"}
            assert api.post(api.admin, "/v1/admin/grants", grant).status_code == 201
        yield api


def assert_problem(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == PROBLEM
    body: dict[str, Any] = answer.json()
    assert {"type", "title", "status", "detail", "code"} <= set(body)
    assert (body["status"], body["code"]) == (status, code)
    assert body["type"].endswith("/" + code)
    assert "Traceback" not in answer.text and 'File "' not in answer.text
    return body


def write_evidenced(api: Api, session: str, said: str, content: str, **headers: str) -> Any:
    turn = {"turns": [{"role": "user", "content": said}]}
    assert api.post(api.planner, f"/v1/sessions/{session}/turns", turn).status_code == 201
    args = {
        "type": "semantic",
        "content": content,
        "source_kind": "user_statement",
        "evidence": said,
    }
    return api.tool(api.planner, session, "memory_write", args, **headers)


def test_health_and_the_openapi_document(api: Api) -> None:
    assert httpx.get(api.base + "/healthz").json() == {"status": "ok"}
    spec = httpx.get(api.base + "/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/v1/sessions",
        "/v1/sessions/{session_id}/turns",
        "/v1/sessions/{session_id}/end",
        "/v1/jobs/{job_id}",
        "/v1/admin/grants",
        "/v1/admin/stats",
        "/v1/admin/users/{user_id}/forget",
        "/healthz",
    ):
        assert path in paths
    for name in ("memory_search", "memory_get", "memory_write", "memory_revise", "memory_forget"):
        operation = paths[f"/v1/sessions/{{session_id}}/tools/{name}"]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        assert schema["type"] == "object" and schema["properties"]  # the tool's JSON Schema
        assert operation["security"] == [{"HTTPBearer": []}]
    [scheme] = spec["components"]["securitySchemes"].values()
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert "security" not in paths["/healthz"]["get"]


def test_a_request_without_a_valid_key_is_401(api: Api) -> None:
    answer = httpx.post(api.base + "/v1/sessions", json={"user_id": "alice"})
    assert_problem(answer, 401, "unauthorized")
    assert answer.headers["www-authenticate"] == "Bearer"
    assert_problem(api.post("amk_nope_nope", "/v1/sessions", {"user_id": "a"}), 401, "unauthorized")
    # The right key id with a wrong secret.
    forged = api.planner[: api.planner.rindex("_") + 1] + "x" * 43
    assert_problem(api.post(forged, "/v1/sessions", {"user_id": "alice"}), 401, "unauthorized")


def test_a_revoked_key_stops_working_at_once(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    key = add_key(api.store, "temp")
    assert api.session(key, "tina")
    key_id = key.split("_")[1]
    assert main(["keys", "revoke", key_id, "--store", str(api.store)]) == 0  # another process
    assert_problem(api.post(key, "/v1/sessions", {"user_id": "tina"}), 401, "unauthorized")
    assert main(["keys", "list", "--store", str(api.store), "--json"]) == 0
    listed = capsys.readouterr().out
    assert key_id in listed and key not in listed  # never the secret


def test_a_session_writes_with_evidence_and_searches(api: Api) -> None:
    session = api.session(api.planner, "alice", session_id="s-flow")
    written = write_evidenced(
        api, session, "I am allergic to peanuts.", "The user is allergic to peanuts."
    )
    assert written.status_code == 200, written.text
    record = written.json()
    assert (record["status"], record["source_kind"], record["action"]) == (
        "confirmed",
        "user_statement",
        "created",
    )
    found = api.tool(
        api.planner, session, "memory_search", {"query": "What is the user allergic to?"}
    )
    assert found.status_code == 200
    body = found.json()
    assert set(body) >= {"results", "explanation", "search_id"}  # exactly Session.call's answer
    assert body["results"][0]["id"] == record["id"]
    assert body["results"][0]["explanation"]
    got = api.tool(api.planner, session, "memory_get", {"ids": [record["id"]]}).json()
    assert [r["content"] for r in got["records"]] == ["The user is allergic to peanuts."]


def test_an_empty_search_says_why(api: Api) -> None:
    session = api.session(api.planner, "alice")
    found = api.tool(
        api.planner, session, "memory_search", {"query": "boiling point of tungsten"}
    ).json()
    assert found["results"] == [] and found["explanation"]


def count_records(store: Path, content: str) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        return int(
            conn.execute("SELECT count(*) FROM records WHERE content = ?", (content,)).fetchone()[0]
        )


def test_a_retried_write_returns_the_first_answer_and_writes_once(api: Api) -> None:
    session = api.session(api.planner, "alice")
    said, content = "My sister is called Ines.", "The user's sister is called Ines."
    first = write_evidenced(api, session, said, content, **{"Idempotency-Key": "w-1"})
    args = {"type": "semantic", "content": content, "source_kind": "user_statement",
            "evidence": said}  # fmt: skip
    again = api.tool(api.planner, session, "memory_write", args, **{"Idempotency-Key": "w-1"})
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert again.headers["idempotent-replayed"] == "true"
    assert count_records(api.store, content) == 1
    # Without the key, the same write is a new call (here the core reinforces the record).
    assert api.tool(api.planner, session, "memory_write", args).json()["action"] == "reinforced"
    # The same key for another request: refused, nothing written.
    other = {**args, "content": "The user's sister is called Rita."}
    reused = api.tool(api.planner, session, "memory_write", other, **{"Idempotency-Key": "w-1"})
    assert_problem(reused, 422, "idempotency_key_reused")
    assert count_records(api.store, "The user's sister is called Rita.") == 0
    # Keys are per agent: another agent's same key is its own.
    theirs = api.session(api.other, "bob")
    assert api.tool(api.other, theirs, "memory_search", {"query": "x"}).status_code == 200
    opened = api.post(api.other, "/v1/sessions", {"user_id": "bob"}, **{"Idempotency-Key": "w-1"})
    assert opened.status_code == 201


def test_a_retried_session_open_and_turns_answer_the_same(api: Api) -> None:
    key = {"Idempotency-Key": "open-1"}
    first = api.post(api.planner, "/v1/sessions", {"user_id": "alice"}, **key)
    again = api.post(api.planner, "/v1/sessions", {"user_id": "alice"}, **key)
    assert first.status_code == again.status_code == 201
    assert first.json()["session_id"] == again.json()["session_id"]  # not a second session
    session = first.json()["session_id"]
    turns = {"turns": [{"role": "user", "content": "hello"}]}
    path = f"/v1/sessions/{session}/turns"
    seqs = [api.post(api.planner, path, turns, **{"Idempotency-Key": "t-1"}).json() for _ in "ab"]
    assert seqs[0] == seqs[1] == {"session_id": session, "seqs": [1]}
    assert api.post(api.planner, path, turns).json()["seqs"] == [2]  # only one was stored


def test_forget_erases_the_record(api: Api) -> None:
    session = api.session(api.planner, "alice")
    written = write_evidenced(api, session, "I drive a red Fiat.", "The user drives a red Fiat.")
    record_id = written.json()["id"]
    forgotten = api.tool(
        api.planner, session, "memory_forget", {"id": record_id, "reason": "asked"}
    )
    assert forgotten.json()["status"] == "deleted" and forgotten.json()["id"] == record_id
    got = api.tool(api.planner, session, "memory_get", {"ids": [record_id]}).json()
    assert got["missing"] == [record_id]


def test_another_key_cannot_reach_the_first_users_records(api: Api) -> None:
    session = api.session(api.planner, "alice")
    written = write_evidenced(
        api, session, "My PIN hint is seagull.", "The user's PIN hint is seagull."
    )
    record_id = written.json()["id"]
    # The other key cannot use the planner's session (it does not exist for that agent).
    stolen = api.tool(api.other, session, "memory_get", {"ids": [record_id]})
    assert_problem(stolen, 404, "not_found")
    # Acting for alice in its own session, the other agent has no grant on user:alice.
    own = api.session(api.other, "alice")
    got = api.tool(api.other, own, "memory_get", {"ids": [record_id]}).json()
    assert got == {"records": [], "missing": [record_id]}
    found = api.tool(api.other, own, "memory_search", {"query": "PIN hint seagull"}).json()
    assert record_id not in [r["id"] for r in found["results"]]
    args = {"type": "semantic", "content": "The user likes tea.", "source_kind": "agent_inference"}
    refused = api.tool(api.other, own, "memory_write", args)
    body = assert_problem(refused, 403, "permission_denied")
    assert body["error"]["code"] == "permission_denied"
    # A session id the planner uses cannot be taken by another agent.
    taken = api.post(api.other, "/v1/sessions", {"user_id": "alice", "session_id": session})
    assert_problem(taken, 409, "session_conflict")


def test_end_answers_202_with_the_job(api: Api) -> None:
    session = api.session(api.planner, "alice")
    turns = {"turns": [{"role": "user", "content": "I moved to Porto last month."},
                       {"role": "assistant", "content": "Noted."}]}  # fmt: skip
    api.post(api.planner, f"/v1/sessions/{session}/turns", turns)
    ended = api.post(api.planner, f"/v1/sessions/{session}/end")
    assert ended.status_code == 202
    job_id = ended.json()["job_id"]
    assert ended.json()["job"]["session_id"] == session
    job = api.get(api.planner, f"/v1/jobs/{job_id}").json()
    assert job["job_id"] == job_id
    assert [s["stage"] for s in job["stages"]] == ["extract", "review", "validate", "summarize"]
    assert api.post(api.planner, f"/v1/sessions/{session}/end").json()["job_id"] == job_id
    assert_problem(api.get(api.other, f"/v1/jobs/{job_id}"), 404, "not_found")
    assert api.get(api.admin, f"/v1/jobs/{job_id}").status_code == 200
    closed = api.post(api.planner, f"/v1/sessions/{session}/turns", turns)
    assert assert_problem(closed, 400, "invalid_argument")["field"] == "session_id"


def test_errors_are_problem_details(api: Api) -> None:
    session = api.session(api.planner, "alice")
    bad = api.tool(api.planner, session, "memory_search", {"query": ""})
    body = assert_problem(bad, 400, "invalid_argument")
    assert body["field"] == "query" and body["error"]["code"] == "invalid_argument"
    assert_problem(api.tool(api.planner, session, "memory_nope", {}), 404, "unknown_tool")
    assert_problem(api.tool(api.planner, session, "memory_search", [1]), 400, "invalid_argument")
    broken = httpx.post(
        f"{api.base}/v1/sessions/{session}/tools/memory_search",
        content=b"{not json",
        headers={"Authorization": f"Bearer {api.planner}", "Content-Type": "application/json"},
    )
    assert_problem(broken, 422, "invalid_request")
    secret = "my secret words"
    invalid = api.post(api.planner, "/v1/sessions", {"user_id": "alice", "colour": secret})
    assert secret not in assert_problem(invalid, 422, "invalid_request")["detail"]
    assert secret not in invalid.text  # the input is never echoed
    assert_problem(api.get(api.planner, "/v1/nowhere"), 404, "not_found")
    assert_problem(api.post(api.planner, "/v1/sessions/none/end"), 404, "not_found")


def test_admin_routes(api: Api) -> None:
    assert_problem(api.get(api.planner, "/v1/admin/stats"), 403, "forbidden")
    assert_problem(api.get(api.planner, "/v1/admin/grants"), 403, "forbidden")
    assert api.get(api.admin, "/v1/admin/stats").json()["records"] >= 1
    grants = api.get(api.admin, "/v1/admin/grants").json()["grants"]
    assert {"agent_id": "planner", "scope": "user:alice", "access": "readwrite"}.items() <= grants[
        [g["agent_id"] for g in grants].index("planner")
    ].items()
    grant = {"agent_id": "reader", "scope": "project:apollo", "access": "read"}
    assert api.post(api.admin, "/v1/admin/grants", grant).json()["access"] == "read"
    revoke = {"agent_id": "reader", "scope": "project:apollo"}
    assert api.post(api.admin, "/v1/admin/grants/revoke", revoke).json() == {"revoked": True}
    bad = api.post(api.admin, "/v1/admin/grants", {**grant, "scope": "nonsense"})
    assert_problem(bad, 400, "invalid_identifier")
    # forget-user: zoe's records, sessions and the kept idempotent answers go.
    session = api.session(api.planner, "zoe", write_targets={"personal": "user:alice"})
    api.post(api.planner, f"/v1/sessions/{session}/turns", {"turns": [{"role": "user",
             "content": "hi"}]}, **{"Idempotency-Key": "zoe-1"})  # fmt: skip
    receipt = api.post(api.admin, "/v1/admin/users/zoe/forget").json()
    assert receipt["session_ids"] == [session] and receipt["counts"]["idempotency"] == 1
    assert_problem(api.post(api.planner, f"/v1/sessions/{session}/end"), 404, "not_found")

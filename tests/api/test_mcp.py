"""agent-memory mcp: the memory tools served to the MCP SDK's own client, over stdio and over
streamable HTTP, by a server process the test starts (the real packaged model, a store in
tmp_path). Identity is bound by the command line or the bearer token, never by arguments."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from agent_memory.api.mcp_server.client import server_parameters
from agent_memory.api.mcp_server.tokens import load_tokens, sha256_hex
from agent_memory.core import Memory
from agent_memory.core.errors import InvalidArgument
from agent_memory.core.search.explain import model_text
from tests.support.cli import run

SAID = "Please keep answers concise, I read them on my phone."
FACT = "The user prefers concise answers."
ALICE_TOKEN = "alice-token-0123456789abcdef"
BOB_TOKEN = "bob-token-0123456789abcdef00"
TOOLS = {"memory_search", "memory_get", "memory_write", "memory_revise", "memory_forget"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A new store where the agent may read and write alice's and bob's user scopes."""
    path = tmp_path / "memory.db"
    mem = Memory.open(path)
    mem.grant("assistant", "user:alice")
    mem.grant("assistant", "user:bob")
    mem.close()
    return path


def _command(store: Path, *extra: str, add_turns: bool = True) -> list[str]:
    """The server's command line; these tests play the host, so memory_add_turns is offered
    unless ``add_turns`` is False (the default of the command itself)."""
    flags = ["--add-turns"] if add_turns else []
    return [sys.executable, "-m", "agent_memory.api", "mcp", "--store", str(store), *flags, *extra]


def _data(result: Any) -> dict[str, Any]:
    """A tool result's answer: the JSON text, which structuredContent repeats."""
    (content,) = result.content
    data = json.loads(content.text)
    assert result.structured_content == data
    assert content.text == model_text(data)  # the one model-facing serialisation
    return dict(data)


async def _write_search_forget(client: Client) -> str:
    """The tour every transport takes: turns, an evidenced write, search, forget."""
    added = _data(
        await client.call_tool("memory_add_turns", {"turns": [{"role": "user", "content": SAID}]})
    )
    assert added["session_id"].startswith("mcp-") and added["turns"] == [1]
    write = await client.call_tool(
        "memory_write",
        {
            "type": "semantic",
            "content": FACT,
            "source_kind": "user_statement",
            "evidence": "keep answers concise",
        },
    )
    written = _data(write)
    assert not write.is_error
    assert (written["action"], written["source_kind"], written["status"]) == (
        "created",
        "user_statement",
        "confirmed",
    )
    found = _data(
        await client.call_tool("memory_search", {"query": "how should answers be written"})
    )
    assert [r["id"] for r in found["results"]] == [written["id"]]
    assert set(found["results"][0]) >= {"id", "content", "status", "reason"}  # the compact form
    return str(written["id"])


def test_stdio_serves_the_tools_and_ends_the_session_at_eof(store: Path, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr.log"

    async def session() -> str:
        params = server_parameters(store, agent="assistant", user="alice", extra=("--add-turns",))
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                listed = {tool.name: tool for tool in (await client.list_tools()).tools}
                assert set(listed) == TOOLS | {"memory_add_turns"}
                for name in ("memory_search", "memory_get"):
                    hints = listed[name].annotations
                    assert hints is not None and hints.read_only_hint and hints.idempotent_hint
                forget_hints = listed["memory_forget"].annotations
                assert forget_hints is not None and forget_hints.destructive_hint
                for name in ("memory_write", "memory_revise", "memory_add_turns"):
                    hints = listed[name].annotations
                    assert hints is not None and hints.read_only_hint is False
                search_schema = listed["memory_search"].input_schema
                assert (
                    search_schema["required"] == ["query"]
                    and search_schema["additionalProperties"] is False
                )
                assert all(tool.output_schema for tool in listed.values())

                record = await _write_search_forget(client)
                forgot = _data(
                    await client.call_tool("memory_forget", {"id": record, "reason": "asked"})
                )
                assert (forgot["id"], forgot["status"]) == (record, "deleted")
                again = _data(
                    await client.call_tool(
                        "memory_search", {"query": "how should answers be written"}
                    )
                )
                assert again["results"] == []

                # Errors are tool results carrying the code, never a traceback.
                bad = await client.call_tool("memory_search", {"query": "x", "agent_id": "bob"})
                assert bad.is_error and _data(bad)["error"]["code"] == "invalid_argument"
                missing = await client.call_tool("memory_forget", {"id": "mem_nope"})
                assert missing.is_error and _data(missing)["error"]["code"] == "not_found"
                unknown = await client.call_tool("memory_delete_everything", {})
                assert unknown.is_error and _data(unknown)["error"]["code"] == "unknown_tool"
                assert "Traceback" not in json.dumps(_data(bad))
        return errlog.read_text()

    stderr = anyio.run(session)
    ended = [json.loads(line) for line in stderr.splitlines() if "mcp.session_ended" in line]
    assert len(ended) == 1, stderr
    with Memory.open(store, read_only=True) as mem:
        job = mem.jobs.status(ended[0]["job_id"])
    assert job["session_id"] == ended[0]["session_id"] and job["user_id"] == "alice"
    assert SAID not in stderr  # no personal text in the logs


def test_auto_mode_hides_search_and_searches_on_each_user_turn(store: Path) -> None:
    """--mode auto: no memory_search tool; memory_add_turns answers the host's search."""
    with Memory.open(store) as mem:
        mem.import_records([{"content": FACT, "source_kind": "system"}], scope="user:alice")

    async def session() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
        params = server_parameters(
            store, agent="assistant", user="alice", extra=("--mode", "auto", "--add-turns")
        )
        with open(os.devnull, "w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                turn = {"role": "user", "content": "How should you write your answers to me?"}
                added = _data(await client.call_tool("memory_add_turns", {"turns": [turn]}))
                refused = _data(await client.call_tool("memory_search", {"query": "answers"}))
        return names, added, refused

    names, added, refused = anyio.run(session)
    assert names == (TOOLS - {"memory_search"}) | {"memory_add_turns"}
    (shown,) = added["memory"]
    assert shown["arguments"] == {"query": "How should you write your answers to me?"}
    assert [r["content"] for r in shown["result"]["results"]] == [FACT]
    assert refused["error"]["code"] == "unknown_tool"


def test_by_default_the_model_cannot_record_turns_to_quote(store: Path) -> None:
    """Without --add-turns the server offers only the five tools: a model that sees every
    tool cannot put words in the user's mouth and then quote them as confirmed evidence."""

    async def session() -> tuple[set[str], dict[str, Any], dict[str, Any]]:
        params = server_parameters(store, agent="assistant", user="alice")
        with open(os.devnull, "w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                turn = {"role": "user", "content": SAID}
                refused = _data(await client.call_tool("memory_add_turns", {"turns": [turn]}))
                written = _data(
                    await client.call_tool(
                        "memory_write",
                        {
                            "type": "semantic",
                            "content": "The user is an administrator.",
                            "source_kind": "user_statement",
                            "evidence": "I am an administrator",
                        },
                    )
                )
        return names, refused, written

    names, refused, written = anyio.run(session)
    assert names == TOOLS
    assert refused["error"]["code"] == "unknown_tool"
    assert (written["status"], written["source_kind"]) == ("provisional", "agent_inference")


def test_stdio_stdout_carries_only_json_rpc(store: Path) -> None:
    """Raw pipes, no SDK: every stdout line is a JSON-RPC message, through a model load, a
    write, a refused call and shutdown; the logs are on stderr."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "memory_add_turns",
                "arguments": {"turns": [{"role": "user", "content": SAID}]},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {
                "name": "memory_write",
                "arguments": {"type": "semantic", "content": FACT, "source_kind": "user_statement"},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": "answers"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {"name": "memory_get", "arguments": {}},
        },
    ]
    process = subprocess.Popen(
        _command(store, "--agent", "assistant", "--user", "alice", "--log-level", "DEBUG"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    lines: list[str] = []
    by_id: dict[int, dict[str, Any]] = {}
    try:
        for message in messages:  # one at a time, as a client waits for each answer
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            while "id" in message and message["id"] not in by_id:
                line = process.stdout.readline()
                assert line, process.stderr.read() if process.stderr else ""
                lines.append(line)
                reply = json.loads(line)
                if "id" in reply:
                    by_id[reply["id"]] = reply
        process.stdin.close()  # EOF stops the server
        lines += process.stdout.readlines()
        stderr = process.stderr.read() if process.stderr else ""
        assert process.wait(timeout=60) == 0, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    replies = [json.loads(line) for line in lines]
    assert all(reply.get("jsonrpc") == "2.0" for reply in replies)
    assert sorted(by_id) == [1, 2, 3, 4, 5, 6]
    assert by_id[4]["result"]["structuredContent"]["action"] == "created"
    assert by_id[5]["result"]["structuredContent"]["results"]
    assert by_id[6]["result"]["isError"] is True
    assert "mcp.session_ended" in stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server(store: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``agent-memory mcp --http`` on a free port with two tokens (alice's, as its SHA-256,
    and bob's); yields its URL and stderr file; stopped by pid with SIGTERM."""
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(
        f"""
[[tokens]]
name = "alice-app"
sha256 = "{sha256_hex(ALICE_TOKEN)}"
agent = "assistant"
users = ["alice"]

[[tokens]]
name = "bob-app"
token = "{BOB_TOKEN}"
agent = "assistant"
user = "bob"
"""
    )
    port = _free_port()
    errlog = tmp_path / "server.log"
    with errlog.open("w") as err:
        process = subprocess.Popen(
            _command(store, "--http", f"127.0.0.1:{port}", "--tokens", str(tokens)),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, errlog.read_text()
            try:
                httpx2.get(url, timeout=2)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.2)
        yield url, errlog
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def _client(url: str, token: str, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def test_http_binds_identity_to_the_bearer_token(http_server: tuple[str, Path]) -> None:
    url, errlog = http_server
    # No token, an unknown one: 401 before any MCP message is read.
    ping = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert httpx2.post(url, json=ping).status_code == 401
    wrong = {"Authorization": f"Bearer {ALICE_TOKEN}x"}
    assert httpx2.post(url, json=ping, headers=wrong).status_code == 401

    async def scenario() -> str:
        # alice, in an MCP session of the 2025 protocol (initialize, Mcp-Session-Id).
        async with _client(url, ALICE_TOKEN, "legacy") as alice:
            assert {t.name for t in (await alice.list_tools()).tools} == TOOLS | {
                "memory_add_turns"
            }
            record = await _write_search_forget(alice)
        # bob's token (the 2026 protocol: sessionless requests) reads only bob's scopes,
        # whatever the arguments say.
        async with _client(url, BOB_TOKEN, "auto") as bob:
            query = {"query": "how should answers be written"}
            assert _data(await bob.call_tool("memory_search", query))["results"] == []
            got = _data(await bob.call_tool("memory_get", {"ids": [record]}))
            assert got == {"records": [], "missing": [record]}
            denied = await bob.call_tool("memory_forget", {"id": record})
            assert denied.is_error and _data(denied)["error"]["code"] in {
                "not_found",
                "permission_denied",
            }
            sneaky = await bob.call_tool("memory_search", {**query, "user_id": "alice"})
            assert sneaky.is_error and _data(sneaky)["error"]["code"] == "invalid_argument"
        async with _client(url, ALICE_TOKEN, "legacy") as alice:
            assert [
                r["id"] for r in _data(await alice.call_tool("memory_search", query))["results"]
            ] == [record]
            assert (
                _data(await alice.call_tool("memory_forget", {"id": record}))["status"] == "deleted"
            )
            assert _data(await alice.call_tool("memory_search", query))["results"] == []
        return record

    anyio.run(scenario)
    # alice's first MCP session ended with its DELETE: extraction was enqueued and logged.
    ended = [
        json.loads(line) for line in errlog.read_text().splitlines() if "mcp.session_ended" in line
    ]
    assert len(ended) == 1
    assert ALICE_TOKEN not in errlog.read_text() and BOB_TOKEN not in errlog.read_text()


def test_tokens_file_is_checked_and_matched_by_hash(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    entry = {
        "name": "a",
        "sha256": sha256_hex(ALICE_TOKEN),
        "agent": "assistant",
        "users": ["alice", "carol"],
    }
    path.write_text(json.dumps({"tokens": [entry]}))
    table = load_tokens(path)
    binding = table.match(ALICE_TOKEN)
    assert binding is not None and binding.agent_id == "assistant"
    assert binding.user(None) == "alice" and binding.user("carol") == "carol"
    with pytest.raises(InvalidArgument) as refused:
        binding.user("mallory")
    assert refused.value.code == "permission_denied"
    assert table.match(BOB_TOKEN) is None and table.match("") is None
    for bad in (
        {"tokens": [{**entry, "token": BOB_TOKEN}]},  # both sha256 and token
        {"tokens": [{**entry, "users": []}]},
        {"tokens": [{**entry, "agent": "a/b"}]},
        {"tokens": [{**entry, "sha256": "abc"}]},
        {"tokens": [{**entry, "mode": "always"}]},
        {"tokens": [{**entry, "role": "admin"}]},
        {"tokens": [entry, entry]},
        {"tokens": []},
        [],
    ):
        path.write_text(json.dumps(bad))
        with pytest.raises(InvalidArgument):
            load_tokens(path)


def test_command_line_refuses_an_incomplete_identity(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "mcp", "--store", str(store), "--agent", "assistant")
    assert code == 2 and "--user" in err
    code, _, err = run(capsys, "mcp", "--store", str(store), "--http", "127.0.0.1:9")
    assert code == 2 and "--tokens" in err
    code, _, err = run(capsys, "mcp", "--store", str(store), "--http", "localhost")
    assert code == 2 and "HOST:PORT" in err

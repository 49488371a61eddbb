"""The quickstart's HTTP step: the API (api.http) served in-process on a free 127.0.0.1 port,
one search sent over a real socket, as any non-Python client would send it."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from typing import TYPE_CHECKING, Any

from agent_memory.core.models import utcnow
from agent_memory.core.store import api_keys as keys

if TYPE_CHECKING:
    from agent_memory.api.quickstart_printer import Printer
    from agent_memory.core import Memory


def http_search(mem: Memory, out: Printer, *, title: str) -> None:
    """Serve ``mem`` for a moment; open a session and search through it with an API key."""
    out.section(
        title,
        "`agent-memory serve` puts the same calls behind HTTP: an API key decides the agent, "
        "a session is opened for a user, the tools answer what Session.call answers.",
    )
    try:
        import uvicorn

        from agent_memory.api.http import create_app
    except ImportError:
        out.line("skipped   the server extra is not installed (pip install 'agent-memory[server]')")
        return
    _, token = keys.add_key(mem.store, "assistant", admin=False, now=utcnow())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(mem), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started and thread.is_alive():
            time.sleep(0.01)
        base = f"http://127.0.0.1:{port}"
        session: Any = _post(
            f"{base}/v1/sessions", token, {"user_id": "alice", "session_id": "s-http"}
        )
        session = session["session_id"]
        query = {"query": "What is Alice allergic to?"}
        url = f"{base}/v1/sessions/{session}/tools/memory_search"
        _post(url, token, query)  # the first request warms the connection path
        started = time.perf_counter()
        found = _post(url, token, query)
        took = (time.perf_counter() - started) * 1000
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    out.line(f"serve     http://127.0.0.1:{port} (in this process, for the tour)")
    out.line(f"POST      /v1/sessions/{session}/tools/memory_search {json.dumps(query)}")
    first = found["results"][0]["content"] if found["results"] else "(nothing)"
    out.line(
        f"          -> {len(found['results'])} result(s) in {took:.0f} ms: {first}",
        http={"results": len(found["results"]), "first": first},
    )


def _post(url: str, token: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())

"""``Idempotency-Key`` on write-like requests: a retry gets the first answer, never a second
write.

The key is scoped to the caller's agent (two agents may use the same key). The first answer,
its status and body, is kept in the store (core.store.idempotency) for
``idempotency_ttl_seconds`` (a day by default), whichever process answered it; a retry with
the same key and the same request (method, path and JSON body, canonically) gets it back
byte for byte. The same key with another request is a 422 problem; a retry while the first
is still being answered is a 409 problem (try again). An answer of 500 (the server failed,
nothing written) is not kept, so a retry runs again.

Known limit: the answer is kept in its own transaction, after the write's. A process killed
between the two leaves the claim in progress; after ``idempotency_stale_seconds`` a retry
runs again, and then writes again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from fastapi.responses import Response

from agent_memory.api.http.deps import Server
from agent_memory.api.http.problems import MEDIA_TYPE, Problem, from_error
from agent_memory.core.errors import AgentMemoryError
from agent_memory.core.models import utcnow
from agent_memory.core.store import idempotency as store
from agent_memory.core.store.api_keys import ApiKey

MAX_KEY = 255
REPLAYED = "Idempotent-Replayed"


def answer(
    server: Server,
    key: ApiKey,
    idempotency_key: str | None,
    *,
    request: tuple[str, str, Any],
    user_id: str | None,
    work: Callable[[], Response],
) -> Response:
    """Run ``work`` once per (agent, ``idempotency_key``) and keep its answer; without a
    key, just run it. ``request`` is (method, path, JSON body) to tell a retry from a reuse;
    ``user_id`` is whose data the answer may hold (forget-user erases it)."""
    if idempotency_key is None:
        return work()
    if not idempotency_key or len(idempotency_key) > MAX_KEY:
        raise Problem(
            400,
            "invalid_argument",
            f"Idempotency-Key must be 1-{MAX_KEY} characters",
            field="Idempotency-Key",
        )
    method, path, body = request
    digest = hashlib.sha256(
        json.dumps([method, path, body], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    memory = server.memory
    found = store.claim(
        memory.store,
        key.agent_id,
        idempotency_key,
        request_digest=digest,
        user_id=user_id,
        now=utcnow(),
        ttl_seconds=server.idempotency_ttl_seconds,
        stale_seconds=server.idempotency_stale_seconds,
    )
    if found.state == "mismatch":
        raise Problem(
            422,
            "idempotency_key_reused",
            "this Idempotency-Key was used for a different request; use a new key",
            field="Idempotency-Key",
        )
    if found.state == "in_progress":
        raise Problem(
            409,
            "idempotency_in_progress",
            "the first request with this Idempotency-Key is still being answered; retry",
            field="Idempotency-Key",
        )
    if found.state == "replay":
        return _replay(found.status, found.body or "{}")
    try:
        response = work()
    except Problem as problem:
        response = problem.response()
    except AgentMemoryError as exc:  # a refusal by the core is an answer too
        response = from_error(exc).response()
    except BaseException:
        store.release(memory.store, key.agent_id, idempotency_key)
        raise
    if response.status_code >= 500:
        store.release(memory.store, key.agent_id, idempotency_key)
    else:
        store.complete(
            memory.store,
            key.agent_id,
            idempotency_key,
            status=response.status_code,
            body=bytes(response.body).decode("utf-8"),
        )
    return response


def _replay(status: int, body: str) -> Response:
    media = MEDIA_TYPE if status >= 400 else "application/json"
    return Response(body.encode("utf-8"), status, media_type=media, headers={REPLAYED: "true"})


__all__ = ["REPLAYED", "answer"]

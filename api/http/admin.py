"""The admin routes (admin keys only, else 403): grants, stats, forget-user. Host
provisioning over HTTP, as ``agent-memory grant``/``grants``/``revoke``/``stats``/``forget-user``
do on the command line."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from agent_memory.api.http import idempotency
from agent_memory.api.http.deps import Admin, ServerDep
from agent_memory.api.http.routes import IdempotencyKey
from agent_memory.core.models import Grant

router = APIRouter(prefix="/v1/admin", tags=["admin"])


class GrantIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_id: str = Field(min_length=1, max_length=128)
    scope: str = Field(min_length=1, max_length=300, description="e.g. user:alice")
    access: Literal["read", "write", "readwrite"] = "readwrite"


class RevokeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_id: str = Field(min_length=1, max_length=128)
    scope: str = Field(min_length=1, max_length=300)


def _grant_json(grant: Grant) -> dict[str, Any]:
    return {
        "agent_id": grant.agent_id,
        "scope": grant.scope,
        "access": grant.access.value,
        "created_at": grant.created_at,
    }


@router.get("/grants")
def grants(
    key: Admin, server: ServerDep, agent_id: Annotated[str | None, Query()] = None
) -> dict[str, Any]:
    """The grant table, optionally for one agent."""
    return {"grants": [_grant_json(g) for g in server.memory.grants(agent_id)]}


@router.post("/grants", status_code=201)
def add_grant(
    body: GrantIn, key: Admin, server: ServerDep, idempotency_key: IdempotencyKey = None
) -> Response:
    """Allow an agent to read, write or readwrite a scope (more access widens a grant)."""

    def work() -> Response:
        grant = server.memory.grant(body.agent_id, body.scope, access=body.access)
        return JSONResponse(_grant_json(grant), 201)

    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", "/v1/admin/grants", body.model_dump()),
        user_id=None,
        work=work,
    )


@router.post("/grants/revoke")
def revoke_grant(
    body: RevokeIn, key: Admin, server: ServerDep, idempotency_key: IdempotencyKey = None
) -> Response:
    """Remove every access an agent has to a scope; ``revoked`` says whether it had any."""

    def work() -> Response:
        return JSONResponse({"revoked": server.memory.revoke(body.agent_id, body.scope)})

    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", "/v1/admin/grants/revoke", body.model_dump()),
        user_id=None,
        work=work,
    )


@router.get("/stats")
def stats(key: Admin, server: ServerDep) -> dict[str, Any]:
    """Counts, versions and the embedder."""
    return server.memory.stats()


@router.post("/users/{user_id}/forget")
def forget_user(
    user_id: str, key: Admin, server: ServerDep, idempotency_key: IdempotencyKey = None
) -> Response:
    """Erase everything stored of a user (records, sessions, transcripts, logs, this server's
    kept answers); the receipt counts rows per table."""

    def work() -> Response:
        return JSONResponse(server.memory.forget_user(user_id))

    # Not kept under the user's id: the receipt must survive the erasure it reports.
    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", f"/v1/admin/users/{user_id}/forget", None),
        user_id=None,
        work=work,
    )


__all__ = ["router"]

"""The agent-facing routes: sessions, turns, the five tools, a session's end, its job.

Every route acts as the agent of the caller's API key, for the user its session was opened
for; what that agent may reach is the grant table's decision, made by the core on each call.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header
from fastapi.responses import JSONResponse, Response
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from agent_memory.api.http import idempotency
from agent_memory.api.http.deps import Caller, ServerDep, stored_session
from agent_memory.api.http.problems import Problem, from_tool_error
from agent_memory.core.errors import NotFound
from agent_memory.core.store.sessions import session_row
from agent_memory.core.tools import TOOLS, tool_definitions

router = APIRouter(prefix="/v1")

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        description="Retrying with the same key (and the same request) returns the first "
        "answer instead of writing again; kept for a day, per agent.",
    ),
]


class SessionIn(BaseModel):
    """A session of the key's agent acting for ``user_id``."""

    model_config = ConfigDict(extra="forbid")

    user_id: str = Field(min_length=1, max_length=128)
    session_id: str | None = Field(
        default=None, min_length=1, max_length=128, description="default: a new random id"
    )
    write_targets: dict[str, str] | None = Field(
        default=None,
        description='symbolic write targets, e.g. {"personal": "user:alice", '
        '"current_project": "project:apollo"}; default {"personal": "user:<user_id>"}',
    )


class SessionOut(BaseModel):
    session_id: str
    user_id: str
    write_targets: dict[str, str]


class TurnIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "tool", "system"]
    content: str
    at: AwareDatetime | None = Field(default=None, description="default: now")
    tool: str | None = Field(
        default=None,
        description="on a tool turn the tool whose output it is; on an assistant turn the "
        "tool the model called (content: its arguments)",
    )


class TurnsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turns: list[TurnIn] = Field(min_length=1, max_length=1000)


class TurnsOut(BaseModel):
    session_id: str
    seqs: list[int]


class EndOut(BaseModel):
    session_id: str
    job_id: str
    job: dict[str, Any]


@router.post("/sessions", status_code=201, response_model=SessionOut, tags=["sessions"])
def open_session(
    body: SessionIn, key: Caller, server: ServerDep, idempotency_key: IdempotencyKey = None
) -> Response:
    """session_started: open (or resume) a session of this key's agent for ``user_id``."""

    def work() -> Response:
        session_id = body.session_id or f"ses_{uuid.uuid4().hex}"
        row = session_row(server.memory.store, session_id)
        if row is not None and (row["agent_id"], row["user_id"]) != (key.agent_id, body.user_id):
            raise Problem(
                409,
                "session_conflict",
                "this session id is taken by another agent or user; choose another",
                field="session_id",
            )
        session = server.memory.session(
            agent_id=key.agent_id,
            user_id=body.user_id,
            session_id=session_id,
            write_targets=body.write_targets,
        )
        out = SessionOut(
            session_id=session.session_id,
            user_id=session.user_id,
            write_targets=session.write_targets,
        )
        return JSONResponse(out.model_dump(), 201)

    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", "/v1/sessions", body.model_dump(mode="json")),
        user_id=body.user_id,
        work=work,
    )


@router.post(
    "/sessions/{session_id}/turns", status_code=201, response_model=TurnsOut, tags=["sessions"]
)
def add_turns(
    session_id: str,
    body: TurnsIn,
    key: Caller,
    server: ServerDep,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """turn_completed, for each turn in order: the transcript that evidence is checked
    against and that extraction reads when the session ends."""
    session = stored_session(server.memory, key, session_id)

    def work() -> Response:
        seqs = [
            session.add_turn(turn.role, turn.content, at=turn.at, tool=turn.tool)
            for turn in body.turns
        ]
        return JSONResponse(TurnsOut(session_id=session_id, seqs=seqs).model_dump(), 201)

    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", f"/v1/sessions/{session_id}/turns", body.model_dump(mode="json")),
        user_id=session.user_id,
        work=work,
    )


def _call_tool(
    name: str,
    session_id: str,
    arguments: Any,
    key: Caller,
    server: ServerDep,
    idempotency_key: str | None,
) -> Response:
    session = stored_session(server.memory, key, session_id)

    def work() -> Response:
        result = session.call(name, arguments)
        if "error" in result:
            return from_tool_error(result).response()
        return JSONResponse(result)

    tool = TOOLS.get(name)
    if tool is None or not tool.writes:  # a read: nothing to keep, nothing written twice
        return work()
    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", f"/v1/sessions/{session_id}/tools/{name}", arguments),
        user_id=session.user_id,
        work=work,
    )


def _tool_route(name: str, description: str, schema: dict[str, Any]) -> None:
    def endpoint(
        session_id: str,
        key: Caller,
        server: ServerDep,
        arguments: Annotated[Any, Body()] = None,
        idempotency_key: IdempotencyKey = None,
    ) -> Response:
        return _call_tool(name, session_id, arguments, key, server, idempotency_key)

    router.add_api_route(
        f"/sessions/{{session_id}}/tools/{name}",
        endpoint,
        methods=["POST"],
        name=name,
        summary=name,
        description=description
        + "\n\nThe body is the tool's arguments; the answer is exactly what Session.call "
        "answers, or a problem carrying the tool's error code.",
        tags=["tools"],
        openapi_extra={
            "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}
        },
    )


for _definition in tool_definitions("tool_only"):
    _tool_route(_definition["name"], _definition["description"], _definition["input_schema"])


@router.post("/sessions/{session_id}/tools/{tool_name}", tags=["tools"], include_in_schema=False)
def unknown_tool(
    session_id: str,
    tool_name: str,
    key: Caller,
    server: ServerDep,
    arguments: Annotated[Any, Body()] = None,
    idempotency_key: IdempotencyKey = None,
) -> Response:
    """Any other name: the core's ``unknown_tool`` answer, as a problem."""
    return _call_tool(tool_name, session_id, arguments, key, server, idempotency_key)


@router.post(
    "/sessions/{session_id}/end", status_code=202, response_model=EndOut, tags=["sessions"]
)
def end_session(
    session_id: str, key: Caller, server: ServerDep, idempotency_key: IdempotencyKey = None
) -> Response:
    """session_ended: close the transcript and enqueue extraction (202: it runs in a
    worker, `agent-memory worker`). Ending again answers the same job."""
    session = stored_session(server.memory, key, session_id)

    def work() -> Response:
        job_id = session.end()
        job = server.memory.jobs.status(job_id)
        return JSONResponse(EndOut(session_id=session_id, job_id=job_id, job=job).model_dump(), 202)

    return idempotency.answer(
        server,
        key,
        idempotency_key,
        request=("POST", f"/v1/sessions/{session_id}/end", None),
        user_id=session.user_id,
        work=work,
    )


@router.get("/jobs/{job_id}", tags=["jobs"])
def job(job_id: str, key: Caller, server: ServerDep) -> dict[str, Any]:
    """An extraction job: status, stages (attempts, errors, timings), records written. Only
    the agent whose session it extracts sees it (and admin keys)."""
    try:
        status = server.memory.jobs.status(job_id)
    except NotFound:
        status = None
    # One answer for a job that does not exist and another agent's: its existence stays unsaid.
    if status is None or (not key.admin and status.get("agent_id") != key.agent_id):
        raise Problem(404, "not_found", f"no job {job_id!r} for this key's agent", field="job_id")
    return status


__all__ = ["router"]

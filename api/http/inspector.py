"""The inspector (issue 19 item 5): a read-only web page of what the store holds for a user,
for an operator with an admin key. Server-rendered (Jinja2), no JavaScript.

    GET /inspector?user=alice[&agent=planner&q=...]

It shows the user's records in every status (with evidence, lineage and conflicts), a search
box (as an agent granted on the user's scope) showing each result's explanation and an empty
answer's, the search log replayed, and the extraction jobs of the user's sessions with their
stages. Searches run on a second, read-only ``Memory`` of the same file (sharing the
embedder): the page cannot write, and its searches are not logged.

A browser cannot send an ``Authorization`` header by itself, so ``/inspector/login`` takes
the key in a form and keeps it in an HttpOnly, SameSite=Lax cookie for ``/inspector`` (Lax:
the page is read-only, and a login form's redirect must carry it); ``Authorization: Bearer``
works too. A non-admin key gets 403.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from agent_memory.api.http.deps import Server, server
from agent_memory.core.errors import AgentMemoryError
from agent_memory.core.models import Record
from agent_memory.core.search.explain import response_reason, result_reason
from agent_memory.core.store.api_keys import ApiKey, authenticate
from agent_memory.core.store.inspect import user_records, user_searches

router = APIRouter(prefix="/inspector", include_in_schema=False)
COOKIE = "agent_memory_key"
_templates = Environment(
    loader=FileSystemLoader(Path(__file__).with_name("templates")),
    autoescape=select_autoescape(["html"]),
)


# The page shows a user's records: no cache may keep it, no other site may frame it, and it
# runs no script at all (the policy makes any markup that slipped through escaping inert).
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def _page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(name).render(**context), status, headers=HEADERS)


def _admin(request: Request) -> ApiKey | HTMLResponse:
    """The admin key of the request (header or cookie), else the page saying why."""
    header = request.headers.get("authorization", "")
    token = header[7:] if header.lower().startswith("bearer ") else request.cookies.get(COOKIE)
    key = authenticate(server(request).memory.store, token) if token else None
    if key is None:
        return _page("login.html", 401, error="a valid admin key is needed" if token else None)
    if not key.admin:
        return _page("login.html", 403, error="this key is not an admin key (keys add --admin)")
    return key


@router.get("/login")
def login_form() -> HTMLResponse:
    return _page("login.html")


@router.post("/login")
async def login(request: Request) -> Response:
    """The key from the form, kept in a cookie if it is an admin key."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token = (form.get("key") or [""])[0].strip()
    key = authenticate(server(request).memory.store, token) if token else None
    if key is None or not key.admin:
        status = 401 if key is None else 403
        return _page("login.html", status, error="this is not a valid admin key")
    # The form may carry what to show first: a user, and a search as an agent.
    shown = {name: form[name][0] for name in ("user", "agent", "q") if form.get(name)}
    response = RedirectResponse(
        "/inspector" + (f"?{urlencode(shown)}" if shown else ""), 303, headers=HEADERS
    )
    response.set_cookie(
        COOKIE, token, httponly=True, samesite="lax", path="/inspector", max_age=8 * 3600
    )
    return response


@router.get("")
def inspector(
    request: Request,
    user: Annotated[str, Query(max_length=128)] = "",
    agent: Annotated[str, Query(max_length=128)] = "",
    q: Annotated[str, Query(max_length=2000)] = "",
) -> Response:
    key = _admin(request)
    if isinstance(key, HTMLResponse):
        return key
    srv = server(request)
    context: dict[str, Any] = {"user": user, "agent": agent, "q": q, "key": key}
    if user:
        try:
            context.update(_user_view(srv, user, agent, q))
        except AgentMemoryError as exc:
            context["error"] = str(exc)
    return _page("inspector.html", **context)


def _user_view(srv: Server, user: str, agent: str, q: str) -> dict[str, Any]:
    mem = srv.memory
    records = user_records(mem.store, user)
    superseded_by = {r.supersedes_id: r.id for r in records if r.supersedes_id}
    agents = sorted({g.agent_id for g in mem.grants() if g.scope == f"user:{user}"})
    agent = agent or (agents[0] if agents else "")
    search = _search(srv, agent, user, q) if q and agent else None
    searches = [
        {**s, "reason": _reason(s["payload"].get("explanation", {}), len(s["result_ids"]))}
        for s in user_searches(mem.store, user)
    ]
    jobs = [
        mem.jobs.status(s["job_id"]) for s in mem.sessions(user_id=user, limit=20) if s["job_id"]
    ]
    return {
        "records": [_record_row(r, superseded_by) for r in records],
        "agents": agents,
        "agent": agent,
        "search": search,
        "searches": searches,
        "jobs": jobs,
    }


def _record_row(record: Record, superseded_by: dict[str, str]) -> dict[str, Any]:
    return {
        "id": record.id,
        "type": record.type.value,
        "status": record.status.value,
        "source_kind": record.source_kind.value,
        "scope": record.scope,
        "content": record.content,
        "evidence": record.evidence,
        "created_at": record.created_at,
        "version": record.version,
        "supersedes_id": record.supersedes_id,
        "superseded_by": superseded_by.get(record.id),
        "conflicts_with": list(record.conflicts_with),
    }


def _search(srv: Server, agent: str, user: str, query: str) -> dict[str, Any]:
    session = srv.reader().session(agent_id=agent, user_id=user, session_id="inspector-read-only")
    result = session.call("memory_search", {"query": query})
    if "error" in result:
        return {"error": result["error"]["message"], "results": []}
    return {
        "results": [
            {**item, "reason": result_reason(item["explanation"])} for item in result["results"]
        ],
        "reason": _reason(result["explanation"], len(result["results"])),
        "explanation": result["explanation"],
    }


def _reason(explanation: dict[str, Any], returned: int) -> str:
    """The answer's one-line reason as the inspector shows it: the model's line, but for an
    empty answer the full ``why_empty``, with the figures that decided it (an engineer reads
    this page; the model's line keeps only the gist)."""
    if not returned and explanation.get("why_empty"):
        return str(explanation["why_empty"])
    return response_reason(explanation, returned=returned)


__all__ = ["router"]

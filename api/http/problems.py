"""Errors as RFC 9457 problem details (``application/problem+json``).

Every error answer has ``type``, ``title``, ``status`` and ``detail``, and ``code``: the
tool's stable error code where there is one (``invalid_argument``, ``permission_denied``,
``not_found``, ...), else the server's own (``unauthorized``, ``forbidden``, ...). A tool's
error also carries ``field`` and ``error``: exactly what ``Session.call`` answered. No
traceback, exception text of an unexpected error or request content is ever in a body: an
unexpected error is logged (without content) and answered ``internal_error``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_memory.core.errors import AgentMemoryError, InvalidArgument, ReadOnlyStoreError
from agent_memory.core.logging import get_logger

log = get_logger("agent_memory.http")

MEDIA_TYPE = "application/problem+json"
TYPE_BASE = "https://agent-memory.dev/problems/"  # a stable identifier; not fetched

# The HTTP status of each tool error code (core.errors); any other code is a 400.
STATUS = {
    "invalid_argument": 400,
    "invalid_identifier": 400,
    "unknown_tool": 404,
    "not_found": 404,
    "permission_denied": 403,
    "read_only": 409,
    "forgotten": 409,
    "internal_error": 500,
}

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    500: "Internal server error",
}


class Problem(Exception):
    """An error answer. ``extra`` members are added to the body (e.g. ``field``)."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = {k: v for k, v in extra.items() if v is not None}

    def body(self) -> dict[str, Any]:
        return {
            "type": TYPE_BASE + self.code,
            "title": TITLES.get(self.status, "Error"),
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
            **self.extra,
        }

    def response(self) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if self.status == 401 else None
        return JSONResponse(self.body(), self.status, headers=headers, media_type=MEDIA_TYPE)


def from_tool_error(result: dict[str, Any]) -> Problem:
    """The problem for a ``Session.call`` answer ``{"error": {...}}``."""
    error = result["error"]
    code = str(error.get("code", "invalid_argument"))
    return Problem(
        STATUS.get(code, 400),
        code,
        str(error.get("message", "")),
        field=error.get("field"),
        error=error,
    )


def from_error(exc: AgentMemoryError) -> Problem:
    """The problem for an error the core raised on purpose (bad input, a refusal)."""
    if isinstance(exc, InvalidArgument | ReadOnlyStoreError):
        return from_tool_error(exc.as_tool_error())
    return Problem(409, "store_error", "the store refused the request")


def install(app: FastAPI) -> None:
    """Answer every error, FastAPI's and Starlette's own included, as a problem."""

    @app.exception_handler(Problem)
    def _problem(request: Request, exc: Problem) -> JSONResponse:
        return exc.response()

    @app.exception_handler(AgentMemoryError)
    def _core(request: Request, exc: AgentMemoryError) -> JSONResponse:
        return from_error(exc).response()

    @app.exception_handler(RequestValidationError)
    def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        # Where and what, never the input itself (it may be a user's words).
        errors = [
            {"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg", ""), "type": e["type"]}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(p for p in first["loc"] if p != "body") or "body"
        detail = f"{where}: {first['msg']}"
        return Problem(422, "invalid_request", detail, field=where, errors=errors).response()

    @app.exception_handler(StarletteHTTPException)
    def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large"}
        code = codes.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "")
        return Problem(exc.status_code, code, detail).response()

    app.add_middleware(_Unexpected)


class _Unexpected:
    """Answers an unexpected exception as a bare ``internal_error`` problem and logs only its
    class: Starlette's own 500 handler would re-raise it, and the server would print its
    traceback and message (which may quote a user's words)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            log.error("http.failed", path=scope.get("path"), error=type(exc).__name__)
            if not started:
                problem = Problem(500, "internal_error", "the server failed; nothing was answered")
                await problem.response()(scope, receive, send)


__all__ = ["MEDIA_TYPE", "Problem", "from_error", "from_tool_error", "install"]

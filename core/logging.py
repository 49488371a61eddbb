"""structlog setup: the library's own safe default, and ``configure_logging`` for hosts.

Libraries should not configure logging on import, and this one does not: its modules log
through ``get_logger``, which follows the host's structlog configuration once there is one.
Until then (a host that never calls ``configure_logging`` nor configures structlog) they use a
private default instead of structlog's own, which prints to stdout and, with ``rich``
installed, renders tracebacks with every local variable: a secret in a tool's arguments was
printed dozens of times, into stdout protocols such as MCP's stdio. The default writes one JSON
line per event to stderr, warnings and errors only.

Exceptions are rendered the same way everywhere here (``exception_without_content``): the
exception's type and the stack's file, line and function, never its message nor locals, since
either may hold what a user said.
"""

from __future__ import annotations

import logging
import sys
import traceback
from typing import Any, TextIO

import structlog
from structlog.typing import EventDict, Processor, WrappedLogger

DEFAULT_LEVEL = logging.WARNING


def exception_without_content(_logger: WrappedLogger, _name: str, event: EventDict) -> EventDict:
    """Replace ``exc_info`` with ``exception``: its type and where it was raised (each frame's
    file, line and function), without its message or any local variable."""
    exc_info = event.pop("exc_info", None)
    if not exc_info:
        return event
    if exc_info is True:
        exc_info = sys.exc_info()
    elif isinstance(exc_info, BaseException):
        exc_info = (type(exc_info), exc_info, exc_info.__traceback__)
    exc_type, _exc, tb = exc_info
    if exc_type is None:
        return event
    frames = [f"{f.filename}:{f.lineno} in {f.name}" for f in traceback.extract_tb(tb)]
    event["exception"] = {"type": exc_type.__name__, "frames": frames[-10:]}
    return event


def _processors(renderer: Processor) -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        exception_without_content,
        renderer,
    ]


def configure_logging(
    *,
    level: str = "INFO",
    stream: TextIO | None = None,
    json: bool | None = None,
    stdlib: tuple[str, ...] = (),
) -> None:
    """Send agent-memory's structured events to ``stream`` (stderr by default).

    ``json`` None means: JSON lines unless the stream is a terminal. ``stdlib`` names
    standard-library loggers (``("huey",)`` in ``agent-memory worker``) whose records go
    through the same processors and renderer, to the same stream.
    """
    if json is None:
        json = not (stream or sys.stderr).isatty()
    renderer: Processor = (
        structlog.processors.JSONRenderer(sort_keys=True)
        if json
        else structlog.dev.ConsoleRenderer(colors=False, exception_formatter=_plain)
    )
    numeric = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        processors=_processors(renderer),
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        # Without an explicit stream, sys.stderr is looked up at each event rather than kept:
        # a host (or a test runner) that swaps stderr later must not be left writing to a
        # closed file.
        logger_factory=structlog.PrintLoggerFactory(stream)
        if stream is not None
        else _current_stderr_logger,
        cache_logger_on_first_use=False,
    )
    for name in stdlib:
        _route_stdlib(name, numeric, renderer, stream)


def _plain(sio: TextIO, exc_info: Any) -> None:
    """The console renderer's exception formatter; never reached, since
    ``exception_without_content`` removes exc_info first, but never rich and its locals."""
    sio.write("\n" + "".join(traceback.format_exception_only(exc_info[0], None)))


class _SharedLineHandler(logging.Handler):
    """Writes a stdlib record as one line through structlog's PrintLogger, to ``stream`` or to
    whatever sys.stderr is when the record arrives. PrintLogger holds one lock per file, shared
    with every structlog line: Huey's threads and ours log at once, and print writes the
    newline apart, so a handler with a lock of its own could land between the two writes."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            structlog.PrintLogger(self._stream or sys.stderr).msg(self.format(record))
        except Exception:
            self.handleError(record)


def _route_stdlib(name: str, level: int, renderer: Processor, stream: TextIO | None) -> None:
    """Format the stdlib logger ``name`` with structlog's processors: each record becomes one
    event like ours (``logger`` says whose), its exception rendered without content."""
    handler = _SharedLineHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.add_logger_name,
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                exception_without_content,
                renderer,
            ],
        )
    )
    logger = logging.getLogger(name)
    for old in [h for h in logger.handlers if getattr(h, "_agent_memory", False)]:
        logger.removeHandler(old)
    handler._agent_memory = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


def _current_stderr_logger(*_args: object) -> structlog.PrintLogger:
    return structlog.PrintLogger(sys.stderr)


_DEFAULT_PROCESSORS = _processors(structlog.processors.JSONRenderer(sort_keys=True))
_DEFAULT_WRAPPER = structlog.make_filtering_bound_logger(DEFAULT_LEVEL)


class _LibraryLogger:
    """What ``get_logger`` returns: the host's configured structlog logger once structlog is
    configured, else the safe default (module docstring). Decided at each call."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _target(self) -> Any:
        if structlog.is_configured():
            return structlog.get_logger(self._name)
        return structlog.wrap_logger(
            structlog.PrintLogger(sys.stderr),
            processors=_DEFAULT_PROCESSORS,
            wrapper_class=_DEFAULT_WRAPPER,
            cache_logger_on_first_use=False,
        )

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._target(), attribute)


def get_logger(name: str) -> Any:
    """The logger agent-memory's modules use (see the module docstring)."""
    return _LibraryLogger(name)


__all__ = ["configure_logging", "exception_without_content", "get_logger"]

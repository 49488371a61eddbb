"""structlog setup: JSON lines when stderr is not a terminal, readable console lines when it is.

Libraries should not configure logging on import; hosts and the CLI call ``configure_logging``
once. Processors are plain functions over event dicts.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

import structlog


def configure_logging(
    *, level: str = "INFO", stream: TextIO | None = None, json: bool | None = None
) -> None:
    """Send agent-memory's structured events to ``stream`` (stderr by default).

    ``json`` None means: JSON lines unless the stream is a terminal.
    """
    if json is None:
        json = not (stream or sys.stderr).isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer(sort_keys=True)
        if json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        # Without an explicit stream, sys.stderr is looked up at each event rather than kept:
        # a host (or a test runner) that swaps stderr later must not be left writing to a
        # closed file.
        logger_factory=structlog.PrintLoggerFactory(stream)
        if stream is not None
        else _current_stderr_logger,
        cache_logger_on_first_use=False,
    )


def _current_stderr_logger(*_args: object) -> structlog.PrintLogger:
    return structlog.PrintLogger(sys.stderr)

"""One stage timer for search, write and extraction.

Every flow (the Retriever's search, the Ingestor's write, an extraction stage) times its stages
with a `StageTimer`: ``with timer.stage("dense_candidates"): ...``. The timings land in the
search and write logs as ``timings_ms`` (stage name to milliseconds, in the order the stages
ran), so a slow call can be explained afterwards from its log row alone.

An observer hears each finished stage (its name, its start on the ``time.perf_counter`` clock
and its duration in milliseconds). A timer made inside ``observing(observer)`` uses that
observer: tracing (core.tracing) installs one around a tool call or an extraction stage, so
the stages become span events without the flows knowing about tracing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

StageObserver = Callable[[str, float, float], None]
"""Called as ``observer(stage_name, started_perf_counter, duration_ms)`` after each stage."""

_observer: ContextVar[StageObserver | None] = ContextVar("stage_observer", default=None)


@contextmanager
def observing(observer: StageObserver) -> Iterator[None]:
    """Timers made inside the block report their stages to ``observer``."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


class StageTimer:
    """Wall-clock timings of one call's stages, in milliseconds rounded to the microsecond."""

    __slots__ = ("_observer", "started", "timings")

    def __init__(self, observer: StageObserver | None = None) -> None:
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self._observer = observer if observer is not None else _observer.get()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block as stage ``name``; a stage that runs twice keeps its total."""
        started = time.perf_counter()
        try:
            yield
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            self.timings[name] = round(self.timings.get(name, 0.0) + elapsed, 3)
            if self._observer is not None:
                self._observer(name, started, elapsed)

    def total_ms(self) -> float:
        """Milliseconds since the timer was made: the whole call so far."""
        return round((time.perf_counter() - self.started) * 1000, 3)

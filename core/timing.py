"""One stage timer for search, write and extraction.

Every flow (the Retriever's search, the Ingestor's write, an extraction stage) times its stages
with a `StageTimer`: ``with timer.stage("dense_candidates"): ...``. The timings land in the
search and write logs as ``timings_ms`` (stage name to milliseconds, in the order the stages
ran), so a slow call can be explained afterwards from its log row alone.

An observer, when given, hears each finished stage (its name, its start on the
``time.perf_counter`` clock and its duration in milliseconds); tracing attaches one to turn the
stages into span events without the flows knowing about tracing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

StageObserver = Callable[[str, float, float], None]
"""Called as ``observer(stage_name, started_perf_counter, duration_ms)`` after each stage."""


class StageTimer:
    """Wall-clock timings of one call's stages, in milliseconds rounded to the microsecond."""

    __slots__ = ("_observer", "started", "timings")

    def __init__(self, observer: StageObserver | None = None) -> None:
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self._observer = observer

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

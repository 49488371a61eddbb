"""Running the consumer: what ``agent-memory worker`` does.

- thread workers (``worker.threads``): the stages spend their time waiting on the model, and
  threads share one loaded embedder and one store connection;
- Huey's periodic tasks on (the minute sweep), plus a ticker thread that runs the sweep every
  ``worker.sweep_seconds`` and once at start, so work left by a crashed consumer resumes as
  soon as its leases expire; the first sweep sends every queued stage again, since a consumer
  killed between advancing a stage and sending the next one's message left no message;
- SIGTERM (and SIGINT) stop gracefully: running stages finish, nothing new starts. A second
  signal interrupts; an interrupted or killed stage is re-run by the sweep after its lease;
- stale Huey locks (left by a consumer killed with SIGKILL) are cleared at start. Run one
  ``agent-memory worker`` per queue file for that reason; use ``--threads`` to scale.

``PauseHooks`` is the documented crash-test seam: ``AGENT_MEMORY_WORKER_PAUSE`` set to
``STAGE:POINT=SECONDS[,...]`` makes the worker log ``worker.paused`` and sleep the first time a
stage reaches that point (points: claimed, model_done, written, before_advance), so a test can
SIGKILL it there. Never set it in production.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from agent_memory.core.logging import get_logger
from agent_memory.workers.app import WorkerApp

log = get_logger("agent_memory.worker")

PAUSE_VARIABLE = "AGENT_MEMORY_WORKER_PAUSE"


class PauseHooks:
    """Sleep at named points inside stages, once each (see the module docstring)."""

    def __init__(self, pauses: Mapping[tuple[str, str], float]) -> None:
        self._pauses = dict(pauses)
        self._lock = threading.Lock()

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> PauseHooks | None:
        spec = environ.get(PAUSE_VARIABLE, "").strip()
        if not spec:
            return None
        pauses: dict[tuple[str, str], float] = {}
        for item in spec.split(","):
            where, _, seconds = item.partition("=")
            stage, _, point = where.strip().partition(":")
            pauses[(stage, point or "claimed")] = float(seconds or 3600)
        return cls(pauses)

    def at(self, stage: str, point: str) -> None:
        with self._lock:
            seconds = self._pauses.pop((stage, point), None)
        if seconds is not None:
            log.warning("worker.paused", stage=stage, point=point, seconds=seconds)
            time.sleep(seconds)


def sweep_until(app: WorkerApp, stop: threading.Event) -> None:
    """Sweep at once, then every ``worker.sweep_seconds``, until ``stop`` is set. The first
    sweep that runs sends every queued stage again (a crashed worker may have lost its
    message); one skipped because another process held the sweep lock does not count."""
    first = True
    while True:
        try:
            if app.sweep(resend_queued=first) is not None:  # None: another sweep ran
                first = False
        except Exception:  # keep sweeping; the error is logged with its traceback
            log.exception("worker.sweep_failed")
        if stop.wait(app.config.worker.sweep_seconds):
            return


def run_consumer(app: WorkerApp, *, threads: int) -> None:
    """Run the consumer until SIGTERM or SIGINT (see the module docstring). Builds the model
    backend first, so a misconfiguration (backend anthropic without ANTHROPIC_API_KEY) stops
    the worker at start with ConfigError instead of failing every job; then loads the store
    and the embedder, so the first stage is as fast as the rest."""
    worker = app.config.worker
    backend = app.backend  # a misconfigured backend (no API key) refuses to start, here
    app.memory.warm()
    consumer = app.huey.create_consumer(
        workers=threads,
        worker_type="thread",
        periodic=True,
        initial_delay=0.05,
        backoff=1.5,
        max_delay=min(2.0, worker.sweep_seconds),
        check_worker_health=True,
        flush_locks=True,
        graceful_signal="TERM",
    )
    stop = threading.Event()
    log.info(
        "worker.ready",
        store=str(app.store_path),
        queue=str(app.queue_path),
        threads=threads,
        backend=backend.name,
    )
    ticker = threading.Thread(target=sweep_until, args=(app, stop), name="sweeper", daemon=True)
    ticker.start()
    try:
        consumer.run()  # returns after a graceful stop
    finally:
        stop.set()
        app.close()
        log.info("worker.stopped")


__all__ = ["PAUSE_VARIABLE", "PauseHooks", "run_consumer", "sweep_until"]

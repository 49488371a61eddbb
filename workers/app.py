"""The Huey application: one task per extraction stage, the maintenance sweep, signals.

    app = WorkerApp("data/memory.db", config)        # the queue file sits beside the store
    mem = Memory.open("data/memory.db", config, dispatcher=app)   # the host side
    job_id = mem.session(...).end()                  # persists the job, then app.dispatch()

Each stage task is a thin wrapper: ``Pipeline.run(job_id, stage)`` (core) claims the stage in
the store, runs it and advances it; the task then enqueues the next stage. Messages carry only
the job id. Huey retries a failed stage after the back-off the store chose (exponential from
``worker.retry_delay_seconds``, capped at ``worker.retry_max_delay_seconds``, jittered); the
attempt count that matters is the one in the store.

The sweep (``WorkerApp.sweep``) runs as a Huey periodic task every minute and, in
``agent-memory worker``, every ``worker.sweep_seconds`` from a ticker thread; a Huey lock keeps
two from overlapping (and every change it makes is an atomic transaction anyway). It re-queues
expired claims and queued stages whose message was lost, fails jobs past their attempts,
ends sessions idle longer than ``worker.session_idle_seconds`` (so they are extracted), flags
due review_at records (Path C), expires unreinforced provisional records and finishes an
erasure whose WAL checkpoint a reader kept busy (``Store.retry_purge``); with
``retention.*_days`` set it deletes old search and write log rows and transcripts
(core.retention).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from huey import SqliteHuey, crontab, signals
from huey.exceptions import RetryTask, TaskLockedException

from agent_memory.core import Config, Memory, retention
from agent_memory.core.errors import ConfigError, ExtractionError
from agent_memory.core.extraction import ModelBackend, Pipeline, StageHooks, make_backend
from agent_memory.core.jobs import STAGES
from agent_memory.core.logging import get_logger
from agent_memory.core.models import utcnow

log = get_logger("agent_memory.worker")

QUEUE_SUFFIX = ".queue.db"
SWEEP_LOCK = "agent-memory-sweep"


def queue_path_for(store_path: str | os.PathLike[str], config: Config) -> Path:
    """The Huey queue file for a store: ``worker.queue_path`` (relative to the store's
    folder, so a host and a worker started in different directories share it), else
    ``<store>.queue.db``; absolute either way."""
    store = Path(store_path).resolve()
    if config.worker.queue_path:
        return store.parent / Path(config.worker.queue_path).expanduser()
    return store.with_name(store.name + QUEUE_SUFFIX)


class WorkerApp:
    """The Huey app for one store. Also the store's ``Dispatcher`` (core.jobs).

    ``immediate=True`` runs every task synchronously in the calling thread (Huey's immediate
    mode, in-memory queue): tests and the quickstart use it to run the whole pipeline inside
    ``Session.end()``. ``memory`` and ``backend`` are opened lazily when not given:
    ``Memory.open(store, config, dispatcher=self)`` and ``make_backend(config.extraction,
    environ=environ)`` (``environ`` defaults to ``os.environ``, read on first use)."""

    def __init__(
        self,
        store_path: str | os.PathLike[str],
        config: Config | None = None,
        *,
        immediate: bool = False,
        memory: Memory | None = None,
        backend: ModelBackend | None = None,
        hooks: StageHooks | None = None,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store_path = Path(store_path)
        self.config = config or (memory.config if memory is not None else Config())
        self.queue_path = queue_path_for(self.store_path, self.config)
        if memory is not None:
            self._check_serves(memory)
        if not immediate:
            self.queue_path.parent.mkdir(parents=True, exist_ok=True)
        self.huey = SqliteHuey(
            "agent-memory",
            filename=str(self.queue_path),
            immediate=immediate,
            results=False,
            utc=True,
        )
        self.hooks = hooks
        self.clock = clock
        self._environ = environ
        self._memory = memory
        self._backend = backend
        self._open_lock = threading.Lock()
        # Huey's SQLite storage has no lock TTL: a lock left by a killed consumer is cleared
        # when the next one starts (flush_locks, in workers.consumer).
        self._sweep_lock = self.huey.lock_task(SWEEP_LOCK)
        self._tasks: dict[str, Any] = {}
        self._register()

    # -- lazily opened parts -----------------------------------------------------------------

    @property
    def memory(self) -> Memory:
        with self._open_lock:
            if self._memory is None:
                self._memory = Memory.open(self.store_path, self.config, dispatcher=self)
            elif self._memory.dispatcher is None:
                self._memory.dispatcher = self
            return self._memory

    def attach(self, memory: Memory) -> Memory:
        """Use ``memory`` (an open Memory of this store) for the stages, and make this app its
        dispatcher, so its sessions' ``end()`` enqueue here. Returns it.

        The queue file comes from the Config the app was built with: a Memory of another
        store, or one whose own settings name another queue (``worker.queue_path``), is
        refused, since its sessions would be enqueued where its workers do not look."""
        self._check_serves(memory)
        with self._open_lock:
            self._memory = memory
            memory.dispatcher = self
        return memory

    def _check_serves(self, memory: Memory) -> None:
        if Path(memory.path).resolve() != self.store_path.resolve():
            raise ConfigError(
                f"this WorkerApp serves {self.store_path}, not {memory.path}: build one for it"
            )
        if (wanted := queue_path_for(self.store_path, memory.config)) != self.queue_path:
            raise ConfigError(
                f"the Memory's settings put its queue at {wanted}, this WorkerApp's at "
                f"{self.queue_path}: build the app with the Memory's, WorkerApp(path, "
                "memory.config)"
            )

    @property
    def backend(self) -> ModelBackend:
        with self._open_lock:
            if self._backend is None:
                environ = self._environ if self._environ is not None else os.environ
                self._backend = make_backend(self.config.extraction, environ=environ)
            return self._backend

    def pipeline(self) -> Pipeline:
        """A pipeline for the calling thread, named after host, process and thread."""
        worker = f"{socket.gethostname()}/{os.getpid()}/{threading.current_thread().name}"
        return Pipeline(
            self.memory.engine, self.backend, worker=worker, hooks=self.hooks, clock=self.clock
        )

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()

    # -- the dispatcher ----------------------------------------------------------------------

    def dispatch(self, job_id: str, stage: str) -> None:
        """Enqueue the task of ``stage`` for ``job_id`` (in immediate mode: run it now)."""
        self._tasks[stage](job_id)

    # -- tasks -------------------------------------------------------------------------------

    def _register(self) -> None:
        worker = self.config.worker
        for stage in STAGES:
            self._tasks[stage] = self.huey.task(
                retries=worker.max_attempts,
                retry_delay=worker.retry_delay_seconds,
                name=f"stage_{stage}",
            )(self._stage_runner(stage))
        self.huey.periodic_task(crontab(minute="*"), name="maintenance")(self._periodic_sweep)
        self.huey.signal()(self._on_signal)

    def _stage_runner(self, stage: str) -> Callable[[str], None]:
        def run_stage(job_id: str) -> None:
            try:
                result = self.pipeline().run(job_id, stage)
            except ExtractionError as exc:
                if not exc.retryable:
                    return  # the job has failed, its error kept: a retry would only be refused
                # Huey sends it again after the back-off the store chose (core.jobs); it
                # retries as long as the store says so, so Huey's own count never ends a job.
                raise RetryTask(delay=exc.retry_in or None) from exc
            if result.next_stage is not None:
                try:
                    self.dispatch(job_id, result.next_stage)
                except Exception as exc:  # the stage is queued in the store; the sweep sends it
                    log.warning(
                        "worker.send_failed", job=job_id, stage=result.next_stage, error=str(exc)
                    )
                    self.memory.jobs.mark_unsent(job_id, result.next_stage)

        run_stage.__name__ = f"stage_{stage}"
        run_stage.__doc__ = f"Run the {stage} stage of one extraction job."
        return run_stage

    def _periodic_sweep(self) -> None:
        self.sweep()

    def sweep(
        self, *, now: datetime | None = None, resend_queued: bool = False
    ) -> dict[str, Any] | None:
        """One maintenance pass (see the module docstring). None when another sweep holds the
        lock. Returns what it did. ``resend_queued``: send every queued stage again, not only
        those queued longer than ``worker.requeue_after_seconds`` (a consumer's first sweep;
        core.jobs.Jobs.sweep)."""
        try:
            with self._sweep_lock:
                return self._sweep(now or self.clock(), resend_queued=resend_queued)
        except TaskLockedException:
            return None

    def _sweep(self, now: datetime, *, resend_queued: bool = False) -> dict[str, Any]:
        memory = self.memory
        report = memory.jobs.sweep(now=now, dispatcher=self, resend_queued=resend_queued).to_json()
        report["idle_ended"] = memory.end_idle_sessions(now=now)
        report["review_flagged"] = memory.flag_due_reviews(now=now)
        report["expired"] = memory.expire_provisional(now=now)
        if retained := retention.apply(memory.store, memory.config.retention, now=now):
            report["retention_deleted"] = retained
        purged = memory.store.retry_purge()  # an erasure a reader's snapshot held in the WAL
        if purged is not None:
            report["purge_finished"] = purged
        if any(report.values()):
            log.info("worker.sweep", **report)
        return report

    def _on_signal(self, signal: str, task: Any, exc: BaseException | None = None) -> None:
        """Huey's signals as structlog events: worker.task with the signal, task and job."""
        fields: dict[str, Any] = {
            "signal": signal,
            "task": getattr(task, "name", type(task).__name__),
            "task_id": getattr(task, "id", None),
            "job_id": (getattr(task, "args", None) or [None])[0],
        }
        if exc is not None:
            # Only an ExtractionError's message is kept free of the session's words
            # (core.extraction.stage_errors); any other exception is logged by its kind.
            scrubbed = isinstance(exc, ExtractionError)
            fields["error"] = f"{type(exc).__name__}: {exc}" if scrubbed else type(exc).__name__
        if signal == signals.SIGNAL_ENQUEUED:
            return  # sent in the host, on every Session.end(): stage.claimed says it arrived
        if signal in (signals.SIGNAL_ERROR, signals.SIGNAL_INTERRUPTED):
            level = log.warning if isinstance(exc, ExtractionError) else log.error
            level("worker.task", **fields)
        elif signal == signals.SIGNAL_EXECUTING:
            log.debug("worker.task", **fields)
        else:
            log.info("worker.task", **fields)


__all__ = ["QUEUE_SUFFIX", "WorkerApp", "queue_path_for"]

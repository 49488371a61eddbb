"""The Huey application: session extraction as crash-safe jobs and the periodic sweeps.

    from agent_memory.workers import WorkerApp
    app = WorkerApp("data/memory.db")                      # queue: data/memory.db.queue.db
    mem = Memory.open("data/memory.db", dispatcher=app)    # Session.end() enqueues
    # and in another process: agent-memory worker --store data/memory.db

Each task is a thin wrapper over a core function (core.extraction.Pipeline.run, core.jobs);
core never imports this package.
"""

from agent_memory.workers.app import QUEUE_SUFFIX, WorkerApp, queue_path_for
from agent_memory.workers.consumer import PAUSE_VARIABLE, PauseHooks, run_consumer

__all__ = [
    "PAUSE_VARIABLE",
    "QUEUE_SUFFIX",
    "PauseHooks",
    "WorkerApp",
    "queue_path_for",
    "run_consumer",
]

"""A process that writes N records through memory_write and reports what happened.

    python -m tests.support.writer_process STORE WORKER COUNT
prints one JSON line: {"worker": W, "written": n, "errors": [...]}.
"""

from __future__ import annotations

import json
import os
import random
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

WORDS = [
    "amber",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "indigo",
    "juniper",
    "kelp",
    "lagoon",
    "meadow",
    "nectar",
    "obsidian",
    "prairie",
    "quartz",
    "raven",
    "sierra",
    "tundra",
    "umber",
    "violet",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
    "anchor",
    "beacon",
    "canyon",
    "dune",
    "estuary",
    "falcon",
    "glacier",
    "heron",
    "island",
    "jasper",
    "kestrel",
    "lantern",
]


def main(store: str, worker: int, count: int) -> None:
    from agent_memory.core import Config, Memory

    rng = random.Random(worker)
    # Four processes share two cores: one torch thread each, as a deployment would configure.
    mem = Memory.open(store, Config(embedder={"threads": 1}))
    session = mem.session(agent_id="writer", user_id="shared", session_id=f"w{worker}")
    errors = []
    written = 0
    for i in range(count):
        words = " ".join(rng.sample(WORDS, 6))
        result = session.call(
            "memory_write",
            {
                "type": "episodic",
                "content": f"Worker {worker} note {i}: {words}.",
                "source_kind": "agent_inference",
                "event_at": f"2026-{1 + i % 12:02d}-{1 + worker:02d}",
            },
        )
        if "error" in result:
            errors.append(result["error"])
        elif result["action"] == "created":
            written += 1
    mem.close()
    print(json.dumps({"worker": worker, "written": written, "errors": errors}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))

"""A separate process holding a Memory open, driven by JSON lines on stdin.

Used by the multi-process tests: each line is a command, each reply one JSON line on stdout.
    {"op": "import", "scope": "...", "content": "..."}  -> {"id": "..."}
    {"op": "dense", "query": "...", "k": 3}             -> {"hits": [{"id", "score"}]}
    {"op": "forget", "id": "..."}                       -> {"forgotten": true}
    {"op": "quit"}
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")


def main(path: str) -> None:
    from agent_memory.core import Memory

    mem = Memory.open(path)
    mem.warm()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        if op == "quit":
            break
        if op == "import":
            [rid] = mem.import_records(
                [{"content": command["content"], "type": "episodic"}], scope=command["scope"]
            )
            reply: dict = {"id": rid}
        elif op == "forget":
            reply = {"forgotten": mem.forget(command["id"], reason="test")}
        elif op == "dense":
            hits = mem.index().search(mem.embedder.embed_one(command["query"]), command["k"])
            records = mem.store.records_by_rowid([h.rowid for h in hits])
            reply = {"hits": [{"id": records[h.rowid].id, "score": h.score} for h in hits]}
        else:
            reply = {"error": f"unknown op {op}"}
        print(json.dumps(reply), flush=True)
    mem.close()


if __name__ == "__main__":
    main(sys.argv[1])

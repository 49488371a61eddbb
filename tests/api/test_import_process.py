"""An import killed half-way (SIGKILL) and run again ends with every line stored once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

LINES = 3000
AGENT_MEMORY = Path(sys.executable).parent / "agent-memory"


def count(store: Path) -> int:
    if not store.exists():
        return 0
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
    try:
        return int(conn.execute("SELECT count(*) FROM records").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()


def test_sigkill_during_an_import_then_a_rerun_stores_every_line_once(tmp_path: Path) -> None:
    """A real `agent-memory import` of 3,000 lines is killed once it has committed some of
    them; running the same command again stores the rest, and no source_ref is stored twice."""
    data = tmp_path / "items.jsonl"
    with data.open("w") as f:
        for i in range(LINES):
            item = {
                "type": "episodic",
                "content": f"Line {i}: topic {i * 7}.",
                "source_ref": f"r{i}",
            }
            f.write(json.dumps(item) + "\n")
    store = tmp_path / "m.db"
    env = {**os.environ, "AGENT_MEMORY_EMBEDDER__MODEL": "hashing"}
    command = [str(AGENT_MEMORY), "import", str(data), "--scope", "user:u", "--store", str(store)]
    command += ["--batch-size", "16", "--json"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while count(store) == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=10)
    partial = count(store)
    assert 0 < partial < LINES, f"the kill came at {partial} of {LINES}"

    rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    result = json.loads(rerun.stdout)
    assert result["already_stored"] == partial and result["created"] == LINES - partial
    assert len(result["ids"]) == LINES == len(set(result["ids"]))
    conn = sqlite3.connect(store)
    refs = conn.execute("SELECT count(*), count(DISTINCT source_ref) FROM records").fetchone()
    conn.close()
    assert refs == (LINES, LINES)

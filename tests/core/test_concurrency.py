"""Four processes writing into one store at once: every write lands, none sees a lock error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_memory.core import Memory

ROOT = Path(__file__).resolve().parents[2]
WORKERS, PER_WORKER = 4, 200


@pytest.mark.slow
def test_four_writers_end_with_every_record_and_a_consistent_version(tmp_path: Path) -> None:
    """4 x 200 memory_write calls: 800 records, no 'database is locked', records_version
    equal to the number of record changes."""
    store = tmp_path / "shared.db"
    with Memory.open(store) as mem:
        mem.grant("writer", "user:shared")
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.support.writer_process",
                str(store),
                str(w),
                str(PER_WORKER),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        assert "database is locked" not in err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["errors"] for r in reports] == [[]] * WORKERS
    assert sum(r["written"] for r in reports) == WORKERS * PER_WORKER
    with Memory.open(store) as mem:
        store_ = mem.store
        assert store_.query("SELECT count(*) AS n FROM records")[0]["n"] == WORKERS * PER_WORKER
        changes = store_.query("SELECT count(*) AS n, max(version) AS top FROM record_changes")[0]
        assert store_.records_version == changes["top"] == changes["n"] == WORKERS * PER_WORKER
        logged = store_.query("SELECT count(*) AS n FROM write_log")[0]["n"]
        assert logged == WORKERS * PER_WORKER

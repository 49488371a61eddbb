"""What the benchmark scripts share: the machine and load they ran under, latency summaries,
subprocess runs, and the cache of built stores in ``benchmarks/.cache/``.

Imported by ``bench_*.py`` when they run as scripts from the repository root (Python puts
``benchmarks/`` on the path); importing it also puts the repository root there, so the scripts
can import ``core`` without an install.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
CACHE_DIR = REPO / "benchmarks" / ".cache"
RESULTS_DIR = REPO / "benchmarks" / "results"


# ---------------------------------------------------------------------------------------------
# Numbers


def summarise(samples_s: list[float]) -> dict[str, float]:
    """p50, p95, mean and min of durations given in seconds, in milliseconds."""
    ms = np.asarray(samples_s) * 1000.0
    return {
        "p50_ms": float(np.percentile(ms, 50)),
        "p95_ms": float(np.percentile(ms, 95)),
        "mean_ms": float(ms.mean()),
        "min_ms": float(ms.min()),
    }


def table(header: list[str], rows: list[list[str]], align: str = "---:") -> list[str]:
    """A markdown table, the first column left-aligned and the others as ``align`` says."""
    return [
        "| " + " | ".join(header) + " |",
        "|---|" + f"{align}|" * (len(header) - 1),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


# ---------------------------------------------------------------------------------------------
# The machine and what else it is doing


def cpu_snapshot() -> tuple[float, float, float, float]:
    """(wall, machine busy CPU s, hypervisor steal s, this process's + its children's CPU s)."""
    with open("/proc/stat") as stat:
        user, nice, system, _idle, _iowait, irq, softirq, steal = (
            int(x) for x in stat.readline().split()[1:9]
        )
    tick = os.sysconf("SC_CLK_TCK")
    own = os.times()
    return (
        time.perf_counter(),
        (user + nice + system + irq + softirq) / tick,
        steal / tick,
        own.user + own.system + own.children_user + own.children_system,
    )


def other_load(start: tuple[float, float, float, float]) -> dict[str, float]:
    """How busy the machine was with other work since ``start``: the benchmark shares it, so
    this says how far to trust the absolute numbers."""
    end = cpu_snapshot()
    wall = end[0] - start[0]
    others = max(0.0, (end[1] - start[1]) - (end[3] - start[3]))
    return {
        "wall_s": wall,
        "other_processes_cpu_s": others,
        "other_processes_avg_cores": others / wall,
        "steal_s": end[2] - start[2],
    }


def process_cpu_times() -> dict[int, tuple[str, float]]:
    """pid -> (name, CPU seconds so far) of every process now running but this one."""
    tick = os.sysconf("SC_CLK_TCK")
    times = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            stat = Path(entry.path, "stat").read_text()
            name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat.rsplit(")", 1)[1]
            fields = rest.split()  # fields[0] is field 3 (state); utime, stime are 14, 15
            times[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / tick)
    return times


class LoadMonitor:
    """What else the machine did while a phase ran: load averages, the CPU time other
    processes used (``other_load``) and the busiest of them still running at the end."""

    def __init__(self) -> None:
        self.loadavg_before = os.getloadavg()
        self.processes = process_cpu_times()
        self.start = cpu_snapshot()

    def report(self, top: int = 3) -> dict:
        load = other_load(self.start)
        now = process_cpu_times()
        used = [
            (cpu - self.processes.get(pid, (name, 0.0))[1], pid, name)
            for pid, (name, cpu) in now.items()
        ]
        used.sort(reverse=True)
        return {
            "loadavg_before": self.loadavg_before,
            "loadavg_after": os.getloadavg(),
            **load,
            "busiest_other_processes": [
                {"pid": pid, "name": name, "cpu_s": round(cpu, 2)}
                for cpu, pid, name in used[:top]
                if cpu > 0
            ],
        }


def proc_status_kb(field: str) -> int:
    """A field of /proc/self/status in kB (VmRSS: resident now, VmHWM: peak resident)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def machine_info() -> dict:
    cpu_model = platform.processor()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            cpu_model = next(
                line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    blas = {}
    try:
        config = np.show_config(mode="dicts")
        blas = {key: config["Build Dependencies"]["blas"].get(key) for key in ("name", "version")}
    except Exception:  # informational only
        pass
    memory_kb = None
    with contextlib.suppress(OSError, StopIteration, ValueError), open("/proc/meminfo") as info:
        memory_kb = int(next(line for line in info if line.startswith("MemTotal")).split()[1])
    return {
        "date_utc": utc_now(),
        "platform": platform.platform(),
        "cpu_model": cpu_model,
        "cpu_count": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0)),
        "memory_gb": round(memory_kb / 1024**2, 1) if memory_kb else None,
        "load_average_at_start": os.getloadavg(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas,
        "sqlite": __import__("sqlite3").sqlite_version,
        "thread_env": {
            key: os.environ[key] for key in sorted(os.environ) if key.endswith("_NUM_THREADS")
        },
    }


def package_versions(*packages: str) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for package in packages:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = None
    return found


def code_version() -> dict:
    """The commit measured, and whether core/ had uncommitted changes (read-only git)."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
            ).stdout.rstrip("\n")
        except (OSError, subprocess.CalledProcessError):
            return ""

    changed = git("status", "--porcelain", "--", "core")
    return {
        "commit": git("rev-parse", "HEAD") or None,
        "core_uncommitted_changes": [line[3:] for line in changed.splitlines()],
    }


# ---------------------------------------------------------------------------------------------
# Subprocesses and files


def run_child(script: str | Path, arguments: list[str]) -> dict:
    """Run ``script`` with ``arguments`` in a fresh interpreter; its last stdout line is JSON.
    Its stderr (FlagEmbedding's progress bars, warnings) is shown only if it fails."""
    command = [sys.executable, str(Path(script).resolve()), *arguments]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-5000:])
        raise RuntimeError(f"{' '.join(arguments[:1])} child failed ({done.returncode})")
    return json.loads(done.stdout.strip().splitlines()[-1])


def evict_from_page_cache(path: Path) -> None:
    """Ask the kernel to drop this one file's clean pages (no privileges, no other file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def cached_store(stem: str, build: Callable[[Path], dict], *, rebuild: bool) -> tuple[Path, dict]:
    """The store ``CACHE_DIR/<stem>.db`` with its build report ``<stem>.json``: reused when
    both exist (unless ``rebuild``), else made by ``build(path)``, which fills a new store at
    ``path`` and returns the report. The build goes to a temporary file renamed into place, so
    an interrupted build never leaves a bad cache."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path, info_path = CACHE_DIR / f"{stem}.db", CACHE_DIR / f"{stem}.json"
    if not rebuild and path.exists() and info_path.exists():
        info: dict[str, Any] = json.loads(info_path.read_text())
        info["from_cache"] = True
        return path, info
    for stale in (path, info_path):
        stale.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
        building = Path(tmp) / "store.db"
        info = build(building)
        leftovers = [p.name for p in Path(tmp).iterdir() if p != building]
        if leftovers:  # closing the last connection should have checkpointed the WAL away
            raise RuntimeError(f"store left files behind after close: {leftovers}")
        os.replace(building, path)
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    info["from_cache"] = False
    return path, info


def write_report(out_dir: Path, name: str, result: dict, markdown: str) -> Path:
    """Write ``result`` as ``out_dir/<name>.json`` and print its markdown tables."""
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file = out_dir / f"{name}.json"
    out_file.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print()
    print(markdown)
    print(f"\nwrote {out_file}")
    return out_file

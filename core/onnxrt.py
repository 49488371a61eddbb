"""The query path of an embedder on ONNX Runtime: the same weights, a lighter runtime.

A search embeds one short query. On CPU most of that time is torch's per-operator overhead,
not arithmetic: all-MiniLM-L6-v2 on a 14-token query takes ~23 ms in torch with one thread on
the 2-core machines this was measured on, and ~10 ms as an ONNX graph on onnxruntime (see
benchmarks/README.md). For large batches (bulk import, reembed) the two are equally fast, so
only small batches take this path.

The graph is exported from the model FlagEmbedding has already loaded (encoder plus the dense
head's pooling, before normalisation), so its vectors are the torch model's vectors up to float
rounding (cosine >= 0.99999 measured); the embedder identity, the stored vectors and the
calibrated gate floors all stay valid. The export (about two seconds for MiniLM) is cached on
disk, keyed by the model's identity, the folder and weight files it was loaded from, pooling
and the torch and exporter versions. Every load checks the graph against the torch model on
probe texts (alone and padded together, short and cut at the length limit) before it serves a
query, and re-exports a cached file that fails to load or disagrees.

Models whose weights exceed what one ONNX file holds (2 GB; bge-m3 is 2.2 GB) stay on torch:
their export would spill weights into side files that are neither atomic nor private to one
model, and the graph would double the process's memory.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import EmbedderError

# Bump when the exported graph changes shape or meaning (inputs, outputs, pooling code).
EXPORT_FORMAT = "1"
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


def available() -> str | None:
    """None when onnxruntime and onnx import, else why not."""
    try:
        import onnx  # noqa: F401  (torch's exporter needs it)
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        return f"onnxruntime or onnx is not installed ({exc})"
    return None


def too_large(model: Any) -> str | None:
    """None when ``model`` (a torch module) fits in one ONNX file, else why not."""
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    if size <= _MAX_WEIGHT_BYTES:
        return None
    return f"its weights ({size / 1e9:.1f} GB) exceed the 2 GB one ONNX file holds"


class OnnxEncoder:
    """A pooled-encoder graph on an onnxruntime session: token ids in, unnormalised vectors out.

    Build with :meth:`for_model`, which exports (or reuses) the graph of a loaded
    FlagEmbedding model and checks it agrees with that model.
    """

    def __init__(self, path: Path, *, threads: int) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        # 0 is onnxruntime's own default (one thread per core), as it is torch's.
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: a host's log is not ours to fill
        self.path = path
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Pooled vectors of a padded batch, shape (batch, dims), float32, unnormalised."""
        (pooled,) = self._session.run(
            None,
            {
                "input_ids": np.asarray(input_ids, dtype=np.int64),
                "attention_mask": np.asarray(attention_mask, dtype=np.int64),
            },
        )
        return np.asarray(pooled, dtype=np.float32)

    @classmethod
    def for_model(
        cls,
        flag_model: Any,
        *,
        key: str,
        pooling: str,
        cache_dir: Path,
        threads: int,
        max_length: int,
        torch_encode: Any,
    ) -> OnnxEncoder:
        """The graph of ``flag_model`` (a loaded BGEM3FlagModel), from the cache or exported
        now, after checking that it agrees with ``torch_encode`` (texts -> vectors)."""
        import torch

        digest = hashlib.sha256(
            "|".join([key, pooling, torch.__version__, EXPORT_FORMAT]).encode()
        ).hexdigest()[:20]
        path = cache_dir / "onnx" / f"encoder-{digest}.onnx"
        tokenizer = flag_model.tokenizer
        probes = [list(_PROBES), *([text] for text in _PROBES)]  # padded together, then alone
        expected = np.vstack([torch_encode(batch) for batch in probes])
        inputs = [
            tokenizer(
                batch, padding=True, truncation=True, max_length=max_length, return_tensors="np"
            )
            for batch in probes
        ]
        why = ""
        for fresh in (False, True):  # the cached graph first, then one fresh export
            if fresh or not path.is_file():
                _export(flag_model.model.model, pooling, tokenizer, path)
            try:
                encoder = cls(path, threads=threads)
                got = np.vstack(
                    [encoder.encode(i["input_ids"], i["attention_mask"]) for i in inputs]
                )
            except Exception as exc:  # a damaged file: onnxruntime's own error types
                why = f"onnxruntime could not run {path}: {exc}"
                continue
            cosine = _agreement(got, expected)
            if cosine >= AGREEMENT:
                return encoder
            why = f"the ONNX graph disagrees with the torch model (cosine {cosine:.6f})"
        raise EmbedderError(f"{why}; set embedder.query_runtime = 'torch'")


_EXPORT_LOCK = threading.Lock()


def _export(encoder: Any, pooling: str, tokenizer: Any, path: Path) -> None:
    """Export ``encoder`` (a transformers model) with the dense pooling into ``path``,
    atomically: a reader never sees a half-written file."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask)[0]
            if pooling == "cls":
                return hidden[:, 0]
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * mask).sum(dim=1) / mask.sum(dim=1)

    if pooling not in ("cls", "mean"):
        raise EmbedderError(f"no ONNX export for pooling {pooling!r}")
    sample = tokenizer(["a sample sentence", "two"], padding=True, return_tensors="pt")
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    axes = {0: "batch", 1: "tokens"}
    with _EXPORT_LOCK, warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer notes about Python control flow
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            torch.onnx.export(
                Pooled(encoder).eval(),
                (sample["input_ids"], sample["attention_mask"]),
                str(partial),
                input_names=["input_ids", "attention_mask"],
                output_names=["pooled"],
                dynamic_axes={"input_ids": axes, "attention_mask": axes, "pooled": {0: "batch"}},
                opset_version=17,
                dynamo=False,
            )
            partial.replace(path)
        except Exception as exc:
            raise EmbedderError(f"could not export the embedder to ONNX in {path}: {exc}") from exc
        finally:
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)


def _agreement(a: np.ndarray, b: np.ndarray) -> float:
    """The least cosine between matching rows of ``a`` and ``b``."""
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float(np.min(np.sum(a * b, axis=1)))


__all__ = ["AGREEMENT", "OnnxEncoder", "available", "default_cache_dir", "too_large"]

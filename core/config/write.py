"""The settings of writing: duplicates and conflicts, the evidence judge, which turns vouch
for a record, the provisional lifetime, session extraction and the worker that runs it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from agent_memory.core.config.base import Section


class IngestConfig(Section):
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


class JudgeConfig(Section):
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


class EvidenceConfig(Section):
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


class PolicyConfig(Section):
    provisional_ttl_days: int = Field(
        30, ge=1, le=3650, description="Days before an unreinforced provisional record expires."
    )


class ExtractionConfig(Section):
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
    assistant_words: bool = Field(
        True,
        description=(
            "Keep each assistant turn of an ended session, in parts, as records that only a "
            "question naming what the assistant said reads ('you recommended', 'did you', "
            "'our previous chat'; core.extraction.replies)."
        ),
    )
    related_records: int = Field(
        5,
        ge=0,
        le=50,
        description=(
            "Live records the reviewer sees beside each candidate (this many nearest it, and "
            "this many nearest its turn)."
        ),
    )
    stub_latency_ms: int = Field(
        0,
        ge=0,
        description=(
            "Test and benchmark seam: the offline backend sleeps this long in every model "
            "call, to stand in for a hosted model's latency."
        ),
    )


class WorkerConfig(Section):
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


__all__ = [
    "EvidenceConfig",
    "ExtractionConfig",
    "IngestConfig",
    "JudgeConfig",
    "PolicyConfig",
    "WorkerConfig",
]

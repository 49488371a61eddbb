"""Configuration: every setting declared once, with its name, default and help text.

A ``Config`` is a frozen, validated object made of sections (``config.gate.dense_floor``). It can
be built in code, loaded from a TOML file whose tables mirror the sections, and overridden by
environment variables named ``AGENT_MEMORY_<SECTION>__<NAME>`` (for example
``AGENT_MEMORY_RERANKER__ENABLED=true``). Unknown keys are rejected everywhere, so a typo never
silently falls back to a default.

This module is the public one (``from agent_memory.core.config import Config, GateConfig``): it
holds ``Config`` with its loading and the settings listing; the sections are declared by topic
in ``storage`` (store, embedder, retention), ``search`` (retrieval, gate, trigger, reranker,
rewrite) and ``write`` (ingest, judge, evidence, policy, extraction, worker).

Nothing here reads the environment or a file at import time: ``Config.load`` does, when called.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_memory.core.config.base import PACKAGED_MINILM, Section
from agent_memory.core.config.search import (
    GateConfig,
    RerankerConfig,
    RetrievalConfig,
    RewriteConfig,
    TriggerConfig,
)
from agent_memory.core.config.storage import (
    MAX_RETENTION_DAYS,
    EmbedderConfig,
    RetentionConfig,
    StoreConfig,
    TracingConfig,
)
from agent_memory.core.config.write import (
    EvidenceConfig,
    ExtractionConfig,
    IngestConfig,
    JudgeConfig,
    PolicyConfig,
    WorkerConfig,
)
from agent_memory.core.errors import ConfigError

ENV_PREFIX = "AGENT_MEMORY_"
ENV_SEPARATOR = "__"


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
        assert isinstance(section_type, type) and issubclass(section_type, Section)
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


__all__ = [
    "MAX_RETENTION_DAYS",
    "PACKAGED_MINILM",
    "Config",
    "EmbedderConfig",
    "EvidenceConfig",
    "ExtractionConfig",
    "GateConfig",
    "IngestConfig",
    "JudgeConfig",
    "PolicyConfig",
    "RerankerConfig",
    "RetentionConfig",
    "RetrievalConfig",
    "RewriteConfig",
    "Setting",
    "StoreConfig",
    "TracingConfig",
    "TriggerConfig",
    "WorkerConfig",
    "settings",
]

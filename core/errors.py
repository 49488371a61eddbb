"""Every error agent-memory raises on purpose.

    AgentMemoryError (alias: MemoryError, the name the public contract uses)
    ├── ConfigError                 a setting is unknown, mistyped or out of range
    ├── StoreError                  the store file cannot be used as it is
    │   ├── SchemaVersionError      written by a newer agent-memory than this one
    │   ├── EmbedderMismatchError   embedded with another model; run `agent-memory reembed`
    │   ├── StoreClosedError        used after Memory.close()
    │   └── ReadOnlyStoreError      a write to a store opened read-only (code ``read_only``)
    ├── EmbedderError               the embedding model cannot be loaded or run
    ├── ExtractionError             a session extraction stage could not finish (retryable)
    │   └── ModelOutputError        the model's structured output broke its schema or rules
    └── InvalidArgument             bad input from a model, a file or a user
        ├── InvalidIdentifier       an agent, user or scope id that cannot be used
        ├── PermissionDenied        a scope the agent may not write, or a refused grant
        └── NotFound                a record or entity that does not exist (or is unreadable)

Only ``InvalidArgument`` and its subclasses describe something a model could have caused.
They carry a stable ``code`` and an optional ``field`` so the tool surface can return
``{"error": {"code", "message", "field"}}`` instead of raising (see ``as_tool_error``).
Everything else is the host's problem and is raised.
"""

from __future__ import annotations

from typing import Any


class AgentMemoryError(Exception):
    """Base class of every error raised on purpose by agent-memory."""


# The public contract names the base class ``core.errors.MemoryError``. It is an alias so that
# this module never shadows the builtin ``MemoryError`` in its own code.
MemoryError = AgentMemoryError


class ConfigError(AgentMemoryError):
    """A configuration value or key is invalid."""


class StoreError(AgentMemoryError):
    """The store file cannot be opened or used as it is."""


class SchemaVersionError(StoreError):
    """The store was written by a newer schema than this version of agent-memory knows."""

    def __init__(self, *, path: str, store_version: int, known_version: int) -> None:
        self.path = path
        self.store_version = store_version
        self.known_version = known_version
        super().__init__(
            f"{path} was written by schema version {store_version}, but this agent-memory "
            f"only knows versions up to {known_version}; upgrade agent-memory to open it "
            "(the store was not modified)"
        )


class EmbedderMismatchError(StoreError):
    """The store's vectors were made by a different embedding model than the configured one."""

    def __init__(self, *, path: str, stored: str, configured: str) -> None:
        self.path = path
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"{path} holds embeddings from {stored}, but the configured embedder is "
            f"{configured}; vectors from different models cannot be compared. Run "
            f"`agent-memory reembed --store {path}` to re-embed the whole store with the "
            "configured model (and then re-calibrate the gate floors), or configure the "
            "original embedder"
        )


class StoreClosedError(StoreError):
    """The store (or the Memory that owns it) was used after close()."""


class ReadOnlyStoreError(StoreError):
    """A write (a tool that writes, a session's end, a grant, an import, a job) on a store
    opened read-only. Nothing was written. Unlike other StoreErrors a model can meet it (a
    memory_write on a read-only store), so the tool surface returns it as a structured error
    with the stable code ``read_only`` instead of raising it to the host."""

    code = "read_only"

    def as_tool_error(self) -> dict[str, Any]:
        """The structured error a write tool returns on a read-only store."""
        return {"error": {"code": self.code, "message": str(self)}}


class EmbedderError(AgentMemoryError):
    """The embedding model could not be loaded or failed to embed."""


class ExtractionError(AgentMemoryError):
    """A stage of session extraction could not finish. ``retryable`` is False when that was
    the job's last attempt (the job has failed, its error kept): a retry would be refused.
    ``retry_in`` is the back-off before the next attempt, in seconds (core.jobs)."""

    def __init__(self, message: str, *, retryable: bool = True, retry_in: float = 0.0) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_in = retry_in


class ModelOutputError(ExtractionError):
    """The extraction, review or summary model returned output that violates its schema (or
    the reviewer's narrowing rules as a whole). Fails closed: nothing is written."""

    def __init__(self, message: str, *, role: str) -> None:
        self.role = role
        super().__init__(f"{role} model output rejected: {message}")


class InvalidArgument(AgentMemoryError):
    """Bad input from a model, a file or a user. Nothing was written.

    ``code`` is stable and machine-readable; ``field`` names the offending argument when
    there is one.
    """

    code = "invalid_argument"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.message = message
        self.field = field
        super().__init__(message)

    def as_tool_error(self) -> dict[str, Any]:
        """The structured error a tool returns to the model instead of raising."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"error": error}


def internal_tool_error() -> dict[str, Any]:
    """What a model sees when a tool fails for a reason that is not its doing; the details go
    to the log (and, for a host-side AgentMemoryError, to the host), never to the model."""
    return {
        "error": {
            "code": "internal_error",
            "message": "the memory tool failed; the failure was logged",
        }
    }


class InvalidIdentifier(InvalidArgument):
    """An agent, user or scope identifier that cannot be used."""

    code = "invalid_identifier"


class PermissionDenied(InvalidArgument):
    """The agent may not do this in this scope, or a grant was refused."""

    code = "permission_denied"


class Forgotten(InvalidArgument):
    """What a model asked to write says again what the user had forgotten, and nothing of the
    user's own in this session says it: nothing was written."""

    code = "forgotten"


class NotFound(InvalidArgument):
    """The record or entity does not exist, or the agent cannot read it."""

    code = "not_found"


__all__ = [
    "AgentMemoryError",
    "ConfigError",
    "EmbedderError",
    "EmbedderMismatchError",
    "ExtractionError",
    "Forgotten",
    "InvalidArgument",
    "InvalidIdentifier",
    "MemoryError",
    "ModelOutputError",
    "NotFound",
    "PermissionDenied",
    "ReadOnlyStoreError",
    "SchemaVersionError",
    "StoreClosedError",
    "StoreError",
    "internal_tool_error",
]

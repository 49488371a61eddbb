"""What every settings section shares: frozen, validated on creation, unknown keys refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

# The name the offline default embedder goes by in configuration.
PACKAGED_MINILM = "packaged:all-MiniLM-L6-v2"


class Section(BaseModel):
    """One table of settings (``[gate]``): a typo in a key is an error, never a default."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


__all__ = ["PACKAGED_MINILM", "Section"]

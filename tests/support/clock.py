"""The tests' fixed clock: every test that passes ``now=`` uses this instant, so stored times,
expiries and the time generator's windows are the same on every run."""

from __future__ import annotations

from datetime import UTC, datetime

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

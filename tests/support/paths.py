"""Where the repository and its test data are, named once, so a test file can move between
folders without counting parent directories."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEST_DATA = REPO / "tests" / "data"
README = REPO / "README.md"

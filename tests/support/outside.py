"""Files some tests read from outside the repository, found only through the environment
(a checkout may sit anywhere; no test walks up out of it):

- AGENT_MEMORY_DATA: the data folder (see its README), for the tests of the loaders on the
  real data set files;
- AGENT_MEMORY_CONTRACT: the design's CONTRACT.md, for the test that the CLI's command list
  is the contract's.

A test that needs one is skipped, naming the variable, when it is not set.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(os.environ.get("AGENT_MEMORY_DATA") or "/nonexistent/AGENT_MEMORY_DATA")
needs_data = pytest.mark.skipif(
    not DATA.is_dir(), reason="set AGENT_MEMORY_DATA to the data folder (see its README)"
)

CONTRACT = Path(os.environ.get("AGENT_MEMORY_CONTRACT") or "/nonexistent/AGENT_MEMORY_CONTRACT")
needs_contract = pytest.mark.skipif(
    not CONTRACT.is_file(), reason="set AGENT_MEMORY_CONTRACT to the design's CONTRACT.md"
)

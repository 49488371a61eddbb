"""Running the command line in-process, as the CLI tests do."""

from __future__ import annotations

import pytest

from agent_memory.api.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``agent-memory ARGV`` through main(): its exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err

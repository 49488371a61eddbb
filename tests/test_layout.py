"""The installed layout: one top-level package, agent_memory, so a host's own `core` or `api`
package never collides with the library's (issue 18, item 1)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

from tests.test_package import ROOT, imported_modules

FOLDERS = ("core", "api", "workers")
CODE = ("core", "api", "workers", "tests", "benchmarks", "scripts")


def test_no_code_imports_the_folders_by_their_bare_names() -> None:
    """Every import goes through agent_memory: a bare `core.x` would load a second copy of the
    module (or a host's own `core`), with its own caches and classes."""
    for folder in CODE:
        for path in (ROOT / folder).rglob("*.py"):
            for name in imported_modules(path):
                assert name.split(".")[0] not in FOLDERS, f"{path} imports {name}"


def test_setuptools_installs_every_package_folder() -> None:
    """pyproject.toml lists the packages by hand (package-dir maps them): a new sub-package
    folder that is not listed would be left out of the wheel."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        ".".join(("agent_memory", *init.parent.relative_to(ROOT).parts))
        for folder in FOLDERS
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert set(setuptools["packages"]) == folders | {"agent_memory"}
    assert setuptools["package-dir"] == {
        "agent_memory": "agent_memory",
        **{f"agent_memory.{folder}": folder for folder in FOLDERS},
    }


def test_a_host_with_its_own_core_and_api_packages_imports_the_library(tmp_path: Path) -> None:
    """A Django or FastAPI project often has core/ and api/ of its own, first on sys.path."""
    for name in ("core", "api", "workers"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"HOST = {name!r}\n")
    script = textwrap.dedent(
        """
        import api, core, workers
        from agent_memory.core import Memory, Config
        import agent_memory.api.cli, agent_memory.workers

        assert (core.HOST, api.HOST, workers.HOST) == ("core", "api", "workers")
        assert Memory.__module__ == "agent_memory.core.memory"
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_the_wheel_holds_only_agent_memory_and_marks_it_typed(tmp_path: Path) -> None:
    """Built from the sources as a user's pip would: nothing lands in site-packages but
    agent_memory/ (with py.typed, PEP 561) and the distribution's metadata."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in (*FOLDERS, "agent_memory"):
        shutil.copytree(
            ROOT / folder,
            source / folder,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--wheel-dir", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("agent_memory-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {
        "agent_memory",
        wheel.name.split("-py3")[0] + ".dist-info",
    }
    assert len(names) == len(set(names))
    assert "agent_memory/py.typed" in names
    for module in ("core/memory.py", "core/store/__init__.py", "api/cli/__init__.py"):
        assert f"agent_memory/{module}" in names
    assert "agent_memory/workers/app.py" in names
    entry_points = zipfile.ZipFile(wheel).read(
        next(name for name in names if name.endswith("entry_points.txt"))
    )
    assert b"agent-memory = agent_memory.api.cli:main" in entry_points


# A path into the folder beside the repository (where the project keeps its data sets and
# notes): a default like that works on one machine only.
OUTSIDE = re.compile(r"\.\./shared|/work/shared|parents?(\[\d\])?\s*/\s*[\"']shared[\"']")


def test_no_code_or_test_refers_to_a_path_outside_the_repository() -> None:
    """Evaluation data and notes outside the repository are named by an argument or an
    environment variable (AGENT_MEMORY_DATA), never by a default path (issue 18, item 5)."""
    for folder in CODE:
        for path in (ROOT / folder).rglob("*.py"):
            if path == Path(__file__):
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                assert not OUTSIDE.search(line), f"{path}:{number}: {line.strip()}"


def test_the_core_tests_mirror_the_core_packages() -> None:
    """A test folder under tests/core/ is named after the core package it tests, so a reader
    finds a package's tests by its name (issue 18, item 5)."""
    for folder in (ROOT / "tests" / "core").iterdir():
        if folder.is_dir() and folder.name != "__pycache__":
            assert (ROOT / "core" / folder.name / "__init__.py").is_file(), folder
            assert (folder / "__init__.py").is_file(), f"{folder} is not a package"

"""Architecture (issue 18): every SQL statement of the library lives in core/store/, and no
core module but the package itself imports the host facade (core.memory).

The store package is the storage interface a second backend implements; code elsewhere calls
its methods. A statement written anywhere else is found here as a string constant (or an
f-string's literal text) that reads as SQL, docstrings left out.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ("core", "api", "workers")

# Upper-case keywords, as every statement here is written: prose ("Delete what is past...")
# and help texts do not match.
SQL = re.compile(
    r"^\s*(?:"
    r"SELECT\s.+\sFROM\s|SELECT\s+\d|INSERT\s+(?:OR\s+\w+\s+)?INTO\s"
    r"|UPDATE\s+(?:OR\s+\w+\s+)?\w+\s+SET\s"
    r"|DELETE\s+FROM\s|CREATE\s+(?:TEMP\s+|UNIQUE\s+|VIRTUAL\s+)*(?:TABLE|INDEX|TRIGGER|VIEW)\s"
    r"|PRAGMA\s+\w|WITH\s+(?:RECURSIVE\s+)?\w+(?:\s*\([^)]*\))?\s+AS\s*\("
    r"|BEGIN(?:\s+(?:IMMEDIATE|DEFERRED|EXCLUSIVE))?\s*$|COMMIT\s*$|ROLLBACK\s*$"
    r"|DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW)\s|ALTER\s+TABLE\s|VACUUM\b|ATTACH\s"
    r")",
    re.DOTALL,
)

# Files that still run their own SQL. Each entry says why; the list only shrinks.
ALLOWED = {
    # Permanent: the lexical module's private in-memory database (an FTS5 tokenizer probe),
    # never the store file.
    "core/search/lexical.py": "private in-memory SQLite for tokenizing, not the store",
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def sql_literals(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string in ``path`` that reads as an SQL statement."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)  # and an f-string's parts, read with the f-string
    skip |= {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
        else:
            continue
        if SQL.match(text):
            found.append((node.lineno, " ".join(text.split())[:70]))
    return found


def _library_files() -> list[Path]:
    return sorted(p for folder in LIBRARY for p in (ROOT / folder).rglob("*.py"))


def test_sql_lives_only_in_the_store() -> None:
    outside = {}
    for path in _library_files():
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("core/store/") or name in ALLOWED:
            continue
        if found := sql_literals(path):
            outside[name] = found
    assert not outside, f"SQL outside core/store/ (call a store method instead): {outside}"


def test_the_allowlist_only_names_files_that_still_need_it() -> None:
    """A file whose statements have moved leaves the list, so the list only shrinks."""
    stale = [name for name in ALLOWED if not sql_literals(ROOT / name)]
    assert not stale, f"no SQL left in {stale}: remove them from ALLOWED"


def test_the_detector_finds_statements_and_skips_prose(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""SELECT the docstring FROM here is prose."""\n'
        'a = "SELECT id FROM records WHERE rowid = ?"\n'
        'b = f"UPDATE records SET status = ? WHERE id IN ({marks})"\n'
        'c = "Delete what is past its retention"\n'
        'd = "with records"\n'
        'e = "INSERT OR IGNORE INTO record_tags (record_rowid, tag) VALUES (?, ?)"\n'
        'f = "BEGIN IMMEDIATE"\n',
        encoding="utf-8",
    )
    assert [line for line, _ in sql_literals(sample)] == [2, 3, 6, 7]


# Tests: shared setups live in tests/support/; conftest.py is pytest's plugin, loaded by pytest
# itself, and a test importing it as a module gets a second copy of its fixtures and state.


def conftest_imports(path: Path, root: Path = ROOT) -> list[int]:
    """The lines of ``path`` that import the root ``tests.conftest`` (absolutely or relatively)."""
    package = list(path.relative_to(root).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + (node.module.split(".") if node.module else []))
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        else:
            continue
        if any(name == "tests.conftest" or name.startswith("tests.conftest.") for name in names):
            found.append(node.lineno)
    return found


def test_no_test_module_imports_the_root_conftest() -> None:
    importing = {
        path.relative_to(ROOT).as_posix(): lines
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (lines := conftest_imports(path))
    }
    assert not importing, f"import from tests/support/ instead of tests.conftest: {importing}"


def test_the_conftest_detector_reads_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "tests" / "core" / "test_sample.py"
    sample.parent.mkdir(parents=True)
    sample.write_text(
        "from tests.conftest import NOW\n"
        "import tests.conftest\n"
        "from tests import conftest\n"
        "from ..conftest import NOW\n"
        "from .conftest import NOW\n"
        "from tests.support.clock import NOW\n",
        encoding="utf-8",
    )
    assert conftest_imports(sample, root=tmp_path) == [1, 2, 3, 4]


# -- nothing in core imports the host facade ---------------------------------------------------

# core/__init__.py re-exports Memory for hosts (``from core import Memory``); core/memory.py is
# the composition root that builds the Engine every component is given.
FACADE_IMPORTERS = {"core/__init__.py"}


def facade_imports(path: Path) -> list[int]:
    """Lines of ``path`` that import core.memory (or Memory from the core package), counting
    imports under TYPE_CHECKING and inside functions: a type-only import still ties the module
    to the facade."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        if any(name in ("agent_memory.core.memory", "agent_memory.core.Memory") for name in names):
            found.append(node.lineno)
    return sorted(found)


def test_no_core_module_imports_the_facade() -> None:
    """Components receive the Engine (core.engine), never ``Memory``."""
    importing = {}
    for path in sorted((ROOT / "core").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in FACADE_IMPORTERS or name == "core/memory.py":
            continue
        if lines := facade_imports(path):
            importing[name] = lines
    assert not importing, f"core modules that import core.memory (take an Engine): {importing}"


def test_the_facade_detector_finds_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from agent_memory.core.memory import Memory\n"
        "def f():\n"
        "    import agent_memory.core.memory\n"
        "from agent_memory.core import Memory\n"
        "from agent_memory.core import memory\n"
        "from agent_memory.core.engine import Engine\n"
        "from agent_memory.core import policy\n",
        encoding="utf-8",
    )
    assert facade_imports(sample) == [3, 5, 6, 7]

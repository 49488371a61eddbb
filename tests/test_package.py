"""Package hygiene: the public API is complete and core depends on nothing above it."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from agent_memory import core

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> list[str]:
    """The absolute module names a Python file imports (relative imports are left out)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_all_is_complete_and_importable() -> None:
    """Every name in core.__all__ exists, and what a host needs to embed the core (the
    contract's Memory and Config, the error base, the record's shapes and enums, the embedder
    seam) is exported. The rest of core.* is importable by module, never re-exported."""
    for name in core.__all__:
        assert hasattr(core, name), name
    host_api = {
        "Memory",
        "Config",
        "MemoryError",
        "AgentMemoryError",
        "Record",
        "MemoryType",
        "SourceKind",
        "Status",
        "Scope",
        "Access",
        "Grant",
        "Embedder",
        "EmbedderIdentity",
        "reembed",
    }
    assert host_api <= set(core.__all__)


def test_core_never_imports_workers_or_api() -> None:
    """core/ is the embeddable library; it must not depend on workers/ or api/."""
    for path in (ROOT / "core").rglob("*.py"):
        for name in imported_modules(path):
            assert not name.startswith(("agent_memory.workers", "agent_memory.api")), (
                f"{path} imports {name}"
            )


def test_the_contracts_error_name_is_the_base_class() -> None:
    """core.errors.MemoryError (the contract's name) catches every agent-memory error."""
    assert core.errors.MemoryError is core.errors.AgentMemoryError
    classes = [getattr(core.errors, name) for name in core.errors.__all__]
    classes = [obj for obj in classes if isinstance(obj, type)]
    assert len(classes) >= 10
    for cls in classes:
        assert issubclass(cls, core.errors.MemoryError), cls
    assert core.errors.MemoryError is not builtins.MemoryError


def test_model_caused_errors_carry_a_code() -> None:
    """Every InvalidArgument subclass has its own stable code for structured tool errors."""
    classes = [core.errors.InvalidArgument, *core.errors.InvalidArgument.__subclasses__()]
    codes = [cls.code for cls in classes]
    assert len(set(codes)) == len(codes)
    error = core.errors.PermissionDenied("no", field="target").as_tool_error()
    assert error == {"error": {"code": "permission_denied", "message": "no", "field": "target"}}

"""The layout's health, as issue 18 measures it: import circles among the library's modules,
imports that run back up (core importing workers or api; a core module importing the
composition root, core.memory), and files over 550 lines.

    .venv/bin/python scripts/layout_report.py [--json]

Imports are read with ast, module-level only (those under ``if TYPE_CHECKING:`` are left out:
they never run); an import inside a function is a deliberate lazy edge and is counted apart.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("core", "workers", "api")
PACKAGE = "agent_memory"
LONG_FILE = 550
LAYER = {"core": 0, "workers": 1, "api": 2}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(path: Path, name: str) -> tuple[set[str], set[str], set[str]]:
    """(module-level imports, imports inside functions, imports for type checking only)."""
    tree = ast.parse(path.read_text())
    top: set[str] = set()
    lazy: set[str] = set()
    typing: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST, inside_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                for statement in child.body:
                    if isinstance(statement, ast.ImportFrom) and statement.module:
                        typing.update(f"{statement.module}|{a.name}" for a in statement.names)
                continue
            nested = inside_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            found: list[str] = []
            if isinstance(child, ast.Import):
                found = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[: len(base) - child.level + 1]
                    module = ".".join([*base, child.module] if child.module else base)
                else:
                    module = child.module or ""
                found = [f"{module}|{alias.name}" for alias in child.names]
            for module in found:
                (lazy if nested else top).add(module.removeprefix(PACKAGE + "."))
            visit(child, nested)

    visit(tree, False)
    return top, lazy, {m.removeprefix(PACKAGE + ".") for m in typing}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm; the components of more than one module are the import circles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in graph:
        if node not in index:
            connect(node)
    return circles


def report() -> dict[str, object]:
    files = {module_name(p): p for f in FOLDERS for p in sorted((ROOT / f).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    every: dict[str, set[str]] = {}
    back_up: list[str] = []
    lazy_edges = 0

    def resolve(found: set[str]) -> set[str]:
        # "from a.b import c" depends on a.b.c when c is a module, else on a.b itself.
        resolved = set()
        for entry in found:
            module, _, alias = entry.partition("|")
            resolved.add(f"{module}.{alias}" if f"{module}.{alias}" in files else module)
        return resolved

    for name, path in files.items():
        top, lazy, typing = (resolve(found) for found in imports(path, name))
        graph[name] = {m for m in top if m in files and m != name}
        every[name] = {m for m in top | lazy | typing if m in files and m != name}
        lazy_edges += len({m for m in lazy if m in files and m != name})
        layer = LAYER[name.split(".")[0]]
        for module in top | lazy | typing:
            if module not in files or module == name:
                continue
            if LAYER[module.split(".")[0]] > layer or (
                module == "core.memory" and name.startswith("core.") and name != "core"
            ):
                back_up.append(f"{name} -> {module}")
    long_files = {
        str(path.relative_to(ROOT)): n
        for path in files.values()
        if (n := len(path.read_text().splitlines())) > LONG_FILE
    }
    circles = strongly_connected(graph)
    any_circles = strongly_connected(every)
    return {
        "modules": len(files),
        "import_circles": len(circles),
        "circles": circles,
        "circles_counting_lazy_and_typing_imports": any_circles,
        "imports_back_up": sorted(set(back_up)),
        "lazy_imports": lazy_edges,
        "files_over_550_lines": dict(sorted(long_files.items(), key=lambda kv: -kv[1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    result = report()
    if parser.parse_args().json:
        print(json.dumps(result, indent=2))
        return
    print(f"modules {result['modules']}")
    print(f"import circles {result['import_circles']}")
    for circle in result["circles"]:  # type: ignore[attr-defined]
        print("  " + " <-> ".join(circle))
    print(
        "circles counting lazy and type-only imports",
        len(result["circles_counting_lazy_and_typing_imports"]),
    )  # type: ignore[arg-type]
    for circle in result["circles_counting_lazy_and_typing_imports"]:  # type: ignore[attr-defined]
        print("  " + " <-> ".join(circle))
    print(f"imports that run back up {len(result['imports_back_up'])}")  # type: ignore[arg-type]
    for edge in result["imports_back_up"]:  # type: ignore[attr-defined]
        print("  " + edge)
    print(f"lazy imports (inside functions) {result['lazy_imports']}")
    print(f"files over {LONG_FILE} lines {len(result['files_over_550_lines'])}")  # type: ignore[arg-type]
    for path, n in result["files_over_550_lines"].items():  # type: ignore[attr-defined]
        print(f"  {n:5d} {path}")


if __name__ == "__main__":
    main()

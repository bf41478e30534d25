"""No import cycle between tui modules: screens never import the
app at run time, and the app's imports need no function-level workarounds. Imports
under `if TYPE_CHECKING:` are for types only and are not followed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["planwatch", *parts])  # tui/ installs as planwatch.tui


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST, modules: set[str]) -> set[str]:
    """The tui modules a module imports when it runs (at any depth, functions too)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif node.module in modules:
                    found.add(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def tui_import_graph() -> dict[str, set[str]]:
    paths = sorted((ROOT / "tui").rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    return {
        _module_name(p): _runtime_imports(ast.parse(p.read_text(encoding="utf-8")), modules) - {_module_name(p)}
        for p in paths
    }


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := walk(nxt)) is not None:
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := walk(node)) is not None:
            return cycle
    return None


def test_no_import_cycle_between_tui_modules() -> None:
    assert find_cycle(tui_import_graph()) is None


def test_no_screen_imports_the_app_at_run_time() -> None:
    graph = tui_import_graph()
    screens = [
        name for name in graph if name.startswith("planwatch.tui.screens.") or name.startswith("planwatch.tui.widgets.")
    ]
    assert screens
    assert [name for name in screens if "planwatch.tui.app" in graph[name]] == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    # The positive twin: the walk does report a cycle when there is one.
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    graph = tui_import_graph()
    assert "planwatch.tui.screens.browse" in graph["planwatch.tui.app"], "the app's runtime imports are seen"

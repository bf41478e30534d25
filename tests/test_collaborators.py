"""A collaborator is an object with a narrow interface its owner holds, not a mixin
reaching into its host's private attributes (docs/ARCHITECTURE.md, Rules): read from
the source of core/ and tui/."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> list[Path]:
    return sorted([*(ROOT / "core").rglob("*.py"), *(ROOT / "tui").rglob("*.py")])


def _borrowed_privates(cls: ast.ClassDef) -> list[str]:
    """Private attributes `cls` declares (`_name: T`, no value) but never sets itself:
    the host it is mixed into sets them."""
    declared = [
        node.target.id
        for node in cls.body
        if isinstance(node, ast.AnnAssign)
        and node.value is None
        and isinstance(node.target, ast.Name)
        and node.target.id.startswith("_")
    ]
    set_here = {
        target.attr
        for node in ast.walk(cls)
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
    }
    return [name for name in declared if name not in set_here]


def test_no_class_declares_private_attributes_that_its_host_sets() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{cls.lineno} {cls.name}": borrowed
        for path in _modules()
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(cls, ast.ClassDef) and (borrowed := _borrowed_privates(cls))
    }
    assert found == {}


def _private_names(tree: ast.Module) -> set[str]:
    """The private names a module defines: functions, classes, attributes it sets."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            found.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
    return {name for name in found if name.startswith("_") and not name.startswith("__")}


def test_no_module_reads_or_sets_a_private_attribute_another_module_defines() -> None:
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in _modules()}
    own = {path: _private_names(tree) for path, tree in trees.items()}
    ours = set().union(*own.values())
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}"
        for path, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ours - own[path]
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert found == []


# What a probe would look into: the app, the index or its store, a screen, a reader,
# the object itself. What it may look into stays out: os, select, argparse's namespace,
# thread-locals, exceptions and watchdog's events.
_PROBED = re.compile(r"(^|\.)(app|index|store|screen|reader|remembered|self|obj)$")


def test_no_getattr_or_hasattr_probes_the_app_the_index_a_screen_a_reader_or_itself() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}"
        for path in _modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
        and isinstance(node.args[1], ast.Constant)  # a name asked for (not a field walk)
        and _PROBED.search(ast.unparse(node.args[0]))
    ]
    assert found == []

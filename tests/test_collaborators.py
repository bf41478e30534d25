"""A collaborator is an object with a narrow interface its owner holds, not a mixin
reaching into its host's private attributes (docs/ARCHITECTURE.md, Rules): read from
the source of core/ and tui/."""

import ast
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

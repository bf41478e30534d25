"""`inspect` is imported only when something uses it (tui/deferred.py): a quick command
never loads it, and anything that does use it gets the real module. Each case runs in
a fresh interpreter (this one has `inspect` loaded already)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from planwatch.core import paths

ROOT = Path(__file__).resolve().parents[2]
COPILOT_SAMPLE = ROOT / "fixtures/samples/copilot/session-state/5e806925-4250-446b-9e18-4cd8ceb54145"


def _python(code: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, **kwargs)  # type: ignore[call-overload]
    assert out.returncode == 0, out.stderr
    return out  # type: ignore[no-any-return]


def test_the_installed_command_lists_sessions_without_importing_inspect(isolated_env) -> None:  # type: ignore[no-untyped-def]
    """The real command (`run`, as the console script calls it) over a Copilot CLI
    session, cold, warm and from the kept listing: `-X importtime` names every module the
    process imports; `inspect` (and the `ast`, `dis` and `tokenize` it brings) is not
    among them, though `dataclasses` is, and the session is listed. (A listing that
    decodes lines loads msgspec, whose `typing_extensions` uses `inspect` as it loads:
    it gets the real module through the stand-in.)"""
    shutil.copytree(COPILOT_SAMPLE, paths.copilot_sessions_dir() / COPILOT_SAMPLE.name)
    for _ in ("cold", "warm", "remembered"):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "planwatch.tui.cli", "sessions", "--json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        assert [row["harness"] for row in json.loads(out.stdout)] == ["copilot"]
        imported = {
            line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")
        }
        assert "dataclasses" in imported  # the deferral is what keeps inspect out
        assert {"inspect", "ast", "dis", "tokenize"}.isdisjoint(imported)


def test_the_stand_in_imports_the_real_module_at_its_first_use() -> None:
    """What imported the stand-in (dataclasses) and what imports `inspect` afterwards all
    reach the real module's functions: a dataclass with no docstring (which asks
    `inspect.signature`), `from inspect import …`, and the module object itself."""
    out = _python(
        """
import sys, json
from planwatch.tui.deferred import defer_inspect
assert defer_inspect() is True
assert defer_inspect() is False  # in place already: nothing more is done
stand_in = sys.modules["inspect"]
import dataclasses
loaded_early = type(sys.modules["inspect"]).__name__

@dataclasses.dataclass
class Point:
    x: int
    y: int = 0

doc = Point.__doc__
real = sys.modules["inspect"]
from inspect import signature, isfunction
import inspect
print(json.dumps({
    "early": loaded_early,
    "doc": doc,
    "real": type(real).__name__,
    "same": inspect is real,
    "signature": str(signature(Point)),
    "stand_in_forwards": stand_in.isfunction(defer_inspect) and stand_in.signature is signature,
    "isfunction": isfunction(defer_inspect),
    "file": real.__file__ == stand_in.__file__,
}))
"""
    )
    got = json.loads(out.stdout)
    assert got == {
        "early": "_Deferred",
        "doc": "Point(x: int, y: int = 0)",
        "real": "module",
        "same": True,
        "signature": "(x: int, y: int = 0) -> None",
        "stand_in_forwards": True,
        "isfunction": True,
        "file": True,
    }


def test_nothing_is_deferred_once_inspect_or_dataclasses_is_loaded() -> None:
    out = _python(
        """
import dataclasses, sys
from planwatch.tui.deferred import defer_inspect
print(defer_inspect(), type(sys.modules["inspect"]).__name__)
"""
    )
    assert out.stdout.split() == ["False", "module"]


def test_the_app_still_starts_with_inspect_deferred() -> None:
    """Textual imports `inspect` and uses it at once: through the stand-in it gets the
    real module (the app's modules import, and a widget class is made)."""
    out = _python(
        """
import sys
from planwatch.tui.deferred import defer_inspect
defer_inspect()
from planwatch.tui.app import PlanwatchApp
import inspect
print(type(sys.modules["inspect"]).__name__, inspect.isclass(PlanwatchApp))
"""
    )
    assert out.stdout.split() == ["module", "True"]


def test_every_dataclass_of_planwatch_has_a_docstring() -> None:
    """`dataclasses` asks `inspect` for a class with no docstring (to write one): one such
    class on a command's path would load it again. Each class says what it holds."""
    import ast

    missing = []
    for path in sorted([*ROOT.glob("core/**/*.py"), *ROOT.glob("tui/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ClassDef)
                and any("dataclass" in ast.unparse(decorator) for decorator in node.decorator_list)
                and ast.get_docstring(node) is None
            ):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert missing == []

"""core/ must never import Textual or Rich (docs/ARCHITECTURE.md): checked in a fresh interpreter."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import planwatch.core as core

ROOT = Path(__file__).resolve().parent.parent


def core_modules() -> list[str]:
    return sorted(info.name for info in pkgutil.walk_packages(core.__path__, prefix="planwatch.core."))


def test_core_never_imports_textual_or_rich() -> None:
    modules = core_modules()
    assert "planwatch.core.model" in modules
    script = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich') or m.startswith('planwatch.tui'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core imported UI modules: {out.stdout.strip()}"

"""The type check (STYLE: "mypy over core at least") runs with the tests, so one
command checks everything: mypy over `core` (and `core` with `tui`, as pyproject names them) with the settings in pyproject
([tool.mypy]: the pydantic plugin, stub-less third-party packages ignored)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_nothing_in_core() -> None:
    if subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0:
        pytest.fail("mypy is not installed: pip install -e '.[test]'")
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "core"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_finds_nothing_in_core_and_tui() -> None:
    if subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0:
        pytest.fail("mypy is not installed: pip install -e '.[test]'")
    # pyproject's [tool.mypy] names the folders: core and tui.
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout

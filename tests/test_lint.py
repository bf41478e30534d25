"""The lint pass (STYLE §19) runs with the tests, so one command checks everything:
ruff's pyflakes, pycodestyle, import order, bugbear and pyupgrade rules (pyproject)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing() -> None:
    if shutil.which("ruff") is None and subprocess.run(
        [sys.executable, "-m", "ruff", "--version"], capture_output=True
    ).returncode != 0:
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    out = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "core", "tui", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


"""The lint pass runs with the tests, so one command checks everything: ruff's
pyflakes, pycodestyle, import order, bugbear and pyupgrade rules, and ruff's formatter
(pyproject holds the settings; the version is pinned there so a new formatter style
cannot turn a clean tree red)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    if (
        shutil.which("ruff") is None
        and subprocess.run([sys.executable, "-m", "ruff", "--version"], capture_output=True).returncode != 0
    ):
        pytest.fail("ruff is not installed: pip install -e '.[test]'")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing() -> None:
    out = _ruff("check", "core", "tui", "tests")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_tree_is_formatted_as_ruff_formats_it() -> None:
    out = _ruff("format", "--check", "core", "tui", "tests")
    assert out.returncode == 0, "run `ruff format core tui tests`:\n" + out.stdout + out.stderr

"""The type check runs with the tests (core is type-checked at the least, and the app
with it), so one command checks everything: mypy over `planwatch.core`, then
`planwatch.core` with `planwatch.tui`, with the settings in pyproject ([tool.mypy]: the
pydantic plugin, stub-less third-party packages ignored).

The folders core/ and tui/ are installed under the `planwatch` namespace (pyproject's
package-dir), a mapping mypy cannot follow; so the check lays the two folders out under
a `planwatch/` folder of links in a temporary directory and names the packages."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _mypy(tmp_path: Path, *packages: str) -> subprocess.CompletedProcess[str]:
    if subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True).returncode != 0:
        pytest.fail("mypy is not installed: pip install -e '.[test]'")
    layout = tmp_path / "planwatch"
    layout.mkdir()
    (layout / "core").symlink_to(ROOT / "core", target_is_directory=True)
    (layout / "tui").symlink_to(ROOT / "tui", target_is_directory=True)
    args = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(ROOT / "pyproject.toml"),
        "--cache-dir",
        str(tmp_path / ".mypy_cache"),
    ]
    for name in packages:
        args += ["-p", name]
    return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True)


def test_mypy_finds_nothing_in_core(tmp_path: Path) -> None:
    out = _mypy(tmp_path, "planwatch.core")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout


def test_mypy_finds_nothing_in_core_and_tui(tmp_path: Path) -> None:
    out = _mypy(tmp_path, "planwatch.core", "planwatch.tui")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout

"""The caches' code stamp (core/signed.py `code_stamp`) changes whenever a module of the
reading code is written, replaced or touched, even with its size and modification time
put back, and stays the same while nothing changes. Checked on a copy of the package in
a temporary folder, each stamp taken by a fresh interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _stamp(site: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", "from planwatch.core.signed import code_stamp; print(code_stamp())"],
        env={**os.environ, "PYTHONPATH": str(site)},
        cwd=site,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_code_stamp_changes_with_any_write_to_the_reading_code(tmp_path: Path) -> None:
    package = tmp_path / "planwatch"
    shutil.copytree(ROOT / "core", package / "core", ignore=shutil.ignore_patterns("__pycache__"))
    first = _stamp(tmp_path)
    assert _stamp(tmp_path) == first  # nothing changed: the same stamp
    reader = package / "core" / "transcripts" / "codex.py"
    before = reader.stat()
    # The same bytes written again, its modification time put back: only the change
    # time tells (a build tool or a person restoring the time cannot set it back).
    reader.write_bytes(reader.read_bytes())
    os.utime(reader, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (reader.stat().st_size, reader.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    second = _stamp(tmp_path)
    assert second != first
    (package / "core" / "new_module.py").write_text("")  # a module added
    third = _stamp(tmp_path)
    assert third not in (first, second)
    (package / "core" / "new_module.py").unlink()
    assert _stamp(tmp_path) == second  # the same files as before it was added

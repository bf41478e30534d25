"""The temp file an atomic write starts from (core/atomic.py `make_temp`): what
`tempfile.mkstemp` makes, without importing tempfile — a new file of the person's own
(0600) under a random name in the target's folder, opened only if the name is free and
never through a link, another name tried when one is taken."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from planwatch.core import atomic


def test_a_temp_file_is_new_private_and_named_at_random(tmp_path: Path) -> None:
    names = set()
    for _ in range(50):
        fd, path = atomic.make_temp(tmp_path, ".rec.md.", ".tmp")
        try:
            st = os.fstat(fd)
            assert stat.S_ISREG(st.st_mode) and st.st_size == 0 and stat.S_IMODE(st.st_mode) == 0o600
            assert os.get_inheritable(fd) is False
            os.write(fd, b"x")
        finally:
            os.close(fd)
        name = Path(path).name
        assert Path(path).parent == tmp_path and name.startswith(".rec.md.") and name.endswith(".tmp")
        assert len(name) == len(".rec.md.") + 12 + len(".tmp")
        names.add(name)
    assert len(names) == 50


def test_a_taken_name_or_a_link_there_is_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first names drawn are a person's file and a link to one: both are left as
    they were and the temp file gets a name of its own."""
    draws = iter([bytes(6), bytes([1] * 6), bytes([2] * 6)])
    monkeypatch.setattr(atomic.os, "urandom", lambda n: next(draws))
    taken = tmp_path / f".r.{bytes(6).hex()}.tmp"
    taken.write_text("a person's")
    target = tmp_path / "elsewhere"
    target.write_text("not to be touched")
    (tmp_path / f".r.{bytes([1] * 6).hex()}.tmp").symlink_to(target)
    fd, path = atomic.make_temp(tmp_path, ".r.", ".tmp")
    os.close(fd)
    assert Path(path).name == f".r.{bytes([2] * 6).hex()}.tmp"
    assert taken.read_text() == "a person's" and target.read_text() == "not to be touched"


def test_no_free_name_is_an_error_not_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(atomic.os, "urandom", lambda n: bytes(n))
    (tmp_path / f".r.{bytes(6).hex()}.tmp").write_text("")
    with pytest.raises(FileExistsError):
        atomic.make_temp(tmp_path, ".r.", ".tmp")


def test_an_atomic_write_does_not_import_tempfile(tmp_path: Path) -> None:
    """In a fresh interpreter: a record written whole, no tempfile (nor random, shutil)."""
    script = (
        "import sys; from pathlib import Path; from planwatch.core.atomic import atomic_write;"
        f"atomic_write(Path({str(tmp_path / 'f.md')!r}), 'text');"
        "print(sorted(m for m in ('tempfile', 'random', 'shutil') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert (tmp_path / "f.md").read_text() == "text"
    assert [p.name for p in tmp_path.iterdir()] == ["f.md"]

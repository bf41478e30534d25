"""Which files a piece of code opened, seen by the kernel (Linux inotify's IN_OPEN), so a
test sees SQLite open a database however it does so (a connection, an ATTACH), not only
what Python's audit events report.

`opens_in(folders)` watches each folder (not its subfolders); `seen()` opens a marker
file in a folder of its own and reads the events up to the marker's: every open before
it has been reported by then (one inotify queue keeps its events in order), so a test
waits for that state, never for a duration.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

IN_OPEN = 0x00000020
IN_CLOEXEC = 0o2000000
_HEADER = struct.Struct("iIII")
DEADLINE = 60.0  # bounds a failure only


class Opens:
    def __init__(self, fd: int, folders: dict[int, Path], marker: Path, marker_wd: int) -> None:
        self._fd, self._folders, self._marker, self._marker_wd = fd, folders, marker, marker_wd

    def seen(self) -> list[Path]:
        """Every file opened in the watched folders since the last call, in order."""
        with open(self._marker / "mark", "wb"):
            pass
        found: list[Path] = []
        while True:
            ready, _, _ = select.select([self._fd], [], [], DEADLINE)
            assert ready, "the marker's open was never reported"
            data = os.read(self._fd, 1 << 16)
            at = 0
            while at < len(data):
                wd, mask, _cookie, size = _HEADER.unpack_from(data, at)
                name = data[at + _HEADER.size : at + _HEADER.size + size].rstrip(b"\0").decode()
                at += _HEADER.size + size
                if wd == self._marker_wd:
                    return found
                if mask & IN_OPEN and name and wd in self._folders:
                    found.append(self._folders[wd] / name)


@contextmanager
def opens_in(folders: Sequence[Path]) -> Iterator[Opens]:
    if not sys.platform.startswith("linux"):
        pytest.skip("needs Linux inotify")
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    fd = libc.inotify_init1(IN_CLOEXEC)
    assert fd >= 0, os.strerror(ctypes.get_errno())
    try:
        with tempfile.TemporaryDirectory(prefix="planwatch-opens-") as marker:
            watched: dict[int, Path] = {}
            for folder in [*folders, Path(marker)]:
                wd = libc.inotify_add_watch(fd, os.fsencode(folder), IN_OPEN)
                assert wd >= 0, os.strerror(ctypes.get_errno())
                watched[wd] = folder
            marker_wd = max(watched)
            yield Opens(fd, watched, Path(marker), marker_wd)
    finally:
        os.close(fd)

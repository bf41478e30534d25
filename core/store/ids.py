"""The store's cross-process lock and its id counter.

- `StoreLock(path)`: `fcntl.flock` on `<root>/.lock`, exclusive, re-entrant within a
  thread. Every write to the store happens while it is held.
- `IdCounter(path)`: `<root>/.ids` remembers the highest id ever minted per kind
  (`{"p": 3, "t": 12}`), so a deleted record's id is never handed out again. The next
  id is one above both the counter and every file present (`highest_on_disk`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from core.atomic import atomic_write


class StoreLock:
    """An exclusive lock on one file, shared by every process; re-entrant per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def held(self) -> bool:
        """True when this thread holds the lock."""
        return getattr(self._local, "depth", 0) > 0

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield
            finally:
                self._local.depth -= 1
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._local.depth = 1
            try:
                yield
            finally:
                self._local.depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


class IdCounter:
    """`<root>/.ids`: the highest id minted per kind. Read and written under the store lock."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, int]:
        """The counter; a missing or broken file counts as nothing minted yet."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if k in ("t", "p") and isinstance(v, int) and v >= 0}

    def write(self, ids: dict[str, int]) -> None:
        """Replace the counter atomically; raises OSError."""
        atomic_write(self.path, json.dumps(ids, sort_keys=True) + "\n")


def highest_on_disk(folder: Path, prefix: str) -> int:
    """The highest `<prefix><n>.md` number in `folder` (0 when none)."""
    highest = 0
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return 0
    for name in names:
        if name.startswith(prefix) and name.endswith(".md") and name[1:-3].isdigit():
            highest = max(highest, int(name[1:-3]))
    return highest

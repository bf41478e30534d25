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
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from planwatch.core.atomic import atomic_write
from planwatch.core.regular import open_regular, read_regular


class StoreLock:
    """An exclusive lock on one file, shared by every process; re-entrant per thread.

    The lock file is opened without following a symlink (`O_NOFOLLOW`) and without
    waiting on a FIFO (`O_NONBLOCK`), and must be a regular file: a `.lock` symlink
    never creates a file at its target. `acquire` raises the `OSError` (with a reason
    such as `is a symlink, not a regular file`); the Store words it as a sentence.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    def held(self) -> bool:
        """True when this thread holds the lock."""
        return getattr(self._local, "depth", 0) > 0

    def acquire(self) -> None:
        """Take the lock (blocking until no other process holds it), or re-enter it."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            return
        fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, 0o644, follow=False)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._local.fd = fd
        self._local.depth = 1

    def release(self) -> None:
        self._local.depth -= 1
        if self._local.depth:
            return
        fd = self._local.fd
        self._local.fd = None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()


ID_LIMIT = 999_999_999
"""The highest number an id can carry (`t999999999`): the id pattern's nine digits."""


class IdCounter:
    """`<root>/.ids`: the highest id minted per kind. Read and written under the store lock."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, int]:
        """The counter; a missing or garbled file counts as nothing minted yet.

        Raises OSError when it cannot be read (`NotRegularFile` for a FIFO or a folder):
        minting without it could hand out a deleted record's id again.
        """
        try:
            raw = read_regular(self.path, 65_536)
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except ValueError:
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if k in ("t", "p") and isinstance(v, int) and 0 <= v <= ID_LIMIT}

    def write(self, ids: dict[str, int]) -> None:
        """Replace the counter atomically; raises OSError."""
        atomic_write(self.path, json.dumps(ids, sort_keys=True) + "\n")


def highest_on_disk(folder: Path, prefix: str) -> int:
    """The highest id number among the valid `<prefix><n>.md` names in `folder` (0 when none)."""
    highest = 0
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return 0
    for name in names:
        if name.startswith(prefix) and name.endswith(".md") and _ID_NAME.fullmatch(name[1:-3]):
            highest = max(highest, int(name[1:-3]))
    return highest


_ID_NAME = re.compile(r"[1-9][0-9]{0,8}")

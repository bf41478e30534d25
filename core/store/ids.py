"""The store's cross-process lock and its id counter.

- `StoreLock(path)`: `fcntl.flock` on `<root>/.lock`, exclusive, re-entrant within a
  thread. Every write to the store happens while it is held.
- `IdCounter(path, lock)`: `<root>/.ids` remembers the highest id ever minted per kind
  (`{"p": 3, "t": 12}`), so a deleted record's id is never handed out again. The next
  id is one above both the counter and every file present (`highest_on_disk`).
  The same counter is kept a second time inside the lock file (written in place under
  the lock, never replaced), so an `.ids` that is removed, emptied or garbled cannot
  send the counter back: the higher of the two counts, and the copy that was behind is
  repaired and the repair logged as a warning (a sentence naming the file).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

from planwatch.core.atomic import atomic_write
from planwatch.core.regular_files import open_regular, read_regular

log = logging.getLogger(__name__)


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

    def read_note(self) -> bytes:
        """What the held lock file holds (the id counter's second copy); b"" when empty."""
        fd = self._local.fd
        return os.pread(fd, 65_536, 0)

    def write_note(self, data: bytes) -> None:
        """Put `data` in the held lock file, in place (the lock file is never replaced:
        its inode is what every process locks)."""
        fd = self._local.fd
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        os.fsync(fd)

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


def _parse_counter(raw: bytes) -> dict[str, int] | None:
    """The counter a file holds; None when it holds none (empty, not JSON, not a mapping)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return {k: v for k, v in data.items() if k in ("t", "p") and isinstance(v, int) and 0 <= v <= ID_LIMIT}


class IdCounter:
    """`<root>/.ids` and its copy in the lock file: the highest id minted per kind. Read
    and written only while `lock` is held."""

    def __init__(self, path: Path, lock: StoreLock | None = None) -> None:
        self.path = path
        self.lock = lock

    def read(self) -> dict[str, int]:
        """The counter: the higher of `.ids` and the lock file's copy, per kind. A copy
        found behind (missing, empty, garbled or lower) is repaired, and that is logged.

        Raises OSError when `.ids` cannot be read (`NotRegularFile` for a FIFO or a
        folder): minting without it could hand out a deleted record's id again.
        """
        try:
            main: dict[str, int] | None = _parse_counter(read_regular(self.path, 65_536, follow=False))
            state = "garbled" if main is None else ""
        except FileNotFoundError:
            main, state = None, "missing"
        copy = _parse_counter(self.lock.read_note()) if self.lock is not None and self.lock.held() else None
        ids = dict(main or {})
        for kind, number in (copy or {}).items():
            ids[kind] = max(ids.get(kind, 0), number)
        if self.lock is None or not self.lock.held():
            return ids
        if ids != (main or {}) and ids:
            what = f"was {state}" if state else "was behind the lock file's copy"
            log.warning(
                "The id counter %s %s; repaired from its copy in %s (%s), so no removed record's id is handed out again.",
                self.path,
                what,
                self.lock.path,
                _counter_text(ids).strip(),
            )
            self.write(ids)
        elif ids != (copy or {}) and ids:
            self.lock.write_note(_counter_text(ids).encode())  # the copy was behind (a first run, an old store)
        return ids

    def write(self, ids: dict[str, int]) -> None:
        """Replace `.ids` atomically, then its copy in the lock file; raises OSError."""
        text = _counter_text(ids)
        atomic_write(self.path, text)
        if self.lock is not None and self.lock.held():
            self.lock.write_note(text.encode())


def _counter_text(ids: dict[str, int]) -> str:
    return json.dumps(ids, sort_keys=True) + "\n"


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

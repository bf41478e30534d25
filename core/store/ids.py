"""The store's cross-process lock and its id counter.

- `StoreLock(path)`: `fcntl.flock` on `<root>/.lock`, exclusive, re-entrant within a
  thread. Every write to the store happens while it is held.
- `IdCounter(path, lock)`: `<root>/.ids` remembers the highest id ever minted per kind
  (`{"p": 3, "t": 12}`), so a deleted record's id is never handed out again. The next
  id is one above both the counter and every file present (`highest_on_disk`).
  The same counter is kept a second time inside the lock file (written in place under
  the lock, never replaced), and each kind's own number a third time in its records
  folder (`tasks/.ids`, `plans/.ids`: `marks`), so neither an `.ids` that is removed,
  emptied or garbled nor one removed with `.lock` can send the counter back: the
  highest of the copies counts, and `.ids` found behind is repaired and the repair
  logged as a warning (a sentence naming the file and the copy it came from); another
  copy found behind is brought up to date without a word (a store from before it).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import threading
from collections.abc import Iterator, Mapping
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
    """`<root>/.ids`, its copy in the lock file and each kind's mark in its records folder:
    the highest id minted per kind. Read and written only while `lock` is held."""

    def __init__(self, path: Path, lock: StoreLock | None = None, marks: Mapping[str, Path] | None = None) -> None:
        self.path = path
        self.lock = lock
        self.marks = dict(marks or {})
        # What each mark held when last read or written under the lock: a write leaves a
        # mark that already holds the number alone (one write fewer per new record).
        self._marked: dict[str, int] = {}

    def read(self) -> dict[str, int]:
        """The counter: the highest of `.ids`, the lock file's copy and each kind's mark
        in its records folder. `.ids` found behind (missing, empty, garbled or lower) is
        repaired, and that is logged; a copy found behind is brought up to date.

        Raises OSError when `.ids` or a mark cannot be read (`NotRegularFile` for a FIFO
        or a folder): minting without it could hand out a deleted record's id again.
        """
        try:
            main: dict[str, int] | None = _parse_counter(read_regular(self.path, 65_536, follow=False))
            state = "garbled" if main is None else ""
        except FileNotFoundError:
            main, state = None, "missing"
        held = self.lock is not None and self.lock.held()
        # (where, what it holds, the kinds it keeps): the lock file keeps every kind, a
        # records folder's mark its own.
        copies: list[tuple[Path, dict[str, int], frozenset[str] | None]] = []
        if self.lock is not None and held:
            copies.append((self.lock.path, _parse_counter(self.lock.read_note()) or {}, None))
        for kind, mark in self.marks.items():
            found = _read_mark(mark, kind)
            self._marked[kind] = found.get(kind, -1)
            copies.append((mark, found, frozenset((kind,))))
        ids = dict(main or {})
        for _where, copy, _kinds in copies:
            for kind, number in copy.items():
                ids[kind] = max(ids.get(kind, 0), number)
        if not held or not ids:
            return ids
        if ids != (main or {}):
            what = f"was {state}" if state else "was behind its copies"
            ahead = [str(where) for where, copy, _kinds in copies if any(copy.get(k) == v for k, v in ids.items())]
            log.warning(
                "The id counter %s %s; repaired from its copy in %s (%s), so no removed record's id is handed out again.",
                self.path,
                what,
                " and ".join(ahead),
                _counter_text(ids).strip(),
            )
            self.write(ids)
        elif any(
            copy.get(k, 0) < n for _w, copy, kinds in copies for k, n in ids.items() if kinds is None or k in kinds
        ):
            self.write(ids, main_too=False)  # a copy was behind (a first run, a store from before it)
        return ids

    def write(self, ids: dict[str, int], *, main_too: bool = True) -> None:
        """Replace `.ids` atomically, then its copy in the lock file and each kind's mark
        in its folder (while the lock is held); raises OSError."""
        text = _counter_text(ids)
        if main_too:
            atomic_write(self.path, text)
        if self.lock is None or not self.lock.held():
            return
        self.lock.write_note(text.encode())
        for kind, mark in self.marks.items():
            if kind in ids and self._marked.get(kind) != ids[kind] and mark.parent.is_dir():
                atomic_write(mark, _counter_text({kind: ids[kind]}))
                self._marked[kind] = ids[kind]


def _read_mark(mark: Path, kind: str) -> dict[str, int]:
    """`{kind: n}` from a kind's mark in its records folder; {} when missing or garbled.
    Raises OSError when it is not a regular file (never waited on, never replaced)."""
    try:
        found = _parse_counter(read_regular(mark, 65_536, follow=False)) or {}
    except FileNotFoundError:
        return {}
    return {kind: found[kind]} if kind in found else {}


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

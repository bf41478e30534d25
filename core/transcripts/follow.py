"""The incremental follower: watches transcript roots and reports each file's news.

One watchdog observer watches every root recursively (a polling observer where inotify
is missing or fails, e.g. when the watch limit is reached). Events only mark files
dirty; the follower's own thread wakes, waits `debounce` seconds so a burst of writes
becomes one read, then asks the consumer to read each dirty file:

    consume(path, offset, reset) -> new offset | None

- `reset` False: read only the bytes appended since `offset` (a line start) and return
  the offset just after the last complete line, so a partial last line waits for its
  newline.
- `reset` True: the file is new, was truncated (size < offset), replaced (another
  inode) or rewritten in place (its mark, a CRC-32 of its first bytes and of those
  before the offset, moved: `_mark`), or has no append offset (compressed .zst, a
  whole-document Gemini .json, a database): read it from scratch whenever its size or
  mtime moved.
- Returning None stops following that file (not a transcript after all).

The files tracked before `start` (a first scan's: 10,000 of them for a heavy user) are
each looked at once for a change made while they were being read: a `stat` of each,
compared with the file as its read found it, or, where that is not known, a `stat` and
a mark taken (about a second for 10,000 files). It is done a slice at a time
(`LOOK_SLICE`), after the files events named meanwhile: an append an agent makes as the
scan ends is read at once, not behind every other file.

A database (and any file `rewritten` names) read while it was changing is read once
more when it has been still for `settle` seconds: SQLite makes a commit visible to
readers only when the writer updates its WAL index (the -shm file, written through
memory, so no file event tells), a moment after its last write to the -wal. A read in
that moment sees the commit before, and with no later event the change would stay
unseen until the next write.

The follower never parses lines and never imports Textual: it talks through plain
callbacks, called from its thread, so that core never depends on the UI's threading.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from planwatch.core.regular_files import open_regular_stat
from planwatch.core.transcripts.discover import is_transcript_name, is_whole_document
from planwatch.core.transcripts.filemark import MARK_BYTES, mark_at

log = logging.getLogger(__name__)

# Seconds a database must have been still for a read of it to count as its last: a
# writer descheduled between its last write and its WAL index update (a busy machine)
# takes milliseconds, not a quarter of a second. With a tenth, 1 of 200 live writes
# still went unseen on a 2-core machine running three busy loops; with this, none of 400.
SETTLE = 0.25

Consume = Callable[[Path, int, bool], "int | None"]

# Files of the first look (module docstring) looked at per turn of the follower's thread,
# after the files events named: a few milliseconds' work.
LOOK_SLICE = 200


@dataclass
class _FileState:
    """Where a followed file was read to, and the identity it had then."""

    offset: int
    ino: tuple[int, int]
    size: int
    mtime_ns: int
    # `_mark` of the file at `offset` (None: not taken yet): an append leaves it as it
    # was, a rewrite in place (or a new file on a reused inode) almost never does.
    mark: int | None = None


def _mark(path: Path, offset: int, head: bytes | None = None) -> int | None:
    """The file's mark at `offset` (filemark.py), `head` its first bytes when read
    before (`_head`); None when it cannot be read as a regular file."""
    if offset <= 0:
        return 0
    try:
        fd, _st = open_regular_stat(path, blocking=False)  # never waited on
    except OSError:  # NotRegularFile among them
        return None
    try:
        return mark_at(fd, offset, head=head)
    finally:
        os.close(fd)


def _head(path: Path) -> bytes | None:
    """The file's first `MARK_BYTES`, read before it is read on: the mark taken after
    that read holds them, so a rewrite while the consumer read (or before the mark was
    taken) is told by them at the next look."""
    try:
        fd, _st = open_regular_stat(path, blocking=False)
    except OSError:
        return None
    try:
        return os.pread(fd, MARK_BYTES, 0)
    except OSError:
        return None
    finally:
        os.close(fd)


class _Handler(FileSystemEventHandler):
    def __init__(self, follower: Follower) -> None:
        self._follower = follower

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("opened", "closed_no_write"):
            return
        paths = [Path(os.fsdecode(event.src_path))]
        if getattr(event, "dest_path", ""):
            dest = Path(os.fsdecode(event.dest_path))
            # A file moved out of every root is not followed where it went: its old
            # path is gone (and said so), as a fresh read would not find it either.
            if self._follower.inside(dest):
                paths.append(dest)
        self._follower.poke(paths)


class Follower:
    """Follows every transcript under `roots`; see the module docstring."""

    def __init__(
        self,
        roots: Sequence[Path],
        consume: Consume,
        *,
        accept: Callable[[Path], bool] = is_transcript_name,
        rewritten: Callable[[Path], bool] | None = None,
        flat_roots: Sequence[Path] = (),
        on_removed: Callable[[Path], None] | None = None,
        after_batch: Callable[[list[Path]], None] | None = None,
        # 20 ms: an agent's burst (a call, then its result a few ms later) still reads
        # as one, and an append reaches the screen in ~55 ms median rather than ~80
        # (tests/bench/bench_start.py: the live append goal is under 100 ms).
        debounce: float = 0.02,
        polling: bool = False,
        poll_interval: float = 1.0,
    ) -> None:
        self.roots = [Path(r) for r in roots]
        # Folders watched without their subfolders (OpenCode's data folder: only the
        # database and its -wal matter there, and its snapshot folders are large).
        self.flat_roots = [Path(r) for r in flat_roots if Path(r) not in self.roots]
        self._consume = consume
        self._accept = accept
        # Files with no append offset (module docstring); `rewritten` adds to them.
        self._rewritten_extra = rewritten
        self._on_removed = on_removed
        self._after_batch = after_batch
        self._debounce = debounce
        self._force_polling = polling
        self._poll_interval = poll_interval
        self._lock = threading.Lock()
        self._files: dict[Path, _FileState] = {}
        self._dirty: set[Path] = set()
        # Tracked files not yet looked at since `start` (module docstring), in order.
        self._first_look: deque[Path] = deque()
        # Set once every file tracked before `start` has been looked at.
        self.looked = threading.Event()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._observer: BaseObserver | None = None
        self._thread: threading.Thread | None = None
        # Roots that do not exist yet (Codex installed after planwatch started): looked
        # for every `root_check` seconds and watched once they appear.
        self._missing: list[Path] = []
        self.root_check = 1.0
        self.observer_kind = ""  # "native" or "polling", once started
        self.settle = SETTLE
        # Files read while they were changing, and when to read them again (monotonic).
        self._settling: dict[Path, float] = {}

    def _rewritten(self, path: Path) -> bool:
        if path.name.endswith(".zst") or is_whole_document(path):
            return True
        return self._rewritten_extra is not None and self._rewritten_extra(path)

    # -- state shared with other threads -------------------------------------------

    def track(
        self, path: Path, offset: int, seen: tuple[int, int, int, int, int] | None = None, mark: int | None = None
    ) -> None:
        """Record a file already read up to `offset`, so only later bytes are read.
        `seen` and `mark`: the file as the read found it (device, inode, size, mtime
        in ns, ctime in ns: warmcache.identity) and its mark at `offset` taken from the
        bytes it read (filemark.py), when known: the first look then needs only a
        `stat` to find the file as it was read, and compares any change with the bytes
        that were read."""
        if seen is not None and mark is not None and not self._rewritten(path):
            device, inode, size, mtime = seen[:4]
            with self._lock:
                self._files[path] = _FileState(offset, (device, inode), size, mtime, mark)
            return
        try:
            st = path.stat()
        except OSError:
            return
        # The size and mtime seen now may already include bytes appended after the
        # first read: record them as unknown (except for .zst, which has no appends) so
        # the first check reads whatever lies past `offset`.
        size, mtime = (st.st_size, st.st_mtime_ns) if self._rewritten(path) else (-1, 0)
        with self._lock:
            self._files[path] = _FileState(offset, (st.st_dev, st.st_ino), size, mtime)

    def offset(self, path: Path) -> int | None:
        with self._lock:
            state = self._files.get(path)
            return state.offset if state else None

    def poke(self, paths: Iterable[Path]) -> None:
        """Mark files as possibly changed; the follower thread looks at them soon."""
        picked = [p for p in paths if self._accept(p)]
        if not picked:
            return
        with self._lock:
            self._dirty.update(picked)
            self._wake.set()

    def inside(self, path: Path) -> bool:
        """Whether `path` is in what is watched (a root, or a flat root's own files)."""
        return any(path.is_relative_to(root) for root in self.roots) or any(
            path.parent == root for root in self.flat_roots
        )

    # -- life ------------------------------------------------------------------------

    def start(self) -> None:
        """Start watching; files tracked so far are checked once for changes made
        between their first read and now."""
        if self._thread is not None:
            return
        self._observer = self._start_observer()
        with self._lock:
            self._first_look.extend(path for path in self._files if self._accept(path))
            if self._first_look:
                self._wake.set()
            else:
                self.looked.set()
        self._thread = threading.Thread(target=self._run, name="planwatch-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and join both the observer and the follower thread."""
        self._stopping.set()
        self._wake.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _start_observer(self) -> BaseObserver:
        every = [*self.roots, *self.flat_roots]
        roots = [r for r in every if r.is_dir()]
        self._missing = [r for r in every if r not in roots]
        if not self._force_polling:
            observer: BaseObserver = Observer()
            try:
                for root in roots:
                    self._schedule(observer, root)
                observer.start()
                self.observer_kind = "native"
                return observer
            except OSError as exc:  # no inotify, or the watch limit is reached
                log.warning("native file watching failed (%s); polling instead", exc)
                try:
                    observer.stop()
                except Exception:
                    pass
        observer = PollingObserver(timeout=self._poll_interval)
        for root in roots:
            self._schedule(observer, root)
        observer.start()
        self.observer_kind = "polling"
        return observer

    def _schedule(self, observer: BaseObserver, root: Path) -> None:
        observer.schedule(_Handler(self), str(root), recursive=root not in self.flat_roots)

    # -- the follower thread ---------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self._next_look())
            if self._stopping.is_set():
                break
            if self._missing:
                self._watch_new_roots()
            self._take_settled()
            if not self._wake.is_set():
                continue
            with self._lock:
                named = bool(self._dirty)
            if named:
                # Coalesce a burst of writes into one read per file.
                self._stopping.wait(self._debounce)
            with self._lock:
                events, self._dirty = self._dirty, set()
                batch = sorted(events)
                look = self._first_look
                for _ in range(min(LOOK_SLICE, len(look))):
                    path = look.popleft()
                    if path not in events:
                        batch.append(path)
                if not look:
                    self._wake.clear()
            changed = [path for path in batch if self._process(path)]
            if not look and not self.looked.is_set():
                self.looked.set()
            if changed and self._after_batch is not None:
                try:
                    self._after_batch(changed)
                except Exception:
                    log.exception("after_batch callback failed")

    def _next_look(self) -> float | None:
        """Seconds until the follower must look without an event (a missing root, a
        file to read again once still); None: only an event wakes it."""
        waits = [self.root_check] if self._missing else []
        with self._lock:
            if self._settling:
                waits.append(max(0.0, min(self._settling.values()) - time.monotonic()))
        return min(waits) if waits else None

    def _take_settled(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = [path for path, at in self._settling.items() if at <= now]
            for path in due:
                del self._settling[path]
            if due:
                self._dirty.update(due)
                self._wake.set()

    def _watch_new_roots(self) -> None:
        """Watch roots that appeared since start, and read what they already hold."""
        observer = self._observer
        for root in [r for r in self._missing if r.is_dir()]:
            self._missing.remove(root)
            if observer is None:
                continue
            try:
                self._schedule(observer, root)
            except OSError as exc:
                log.warning("cannot watch %s: %s", root, exc)
                continue
            found: list[Path] = []
            if root in self.flat_roots:
                found = [entry for entry in root.iterdir() if entry.is_file()]
            else:
                for folder, _dirs, names in os.walk(root):
                    found += [Path(folder) / name for name in names]
            self.poke(found)

    def _process(self, path: Path) -> bool:
        """Read one file's news; True when the consumer was called or the file went."""
        try:
            st = path.stat()
        except FileNotFoundError:
            with self._lock:
                known = self._files.pop(path, None)
            if known is not None and self._on_removed is not None:
                self._call(self._on_removed, path)
                return True
            return False
        except OSError as exc:
            log.debug("cannot stat %s: %s", path, exc)
            return False
        ino = (st.st_dev, st.st_ino)
        with self._lock:
            state = self._files.get(path)
        if state is None:
            start, reset = 0, True  # a new file: a new session, or a new subagent
        elif state.ino != ino or st.st_size < state.offset:
            start, reset = 0, True  # replaced or truncated: read from scratch
        elif self._rewritten(path):
            if (st.st_size, st.st_mtime_ns) == (state.size, state.mtime_ns):
                return False
            start, reset = 0, True  # no append offset: read it again
        elif (same := st.st_size == state.offset or (st.st_size, st.st_mtime_ns) == (state.size, state.mtime_ns)) and (
            state.mark is None or st.st_mtime_ns == state.mtime_ns
        ):
            # Nothing new (or only the partial line waited on is unchanged). A file seen
            # for the first time since it was read is marked now (the follower's first
            # look at every file it tracks: `start`).
            if state.mark is None:
                self._take_mark(path, state)
            return False
        elif state.mark is not None and _mark(path, state.offset) != state.mark:
            start, reset = 0, True  # rewritten in place, or a new file on a reused inode
        elif same:
            return False  # touched, its bytes as they were
        else:
            start, reset = state.offset, False
        head = None if self._rewritten(path) else _head(path)
        new_offset = self._call(self._consume, path, start, reset)
        # Changing until just now (module docstring): its size is recorded unknown, so
        # the look once it is still reads it again.
        racy = (
            self._rewritten_extra is not None
            and self._rewritten_extra(path)
            # abs: a file stamped far in the future (a skewed clock) is not read for ever
            and abs(time.time_ns() - st.st_mtime_ns) < self.settle * 1e9
        )
        if new_offset is None:
            with self._lock:
                self._files.pop(path, None)
                self._settling.pop(path, None)
            return True
        read = _FileState(int(new_offset), ino, -1 if racy else st.st_size, st.st_mtime_ns)
        with self._lock:
            self._files[path] = read
            if racy:
                self._settling[path] = time.monotonic() + self.settle
        if head is not None:
            self._take_mark(path, read, head)
        return True

    def _take_mark(self, path: Path, state: _FileState, head: bytes | None = None) -> None:
        """Mark `state` (the file at its offset; `head`: its first bytes as read before
        it was read), unless its record moved on meanwhile."""
        mark = _mark(path, state.offset, head)
        with self._lock:
            if self._files.get(path) is state:
                state.mark = mark

    @staticmethod
    def _call(fn: Callable[..., object], *args: object) -> int | None:
        try:
            result = fn(*args)
        except Exception:
            log.exception("follower callback failed for %s", args[0] if args else "?")
            return None
        return result if isinstance(result, int) else None

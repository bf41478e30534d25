"""The store folder watcher: one observer over `<root>/tasks` and `<root>/plans`.

It knows nothing about records. It turns the many filesystem events of a change (an
atomic write alone is create + modify + close + rename) into one coalesced call of a
plain callback, on its own thread, so a consumer (the plan channel) re-reads and diffs
once per burst. Any writer is seen: the store's tools, another process, an editor that
writes in place, an editor that writes a temp file and renames it, a hand deletion.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

log = logging.getLogger(__name__)

# The folders that hold records; everything else under the root (locks, id counters,
# temp files) is not a record and its events are noise.
RECORD_DIRS = ("tasks", "plans")

# Only events that can mean "a record's content changed". Opened / closed-without-write
# events must stay out: the consumer reads the files on every change, and those reads
# would otherwise wake the watcher again, forever.
_EVENT_TYPES: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


def _is_record_path(root: Path, raw: str | bytes) -> bool:
    """True for a `.md` file directly in a record folder, or a record folder itself."""
    if not raw:
        return False
    path = Path(raw.decode() if isinstance(raw, bytes) else raw)
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    parts = rel.parts
    if len(parts) == 1:
        return parts[0] in RECORD_DIRS
    return len(parts) == 2 and parts[0] in RECORD_DIRS and parts[1].endswith(".md")


class _Handler(FileSystemEventHandler):
    def __init__(self, root: Path, poke: Callable[[str], None]) -> None:
        self._root = root
        self._poke = poke

    def on_any_event(self, event: FileSystemEvent) -> None:
        if type(event) not in _EVENT_TYPES:
            return
        dest = getattr(event, "dest_path", "")
        for raw in (dest, event.src_path):  # a rename's new name is the record it now is
            if _is_record_path(self._root, raw):
                self._poke(os.fsdecode(raw))
                return


class StoreWatcher:
    """Calls `on_change()` once per burst of record changes under a store root.

    `settle` is how long the folder must stay quiet before the call; `max_delay` bounds
    the wait under a steady stream of writes. `rescan_every` adds a periodic call as a
    safety net for events the OS dropped (an inotify queue overflow); None turns it off.
    `polling=True` forces the polling observer (it is also the fallback when the native
    one cannot start, e.g. out of inotify watches).
    """

    def __init__(
        self,
        root: Path,
        on_change: Callable[[], None],
        *,
        settle: float = 0.05,
        max_delay: float = 0.5,
        rescan_every: float | None = 30.0,
        polling: bool = False,
        poll_interval: float = 0.5,
    ) -> None:
        self.root = Path(root).resolve()
        self._on_change = on_change
        self._settle = settle
        self._max_delay = max_delay
        self._rescan_every = rescan_every
        self._polling = polling
        self._poll_interval = poll_interval
        self._cond = threading.Condition()
        self._first_event: float | None = None
        self._last_event = 0.0
        self._stopping = False
        self._observer: BaseObserver | None = None
        self._worker: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def start(self) -> None:
        """Start the observer and the coalescing thread (idempotent)."""
        if self.running:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        self._stopping = False
        self._observer = self._start_observer()
        self._worker = threading.Thread(target=self._run, name=f"planwatch-store-watch:{self.root.name}", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        """Stop watching and join both threads; safe to call twice."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
        worker, self._worker = self._worker, None
        if worker is not None and worker is not threading.current_thread():
            worker.join(timeout=5)

    def poke(self, path: str = "") -> None:
        """Note a change (to the record at `path`, when known); the callback follows once
        the burst settles. Events reach this one at a time, in the order they happened."""
        if path:
            log.debug("store watcher: %s changed", path)
        now = time.monotonic()
        with self._cond:
            if self._first_event is None:
                self._first_event = now
            self._last_event = now
            self._cond.notify_all()

    def _start_observer(self) -> BaseObserver:
        handler = _Handler(self.root, self.poke)
        if not self._polling:
            observer: BaseObserver = Observer()
            try:
                observer.schedule(handler, str(self.root), recursive=True, event_filter=_EVENT_TYPES)
                observer.start()
                return observer
            except OSError as exc:
                # Out of inotify watches/instances: keep working, just slower.
                log.warning("store watcher: native observer failed (%s); polling %s", exc, self.root)
                try:
                    observer.stop()
                except Exception:  # noqa: BLE001 - a half-started observer may not stop cleanly
                    pass
        polling = PollingObserver(timeout=self._poll_interval)
        polling.schedule(handler, str(self.root), recursive=True, event_filter=_EVENT_TYPES)
        polling.start()
        return polling

    def _run(self) -> None:
        last_call = time.monotonic()
        while True:
            with self._cond:
                while not self._stopping and self._first_event is None:
                    timeout = None
                    if self._rescan_every is not None:
                        timeout = max(0.0, last_call + self._rescan_every - time.monotonic())
                        if timeout == 0.0:
                            break
                    self._cond.wait(timeout)
                if self._stopping:
                    return
                # Let the burst settle: quiet for `settle`, but never wait past `max_delay`.
                while self._first_event is not None and not self._stopping:
                    now = time.monotonic()
                    quiet_at = self._last_event + self._settle
                    latest = self._first_event + self._max_delay
                    due = min(quiet_at, latest)
                    if now >= due:
                        break
                    self._cond.wait(due - now)
                if self._stopping:
                    return
                self._first_event = None
            last_call = time.monotonic()
            try:
                self._on_change()
            except Exception:  # a consumer's bug must not kill the watcher thread
                log.exception("store watcher: change callback failed")

"""The adapter between core's threads and the app: callbacks in, messages out.

core's session index scans (blocking, in a thread worker here) and follows transcripts
(its own thread); the store watcher watches the store folder (its own thread). Each
calls a plain callback; this module turns them into coalescible messages posted to the
app. Session ids are collected under a lock and drained by the handler, so replacing a
queued SessionsChanged with the next one loses nothing.

Started on the app's mount, stopped on its unmount.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.messages import FollowingStarted, ScanFinished, SessionsChanged, StoreChanged

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger(__name__)


class ScanStopped(Exception):
    """Raised from the batch callback to end a scan the app no longer needs (quit)."""


class LiveFeed:
    """Runs the index scan, the index follower and the store watcher for one app."""

    def __init__(self, app: App[Any], index: Any, store_root: Path | None, *, follow: bool = True, scan: bool = True) -> None:
        self.app = app
        self.index = index
        self.store_root = store_root
        self.follow = follow
        self.scan = scan
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self._all = False  # a full refresh is due (scan batches, settings)
        self._stopped = threading.Event()
        self._watcher: Any = None
        self._sweeper: Any = None

    # -- callbacks, called on core threads

    def _on_batch(self, entries: Iterable[Any]) -> None:
        if self._stopped.is_set():
            # The scan cannot be interrupted from outside; ending it here lets a person
            # quit during a long first scan without waiting for it.
            raise ScanStopped
        ids = [entry.session.id for entry in entries]
        self._mark(ids)

    def _on_change(self, session_ids: Iterable[str]) -> None:
        self._mark(list(session_ids))

    def _mark(self, ids: list[str]) -> None:
        if self._stopped.is_set():
            return
        with self._lock:
            self._changed.update(ids)
        self.app.post_message(SessionsChanged())

    def _on_store_change(self) -> None:
        if not self._stopped.is_set():
            self.app.post_message(StoreChanged())

    # -- the app's side

    def take_changed(self) -> set[str]:
        """The session ids changed since the last call (drains the set)."""
        with self._lock:
            changed, self._changed = self._changed, set()
        return changed

    def watches(self, root: Path) -> bool:
        """Whether this feed's store watcher is running on `root` (screens then need none)."""
        return self._watcher is not None and self.store_root == root

    def start(self) -> None:
        """Start scanning (thread worker) and watching the store."""
        if self.scan:
            self.app.run_worker(self._scan_then_follow, thread=True, group="index", name="scan", exit_on_error=False)
        else:
            # An index handed over already scanned: it is as if the scan just ended.
            roots = [Path(p) for p in getattr(self.index, "roots_searched", []) or []]
            self.app.post_message(ScanFinished(len(self.index.entries()), roots))
            if self.follow:
                self.app.run_worker(self._start_following, thread=True, group="index", name="follow", exit_on_error=False)
        if self.follow and self.store_root is not None:
            try:
                from core.store.watch import StoreWatcher

                self._watcher = StoreWatcher(self.store_root, self._on_store_change)
                self._watcher.start()
            except Exception as exc:  # a store that cannot be watched still reads on demand
                log.warning("cannot watch the store at %s: %s", self.store_root, exc)
                self._watcher = None
            # SPEC §4 Sweep: looked at when the core starts, then every hour.
            from core.store.records import Store
            from core.store.sweep import Sweeper

            self._sweeper = Sweeper(Store(self.store_root), lambda: self.app.settings)
            self._sweeper.start()

    def _scan_then_follow(self) -> None:
        error: str | None = None
        try:
            self.index.scan(self._on_batch)
        except ScanStopped:
            return
        except Exception as exc:  # a scan failure must show, never crash the app
            log.exception("scanning transcripts failed")
            error = f"{type(exc).__name__}: {exc}"
        if self._stopped.is_set():
            return
        roots = [Path(p) for p in getattr(self.index, "roots_searched", []) or []]
        problems = self.index.problems() if hasattr(self.index, "problems") else []
        self.app.post_message(ScanFinished(len(self.index.entries()), roots, error, problems))
        self._start_following()

    def _start_following(self) -> None:
        if not self.follow or self._stopped.is_set():
            return
        try:
            self.index.start_following(self._on_change)
        except Exception:
            log.exception("following transcripts failed")
            return
        if not self._stopped.is_set():
            self.app.post_message(FollowingStarted())

    def stop(self) -> None:
        """Stop the follower and the watcher; callbacks after this are ignored."""
        self._stopped.set()
        try:
            self.index.stop()
        except Exception:
            log.exception("stopping the index failed")
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        if self._sweeper is not None:
            self._sweeper.stop()
            self._sweeper = None

"""The adapter between core's threads and the app: callbacks in, messages out.

core's session index scans (blocking, in a thread worker here) and follows transcripts
(its own thread). Each calls a plain callback; this module turns them into coalescible
messages posted to the app. (The store's watcher belongs to the store service.) Session
ids are collected under a lock and drained by the handler, so replacing a queued
SessionsChanged with the next one loses nothing.

Started on the app's mount, stopped on its unmount.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from planwatch.tui.messages import FollowingStarted, ScanFinished, SessionsChanged

if TYPE_CHECKING:
    from textual.app import App

    from planwatch.core.index import SessionIndex
    from planwatch.core.sessions import SessionEntry

log = logging.getLogger(__name__)


# Seconds the cache's writing waits at most for the app to take the scan's end.
SAVE_AFTER_SCAN_END_AT_MOST = 3.0
# Seconds the scan waits at most for a key to be handled (`LiveFeed.give_way`): a key
# the app never reports handled (no binding took it) holds the scan no longer.
KEY_WAIT_AT_MOST = 0.1


class ScanStopped(Exception):
    """Raised from the batch callback to end a scan the app no longer needs (quit)."""


class LiveFeed:
    """Runs the index scan and the index follower for one app."""

    def __init__(self, app: App[None], index: SessionIndex, *, follow: bool = True, scan: bool = True) -> None:
        self.app = app
        self.index = index
        self.follow = follow
        self.scan = scan
        self._lock = threading.Lock()
        self._changed: set[str] = set()
        self._all = False  # a full refresh is due (scan batches, settings)
        self._stopped = threading.Event()
        # Set once the app has taken the scan's end (its last refresh shown): the cache
        # is written after it (`_scan_then_follow`).
        self.scan_end_taken = threading.Event()
        self._froze = False  # the first scan froze what it made (given back on stop)
        # Clear from a key's arrival until the app has handled it and painted the screen
        # after it (`key_arrived`, `key_handled`); the scan waits on it between files.
        self._no_key_on_its_way = threading.Event()
        self._no_key_on_its_way.set()
        self._key_arrived_at = 0.0
        index.pause_point = self.give_way

    # -- callbacks, called on core threads

    def _on_batch(self, entries: Iterable[SessionEntry]) -> None:
        if self._stopped.is_set():
            # The scan cannot be interrupted from outside; ending it here lets a person
            # quit during a long first scan without waiting for it.
            raise ScanStopped
        ids = [entry.session.id for entry in entries]
        self.mark_changed(ids)

    def _on_change(self, session_ids: Iterable[str]) -> None:
        self.mark_changed(list(session_ids))

    def mark_changed(self, ids: list[str]) -> None:
        """Note sessions to repaint (any thread): one SessionsChanged carries them all."""
        if self._stopped.is_set():
            return
        with self._lock:
            self._changed.update(ids)
        self.app.post_message(SessionsChanged())

    def give_way(self) -> None:
        """On the scan's thread, between files: wait while a key is on its way (at most
        KEY_WAIT_AT_MOST after it arrived). The scan's thread and the UI's share one
        interpreter, handed between them every few milliseconds: a key's way through the
        app (a handful of turns of the event loop, 10-20 ms of the UI's work) took two to
        four times that while the scan held the interpreter half the time. A scan is
        late by the keys' own work, at most; a key is not late by the scan's."""
        if self._no_key_on_its_way.is_set():
            return
        left = self._key_arrived_at + KEY_WAIT_AT_MOST - time.monotonic()
        if left > 0:
            self._no_key_on_its_way.wait(left)

    # -- the app's side

    def key_arrived(self) -> None:
        """A key reached the app (the UI thread): the scan waits until `key_handled`."""
        self._key_arrived_at = time.monotonic()
        self._no_key_on_its_way.clear()

    @property
    def key_on_its_way(self) -> bool:
        """A key arrived and is not handled yet (the scan waits for it)."""
        return not self._no_key_on_its_way.is_set()

    def key_handled(self) -> None:
        """The keys that arrived are handled and the screen painted after them."""
        self._no_key_on_its_way.set()

    def take_changed(self) -> set[str]:
        """The session ids changed since the last call (drains the set)."""
        with self._lock:
            changed, self._changed = self._changed, set()
        return changed

    def start(self) -> None:
        """Start scanning (thread worker), then following."""
        if self.scan:
            self.app.run_worker(self._scan_then_follow, thread=True, group="index", name="scan", exit_on_error=False)
        else:
            # An index handed over already scanned: it is as if the scan just ended.
            self.app.post_message(ScanFinished(list(self.index.roots_searched)))
            if self.follow:
                self.app.run_worker(
                    self._start_following, thread=True, group="index", name="follow", exit_on_error=False
                )

    def _scan_then_follow(self) -> None:
        error: str | None = None
        # The warm-start cache is written once the app is told the scan is done, not by
        # the scan itself.
        self.index.save_after_scan = False
        if not self._stopped.is_set():
            self.scan_end_taken.clear()  # this scan's end, not an earlier one's
        try:
            with self._gc_for_scan():
                self.index.scan(self._on_batch)
        except ScanStopped:
            return
        except Exception as exc:  # a scan failure must show, never crash the app
            log.exception("scanning transcripts failed")
            error = f"{type(exc).__name__}: {exc}"
        if self._stopped.is_set():
            return
        self.app.post_message(ScanFinished(list(self.index.roots_searched), error, self.index.problem_notes()))
        # The cache is written once the app has shown the scan's end: summarizing ten
        # thousand files is the interpreter's for a few hundred milliseconds, and the
        # app's last refreshes (its keys too) would share it. Not for ever: a UI that
        # never says so (stopped, or a screen that takes no refresh) does not keep the
        # cache from being written.
        self.scan_end_taken.wait(SAVE_AFTER_SCAN_END_AT_MOST)
        if error is None:
            from planwatch.core.index import cyclic_gc_paused  # an index with a cache is core's

            try:
                with cyclic_gc_paused():  # as during the scan: no garbage cycles, many objects
                    self.index.save_cache()
            except Exception:  # a cache is never worth failing for: follow all the same
                log.exception("writing the warm-start cache failed")
        self._start_following()

    @contextlib.contextmanager
    def _gc_for_scan(self) -> Iterator[None]:
        """The collector paused while the first scan runs and what the scan made frozen
        after it (core's `cyclic_gc_paused_then_frozen`). The garbage made before is
        collected once the scan has found every file (`on_found`), not before it
        starts: that full collection (50-75 ms at 10,000 sessions, on the interpreter
        the UI shares) would come before a warm start's first rows."""
        import gc

        from planwatch.core.index import cyclic_gc_paused_then_frozen

        collected = not gc.isenabled()  # another owner paused it: nothing of ours to collect

        def collect_once() -> None:
            nonlocal collected
            if not collected:
                collected = True
                gc.collect()

        self.index.on_found = collect_once
        froze: Callable[[], bool] | None = None
        try:
            with cyclic_gc_paused_then_frozen(collect_first=False) as froze_now:
                froze = froze_now
                try:
                    yield
                finally:
                    collect_once()  # before the freeze, when the scan never found its files
        finally:
            self.index.on_found = None
            with self._lock:
                # Only what this froze is given back: with the collector already off
                # (another owner paused it), nothing was, and unfreezing would release
                # what someone else froze.
                self._froze = froze is not None and froze()
                if self._stopped.is_set():  # stopped while scanning: stop() has run
                    self._unfreeze()

    def _unfreeze(self) -> None:
        # The process may go on without this app (tests run many in one): what the
        # scan froze, the app's own objects among them, is the collector's again.
        if self._froze:
            import gc

            self._froze = False
            gc.unfreeze()

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
        """Stop the follower; callbacks after this are ignored."""
        self._stopped.set()
        self.scan_end_taken.set()
        self._no_key_on_its_way.set()
        try:
            self.index.stop()
        except Exception:
            log.exception("stopping the index failed")
        with self._lock:
            self._unfreeze()

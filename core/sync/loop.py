"""Background sync for the long-running processes (the app, `planwatch mcp`): one per
host at a time, a pass soon after local writes (debounced) and whenever the remote moved.

- `SyncLoop(store, debounce=2.0, poll=30.0)`: `start()` does nothing for a store that is
  not shared; otherwise it takes `<store>/.sync/loop.lock` without waiting (another
  process of this host runs the loop: this one tries again at each poll) and runs on its
  own thread. Local writes are seen by the store folders' listing (names, sizes and
  modification times: no file is read); the remote by one `git ls-remote` per poll,
  compared with what was fetched — nothing is fetched while nothing moved.
- `last` — the last pass's `PassReport` (None before the first), `last_at`
  (time.time()), `offline`: what a footer says. `passes`, `pass_done` for tests.
The tools never wait on it: a pass holds the store lock only while it reads and
renders files, never across the network.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.store.records import Store

if TYPE_CHECKING:
    from planwatch.core.sync.replica import PassReport

log = logging.getLogger(__name__)


def _listing(root: Path) -> tuple[tuple[str, int, int], ...]:
    out = []
    for folder in ("tasks", "plans"):
        try:
            with os.scandir(root / folder) as entries:
                for entry in entries:
                    if entry.name.endswith(".md"):
                        st = entry.stat(follow_symlinks=False)
                        out.append((f"{folder}/{entry.name}", st.st_size, st.st_mtime_ns))
        except OSError:
            continue
    return tuple(sorted(out))


class SyncLoop:
    def __init__(self, store: Store, *, debounce: float = 2.0, poll: float = 30.0, tick: float = 0.5) -> None:
        self.store = store
        self.debounce, self.poll, self.tick = debounce, poll, tick
        self.last: PassReport | None = None
        self.last_at: float | None = None
        self.passes = 0
        self.pass_done = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock_fd: int | None = None

    @property
    def offline(self) -> bool:
        return self.last is not None and not self.last.reached

    def _shared(self) -> bool:
        return (self.store.root / ".sync" / "config.json").is_file()

    def _take_host_lock(self) -> bool:
        if self._lock_fd is not None:
            return True
        try:
            fd = os.open(self.store.root / ".sync" / "loop.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def start(self) -> None:
        if self._thread is not None or not self._shared():
            return
        self._thread = threading.Thread(target=self._loop, name="planwatch-sync", daemon=True)
        self._thread.start()

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _remote_moved(self) -> bool:
        from planwatch.core.sync.git import GitFailed, GitUnreachable
        from planwatch.core.sync.replica import FETCHED, Replica

        replica = Replica(self.store)
        try:
            remote = replica.git.ls_remote(replica.remote, "refs/planwatch/*")
            held = replica.git.refs(FETCHED)
        except (GitUnreachable, GitFailed):
            return self.last is None or self.last.reached  # went offline: say so in a pass
        return {name.replace("refs/planwatch/", FETCHED, 1): sha for name, sha in remote.items()} != held

    def run_once(self) -> None:
        from planwatch.core.sync.replica import Replica

        try:
            self.last = Replica(self.store).sync()
            self.last_at = time.time()
        except Exception:  # a failed pass must not end the loop: logged, tried again later
            log.exception("background sync of %s failed; trying again later", self.store.root)
        self.passes += 1
        self.pass_done.set()

    def _configured_poll(self) -> None:
        import json

        try:
            config = json.loads((self.store.root / ".sync" / "config.json").read_text(encoding="utf-8"))
            poll = float(config.get("pollSeconds") or 0)
        except (OSError, ValueError, TypeError, AttributeError):
            return
        if poll > 0:
            self.poll = poll  # the host's own setting (sync init/join --poll)

    def _loop(self) -> None:
        self._configured_poll()
        seen = _listing(self.store.root)
        changed_at: float | None = None
        next_poll = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if not self._take_host_lock():
                self._stop.wait(self.poll)
                continue
            listing = _listing(self.store.root)
            if listing != seen:
                seen, changed_at = listing, now
            due = changed_at is not None and now - changed_at >= self.debounce
            if not due and now >= next_poll:
                next_poll = now + self.poll
                due = self._remote_moved()
            if due:
                self.run_once()
                seen, changed_at = _listing(self.store.root), None
            self._stop.wait(self.tick)

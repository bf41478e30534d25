"""Background sync for the long-running processes (the app, `planwatch mcp`): one per
host at a time, a pass soon after local writes (debounced) and whenever the remote moved.

- `SyncLoop(store, debounce=2.0, poll=30.0)`: `start()` does nothing for a store that is
  not shared; otherwise it takes `<store>/.sync/loop.lock` without waiting (another
  process of this host runs the loop: this one tries again at each poll) and runs on its
  own thread. Local writes are seen by the store folders' listing (names, sizes and
  modification times: no file is read); the remote by one `git ls-remote` per poll,
  compared with what was fetched — nothing is fetched while nothing moved.
- `last` — the last pass's `PassReport` (None before the first), `last_at`
  (time.time()), `offline`. `passes`, `pass_done` for tests.
- `on_status(SyncStatus)` — called on the loop's thread with what a footer says: once
  at start (the last pass any process of this host made, from `state.json`), after each
  pass, after each poll that found the remote unmoved (in sync as of then), and, while
  another process of this host runs the loop, whenever that process's last pass changed.
The tools never wait on it: a pass holds the store lock only while it reads and
renders files, never across the network.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planwatch.core.store.store import Store

if TYPE_CHECKING:
    from planwatch.core.sync.replica import PassReport

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SyncStatus:
    """How this host's shared store stands: `reached` whether the last look at the remote
    reached it, `at` when that was, `synced_at` when the remote was last reached
    (None: never), all time.time() seconds; `line` the last pass's one line."""

    reached: bool
    at: float | None
    synced_at: float | None
    line: str = ""


def _stamp_seconds(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def recorded_status(root: Path) -> SyncStatus | None:
    """The last pass any process of this host made, as `state.json` keeps it (None: none yet)."""
    import json

    from planwatch.core.regular_files import read_regular
    from planwatch.core.sync.contests import STATE_LIMIT

    try:
        raw = read_regular(root / ".sync" / "state.json", STATE_LIMIT, follow=False)
        state = json.loads(raw.decode("utf-8"))
        last = state.get("last")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(last, dict):
        return None
    reached = bool(last.get("reached"))
    at = _stamp_seconds(last.get("at"))
    synced = at if reached else _stamp_seconds(state.get("lastReached"))
    return SyncStatus(reached, at, synced, str(last.get("line") or ""))


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
    def __init__(
        self,
        store: Store,
        *,
        debounce: float = 2.0,
        poll: float = 30.0,
        tick: float = 0.5,
        on_status: Callable[[SyncStatus], None] | None = None,
    ) -> None:
        self.store = store
        self.on_status = on_status
        self.status: SyncStatus | None = None
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
        from planwatch.core.sync.git import kill_running, release

        self._stop.set()
        if self._thread is not None:
            # a poll or pass waiting on the network ends now (its git and ssh with it),
            # and any network step the loop's thread begins after it is refused (a pass
            # that goes on to its push or a poll that goes offline and passes), so the
            # process that owns the loop exits without waiting for a timeout; the pass is
            # left as a killed one is, for the next to recover
            ident = self._thread.ident
            kill_running(ident)
            self._thread.join(timeout)
            if ident is not None and not self._thread.is_alive():
                release(ident)  # else its own end releases it
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
        moved = {name.replace("refs/planwatch/", FETCHED, 1): sha for name, sha in remote.items()} != held
        if not moved and self.status is not None and self.status.reached:
            now = time.time()  # nothing moved on either side: in sync as of now
            self._tell(SyncStatus(True, now, now, self.status.line))
        # back from offline: a pass sends what waited, and says the store is synced again
        return moved or (self.status is not None and not self.status.reached)

    def _tell(self, status: SyncStatus | None) -> None:
        if status is None or status == self.status:
            return
        self.status = status
        if self.on_status is not None:
            try:
                self.on_status(status)
            except Exception:  # a listener's failure must not end the loop
                log.exception("the sync status listener failed")

    def run_once(self) -> None:
        from planwatch.core.sync.replica import Replica

        try:
            self.last = Replica(self.store).sync()
            self.last_at = time.time()
        except Exception:  # a failed pass must not end the loop: logged, tried again later
            log.exception("background sync of %s failed; trying again later", self.store.root)
        else:
            before = self.status.synced_at if self.status else None
            synced = self.last_at if self.last.reached else before
            self._tell(SyncStatus(self.last.reached, self.last_at, synced, self.last.line()))
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
        from planwatch.core.sync.git import release

        try:
            self._follow()
        finally:
            release(threading.get_ident())

    def _follow(self) -> None:
        self._configured_poll()
        self._tell(recorded_status(self.store.root))
        seen = _listing(self.store.root)
        changed_at: float | None = None
        next_poll = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if not self._take_host_lock():
                self._tell(recorded_status(self.store.root))  # the other process's passes
                self._stop.wait(self.poll)
                continue
            listing = _listing(self.store.root)
            if listing != seen:
                seen, changed_at = listing, now
            due = changed_at is not None and now - changed_at >= self.debounce
            if not due and now >= next_poll:
                next_poll = now + self.poll
                due = self._remote_moved()
            if due and not self._stop.is_set():  # stopped during the poll: no pass begins
                self.run_once()
                seen, changed_at = _listing(self.store.root), None
            self._stop.wait(self.tick)

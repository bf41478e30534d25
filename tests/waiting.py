"""Waiting for a state from a test thread, never for a duration.

A test that waits asserts the state it waited for; the deadline only bounds a failure
(a passing test returns as soon as the state holds), so it is generous: a 2-core machine
running two suites at once is several times slower than one alone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

DEADLINE = 60.0


class Changes:
    """An index's `on_change` callback that keeps each burst of changed ids and wakes a
    test waiting for a state those changes bring."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.bursts: list[list[str]] = []

    def __call__(self, ids: Sequence[str]) -> None:
        with self._cond:
            self.bursts.append(list(ids))
            self._cond.notify_all()

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> None:
        """Return once `condition()` holds, looking again after each change the index
        reports (the condition is read outside the lock: it may take the index's)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._cond:
                seen = len(self.bursts)
            if condition():
                return
            with self._cond:
                while len(self.bursts) == seen:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise AssertionError(f"timed out waiting for {what}")
                    self._cond.wait(left)


def wait_until(condition: Callable[[], bool], what: str, timeout: float = DEADLINE, every: float = 0.01) -> None:
    """Poll `condition` until it holds (for states no callback announces, such as
    another process's), failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        pause.wait(every)  # polling a state, not waiting a duration as proof


def waits_for_flock(path: Path) -> bool:
    """True while some process is blocked asking for an exclusive `flock` on `path`
    (Linux's /proc/locks marks a blocked request with `->`)."""
    st = path.stat()
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    with open("/proc/locks", encoding="ascii") as fh:
        for line in fh:
            fields = line.split()
            if "->" in fields and "FLOCK" in fields and device in fields:
                return True
    return False


def caches_written(environ: dict[str, str] | None = None, timeout: float = DEADLINE) -> None:
    """Return once the caches a `planwatch sessions` process wrote after its answer
    (tui/cli_sessions.py `_listed`, core/forked.py `detached`) are written: no process
    holds the caches' writing lock. Its folder is the one `environ` names (the
    command's environment), else this process's (conftest's)."""
    from unittest import mock

    from planwatch.core.forked import wait_detached
    from planwatch.tui.cli_sessions import writing_lock

    with mock.patch.dict(os.environ, environ or {}, clear=environ is not None):
        lock = writing_lock()
    assert wait_detached(str(lock), at_most=timeout), "the caches were still being written"

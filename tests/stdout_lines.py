"""A subprocess's stdout read line by line on a thread, so a test waits with a deadline
(the channel tests of tests/core and tests/tui share it)."""

from __future__ import annotations

import queue
import threading
from typing import IO

DEADLINE = 60.0  # bounds a failure only: a loaded 2-core machine starts Python slowly


class Lines:
    """A subprocess's stdout lines, read on a thread so the test can wait with a deadline."""

    def __init__(self, stream: IO[str], deadline: float = DEADLINE) -> None:
        self._deadline = deadline
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(None)

    def next(self) -> str:
        try:
            line = self._queue.get(timeout=self._deadline)
        except queue.Empty:
            raise AssertionError("no line before the deadline") from None
        assert line is not None, "the command ended early"
        return line

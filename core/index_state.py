"""What the session index shares with its collaborators (core/index.py holds them): the
files read, one `FileState` each, the two locks that guard them, and whether the
warm-start cache is behind them. The following, the warm start and the database
sources (index_following.py, index_warmstart.py, index_databases.py) are each handed
this object and the few callbacks they need, and reach nothing else of the index.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from planwatch.core.sessions import FileState


@dataclass(eq=False)
class IndexState:
    """The files the index read and the locks around them.

    `lock` guards `files` and `cache_behind` (and the index's own maps: one lock for
    everything the index holds, so a change of files and the entries built from them
    are seen together); `io_lock` is held while a reader is fed, so one reader is fed
    by one thread at a time (take it before `lock`, never after)."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    io_lock: threading.RLock = field(default_factory=threading.RLock)
    files: dict[Path, FileState] = field(default_factory=dict)
    # The warm-start cache (warmcache.py) is behind what the index holds: a file was
    # read from scratch or grew, or went (only ever set while plans are read).
    cache_behind: bool = False

    def get(self, path: Path) -> FileState | None:
        """The state of one file read, if it was."""
        with self.lock:
            return self.files.get(path)

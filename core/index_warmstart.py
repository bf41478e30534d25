"""The session index's warm-start cache orchestration: what the cache remembers of the
files a first scan found (replayed instead of read), and writing the cache when the
index is ahead of it. The cache itself (format, fit checks, the locked write) is
core/transcripts/warmcache.py; the index that holds the state is core/index.py.

Privacy: with plans off nothing is remembered or written; the cache holds offsets,
lengths and hashes, and per file a summary of counts, statuses and sources, never text.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from planwatch.core.sessions import FileState
from planwatch.core.transcripts import warmcache, warmsummary
from planwatch.core.transcripts.discover import TranscriptFile
from planwatch.core.transcripts.warmcache import Remembered, WarmCache

log = logging.getLogger(__name__)


def _with_summary(trace: warmcache.Trace, state: FileState) -> warmcache.Trace:
    """A copy of `trace` holding the text-free summary of what the file gave (OpenCode's
    database keeps its own state: no summary; a Copilot CLI session's summary stands in
    for its database on a start that shows counts only)."""
    copy = trace.copy()
    summarized = trace.ops or getattr(state.reader, "warm_summary", False)
    copy.summary = warmsummary.summarize(state.results) if summarized else None
    return copy


class WarmStart:
    """`SessionIndex`'s warm-start half: it reads and writes the index's own state (the
    files read, whether the cache is behind) under the index's locks."""

    roots_searched: list[Path]
    _read_plans: bool
    _cache_stale: bool
    _lock: threading.RLock
    _io_lock: threading.RLock
    _files: dict[Path, FileState]

    def _remembered(self, files: list[TranscriptFile]) -> Remembered | None:
        """What the warm-start cache remembers of `files` (nothing with plans off), each
        entry checked when its file is read (a file whose entry is unfit is read from
        scratch, which marks the cache behind)."""
        if not self._read_plans:
            return None
        try:
            cache = WarmCache.load()
        except Exception:  # a cache is never worth failing a scan for
            log.warning("the warm-start cache could not be read", exc_info=True)
            return None
        found = Remembered(cache, {item.path: item.harness for item in files})
        if cache.count_under(self.roots_searched) > len(found):
            self._cache_stale = True  # it remembers files that are gone: drop them
        return found

    def save_cache(self) -> None:
        """Write the warm-start cache when it is behind (never with plans off)."""
        with self._io_lock, self._lock:
            if not self._read_plans or not self._cache_stale:
                return
            self._cache_stale = False
            traces = [
                (path, state.file.harness, _with_summary(state.trace, state))
                for path, state in self._files.items()
                # A file its reader found a problem in (pi's tree cut by a missing
                # parent) is not remembered: read afresh, it says the problem each time.
                if state.trace is not None and getattr(state.reader, "problem", None) is None
            ]
        try:
            warmcache.save(traces, self.roots_searched)
        except Exception:
            log.warning("the warm-start cache could not be written", exc_info=True)

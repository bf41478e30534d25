"""The session index's warm-start cache, a collaborator the index holds: what the cache
remembers of the files a first scan found (replayed instead of read), and writing the
cache when the index is ahead of it. The cache itself (format, fit checks, the locked write) is
core/transcripts/warmcache.py; the index that holds the state is core/index.py.

Privacy: with plans off nothing is remembered or written; the cache holds offsets,
lengths and hashes, and per file a summary of counts, statuses and sources, never text.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from planwatch.core.index_state import IndexState
from planwatch.core.logs import get_logger
from planwatch.core.transcripts import warmcache, warmsummary
from planwatch.core.transcripts.discover import TranscriptFile
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.warmcache import Remembered, WarmCache

log = get_logger(__name__)  # logging imported at the first record


def _with_summary(
    trace: warmcache.Trace, reader: TranscriptReader | None, results: list[SessionResult]
) -> warmcache.Trace:
    """A copy of a file's `trace` holding the text-free summary of what the file gave
    (OpenCode's database keeps its own state: no summary; a Copilot CLI session's summary
    stands in for its database on a start that shows counts only)."""
    copy = trace.copy()
    if reader is None and trace.summary is not None:
        # Read without a reader (a listing's read handed back as plain values, its warm
        # start of a Copilot CLI folder): its results were made from this summary, which
        # summarizing them again gives back (about 60 ms of a cold 10,000-session listing).
        return copy
    summarized = trace.ops or (reader.warm_summary if reader is not None else False)
    copy.summary = warmsummary.summarize(results) if summarized else None
    return copy


class WarmStart:
    """The index's warm-start cache: what it remembers of the files a first scan found,
    and writing it again when the files read have moved past it. Built with the index's
    shared state (index_state.py) and two questions it asks the index: whether plans
    are read and which folders are searched, both as they are when it looks."""

    def __init__(self, state: IndexState, *, reads_plans: Callable[[], bool], roots: Callable[[], list[Path]]) -> None:
        self._state = state
        self._reads_plans = reads_plans
        self._roots = roots
        # The cache loaded ahead (`preload`), taken by the first scan (`cache`).
        self._preloading: threading.Thread | None = None
        self._preloaded: list[WarmCache | None] = []

    def preload(self) -> None:
        """Start loading the cache on a thread of its own, for the first scan to take
        (`cache`): the app starts it as it is made, so the load (reading, checking and
        decoding some 4.5 MB for 10,000 sessions) overlaps Textual's start. Nothing with
        plans off."""
        if self._reads_plans() and self._preloading is None:
            self._preloading = threading.Thread(
                target=lambda: self._preloaded.append(self._load()), name="planwatch-cache-load", daemon=True
            )
            self._preloading.start()

    def remembers_any(self) -> bool:
        """Whether there may be a cache to load (its file is there, or a load started):
        plans read and the file present. Not whether it fits: that takes its load."""
        if not self._reads_plans():
            return False
        if self._preloading is not None or self._preloaded:
            return True
        try:
            return warmcache.cache_file().exists()
        except OSError:
            return True  # unsure: as if it were there (the early pass finds out)

    def cache(self) -> WarmCache | None:
        """The warm-start cache (None with plans off, or when it could not be read): the
        one `preload` started, once; else loaded now."""
        preloading, self._preloading = self._preloading, None
        if preloading is not None:
            preloading.join()
            cache = self._preloaded.pop() if self._preloaded else None
            if self._reads_plans():
                return cache
        return self._load()

    def _load(self) -> WarmCache | None:
        if not self._reads_plans():
            return None
        try:
            return WarmCache.load()
        except Exception:  # a cache is never worth failing a scan for
            log.warning("the warm-start cache could not be read", exc_info=True)
            return None

    def remembered(self, files: list[TranscriptFile], cache: WarmCache | None = None) -> Remembered | None:
        """What the warm-start cache (`cache`, else the one `cache()` gives) remembers of
        `files` (nothing with plans off), each entry checked when its file is read (a
        file whose entry is unfit is read from scratch, which marks the cache behind)."""
        if not self._reads_plans():
            return None
        if cache is None:
            cache = self.cache()
            if cache is None:
                return None
        found = Remembered(cache, {item.path: item.harness for item in files})
        if cache.count_under(self._roots()) > len(found):
            self._state.cache_behind = True  # it remembers files that are gone: drop them
        return found

    def save(self) -> None:
        """Write the warm-start cache when it is behind (never with plans off)."""
        state = self._state
        # The IO lock keeps every reader and trace as it is while they are summarized;
        # the index's lock is held only to take the list of files and to look at the
        # privacy switch: summarizing 10,000 files takes tens of milliseconds, and the
        # app's UI thread takes that lock to list the sessions.
        with state.io_lock:
            with state.lock:
                if not self._reads_plans() or not state.cache_behind:
                    return
                state.cache_behind = False
                # What each file holds now, taken together (the privacy switch, turned
                # off, empties them under this lock alone).
                files = [
                    (path, file.file.harness, file.trace, file.reader, file.results)
                    for path, file in state.files.items()
                    # A file its reader found a problem in (pi's tree cut by a missing
                    # parent) is not remembered: read afresh, it says the problem each time.
                    if file.trace is not None and (file.reader is None or file.reader.problem is None)
                ]
            traces = [
                (path, harness, _with_summary(trace, reader, results))
                for path, harness, trace, reader, results in files
            ]
            with state.lock:
                if not self._reads_plans():
                    return  # turned off meanwhile: nothing is written (docs/privacy.md)
        try:
            warmcache.save(traces, self._roots())
        except Exception:
            log.warning("the warm-start cache could not be written", exc_info=True)

"""Looking back through a large transcript's skipped middle (docs/reading.md, Bounded reading).

- The plan recovery (`scan_backward`): when the tail holds no full list
  (`reader.is_full_list`), the bytes before it are scanned backwards, chunk by chunk, up
  to the window policy's bound, prefiltered on raw bytes by the reader's
  `full_list_needles` (else its `scan_needles`: the planning tool names). The latest
  full list that applied (its result is found after it and is not an error:
  `reader.full_list_result`, checked by `confirmed`) stops it; otherwise the scan covers
  the whole bound.
- Session facts that may sit anywhere (Claude titles: the last custom-title outranks
  everything): the skipped middle is looked through backwards with the reader's
  `middle_needles` until the reader wants nothing more (`look_back_for_facts`). Plan
  events are never taken from the middle this way.

Where the windows lie and what is replayed forward afterwards is lines.py's policy.
"""

from __future__ import annotations

import functools
import logging
import mmap
import os
from collections.abc import Callable

from planwatch.core.transcripts.linescan import Prefilter, fd_scan, wanted_lines
from planwatch.core.transcripts.needles import Needles
from planwatch.core.transcripts.reader import TranscriptReader

log = logging.getLogger(__name__)

# A session-fact line (a title record) longer than this is not read from the middle.
MAX_FACT_LINE = 1 << 20


def look_back_for_facts(
    fd: int,
    reader: TranscriptReader,
    lower: int,
    upper: int,
    chunk: int,
    lower_is_line_start: bool = True,
    record: Callable[[int, bytes], None] | None = None,
) -> None:
    """Hand `reader` the latest lines of the skipped [lower, upper) that hold one of its
    `middle_needles`, newest first, asking again after each (Titles may be anywhere in
    a file: docs/reading.md, Claude Code). `upper` is a line start; `lower` too when `lower_is_line_start`.

    The caller bounds it to `FACTS_BOUND` bytes before the replay, like the plan
    recovery: a title outranking what head and tail hold is found when it lies within
    that reach, and a multi-GB transcript is still never read whole. Cost: one backward
    pass of the needles (needles.py: about 0.15 ms per MB from the page cache with
    Hyperscan, 0.35 ms with re),
    memory bounded by `chunk`; it ends as soon as the reader wants nothing more (a
    custom-title found), and never runs when the tail held one."""
    try:
        needles = reader.middle_needles()
    except Exception:
        log.debug("middle_needles failed for %s", reader.path, exc_info=True)
        return
    if not needles or upper <= lower:
        return
    # The file mapped, not copied: the needles are searched in the page cache itself,
    # at the search engine's speed, and a hit's line is cut out of the same view.
    try:
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # cannot be mapped: read the pieces instead
        view = None
    try:
        _look_back(_Bytes(fd, view), reader, needles, lower, upper, chunk, lower_is_line_start, record)
    finally:
        if view is not None:
            view.close()


class _Bytes:
    """The file's bytes through a read-only map, or through pread when it has none."""

    def __init__(self, fd: int, view: mmap.mmap | None) -> None:
        self.fd = fd
        self.view = view

    def positions(self, needles: Needles, lo: int, hi: int) -> list[int]:
        """Every occurrence of `needles` inside [lo, hi), in order (`Needles.positions`)."""
        if self.view is not None:
            return needles.positions(self.view, lo, hi)
        return [lo + at for at in needles.positions(os.pread(self.fd, hi - lo, lo))]

    def line_start_before(self, pos: int, floor: int, floor_is_line_start: bool, chunk: int) -> int | None:
        if self.view is None:
            return line_start_before(self.fd, pos, floor, floor_is_line_start, chunk)
        nl = self.view.rfind(b"\n", floor, pos)
        if nl != -1:
            return nl + 1
        return floor if floor_is_line_start else None

    def line_end(self, pos: int, upper: int, bound: int) -> int | None:
        if self.view is None:
            return _line_end(self.fd, pos, upper, bound)
        nl = self.view.find(b"\n", pos, min(upper, pos + bound))
        return None if nl == -1 else nl + 1

    def read(self, start: int, end: int) -> bytes:
        return self.view[start:end] if self.view is not None else os.pread(self.fd, end - start, start)


def _look_back(
    data: _Bytes,
    reader: TranscriptReader,
    needles: tuple[bytes, ...],
    lower: int,
    upper: int,
    chunk: int,
    lower_is_line_start: bool,
    record: Callable[[int, bytes], None] | None,
) -> None:
    b = upper
    while needles and b > lower:
        hit = _last_needle(data, needles, lower, max(lower, b - chunk), b, upper)
        if hit is None:
            b = max(lower, b - chunk)
            continue
        start = data.line_start_before(hit, lower, lower_is_line_start, chunk)
        end = data.line_end(hit, upper, MAX_FACT_LINE)
        if start is not None and end is not None and end - start <= MAX_FACT_LINE:
            line = data.read(start, end)
            if record is not None:  # the warm-start cache's trace: the offset it came from
                record(start, line)
            try:
                reader.feed_middle_line(line)
                needles = reader.middle_needles()
            except Exception:
                log.debug("a middle line of %s failed", reader.path, exc_info=True)
        b = hit if start is None else start


def _last_needle(data: _Bytes, needles: tuple[bytes, ...], lower: int, a: int, b: int, upper: int) -> int | None:
    """The last byte of the latest occurrence of one of `needles` whose last byte lies in
    [a, b); None when there is none. One pass for all needles at once (needles.py).
    Each piece looks `longest` bytes beyond its ends, so an occurrence across a piece's
    edge is found whole, and counted by the one piece holding its last byte."""
    found = _needles_of(needles)
    if not found.needles:
        return None
    last = None
    for at in data.positions(found, max(lower, a - found.longest), min(upper, b + found.longest)):
        if at >= b:
            break  # counted by the piece above this one
        if at >= a:
            last = at
    return last


@functools.lru_cache(maxsize=16)
def _needles_of(needles: tuple[bytes, ...]) -> Needles:
    return Needles(needles)


def _line_end(fd: int, pos: int, upper: int, bound: int) -> int | None:
    """The offset just after the newline ending the line holding `pos` (None when it
    is not found within `bound` bytes or before `upper`)."""
    at = pos
    while at < upper and at - pos < bound:
        data = os.pread(fd, min(1 << 16, upper - at), at)
        if not data:
            return None
        nl = data.find(b"\n")
        if nl != -1:
            return at + nl + 1
        at += len(data)
    return None


def is_full(reader: TranscriptReader, line: bytes) -> bool:
    try:
        return bool(reader.is_full_list(line))
    except Exception:
        log.debug("is_full_list failed on a line of %s", reader.path, exc_info=True)
        return False


def confirmed(
    fd: int, reader: TranscriptReader, offset: int, line: bytes, size: int, chunk: int, max_line: int
) -> bool:
    """Whether the full list on `line` (at `offset`) applied: the later lines holding
    its result needles are handed to the reader until it gives a verdict. A refused call
    (error result) or one with no result in the file changes nothing (docs/reading.md), so the
    recovery must not stop at it. Costs a forward read up to the result, which follows
    its call closely; ACP updates need no result."""
    try:
        needles = tuple(reader.full_list_result_needles(line))
        if not needles:
            return True
        found = _needles_of(needles)
        if not found.needles:
            return True
        test = Prefilter.matching(found)
        start = offset + len(line) + 1
        later = fd_scan(fd, start, test, limit=size, chunk=chunk, max_line=max_line)
        for _offset, result in later:
            verdict = reader.full_list_result(line, result)
            if verdict is not None:
                return verdict
    except Exception:
        log.debug("confirming a full list of %s failed", reader.path, exc_info=True)
    return False


def next_line_start(fd: int, pos: int, size: int, chunk: int) -> int:
    """The first line start at or after `pos` (size when there is none)."""
    if pos <= 0:
        return 0
    at = pos - 1  # the line starts at pos when the byte before it is a newline
    while at < size:
        data = os.pread(fd, chunk, at)
        if not data:
            break
        nl = data.find(b"\n")
        if nl != -1:
            return at + nl + 1
        at += len(data)
    return size


def line_start_before(fd: int, pos: int, floor: int, floor_is_line_start: bool, chunk: int) -> int | None:
    """The start of the line holding byte `pos - 1`, searching back no further than
    `floor`; None when that line begins before the bound."""
    at = pos
    while at > floor:
        lo = max(floor, at - chunk)
        data = os.pread(fd, at - lo, lo)
        nl = data.rfind(b"\n")
        if nl != -1:
            return lo + nl + 1
        at = lo
    return floor if floor_is_line_start else None


def scan_backward(
    fd: int,
    reader: TranscriptReader,
    locate: Prefilter,
    lower: int,
    lower_is_line_start: bool,
    upper: int,
    size: int,
    chunk: int,
    max_line: int,
) -> tuple[int | None, int]:
    """Scan [lower, upper) backwards, chunk by chunk, for the latest full list that
    applied (`confirmed`: a refused or unanswered one is passed over).

    Returns its offset (None when there is none within the bound) and the lowest line
    start the scan covered, where a replay without a full list begins.
    """
    b = upper  # always a line start
    while b > lower:
        a0 = max(lower, b - chunk)
        data = os.pread(fd, b - a0, a0)
        if a0 == lower and lower_is_line_start:
            a = a0
            candidates = list(wanted_lines(data, a0, locate))
        else:
            nl = data.find(b"\n")
            if nl != -1 and nl < len(data) - 1:
                a = a0 + nl + 1
                candidates = list(wanted_lines(data, a0, locate, nl + 1))
            else:
                # Inside a line longer than a chunk: find where it starts and stream it.
                start = line_start_before(fd, b - 1, lower, lower_is_line_start, chunk)
                if start is None:
                    break
                a = start
                scan = fd_scan(fd, a, locate, limit=b, chunk=chunk, max_line=max_line)
                candidates = list(scan)
        for offset, line in reversed(candidates):
            if is_full(reader, line) and confirmed(fd, reader, offset, line, size, chunk, max_line):
                return offset, offset
        b = a
    return None, b

"""Complete JSON lines out of raw bytes, prefiltered before they are split (docs/reading.md,
Bounded reading).

- A block of complete lines is tested as a whole by the reader's raw-byte prefilter;
  only the lines that pass are cut out and handed on.
- A line longer than a chunk is streamed: the prefilter looks at each piece (with
  `OVERLAP` bytes of the previous piece, so a needle across a boundary is still seen)
  and the line is never held. Only when it matches is it read back whole, up to
  `MAX_LINE` bytes (longer matching lines are skipped and counted).
  Bound: a non-matching line of any length costs at most about 2 × CHUNK + OVERLAP
  bytes of memory; a matching line costs its own length (≤ MAX_LINE, also checked on
  whole reads). A line still without its newline after MAX_LINE bytes ends the scan there,
  as an unfinished last line does (logged): a last line that never ends (a 20 GB one) is
  read no further than the bound, and what follows a finished line that long is not read.
- The last line without its newline is not read: every scan reports the offset just
  after the last complete line, where the follower resumes.

Locating wanted lines: for readers that keep the contract's `wants` (reader.py), a block
of complete lines is searched in one pass for the reader's compiled `pattern` and its
`dynamic_needles()` together, earliest hit first; only the line around each hit is cut
out (`_located`). The dynamic needles are asked for again after each line is fed, so a
call's result is found once the call is held. Any other `wants` is tested line by line.

IO relies on one property of `wants`: it is a substring-style test, so a block of lines
(or a piece of a long line) passes whenever any of its lines passes. Positive needle
tests have it; a reader must never add an "and not" test.

Which regions of a file are scanned is the window policy's choice (lines.py).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from planwatch.core.transcripts.needles import Needles
from planwatch.core.transcripts.reader import TranscriptReader

log = logging.getLogger(__name__)

CHUNK = 1 << 20  # bytes read at once
OVERLAP = 4096  # bytes of a long line's previous piece re-tested with the next one
MAX_LINE = 256 << 20  # a matching line longer than this is skipped (and counted)

Wants = Callable[[bytes], bool]


class Stream(Protocol):
    def read(self, n: int, /) -> bytes: ...


Pread = Callable[[int, int, int], bytes]  # os.pread's (fd, n, offset) -> bytes


class PreadStream:
    """A sequential view of a file descriptor from an offset, without moving a shared
    file position (several scans may use one descriptor). `pread`: how bytes are read
    (os.pread, or a region already read: lines.Prefetched)."""

    def __init__(self, fd: int, pos: int, pread: Pread = os.pread) -> None:
        self._fd = fd
        self._pread = pread
        self.pos = pos

    def read(self, n: int) -> bytes:
        data = self._pread(self._fd, n, self.pos)
        self.pos += len(data)
        return data


@dataclass
class Prefilter:
    """The test applied to raw bytes before any line is parsed.

    With `one_pass` (every reader that keeps the contract's `wants`), wanted lines are
    located in a block by searching it for `pattern` and the `dynamic` needles, earliest
    hit first, without splitting it: one pass over the bytes for all needles. Otherwise
    (a reader with its own `wants`) the block is split and `wants`
    tested per line.
    """

    wants: Wants
    pattern: Needles | None = None
    dynamic: Callable[[], Sequence[bytes]] = lambda: ()
    one_pass: bool = False
    # Lines this matches are dropped after the cut (the privacy switch: with plan
    # reading off, lines naming a planning tool are never parsed).
    exclude: Needles | None = None
    # An excluded line is still a record: its time is handed on here (the reader's
    # `touch_line`, which reads the time from the raw bytes and parses nothing).
    touch: Callable[[bytes], object] | None = None
    # The pattern's hits already found in a block (that very object, every hit in it):
    # a file read whole is searched once for both the anchor (lines.py) and the scan.
    known: tuple[bytes, list[int]] | None = None

    @classmethod
    def of(cls, reader: TranscriptReader, *, plans: bool = True) -> Prefilter:
        exclude = None if plans else reader.scan_pattern
        touch = None if plans else reader.touch_line
        if type(reader).wants is TranscriptReader.wants:
            return cls(reader.wants, reader.pattern, reader.dynamic_needles, True, exclude, touch)
        return cls(reader.wants, exclude=exclude, touch=touch)

    @classmethod
    def backward(cls, reader: TranscriptReader, forward: Prefilter) -> Prefilter:
        """The backward scan's test: the lines that may state a full list (the reader's
        `full_list_needles`, else its `scan_needles`), since `wants` may depend on state
        built in transcript order."""
        pattern = reader.full_list_pattern or reader.scan_pattern
        if pattern is None:
            return forward
        return cls.matching(pattern, forward.exclude)

    @classmethod
    def matching(cls, pattern: Needles, exclude: Needles | None = None) -> Prefilter:
        """The lines holding one of `pattern`'s needles, located in one pass."""
        return cls(pattern.occurs, pattern, lambda: (), True, exclude)


def _strip(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


def wanted_lines(
    block: bytes, base: int, prefilter: Prefilter, begin: int = 0, end: int | None = None
) -> Iterator[tuple[int, bytes]]:
    """The lines of `block[begin:end]` (complete lines, each ending in a newline) that
    pass the prefilter, in order, with their absolute offsets (`base` is the offset of
    `block[0]`).

    The consumer must feed each line to the reader before asking for the next: the
    reader's dynamic needles are read again after every line."""
    if end is None:
        end = len(block)
    lines = (
        _located(block, base, prefilter, begin, end)
        if prefilter.one_pass
        else _tested(block, base, prefilter.wants, begin, end)
    )
    exclude = prefilter.exclude
    if exclude is None:
        yield from lines
        return
    touch = prefilter.touch
    for offset, line in lines:
        if not exclude.occurs(line):
            yield offset, line
        elif touch is not None:
            touch(line)


def _located(block: bytes, base: int, prefilter: Prefilter, pos: int, end: int) -> Iterator[tuple[int, bytes]]:
    """One pass: the earliest hit of the pattern or of any dynamic needle, its line cut
    out, then on after that line.

    What each search learnt is kept, so every byte is searched about once per needle:
    the pattern's next hit, and for each dynamic needle either where it was found or how
    far it is known to be absent. A dynamic needle is searched only up to the earliest
    hit known so far (a needle that never occurs costs nothing past the next hit)."""
    # Every hit of the pattern in one search of the block (a search stopped at each
    # first hit cost more in starting and stopping than in searching: ~6 per small file).
    # No needle holds a newline and `pos` starts a line, so the first hit at or after a
    # line's start is that line's first hit, as a search from there would find.
    known = prefilter.known
    if known is not None and known[0] is block:
        hits = known[1]  # every hit in the block: those before `pos` or past `end` are passed over
    else:
        hits = prefilter.pattern.positions(block, pos, end) if prefilter.pattern is not None else []
    next_hit = 0
    dynamic = prefilter.dynamic
    find = block.find
    static_hit = -1  # the pattern's earliest hit at or after `pos` (`end`: none)
    found: dict[bytes, int] = {}  # a dynamic needle's next known start
    clear: dict[bytes, int] = {}  # no start of that needle before this offset
    while pos < end:
        if static_hit < pos:
            while next_hit < len(hits) and hits[next_hit] < pos:
                next_hit += 1
            static_hit = hits[next_hit] if next_hit < len(hits) else end
        hit = static_hit
        for needle in dynamic():
            at = found.get(needle, -1)
            if at >= pos:
                if at < hit:
                    hit = at
                continue
            lo = clear.get(needle, pos)
            if lo < pos:
                lo = pos
            if lo >= hit:
                continue
            # Starts in [lo, hit): the needle may run past `hit`.
            at = find(needle, lo, min(end, hit + len(needle) - 1))
            if at == -1:
                clear[needle] = hit
            else:
                found[needle] = hit = at
        if hit >= end:
            return
        start = block.rfind(b"\n", pos, hit) + 1 or pos
        stop = find(b"\n", hit, end)
        if stop == -1:
            stop = end
        yield base + start, _strip(block[start:stop])
        pos = stop + 1


def _tested(block: bytes, base: int, wants: Wants, pos: int, end: int) -> Iterator[tuple[int, bytes]]:
    """Every non-blank line that `wants` passes, tested one by one (in order, so a
    stateful `wants` sees the lines fed before)."""
    find = block.find
    while pos < end:
        stop = find(b"\n", pos, end)
        if stop == -1:
            stop = end
        line = _strip(block[pos:stop])
        if line.strip() and wants(line):
            yield base + pos, line
        pos = stop + 1


class LineScan:
    """Iterate the wanted complete lines of a stream from `start` as (offset, line).

    `limit`: only lines that *start* before it are read (a line crossing it is read to
    its end). After iteration, `offset` is where the next unread line starts: the end of
    the last complete line, never inside a partial last line.
    """

    def __init__(
        self,
        stream: Stream,
        start: int,
        prefilter: Prefilter,
        *,
        reread: Callable[[int, int], bytes],
        limit: int | None = None,
        chunk: int = CHUNK,
        max_line: int = MAX_LINE,
    ) -> None:
        self._stream = stream
        self._prefilter = prefilter
        self._reread = reread
        self._limit = limit
        self._chunk = chunk
        self._max_line = max_line
        self.offset = start
        self.long_lines_skipped = 0

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        limit = self._limit
        carry = b""  # the current partial line; it starts at self.offset
        pending = b""  # bytes already read that follow a long line
        while limit is None or self.offset < limit:
            data = pending or self._stream.read(self._chunk)
            pending = b""
            if not data:
                return  # a partial last line waits for its newline
            buf = carry + data if carry else data
            cut = buf.rfind(b"\n")
            if cut == -1:
                carry = buf
                if len(carry) > self._chunk:
                    carry = b""
                    rest = yield from self._long_line(buf)
                    if rest is None:
                        return
                    pending = rest
                continue
            # The complete lines are buf[:cut + 1]; they are searched in place (no copy).
            carry = buf[cut + 1 :]
            base = self.offset
            if limit is not None and base + cut + 1 > limit:
                end = buf.find(b"\n", max(0, limit - base - 1)) + 1
                yield from self._bounded(wanted_lines(buf, base, self._prefilter, 0, end))
                self.offset = base + end
                return
            yield from self._bounded(wanted_lines(buf, base, self._prefilter, 0, cut + 1))
            self.offset = base + cut + 1

    def _bounded(self, lines: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, bytes]]:
        """Lines over `max_line` are skipped and counted here too, when a large read
        holds a line that a chunked read would have streamed."""
        max_line = self._max_line
        for offset, line in lines:
            if len(line) > max_line:
                self.long_lines_skipped += 1
                log.warning("skipped a %d-byte line at offset %d (over the line bound)", len(line), offset)
                continue
            yield offset, line

    def _long_line(self, head: bytes) -> Generator[tuple[int, bytes], None, bytes | None]:
        """Stream a line longer than a chunk without holding it; returns the bytes read
        past its newline, or None at end of stream (the line is incomplete)."""
        wants = self._prefilter.wants
        start = self.offset
        matched = wants(head)
        tail = head[-OVERLAP:]
        length = len(head)
        while True:
            if length > self._max_line:
                # Past the line bound with no newline yet: this line is skipped whatever
                # follows, and one that never ends (a 20 GB last line) would be read to
                # the end of the file. Stop here, as at an unfinished last line.
                self.long_lines_skipped += 1
                log.warning(
                    "stopped reading a line of more than %d bytes at offset %d with no end in sight (over the line bound)",
                    self._max_line,
                    start,
                )
                return None
            data = self._stream.read(self._chunk)
            if not data:
                return None
            nl = data.find(b"\n")
            piece = data if nl == -1 else data[:nl]
            if not matched:
                matched = wants(tail + piece)
            tail = (tail + piece)[-OVERLAP:]
            length += len(piece)
            if nl == -1:
                continue
            if matched:
                if length > self._max_line:
                    self.long_lines_skipped += 1
                    log.warning("skipped a %d-byte line at offset %d (over the line bound)", length, start)
                else:
                    line = _strip(self._reread(start, length))
                    exclude = self._prefilter.exclude
                    excluded = exclude is not None and exclude.occurs(line)
                    if wants(line) and not excluded:  # confirmed on the whole line
                        yield start, line
            self.offset = start + length + 1
            return data[nl + 1 :] or b""


def fd_scan(
    fd: int,
    start: int,
    prefilter: Prefilter,
    *,
    limit: int | None = None,
    chunk: int,
    max_line: int,
    pread: Pread = os.pread,
) -> LineScan:
    """A `LineScan` of a file descriptor from `start` (pread: no shared file position)."""
    return LineScan(
        PreadStream(fd, start, pread),
        start,
        prefilter,
        reread=lambda off, n: pread(fd, n, off),
        limit=limit,
        chunk=chunk,
        max_line=max_line,
    )

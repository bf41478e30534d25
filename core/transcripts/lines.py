"""Bounded reading of complete JSON lines from transcript bytes (SPEC §2 Long transcripts).

A transcript may be gigabytes and a single line tens of MB (a base64 image, a large
diff). This module decides *which* lines a reader sees, and keeps memory bounded:

- A region up to `WHOLE_READ` bytes (every file under the head + tail windows) is read
  in one call; larger ones in chunks of `CHUNK` bytes. The reader's raw-byte prefilter
  is applied to a whole block of complete lines *before* it is split; only the lines
  that pass are cut out and handed on (FORMATS general rules).
- A line longer than a chunk is streamed: the prefilter looks at each piece (with
  `OVERLAP` bytes of the previous piece, so a needle across a boundary is still seen)
  and the line is never held. Only when it matches is it read back whole, up to
  `MAX_LINE` bytes (longer matching lines are skipped and counted).
  Bound: a region read in one call costs its size (≤ WHOLE_READ); otherwise a
  non-matching line of any length costs at most about 2 × CHUNK + OVERLAP bytes; a
  matching line costs its own length (≤ MAX_LINE, also checked on whole reads).
- The last line without its newline is not read: every scan reports the offset just
  after the last complete line, where the follower resumes.
- Large files: a head window (`HEAD_WINDOW`) and a tail window (`TAIL_WINDOW`). When the
  middle was skipped and the tail holds no full list (`reader.is_full_list`), a backward
  scan from the tail runs up to `BACKWARD_BOUND` bytes, prefiltered on raw bytes by the
  reader's `full_list_needles` (else its `scan_needles`: the planning tool names).
  The latest full list that applied (its result is found after it and is not an
  error: `reader.full_list_result`) stops it; otherwise the scan covers the whole
  bound. The replay then reads *forward* from that full list (or from the bound) to the
  end with the reader's own prefilter, so calls meet their results in transcript order.
  When bytes between the head and the replay were skipped, `reader.note_gap()` tells
  the replay, which marks plans not restated by a later full list as partial.
  Cost: the replay region is read twice (backward to locate, forward to replay).
- Session facts that may sit anywhere (Claude titles: the last custom-title outranks
  everything): after the replay, the skipped middle is looked through backwards with
  the reader's `middle_needles`, up to `FACTS_BOUND` bytes, until the reader wants
  nothing more (`_look_back_for_facts`). Plan events are never taken from the middle
  this way.
- A large append while the app runs is read the same way, with no head window.
- `.jsonl.zst` (idle Codex rollouts) are decompressed as a stream, read whole, memory
  bounded the same way; a plain `.jsonl` beside a `.jsonl.zst` wins (discover.py).

Locating wanted lines: for readers that keep the contract's `wants` (reader.py), a block
of complete lines is searched in one pass for the reader's compiled `pattern` and its
`dynamic_needles()` together, earliest hit first; only the line around each hit is cut
out (`_located`). The dynamic needles are asked for again after each line is fed, so a
call's result is found once the call is held. Any other `wants` is tested line by line.

IO relies on one property of `wants`: it is a substring-style test, so a block of lines
(or a piece of a long line) passes whenever any of its lines passes. Positive needle
tests have it; a reader must never add an "and not" test.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.transcripts.reader import TranscriptReader, needle_pattern

log = logging.getLogger(__name__)

CHUNK = 1 << 20  # bytes read at once
OVERLAP = 4096  # bytes of a long line's previous piece re-tested with the next one
MAX_LINE = 256 << 20  # a matching line longer than this is skipped (and counted)
WHOLE_READ = 16 << 20  # a region up to this size is read in one call, not in chunks
HEAD_WINDOW = 2 << 20
TAIL_WINDOW = 8 << 20
BACKWARD_BOUND = 64 << 20
# How far before the replay the skipped middle is looked through for session facts
# (titles): the same reach as the plan recovery.
FACTS_BOUND = BACKWARD_BOUND

Wants = Callable[[bytes], bool]


class _Stream(Protocol):
    def read(self, n: int, /) -> bytes: ...


class _PreadStream:
    """A sequential view of a file descriptor from an offset, without moving a shared
    file position (several scans may use one descriptor)."""

    def __init__(self, fd: int, pos: int) -> None:
        self._fd = fd
        self.pos = pos

    def read(self, n: int) -> bytes:
        data = os.pread(self._fd, n, self.pos)
        self.pos += len(data)
        return data


@dataclass
class Prefilter:
    """The test applied to raw bytes before any line is parsed.

    With `one_pass` (every reader that keeps the contract's `wants`), wanted lines are
    located in a block by searching it for `pattern` and the `dynamic` needles, earliest
    hit first, without splitting it: one pass over the bytes for all needles. Otherwise
    (a reader with its own `wants`, or `everything`) the block is split and `wants`
    tested per line.
    """

    wants: Wants
    pattern: re.Pattern[bytes] | None = None
    dynamic: Callable[[], Sequence[bytes]] = lambda: ()
    one_pass: bool = False
    # Lines this matches are dropped after the cut (the privacy switch: with plan
    # reading off, lines naming a planning tool are never parsed).
    exclude: re.Pattern[bytes] | None = None

    @classmethod
    def of(cls, reader: TranscriptReader, *, plans: bool = True) -> Prefilter:
        exclude = None if plans else reader.scan_pattern
        if type(reader).wants is TranscriptReader.wants:
            return cls(reader.wants, reader.pattern, reader.dynamic_needles, True, exclude)
        return cls(reader.wants, exclude=exclude)

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
    def matching(cls, pattern: re.Pattern[bytes], exclude: re.Pattern[bytes] | None = None) -> Prefilter:
        """The lines `pattern` matches, located in one pass."""
        search = pattern.search
        return cls(lambda data: search(data) is not None, pattern, lambda: (), True, exclude)

    @classmethod
    def everything(cls) -> Prefilter:
        return cls(lambda _data: True)


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
    lines = _located(block, base, prefilter, begin, end) if prefilter.one_pass else _tested(block, base, prefilter.wants, begin, end)
    exclude = prefilter.exclude
    if exclude is None:
        yield from lines
        return
    for offset, line in lines:
        if exclude.search(line) is None:
            yield offset, line


def _located(block: bytes, base: int, prefilter: Prefilter, pos: int, end: int) -> Iterator[tuple[int, bytes]]:
    """One pass: the earliest hit of the pattern or of any dynamic needle, its line cut
    out, then on after that line.

    What each search learnt is kept, so every byte is searched about once per needle:
    the pattern's next hit, and for each dynamic needle either where it was found or how
    far it is known to be absent. A dynamic needle is searched only up to the earliest
    hit known so far (a needle that never occurs costs nothing past the next hit)."""
    search = prefilter.pattern.search if prefilter.pattern is not None else None
    dynamic = prefilter.dynamic
    find = block.find
    static_hit = -1  # the pattern's earliest hit at or after `pos` (`end`: none)
    found: dict[bytes, int] = {}  # a dynamic needle's next known start
    clear: dict[bytes, int] = {}  # no start of that needle before this offset
    while pos < end:
        if static_hit < pos:
            match = search(block, pos, end) if search is not None else None
            static_hit = match.start() if match is not None else end
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
        stream: _Stream,
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
                    excluded = exclude is not None and exclude.search(line) is not None
                    if wants(line) and not excluded:  # confirmed on the whole line
                        yield start, line
            self.offset = start + length + 1
            return data[nl + 1 :] or b""


def _fd_scan(
    fd: int, start: int, prefilter: Prefilter, *, limit: int | None = None, chunk: int, max_line: int
) -> LineScan:
    """A `LineScan` of a file descriptor from `start` (pread: no shared file position)."""
    return LineScan(
        _PreadStream(fd, start), start, prefilter,
        reread=lambda off, n: os.pread(fd, n, off), limit=limit, chunk=chunk, max_line=max_line,
    )


@dataclass
class ReadOutcome:
    """What one read of a transcript did."""

    offset: int  # where the follower resumes: just after the last complete line
    skipped_middle: bool = False  # head + tail windows were used
    backward_scanned: int = 0  # bytes the backward scan covered
    found_full_list: bool = False  # the recovery stopped at a full list
    partial: bool = False  # the recovery found no full list and did not cover the middle
    long_lines_skipped: int = 0
    errors: int = 0  # lines the reader raised on (counted, not fatal)


class _Feeder:
    def __init__(self, reader: TranscriptReader, outcome: ReadOutcome) -> None:
        self.reader = reader
        self.outcome = outcome

    def __call__(self, line: bytes) -> None:
        try:
            self.reader.feed_line(line)
        except Exception:  # a reader's bug on odd input must not stop the index
            self.outcome.errors += 1
            log.debug("reader failed on a line of %s", self.reader.path, exc_info=True)


def _zst_stream(path: Path) -> _Stream:
    import zstandard

    fh = path.open("rb")
    return zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)


def _zst_reread(path: Path) -> Callable[[int, int], bytes]:
    """Read decompressed bytes [offset, offset + n) by decompressing again from the start
    (only for long lines that match, which are rare)."""

    def reread(offset: int, n: int) -> bytes:
        stream = _zst_stream(path)
        try:
            skip = offset
            while skip:
                got = stream.read(min(CHUNK, skip))
                if not got:
                    return b""
                skip -= len(got)
            parts: list[bytes] = []
            while n:
                got = stream.read(min(CHUNK, n))
                if not got:
                    break
                parts.append(got)
                n -= len(got)
            return b"".join(parts)
        finally:
            stream.close()  # type: ignore[attr-defined]

    return reread


def is_zst(path: Path) -> bool:
    return path.name.endswith(".zst")


def scan_file(
    path: Path,
    prefilter: Prefilter,
    start: int = 0,
    *,
    chunk: int = CHUNK,
    max_line: int = MAX_LINE,
) -> tuple[list[tuple[int, bytes]], int]:
    """Every wanted complete line of a file from `start`, and the resume offset.

    A convenience for small reads (appends, sniffing, tests): the lines are returned as a
    list, so use `read_transcript` for whole transcripts.
    """
    if is_zst(path):
        stream: _Stream = _zst_stream(path)
        try:
            scan = LineScan(stream, 0, prefilter, reread=_zst_reread(path), chunk=chunk, max_line=max_line)
            return list(scan), scan.offset
        finally:
            stream.close()  # type: ignore[attr-defined]
    fd = os.open(path, os.O_RDONLY)
    try:
        scan = _fd_scan(fd, start, prefilter, chunk=chunk, max_line=max_line)
        return list(scan), scan.offset
    finally:
        os.close(fd)


def read_transcript(
    reader: TranscriptReader,
    path: Path,
    start: int = 0,
    *,
    head: int = HEAD_WINDOW,
    tail: int = TAIL_WINDOW,
    bound: int = BACKWARD_BOUND,
    chunk: int = CHUNK,
    max_line: int = MAX_LINE,
    prefilter: Prefilter | None = None,
    plans: bool = True,
) -> ReadOutcome:
    """Feed `reader` the wanted lines of `path` from `start` (a line start), bounded.

    `start` > 0 reads an append (pass head=0: an append has no head of its own). Bytes
    up to head + tail + chunk are read whole; beyond that the head and tail windows and
    the backward scan apply (module docstring). `plans` False never hands the reader a
    line naming a planning tool (the privacy switch): only session facts are read.
    """
    prefilter = prefilter or Prefilter.of(reader, plans=plans)
    outcome = ReadOutcome(offset=start)
    feed = _Feeder(reader, outcome)
    if is_zst(path):
        stream = _zst_stream(path)
        try:
            scan = LineScan(stream, 0, prefilter, reread=_zst_reread(path), chunk=chunk, max_line=max_line)
            for _offset, line in scan:
                feed(line)
            outcome.offset = scan.offset
            outcome.long_lines_skipped = scan.long_lines_skipped
        finally:
            stream.close()  # type: ignore[attr-defined]
        return outcome

    fd = os.open(path, os.O_RDONLY)
    try:
        return _read_plain(fd, reader, prefilter, feed, outcome, start, head, tail, bound, chunk, max_line)
    finally:
        os.close(fd)


def _read_plain(
    fd: int,
    reader: TranscriptReader,
    prefilter: Prefilter,
    feed: _Feeder,
    outcome: ReadOutcome,
    start: int,
    head: int,
    tail: int,
    bound: int,
    chunk: int,
    max_line: int,
) -> ReadOutcome:
    size = os.fstat(fd).st_size

    def scan(begin: int, test: Prefilter, limit: int | None = None) -> LineScan:
        # A region that fits in WHOLE_READ is read in one call: no chunk joins.
        region = (size if limit is None else min(size, limit)) - begin
        step = max(chunk, region + 1) if region < WHOLE_READ else chunk
        return _fd_scan(fd, begin, test, limit=limit, chunk=step, max_line=max_line)

    def feed_from(begin: int) -> None:
        rest = scan(begin, prefilter)
        for _offset, line in rest:
            feed(line)
        outcome.offset = rest.offset
        outcome.long_lines_skipped += rest.long_lines_skipped

    if size - start <= head + tail + chunk:
        feed_from(start)
        return outcome

    head_end = start
    if head > 0:
        head_scan = scan(start, prefilter, limit=start + head)
        for _offset, line in head_scan:
            feed(line)
        head_end = head_scan.offset
        outcome.long_lines_skipped += head_scan.long_lines_skipped

    tail_start = max(head_end, _next_line_start(fd, size - tail, size, chunk))
    if tail_start <= head_end:
        feed_from(head_end)
        return outcome
    outcome.skipped_middle = True
    # Only full lists are looked for here, so the static planning-tool needles suffice;
    # the replay itself reads forward with the reader's own `wants`, in order.
    locate = Prefilter.backward(reader, prefilter)
    tail_full = any(
        _is_full(reader, line) and _confirmed(fd, reader, offset, line, size, chunk, max_line)
        for offset, line in scan(tail_start, locate)
    )
    replay_from = tail_start
    if not tail_full:
        lower = max(head_end, tail_start - bound)
        found, covered = _scan_backward(fd, reader, locate, lower, lower == head_end, tail_start, size, chunk, max_line)
        outcome.found_full_list = found is not None
        replay_from = found if found is not None else covered
        outcome.backward_scanned = tail_start - replay_from
        outcome.partial = found is None and covered > head_end
    if replay_from > head_end:
        # Bytes between the head and the replay were never read: the replay marks plans
        # not restated by a later full list as partial (PlanGroup.partial).
        try:
            reader.note_gap()
        except Exception:
            log.debug("note_gap failed for %s", reader.path, exc_info=True)
    feed_from(replay_from)
    if replay_from > head_end:
        lower = max(head_end, replay_from - FACTS_BOUND)
        _look_back_for_facts(fd, reader, lower, replay_from, chunk, lower == head_end)
    return outcome


# A session-fact line (a title record) longer than this is not read from the middle.
MAX_FACT_LINE = 1 << 20


def _look_back_for_facts(
    fd: int, reader: TranscriptReader, lower: int, upper: int, chunk: int, lower_is_line_start: bool = True
) -> None:
    """Hand `reader` the latest lines of the skipped [lower, upper) that hold one of its
    `middle_needles`, newest first, asking again after each (Titles may be anywhere in
    a file: FORMATS §1). `upper` is a line start; `lower` too when `lower_is_line_start`.

    The caller bounds it to `FACTS_BOUND` bytes before the replay, like the plan
    recovery: a title outranking what head and tail hold is found when it lies within
    that reach, and a multi-GB transcript is still never read whole. Cost: one backward
    pass of the needles' compiled pattern (about 0.7 ms per MB from the page cache),
    memory bounded by `chunk`; it ends as soon as the reader wants nothing more (a
    custom-title found), and never runs when the tail held one."""
    try:
        needles = reader.middle_needles()
    except Exception:
        log.debug("middle_needles failed for %s", reader.path, exc_info=True)
        return
    b = upper
    while needles and b > lower:
        hit = _last_needle(fd, needles, lower, max(lower, b - chunk), b, upper)
        if hit is None:
            b = max(lower, b - chunk)
            continue
        start = _line_start_before(fd, hit, lower, lower_is_line_start, chunk)
        end = _line_end(fd, hit, upper, MAX_FACT_LINE)
        if start is not None and end is not None and end - start <= MAX_FACT_LINE:
            try:
                reader.feed_middle_line(os.pread(fd, end - start, start))
                needles = reader.middle_needles()
            except Exception:
                log.debug("a middle line of %s failed", reader.path, exc_info=True)
        b = hit if start is None else start


def _last_needle(fd: int, needles: tuple[bytes, ...], lower: int, a: int, b: int, upper: int) -> int | None:
    """A byte inside the latest occurrence of one of `needles` whose match starts in
    [a, b); None when there is none. One pass of the needles' compiled trie
    (`needle_pattern`), about twice as fast as one `rfind` per needle."""
    pattern = _pattern_of(needles)
    if pattern is None:
        return None
    longest = max(len(n) for n in needles)
    base = max(lower, a - longest)  # bytes before `a`: the pattern looks behind its anchor
    data = os.pread(fd, min(upper, b + longest) - base, base)
    last = None
    for match in pattern.finditer(data, a - base, b - base + longest):
        if match.start() >= b - base:
            break  # counted by the piece above this one
        last = match.start()
    return None if last is None else base + last


@functools.lru_cache(maxsize=16)
def _pattern_of(needles: tuple[bytes, ...]) -> re.Pattern[bytes] | None:
    return needle_pattern(needles)


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


def _is_full(reader: TranscriptReader, line: bytes) -> bool:
    try:
        return bool(reader.is_full_list(line))
    except Exception:
        log.debug("is_full_list failed on a line of %s", reader.path, exc_info=True)
        return False


def _confirmed(fd: int, reader: TranscriptReader, offset: int, line: bytes, size: int, chunk: int, max_line: int) -> bool:
    """Whether the full list on `line` (at `offset`) applied: the later lines holding
    its result needles are handed to the reader until it gives a verdict. A refused call
    (error result) or one with no result in the file changes nothing (SPEC §2), so the
    recovery must not stop at it. Costs a forward read up to the result, which follows
    its call closely; ACP updates need no result."""
    try:
        needles = tuple(reader.full_list_result_needles(line))
        if not needles:
            return True
        pattern = _pattern_of(needles)
        if pattern is None:
            return True
        test = Prefilter.matching(pattern)
        start = offset + len(line) + 1
        later = _fd_scan(fd, start, test, limit=size, chunk=chunk, max_line=max_line)
        for _offset, result in later:
            verdict = reader.full_list_result(line, result)
            if verdict is not None:
                return verdict
    except Exception:
        log.debug("confirming a full list of %s failed", reader.path, exc_info=True)
    return False


def _next_line_start(fd: int, pos: int, size: int, chunk: int) -> int:
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


def _line_start_before(fd: int, pos: int, floor: int, floor_is_line_start: bool, chunk: int) -> int | None:
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


def _scan_backward(
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
    applied (`_confirmed`: a refused or unanswered one is passed over).

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
                start = _line_start_before(fd, b - 1, lower, lower_is_line_start, chunk)
                if start is None:
                    break
                a = start
                scan = _fd_scan(fd, a, locate, limit=b, chunk=chunk, max_line=max_line)
                candidates = list(scan)
        for offset, line in reversed(candidates):
            if _is_full(reader, line) and _confirmed(fd, reader, offset, line, size, chunk, max_line):
                return offset, offset
        b = a
    return None, b

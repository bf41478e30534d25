"""Which bytes of a transcript are read, bounded (docs/reading.md, Bounded reading): the window
policy over the line scan (linescan.py) and the backward scan (backward.py).

- A region up to `WHOLE_READ` bytes (every file under the head + tail windows) is read
  in one call; larger ones in chunks of `CHUNK` bytes (linescan.py). Bound: a region
  read in one call costs its size (≤ WHOLE_READ).
- Large files: a head window (`HEAD_WINDOW`) and a tail window (`TAIL_WINDOW`). When the
  middle was skipped and the tail holds no full list, a backward scan from the tail runs
  up to `BACKWARD_BOUND` bytes (backward.py). The replay then reads *forward* from that
  full list (or from the bound) to the end with the reader's own prefilter, so calls
  meet their results in transcript order. When bytes between the head and the replay
  were skipped, `reader.note_gap()` tells the replay, which marks plans not restated by
  a later full list as partial.
  Cost: the replay region is read twice (backward to locate, forward to replay).
- Session facts (titles): after the replay, the skipped middle is looked through
  backwards up to `FACTS_BOUND` bytes (backward.look_back_for_facts).
- A large append while the app runs is read the same way, with no head window.
- `.jsonl.zst` (idle Codex rollouts) are decompressed as a stream and read whole
  (zst.py).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from planwatch.core.regular_files import open_regular, open_regular_stat
from planwatch.core.transcripts.backward import (
    confirmed,
    is_full,
    line_start_before,
    look_back_for_facts,
    next_line_start,
    scan_backward,
)
from planwatch.core.transcripts.discover import is_whole_document
from planwatch.core.transcripts.filemark import mark_at
from planwatch.core.transcripts.linescan import CHUNK, MAX_LINE, LineScan, Prefilter, Stream, fd_scan
from planwatch.core.transcripts.reader import TranscriptReader, load_json_line
from planwatch.core.transcripts.superseded import Superseding, Unproven, line_around
from planwatch.core.transcripts.warmcache import FACT, LINE, WHEN
from planwatch.core.transcripts.zst import is_zst, zst_reread, zst_stream

if TYPE_CHECKING:
    from planwatch.core.transcripts.warmcache import Trace

log = logging.getLogger(__name__)

WHOLE_READ = 16 << 20  # a region up to this size is read in one call, not in chunks
HEAD_WINDOW = 2 << 20
TAIL_WINDOW = 8 << 20
BACKWARD_BOUND = 64 << 20
# A transcript rewritten whole (Gemini CLI's legacy .json) larger than this is named and
# not read: parsing one takes ~8x its size in memory (243 MB took 1.9 GB).
MAX_DOCUMENT = 64 << 20
# How far before the replay the skipped middle is looked through for session facts
# (titles): the same reach as the plan recovery.
FACTS_BOUND = BACKWARD_BOUND


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
    # The file's mark at `offset`, from the bytes read (filemark.py); None: not taken (a
    # compressed rollout, a whole document: no append offset).
    mark: int | None = None


class _Feeder:
    def __init__(self, reader: TranscriptReader, outcome: ReadOutcome, trace: Trace | None = None) -> None:
        self.reader = reader
        self.outcome = outcome
        self.trace = trace
        # Before `anchor`, a line holding a full-list needle may be skipped as superseded
        # (superseded.py): `data` is the file read whole, `group` the anchor's group.
        self.anchor = 0
        self.anchor_group = ""
        self.anchored = False  # an anchor was set: the read must prove it (`read_done`)
        self.list_needles: tuple[bytes, ...] = ()
        self.data = b""
        self.max_line = MAX_LINE
        # The reader's fact state after the line fed last: nothing but this feeder
        # changes a reader's facts while one read runs (the scans between two lines
        # only ask the reader, never feed it), so it is the state before the next.
        self._state: tuple[object, object] | None = None

    def __call__(self, offset: int, line: bytes) -> None:
        if self.anchor:
            reader = self.reader
            assert isinstance(reader, Superseding)
            reader._at = offset
            if offset >= self.anchor:
                self.anchor = 0
                reader.anchor_reached(self.anchor_group)
            elif any(needle in line for needle in self.list_needles):
                try:
                    if reader.skip_superseded(line, offset + len(line), self.data, self.anchor, self.max_line):
                        return
                except Unproven:
                    raise
                except Exception as exc:  # what the full read makes of it, it decides
                    raise Unproven("a superseded line failed") from exc
        trace = self.trace
        if trace is None:
            self._feed(line)
            return
        # The trace tags the line by what feeding it changed (warmcache FACT, WHEN,
        # LINE): a start that needs only the facts re-reads the fact lines alone.
        facts, when = self._state if self._state is not None else self.reader.fact_state()
        self._feed(line)
        self._state = facts_after, when_after = self.reader.fact_state()
        trace.line(offset, line, FACT if facts_after != facts else WHEN if when_after != when else LINE)

    def _feed(self, line: bytes) -> None:
        try:
            self.reader.feed_line(line)
        except Unproven:
            raise
        except Exception:  # a reader's bug on odd input must not stop the index
            self.outcome.errors += 1
            log.debug("reader failed on a line of %s", self.reader.path, exc_info=True)


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
    plans: bool = True,
    trace: Trace | None = None,
) -> ReadOutcome:
    """Feed `reader` the wanted lines of `path` from `start` (a line start), bounded.

    `start` > 0 reads an append (pass head=0: an append has no head of its own). Bytes
    up to head + tail + chunk are read whole; beyond that the head and tail windows and
    the backward scan apply (module docstring). `plans` False never hands the reader a
    line naming a planning tool (the privacy switch): only session facts are read.
    `trace` (plain files only) is told what the reader is fed, as offsets, and the
    file's identity (the warm-start cache, warmcache.py).
    """
    prefilter = Prefilter.of(reader, plans=plans)
    outcome = ReadOutcome(offset=start)
    whole = is_whole_document(path)
    feed = _Feeder(reader, outcome, None if is_zst(path) or whole else trace)
    if whole:
        return _read_document(reader, path, outcome, max_line, plans)
    if is_zst(path):
        stream = _TailKept(zst_stream(path))
        try:
            scan = LineScan(stream, 0, prefilter, reread=zst_reread(path), chunk=chunk, max_line=max_line)
            for offset, line in scan:
                feed(offset, line)
            outcome.offset = scan.offset
            outcome.long_lines_skipped = scan.long_lines_skipped
            # The last record's time, from the decompressed bytes kept at the end (a
            # compressed rollout cannot be read back cheaply): activity, as for plain files.
            unread = stream.read_bytes - scan.offset  # a partial last line: no record yet
            _touch_in(stream.tail[: max(0, len(stream.tail) - unread)], reader)
        finally:
            stream.close()
        return outcome

    # A FIFO named like a transcript is refused, never waited on; the descriptor is only
    # `pread` (and mapped), so it is left non-blocking (a regular file never blocks) and
    # the `fstat` made to check it is the file's stat: two calls a file fewer.
    fd, st = open_regular_stat(path, blocking=False)
    try:
        # What is read whole is read once: its first lines (leading garbage), its lines
        # and its last record's time come from the one read (Prefetched).
        region = st.st_size - start
        fetched = Prefetched(fd, start, region + 1) if region <= head + tail + chunk and region < WHOLE_READ else None
        if (
            SUPERSEDE
            and start == 0
            and fetched is not None
            and isinstance(reader, Superseding)
            and reader.can_supersede()
        ):
            prefilter = _anchored(reader, prefilter, feed, fetched, max_line)
        try:
            if start == 0:
                _feed_leading_garbage(fd, prefilter, feed, fetched)
            _read_plain(fd, st, reader, prefilter, feed, outcome, start, head, tail, bound, chunk, max_line, fetched)
            if feed.anchored:
                assert isinstance(reader, Superseding)
                if feed.anchor:
                    raise Unproven("the anchor's line was not fed")
                reader.read_done()
                # A skipped line's time could only have moved the last activity, which
                # the last record's time sets: it must have one.
                timed = _touch_last_records(fd, reader, start, outcome.offset, trace, fetched)
                if reader.skipped_any and not timed:
                    raise Unproven("no last record's time")
        except Unproven:
            # The skipped lines may have mattered: the file again from its start, whole.
            assert isinstance(reader, Superseding)
            log.debug("%s: read again whole", path, exc_info=True)
            reader.restart()
            outcome = ReadOutcome(offset=start)
            feed = _Feeder(reader, outcome, trace)
            if trace is not None:
                trace.ops.clear()
            prefilter = Prefilter.of(reader, plans=plans)
            _feed_leading_garbage(fd, prefilter, feed, fetched)
            _read_plain(fd, st, reader, prefilter, feed, outcome, start, head, tail, bound, chunk, max_line, fetched)
            feed.anchored = False
        if not feed.anchored:
            _touch_last_records(fd, reader, start, outcome.offset, trace, fetched)
        # From the bytes read where they cover it (a small file read whole: no read more).
        outcome.mark = mark_at(fd, outcome.offset, fetched.pread if fetched is not None else os.pread)
    finally:
        os.close(fd)
        reader._decoded = None  # an anchor looked at and not fed: kept with the reader otherwise
    if trace is not None:
        trace.offset = outcome.offset
    return outcome


# A file read whole skips the lines a later full list superseded (superseded.py); off,
# every line is fed (the tests compare both).
SUPERSEDE = True
# How many of a file's last full lists are tried as its anchor before it is read whole.
ANCHOR_TRIES = 3


def _anchored(
    reader: Superseding, prefilter: Prefilter, feed: _Feeder, fetched: Prefetched, max_line: int
) -> Prefilter:
    """Find, from the end of a file read whole, the last full list that took effect (the
    latest non-empty one whose call is answered later: the read proves the rest), and
    have the lines before it skipped where superseded (superseded.py). The byte search
    of the whole file is made here once and handed to the forward scan
    (`Prefilter.known`)."""
    data = fetched.data
    pattern = prefilter.pattern
    if pattern is None or not prefilter.one_pass or prefilter.exclude is not None:
        return prefilter
    hits = pattern.positions(data)
    known = Prefilter(
        prefilter.wants, pattern, prefilter.dynamic, True, prefilter.exclude, prefilter.touch, (data, hits)
    )
    tries = 0
    line_start = len(data)
    for hit in reversed(hits):
        if hit >= line_start:
            continue  # another hit on a line already looked at
        span = line_around(data, hit)
        line_start = data.rfind(b"\n", 0, hit) + 1
        if span is None or span[1] - span[0] > max_line:
            continue  # not read (no newline yet, or over the line bound)
        try:
            found = reader.anchor(data[span[0] : span[1]])
        except Exception:
            log.debug("looking for the anchor of %s failed", feed.reader.path, exc_info=True)
            break
        if found is None:
            continue
        group, answers = found
        if all(data.find(needle, span[1]) != -1 for needle in answers):
            if span[0] > 0:
                feed.anchor, feed.anchor_group, feed.anchored = span[0], group, True
                feed.list_needles = tuple(type(feed.reader).full_list_needles)
                feed.data, feed.max_line = data, max_line
            break
        tries += 1
        if tries >= ANCHOR_TRIES:
            break
    return known


def _read_document(
    reader: TranscriptReader, path: Path, outcome: ReadOutcome, max_line: int, plans: bool
) -> ReadOutcome:
    """A transcript rewritten whole: read at once (up to `max_line` bytes, like one long
    line) and handed to the reader in one piece. It has no append offset: 0."""
    outcome.offset = 0
    bound = min(max_line, MAX_DOCUMENT)
    with os.fdopen(open_regular(path), "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > bound:  # said, never read: parsed whole, it would take ~8x its size in memory
            outcome.long_lines_skipped += 1
            log.warning(
                "%s: a session document of %d bytes is larger than %d bytes: not read (no title or plan from it)",
                path,
                size,
                bound,
            )
            return outcome
        data = fh.read(bound + 1)
    if len(data) > bound:
        outcome.long_lines_skipped += 1
        log.warning("%s: a session document larger than %d bytes: not read (no title or plan from it)", path, bound)
        return outcome
    try:
        reader.feed_document(data, plans=plans)
    except Exception:  # a reader's bug on odd input must not stop the index
        outcome.errors += 1
        log.debug("reader failed on %s", path, exc_info=True)
    return outcome


class Prefetched:
    """A region of a file read in one call, [base, base + len(data)): reads that fall
    inside it are served from those bytes (the whole region as the same object, no
    copy), reads past it from the file (bytes appended since; when the one read met the
    end of the file, a read from there finds that end, as of that read). A small file
    read whole costs one read, not three (its first lines for leading garbage, its
    lines, its last record's time: 64 KB each end of every file read twice before)."""

    def __init__(self, fd: int, base: int, n: int) -> None:
        self.base = base
        self.data = os.pread(fd, n, base)
        self.short = len(self.data) < n  # it reached the end of the file as it was then

    def covers(self, lo: int, hi: int) -> bool:
        return self.base <= lo and hi <= self.base + len(self.data)

    def pread(self, fd: int, n: int, pos: int) -> bytes:
        data = self.data
        lo = pos - self.base
        if lo < 0 or lo > len(data):
            return os.pread(fd, n, pos)
        if lo + n <= len(data):
            return data[lo : lo + n]
        if self.short:  # what was the end of the file: a read as of the fetch
            return data[lo:]
        return data[lo:] + os.pread(fd, lo + n - len(data), self.base + len(data))


# How far into a file the lines before its first record are looked at.
LEADING_BOUND = 64 << 10


def _feed_leading_garbage(fd: int, prefilter: Prefilter, feed: _Feeder, fetched: Prefetched | None = None) -> None:
    """Lines that open a file before its first record and are not JSON (another tool's
    output, a truncated write) are handed to the reader, which counts each as a skipped
    line: the prefilter, finding none of the reader's needles in them, would pass over
    them unseen, and the person would not be told that a file read as a transcript
    opened with garbage. Fed through `feed`, so the warm-start cache replays them and
    the count holds there too. Bounded by `LEADING_BOUND` bytes; a line the prefilter
    passes (or the privacy switch excludes) is left to the scan."""
    if fetched is not None and fetched.base == 0:
        data = fetched.data  # looked at up to LEADING_BOUND only, as a read of that many
    else:
        data = os.pread(fd, LEADING_BOUND, 0)
    begin = 0
    while (end := data.find(b"\n", begin, LEADING_BOUND)) != -1:
        line = data[begin : end - 1] if data[end - 1 : end] == b"\r" else data[begin:end]
        at, begin = begin, end + 1
        if not line.strip():
            continue
        if line.lstrip()[:1] in (b"{", b"["):
            try:
                load_json_line(line)
                return  # the first record: what follows is the scan's
            except (ValueError, UnicodeDecodeError, RecursionError):
                pass
        excluded = prefilter.exclude is not None and prefilter.exclude.occurs(line)
        if not excluded and not prefilter.wants(line):
            feed(at, line)


# How far back from the end of what was read IO looks for the last record's time.
LAST_RECORD_WINDOW = 1 << 16
# How long the line cut by that window may be to be read whole for its time, when no
# line of the window gave one: a record of tens of MB (a tool result holding a whole
# file or an image) is rare, and read only then.
LAST_RECORD_REACH = 32 << 20


def _touch_last_records(
    fd: int,
    reader: TranscriptReader,
    start: int,
    end: int,
    trace: Trace | None = None,
    fetched: Prefetched | None = None,
) -> bool:
    """Activity is the last record's time, whatever the record holds (chat, a tool call,
    a plan call the privacy switch keeps from the reader): the last lines of [start,
    end) are handed to `reader.touch_line`, newest first, until one gives a time. Only
    the time is taken, from the raw bytes; nothing is parsed. The last
    `LAST_RECORD_WINDOW` bytes, then, when none of their lines gave a time, the line
    that window cut (or the one ending just before it), read whole up to
    `LAST_RECORD_REACH`: a Claude Code tool result writes its time before a large
    `toolUseResult`, and the records after it carry none. `trace` keeps the line that
    gave the time, so a warm start touches it again. True when a line gave it."""
    if end <= start:
        return False
    low = max(start, end - LAST_RECORD_WINDOW)
    try:
        if fetched is not None and fetched.covers(low, end):
            base = fetched.base
            found = _touch_in(fetched.data, reader, low - base, end - base)
        else:
            base = low
            data = os.pread(fd, end - low, low)
            found = _touch_in(data, reader)
        if found is not None:
            found = (base + found[0], found[1])
        elif low > start:
            found = _touch_cut_line(fd, reader, start, low, end, fetched)
        if found is not None and trace is not None:
            trace.touch(found[0], found[1])
        return found is not None
    except Exception:
        log.debug("reading the last record's time of %s failed", reader.path, exc_info=True)
        return False


def _touch_cut_line(
    fd: int, reader: TranscriptReader, start: int, low: int, end: int, fetched: Prefetched | None
) -> tuple[int, bytes] | None:
    """The line holding byte `low - 1` (cut by a window starting at `low`, or ending just
    before it), read whole when it starts within `LAST_RECORD_REACH` of `end` and
    handed to `reader.touch_line`: (where it starts, the line) when it gave a time. From
    the bytes read already when the file was read whole, else from the file."""
    floor = max(start, end - LAST_RECORD_REACH)
    if fetched is not None and fetched.covers(floor, end):
        data, base = fetched.data, fetched.base
        newline = data.rfind(b"\n", floor - base, low - 1 - base)
        if newline < 0 and floor > start:
            return None  # it begins before the reach
        first = newline + 1 if newline >= 0 else floor - base
        if data[low - 1 - base : low - base] == b"\n":
            last = low - 1 - base
        else:
            newline = data.find(b"\n", low - base, end - base)
            last = newline if newline >= 0 else end - base
        line = bytes(data[first:last])
        return (base + first, line) if line.strip() and reader.touch_line(line) else None
    ends_before = os.pread(fd, 1, low - 1) == b"\n"
    stop = low - 1 if ends_before else low
    at = line_start_before(fd, stop, floor, floor == start, LAST_RECORD_WINDOW)
    if at is None or at >= stop:
        return None
    if ends_before:
        last = low - 1
    else:
        rest = os.pread(fd, min(end, low + LAST_RECORD_WINDOW) - low, low)
        newline = rest.find(b"\n")
        last = low + newline if newline >= 0 else low + len(rest)
    line = os.pread(fd, last - at, at)
    if len(line) == last - at and line.strip() and reader.touch_line(line):
        return at, line
    return None


def _touch_in(data: bytes, reader: TranscriptReader, lo: int = 0, hi: int | None = None) -> tuple[int, bytes] | None:
    """Hand the lines of `data[lo:hi]` (complete lines, the last one's newline optional)
    to `reader.touch_line`, newest first, until one gives a time; that line and where
    it starts in `data`, or None."""
    stop = len(data) if hi is None else hi
    while stop > lo:
        at = data.rfind(b"\n", lo, stop - 1)
        begin = at + 1 if at >= 0 else lo
        line = data[begin : stop - 1] if data[stop - 1 : stop] == b"\n" else data[begin:stop]
        if line.strip() and reader.touch_line(line):
            return begin, line
        stop = begin
    return None


class _TailKept:
    """A stream that keeps the last `LAST_RECORD_WINDOW` bytes it handed out."""

    def __init__(self, stream: Stream) -> None:
        self._stream = stream
        self.tail = b""
        self.read_bytes = 0

    def read(self, n: int, /) -> bytes:
        data = self._stream.read(n)
        self.read_bytes += len(data)
        self.tail = (self.tail + data)[-LAST_RECORD_WINDOW:]
        return data

    def close(self) -> None:
        self._stream.close()  # type: ignore[attr-defined]


def _read_plain(
    fd: int,
    st: os.stat_result,
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
    fetched: Prefetched | None = None,
) -> ReadOutcome:
    size = st.st_size
    pread = fetched.pread if fetched is not None else os.pread
    trace = feed.trace
    if trace is not None:
        trace.seen(st)

    def scan(begin: int, test: Prefilter, limit: int | None = None) -> LineScan:
        # A region that fits in WHOLE_READ is read in one call: no chunk joins.
        region = (size if limit is None else min(size, limit)) - begin
        step = max(chunk, region + 1) if region < WHOLE_READ else chunk
        return fd_scan(fd, begin, test, limit=limit, chunk=step, max_line=max_line, pread=pread)

    def feed_from(begin: int) -> None:
        rest = scan(begin, prefilter)
        for offset, line in rest:
            feed(offset, line)
        outcome.offset = rest.offset
        outcome.long_lines_skipped += rest.long_lines_skipped

    if size - start <= head + tail + chunk:
        feed_from(start)
        return outcome

    head_end = start
    if head > 0:
        head_scan = scan(start, prefilter, limit=start + head)
        for offset, line in head_scan:
            feed(offset, line)
        head_end = head_scan.offset
        outcome.long_lines_skipped += head_scan.long_lines_skipped

    tail_start = max(head_end, next_line_start(fd, size - tail, size, chunk))
    if tail_start <= head_end:
        feed_from(head_end)
        return outcome
    outcome.skipped_middle = True
    # Only full lists are looked for here, so the static planning-tool needles suffice;
    # the replay itself reads forward with the reader's own `wants`, in order.
    locate = Prefilter.backward(reader, prefilter)
    tail_full = any(
        is_full(reader, line) and confirmed(fd, reader, offset, line, size, chunk, max_line)
        for offset, line in scan(tail_start, locate)
    )
    replay_from = tail_start
    if not tail_full:
        lower = max(head_end, tail_start - bound)
        found, covered = scan_backward(fd, reader, locate, lower, lower == head_end, tail_start, size, chunk, max_line)
        outcome.found_full_list = found is not None
        replay_from = found if found is not None else covered
        outcome.backward_scanned = tail_start - replay_from
        outcome.partial = found is None and covered > head_end
    if replay_from > head_end:
        # Bytes between the head and the replay were never read: the replay marks plans
        # not restated by a later full list as partial (PlanGroup.partial).
        if trace is not None:
            trace.gap()
        try:
            reader.note_gap()
        except Exception:
            log.debug("note_gap failed for %s", reader.path, exc_info=True)
    feed_from(replay_from)
    if replay_from > head_end:
        lower = max(head_end, replay_from - FACTS_BOUND)
        record = trace.middle if trace is not None else None
        look_back_for_facts(fd, reader, lower, replay_from, chunk, lower == head_end, record)
    return outcome

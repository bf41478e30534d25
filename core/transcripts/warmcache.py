"""The warm-start index: what lets the next start skip reading a transcript, holding no
text (docs/privacy.md: caches hold offsets, ids and counts, never text).

Readers are deterministic: the same lines fed in the same order give the same state.
So while IO reads a file it keeps a `Trace` of what it handed the reader — the offset,
length and a short hash of each line fed (`feed_line`), of each line fed from the
skipped middle (`feed_middle_line`), of the line read for the last record's time
(`touch_line`), and each gap (`note_gap`) — and the file's identity
(device, inode, size, mtime_ns) with the offset where reading resumes. Nothing else: no
titles, no plan text, no prompts, no path but the file's own (the cache's key).

Each line fed is tagged by what feeding it changed (IO compares the reader's
`fact_state()` before and after): FACT (an id, a folder, a branch, a title candidate,
lineage), WHEN (only the last activity) or LINE (neither: a plan line). Beside the
trace, the index keeps each file's text-free summary (warmsummary.py): per result a
CRC-32 of its facts, and per plan group its key (an id), its source and its items'
statuses (places in fixed tables) and partial flag — counts, enums and flags, no text.

On the next start (`replay`), a file whose identity still fits is not scanned: a fresh
reader is fed the same lines again, each re-read with `pread` at its offset and checked
against its hash, and only bytes appended since the resume offset are read as an append.
A start that shows only facts and counts (`planwatch sessions`: `summaries`) feeds an
unchanged file's fact lines alone (FACT and MIDDLE: most often a few lines at its head,
one `pread`) and takes its last activity (a number) and its plans from the summary —
items holding a status and no text — when the facts the reader gives hash as
remembered; otherwise the whole trace is replayed. The app, `show`
and following always replay whole.
- same inode, same size, same mtime: replay only;
- same inode, grown: replay, then read from the resume offset (the live follower's
  append read);
- anything else (another inode or device, shrunk, the same size with another mtime, a
  line whose bytes no longer match its hash): read from scratch.

A file's identity holds its ctime too: a transcript rewritten in place with its size
kept and its mtime put back has a new ctime (nobody can set it), so it is read again.
The cache file carries a keyed checksum (keyed BLAKE2b, `"mac"`) of all its other bytes,
made with a per-host secret (`warm-start.key`, 32 random bytes, 0600, in the state
folder): a cache edited or forged by hand (a summary's counts are shown without reading
the file) is ignored whole. Checking it costs ~6 ms on a 4.5 MB cache.

The cache is one JSON file in the XDG cache folder (`paths.cache_dir()`), written
atomically (a temporary file renamed over it) under an exclusive lock, merged with what
another process wrote meanwhile. It names its format and the planwatch code it was made
by (`code_stamp`: a hash of the reading code): any other
value, or a file that is not a valid cache, is ignored and replaced, never trusted. A
foreign or hand-made cache can do no more than a transcript can: every line it points at
is read from the transcript itself and checked against its hash.

Every harness whose transcripts are read as lines is covered by the one mechanism
(Claude, Codex, ACP logs, Gemini CLI's JSON Lines): the trace is taken by IO, not by
the readers. OpenCode's database is not read as lines: its reader hands over a
text-free `state` of its own (per session its `time_updated`, its todo rows' stamp and
count, and the ids of the parts holding its list and first prompt) and takes it back at
the next start, to read unchanged sessions' parts by id instead of searching them. Not cached, read whole at every start: `.jsonl.zst` rollouts (offsets in a
compressed stream cannot be re-read cheaply) and Gemini CLI's legacy whole-document
`.json` sessions (the document is all text).

With plan reading off, no cache is read or written (the index never asks).
"""

from __future__ import annotations

import contextlib
import os
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from planwatch.core import paths
from planwatch.core.logs import get_logger
from planwatch.core.regular_files import open_regular, open_regular_stat
from planwatch.core.signed import UNSIGNED_MAC, code_stamp, decoded, encoded, sign, signed
from planwatch.core.transcripts.reader import TranscriptReader
from planwatch.core.transcripts.warmsummary import Summary, checked_summary, summary_of_checked

if TYPE_CHECKING:
    from planwatch.core.transcripts.discover import TranscriptFile

log = get_logger(__name__)  # logging imported at the first record

# 3: CRC-32 line hashes; 4: fact lines tagged (FACT, WHEN), summaries; 5: code stamp by
# zlib; 6: ctime, keyed MAC; 7: a summary keeps each result's last activity.
FORMAT = 7
CACHE_NAME = "warm-start.json"
# Kinds of a trace's operations (four ints each: kind, offset, length, hash). TOUCH is
# a line read only for its time (`touch_line`: the last record's time). A line fed is
# LINE (it changed no fact: a plan line), FACT (feeding it changed the reader's facts:
# an id, the folder, a title candidate, ...) or WHEN (it changed only the last activity;
# the last WHEN of a trace gives the final one).
LINE, MIDDLE, GAP, TOUCH, FACT, WHEN = 0, 1, 2, 3, 4, 5
KINDS = (LINE, MIDDLE, GAP, TOUCH, FACT, WHEN)
# What a replay of the fact lines alone leaves out (`replay(..., facts_only=True)`).
_NOT_FACTS = frozenset((LINE, WHEN, TOUCH))
# A file whose trace grew past this many operations is left out of the cache (its
# replay would cost about what reading it does).
MAX_OPS = 200_000
# A cache file larger than this is not read (a foreign file, or one gone wrong).
MAX_CACHE_BYTES = 256 << 20

Identity = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns


def line_hash(data: bytes) -> int:
    """A short hash of a line's bytes (CRC-32, beside its length): tells a rewritten line
    from the one remembered. Not a defence against a forger — a line is only ever read
    from the transcript itself, so a forged match shows no more than the file holds —
    and about 4× as fast as blake2b over the ~16 MB a warm start re-reads."""
    return zlib.crc32(data)


def identity(st: os.stat_result) -> Identity:
    # ctime too: a file rewritten in place with its size kept and its mtime put back
    # (`touch -d`) still has a new ctime, which no one can set.
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass
class Trace:
    """What IO fed one reader, as offsets (module docstring); kept per followed file."""

    ops: list[int] = field(default_factory=list)
    ident: Identity | None = None  # the file as the last read saw it
    offset: int = 0  # where reading resumes
    # A reader that is not fed lines (OpenCode's database): its own text-free state
    # (`warm_state()`: ids, times, counts), handed back to it at the next start.
    state: dict[str, Any] | None = None
    # Per result of the file, text-free: what `sessions` shows of it (`summarize`).
    summary: Summary | None = None

    def line(self, offset: int, data: bytes, kind: int = LINE) -> None:
        self.ops += (kind, offset, len(data), line_hash(data))

    def middle(self, offset: int, data: bytes) -> None:
        self.ops += (MIDDLE, offset, len(data), line_hash(data))

    def gap(self) -> None:
        self.ops += (GAP, 0, 0, 0)

    def touch(self, offset: int, data: bytes) -> None:
        self.ops += (TOUCH, offset, len(data), line_hash(data))

    def seen(self, st: os.stat_result) -> None:
        self.ident = identity(st)

    def copy(self) -> Trace:
        return Trace(list(self.ops), self.ident, self.offset, self.state, self.summary)


@dataclass(frozen=True)
class Entry:
    """One file's remembered trace, as loaded from the cache."""

    harness: str
    ident: Identity
    offset: int
    ops: list[int]
    state: dict[str, Any] | None = None
    summary: Summary | None = None

    def trace(self) -> Trace:
        return Trace(list(self.ops), self.ident, self.offset, self.state, self.summary)


def replay(entry: Entry, reader: TranscriptReader, fd: int, *, facts_only: bool = False) -> bool:
    """Feed `reader` the remembered lines again from `fd`; False (the reader then holds
    a part of them: throw it away) as soon as one line's bytes no longer match.
    `facts_only`: only the lines that carry facts other than the last activity (FACT,
    MIDDLE), for a file whose identity is unchanged: the last activity is the summary's
    (`summary_results(..., times=True)`), so the last records read for their time alone
    (WHEN, TOUCH) are not read again; the reader's other facts come out as a full
    replay's would (the summary's hash checks), its plan does not."""
    ops = entry.ops
    skipped = _NOT_FACTS if facts_only else ()
    wanted = [i for i in range(0, len(ops), 4) if ops[i] not in skipped]
    spans = _spans(ops, wanted)
    span_start, span_data = -1, b""
    for i in wanted:
        kind, offset, length, digest = ops[i], ops[i + 1], ops[i + 2], ops[i + 3]
        if kind == GAP:
            try:
                reader.note_gap()
            except Exception:
                log.debug("note_gap failed for %s", reader.path, exc_info=True)
            continue
        span = spans.get(i)
        if span is not None:  # the first line of a run read in one call
            span_start, span_data = span[0], os.pread(fd, span[1] - span[0], span[0])
        if span_start <= offset and offset + length <= span_start + len(span_data):
            data = span_data[offset - span_start : offset - span_start + length]
        else:
            data = os.pread(fd, length, offset)
        if len(data) != length or line_hash(data) != digest:
            return False
        try:
            if kind in (LINE, FACT, WHEN):
                reader.feed_line(data)
            elif kind == TOUCH:
                reader.touch_line(data)
            else:
                reader.feed_middle_line(data)
        except Exception:  # as IO does: a reader's bug on odd input is not fatal
            log.debug("reader failed on a remembered line of %s", reader.path, exc_info=True)
    return True


# Lines a replay re-reads that lie closer than this are read in one call (a call costs
# about what copying this many more bytes does), in runs of at most COALESCE_SPAN bytes.
COALESCE_GAP = 16 << 10
COALESCE_SPAN = 256 << 10


def _spans(ops: list[int], wanted: list[int]) -> dict[int, tuple[int, int]]:
    """The runs of the `wanted` lines (op indices, in replay order) that lie close
    together and in order: the op that starts each run of two or more lines → the run's
    (start, end) in the file, read in one call."""
    spans: dict[int, tuple[int, int]] = {}
    first, start, end, count = -1, 0, 0, 0
    for i in wanted:
        if ops[i] == GAP:
            continue
        offset, length = ops[i + 1], ops[i + 2]
        if count and end <= offset <= end + COALESCE_GAP and offset + length - start <= COALESCE_SPAN:
            end, count = offset + length, count + 1
            continue
        if count > 1:
            spans[first] = (start, end)
        first, start, end, count = i, offset, offset + length, 1
    if count > 1:
        spans[first] = (start, end)
    return spans


# How a file seen now relates to its entry (`fits`): unchanged, or grown by appends.
Fit = Literal["same", "grown"]


def fits(entry: Entry, now: Identity) -> Fit | None:
    """How a file seen now relates to its entry: "same", "grown", or None (read it from
    scratch: replaced, shrunk, or rewritten in place)."""
    dev, ino, size, mtime, ctime = now
    old_dev, old_ino, old_size, old_mtime, old_ctime = entry.ident
    if (dev, ino) != (old_dev, old_ino) or size < entry.offset:
        return None
    if size == old_size and mtime == old_mtime and ctime == old_ctime:
        return "same"
    if size > old_size:
        return "grown"
    return None


# -- the cache file ------------------------------------------------------------------------


def cache_file() -> Path:
    return paths.cache_dir() / CACHE_NAME


_INT = frozenset((int,))
_KIND_SET = frozenset(KINDS)


def _valid_entry(raw: Any) -> Entry | None:
    if not (isinstance(raw, list) and len(raw) == 10 and isinstance(raw[0], str) and isinstance(raw[7], list)):
        return None
    harness, dev, ino, size, mtime, ctime, offset, ops, state, summary = raw
    if state is not None and not isinstance(state, dict):
        return None
    if summary is not None:
        summary = checked_summary(summary)  # None, not trusted: the whole trace is replayed
    numbers = (dev, ino, size, mtime, ctime, offset)
    if not _INT.issuperset(map(type, numbers)) or min(numbers) < 0 or offset > size:
        return None
    if len(ops) % 4 or len(ops) > 4 * MAX_OPS or not _INT.issuperset(map(type, ops)):
        return None
    if ops and (
        not _KIND_SET.issuperset(ops[0::4])
        or min(ops[1::4]) < 0
        or min(lengths := ops[2::4]) < 0
        or max(lengths) > size
    ):
        return None
    return Entry(harness, (dev, ino, size, mtime, ctime), offset, ops, state, summary)


class WarmCache:
    """The entries read from the cache file (empty when it is missing, broken, foreign,
    or made by other code)."""

    def __init__(self, entries: Mapping[str, Any] | None = None) -> None:
        self._raw: dict[str, Any] = dict(entries or {})

    @classmethod
    def load(cls, path: Path | None = None) -> WarmCache:
        path = path or cache_file()
        try:
            # Only a regular file, never through a symlink, never waited on (a FIFO).
            fd, st = open_regular_stat(path, follow=False)
        except OSError:
            return cls()
        try:
            if st.st_size > MAX_CACHE_BYTES:
                return cls()
            with os.fdopen(fd, "rb", closefd=False) as fh:
                raw = fh.read()
        except OSError:
            return cls()
        finally:
            os.close(fd)
        if not signed(raw):
            log.info("the warm-start cache %s is not signed with this host's key: ignored", path)
            return cls()
        try:
            doc = decoded(raw)
        except (ValueError, RecursionError):
            log.info("the warm-start cache %s is not valid JSON: ignored", path)
            return cls()
        if not (
            isinstance(doc, dict)
            and doc.get("format") == FORMAT
            and doc.get("code") == code_stamp()
            and isinstance(doc.get("files"), dict)
        ):
            log.info("the warm-start cache %s is of another format or version: ignored", path)
            return cls()
        return cls(doc["files"])

    def __len__(self) -> int:
        return len(self._raw)

    def count_under(self, roots: Iterable[Path]) -> int:
        """How many entries name a file under one of `roots` (or a root itself)."""
        under = _under(roots)
        return sum(1 for key in self._raw if under(key))

    def newest(self, roots: Iterable[Path], count: int) -> list[tuple[Path, str]]:
        """The `count` files under `roots` whose remembered last activity is the newest
        (a row without a summary's time: its remembered mtime), newest first, each with
        its harness: what a warm start reads before it has found every file. Rows are
        not checked here (`get` checks them); one that is not a row is passed over."""
        under = _under(roots)

        def when(row: Any) -> int:
            try:
                times = [result[2] for result in row[9] or () if type(result[2]) is int]
                return max(times) if times else int(row[4]) // 1000  # µs, as the summary's
            except (TypeError, IndexError, KeyError, ValueError):
                return -1

        rows = (
            (when(row), key, row[0])
            for key, row in self._raw.items()
            if under(key) and type(row) is list and len(row) == 10 and type(row[0]) is str
        )
        import heapq  # only a warm start's early pass picks rows

        return [(Path(key), harness) for stamp, key, harness in heapq.nlargest(count, rows) if stamp >= 0]

    def holds(self, path: Path) -> bool:
        """Whether the cache has a row under `path` (not checked: `get` checks it)."""
        return str(path) in self._raw

    def get(self, path: Path, harness: str) -> Entry | None:
        """The entry of `path` read by `harness`'s reader, when one is valid."""
        entry = _valid_entry(self._raw.get(str(path)))
        return entry if entry is not None and entry.harness == harness else None


class Remembered:
    """What the cache remembers of a scan's files, each entry checked (`WarmCache.get`)
    only when it is asked for: the files read first (the newest, the first screen) wait
    for their own entries, not for all of them. `path in` says the cache holds an
    entry under that path (it may still turn out unfit: `get` then gives None)."""

    def __init__(self, cache: WarmCache, harnesses: Mapping[Path, str]) -> None:
        self._cache = cache
        self._harnesses = {path: harness for path, harness in harnesses.items() if cache.holds(path)}
        self._checked: dict[Path, Entry | None] = {}

    def __contains__(self, path: object) -> bool:
        return path in self._harnesses

    def __len__(self) -> int:
        return len(self._harnesses)

    def __bool__(self) -> bool:
        return bool(self._harnesses)

    def get(self, path: Path) -> Entry | None:
        try:
            return self._checked[path]
        except KeyError:
            pass
        harness = self._harnesses.get(path)
        entry = None if harness is None else self._cache.get(path, harness)
        self._checked[path] = entry
        return entry

    def newest_first(self, files: Sequence[TranscriptFile]) -> list[TranscriptFile]:
        """`files` by the last activity remembered of each, newest first (a file the cache
        does not hold, or that changed since, by its mtime): a warm start reads the
        sessions a person sees first before the rest, whatever the files' mtimes say (a
        folder copied or restored gives every file one mtime). An order only: each
        entry is still checked when its file is read, so a row that is not a summary's
        numbers (or one that lies) changes nothing but when a file is read."""

        def when(item: TranscriptFile) -> float:
            raw = self._cache._raw.get(str(item.path)) if item.path in self._harnesses else None
            try:
                if raw[3] == item.size and abs(raw[4] / 1e9 - item.mtime) < 1e-3:  # type: ignore[index]
                    times = [result[2] for result in raw[9] if type(result[2]) is int]  # type: ignore[index]
                    if times:
                        return max(times) / 1e6
            except (TypeError, IndexError, KeyError, ValueError):
                pass  # not in the cache, or not a row: its mtime
            return item.mtime

        return sorted(files, key=when, reverse=True)

    def checked_elsewhere(self, path: Path) -> Entry | None:
        """The entry of `path` as a worker forked with this object found it fit (its
        copy of the same bytes, checked there by `get`): not checked again here."""
        raw = self._cache._raw.get(str(path))
        if raw is None:
            return None
        harness, dev, ino, size, mtime, ctime, offset, ops, state, summary = raw
        typed = None if summary is None else summary_of_checked(summary)
        return Entry(harness, (dev, ino, size, mtime, ctime), offset, ops, state, typed)


def _row(harness: str, trace: Trace) -> list[Any] | None:
    if trace.ident is None or len(trace.ops) > 4 * MAX_OPS or trace.offset > trace.ident[2]:
        return None
    return [harness, *trace.ident, trace.offset, trace.ops, trace.state, trace.summary]


def save(
    traces: Iterable[tuple[Path, str, Trace]],
    roots: Iterable[Path],
    path: Path | None = None,
) -> bool:
    """Write the traces of the files read under `roots` into the cache, keeping the
    entries another process wrote for files outside them (merged under a lock, written
    atomically). Entries under `roots` that are not in `traces` are dropped (those
    files are gone). Returns False when the cache could not be written (logged)."""
    from planwatch.core.atomic import PRIVATE_FILE_MODE, atomic_write  # a start that only reads never writes

    path = path or cache_file()
    ours: dict[str, Any] = {}
    for file, harness, trace in traces:
        row = _row(harness, trace)
        if row is not None:
            ours[str(file)] = row
    under = _under(Path(r) for r in roots)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.parent / (path.name + ".lock")):
            theirs = WarmCache.load(path)._raw
            merged = {key: row for key, row in theirs.items() if not under(key)}
            merged.update(ours)
            doc = {"format": FORMAT, "code": code_stamp(), "mac": UNSIGNED_MAC, "files": merged}
            atomic_write(path, sign(encoded(doc, len(merged))), mode=PRIVATE_FILE_MODE)
        return True
    except OSError as exc:
        log.info("cannot write the warm-start cache %s: %s", path, exc)
        return False


def _under(roots: Iterable[Path]) -> Callable[[str], bool]:
    """A test of a cache key (a path): is it one of `roots` or inside one?"""
    roots = list(roots)
    prefixes = tuple(str(root).rstrip(os.sep) + os.sep for root in roots)
    exact = {str(root) for root in roots}
    return lambda key: key in exact or key.startswith(prefixes)


@contextlib.contextmanager
def _locked(lock_path: Path) -> Any:
    fd = open_regular(lock_path, os.O_RDWR | os.O_CREAT, 0o600, follow=False)
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        except ImportError:  # no flock (Windows): the write is still atomic
            pass
        yield
    finally:
        os.close(fd)  # closing releases the lock

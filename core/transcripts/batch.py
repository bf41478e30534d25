"""Reading many transcripts at once, on more than one core (the index's first scan).

Reading one file is self-contained: a new reader, `read_transcript`, the reader's
results; nothing is shared. So a scan can hand part of its files to worker processes
while the calling thread reads the rest. A worker sends back the readers themselves
(pickled): the index keeps each one to follow its file.

- Files are grouped into chunks of about `CHUNK_WORK` bytes of reading. The calling
  thread takes chunks from the front of the list (the newest files, so they show
  first), the workers from the back.
- A worker is a plain `python -c` child of this process (`serve`), fed chunks and
  answering with reads over its stdin/stdout pipes, one pickle each way. Not
  multiprocessing: its "spawn" re-imports the caller's `__main__` in the child (a
  script calling `scan()` at top level would run again there), and "fork" is unsafe
  from a thread of a running app. The child's stderr goes nowhere (it would draw over
  the app): its log records come back with its answers and are logged here.
- When the scan runs on the main thread with no other thread alive (the command line),
  the workers are forked instead (`_fork_workers`), which is safe there: they start at
  once, every module already imported (a fresh interpreter's imports cost about what a
  worker saves on a small scan).
- Files the warm-start cache remembers (warmcache.py) are replayed first, in the
  calling thread: re-reading a few remembered lines is cheaper than starting a worker.
- Workers are started only when the scan has enough to read to pay for their start-up
  (`PARALLEL_MIN`), one fewer than the cores (at most `MAX_WORKERS`).
- Anything going wrong with a worker (it cannot start, dies, answers garbage) only
  means its chunks are read by the calling thread instead.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from planwatch.core.regular import open_regular
from planwatch.core.transcripts.discover import TranscriptFile, is_whole_document
from planwatch.core.transcripts.lines import HEAD_WINDOW, TAIL_WINDOW, read_transcript
from planwatch.core.transcripts.linescan import CHUNK
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.registry import reader_for
from planwatch.core.transcripts.warmcache import Entry, Trace, fits, identity, replay
from planwatch.core.transcripts.zst import is_zst

log = logging.getLogger(__name__)

CHUNK_WORK = 24 << 20  # bytes of reading per chunk handed out
CHUNK_FILES = 64  # and at most this many files per chunk
PARALLEL_MIN = 160 << 20  # less reading than this is done in the calling thread only
MAX_WORKERS = 3
# A file beyond the head + tail windows costs about the windows plus a backward scan.
_LARGE_COST = HEAD_WINDOW + 3 * TAIL_WINDOW


@dataclass
class FileRead:
    """One file read (from scratch, or replayed from the warm-start cache): what the
    index installs for it."""

    item: TranscriptFile
    reader: TranscriptReader | None = None
    results: list[SessionResult] = field(default_factory=list)
    offset: int = 0  # where following resumes (0 for .zst: never followed by offset)
    gone: bool = False  # vanished or unreadable: the index forgets the file
    failed: bool = False  # the reader failed: the index keeps what it had
    # What the reader was fed, as offsets (for the warm-start cache); None: not cached.
    trace: Trace | None = None
    warm: str | None = None  # "same" or "grown": replayed from the cache (warmcache.fits)


def read_file(item: TranscriptFile, read_plans: bool, remembered: Entry | None = None) -> FileRead:
    """Read one transcript: from what the warm-start cache remembers of it when that
    still fits the file (warmcache.py), else from scratch; never raises."""
    if item.harness == "opencode":
        return read_database(item, read_plans, remembered)
    try:
        reader = reader_for(item.harness)(item.path)
    except Exception:
        log.exception("no reader for %s", item.path)
        return FileRead(item, failed=True)
    # With plan reading off nothing is remembered (nothing is cached); a .zst has no
    # offsets to re-read cheaply, and a whole document (Gemini CLI before 0.60) is all
    # text: both are read whole every time.
    traced = read_plans and not is_zst(item.path) and not is_whole_document(item.path)
    try:
        if remembered is not None and traced:
            warm = _read_warm(item, reader, remembered)
            if warm is not None:
                return warm
            reader = reader_for(item.harness)(item.path)  # the replay's reader is spoilt
        trace = Trace() if traced else None
        outcome = read_transcript(reader, item.path, plans=read_plans, trace=trace)
        results = reader.results()
    except OSError as exc:  # vanished or unreadable: skip it, keep going
        log.info("cannot read %s: %s", item.path, exc)
        return FileRead(item, gone=True)
    except Exception:
        log.exception("failed to read %s", item.path)
        return FileRead(item, failed=True)
    offset = 0 if is_zst(item.path) else outcome.offset
    return FileRead(item, reader, results, offset, trace=trace)


def read_database(item: TranscriptFile, read_plans: bool, remembered: Entry | None = None) -> FileRead:
    """Read OpenCode's database (every session in it); never raises. A database that
    cannot be read gives no sessions and keeps its reader, whose `problem` says why,
    so that it is read again when it changes. With plans read, what the warm-start
    cache remembers of it lets unchanged sessions skip the search of their parts, and
    the reader's new text-free state is kept for the next start (warmcache.py)."""
    from planwatch.core.transcripts.opencode import OpenCodeReader, OpenCodeStorageReader

    if item.path.is_dir():
        reader: OpenCodeReader = OpenCodeStorageReader(item.path)
        return FileRead(item, reader, reader.read(plans=read_plans), 0)
    reader = OpenCodeReader(item.path)
    if not read_plans:
        return FileRead(item, reader, reader.read(plans=False), 0)
    results = reader.read(plans=True, remembered=remembered.state if remembered is not None else None)
    trace = None
    if reader.problem is None:
        try:
            trace = Trace(ident=identity(item.path.stat()), state=reader.warm_state())
        except OSError:
            trace = None
    same = remembered is not None and trace is not None and remembered.state == trace.state
    return FileRead(item, reader, results, 0, trace=trace, warm="same" if same else None)


def _read_warm(item: TranscriptFile, reader: TranscriptReader, remembered: Entry) -> FileRead | None:
    """`reader` fed what `remembered` points at, and then any bytes appended since; None
    when the file changed otherwise (warmcache.fits, a line's hash)."""
    fd = open_regular(item.path)
    try:
        st = os.fstat(fd)
        fit = fits(remembered, identity(st))
        if fit is None or not replay(remembered, reader, fd):
            return None
    finally:
        os.close(fd)
    trace = remembered.trace()
    if fit == "grown":
        read_transcript(reader, item.path, remembered.offset, head=0, trace=trace)
    else:
        trace.seen(st)
    return FileRead(item, reader, reader.results(), trace.offset, trace=trace, warm=fit)


def read_files(items: Sequence[TranscriptFile], read_plans: bool) -> list[FileRead]:
    """A worker's job: read a chunk of files from scratch."""
    return [read_file(item, read_plans) for item in items]


def _cost(item: TranscriptFile) -> int:
    if item.harness == "opencode":
        return CHUNK  # SQLite reads what the queries need, not the file
    whole = HEAD_WINDOW + TAIL_WINDOW + CHUNK  # what read_transcript reads whole
    return item.size if item.size <= whole else _LARGE_COST


def _chunks(items: Sequence[TranscriptFile]) -> list[list[TranscriptFile]]:
    chunks: list[list[TranscriptFile]] = []
    current: list[TranscriptFile] = []
    work = 0
    for item in items:
        current.append(item)
        work += _cost(item)
        if work >= CHUNK_WORK or len(current) >= CHUNK_FILES:
            chunks.append(current)
            current, work = [], 0
    if current:
        chunks.append(current)
    return chunks


def worker_count(items: Sequence[TranscriptFile]) -> int:
    """How many worker processes a scan of `items` is worth (0: read them here)."""
    spare = min(MAX_WORKERS, _cores() - 1)
    if spare < 1 or sum(_cost(item) for item in items) < PARALLEL_MIN:
        return 0
    return spare


def _cores() -> int:
    """The cores this process may run on (a container may allow fewer than it has)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def read_all(
    items: Sequence[TranscriptFile],
    read_plans: bool,
    workers: int | None = None,
    remembered: Mapping[Path, Entry] | None = None,
) -> Generator[list[FileRead], None, None]:
    """Read every file; yields the reads chunk by chunk as they are done. Files the
    warm-start cache remembers (`remembered`) come first, replayed in the calling
    thread (cheap); then the rest, the calling thread's chunks newest first, the
    workers' from the oldest end. Every item is read exactly once. Closing the
    iterator early (an exception in the consumer) stops the workers."""
    if remembered:
        warm = [item for item in items if item.path in remembered]
        for at in range(0, len(warm), CHUNK_FILES):
            yield [read_file(item, read_plans, remembered[item.path]) for item in warm[at : at + CHUNK_FILES]]
        items = [item for item in items if item.path not in remembered]
    chunks = deque(_chunks(items))
    if workers is None:
        workers = worker_count(items)
    if workers < 1 or len(chunks) < 2:
        for each in chunks:
            yield read_files(each, read_plans)
        return
    lock = threading.Lock()
    stopped = threading.Event()

    def take_back() -> list[TranscriptFile] | None:
        with lock:
            return None if stopped.is_set() or not chunks else chunks.pop()

    answers: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    count = min(workers, len(chunks) - 1)
    forked = _fork_workers(count)
    # Each worker's first chunk is handed out now, before this thread starts reading.
    drivers = [_Driver(read_plans, chunks.pop(), take_back, answers, forked[n] if forked else None) for n in range(count)]
    running = len(drivers)
    try:
        for driver in drivers:
            driver.start()
        while True:
            try:
                kind, value = answers.get_nowait() if chunks or not running else answers.get()
            except queue.Empty:
                kind, value = "", None
            if kind == "reads":
                yield value
                continue
            if kind == "failed":  # the worker's chunk comes back to this thread
                with lock:
                    chunks.appendleft(value)
                continue
            if kind == "exit":
                running -= 1
                continue
            with lock:
                chunk = chunks.popleft() if chunks else None
            if chunk is not None:
                yield read_files(chunk, read_plans)
            elif not running:
                return
    finally:
        stopped.set()
        for driver in drivers:
            driver.stop()


class _Driver(threading.Thread):
    """Feeds one worker process chunk after chunk and queues its answers."""

    def __init__(
        self,
        read_plans: bool,
        first: list[TranscriptFile],
        take: Callable[[], list[TranscriptFile] | None],
        answers: queue.SimpleQueue[tuple[str, Any]],
        forked: _Forked | None = None,
    ) -> None:
        super().__init__(name="planwatch-scan-worker", daemon=True)
        self._read_plans = read_plans
        self._first: list[TranscriptFile] | None = first
        self._take = take
        self._answers = answers
        self._lock = threading.Lock()  # guards _proc and _halted
        self._proc: subprocess.Popen[bytes] | _Forked | None = forked
        self._halted = False

    def run(self) -> None:
        chunk, self._first = self._first, None
        try:
            with self._lock:
                if self._halted:
                    return
                if self._proc is None:
                    self._proc = subprocess.Popen(
                        [sys.executable, "-c", _BOOT],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    )
                proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            while chunk is not None or (chunk := self._take()) is not None:
                if self._halted:
                    return
                pickle.dump((chunk, self._read_plans), proc.stdin, pickle.HIGHEST_PROTOCOL)
                proc.stdin.flush()
                reads, records = pickle.load(proc.stdout)
                _relog(records)
                if not isinstance(reads, list) or len(reads) != len(chunk):
                    raise ValueError("a scan worker answered with something else")
                self._answers.put(("reads", reads))
                chunk = None
        except Exception:
            if not self._halted:
                log.warning("a scan worker failed; its files are read in the calling thread", exc_info=True)
            if chunk is not None:
                self._answers.put(("failed", chunk))
        finally:
            self._close()
            self._answers.put(("exit", None))

    def stop(self) -> None:
        """End the worker now (called by the consumer once it is done or stops early:
        a chunk still being read is dropped)."""
        with self._lock:
            self._halted = True
        self._close()

    def _close(self) -> None:
        with self._lock:
            proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()  # a worker ends when its stdin does
        if self._halted and proc.poll() is None:
            proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None and threading.current_thread() is self:  # its reader
            with contextlib.suppress(OSError, ValueError):
                proc.stdout.close()


class _Forked:
    """A worker forked from this process (it has every module imported already): the
    part of `subprocess.Popen` a driver uses."""

    def __init__(self, pid: int, stdin: IO[bytes], stdout: IO[bytes]) -> None:
        self.pid = pid
        self.stdin: IO[bytes] | None = stdin
        self.stdout: IO[bytes] | None = stdout
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"scan worker {self.pid}", timeout or 0)
            time.sleep(0.005)
        assert self.returncode is not None
        return self.returncode


def _fork_workers(count: int) -> list[_Forked]:
    """`count` workers forked from this process when that is safe — on the main thread
    with no other thread running (the command line's scan) — else none (the app scans
    on a thread: its workers are started afresh, `_BOOT`). A forked worker starts at
    once: no interpreter start, no imports."""
    if (
        count < 1
        or not hasattr(os, "fork")
        or threading.current_thread() is not threading.main_thread()
        or threading.active_count() != 1
    ):
        return []
    forked: list[_Forked] = []
    ours: list[int] = []  # the parent's ends of earlier workers' pipes: closed in each child
    try:
        for _ in range(count):
            chunks_r, chunks_w = os.pipe()
            answers_r, answers_w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker
                try:
                    for fd in (chunks_w, answers_r, *ours):
                        os.close(fd)
                    quiet = os.open(os.devnull, os.O_RDWR)
                    for fd in (0, 1, 2):  # nothing it prints reaches the caller's terminal or pipe
                        os.dup2(quiet, fd)
                    serve(os.fdopen(chunks_r, "rb"), os.fdopen(answers_w, "wb"))
                finally:
                    os._exit(0)  # never the caller's exit handlers or buffered output
            os.close(chunks_r)
            os.close(answers_w)
            ours += [chunks_w, answers_r]
            forked.append(_Forked(pid, os.fdopen(chunks_w, "wb"), os.fdopen(answers_r, "rb")))
    except OSError:
        log.info("cannot fork a scan worker; starting them afresh", exc_info=True)
        for child in forked:
            child.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                child.wait(5)
        return []
    return forked


# The worker imports this module under its installed name: the classes it pickles back
# (FileRead, the readers) must be the ones the calling process unpickles. (A bare
# `core.…` import worked only where the source tree happened to be on sys.path, as under
# pytest; the app's workers then failed on every chunk and it read them alone.)
_BOOT = "from planwatch.core.transcripts.batch import serve; serve()"


def _relog(records: list[tuple[int, str]]) -> None:
    for level, message in records:
        log.log(level, "scan worker: %s", message)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[tuple[int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append((record.levelno, record.getMessage()))
        except Exception:
            pass


def serve(stdin: IO[bytes] | None = None, stdout: IO[bytes] | None = None) -> None:
    """A worker process's loop: read a (chunk, read_plans) pickle, answer with the
    chunk's reads and the log records they made, until stdin ends."""
    if stdout is None:
        # Only answers may go to the pipe: anything printed goes to stderr instead.
        stdout = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    stdin = stdin or sys.stdin.buffer
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    root.setLevel(logging.INFO)
    while True:
        try:
            chunk, read_plans = pickle.load(stdin)
        except EOFError:
            return
        reads = read_files(chunk, read_plans)
        records, capture.records = capture.records, []
        pickle.dump((reads, records), stdout, pickle.HIGHEST_PROTOCOL)
        stdout.flush()

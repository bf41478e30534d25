"""The first scan's worker processes (batch.py hands them chunks of files to read).

- A worker is a plain `python -c` child of this process (`serve`), fed chunks and
  answering with reads over its stdin/stdout pipes, one pickle each way. Not
  multiprocessing: its "spawn" re-imports the caller's `__main__` in the child (a
  script calling `scan()` at top level would run again there), and "fork" is unsafe
  from a thread of a running app. The child's stderr goes nowhere (it would draw over
  the app): its log records come back with its answers and are logged here.
- When the scan runs on the main thread with no other thread alive (the command line),
  the workers are forked instead (`fork_workers`), which is safe there: they start at
  once, every module already imported (a fresh interpreter's imports cost about what a
  worker saves on a small scan). The app, whose scan runs on a thread, forks them
  ahead, before it starts any thread (`fork_spares`); the scan takes them from there.
- A `Driver` thread per worker feeds it chunk after chunk and queues its answers;
  anything going wrong with a worker (it cannot start, dies, answers garbage) hands
  its chunk back to the calling thread.
"""

from __future__ import annotations

import contextlib
import gc
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
from collections.abc import Callable
from typing import IO, Any

log = logging.getLogger(__name__)

# Chunks a driver keeps handed to its worker at once (the worker never waits for the next).
IN_FLIGHT = 2


# The parent's ends of the pipes of every forked worker still running: each new child
# closes them all, or it would hold another worker's input open and that worker would
# never see it end (a spare let go was then waited on for 5 s, and killed).
_ends: set[int] = set()


class Driver(threading.Thread):
    """Feeds one worker process chunk after chunk and queues its answers."""

    def __init__(
        self,
        read_plans: bool,
        first: list[Any],  # a chunk of batch.Job: files, some with what the cache remembers
        take: Callable[[], list[Any] | None],
        answers: queue.SimpleQueue[tuple[str, Any]],
        forked: Forked | None = None,
        *,
        facts: bool = False,
        plain: str | None = None,
    ) -> None:
        """`facts`: the chunks are remembered files of a start that shows facts and
        counts only (batch.warm_facts): each answer is a file's facts, not its read.
        `plain`: a file's read comes back as plain values where it can, without its
        reader (batch.plain_read): "counts" for a listing (`planwatch sessions`, which
        never follows its files: the plans' statuses without text), "text" for a scan
        whose index reads a file again from scratch when it changes (the plans whole)."""
        super().__init__(name="planwatch-scan-worker", daemon=True)
        self._read_plans = read_plans
        self._facts = facts
        self._plain = plain
        self._first: list[Any] | None = first
        self._take = take
        self._answers = answers
        self._lock = threading.Lock()  # guards _proc and _halted
        self._proc: subprocess.Popen[bytes] | Forked | None = forked
        self._halted = False

    def run(self) -> None:
        chunk, self._first = self._first, None
        sent: deque[list[Any]] = deque()  # chunks handed to the worker, not answered yet
        try:
            with self._lock:
                if self._halted:
                    return
                if self._proc is None:
                    self._proc = subprocess.Popen(
                        [sys.executable, "-c", _BOOT],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL,
                    )
                proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            # Two chunks in flight: the worker reads the next one while this thread
            # takes in its last answer (unpickling it waits for the GIL, which the
            # calling thread holds while it reads its own chunks).
            while True:
                while len(sent) < IN_FLIGHT and (chunk := chunk or self._take()) is not None:
                    if self._halted:
                        return
                    request = (chunk, self._read_plans, self._facts, self._plain)
                    pickle.dump(request, proc.stdin, pickle.HIGHEST_PROTOCOL)
                    proc.stdin.flush()
                    sent.append(chunk)
                    chunk = None
                if not sent:
                    return
                reads, records = pickle.load(proc.stdout)
                _relog(records)
                done = sent[0]
                if not isinstance(reads, list) or len(reads) != len(done):
                    raise ValueError("a scan worker answered with something else")
                sent.popleft()
                if self._facts:
                    self._answers.put(("facts", (reads, done)))
                else:
                    self._answers.put(("reads", restore_items(reads, done)))
        except Exception:
            if not self._halted:
                log.warning("a scan worker failed; its files are read in the calling thread", exc_info=True)
            for lost in ([chunk] if chunk is not None else []) + list(sent):
                self._answers.put(("failed", lost))
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
        if proc is not None:
            _end(proc, kill=self._halted, close_output=threading.current_thread() is self)  # its reader


def _end(proc: subprocess.Popen[bytes] | Forked, *, kill: bool = False, close_output: bool = True) -> None:
    """End a worker: its input closes (a worker ends when its stdin does); it is killed
    now when `kill`, or when it has not ended within 5 s; its output is closed when
    `close_output` (by its reader only)."""
    if isinstance(proc, Forked):
        _ends.difference_update(f.fileno() for f in (proc.stdin, proc.stdout) if f is not None and not f.closed)
    with contextlib.suppress(OSError, ValueError):
        if proc.stdin is not None:
            proc.stdin.close()
    if kill and proc.poll() is None:
        proc.kill()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if close_output and proc.stdout is not None:
        with contextlib.suppress(OSError, ValueError):
            proc.stdout.close()


class Forked:
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


def fork_workers(count: int, *, nice: int = 0) -> list[Forked]:
    """`count` workers forked from this process when that is safe — on the main thread
    with no other thread running (the command line's scan) — else none (the app scans
    on a thread: its workers are started afresh, `_BOOT`). A forked worker starts at
    once: no interpreter start, no imports. `nice`: added to each worker's niceness
    (the app's: the scan in the background yields the cores to the UI thread)."""
    if (
        count < 1
        or not hasattr(os, "fork")
        or threading.current_thread() is not threading.main_thread()
        or threading.active_count() != 1
    ):
        return []
    forked: list[Forked] = []
    try:
        for _ in range(count):
            chunks_r, chunks_w = os.pipe()
            answers_r, answers_w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker
                try:
                    for fd in (chunks_w, answers_r, *_ends):  # _ends: earlier workers' pipes
                        os.close(fd)
                    if nice:
                        with contextlib.suppress(OSError):
                            os.nice(nice)
                    quiet = os.open(os.devnull, os.O_RDWR)
                    for fd in (0, 1, 2):  # nothing it prints reaches the caller's terminal or pipe
                        os.dup2(quiet, fd)
                    serve(os.fdopen(chunks_r, "rb"), os.fdopen(answers_w, "wb"))
                finally:
                    os._exit(0)  # never the caller's exit handlers or buffered output
            os.close(chunks_r)
            os.close(answers_w)
            _ends.update((chunks_w, answers_r))
            forked.append(Forked(pid, os.fdopen(chunks_w, "wb"), os.fdopen(answers_r, "rb")))
    except OSError:
        log.info("cannot fork a scan worker; starting them afresh", exc_info=True)
        for child in forked:
            child.kill()
            with contextlib.suppress(OSError, subprocess.TimeoutExpired):
                child.wait(5)
        return []
    return forked


# Workers forked ahead of a scan that will run on a thread (the app's first scan): forked
# while that is still safe, taken by the scan when it starts (batch.read_all).
_spares: list[Forked] = []
_spares_lock = threading.Lock()


def fork_spares(count: int, *, nice: int = 0) -> int:
    """Fork `count` workers now, while this process has no other thread (an app before
    it starts), for the next scan to take (`take_spares`) even from a thread; they
    start at once and import nothing. How many were forked (0 where forking is unsafe
    or impossible: that scan starts its workers afresh)."""
    forked = fork_workers(count, nice=nice)
    with _spares_lock:
        _spares.extend(forked)
    return len(forked)


def take_spares(count: int | None = None) -> list[Forked]:
    """Up to `count` (None: all) of the workers `fork_spares` made; the caller owns them."""
    with _spares_lock:
        taken = _spares[:count] if count is not None else list(_spares)
        del _spares[: len(taken)]
    return taken


def release(workers: list[Forked]) -> None:
    """Let unused forked workers go: their input closes, and they exit (else they are
    killed); their pipes are closed."""
    for worker in workers:
        _end(worker)


# The worker imports this module under its installed name: the classes it pickles back
# (FileRead, the readers) must be the ones the calling process unpickles. (A bare
# `core.…` import worked only where the source tree happened to be on sys.path, as under
# pytest; the app's workers then failed on every chunk and it read them alone.)
_BOOT = "from planwatch.core.transcripts.workers import serve; serve()"


def strip_items(reads: list[Any], *, plain: str | None = None) -> list[Any]:
    """A worker's reads without the files they are of (and their readers' paths): the
    caller has them already, and a path costs more to unpickle than the rest of a small
    file's read. `restore_items` puts them back. `plain` ("counts", "text"): each read
    that can be is plain values instead (batch.plain_read)."""
    from planwatch.core.transcripts.batch import plain_read

    out: list[Any] = []
    for read in reads:
        values = plain_read(read, text=plain == "text") if plain else None
        if values is not None:
            out.append(values)
            continue
        read.item = None
        if read.reader is not None:
            read.reader.path = None
        out.append(read)
    return out


def restore_items(reads: list[Any], chunk: list[Any]) -> list[Any]:
    """The reads of `chunk` (batch.Job: a file, or a file with what the cache remembers)
    with their files and readers' paths back in place (a plain read made a read again)."""
    from planwatch.core.transcripts.batch import from_plain

    out: list[Any] = []
    for read, job in zip(reads, chunk, strict=True):
        item = job[0] if isinstance(job, tuple) else job
        if type(read) is tuple:
            out.append(from_plain(item, read))
            continue
        read.item = item
        if read.reader is not None:
            read.reader.path = item.path
        out.append(read)
    return out


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
    """A worker process's loop: read a (chunk, read_plans[, facts[, plain]]) pickle,
    answer with the chunk's reads (with `facts`, each remembered file's facts:
    batch.warm_facts; with `plain`, plain values where they can be: `strip_items`) and
    the log records they made, until stdin ends."""
    if stdout is None:
        # Only answers may go to the pipe: anything printed goes to stderr instead.
        stdout = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
    stdin = stdin or sys.stdin.buffer
    gc.disable()  # a reader of chunks makes no garbage cycles worth collecting (index.py)
    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    root.setLevel(logging.INFO)
    from planwatch.core.transcripts.batch import read_files, warm_facts  # batch imports this module

    while True:
        try:
            chunk, read_plans, *mode = pickle.load(stdin)
        except EOFError:
            return
        facts, plain = (*mode, False, None)[:2]
        reads = warm_facts(chunk) if facts else strip_items(read_files(chunk, read_plans), plain=plain)
        records, capture.records = capture.records, []
        pickle.dump((reads, records), stdout, pickle.HIGHEST_PROTOCOL)
        stdout.flush()

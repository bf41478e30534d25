"""`planwatch acp-tap`: a transparent proxy that records an ACP stream (docs/reading.md, ACP agents).

An ACP client (an editor) talks JSON-RPC to an agent over the agent's stdin/stdout, so
nothing reaches the disk for planwatch to read. The tap sits in between: the editor runs
`planwatch acp-tap -- <agent command…>` instead of the agent. It forwards every byte both
ways, unchanged and in order, and on the side writes each newline-delimited message as a
wrapped ACP log line `{"ts", "from", "msg"}` into `core.paths.acp_log_dir()`, where the
ACP reader finds the session and its plans live.

Forwarding comes first, always: two pump threads copy raw bytes (no decoding, no
re-encoding) and only then hand complete lines to a bounded queue. A writer thread owns
the log file; when it falls behind, lines are dropped and counted rather than ever
stalling the stream, and a failing disk stops logging with one message on stderr.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType

from planwatch.core import paths
from planwatch.core.text import safe_text

log = logging.getLogger(__name__)

CHUNK = 64 * 1024
# A line longer than this is forwarded but not logged: a base64 image or a huge diff
# carries no plan, and holding it whole would cost memory for nothing.
MAX_LOGGED_LINE = 16 * 1024 * 1024
# The log queue holds at most this many lines / bytes; past either, lines are dropped.
QUEUE_MAX_ITEMS = 10_000
QUEUE_MAX_BYTES = 64 * 1024 * 1024
# After the agent exits, keep draining its stdout while bytes still flow; give up after
# this long without any (a grandchild may hold the pipe open forever).
DRAIN_IDLE_SECONDS = 2.0
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

Side = str  # "agent" | "client": who sent the line


def log_file_name(now: datetime | None = None, pid: int | None = None) -> str:
    """One file per tap run: UTC start time and our pid keep concurrent runs apart."""
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%S}Z-{pid if pid is not None else os.getpid()}.jsonl"


def encode_log_lines(ts: float, side: Side, raw: bytes) -> list[bytes]:
    """The wrapped ACP log line(s) for one raw message line; [] when it is not JSON-RPC.

    A JSON object is embedded as its raw bytes (no re-encoding: the log holds exactly
    what crossed the wire); a batch (JSON array) is logged one object per line.
    """
    raw = raw.strip(b" \t\r\n")
    if not raw:
        return []
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    stamp = datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")
    head = b'{"ts":"' + stamp.replace("+00:00", "Z").encode() + b'","from":"' + side.encode() + b'","msg":'
    if isinstance(value, dict):
        return [head + raw + b"}\n"]
    if isinstance(value, list):
        return [
            head + json.dumps(item, ensure_ascii=False).encode() + b"}\n" for item in value if isinstance(item, dict)
        ]
    return []


@dataclass
class LogQueue:
    """A queue bounded by item count and total bytes that never blocks its producers."""

    max_items: int = QUEUE_MAX_ITEMS
    max_bytes: int = QUEUE_MAX_BYTES
    dropped: int = 0
    _items: collections.deque[tuple[float, Side, bytes]] = field(default_factory=collections.deque)
    _bytes: int = 0
    _closed: bool = False
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def put(self, ts: float, side: Side, line: bytes) -> bool:
        with self._cond:
            if self._closed:
                return False
            if len(self._items) >= self.max_items or self._bytes + len(line) > self.max_bytes:
                self.dropped += 1
                return False
            self._items.append((ts, side, line))
            self._bytes += len(line)
            self._cond.notify()
            return True

    def take_all(self) -> list[tuple[float, Side, bytes]] | None:
        """Wait for lines and return them all; None once closed and empty."""
        with self._cond:
            while not self._items and not self._closed:
                self._cond.wait()
            if not self._items:
                return None
            batch = list(self._items)
            self._items.clear()
            self._bytes = 0
            return batch

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


class LogWriter(threading.Thread):
    """Owns the log file: drains the queue, writes wrapped lines, flushes per batch.

    The file is created lazily with 0600 (its folder 0700): it can hold prompts. Any
    OSError (no folder, full disk) stops logging for good with one stderr message;
    the queue is still drained so nothing upstream notices.
    """

    def __init__(self, queue: LogQueue, path: Path, stderr: Callable[[str], None], *, exclusive: bool = True) -> None:
        super().__init__(name="acp-tap-log", daemon=True)
        self.queue = queue
        self.path = path
        # A fresh per-run file must be ours alone; a --log file named by the person may
        # already exist and is appended to.
        self.exclusive = exclusive
        self.stderr = stderr
        self.written = 0
        self.failed: OSError | None = None

    def _open(self) -> int:
        folder = self.path.parent
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_EXCL if self.exclusive else 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            self._make_private(fd)
        except OSError:
            os.close(fd)
            raise
        return fd

    def _make_private(self, fd: int) -> None:
        """A `--log` file the person named may already exist with a mode that lets others
        read it: the log holds prompts, so it is made 0600 (and that said on stderr)
        before anything is appended; one whose mode cannot be changed is not written."""
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not info.st_mode & 0o077:
            return
        was = stat.S_IMODE(info.st_mode)
        try:
            os.fchmod(fd, 0o600)
        except OSError as exc:
            raise OSError(
                exc.errno,
                f"{safe_text(str(self.path))} is readable or writable by others ({was:04o}) and its mode "
                f"cannot be made 0600 ({exc.strerror}): no prompts are written to it",
            ) from None
        self.stderr(
            f"planwatch acp-tap: {safe_text(str(self.path))} was {was:04o} (others could read it); it is 0600 "
            "now, as it holds prompts"
        )

    def run(self) -> None:
        fd: int | None = None
        try:
            while (batch := self.queue.take_all()) is not None:
                if self.failed is not None:
                    continue
                chunks: list[bytes] = []
                for ts, side, raw in batch:
                    chunks.extend(encode_log_lines(ts, side, raw))
                if not chunks:
                    continue
                try:
                    if fd is None:
                        fd = self._open()
                    _write_all(fd, b"".join(chunks))
                    self.written += len(chunks)
                except OSError as exc:
                    self.failed = exc
                    self.stderr(f"planwatch acp-tap: logging stopped ({exc}); forwarding goes on")
        finally:
            if fd is not None:
                os.close(fd)


class LineSplitter:
    """Cuts a byte stream into lines for the log, holding at most one capped line."""

    def __init__(self, side: Side, queue: LogQueue, cap: int = MAX_LOGGED_LINE) -> None:
        self.side = side
        self.queue = queue
        self.cap = cap
        self._buf = bytearray()
        self._overflow = False  # the current line passed the cap: skip to its newline
        self.oversized = 0

    def _emit(self, line: bytes) -> None:
        if line.strip():
            self.queue.put(time.time(), self.side, line)

    def feed(self, chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            piece = chunk[start:end]
            if self._overflow or len(self._buf) + len(piece) > self.cap:
                self.oversized += 1
            elif self._buf:
                self._emit(bytes(self._buf) + piece)
            else:
                self._emit(piece)
            self._buf.clear()
            self._overflow = False
            start = end + 1
        if start < len(chunk) and not self._overflow:
            if len(self._buf) + len(chunk) - start > self.cap:
                self._overflow = True
                self._buf = bytearray()  # give the memory back, not just empty it
            else:
                self._buf += chunk[start:]

    def finish(self) -> None:
        """End of stream: a last message without its newline is still a message."""
        if self._buf and not self._overflow:
            self._emit(bytes(self._buf))
        self._buf = bytearray()


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Pump(threading.Thread):
    """Copies one direction byte for byte; the splitter sees each chunk on its way."""

    def __init__(
        self,
        src: int,
        dst: int,
        splitter: LineSplitter,
        on_eof: Callable[[], None],
        name: str,
    ) -> None:
        super().__init__(name=name, daemon=True)
        self.src = src
        self.dst = dst
        self.splitter = splitter
        self.on_eof = on_eof
        self.last_activity = time.monotonic()
        self.forwarded = 0

    def run(self) -> None:
        dst_open = True
        try:
            while True:
                try:
                    chunk = os.read(self.src, CHUNK)
                except OSError:
                    break
                if not chunk:
                    break
                self.last_activity = time.monotonic()
                # Queue the complete lines *before* forwarding them (a memory copy, never
                # a wait): the other side cannot answer a message it has not received,
                # so the log keeps cause before effect (a session/new request before its
                # result) across the two directions.
                self.splitter.feed(chunk)
                if dst_open:
                    try:
                        _write_all(self.dst, chunk)
                        self.forwarded += len(chunk)
                    except OSError:
                        # The reader went away; keep draining so the writer never blocks
                        # on a full pipe, and keep the log going.
                        dst_open = False
                self.last_activity = time.monotonic()
        finally:
            self.splitter.finish()
            self.on_eof()


def _exit_code(returncode: int) -> int:
    # A child killed by signal N reports -N; shells say 128 + N.
    return returncode if returncode >= 0 else 128 - returncode


def run_tap(
    command: Sequence[str],
    log_path: Path | None = None,
    *,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
) -> int:
    """Run `command` as the ACP agent between our stdin/stdout and it; return its exit code."""

    def say(message: str) -> None:
        try:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass

    if not command:
        say("planwatch acp-tap: no agent command (usage: planwatch acp-tap -- <agent command…>)")
        return 2
    try:
        # Its own process group: a terminal's Ctrl-C reaches only us, and we forward it
        # once (the agent would otherwise see it twice).
        proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, process_group=0
        )
    except OSError as exc:
        say(f"planwatch acp-tap: cannot start the agent {command[0]!r}: {exc}")
        return 127
    assert proc.stdin is not None and proc.stdout is not None

    path = log_path or paths.acp_log_dir() / log_file_name()
    queue = LogQueue()
    writer = LogWriter(queue, path, say, exclusive=log_path is None)
    writer.start()

    def forward_signal(signum: int, _frame: FrameType | None) -> None:
        try:
            proc.send_signal(signum)
        except ProcessLookupError:
            pass

    # What signal.signal returned: the handler to put back (a callable, SIG_DFL/SIG_IGN or None).
    previous: dict[signal.Signals, Callable[[int, FrameType | None], object] | int | None] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in FORWARDED_SIGNALS:
            previous[signum] = signal.signal(signum, forward_signal)

    agent_stdin = proc.stdin

    def close_agent_stdin() -> None:
        try:
            agent_stdin.close()
        except OSError:
            pass

    to_agent = Pump(
        stdin_fd, agent_stdin.fileno(), LineSplitter("client", queue), close_agent_stdin, "acp-tap-to-agent"
    )
    to_client = Pump(proc.stdout.fileno(), stdout_fd, LineSplitter("agent", queue), lambda: None, "acp-tap-to-client")
    to_agent.start()
    to_client.start()
    try:
        returncode = proc.wait()
        while to_client.is_alive():
            to_client.join(timeout=0.2)
            if time.monotonic() - to_client.last_activity > DRAIN_IDLE_SECONDS:
                break
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        queue.close()
        writer.join(timeout=10)
    if queue.dropped:
        say(f"planwatch acp-tap: {queue.dropped} log line(s) dropped (the log could not keep up)")
    log.debug("acp-tap: %d lines logged to %s", writer.written, path)
    return _exit_code(returncode)

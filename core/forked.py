"""Work started on a forked process, its answer taken back through a pipe: a second core
for a short command that has one piece of pure Python to do beside another (the
remembered listing's texts beside discovery, core/listing.py; half of a cold listing's
Copilot CLI folders, core/transcripts/batch.py).

Forked only where that is safe and worth it: this process has no other thread (a fork
copies only the calling thread; a lock another held stays held in the child) and the
machine has a second core. The child runs the work, writes its answer down the pipe and
ends at once (`os._exit`: nothing of the parent's, its buffered output included, is
flushed or torn down twice). Anything that goes wrong on the way is "no answer", and the
caller does the work itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PROCESS_ENDS", "detached", "forked", "only_thread", "wait_detached"]

# Holds True once the installed command has started (tui/cli.py `run`): this process
# ends when its command returns, so work may outlive it (`detached`); empty for a
# caller of the command line's `main()` in a process that lives on.
PROCESS_ENDS: list[bool] = []


def forked(
    work: Callable[[], Any],
    *,
    encode: Callable[[Any], bytes] | None = None,
    decode: Callable[[bytes], Any] | None = None,
) -> Callable[[], tuple[bool, Any]] | None:
    """Start `work` on a forked process; None when none was forked (another thread runs,
    one core, the fork refused). The function returned waits for the child and gives
    `(True, its answer)`, or `(False, None)` when it failed or its answer could not be
    taken; call it exactly once (it reaps the child). `encode`/`decode`: how the answer
    crosses the pipe (`marshal` by default: plain values, the fastest)."""
    if not only_thread() or _cores() < 2:
        return None
    if encode is None or decode is None:
        import marshal

        encode, decode = marshal.dumps, marshal.loads
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: its answer down the pipe, then gone at once
        status = 1
        try:
            os.close(r)
            view = memoryview(encode(work()))
            while view:
                view = view[os.write(w, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    answer_decode = decode

    def answer() -> tuple[bool, Any]:
        chunks: list[bytes] = []
        try:
            while chunk := os.read(r, 1 << 20):
                chunks.append(chunk)
        except OSError:
            chunks = []
        finally:
            os.close(r)
            _, status = os.waitpid(pid, 0)
        if status != 0 or not chunks:
            return False, None
        try:
            return True, answer_decode(b"".join(chunks))
        except Exception:  # a torn or foreign answer: none
            return False, None

    return answer


def detached(work: Callable[[], object], lock: str) -> bool:
    """Start `work` on a forked process that outlives this one, holding an exclusive
    `flock` on the file `lock` (made when missing) until it is done; False when none was
    started (another thread runs, the lock is held by another such process or cannot be
    taken, the fork refused): the caller does the work itself. The process is a session
    of its own (the terminal's Ctrl-C or hang-up for the next command does not reach it)
    with its standard streams on /dev/null (a pipe reading this command's output ends
    when this command does); it ends with `os._exit`, flushing nothing of this one's.
    Another process waits for it with `wait_detached(lock)`. What `planwatch sessions`
    writes after its answer (its caches, tui/cli_sessions.py): a write is atomic, so a
    process killed on the way leaves the file it had."""
    if not only_thread():
        return False
    try:
        import fcntl

        from planwatch.core.regular_files import open_regular

        fd = open_regular(lock, os.O_RDWR | os.O_CREAT, 0o600, follow=False)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        pid = os.fork()
    except OSError:
        os.close(fd)  # closing releases a lock taken
        return False
    if pid == 0:  # the child: the lock held through `fd` until it ends
        try:
            try:  # best effort: the work is done either way
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                for stream in (0, 1, 2):
                    os.dup2(null, stream)
            except OSError:
                pass
            work()
        finally:
            os._exit(0)
    os.close(fd)  # the child's copy holds the lock
    return True


def wait_detached(lock: str, at_most: float = 5.0) -> bool:
    """Wait until no process started by `detached(…, lock)` runs, at most `at_most`
    seconds (then go on: what it writes is written atomically, so a reader finds the
    file before or after, never half of it). False when one still ran at the end."""
    try:
        import fcntl

        from planwatch.core.regular_files import open_regular

        fd = open_regular(lock, follow=False)
    except (ImportError, OSError):
        return True  # no lock file (nothing was ever detached), or none to look at
    try:
        import time

        deadline = time.monotonic() + at_most
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.002)  # flock has no timeout of its own
            except OSError:
                return True
    finally:
        os.close(fd)


def only_thread() -> bool:
    """Whether no other Python thread runs in this process. `threading` is asked only
    when something loaded it (no thread of its making can run before that): a quick
    command that starts none never imports it (about 0.6 ms)."""
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def _cores() -> int:
    """The cores this process may run on (a container may allow fewer than it has)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1

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

__all__ = ["forked", "only_thread"]


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

"""Work that outlives its command (core/forked.py `detached`): what `planwatch sessions`
writes after its answer. Real processes: the command's process ends, its output pipe
closes with it, the work goes on holding the lock, and a waiter sees it end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from planwatch.core.forked import detached, wait_detached

ROOT = Path(__file__).resolve().parents[2]

# A command that starts the work and ends: the work waits at a FIFO until the test
# opens it (a state, not a duration), then writes its file.
_COMMAND = """
import sys, threading
from planwatch.core.forked import detached
gate, out, lock, threads = sys.argv[1:5]
if threads == "thread":
    stop = threading.Event()
    threading.Thread(target=stop.wait, daemon=True).start()

def work():
    with open(gate, "rb") as fh:
        fh.read()
    with open(out, "w") as fh:
        fh.write("written")

print("started" if detached(work, lock) else "not started", flush=True)
"""


def command(tmp_path: Path, threads: str = "") -> tuple[subprocess.CompletedProcess[str], Path, Path, str]:
    gate, out, lock = tmp_path / "gate", tmp_path / "out", str(tmp_path / "writing.lock")
    if not gate.exists():
        os.mkfifo(gate)
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND, str(gate), str(out), lock, threads],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, gate, out, lock


def open_gate(gate: Path) -> None:
    fd = os.open(gate, os.O_WRONLY)  # the work has it open for reading (or opens it now)
    os.close(fd)


def test_detached_work_outlives_its_command_holding_the_lock_until_it_is_done(tmp_path: Path) -> None:
    done, gate, out, lock = command(tmp_path)
    # The command ended and its output pipe closed while the work still waits.
    assert done.returncode == 0 and done.stdout == "started\n", done.stderr
    assert not out.exists()
    assert wait_detached(lock, at_most=0) is False  # held by the work
    assert detached(lambda: None, lock) is False  # a second one is not started meanwhile
    open_gate(gate)
    assert wait_detached(lock, at_most=60) is True
    assert out.read_text() == "written"
    assert wait_detached(str(tmp_path / "never-made.lock"), at_most=0) is True  # nothing ever detached


def test_detached_work_is_not_started_beside_another_thread(tmp_path: Path) -> None:
    """A fork copies only the calling thread (a lock another held stays held in the
    child): with another thread running, the caller does the work itself."""
    done, _gate, out, lock = command(tmp_path, "thread")
    assert done.returncode == 0 and done.stdout == "not started\n", done.stderr
    assert not out.exists()
    assert wait_detached(lock, at_most=0) is True

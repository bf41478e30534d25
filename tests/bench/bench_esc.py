"""How long `esc` takes to act, in a real terminal (a script, not collected by pytest).

    .venv/bin/python tests/bench/bench_esc.py [--presses 20] [--size 120x36]

Starts `planwatch --demo` in a pseudo-terminal of its own (every planwatch folder in a
temp folder), waits for the screen to hold still, then `--presses` times: opens the help
with `?`, waits for it to be drawn and to hold still, and closes it, alternately with
`esc` and with `?`. Each close is timed from the byte written to the first bytes of the
repaint the app writes back: what a person feels between the key and the screen.

A lone ESC byte may start an escape sequence, so a terminal app waits a little before
taking it as the key (Textual's escape delay; planwatch's is 50 ms unless ESCDELAY says
otherwise); `?` has no such wait, so the difference between the two is the escape key's
own cost. Goal: esc acts well within 100 ms.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from measure import point_folders_into  # noqa: E402


def drain(fd: int, quiet: float, limit: float) -> bytes:
    """Everything the app writes until it has written nothing for `quiet` seconds (or
    `limit` seconds have passed)."""
    out = bytearray()
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], quiet)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    return bytes(out)


def first_reply(fd: int, key: bytes, limit: float = 5.0) -> float:
    """Seconds from writing `key` to the first bytes the app writes back (anything the
    app was still writing before the key is read first, so it is not taken for the reply)."""
    while select.select([fd], [], [], 0)[0]:
        if not os.read(fd, 65536):
            break
    started = time.perf_counter()
    os.write(fd, key)
    ready, _, _ = select.select([fd], [], [], limit)
    if not ready:
        raise SystemExit(f"no repaint within {limit} s of {key!r}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--size", default="120x36")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-esc-") as tmp:
        point_folders_into(Path(tmp))
        os.environ["HOME"] = tmp
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("ESCDELAY", None)
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.executable, [sys.executable, "-m", "planwatch.tui.cli", "--demo"])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.kill(pid, signal.SIGWINCH)
        try:
            drain(fd, quiet=1.0, limit=30.0)  # started and holding still
            times: dict[str, list[float]] = {"esc": [], "?": []}
            for n in range(args.presses * 2):
                name = "esc" if n % 2 == 0 else "?"
                os.write(fd, b"?")
                drain(fd, quiet=0.4, limit=10.0)  # the help drawn and still
                times[name].append(first_reply(fd, b"\x1b" if name == "esc" else b"?"))
                drain(fd, quiet=0.4, limit=10.0)
        finally:
            os.write(fd, b"q")
            drain(fd, quiet=0.5, limit=5.0)
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
    print(f"{args.size}, load average {os.getloadavg()[0]:.1f}, {args.presses} presses each")
    for name, values in times.items():
        values_ms = sorted(v * 1000 for v in values)
        print(
            f"close the help with {name:3}: median {statistics.median(values_ms):5.0f} ms, "
            f"best {values_ms[0]:4.0f} ms, worst {values_ms[-1]:4.0f} ms"
        )


if __name__ == "__main__":
    main()

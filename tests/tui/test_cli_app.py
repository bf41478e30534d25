"""`planwatch --demo --screenshot` (what CI runs from the installed wheel), run as a real
subprocess. (`--version` is tested with the other command-line habits.)"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def planwatch(*args: str) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).parent / "planwatch"), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=120)


def test_demo_screenshot_runs_headless_and_saves_the_demo_sessions(isolated_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shot = tmp_path / "demo.svg"
    done = planwatch("--demo", "--screenshot", str(shot))
    assert done.returncode == 0, done.stderr
    text = html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", shot.read_text(encoding="utf-8"))))
    assert "Billing webhook retries" in text.replace("\xa0", " ")
    assert "Agent plan" in text.replace("\xa0", " ")


def test_screenshot_into_a_missing_folder_is_a_sentence_and_exit_2(isolated_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shot = tmp_path / "no-such-folder" / "demo.svg"
    done = planwatch("--demo", "--screenshot", str(shot))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"planwatch: --screenshot {shot}: no folder {shot.parent} (make it first)\n"
    assert "Traceback" not in done.stderr
    assert not shot.parent.exists()


def test_the_app_refuses_a_missing_root_as_the_commands_do(isolated_env, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    missing = tmp_path / "no-such-folder"
    shot = tmp_path / "never.svg"
    done = planwatch("--root", str(missing), "--screenshot", str(shot))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"planwatch: --root {missing}: no such file or folder\n"
    assert not shot.exists(), "the app never started"
    # The same sentence `sessions` says for the same folder.
    listed = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--root", str(missing)],
        cwd=ROOT, capture_output=True, text=True, env=os.environ.copy(), timeout=120,
    )  # fmt: skip
    assert (listed.returncode, listed.stderr) == (done.returncode, done.stderr)


@pytest.mark.parametrize("signame", ["SIGHUP", "SIGTERM", "q"])
def test_the_demo_removes_its_temporary_folder_when_the_terminal_hangs_up_or_it_is_terminated(
    tmp_path: Path, signame: str
) -> None:
    """A closed terminal sends SIGHUP, `kill` and a closing tmux window SIGTERM: both end a
    process without its atexit handlers, so the demo removes its temporary copy first.
    On SIGTERM the terminal is still there: the app exits as on `q` (status 0) and gives
    the screen back (it leaves the alternate screen). On `q` itself the process ends at
    once after the app, without the interpreter's teardown, but its atexit handlers run,
    the demo's among them. Run in a real pty, as a terminal runs it."""
    import pty
    import select
    import signal
    import time

    signum = getattr(signal, signame, None)
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "36"}
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "planwatch"), "--demo"],
        cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = b""

    def read_until(done: Any) -> None:
        nonlocal seen
        deadline = time.monotonic() + 60  # bounds a failure only
        while not done():
            assert time.monotonic() < deadline, seen[-2000:]
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the other end closed: the app is gone
                    return

    try:
        # Wait for what the demo draws (its newest session's title): the app is running.
        read_until(lambda: b"Billing" in seen or proc.poll() is not None)
        assert proc.poll() is None, seen[-2000:]
        [made] = list(temp.glob("planwatch-demo-*"))
        assert (made / "transcripts").is_dir()
        drawn = len(seen)
        if signum is None:
            os.write(master, b"q")
        else:
            proc.send_signal(signum)
        if signum in (signal.SIGTERM, None):
            read_until(lambda: b"\x1b[?1049l" in seen[drawn:])  # the alternate screen left
            assert proc.wait(timeout=30) == 0
        else:
            assert proc.wait(timeout=30) == -signal.SIGHUP
        assert list(temp.glob("planwatch-demo-*")) == [], "the demo's folder was removed"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)

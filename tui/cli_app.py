"""Arguments and start-up of the app itself (`planwatch`, `planwatch --pane`, `--demo`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The terminal a --screenshot run pretends to have, and how long it waits for the scan.
SCREENSHOT_SIZE = (120, 36)
SCREENSHOT_WAIT = 60.0


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pane", action="store_true", help="one narrow column that follows the newest session")
    parser.add_argument(
        "--cwd",
        metavar="DIR",
        help="in pane mode, follow the newest session of this folder (default inside tmux: the pane's folder)",
    )
    parser.add_argument("--demo", action="store_true", help="open the app on the bundled fixtures")
    parser.add_argument(
        "--root", metavar="DIR", action="append", default=[], help="an extra transcript folder (repeatable)"
    )
    parser.add_argument(
        "--screenshot",
        metavar="FILE.svg",
        type=Path,
        help="run without a terminal until the first scan is done, save the screen as SVG and exit",
    )


def tmux_pane_folder(timeout: float = 1.0) -> str | None:
    """The current tmux pane's folder, when running inside tmux; None otherwise.

    Asked once at start-up, before the app runs, so the UI thread never waits on it.
    """
    if not os.environ.get("TMUX"):
        return None
    import subprocess  # only inside tmux: every other command starts without it

    try:
        out = subprocess.run(
            ["tmux", "display", "-p", "#{pane_current_path}"],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    folder = out.stdout.strip()
    return folder if out.returncode == 0 and folder else None


def _screenshot_problem(shot: Path) -> str | None:
    """Why `--screenshot` cannot be written there, before the app runs for it; None if it can."""
    from planwatch.core.text import shorten

    folder = shot.expanduser().parent
    if not folder.exists():
        return f"--screenshot {shorten(str(shot), 200)}: no folder {shorten(str(folder), 200)} (make it first)"
    if not folder.is_dir():
        return f"--screenshot {shorten(str(shot), 200)}: {shorten(str(folder), 200)} is not a folder"
    if shot.expanduser().is_dir():
        return f"--screenshot {shorten(str(shot), 200)} is a folder: give a file name (FILE.svg)"
    return None


def _remove_demo_on_signals(app: Any) -> None:
    """Signals whose default ends the process without running atexit would leave the
    demo's temporary folder behind. A closed terminal's SIGHUP: the folder is removed,
    then the hangup ends the process as it would have (the terminal is gone: nothing to
    restore). SIGTERM (`kill`, a service manager, a closing tmux window's shell): the
    folder is removed and the app exits as on `q`, so the terminal it still draws on is
    given back as it was."""
    import asyncio
    import signal

    from planwatch.tui.app_options import remove_demo_dirs

    def hangup(signum: int, _frame: object) -> None:
        remove_demo_dirs()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def terminate(signum: int, frame: object) -> None:
        remove_demo_dirs()
        try:
            loop = asyncio.get_running_loop()  # the app's, when the signal comes while it runs
        except RuntimeError:
            hangup(signum, frame)
            return
        loop.call_soon_threadsafe(app.exit)

    signal.signal(signal.SIGHUP, hangup)
    signal.signal(signal.SIGTERM, terminate)


def run_app(args: argparse.Namespace) -> int:
    from planwatch.tui.app import make_app
    from planwatch.tui.cli_sessions import missing_roots

    # The same refusal as `sessions` and `show`: a folder that is not there is a typo,
    # not a folder with no sessions yet.
    if missing_roots(args):
        return 2
    shot: Path | None = getattr(args, "screenshot", None)
    if shot is not None and (problem := _screenshot_problem(shot)) is not None:
        print(f"planwatch: {problem}", file=sys.stderr)
        return 2
    # Pane mode may also switch on by itself in a narrow terminal, so the tmux folder is
    # asked for whenever it could matter, not only with --pane.
    if not getattr(args, "cwd", None) and not getattr(args, "demo", False):
        args.cwd = tmux_pane_folder()
    app = make_app(args)
    if getattr(args, "demo", False):
        _remove_demo_on_signals(app)
    if shot is None:
        app.run()
        return 0
    saved: list[str] = []
    failed: list[str] = []
    target = shot.expanduser()

    async def take(pilot: Any) -> None:
        deadline = time.monotonic() + SCREENSHOT_WAIT
        while app.scan_done is None and time.monotonic() < deadline:
            await pilot.pause(0.05)
        await pilot.pause()
        try:
            saved.append(app.save_screenshot(target.name, str(target.parent.resolve())))
        except OSError as exc:  # the folder went, or cannot be written
            failed.append(f"{exc.strerror or exc}")
        app.exit()

    app.run(headless=True, size=SCREENSHOT_SIZE, auto_pilot=take)
    if failed:
        from planwatch.core.text import shorten

        print(f"planwatch: --screenshot {shorten(str(shot), 200)}: could not write it: {failed[0]}", file=sys.stderr)
        return 1
    if not saved:
        print("planwatch: no screenshot was taken", file=sys.stderr)
        return 1
    return 0

"""What the app is started with: `AppOptions`, built by tests directly and by the CLI
from its arguments, and the demo's setup (temp copies of the bundled fixtures)."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planwatch.core.index import SessionIndex

ROOT = Path(__file__).resolve().parent.parent


def _bundled_fixtures() -> Path:
    """Where the demo's transcripts and store are: inside the package when installed
    from a wheel (pyproject maps fixtures/ to tui/demo_data), else the source tree's
    fixtures/ (a checkout or an editable install)."""
    packaged = Path(__file__).resolve().parent / "demo_data"
    return packaged if (packaged / "transcripts").is_dir() else ROOT / "fixtures"


FIXTURES = _bundled_fixtures()
# Below this many columns the browse screen restacks into pane mode.
PANE_WIDTH = 60
# Below this many (and from PANE_WIDTH on) the checklist beside the list narrows, so the
# session titles keep the room (`-medium` in browse.tcss).
MEDIUM_WIDTH = 100


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass
class AppOptions:
    """Everything make_app needs; tests build one directly, the CLI from its arguments."""

    roots: list[Path] | None = None
    """Transcript folders; None: the harnesses' default folders (+ extra_roots)."""
    extra_roots: list[Path] = field(default_factory=list)
    store_root: Path | None = None
    config_path: Path | None = None
    state_dir: Path | None = None
    clock: Callable[[], datetime] = utc_now
    pane: bool = False
    cwd: Path | None = None
    index: SessionIndex | None = None
    """An injected session index, already built (tests, snapshots)."""
    follow: bool = True
    """Run the follower and the store watcher (snapshots turn them off)."""
    scan: bool = True
    """Scan on mount (an injected, already scanned index may skip it)."""
    demo: bool = False


# Fixture roots that are test cases, not a picture of a working day: the rule families
# and the hostile-text session (the demo shows a working day, and no hostile text).
TEST_ONLY_TRANSCRIPTS = ("rules", "hostile")


def copy_fixture_transcripts(dest: Path, mtime: float) -> None:
    """Copy fixtures/transcripts to `dest` with every file's mtime pinned to `mtime`.

    The test-only roots (TEST_ONLY_TRANSCRIPTS) are left out.
    A copy's mtime would be now, showing every session as running; pinned, each
    session's age comes from its records' own times."""
    shutil.copytree(FIXTURES / "transcripts", dest, ignore=shutil.ignore_patterns(*TEST_ONLY_TRANSCRIPTS))
    for path in dest.rglob("*"):
        if path.is_file():
            os.utime(path, (mtime, mtime))


DEMO_DIRS: list[Path] = []
"""The demo's temporary folders made by this process, removed at exit or on a hangup."""


def remove_demo_dirs() -> None:
    """Remove the demo's temporary folders (at exit, and when the terminal closes)."""
    while DEMO_DIRS:
        folder = DEMO_DIRS.pop()
        # Twice: a thread still writing the warm cache may add a file during the first.
        for _ in range(2):
            shutil.rmtree(folder, ignore_errors=True)


def demo_options(options: AppOptions) -> AppOptions:
    """Point the app at the bundled fixtures. Everything is a temp copy (removed at exit,
    and on a hangup: `tui.cli_app`) so the demo never writes into the repository or the
    person's own folders."""
    work_dir = Path(tempfile.mkdtemp(prefix="planwatch-demo-"))
    if not DEMO_DIRS:
        atexit.register(remove_demo_dirs)
    DEMO_DIRS.append(work_dir)
    transcripts = work_dir / "transcripts"
    copy_fixture_transcripts(transcripts, time.time() - 86_400)  # a day back
    store = work_dir / "store"
    demo_store = FIXTURES / "store" / "demo"
    if demo_store.is_dir():
        shutil.copytree(demo_store, store)
    else:
        store.mkdir()
    options.roots = [transcripts]
    options.store_root = store
    options.state_dir = work_dir / "state"
    options.config_path = work_dir / "config.yaml"
    return options


def options_from_args(args: argparse.Namespace) -> AppOptions:
    options = AppOptions(
        extra_roots=[Path(p).expanduser() for p in getattr(args, "root", []) or []],
        pane=bool(getattr(args, "pane", False)),
        cwd=Path(args.cwd).expanduser() if getattr(args, "cwd", None) else None,
        demo=bool(getattr(args, "demo", False)),
    )
    if options.demo:
        demo_options(options)
        options.roots = (options.roots or []) + options.extra_roots
    return options

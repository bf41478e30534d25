"""Regenerate screenshots/*.svg from the bundled fixtures: `python tests/screenshots.py`.

Each shot runs the real app (`make_app`) headless with `run_test(size=...)` on fresh
copies of fixtures/ (transcripts, the demo store), a frozen clock and no follower
threads, presses the keys that reach the view, and saves an SVG. The copies live in one
fixed folder and their modification times are pinned, so running the script twice
gives the same files. The snapshot tests build their apps with `fixture_app` too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from planwatch.tui.app import PlanwatchApp, make_app
from planwatch.tui.app_options import FIXTURES, ROOT, AppOptions, copy_fixture_transcripts

FIXTURE_NOW = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)
"""The frozen "now" of screenshots and snapshots (the fixtures' sessions ran that morning)."""
PINNED_MTIME = FIXTURE_NOW.timestamp() - 86_400
"""Every copied transcript's mtime, a day back, so ages come from the records' own times."""
WORK_BASE = Path("/tmp/planwatch-screenshots")
"""Fixed, not a random temp folder: the details panel shows the transcript's path."""
OUT_DIR = ROOT / "screenshots"


def fixture_app(
    base: Path,
    *,
    transcripts: bool = True,
    store: str | None = "store/demo",
    config: str | None = None,
    now: datetime = FIXTURE_NOW,
    hostile: bool = False,
) -> PlanwatchApp:
    """The app on fresh copies of the fixtures under `base` (emptied first).

    `store` is a folder under fixtures/ (None: an empty store); `config` the text of
    the settings file (None: defaults); `transcripts=False` gives an empty folder;
    `hostile=True` adds the hostile-text session (tests only, never the demo).
    """
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    roots = base / ("transcripts" if transcripts else "no-transcripts")
    if transcripts:
        copy_fixture_transcripts(roots, PINNED_MTIME)
    else:
        roots.mkdir()
    if hostile:
        # The hostile-text session (kept out of the demo) beside the demo's sessions.
        shutil.copytree(FIXTURES / "transcripts" / "hostile", roots / "hostile")
        for path in (roots / "hostile").rglob("*"):
            if path.is_file():
                os.utime(path, (PINNED_MTIME, PINNED_MTIME))
    store_root = base / "store"
    if store is not None:
        shutil.copytree(FIXTURES / store, store_root)
    config_path = base / "config.yaml"
    if config is not None:
        config_path.write_text(config, encoding="utf-8")
    return make_app(
        AppOptions(
            roots=[roots],
            store_root=store_root,
            config_path=config_path,
            state_dir=base / "state",
            clock=lambda: now,
            follow=False,
        )
    )


async def settle(pilot: object, timeout: float = 60.0) -> None:
    """Until the app's first scan has finished and no worker is running."""
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    app = pilot.app
    deadline = time.monotonic() + timeout
    while getattr(app, "scan_done", None) is None:
        if time.monotonic() > deadline:
            raise TimeoutError("the app's first scan did not finish")
        await pilot.pause(0.02)
    for _ in range(4):
        await app.workers.wait_for_complete()
        await pilot.pause()
    # Some repaints are scheduled after the messages above (call_after_refresh): wait
    # until the screen renders the same twice running, so a shot never catches it halfway.
    # A screen that never holds still would make a flaky shot: that is a failure, said here.
    last = ""
    while True:
        await pilot.pause(0.02)
        await app.workers.wait_for_complete()
        current = app.export_screenshot()
        if current == last:
            break
        if time.monotonic() > deadline:
            raise TimeoutError("the app's screen did not hold still for two renders running")
        last = current


@dataclass(frozen=True)
class Shot:
    """One screenshot: file name, terminal size, keys to press, and the fixtures."""

    name: str
    size: tuple[int, int]
    keys: tuple[str, ...] = ()
    store: str = "store/demo"
    config: str | None = None


SHOTS: tuple[Shot, ...] = (
    Shot("browse-wide", (120, 36)),
    Shot("browse-medium", (80, 24)),
    Shot("pane", (40, 30)),
    Shot("checklist-details", (120, 40), ("down", "down", "down", "down", "tab", "down", "space", "enter")),
    Shot("store", (120, 36), ("t", "down", "down")),
    Shot("settings", (120, 36), ("comma",)),
)


async def take(shot: Shot, out_dir: Path) -> Path:
    """Run the app for one shot and save its SVG; returns the file written."""
    app = fixture_app(WORK_BASE / shot.name, store=shot.store, config=shot.config)
    async with app.run_test(size=shot.size) as pilot:
        await settle(pilot)
        for key in shot.keys:
            await pilot.press(key)
            await settle(pilot)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        out_dir.mkdir(parents=True, exist_ok=True)
        saved = app.save_screenshot(filename=f"{shot.name}.svg", path=str(out_dir))
    return Path(saved)


async def take_all(names: Sequence[str] = (), out_dir: Path = OUT_DIR) -> list[Path]:
    chosen = [shot for shot in SHOTS if not names or shot.name in names]
    unknown = set(names) - {shot.name for shot in SHOTS}
    if unknown:
        raise SystemExit(
            f"unknown screenshot(s): {', '.join(sorted(unknown))}; known: {', '.join(s.name for s in SHOTS)}"
        )
    return [await take(shot, out_dir) for shot in chosen]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/screenshots.py", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only these shots (default: all)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the SVGs (default: screenshots/)")
    args = parser.parse_args(argv)
    for path in asyncio.run(take_all(args.names, args.out)):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

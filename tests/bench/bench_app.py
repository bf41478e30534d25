"""Benchmark of the app (a script, not collected by pytest):

- time to first paint: from starting the app until the browse screen is on screen
  (before indexing has finished);
- time until the first rows and until all rows are filled;
- append-to-screen latency: a TodoWrite appended to the selected session's transcript
  until the checklist shows it (median and worst of N appends).

Usage:
    .venv/bin/python tests/bench/bench_app.py                   # generates a corpus in tmp
    .venv/bin/python tests/bench/bench_app.py --corpus DIR      # an existing corpus (e.g. bench-corpus)
    .venv/bin/python tests/bench/bench_app.py --sessions 1000 --appends 20

Every planwatch folder points into a temp folder; the host's ~/.claude and XDG folders
are never touched.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(HERE), str(HERE.parent)]

from measure import corpus_or_generated, point_folders_into  # noqa: E402


def generate(root: Path, sessions: int, seed: int = 7) -> None:
    """A corpus of Claude and Codex sessions (sizes skewed: most small, a few large)."""
    import random

    from corpus import ClaudeWriter, CodexWriter, claude_path, codex_path

    rnd = random.Random(seed)
    start = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
    for n in range(sessions):
        size = rnd.choice([20_000] * 8 + [300_000] * 3 + [3_000_000])
        cwd = f"/home/dev/project{n % 40}"
        when = start - timedelta(minutes=n * 7)
        items = [
            (f"Step {k} of session {n}", rnd.choice(["pending", "in_progress", "completed"]))
            for k in range(rnd.randint(2, 8))
        ]
        if n % 3:
            session_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
            path = claude_path(root / "claude" / "projects", cwd, session_id)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fh:
                writer = ClaudeWriter(fh, session_id, cwd, start=when, seed=n)
                writer.prompt(f"Work on part {n}")
                writer.todo_write(items)
                while fh.tell() < size:
                    writer.filler(min(64_000, size - fh.tell() + 1000))
                writer.todo_write(items[::-1])
        else:
            thread_id = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
            path = codex_path(root / "codex" / "sessions", thread_id, when)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fh:
                writer = CodexWriter(fh, start=when, seed=n)
                writer.meta(thread_id, cwd)
                writer.prompt(f"Work on part {n}")
                writer.update_plan(items)
                while fh.tell() < size:
                    writer.filler(min(64_000, size - fh.tell() + 1000))
        stamp = when.timestamp()
        os.utime(path, (stamp, stamp))


async def measure(corpus: Path, work: Path, appends: int) -> dict[str, float]:
    from app_transcripts import ClaudeTranscript, option_texts

    from planwatch.tui.app import AppOptions, make_app
    from planwatch.tui.widgets.checklist import ChecklistView
    from planwatch.tui.widgets.session_list import SessionList

    roots = [p for p in (corpus / "claude" / "projects", corpus / "codex" / "sessions", corpus / "acp") if p.exists()]
    if not roots:
        roots = [corpus]
    live_claude = work / "live-claude"
    live = ClaudeTranscript(live_claude, "/home/dev/live")
    live.custom_title("Live session").todo_write([("first", "pending")])
    roots.append(live_claude / "projects")

    figures: dict[str, float] = {}
    started = time.perf_counter()
    app = make_app(
        AppOptions(roots=roots, config_path=work / "config.yaml", store_root=work / "store", state_dir=work / "state")
    )
    async with app.run_test(size=(120, 36)) as pilot:
        while getattr(app.screen, "id", None) != "browse":
            await pilot.pause(0.005)
        figures["first paint (s)"] = time.perf_counter() - started
        figures["indexed when painted"] = float(len(app.entries()))
        session_list = app.screen.query_one("#sessions", SessionList)
        while not session_list.option_count:
            await pilot.pause(0.005)
        figures["first rows (s)"] = time.perf_counter() - started
        while app.scan_done is None or session_list.option_count < len(app.entries()):
            await pilot.pause(0.01)
        figures["all rows filled (s)"] = time.perf_counter() - started
        figures["sessions"] = float(session_list.option_count)
        # Follow the live session: select it and append plan calls.
        app.screen.select(live.session_id)
        t0 = time.perf_counter()
        while not app.following:
            await pilot.pause(0.01)
        figures["following after rows (s)"] = time.perf_counter() - t0
        latencies = []
        for n in range(appends):
            text = f"append number {n}"
            t0 = time.perf_counter()
            live.todo_write([("first", "completed"), (text, "pending")])
            deadline = t0 + 5
            while not any(text in row for row in option_texts(app.screen.query_one("#checklist", ChecklistView))):
                if time.perf_counter() > deadline:
                    shown = option_texts(app.screen.query_one("#checklist", ChecklistView))
                    entry = app.entry(live.session_id)
                    raise SystemExit(
                        f"append {n} did not show within 5 s; selected={app.screen.selected_id} "
                        f"indexed={entry is not None} shown={shown}"
                    )
                await pilot.pause(0.002)
            latencies.append(time.perf_counter() - t0)
            await pilot.pause(0.05)
        figures["append→screen median (ms)"] = statistics.median(latencies) * 1000
        figures["append→screen worst (ms)"] = max(latencies) * 1000
    # The same scan without the app, to tell the index's share from the UI's.
    from planwatch.core.index import SessionIndex

    t0 = time.perf_counter()
    SessionIndex(roots).scan()
    figures["index scan alone (s)"] = time.perf_counter() - t0
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="an existing corpus folder (claude/projects, codex/sessions, acp)")
    parser.add_argument("--sessions", type=int, default=300, help="sessions to generate without --corpus")
    parser.add_argument("--appends", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planwatch-bench-app-") as tmp:
        work = Path(tmp)
        point_folders_into(work)
        corpus = corpus_or_generated(args.corpus, work, args.sessions, generate)
        figures = asyncio.run(measure(corpus, work, args.appends))
    for name, value in figures.items():
        print(f"{name:32} {value:10.3f}")


if __name__ == "__main__":
    main()

"""One order of sessions, the same every time: newest activity first and sessions active
at the same moment by their id, in `planwatch sessions --json` (cold and warm) and in
the app's list alike, whatever order the files are found and read in.

The app's test boots the whole app because its point is the scan itself: the list the
real index builds from files read in a shuffled order, matched against the CLI's."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.session_list import SessionList

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def write_tied_sessions(claude: Path, seed: int) -> tuple[list[str], list[str]]:
    """Twenty sessions whose last records share one time and three newer ones, each
    file's mtime shuffled (the scan reads the newest file first, so the read order is the
    shuffle's); returns (the newer ids, the tied ids)."""
    rng = random.Random(seed)
    tied, newer = [], []
    for n in range(23):
        at = AT if n < 20 else AT + timedelta(minutes=n)
        transcript = ClaudeTranscript(claude, f"/home/dev/p{n % 4}", at=at)
        transcript.prompt(f"Job {n}").todo_write([(f"Step {n}", "pending")])
        (tied if n < 20 else newer).append(transcript.session_id)
    files = sorted((claude / "projects").rglob("*.jsonl"))
    stamps = [(AT - timedelta(days=1, minutes=m)).timestamp() for m in range(len(files))]
    rng.shuffle(stamps)
    for path, stamp in zip(files, stamps, strict=True):
        os.utime(path, (stamp, stamp))
    return newer, tied


def expected_order(newer: list[str], tied: list[str]) -> list[str]:
    return list(reversed(newer)) + sorted(tied)


def cli_ids() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "planwatch.tui.cli", "sessions", "--json"],
        cwd=ROOT,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return [row["id"] for row in json.loads(out.stdout)]


def test_sessions_json_lists_sessions_active_at_one_moment_by_id_cold_and_warm(isolated_env) -> None:  # type: ignore[no-untyped-def]
    newer, tied = write_tied_sessions(isolated_env.claude, seed=1)
    cold = cli_ids()
    warm = cli_ids()
    assert cold == expected_order(newer, tied)
    assert warm == cold


@pytest.mark.parametrize("seed", [2, 3])
def test_the_order_does_not_depend_on_the_order_the_files_are_read_in(isolated_env, seed) -> None:  # type: ignore[no-untyped-def]
    newer, tied = write_tied_sessions(isolated_env.claude, seed=seed)
    assert cli_ids() == expected_order(newer, tied)


@pytest.mark.asyncio
async def test_the_apps_list_takes_the_same_order_as_sessions_json(isolated_env) -> None:  # type: ignore[no-untyped-def]
    newer, tied = write_tied_sessions(isolated_env.claude, seed=4)
    listed_by_cli = cli_ids()
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False, clock=lambda: AT + timedelta(hours=1)))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        session_list = app.screen.query_one("#sessions", SessionList)
        await until(pilot, lambda: len(session_list.shown_ids) == 23, what="every row")
        assert session_list.shown_ids == listed_by_cli == expected_order(newer, tied)
        assert app.screen.selected_id == newer[-1]

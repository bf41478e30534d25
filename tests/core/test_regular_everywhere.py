"""Only regular files are opened, everywhere: a FIFO where planwatch's warm-start cache,
its overrides file, a transcript head or an OpenCode database should be is passed by,
never waited on. Real processes under a deadline (a hang fails the test instead of
stalling it), the real app started by a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cli_run import planwatch
from conftest import IsolatedEnv

from planwatch.core.overrides import Overrides
from planwatch.core.transcripts.opencode_sql import DatabaseProblem, read_transaction
from planwatch.core.transcripts.sniff import is_database_file, read_small

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 60

APP_START = r"""
import asyncio
from pathlib import Path
import sys
from planwatch.tui.app import AppOptions, make_app

async def main() -> None:
    app = make_app(AppOptions(config_path=Path(sys.argv[1]), follow=False))
    async with app.run_test(size=(100, 30)) as pilot:
        while app.scan_done is None:
            await pilot.pause(0.05)
    print("started")

asyncio.run(main())
"""


def _cli(isolated_env: IsolatedEnv, *args: str) -> subprocess.CompletedProcess[str]:
    """`planwatch ARGS` with the warm-start cache in the test's folder, under the deadline."""
    cache = {"PLANWATCH_CACHE": str(isolated_env.root / "cache")}
    return planwatch(*args, env=cache, timeout=DEADLINE, stdin=subprocess.DEVNULL)


def _start_app(isolated_env: IsolatedEnv) -> subprocess.CompletedProcess[str]:
    """The real app started by a real process, until its first scan is done (prints
    `started`), as `_cli` runs the command line."""
    return subprocess.run(
        [sys.executable, "-c", APP_START, str(isolated_env.config)],
        cwd=ROOT,
        env={**os.environ, "PLANWATCH_CACHE": str(isolated_env.root / "cache")},
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        stdin=subprocess.DEVNULL,
    )


def test_a_fifo_warm_start_cache_never_hangs_sessions(isolated_env: IsolatedEnv) -> None:
    cache = isolated_env.root / "cache"
    cache.mkdir()
    os.mkfifo(cache / "warm-start.json")
    done = _cli(isolated_env, "sessions", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("[")


def test_a_fifo_overrides_file_never_hangs_the_app_at_start(isolated_env: IsolatedEnv) -> None:
    os.mkfifo(isolated_env.state / "overrides.json")
    started = _start_app(isolated_env)
    assert started.stdout.strip() == "started", started.stderr
    assert Overrides().load() is None  # and loading it again says so, without waiting


def test_fifos_where_a_transcript_head_or_a_database_should_be_are_passed_by(tmp_path: Path) -> None:
    fifo = tmp_path / "opencode.db"
    os.mkfifo(fifo)
    assert read_small(fifo) is None and is_database_file(fifo) is False
    try:
        read_transaction(fifo, lambda connection: None)
    except DatabaseProblem as exc:
        assert "is a FIFO, not a regular file" in str(exc)
    else:
        raise AssertionError("a FIFO was opened as a database")
    regular = tmp_path / "small.bin"  # the positive twin: a regular file is read
    regular.write_bytes(b"SQLite format 3\x00rest")
    assert read_small(regular) == b"SQLite format 3\x00rest" and is_database_file(regular)


def test_a_fifo_settings_file_never_hangs_the_app_at_start(isolated_env: IsolatedEnv) -> None:
    os.mkfifo(isolated_env.config)
    started = _start_app(isolated_env)
    assert started.stdout.strip() == "started", started.stderr


def test_an_approvals_ledger_that_is_no_regular_file_is_named_as_such_and_approves_nothing(
    isolated_env: IsolatedEnv,
) -> None:
    assert _cli(isolated_env, "task", "add", "Ship").returncode == 0
    ledger = isolated_env.store / ".approvals"
    for make, kind in ((os.mkfifo, "a FIFO"), (os.mkdir, "a folder")):
        make(ledger)
        done = _cli(isolated_env, "task", "approve", "t1")
        assert done.returncode != 0
        # Not "No such device or address" (a FIFO opened for writing with no reader).
        assert (
            f"Could not record the approval of t1 in {ledger} (is {kind}, not a regular file); it was not approved."
            in (done.stderr)
        )
        assert "approved:" not in (isolated_env.store / "tasks/t1.md").read_text()
        os.rmdir(ledger) if kind == "a folder" else os.unlink(ledger)


def test_show_names_a_fifo_as_no_regular_file(isolated_env: IsolatedEnv) -> None:
    fifo = isolated_env.root / "session.jsonl"
    os.mkfifo(fifo)
    done = _cli(isolated_env, "show", str(fifo))
    assert done.returncode == 1
    assert done.stderr == f"planwatch: {fifo} is a FIFO, not a regular file: not read\n"  # not "no session or file"

"""A warm start shows the newest sessions first: the first rows the app's list receives
are the sessions with the newest remembered activity, however the files' mtimes are
ordered (a folder copied or restored), the cursor is on the newest, and the list the
warm start ends with is the cold start's.

The test boots the whole app twice (cold, then warm on the cache the cold start wrote)
because what it holds is the order of the first scan's batches and the list they fill."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.core.transcripts.warmcache import cache_file
from planwatch.tui.app import FIRST_SCREEN_ROWS, AppOptions, make_app
from planwatch.tui.widgets.session_list import SessionList

START = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=1)
SESSIONS = 120


def write_sessions_with_mtimes_reversed(claude: os.PathLike[str]) -> list[str]:
    """SESSIONS sessions, newest activity first in the list returned; each file's mtime
    says the opposite (the oldest session's file is the newest), so the files are found
    oldest session first."""
    ids = []
    for n in range(SESSIONS):
        transcript = ClaudeTranscript(claude, f"/home/dev/p{n % 7}", at=START - timedelta(minutes=5 * n))  # type: ignore[arg-type]
        transcript.custom_title(f"Session {n}").todo_write([("Read", "completed"), ("Write", "pending")])
        stamp = time.time() - 3600 + n
        os.utime(transcript.path, (stamp, stamp))
        ids.append(transcript.session_id)
    return ids


async def first_rows(pilot, session_list: SessionList) -> list[str]:  # type: ignore[no-untyped-def]
    """The rows the list holds the first time it holds any (polled every few ms: the
    app's next repaint of a first scan's list comes at least SCAN_REPAINT_EVERY later)."""
    deadline = time.monotonic() + 30
    while not session_list.shown_ids:
        assert time.monotonic() < deadline, "timed out waiting for the first rows"
        await pilot.pause(0.002)
    return list(session_list.shown_ids)


async def start(isolated_env, newest_first: list[str], *, warm: bool) -> list[str]:  # type: ignore[no-untyped-def]
    """One start of the app until every row is shown; its list. Warm: its first rows are
    a first screen of the newest sessions, in order."""
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = None
        while session_list is None:
            try:
                session_list = app.screen.query_one("#sessions", SessionList)
            except Exception:
                await pilot.pause(0.002)
        first = await first_rows(pilot, session_list)
        if warm:
            assert len(first) >= FIRST_SCREEN_ROWS
            assert first == newest_first[: len(first)]
        await until(pilot, lambda: app.screen.selected_id == newest_first[0], what="the cursor on the newest")
        await until(
            pilot, lambda: app.scan_done is not None and len(session_list.shown_ids) == SESSIONS, what="every row"
        )
        assert app.screen.selected_id == newest_first[0]
        if not warm:
            # The cache is written once the scan is said done.
            await until(pilot, cache_file().exists, what="the warm-start cache written")
        return list(session_list.shown_ids)


@pytest.mark.asyncio
async def test_a_warm_start_shows_the_newest_remembered_sessions_first_whatever_the_mtimes(isolated_env) -> None:  # type: ignore[no-untyped-def]
    newest_first = write_sessions_with_mtimes_reversed(isolated_env.claude)
    cold = await start(isolated_env, newest_first, warm=False)
    warm = await start(isolated_env, newest_first, warm=True)
    assert warm == cold == newest_first

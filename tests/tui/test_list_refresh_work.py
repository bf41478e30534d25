"""What keeps keys prompt while a long list fills: a row's face holds until the instant it
says, and the objects a first scan made are out of the cyclic collector's reach once it
is done. How long keys wait is the benchmark's to say (tests/bench/bench_keys.py); these
tests hold the mechanism.

The collector tests boot the whole app because what they hold is the app's first scan
and its end (a refresh's work per row runs on a host app: test_screen_browse_refresh_work.py)."""

from __future__ import annotations

import gc
import random
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import SessionRow, face_until, row_face

START = datetime.now(UTC).replace(microsecond=0)
SESSIONS = 120


def test_a_rows_face_holds_until_face_until_and_not_at_it() -> None:
    """`face_until` is what lets a refresh skip making every row's age: the face (running
    mark, age) reads the same for every clock before that instant, and otherwise at it."""
    rnd = random.Random(7)
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    spans = [200, 4_000, 200_000, 4_000_000, 40_000_000, 4_000_000_000]
    for _ in range(5_000):
        updated = now - timedelta(seconds=rnd.uniform(-5, rnd.choice(spans)))
        row = SessionRow("s", "claude", "t", "/f", updated, 0, 0)
        clock = now + timedelta(seconds=rnd.uniform(-60, 60))
        face, ends = row_face(row, clock), face_until(row, clock)
        assert ends > clock
        for at in (clock, clock + (ends - clock) / 2, ends - timedelta(microseconds=1)):
            assert row_face(row, at) == face, (updated, clock, at)
        if ends.year < 9999:
            assert row_face(row, ends) != face, (updated, clock, ends)
    # A session stamped in year 1 reads 99y+ for ever, aware or not.
    for tz in (UTC, None):
        old = SessionRow("s", "claude", "t", "/f", datetime(1, 1, 1, tzinfo=tz), 0, 0)
        assert face_until(old, now.replace(tzinfo=tz)).year == 9999


@pytest.fixture
def sessions(isolated_env) -> list[ClaudeTranscript]:
    made = []
    for n in range(SESSIONS):
        transcript = ClaudeTranscript(isolated_env.claude, f"/home/dev/p{n % 7}", at=START - timedelta(minutes=5 + n))
        transcript.custom_title(f"Session {n}").todo_write([("Read", "completed"), ("Write", "pending")])
        made.append(transcript)
    return made


@pytest.mark.asyncio
async def test_the_first_scan_leaves_its_objects_frozen_and_the_app_gives_them_back(sessions, isolated_env) -> None:
    """Once the first scan is done, what it made is out of the cyclic collector's reach
    (no collection walks it again during a refresh); an app that ends gives it back."""
    assert gc.get_freeze_count() == 0
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        session_list = app.screen.query_one("#sessions", SessionList)
        await until(pilot, lambda: app.scan_done is not None and session_list.option_count == SESSIONS, what="scan")
        # (The warm-start cache is written after the scan is said done, the collector
        # paused again meanwhile.)
        await until(pilot, gc.isenabled, what="the collector running again")
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


@pytest.mark.asyncio
async def test_an_app_whose_scan_froze_nothing_unfreezes_nothing(sessions, isolated_env) -> None:
    """With the collector already paused by someone else when the scan starts, the scan
    freezes nothing, and the app that ends must not give back what another owner froze."""
    gc.freeze()  # another owner's frozen objects
    theirs = gc.get_freeze_count()
    assert theirs > 0
    gc.disable()
    try:
        app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
        async with app.run_test(size=(120, 30)) as pilot:
            session_list = app.screen.query_one("#sessions", SessionList)
            await until(pilot, lambda: app.scan_done is not None and session_list.option_count == SESSIONS, what="scan")
        # Still frozen, not ours to give back (a few of them died meanwhile: reference
        # counting frees frozen objects too, so the count may only fall by those).
        assert 0 < gc.get_freeze_count() <= theirs
    finally:
        gc.enable()
        gc.unfreeze()

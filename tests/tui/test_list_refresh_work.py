"""What keeps keys prompt while a long list fills: a refresh of the session list does per
row only what is cheap (no age made, no option made, no height measured for a row that
did not change), the rows' text waits until drawn, and the objects a first scan made
are out of the cyclic collector's reach once it is done. How long keys wait is the
benchmark's to say (tests/bench/bench_keys.py); these tests hold the mechanism."""

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
async def test_a_refresh_makes_anew_only_the_rows_that_changed_and_draws_only_what_shows(
    sessions, isolated_env
) -> None:
    """A new session lands at the top of a long list (every row moves down one): the
    other rows keep their options and visuals, the rows off screen have had no age and
    no text made, and the list's line map is the one Textual's own measuring gives."""
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 30)) as pilot:
        session_list = app.screen.query_one("#sessions", SessionList)
        await until(pilot, lambda: app.following and session_list.option_count == SESSIONS, what="the list")
        await pilot.pause()
        before = {option.id: option for option in session_list.options}
        visuals = {key: option.row_visual for key, option in before.items()}
        # Rows well below the screen that no frame drew (the first scan's batches land
        # in any order, so a row now far down may have shown at the top for a while:
        # its text was made then, as drawing makes it).
        undrawn = [option.id for option in session_list.options[40:] if option.row_visual._content is None]
        assert len(undrawn) >= 20, len(undrawn)

        # In a folder listed already, with a pill like the others: the columns hold.
        newest = ClaudeTranscript(isolated_env.claude, "/home/dev/p0", at=START - timedelta(minutes=1))
        newest.custom_title("A new session").todo_write([("One", "completed"), ("Two", "pending")])
        await until(pilot, lambda: session_list.option_count == SESSIONS + 1, what="the new row")
        await pilot.pause()

        options = list(session_list.options)
        assert session_list.selected_id == options[0].id  # the cursor on the newest, still
        assert "A new session" in options[0].row_visual.content.plain
        made_anew = [option.id for option in options[1:] if option is not before[option.id]]
        assert made_anew == []  # the moved rows keep their options
        assert all(option.row_visual is visuals[option.id] for option in options[1:])
        # Rows below the screen that no frame drew: the refresh made no age and no text.
        below = [option for option in options if option.id in set(undrawn)]
        assert len(below) == len(undrawn)
        assert all(option.row_visual._face is None for option in below)
        assert all(option.row_visual._content is None for option in below)
        # The line map made at once for one-line rows is the one OptionList measures:
        # one line per option, option n on line n (what a click on a line picks).
        assert session_list.virtual_size.height == SESSIONS + 1
        for y in range(session_list.scrollable_content_region.height):
            strip = session_list.render_line(y)
            picks = {segment.style.meta.get("option") for segment in strip if segment.style is not None}
            assert picks - {None} == {session_list.scroll_offset.y + y}
        # OptionList's own maps, as its set_options leaves them, read through its API.
        assert all(session_list.get_option_index(option.id) == n for n, option in enumerate(options) if option.id)
        assert all(session_list.get_option(option.id) is option for option in options if option.id)


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

"""The end of the first scan (the last batch's refresh, every session's first plan kept,
the full repaint: tens of milliseconds of the UI thread at ten thousand sessions) is taken
in turns of the event loop, so a key pressed meanwhile is acted on between them, not
after all of them; and the end still leaves the cursor where the person put it. How long
keys wait is the benchmark's to say (tests/bench/bench_keys.py)."""

from __future__ import annotations

import asyncio
import time

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry
from conftest import IsolatedEnv
from test_list_refresh_work import SESSIONS, sessions  # noqa: F401 (the fixture: 120 sessions)

from planwatch.tui import app as app_module
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.messages import ScanFinished
from planwatch.tui.screens import browse as browse_module
from planwatch.tui.widgets.session_list import SessionList


async def _turns_until(condition, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Give the event loop turns (none longer than a millisecond of sleep) until
    `condition()` holds: a state that lasts only between two slices is seen."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.001)


@pytest.mark.asyncio
@pytest.mark.usefixtures("sessions")
async def test_a_key_pressed_while_the_scan_s_end_is_taken_is_acted_on_between_its_slices(
    isolated_env, monkeypatch
) -> None:
    # One session's plan a slice and 30 ms between slices: the end of 120 sessions takes
    # over a hundred turns of the loop and 3.6 s, so a key pressed at the first is acted
    # on before the last even on a loaded machine.
    monkeypatch.setattr(app_module, "SCAN_END_SLICE", 1)
    monkeypatch.setattr(app_module, "SCAN_END_GAP", 0.03)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: getattr(app.screen, "id", None) == "browse", what="the browse screen")
        session_list = app.screen.query_one("#sessions", SessionList)
        await _turns_until(lambda: app.scan_finishing is not None, "the scan's end to begin")
        # The loop ran this test between the end's slices: the end is not done yet.
        assert app.scan_done is None
        await _turns_until(lambda: session_list.option_count == SESSIONS, "the last batch's refresh")
        assert session_list.highlighted == 0  # the cursor starts on the newest session
        newest = session_list.shown_ids[:2]
        app.simulate_key("j")  # as the terminal's driver hands a key to the loop
        await _turns_until(lambda: session_list.highlighted == 1, "the key's move")
        # Acted on before the end's last slice, not after all of them.
        assert app.scan_done is None
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        assert app.scan_finishing is None
        # The full repaint at the end keeps the person's choice.
        assert session_list.highlighted == 1
        assert session_list.selected_id == newest[1]
        assert app.screen.selected_id == newest[1]


def _long_list_host(
    isolated_env: IsolatedEnv, monkeypatch: pytest.MonkeyPatch, count: int, older_by: int, **browse_constants: object
) -> BrowseHost:
    """A browse screen over `count` sessions (the newest `older_by` minutes old) whose
    refreshes while a first scan runs are split from 10 rows on; `browse_constants`:
    the screen's other constants for the test (SLICE_GAP, ROWS_PER_TURN)."""
    monkeypatch.setattr(browse_module, "SPLIT_FROM_ROWS", 10)
    for name, value in browse_constants.items():
        monkeypatch.setattr(browse_module, name, value)
    return BrowseHost(
        isolated_env.store, [entry(f"s{n}", f"Session {n}", minutes_ago=n + older_by) for n in range(count)]
    )


@pytest.mark.asyncio
async def test_while_a_first_scan_fills_a_long_list_a_batch_is_shown_a_turn_after_its_rows_and_a_key_runs_between(
    isolated_env, monkeypatch
) -> None:
    """A batch's refresh while the first scan runs is several callbacks: its rows are
    made in a later turn of the loop than the batch is told, the list, the followed and
    the selected session are shown in the turn after; a key pressed meanwhile is acted
    on first, and the rows shown after keep the session it chose. A full repaint
    meanwhile (the scan's end) shows the rows itself and drops those waiting."""
    # A long gap, so that the key surely comes between the turns.
    app = _long_list_host(isolated_env, monkeypatch, 30, 1, SLICE_GAP=2.0)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = app.browse.session_list()
        await until(pilot, lambda: session_list.option_count == 30, what="the list")
        assert session_list.highlighted == 0 and app.browse.selected_id == "s0"
        app.model.scan_done = None  # a first scan still filling the list
        app.model.put(entry("new", "Newest", minutes_ago=0))
        assert app.browse.rows_pending  # its rows are to be made ...
        assert session_list.option_count == 30  # ... and are not shown yet
        app.simulate_key("j")
        await _turns_until(lambda: session_list.highlighted == 1, "the key's move")
        assert session_list.option_count == 30  # the key ran before the batch was shown
        await _turns_until(lambda: session_list.option_count == 31, "the batch shown")
        # The person's session stays under the cursor as the new row lands above it.
        assert session_list.selected_id == "s1"
        await until(pilot, lambda: app.browse.selected_id == "s1", what="the chosen session")

        app.model.put(entry("newer", "Newer still", minutes_ago=0))
        assert session_list.option_count == 31
        app.model.scan_done = ScanFinished([])
        app.model.scan_finished.publish(app.model.scan_done)
        # The end's full repaint showed the batch at once and dropped the rows waiting.
        assert session_list.option_count == 32
        assert app.browse._made_for_list is None and app.browse._show_timer is None
        assert session_list.selected_id == "s1"


@pytest.mark.asyncio
async def test_a_batch_of_many_sessions_is_made_a_few_rows_a_turn_and_shows_as_one_made_at_once(
    isolated_env, monkeypatch
) -> None:
    """While a first scan fills the list, a refresh that brings more sessions than
    ROWS_PER_TURN makes their rows a few a turn of the loop (a key pressed meanwhile is
    acted on between the turns) and shows them once all are made: the list ends as a full
    repaint shows it, row for row."""
    app = _long_list_host(isolated_env, monkeypatch, 20, 30, ROWS_PER_TURN=4, SLICE_GAP=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = app.browse.session_list()
        await until(pilot, lambda: session_list.option_count == 20, what="the list")
        app.model.scan_done = None  # a first scan still filling the list
        made_turns = 0
        real_make = app.browse._make_some_rows

        def counted() -> bool:
            nonlocal made_turns
            made_turns += 1
            return real_make()

        monkeypatch.setattr(app.browse, "_make_some_rows", counted)
        # 17 new sessions in one batch, some between the old ones (by their activity).
        batch = [entry(f"n{n}", f"New {n}", minutes_ago=2 * n) for n in range(17)]
        for new in batch:
            app.model.put(new, tell=False)
        app.model.sessions_changed.publish({new.session.id for new in batch})
        assert app.browse.rows_pending and session_list.option_count == 20
        app.simulate_key("j")
        await _turns_until(lambda: session_list.highlighted == 1, "the key's move")
        assert session_list.option_count == 20  # the key ran before the batch was shown
        await _turns_until(lambda: session_list.option_count == 37, "the batch shown")
        assert made_turns >= 5  # 17 rows, 4 a turn
        assert not app.browse.rows_pending
        assert session_list.selected_id == "s1"  # the person's session kept under the cursor
        shown = [option.prompt.plain for option in session_list.options]
        ids = session_list.shown_ids
        app.model.scan_done = ScanFinished([])
        app.model.scan_finished.publish(app.model.scan_done)  # a full repaint, every row made again
        await pilot.pause()
        assert session_list.shown_ids == ids
        assert [option.prompt.plain for option in session_list.options] == shown


@pytest.mark.asyncio
@pytest.mark.usefixtures("sessions")
async def test_the_scan_s_end_waits_for_the_rows_still_made_in_slices(isolated_env, monkeypatch) -> None:
    """The scan's end lets a long list finish making and showing its last batches' rows
    before its full repaint, which then finds every row made; the list is whole when the
    scan is said to be done."""
    monkeypatch.setattr(browse_module, "SPLIT_FROM_ROWS", 10)
    monkeypatch.setattr(browse_module, "ROWS_PER_TURN", 7)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: getattr(app.screen, "id", None) == "browse", what="the browse screen")
        pending_at_end: list[bool] = []
        real_repaint = app.screen.scan_finished

        def noted(event: ScanFinished) -> None:
            pending_at_end.append(app.screen.rows_pending)
            real_repaint(event)

        monkeypatch.setattr(app.screen, "scan_finished", noted)
        app.scan_finished.unsubscribe(app.screen)
        app.scan_finished.subscribe(app.screen, noted, immediate=True)
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        session_list = app.screen.query_one("#sessions", SessionList)
        assert session_list.option_count == SESSIONS
        assert pending_at_end == [False]


@pytest.mark.asyncio
@pytest.mark.usefixtures("sessions")
async def test_the_warm_start_cache_is_written_once_the_app_has_taken_the_scan_s_end(isolated_env, monkeypatch) -> None:
    """Summarizing every file for the warm-start cache holds the interpreter the UI shares:
    the scan's thread writes it once the app has taken the scan's end (its last refresh
    and repaint shown), not while the end's slices run."""
    from planwatch.core.transcripts.warmcache import cache_file
    from planwatch.tui import live as live_module

    monkeypatch.setattr(app_module, "SCAN_END_SLICE", 1)
    monkeypatch.setattr(app_module, "SCAN_END_GAP", 0.01)  # the end's slices: 120 turns, over a second
    monkeypatch.setattr(live_module, "SAVE_AFTER_SCAN_END_AT_MOST", 60.0)
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: getattr(app.screen, "id", None) == "browse", what="the browse screen")
        await _turns_until(lambda: app.scan_finishing is not None, "the scan's end to begin")
        while app.scan_done is None:
            assert not cache_file().exists()  # not while the end's slices run
            await asyncio.sleep(0.005)
        await until(pilot, cache_file().exists, what="the warm-start cache")

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


@pytest.mark.asyncio
async def test_while_a_first_scan_fills_a_long_list_a_batch_is_shown_a_turn_after_its_rows_and_a_key_runs_between(
    isolated_env, monkeypatch
) -> None:
    """A batch's refresh while the first scan runs is two callbacks: its rows are made
    when the batch is told, the list, the followed and the selected session are shown in
    a later turn of the loop; a key pressed between them is acted on first, and the
    rows shown after keep the session it chose. A full repaint meanwhile (the scan's end)
    shows the rows itself and drops those waiting."""
    # A long gap, so that the key surely comes between the two halves.
    monkeypatch.setattr(browse_module, "SPLIT_FROM_ROWS", 10)
    monkeypatch.setattr(browse_module, "SLICE_GAP", 2.0)
    app = BrowseHost(isolated_env.store, [entry(f"s{n}", f"Session {n}", minutes_ago=n + 1) for n in range(30)])
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = app.browse.session_list()
        await until(pilot, lambda: session_list.option_count == 30, what="the list")
        assert session_list.highlighted == 0 and app.browse.selected_id == "s0"
        app.model.scan_done = None  # a first scan still filling the list
        app.model.put(entry("new", "Newest", minutes_ago=0))
        assert app.browse._made_for_list is not None  # its rows are made ...
        assert session_list.option_count == 30  # ... and not shown yet
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

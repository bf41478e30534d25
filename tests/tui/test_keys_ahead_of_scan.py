"""A key of the person's goes ahead of the first scan: the scan's thread shares the
interpreter with the UI, so from a key's arrival until the app has handled it and painted
the screen after it, the scan waits between files (at most KEY_WAIT_AT_MOST). How long
keys wait is the benchmark's to say (tests/bench/bench_keys.py)."""

from __future__ import annotations

import threading
import time

import pytest
from app_transcripts import until
from test_list_refresh_work import SESSIONS, sessions  # noqa: F401 (the fixture: 120 sessions)

from planwatch.tui import live as live_module
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.session_list import SessionList


@pytest.mark.asyncio
@pytest.mark.usefixtures("sessions")
async def test_the_first_scan_waits_between_files_while_a_key_is_on_its_way_and_goes_on_once_it_is_handled(
    isolated_env, monkeypatch
) -> None:
    monkeypatch.setattr(live_module, "KEY_WAIT_AT_MOST", 60.0)  # only the key's handling ends the wait
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    held = threading.Event()
    give_way = app.feed.give_way

    def noted() -> None:
        if app.feed.key_on_its_way:
            held.set()
        give_way()

    app.index.pause_point = noted
    app.feed.key_arrived()  # a key on its way before the scan reads its first file
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, held.is_set, what="the scan to reach a key on its way")
        read = app.index.progress[0]
        for _ in range(5):
            await pilot.pause()
            assert app.index.progress[0] == read  # not one file more while the key waits
        assert read < SESSIONS and app.scan_done is None
        app.feed.key_handled()
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        assert app.screen.query_one("#sessions", SessionList).option_count == SESSIONS


@pytest.mark.asyncio
@pytest.mark.usefixtures("sessions")
async def test_a_key_is_on_its_way_from_its_arrival_until_its_action_has_run_and_the_screen_is_painted(
    isolated_env, monkeypatch
) -> None:
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan's end")
        session_list = app.screen.query_one("#sessions", SessionList)
        await until(pilot, lambda: not app.feed.key_on_its_way, what="no key on its way")
        cursor_at_arrival: list[int | None] = []
        arrived = app.feed.key_arrived

        def noted() -> None:
            cursor_at_arrival.append(session_list.highlighted)
            arrived()

        monkeypatch.setattr(app.feed, "key_arrived", noted)
        await pilot.press("j")
        assert cursor_at_arrival == [0]  # noted as the key reached the app, before its action
        await until(pilot, lambda: not app.feed.key_on_its_way, what="the key handled")
        assert session_list.highlighted == 1


def test_a_key_never_reported_handled_holds_the_scan_no_longer_than_key_wait_at_most(isolated_env) -> None:
    feed = make_app(AppOptions(config_path=isolated_env.config, follow=False)).feed
    feed.give_way()  # no key: no wait
    feed.key_arrived()
    started = time.monotonic()
    feed.give_way()
    waited = time.monotonic() - started
    assert live_module.KEY_WAIT_AT_MOST * 0.9 <= waited < live_module.KEY_WAIT_AT_MOST + 2.0
    assert feed.key_on_its_way  # not handled: the scan just stops waiting for it
    feed.key_handled()
    assert not feed.key_on_its_way

"""Live updates and pane mode (docs/app.md): a transcript growing on disk shows on screen
within a second, bursts coalesce, and pane mode follows the most recently active session."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, current_agent_row, option_texts, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.messages import SessionsChanged
from planwatch.tui.widgets.checklist import ChecklistView

pytestmark = pytest.mark.asyncio


def rows(app) -> list[str]:
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


def touch(path: Path, minutes_ago: float) -> None:
    stamp = time.time() - minutes_ago * 60
    os.utime(path, (stamp, stamp))


@pytest.fixture
def two(isolated_env) -> tuple[ClaudeTranscript, ClaudeTranscript]:
    now = datetime.now(UTC)
    api = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=now - timedelta(hours=2))
    api.custom_title("API work").todo_write([("Split the router", "in_progress")])
    web = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=now - timedelta(minutes=5))
    web.custom_title("Web work").todo_write([("Add the theme switch", "pending")])
    touch(api.path, 120)
    touch(web.path, 5)
    return api, web


async def ready(pilot, app) -> None:
    await until(pilot, lambda: app.scan_done is not None, what="the scan")
    await pilot.pause()


async def test_a_plan_call_appended_to_a_transcript_is_pushed_to_the_screen_by_the_file_watcher(
    two, isolated_env
) -> None:
    """An append reaches the screen with no key pressed, told by the system's file events
    (inotify), not found by a polling pass: nothing but the follower's short debounce
    stands between a write and the repaint. How long that takes is measured by
    tests/bench/bench_start.py (the live append), not asserted here."""
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id == web.session_id
        await until(pilot, lambda: app.following, what="the follower")
        assert app.index._following.observer_kind == "native"
        web.todo_write([("Add the theme switch", "completed"), ("Wire the CSS", "in_progress")])
        await until(pilot, lambda: "[▸] Working on Wire the CSS" in rows(app), what="the appended plan")
        assert rows(app)[1] == "[x] Add the theme switch"
        # The change is in the session's timeline (kept in memory only).
        timeline = app.timeline(web.session_id)
        assert timeline and "1 → 2 steps" in timeline[-1].what


async def test_a_burst_of_changes_is_one_repaint(two, isolated_env) -> None:
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        # Each repaint is one publication of the app's signal the screen repaints on.
        calls: list[set[str]] = []
        app.sessions_changed.subscribe(app.screen, lambda ids: calls.append(set(ids)), immediate=True)
        # What the follower thread does for 50 appends in a row: mark ids, post a message each.
        for _ in range(25):
            for session in two:
                app.feed.mark_changed([session.session_id])
        await pilot.pause()
        await pilot.pause()
        assert len(calls) == 1
        assert calls[0] == {two[0].session_id, two[1].session_id}
        # Posting the message on its own with nothing changed repaints nothing.
        app.post_message(SessionsChanged())
        await pilot.pause()
        assert len(calls) == 1


async def test_pane_mode_follows_the_most_recently_active_session(two, isolated_env) -> None:
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        screen = app.screen
        assert screen.has_class("-pane")
        assert not screen.query_one("#sessions-pane").display or screen.query_one("#sessions-pane").region.width == 0
        assert screen.selected_id == web.session_id
        assert "Web work" in str(screen.query_one("#session-title").render())
        await until(pilot, lambda: app.following, what="the follower")
        # The other agent becomes active: the pane follows it (its new lines carry now).
        api.at = datetime.now(UTC)
        api.todo_write([("Split the router", "completed"), ("Add auth", "in_progress")])
        await until(pilot, lambda: screen.selected_id == api.session_id, timeout=30.0, what="the pane to follow")
        await until(pilot, lambda: "[▸] Working on Add auth" in rows(app), timeout=30.0, what="the new plan")
        # Keys still tick in pane mode.
        await pilot.press("space")
        await pilot.pause()
        assert rows(app)[1] == "[·] Split the router  unticked by you"


async def test_pane_mode_with_cwd_follows_the_newest_session_of_that_folder(two, isolated_env) -> None:
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True, cwd=Path("/home/dev/api")))
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id == api.session_id
        assert rows(app)[1] == "[▸] Working on Split the router"


async def test_pane_mode_with_a_folder_without_sessions_says_so(two, isolated_env) -> None:
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True, cwd=Path("/home/dev/nothing")))
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id is None
        assert "No session in /home/dev/nothing yet." in str(app.screen.query_one("#session-title").render())


async def test_a_narrow_terminal_switches_to_pane_mode_and_back(two, isolated_env) -> None:
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        screen = app.screen
        assert not screen.has_class("-pane")
        await pilot.press("j")  # select the older session in the list
        assert screen.selected_id == api.session_id
        await pilot.resize_terminal(45, 30)
        await until(pilot, lambda: screen.has_class("-pane"), what="pane mode")
        assert screen.selected_id == api.session_id  # keeps the selected session
        await pilot.resize_terminal(120, 36)
        await until(pilot, lambda: not screen.has_class("-pane"), what="wide mode")
        assert screen.query_one("#sessions-pane").display


async def test_cli_arguments_reach_the_app(isolated_env, tmp_path) -> None:
    from planwatch.tui.cli import build_parser

    args = build_parser().parse_args(["--pane", "--cwd", str(tmp_path), "--root", str(tmp_path / "extra")])
    app = make_app(args)
    assert app.options.pane and app.options.cwd == tmp_path
    assert tmp_path / "extra" in app.index.roots_searched
    assert isolated_env.claude / "projects" in app.index.roots_searched


async def test_tmux_pane_folder_is_asked_only_inside_tmux(monkeypatch, tmp_path) -> None:
    from planwatch.tui.cli_app import tmux_pane_folder

    assert tmux_pane_folder() is None  # conftest unsets TMUX
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    script = fake_bin / "tmux"
    # A real executable on PATH standing in for tmux: prints the pane folder as tmux does.
    script.write_text(f'#!/bin/sh\n[ "$1" = display ] && echo {tmp_path}\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/tmp/tmux-1000/default,1,0")
    assert tmux_pane_folder() == str(tmp_path)


async def test_a_deleted_transcript_leaves_the_list_and_the_selection_moves_on(two, isolated_env) -> None:
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id == web.session_id
        await until(pilot, lambda: app.following, what="the follower")
        web.path.unlink()
        await until(pilot, lambda: app.screen.selected_id == api.session_id, timeout=30.0, what="the selection to move")
        assert len(option_texts(app.screen.query_one("#sessions"))) == 1
        assert rows(app)[1] == "[▸] Working on Split the router"


async def test_clicking_the_pill_opens_the_details(two, isolated_env) -> None:
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.click("#pill")
        await pilot.pause()
        assert app.screen.query_one("#details").has_class("-open")


async def test_the_highlight_stays_on_its_item_when_the_agent_inserts_a_step(two, isolated_env) -> None:
    api, web = two
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert current_agent_row(checklist).text == "Add the theme switch"
        await until(pilot, lambda: app.following, what="the follower")
        web.todo_write([("Pick the palette", "in_progress"), ("Add the theme switch", "pending")])
        await until(pilot, lambda: "[▸] Working on Pick the palette" in rows(app), timeout=30.0, what="the new step")
        assert current_agent_row(checklist).text == "Add the theme switch"


async def test_the_app_sweeps_finished_plans_when_it_starts(isolated_env) -> None:
    """docs/store.md, The sweep: looked at when the core starts (here: the app)."""
    from planwatch.core.settings import Settings
    from planwatch.core.store.identity import Caller
    from planwatch.core.store.store import Store
    from planwatch.core.store.tools import run_tool

    store = Store(isolated_env.store)
    long_ago = datetime.now(UTC) - timedelta(days=30)
    for name, args in (
        ("plan_create", {"title": "Old"}),
        ("plan_set", {"plan": "p1", "status": "done"}),
        ("task_add", {"title": "Old step", "plan": "p1"}),
        ("plan_create", {"title": "Live"}),
        ("plan_set", {"plan": "p2", "status": "active"}),
    ):
        run_tool(name, store, Settings(), Caller(by="dana"), args, now=lambda: long_ago)
    isolated_env.config.write_text("sweepAfterDays: 7\n")
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: not (isolated_env.store / "plans" / "p1.md").exists(), what="the sweep")
    assert not (isolated_env.store / "tasks" / "t1.md").exists()
    assert (isolated_env.store / "plans" / "p2.md").exists()  # active plans never go


async def test_the_app_writes_the_warm_start_cache_after_saying_the_first_scan_is_done(two, isolated_env) -> None:
    # The app is told the scan is done before the cache is written (writing it holds the
    # interpreter for a while at 10,000 sessions): the cache must still be written then.
    from planwatch.core.transcripts.warmcache import WarmCache

    app = make_app(AppOptions(config_path=isolated_env.config))
    assert app.index.save_after_scan is True
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert app.index.save_after_scan is False
        await until(
            pilot, lambda: WarmCache.load().count_under([isolated_env.claude]) == 2, what="the warm-start cache"
        )
        await until(pilot, lambda: app.following, what="the follower")

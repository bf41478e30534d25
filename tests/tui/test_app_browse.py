"""The browse screen as part of the whole app (docs/app.md), under Pilot: the keys that
open the app's other screens and quit, the reading switch applied from the settings, the
store followed through the app's one watcher, an injected index, the demo.

These boot the whole app because each is about the app around the screen: the keys are
the app's and switch its screens, the settings, the store's watcher and the index are
the app's to apply, and the demo is a way the app starts. What is the screen's alone
(the list, the checklist, the keys, details, empty states, literal text, the palette's
commands on it) is tested on a host app with a model of its own:
tests/tui/test_screen_browse.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


@pytest.fixture
def sessions(isolated_env) -> list[ClaudeTranscript]:
    now = datetime.now(UTC)
    old = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=now - timedelta(hours=5))
    old.prompt("Refactor the API").todo_write([("Read the handlers", "completed"), ("Split the router", "pending")])
    new = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=now - timedelta(minutes=20))
    new.custom_title("Web: add dark mode").todo_write(
        [("Add the theme switch", "completed"), ("Wire the CSS", "in_progress"), ("Write tests", "pending")]
    )
    return [old, new]


def options(isolated_env, **kw) -> AppOptions:
    return AppOptions(config_path=isolated_env.config, **kw)


async def test_t_comma_and_question_mark_open_their_screens_and_q_quits(sessions, isolated_env) -> None:
    from planwatch.tui.screens.help import HelpScreen
    from planwatch.tui.screens.settings import SettingsScreen

    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("comma")
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        assert type(app.screen).__name__ == "StoreScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.id == "browse"
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_turning_reading_off_and_on_in_settings_applies_at_once(sessions, isolated_env) -> None:
    from planwatch.core.settings import Settings
    from planwatch.tui.messages import SettingsSaved

    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        # The scan can finish before the newest session is selected and drawn: wait for both.
        await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
        await pilot.pause()
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert "[x] Add the theme switch" in option_texts(checklist)
        app.post_message(SettingsSaved(Settings(read_agent_plans=False)))
        await until(
            pilot,
            lambda: (
                "Agent plan" in option_texts(checklist)[:1]
                and len(option_texts(checklist)) > 1
                and option_texts(checklist)[1].startswith("Reading agents' plans is off")
            ),
            what="reading off",
        )
        await until(pilot, lambda: all(e.plan.counts() == (0, 0) for e in app.entries()), what="plans dropped")
        app.post_message(SettingsSaved(Settings(read_agent_plans=True)))
        await until(pilot, lambda: "[x] Add the theme switch" in option_texts(checklist), what="reading on again")


async def test_the_store_view_follows_the_store_through_the_apps_one_watcher(sessions, isolated_env) -> None:
    from planwatch.tui.screens.store import StoreScreen

    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        await pilot.press("t")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StoreScreen)
        # The app's store service watches the store folder: the view has no watcher of its own.
        assert app.store_service.watching and not hasattr(screen, "_watcher")
        tasks = isolated_env.store / "tasks"
        tasks.mkdir(parents=True, exist_ok=True)
        (tasks / "t9.md").write_text("---\nid: t9\ntitle: Written elsewhere\nstatus: todo\n---\n")
        await until(pilot, lambda: "t9" in screen.snapshot.tasks, timeout=30, what="the outside write in the view")


async def test_a_task_written_to_the_store_by_another_process_shows_under_my_items(sessions, isolated_env) -> None:
    app = make_app(options(isolated_env))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        # The store watcher starts on mount and watches from then on.
        assert app.store_service.watching
        tasks = isolated_env.store / "tasks"
        tasks.mkdir(parents=True, exist_ok=True)
        (tasks / "t9.md").write_text(
            f"---\nid: t9\ntitle: Ask design about contrast\nstatus: doing\nsession: {sessions[1].session_id}\n---\n"
        )
        checklist = app.screen.query_one("#checklist", ChecklistView)
        await until(
            pilot,
            lambda: "[▸] Ask design about contrast  doing" in option_texts(checklist),
            timeout=30,
            what="the hand-written task",
        )
        assert "1 open" in option_texts(app.screen.query_one("#sessions", SessionList))[0]


async def test_an_injected_scanned_index_is_shown_without_a_scan(sessions, isolated_env) -> None:
    from planwatch.core.index import SessionIndex

    index = SessionIndex([isolated_env.claude / "projects"])
    index.scan()
    app = make_app(options(isolated_env, index=index, scan=False, follow=False))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan-finished message")
        await pilot.pause()
        rows = option_texts(app.screen.query_one("#sessions", SessionList))
        assert len(rows) == 2 and "Web: add dark mode" in rows[0]


async def test_demo_opens_the_bundled_fixtures_and_never_writes_into_the_repo(isolated_env) -> None:
    from planwatch.tui.app_options import FIXTURES
    from planwatch.tui.cli import build_parser

    def demo_files() -> dict[Path, bytes]:
        folders = (FIXTURES / "store" / "demo", FIXTURES / "transcripts")
        return {p: p.read_bytes() for folder in folders for p in folder.rglob("*") if p.is_file()}

    before = demo_files()
    app = make_app(build_parser().parse_args(["--demo"]))
    assert not app.store_root.is_relative_to(FIXTURES)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        assert len(app.entries()) >= 5
        await pilot.press("a", "x", "enter")
        await until(
            pilot, lambda: "[ ] x" in option_texts(app.screen.query_one("#checklist", ChecklistView)), what="the item"
        )
        await pilot.press("tab", "space")
        await app.workers.wait_for_complete()
    assert demo_files() == before

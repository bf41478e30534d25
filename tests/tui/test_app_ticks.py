"""Ticks through the whole app (docs/app.md, The checklist): overrides on agent items
saved by key only and surviving a restart, and quick ticks on an own item shown at once
and landing in order. The screen's own behaviour (undo, a click on the mark, own items
added, edited and dropped) is tested on a host app: test_screen_browse_ticks.py.

These boot the whole app because their point is the app's: the overrides file it saves
(keys, never text), read again on a restart and against a changed transcript, and its
store writer draining quick ticks in order."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, option_texts, select_own, until

from planwatch.core.checklist import item_key
from planwatch.core.store.store import Store
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView

pytestmark = pytest.mark.asyncio


@pytest.fixture
def session(isolated_env) -> ClaudeTranscript:
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=datetime.now(UTC) - timedelta(minutes=10))
    transcript.custom_title("Dark mode").todo_write(
        [
            ("Add the theme switch", "completed"),
            ("Wire the CSS", "in_progress"),
            ("Write tests", "pending"),
            ("Write tests", "pending"),
        ]
    )
    return transcript


def make(isolated_env):
    return make_app(AppOptions(config_path=isolated_env.config))


def rows(app) -> list[str]:
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


async def ready(pilot, app) -> None:
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.pause()


def overrides_file(isolated_env) -> dict:
    path = isolated_env.state / "overrides.json"
    return json.loads(path.read_text()) if path.exists() else {}


async def test_space_ticks_an_agent_item_as_an_override_kept_by_key(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "j", "space")  # the first "Write tests"
        await pilot.pause()
        assert rows(app)[3] == "[✓] Write tests  ticked by you"
        assert rows(app)[4] == "[ ] Write tests"  # the second occurrence is its own item
        await until(pilot, lambda: bool(overrides_file(isolated_env)), what="the overrides save")
    saved = overrides_file(isolated_env)
    assert saved["sessions"] == {session.session_id: {item_key("Write tests", 0): "completed"}}
    assert "Write tests" not in (isolated_env.state / "overrides.json").read_text()


async def test_overrides_survive_a_restart(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "space")  # untick the agent's done step
        await pilot.pause()
        assert rows(app)[1] == "[·] Add the theme switch  unticked by you"
        await until(pilot, lambda: bool(overrides_file(isolated_env)), what="the overrides save")
    again = make(isolated_env)
    async with again.run_test(size=(120, 36)) as pilot:
        await ready(pilot, again)
        assert rows(again)[1] == "[·] Add the theme switch  unticked by you"


async def test_a_reworded_item_loses_its_override(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "j", "space")
        await pilot.pause()
        assert rows(app)[3] == "[✓] Write tests  ticked by you"
    session.todo_write(
        [("Add the theme switch", "completed"), ("Wire the CSS", "in_progress"), ("Write the tests", "pending")]
    )
    again = make(isolated_env)
    async with again.run_test(size=(120, 36)) as pilot:
        await ready(pilot, again)
        assert rows(again)[3] == "[ ] Write the tests"


async def test_quick_ticks_on_an_own_item_land_in_order(session, isolated_env) -> None:
    app = make(isolated_env)
    store = Store(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        app.run_tool("task_add", {"title": "Mine", "session": session.session_id})
        await until(pilot, lambda: "[ ] Mine" in rows(app), what="the own item")
        await pilot.press("tab")
        select_own(app.screen.query_one("#checklist", ChecklistView), "t1")
        await pilot.press("space", "space", "space")  # done, todo, done — without waiting
        assert "[x] Mine" in rows(app)  # shown at once, before the writes land
        # Wait for the writer to drain: every write asked for so far has landed.
        await asyncio.get_running_loop().run_in_executor(None, app.store_service.drained().result)
        assert store.load().tasks["t1"].status == "done"
        await pilot.press("u")
        await until(pilot, lambda: store.load().tasks["t1"].status == "todo", what="the undo")
        await until(pilot, lambda: "[ ] Mine" in rows(app), what="the undone row")

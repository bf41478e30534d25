"""Ticks (docs/app.md, The checklist): overrides on agent items by key only, surviving a restart; undo;
the person's own items added, ticked, edited and dropped through the store tools."""

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
from planwatch.tui.widgets.item_editor import ItemEditor

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


async def test_choosing_the_agents_status_again_removes_the_override(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "space")
        await pilot.pause()
        assert rows(app)[2] == "[✓] Wire the CSS  ticked by you"
        await pilot.press("space")
        await pilot.pause()
        assert rows(app)[2] == "[▸] Working on Wire the CSS"
        assert app.overrides.for_session(session.session_id) == {}


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


async def test_u_undoes_the_last_tick(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "j", "space", "j", "space")
        await pilot.pause()
        assert rows(app)[3:5] == ["[✓] Write tests  ticked by you", "[✓] Write tests  ticked by you"]
        await pilot.press("u")
        await pilot.pause()
        assert rows(app)[3:5] == ["[✓] Write tests  ticked by you", "[ ] Write tests"]
        await pilot.press("u")
        await pilot.pause()
        assert rows(app)[3:5] == ["[ ] Write tests", "[ ] Write tests"]
        await pilot.press("u")  # nothing left: says so, changes nothing
        await pilot.pause()
        assert rows(app)[3:5] == ["[ ] Write tests", "[ ] Write tests"]


async def test_clicking_the_mark_ticks_the_item(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        checklist = app.screen.query_one("#checklist", ChecklistView)
        await pilot.click(checklist, offset=(1, 3))  # the mark of the first "Write tests"
        await pilot.pause()
        assert rows(app)[3] == "[✓] Write tests  ticked by you"
        await pilot.click(checklist, offset=(20, 4))  # on the text: selects, does not tick
        await pilot.pause()
        assert rows(app)[4] == "[ ] Write tests"
        assert checklist.highlighted == 4


async def test_own_items_add_tick_edit_drop_through_the_store(session, isolated_env) -> None:
    app = make(isolated_env)
    store = Store(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        for key in "Review [b]PR[/b]":
            await pilot.press(key if key != " " else "space")
        await pilot.press("enter")
        await until(pilot, lambda: "[ ] Review [b]PR[/b]" in rows(app), what="the new item")
        task = store.load().tasks["t1"]
        assert task.session == session.session_id and task.title == "Review [b]PR[/b]"
        assert task.folder == "/home/dev/web"
        # The session row shows the open count.
        assert "1 open" in option_texts(app.screen.query_one("#sessions"))[0]

        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert app.focused is checklist  # after `a`, on the new item
        select_own(checklist, "t1")
        await pilot.press("space")
        await until(pilot, lambda: store.load().tasks["t1"].status == "done", what="the tick")
        await until(pilot, lambda: "[x] Review [b]PR[/b]" in rows(app), what="the ticked row")
        await pilot.press("space")
        await until(pilot, lambda: store.load().tasks["t1"].status == "todo", what="the untick")

        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press("ctrl+u")  # clear the line
        for key in "Review PR 7":
            await pilot.press(key if key != " " else "space")
        await pilot.press("enter")
        await until(pilot, lambda: store.load().tasks["t1"].title == "Review PR 7", what="the edit")
        await until(pilot, lambda: "[ ] Review PR 7" in rows(app), what="the edited row")

        await pilot.press("d")
        await until(pilot, lambda: store.load().tasks["t1"].status == "dropped", what="the drop")
        await until(pilot, lambda: any(r.startswith("[-] Review PR 7") for r in rows(app)), what="the dropped row")
        await pilot.press("u")
        await until(pilot, lambda: store.load().tasks["t1"].status == "todo", what="the undo of the drop")


async def test_editor_escape_adds_nothing(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press("x", "escape")
        await until(pilot, lambda: app.screen.id == "browse", what="the editor to close")
        await app.workers.wait_for_complete()
    assert not (isolated_env.store / "tasks").exists() or not list((isolated_env.store / "tasks").iterdir())


async def test_edit_and_drop_refuse_agent_items(session, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "e", "d")
        await pilot.pause()
        assert app.screen.id == "browse"
        assert rows(app)[1] == "[x] Add the theme switch"


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

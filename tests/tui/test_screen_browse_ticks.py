"""Ticks on the browse screen (docs/app.md, The checklist), on a host app with a model of
its own: an override on an agent item by key, undo, a click on the mark, and the
person's own items added, ticked, edited and dropped through the store tools. (What needs
the whole app, overrides saved and read back after a restart, the optimistic display of
a quick tick, stays in test_app_ticks.py.)"""

from __future__ import annotations

import pytest
from app_transcripts import option_texts, select_own, until
from browse_host import BrowseHost, entry

from planwatch.core.model import PlanItem
from planwatch.core.store.store import Store
from planwatch.tui.screens.browse_model import OverrideRequested, ToolRequested
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.item_editor import ItemEditor

pytestmark = pytest.mark.asyncio

SESSION = "dark"


def host(isolated_env) -> BrowseHost:  # type: ignore[no-untyped-def]
    """The screen over one session with a step done, one in progress and one twice."""
    plan = (
        PlanItem(text="Add the theme switch", status="completed"),
        PlanItem(text="Wire the CSS", status="in_progress", active_form="Working on Wire the CSS"),
        PlanItem(text="Write tests"),
        PlanItem(text="Write tests"),
    )
    return BrowseHost(isolated_env.store, [entry(SESSION, "Dark mode", plan, 10, cwd="/home/dev/web")])


def rows(app: BrowseHost) -> list[str]:
    return option_texts(app.browse.query_one("#checklist", ChecklistView))


async def ready(pilot, app: BrowseHost) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.browse.selected_id == SESSION, what="the session")


async def test_choosing_the_agents_status_again_removes_the_override(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "space")
        await until(pilot, lambda: rows(app)[2] == "[✓] Wire the CSS  ticked by you", what="the tick")
        await pilot.press("space")
        await until(pilot, lambda: rows(app)[2] == "[▸] Working on Wire the CSS", what="the agent's status")
        assert app.model.overrides.get(SESSION, {}) == {}


async def test_u_undoes_the_last_tick(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "j", "space", "j", "space")
        ticked = ["[✓] Write tests  ticked by you", "[✓] Write tests  ticked by you"]
        await until(pilot, lambda: rows(app)[3:5] == ticked, what="both ticks")
        await pilot.press("u")
        await until(pilot, lambda: rows(app)[3:5] == ["[✓] Write tests  ticked by you", "[ ] Write tests"])
        await pilot.press("u")
        await until(pilot, lambda: rows(app)[3:5] == ["[ ] Write tests", "[ ] Write tests"])
        await pilot.press("u")  # nothing left: says so, changes nothing
        await until(pilot, lambda: app.notices[-1] == "Nothing to undo.", what="the notice")
        assert rows(app)[3:5] == ["[ ] Write tests", "[ ] Write tests"]


async def test_clicking_the_mark_ticks_the_item(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        checklist = app.browse.query_one("#checklist", ChecklistView)
        await pilot.click(checklist, offset=(1, 3))  # the mark of the first "Write tests"
        await until(pilot, lambda: rows(app)[3] == "[✓] Write tests  ticked by you", what="the tick")
        await pilot.click(checklist, offset=(20, 4))  # on the text: selects, does not tick
        await until(pilot, lambda: checklist.highlighted == 4, what="the cursor on the row")
        assert rows(app)[4] == "[ ] Write tests"
        assert len(app.requests(OverrideRequested)) == 1


async def test_own_items_add_tick_edit_drop_through_the_store(isolated_env) -> None:
    app = host(isolated_env)
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
        assert task.session == SESSION and task.title == "Review [b]PR[/b]"
        assert task.folder == "/home/dev/web"
        # The session row shows the open count.
        assert "1 open" in option_texts(app.browse.query_one("#sessions"))[0]

        checklist = app.browse.query_one("#checklist", ChecklistView)
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


async def test_editor_escape_adds_nothing(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press("x", "escape")
        await until(pilot, lambda: app.screen.id == "browse", what="the editor to close")
        await app.workers.wait_for_complete()
        assert app.requests(ToolRequested) == []  # no tool asked for
    assert not (isolated_env.store / "tasks").exists() or not list((isolated_env.store / "tasks").iterdir())


async def test_edit_and_drop_refuse_agent_items(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "e", "d")
        await until(pilot, lambda: len(app.notices) == 2, what="both refusals said")
        assert app.screen.id == "browse"
        assert rows(app)[1] == "[x] Add the theme switch"

"""The session list says how it is viewed, and keys act where they mean something, on
the browse screen over a model of its own (a host app, no scan): the list's mode line
names the count and the mode (running only, a filter, the order); when the selected
session leaves the list the selection follows the list (none when it shows none, and
nothing can be ticked); `space`, `e` and `d` change the checklist only with the
checklist focused (from the session list they move there first, and say so); the
details start at the top of each session's text."""

from __future__ import annotations

from datetime import timedelta

import pytest
from app_transcripts import option_texts, select_own, until
from browse_host import NOW, BrowseHost, entry
from textual.widgets import Static

from planwatch.core.model import PlanItem
from planwatch.core.store.store import Store
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.details import DetailsPanel
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


def three(isolated_env) -> BrowseHost:  # type: ignore[no-untyped-def]
    """A running session (its last record a minute ago) and two idle ones, newest first."""
    entries = [
        entry(sid, title, (f"{title} step", f"{title} more"), ago, cwd=folder)
        for sid, title, folder, ago in (
            ("running", "Running one", "/home/dev/web", 1),
            ("api", "Idle api", "/home/dev/api", 90),
            ("docs", "Idle docs", "/home/dev/docs", 300),
        )
    ]
    return BrowseHost(isolated_env.store, entries)


async def ready(pilot, app: BrowseHost) -> SessionList:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.browse.selected_id is not None, what="the newest session")
    return app.browse.session_list()


def shown(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    widget = app.screen.query_one(selector, Static)
    return str(widget.render()) if widget.display else ""


def checklist_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


def overrides(app: BrowseHost, session_id: str) -> dict[str, str]:
    return dict(app.model.overrides.get(session_id, {}))


async def test_the_lists_mode_line_says_the_count_and_the_mode(isolated_env) -> None:
    app = three(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert shown(app, "#sessions-mode") == "3 sessions · newest first"
        await pilot.press("r")
        assert shown(app, "#sessions-mode") == "1 of 3 sessions · running · newest first"
        await pilot.press("r", "O")
        assert shown(app, "#sessions-mode") == "3 sessions · grouped by folder"
        await pilot.press("O", "O", "slash", *"Idle")
        await until(
            pilot,
            lambda: shown(app, "#sessions-mode") == "2 of 3 sessions · matching “Idle” · newest first",
            what="the filter's count",
        )
        await pilot.press("escape")
        await until(pilot, lambda: shown(app, "#sessions-mode") == "3 sessions · newest first", what="the filter gone")


async def test_running_only_with_none_running_clears_the_selection_and_space_ticks_nothing(isolated_env) -> None:
    app = three(isolated_env)
    app.model.clock = NOW + timedelta(hours=1)  # nothing ran in the last minutes
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        session_list = await ready(pilot, app)
        before = app.screen.selected_id
        assert before == "running"
        await pilot.press("r")
        assert session_list.shown_ids == []
        assert app.screen.selected_id is None
        assert shown(app, "#sessions-mode") == "0 of 3 sessions · running · newest first"
        assert "No session ran in the last minutes." in shown(app, "#sessions-empty")
        assert "r shows every session again" in shown(app, "#sessions-empty")
        assert "No session listed." in shown(app, "#session-title")
        assert "[ ] Running one step" not in checklist_rows(app)
        await pilot.press("space", "tab", "space")
        assert overrides(app, before) == {}  # the hidden session kept its items
        await pilot.press("r")
        assert app.screen.selected_id == before


async def test_when_the_selected_session_leaves_the_list_the_selection_follows_it(isolated_env) -> None:
    app = three(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await ready(pilot, app)
        await pilot.press("j")  # the person chooses an idle session
        assert app.screen.selected_id == "api"
        await pilot.press("r")  # it leaves the list: the cursor and the checklist move on
        assert session_list.shown_ids == ["running"]
        assert app.screen.selected_id == "running"
        assert "[ ] Running one step" in checklist_rows(app)
        await pilot.press("tab", "space")
        assert overrides(app, "running")
        assert overrides(app, "api") == {}


async def test_space_in_the_session_list_moves_to_the_checklist_and_ticks_nothing(isolated_env) -> None:
    app = three(isolated_env)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        session_list = await ready(pilot, app)
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert app.focused is session_list
        before = checklist_rows(app)
        await pilot.press("space")
        assert app.focused is checklist
        assert checklist_rows(app) == before and overrides(app, "running") == {}
        assert "Moved to the checklist" in app.notices[-1]
        await pilot.press("space")  # now it acts on the item under the checklist's cursor
        assert overrides(app, "running")
        assert any("ticked by you" in row for row in checklist_rows(app))


async def test_e_and_d_in_the_session_list_move_to_the_checklist_and_change_nothing(isolated_env) -> None:
    from planwatch.tui.widgets.item_editor import ItemEditor

    app = three(isolated_env)
    store = Store(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press(*"Mine", "enter")
        await until(pilot, lambda: "[ ] Mine" in checklist_rows(app), what="the new item")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        select_own(checklist, "t1")
        session_list.focus()
        await pilot.pause()
        await pilot.press("d")
        assert app.focused is checklist
        await pilot.pause()
        assert store.load().tasks["t1"].status == "todo"
        session_list.focus()
        await pilot.pause()
        await pilot.press("e")
        assert app.focused is checklist and not isinstance(app.screen, ItemEditor)
        await pilot.press("d")  # with the checklist focused it drops
        await until(pilot, lambda: store.load().tasks["t1"].status == "dropped", what="the drop")


async def test_the_details_start_at_the_top_of_each_sessions_text(isolated_env) -> None:
    long_steps = [PlanItem(text=f"Step number {n} of a long plan", status="in_progress") for n in range(60)]
    app = BrowseHost(
        isolated_env.store,
        [
            entry(f"p{n}", title, long_steps, 10 + n, cwd=f"/home/dev/p{n}")
            for n, title in enumerate(("First", "Second"))
        ],
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("enter", "tab", "tab")
        panel = app.screen.query_one("#details", DetailsPanel)
        assert app.focused is panel
        await until(pilot, lambda: panel.max_scroll_y > 10, what="details taller than the panel")
        await pilot.press("G")
        await until(pilot, lambda: panel.scroll_y > 10, what="the details scrolled down")
        app.screen.query_one("#sessions", SessionList).focus()
        await pilot.press("j")  # another session
        await until(
            pilot, lambda: "Second" in str(app.screen.query_one("#details-body", Static).render()), what="its details"
        )
        assert panel.scroll_y == 0

"""How the browse screen answers a person (a host app with a model of its own, no
scan): a pane started as one has the checklist focused, narrowing the window keeps the
selected session, undo acts on the session on screen and says what it undid, the item
editor's cursor and the details' focus and scrolling. (What needs the whole app, its
footer, palette, themes, help and the ways out, stays in test_app_ux.py.)"""

from __future__ import annotations

import pytest
from app_transcripts import option_texts, until
from browse_host import BrowseHost, web_and_api

from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.details import DetailsPanel
from planwatch.tui.widgets.item_editor import ItemEditor
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


async def ready(pilot, app: BrowseHost) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.browse.selected_id is not None, what="the newest session")


def checklist_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


async def test_pane_mode_starts_with_the_checklist_focused_so_j_and_space_act_on_it(isolated_env) -> None:
    """`--pane`: `j j space` ticks the third step, not the first."""
    app = BrowseHost(isolated_env.store, web_and_api(), pane=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert app.focused is checklist
        await pilot.press("j", "j", "space")
        await pilot.pause()
        rows = checklist_rows(app)
        assert "[✓] Write tests  ticked by you" in rows
        assert "[x] Add the theme switch" in rows  # the first item is left alone


async def test_narrowing_the_window_keeps_the_selected_session(isolated_env) -> None:
    """Below the pane width the app keeps the session on screen."""
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("down")
        await pilot.pause()
        chosen = "api"
        assert app.screen.selected_id == chosen
        await pilot.resize_terminal(50, 30)
        await until(pilot, lambda: app.screen.pane, what="pane mode")
        await pilot.pause()
        assert app.screen.selected_id == chosen
        assert "[x] Read the handlers" in checklist_rows(app)
        assert app.focused is app.screen.query_one("#checklist")
        await pilot.resize_terminal(120, 36)
        await until(pilot, lambda: not app.screen.pane, what="wide again")
        await pilot.pause()
        assert app.screen.selected_id == chosen
        assert app.screen.query_one("#sessions", SessionList).selected_id == chosen


async def test_undo_acts_on_the_visible_session_and_says_what_it_undid(isolated_env) -> None:
    """A tick in one session is not undone from another, silently."""
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await ready(pilot, app)
        await pilot.press("tab", "j", "j", "space")  # tick "Write tests" in the newest session
        await pilot.pause()
        assert "[✓] Write tests  ticked by you" in checklist_rows(app)
        await pilot.press("tab", "down", "u")  # the other session: nothing of its own to undo
        await pilot.pause()
        assert app.notices[-1] == "Nothing to undo in this session."
        await pilot.press("up")
        await pilot.pause()
        assert "[✓] Write tests  ticked by you" in checklist_rows(app)  # untouched
        await pilot.press("u")
        await pilot.pause()
        assert app.notices[-1] == "Undid: ticked “Write tests”"
        assert "[ ] Write tests" in checklist_rows(app)


async def test_edit_puts_the_cursor_at_the_end_names_the_item_and_keeps_the_checklist_visible(isolated_env) -> None:
    """After `a` the cursor is on the new item."""
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press(*"Ship", "enter")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: "[ ] Ship" in checklist_rows(app), what="the new item")
        await until(pilot, lambda: checklist.current_own_row() is not None, what="the cursor on it")
        assert checklist.current_own_row().title == "Ship"
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        editor = app.screen
        assert "Edit “Ship”" in str(editor.query_one("Label").render())
        box = editor.query_one("#item-title")
        assert box.cursor_position == len("Ship") and box.selected_text == ""
        # The browse screen stays drawn behind the dialog.
        drawn = app.export_screenshot().replace("&#160;", " ")
        assert "Wire the CSS" in drawn and "My items" in drawn
        await pilot.press(*" it", "enter")
        await until(pilot, lambda: "[ ] Ship it" in checklist_rows(app), what="the edited item")


async def test_details_take_focus_and_scroll_from_the_keyboard(isolated_env) -> None:
    """Tab reaches the details, PageDown and j scroll them."""
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 16)) as pilot:
        await ready(pilot, app)
        await pilot.press("enter")
        panel = app.screen.query_one("#details", DetailsPanel)
        await until(pilot, lambda: panel.has_class("-open"), what="the details")
        await pilot.press("tab", "tab")  # list → checklist → details
        assert app.focused is panel
        assert panel.max_scroll_y > 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert panel.scroll_y > 0
        await pilot.press("home", "j")
        await pilot.pause()
        assert panel.scroll_y == 1
        await pilot.press("tab")
        assert app.focused is app.screen.query_one("#sessions")

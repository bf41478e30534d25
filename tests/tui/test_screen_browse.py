"""The browse screen on a host app with a model of its own (no index, no scan): it shows
what its `BrowseModel` holds and sends the person's requests up as messages."""

from __future__ import annotations

import pytest
from app_transcripts import option_texts, until
from browse_host import BrowseHost, entry
from textual.app import App, ComposeResult

from planwatch.core.model import PlanItem
from planwatch.tui.screens.browse_model import OverrideRequested, SessionShown
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import SessionRow
from planwatch.tui.widgets.sessions_pane import SessionsPane

pytestmark = pytest.mark.asyncio


async def test_the_screen_shows_its_models_newest_session_and_sends_a_tick_up(isolated_env) -> None:
    app = BrowseHost(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.browse
        await until(pilot, lambda: screen.selected_id == "s-new", what="the newest session")
        checklist = screen.query_one("#checklist", ChecklistView)
        assert [row.text for row in checklist.checklist.agent_rows] == ["Write the parser", "Test it"]
        await until(pilot, lambda: [m.session_id for m in app.requests(SessionShown)] == ["s-new"])

        await pilot.press("tab", "space")  # the checklist, then tick its first item
        await until(pilot, lambda: app.requests(OverrideRequested) != [], what="the tick sent up")
        tick = app.requests(OverrideRequested)[0]
        assert (tick.session_id, tick.status) == ("s-new", "completed")
        await until(pilot, lambda: checklist.checklist.agent_rows[0].status == "completed", what="the tick shown")

        await pilot.press("u")  # undo: the override taken back, sent up the same way
        await until(pilot, lambda: checklist.checklist.agent_rows[0].status == "pending", what="the undo shown")
        assert [m.status for m in app.requests(OverrideRequested)] == ["completed", None]
        assert app.notices[-1] == "Undid: ticked “Write the parser”"

        await pilot.press("tab", "j")  # back to the list (the details are closed), the next session
        await until(pilot, lambda: screen.selected_id == "s-old", what="the other session")
        assert [row.text for row in checklist.checklist.agent_rows] == ["Read them"]


async def test_a_tick_acts_on_the_models_item_by_its_key_not_on_the_row_the_widget_shows(isolated_env) -> None:
    app = BrowseHost(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.browse
        await until(pilot, lambda: screen.selected_id == "s-new", what="the newest session")
        checklist = screen.query_one("#checklist", ChecklistView)
        await pilot.press("tab", "down")  # the checklist's second item, "Test it"
        assert checklist.current_ref() is not None and checklist.current_ref().index == 1
        key = checklist.checklist.agent_rows[1].key
        # The agent finished "Test it" and put a step above it; the screen is not told yet
        # (its paint is a change behind): the tick still means the item the cursor is on,
        # as the model holds it now (done: the tick unticks it).
        done = PlanItem(text="Test it", status="completed")
        app.model.put(entry("s-new", "Ship the parser", ("Read the spec", "Write the parser", done), 1), tell=False)
        assert checklist.checklist.agent_rows[1].status == "pending"  # what the widget shows
        await pilot.press("space")
        await until(pilot, lambda: app.requests(OverrideRequested) != [], what="the tick sent up")
        tick = app.requests(OverrideRequested)[0]
        assert (tick.session_id, tick.key, tick.status) == ("s-new", key, "pending")
        await until(
            pilot, lambda: any(t.startswith("[·] Test it") for t in option_texts(checklist)), what="the untick shown"
        )


class ListHost(App[None]):
    """The session list's pane alone, with rows a test gives it."""

    def __init__(self) -> None:
        super().__init__()
        self.highlighted: list[str | None] = []

    def compose(self) -> ComposeResult:
        yield SessionsPane(lambda: NOW_ROWS)

    def on_session_list_session_highlighted(self, event: SessionList.SessionHighlighted) -> None:
        self.highlighted.append(event.session_id)


NOW_ROWS = entry("x", "x").session.updated


def rows(*titles: str) -> list[SessionRow]:
    """A row per title, newest first; a session's id is its title's first word."""
    return [
        SessionRow.of(entry(title.split()[0], title, (), at).session, 0, 0, False, None, "/home/me")
        for at, title in enumerate(titles)
    ]


async def test_the_session_list_says_which_session_is_under_its_cursor_whatever_moved_it() -> None:
    app = ListHost()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(SessionsPane)
        session_list = pane.session_list
        said = app.highlighted

        pane.show(rows("ship the parser", "tidy the docs", "fix the build"), None)
        await until(pilot, lambda: said == ["ship"], what="the first row")  # the newest, under the cursor

        session_list.focus()
        await pilot.press("down")  # a key
        await until(pilot, lambda: said[-1] == "tidy", what="the moved cursor")

        pane.show(rows("ship the parser", "fix the build"), None)  # its session went: the cursor moves on
        await until(pilot, lambda: said[-1] == "ship", what="the row under the cursor")

        pane.show(rows("ship the parser", "tidy the docs", "fix the build"), None)
        pane.open_filter()
        await pilot.press("f", "i", "x")  # a filter
        await until(pilot, lambda: said[-1] == "fix", what="the one session the filter leaves")
        pane.close_filter()
        pane.cycle_order()  # an order (by folder: the same folder, the same rows)
        pane.show([], None)  # no rows: no session
        await until(pilot, lambda: said[-1] is None, what="no session")

        # A refresh that leaves the cursor's session where it is says nothing: the next
        # message is the next change's (messages arrive in the order they were posted).
        pane.show(rows("ship the parser"), None)
        await until(pilot, lambda: said[-1] == "ship", what="the one row")
        before = len(said)
        pane.show(rows("ship the parser", "tidy the docs"), None)
        pane.relayout()
        pane.show(rows("tidy the docs"), None)
        await until(pilot, lambda: said[-1] == "tidy", what="the next change")
        assert said[before - 1 :] == ["ship", "tidy"]

"""The browse screen on a host app with a model of its own (no index, no scan): it shows
what its `BrowseModel` holds and sends the person's requests up as messages."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from app_transcripts import current_agent_row, option_texts, select_own, until
from browse_host import BrowseHost, entry, web_and_api
from textual.app import App, ComposeResult
from textual.widgets import Input, Tooltip

from planwatch.core.model import PlanItem
from planwatch.core.store.schema import TaskRecord
from planwatch.core.store.store import Store
from planwatch.tui.messages import ScanFinished
from planwatch.tui.screens.browse_model import OverrideRequested, SessionShown, ToolRequested
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.item_editor import ItemEditor
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


async def test_edit_and_drop_act_on_the_models_own_item_by_its_key_not_on_the_row_the_widget_shows(
    isolated_env,
) -> None:
    store = Store(isolated_env.store)
    store.add_task(lambda i: TaskRecord(id=i, title="Ship", status="todo", session="s-new"))
    app = BrowseHost(isolated_env.store)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.browse
        checklist = screen.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: [own.title for own in checklist.checklist.own] == ["Ship"], what="the own item")
        checklist.focus()
        select_own(checklist, "t1")

        def changed_unseen(change: Callable[[], object]) -> None:
            """The store changes and the model holds the change; the screen is not told
            yet (its paint is a change behind)."""
            change()
            app.store_service.summary = app.store_service.read_summary()

        # Renamed elsewhere: `e` edits the item as the model holds it.
        changed_unseen(lambda: store.update_task("t1", lambda task: task.model_copy(update={"title": "Ship it"})))
        assert checklist.current_own_row() is not None and checklist.current_own_row().title == "Ship"
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        assert app.screen.query_one("#item-title", Input).value == "Ship it"
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the editor closed")

        # Done elsewhere: `d` drops it, and its undo gives back "done", not the "todo" shown.
        changed_unseen(lambda: store.update_task("t1", lambda task: task.model_copy(update={"status": "done"})))
        await pilot.press("d")
        await until(pilot, lambda: app.requests(ToolRequested) != [], what="the drop sent up")
        await pilot.press("u")
        await until(pilot, lambda: len(app.requests(ToolRequested)) == 2, what="the undo sent up")
        assert [m.payload for m in app.requests(ToolRequested)] == [
            {"task": "t1", "status": "dropped"},
            {"task": "t1", "status": "done"},
        ]
        await until(pilot, lambda: store.load().tasks["t1"].status == "done", what="the undo written")

        # Deleted elsewhere: `e` and `d` say it is gone and send nothing.
        await until(pilot, lambda: [own.status for own in checklist.checklist.own] == ["done"], what="the repaint")
        select_own(checklist, "t1")
        changed_unseen(lambda: store.delete_task("t1"))
        await pilot.press("e", "d")
        await until(pilot, lambda: len(app.notices) >= 2, what="both refusals said")
        assert app.notices[-2:] == ["That item is no longer in your items."] * 2
        assert app.screen is screen and len(app.requests(ToolRequested)) == 2


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


# -- the list, the checklist and the keys (these were driven through the whole app and
# its scan; what they assert is the screen's, shown from a model)


async def test_sessions_list_newest_activity_first_with_pill(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = app.browse.session_list()
        await until(pilot, lambda: session_list.option_count == 2, what="the rows")
        rows = option_texts(session_list)
        assert "Web: add dark mode" in rows[0] and "◔ 1/3" in rows[0]
        assert "Refactor the API" in rows[1] and "◑ 1/2" in rows[1]
        # A 70-column list names the harness by a letter and the folder by the tail that
        # tells it apart (so the title gets most of the row).
        assert " C Web: add dark mode" in rows[0] and " web " in rows[0] and " api " in rows[1]


async def test_checklist_shows_agent_plan_and_my_items(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        checklist = app.browse.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        rows = option_texts(checklist)
        assert rows[0] == "Agent plan · Claude Code todos"
        assert rows[1] == "[x] Add the theme switch"
        # A step in progress shows its active form.
        assert rows[2] == "[▸] Working on Wire the CSS"
        assert rows[3] == "[ ] Write tests"
        assert rows[4] == "My items"


async def test_typing_slash_filters_the_sessions(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = app.browse.session_list()
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        await pilot.press("slash", "r", "e", "f", "a")
        await until(pilot, lambda: len(option_texts(session_list)) == 1, what="the filtered list")
        assert "Refactor the API" in option_texts(session_list)[0]
        # The checklist follows the one session left.
        checklist = app.browse.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: "[x] Read the handlers" in option_texts(checklist), what="its checklist")
        await pilot.press("escape")
        await until(pilot, lambda: len(option_texts(session_list)) == 2, what="every session again")


async def test_j_k_and_arrows_move_between_sessions(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.browse
        await until(pilot, lambda: screen.selected_id == "web", what="the newest session")
        await pilot.press("j")
        assert screen.selected_id == "api"
        await pilot.press("k")
        assert screen.selected_id == "web"
        await pilot.press("down")
        assert screen.selected_id == "api"
        await pilot.press("up")
        assert screen.selected_id == "web"
        # tab moves into the checklist, where j/k move between items, skipping headers.
        await pilot.press("tab")
        checklist = screen.query_one("#checklist", ChecklistView)
        assert checklist.has_focus
        assert current_agent_row(checklist).text == "Add the theme switch"
        await pilot.press("j")
        assert current_agent_row(checklist).text == "Wire the CSS"
        await pilot.press("k")
        assert current_agent_row(checklist).text == "Add the theme switch"


@pytest.mark.parametrize("keys", [("enter",), ("tab", "enter")], ids=["from-list", "from-checklist"])
async def test_enter_opens_details_with_source_folder_branch_and_file(isolated_env, keys) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        await pilot.press(*keys)
        panel = app.browse.query_one("#details")
        await until(pilot, lambda: panel.has_class("-open") and panel.display, what="the details")
        body = str(app.browse.query_one("#details-body").render())
        assert "Source: Claude Code todos" in body
        assert "Working on Wire the CSS" in body  # the step in progress, by its active form
        assert "Folder: /home/dev/web" in body
        assert "Branch: main" in body
        assert f"File: {app.model.entry('web').session.path}" in body
        await pilot.press("escape")
        await until(pilot, lambda: not panel.has_class("-open"), what="the details closed")


async def test_pill_hover_card_shows_source_steps_and_overrides(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        await pilot.press("tab", "j", "j", "space")
        pill = app.browse.query_one("#pill")
        await until(pilot, lambda: "ticked by you: Write tests" in pill.tooltip.plain, what="the tick in the card")
        card = pill.tooltip
        assert "Source: Claude Code todos" in card.plain
        assert "Working on Wire the CSS" in card.plain


async def test_clicking_a_session_row_selects_it(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        await pilot.click("#sessions", offset=(10, 1))
        await until(pilot, lambda: app.browse.selected_id == "api", what="the clicked session")
        assert "[x] Read the handlers" in option_texts(app.browse.query_one("#checklist", ChecklistView))


async def test_hovering_the_pill_shows_the_hover_card(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36), tooltips=True) as pilot:
        await until(pilot, lambda: app.browse.selected_id == "web", what="the newest session")
        await pilot.hover("#pill")
        tooltip = app.browse.query_one(Tooltip)
        await until(pilot, lambda: tooltip.display, what="the hover card")
        shown = str(tooltip.render())
        assert "Source: Claude Code todos" in shown and "In progress:" in shown


async def test_hostile_text_renders_literally(isolated_env) -> None:
    steps = ("[link=https://evil.example]click[/link] me", "\x1b]0;pwned\x07 step")
    app = BrowseHost(
        isolated_env.store, [entry("x", "[bold red]Title[/] \x1b[31mred\x1b[0m", steps, 1, cwd="/home/dev/x")]
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id == "x", what="the session")
        rows = option_texts(app.browse.query_one("#checklist", ChecklistView))
        assert "[ ] [link=https://evil.example]click[/link] me" in rows
        assert "[ ] \\x1b]0;pwned\\x07 step" in rows
        title = option_texts(app.browse.session_list())[0]
        assert "[bold red]Title[/] \\x1" in title
        head = app.browse.query_one("#session-title").render()
        assert head.plain.startswith("[bold red]Title[/] \\x1b[31mred\\x1b[0m")
        assert [span.end - span.start for span in head.spans] == [len(head.plain)]  # one bold span, no red
        assert all("\x1b" not in row for row in rows)


def no_sessions(isolated_env, **kw) -> BrowseHost:  # type: ignore[no-untyped-def]
    """A host whose model holds no session after a scan of the Claude Code folder."""
    app = BrowseHost(isolated_env.store, [], **kw)
    app.model.scan_done = ScanFinished([isolated_env.claude / "projects"])
    return app


async def test_no_transcripts_says_where_it_looked_and_what_to_do(isolated_env) -> None:
    app = no_sessions(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        empty = app.browse.query_one("#sessions-empty")
        await until(pilot, lambda: "No agent transcripts found" in str(empty.render()), what="the empty list")
        assert empty.display
        text = str(empty.render())
        assert str(isolated_env.claude / "projects") in text
        assert "--root DIR" in text and "Settings" in text


async def test_no_transcripts_in_pane_mode_says_what_to_do(isolated_env) -> None:
    app = no_sessions(isolated_env, pane=True)
    async with app.run_test(size=(40, 30)) as pilot:
        head = app.browse.query_one("#session-title")
        await until(pilot, lambda: "No agent transcripts found" in str(head.render()), what="the pane's head")
        assert "--root DIR" in str(head.render())


async def test_reading_turned_off_says_so_and_shows_no_plan(isolated_env) -> None:
    app = BrowseHost(isolated_env.store, web_and_api())
    app.model.reading = False
    async with app.run_test(size=(120, 36)) as pilot:
        checklist = app.browse.query_one("#checklist", ChecklistView)
        note = ["Agent plan", "Reading agents' plans is off. Turn it on in Settings (press ,) → Privacy."]
        await until(pilot, lambda: option_texts(checklist)[:2] == note, what="the note")
        assert not any("theme switch" in row for row in option_texts(checklist))
        # Sessions are still listed; their agent counts are not read.
        assert len(option_texts(app.browse.session_list())) == 2


async def test_broken_store_record_is_named_in_the_status_line(isolated_env) -> None:
    tasks = isolated_env.store / "tasks"
    tasks.mkdir(parents=True)
    (tasks / "t1.md").write_text("---\nid: t1\ntitle: fine\nstatus: todo\n---\n")
    (tasks / "t2.md").write_text("---\nid: t2\ntitle: broken\nstatus: someday\n---\n")
    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        line = app.browse.query_one("#status-line")
        await until(pilot, lambda: "1 broken store record" in str(line.render()), what="the store read")
        assert "t2.md" in str(line.render())


async def test_command_palette_lists_the_commands(isolated_env) -> None:
    from planwatch.tui.commands import COMMANDS, PlanwatchCommands

    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.browse.selected_id is not None, what="the newest session")
        provider = PlanwatchCommands(app.screen)
        titles = [hit.text for hit in [h async for h in provider.discover()]]
        assert "Tick (space)" in titles and "Details (enter)" in titles
        assert len(titles) == sum(c.palette for c in COMMANDS)

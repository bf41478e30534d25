"""How the browse screen answers a person (a host app with a model of its own, no
scan): a pane started as one has the checklist focused, narrowing the window keeps the
selected session, undo acts on the session on screen and says what it undid, the item
editor's cursor and the details' focus and scrolling, `s` in pane mode, `y` copying (an
untitled session headed as its row), `o` and `E` running the pager and the editor,
grouping and running only, the cursor on an added item and the add dialog's own footer. (What needs the whole app, the footer of the
app's keys, the app's palette, themes, help and the other screens, stays in
test_app_ux.py.)"""

from __future__ import annotations

from dataclasses import replace

import pytest
from app_transcripts import option_texts, until
from browse_host import BrowseHost, entry, web_and_api
from toasts import Toasts

from planwatch.core.model import PlanItem
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


def palette_highlight(app) -> str:  # type: ignore[no-untyped-def]
    """The text of the command palette's highlighted hit ("" while it has none yet)."""
    from textual.command import CommandList

    hits = app.screen.query_one(CommandList)
    if hits.highlighted is None:
        return ""
    prompt = hits.get_option_at_index(hits.highlighted).prompt
    return str(getattr(prompt, "plain", prompt))


async def test_s_in_pane_mode_picks_another_session_and_the_pane_stays_on_it(isolated_env) -> None:
    """Beyond: in pane mode, a key picks another session of any folder."""
    from textual.command import CommandPalette

    app = BrowseHost(isolated_env.store, web_and_api(), pane=True)
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id == "web"
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"Refactor")
        await until(pilot, lambda: "Refactor the API" in palette_highlight(app), what="the session offered")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen.selected_id == "api", what="the chosen session")
        assert "[x] Read the handlers" in checklist_rows(app)
        # The newer session changing no longer moves the pane away.
        app.browse.sessions_changed({"web"})
        await pilot.pause()
        assert app.screen.selected_id == "api"


async def test_y_copies_the_checklist_as_markdown(isolated_env) -> None:
    """Beyond: `y` puts the checklist on the clipboard (OSC 52) as a Markdown task list."""
    app = BrowseHost(isolated_env.store, web_and_api())
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        await ready(pilot, app)
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard.splitlines()[:6] == [
            "# Web: add dark mode",
            "",
            "## Agent plan",
            "- [x] Add the theme switch",
            "- [ ] Wire the CSS (in progress)",
            "- [ ] Write tests",
        ]
        assert "## My items" in app.clipboard
        assert told.messages[-1].startswith("Copied the checklist")


async def test_the_copied_checklist_of_an_untitled_session_is_headed_as_its_row(isolated_env) -> None:
    steps = (PlanItem(text="Read", status="completed"), PlanItem(text="Write", status="in_progress"))
    app = BrowseHost(isolated_env.store, [entry("untitled", "", steps, cwd="/home/dev/api")])
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("y")
        await until(pilot, lambda: bool(app.clipboard), what="the copy")
        assert app.clipboard.splitlines()[0] == "# (no prompt) · Claude Code · 2 steps" == f"# {listed_title(app)}"


def listed_title(app) -> str:  # type: ignore[no-untyped-def]
    [row] = app.screen.query_one("#sessions").rows
    from planwatch.tui.widgets.session_rows import title_of

    return title_of(row)


async def test_o_pages_the_transcript_and_E_edits_the_record(isolated_env, tmp_path, monkeypatch) -> None:
    """Beyond: `o` runs $PAGER on the transcript (its text on the pager's input, made
    safe), `E` runs $EDITOR on an own item's record."""
    seen = tmp_path / "seen"
    paged = tmp_path / "paged"
    tool = tmp_path / "tool"
    tool.write_text(f'#!/bin/sh\n[ $# -eq 0 ] && cat > {paged}\necho "$@" >> {seen}\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PAGER", str(tool))
    monkeypatch.setenv("EDITOR", str(tool))
    monkeypatch.delenv("VISUAL", raising=False)
    # The newest session's transcript, a real file the pager is given.
    transcript = tmp_path / "web.jsonl"
    transcript.write_text('{"type":"user","message":{"content":"Add dark mode"}}\n')
    web, api = web_and_api()
    app = BrowseHost(isolated_env.store, [replace(web, session=replace(web.session, path=transcript)), api])
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("o")
        await until(pilot, lambda: seen.exists(), what="the pager")
        assert seen.read_text().strip() == ""  # no file named: the text comes on stdin
        assert paged.read_text() == transcript.read_text()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
        await pilot.press(*"Ship", "enter")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: checklist.current_own_row() is not None, what="the new item")
        await pilot.press("E")
        await until(pilot, lambda: len(seen.read_text().splitlines()) == 2, what="the editor")
        assert seen.read_text().splitlines()[1] == str(isolated_env.store / "tasks" / "t1.md")


async def test_g_groups_by_folder_and_r_shows_running_sessions_only(isolated_env) -> None:
    """Beyond: sort and group (newest first, by folder, by harness) and "running only"."""
    app = BrowseHost(
        isolated_env.store,
        [
            entry(f"s{n}", title, ("A step",), minutes, cwd=folder)
            for n, (folder, title, minutes) in enumerate(
                (("/home/dev/web", "Web one", 1), ("/home/dev/api", "API one", 30), ("/home/dev/web", "Web two", 60))
            )
        ],
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        session_list = app.screen.query_one("#sessions", SessionList)

        def titles() -> list[str]:
            # The sessions' rows; grouped, the folders' headings sit between them.
            rows = [option.prompt.plain for option in session_list.options if not option.disabled]
            return [next(t for t in ("Web one", "API one", "Web two") if t in row) for row in rows]

        assert titles() == ["Web one", "API one", "Web two"]  # newest first
        await pilot.press("O")
        await pilot.pause()
        assert titles()[0] == "API one" and set(titles()[1:]) == {"Web one", "Web two"}
        await pilot.press("r")
        await pilot.pause()
        assert titles() == ["Web one"]  # the one session that ran in the last minutes
        await pilot.press("r", "O", "O")
        await pilot.pause()
        assert session_list.order == "recent" and not session_list.running_only and len(titles()) == 3


async def test_after_a_the_cursor_moves_to_the_new_item_from_anywhere_and_space_ticks_it(isolated_env) -> None:
    """After `a` the cursor leaves the old item for the new one, in a 40×30
    pane: with the cursor on an agent step or on an older item, the new item takes the
    cursor, and space then ticks the new item, not the one the cursor was on."""
    app = BrowseHost(isolated_env.store, web_and_api(), pane=True)
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        checklist = app.screen.query_one("#checklist", ChecklistView)

        async def add(title: str) -> None:
            await pilot.press("a")
            await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the editor")
            await pilot.press(*title, "enter")
            await until(pilot, lambda: f"[ ] {title}" in checklist_rows(app), what=f"the item {title}")
            await until(
                pilot,
                lambda: (row := checklist.current_own_row()) is not None and row.title == title,
                what="the cursor on it",
            )

        await add("First")
        await pilot.press("home")  # back to the first agent step
        await pilot.pause()
        assert checklist.current_own_row() is None
        await add("Second")
        await pilot.press("space")
        await until(pilot, lambda: "[x] Second" in checklist_rows(app), what="the tick")
        assert "[ ] First" in checklist_rows(app)
        assert "[x] Add the theme switch" in checklist_rows(app)  # the agent's step untouched


async def test_the_add_dialog_has_its_own_footer_never_the_browse_keys(isolated_env) -> None:
    """The footer shows what the focused screen does: over the add dialog its cancel (enter
    saves, as the dialog says), not the browse screen's tick or drop that would act behind it."""

    app = BrowseHost(isolated_env.store, web_and_api())
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ItemEditor), what="the dialog")

        def shown() -> list[str]:
            return [key.description for key in app.screen.query("FooterKey") if key.display]

        await until(pilot, lambda: "Cancel" in shown(), what="the dialog's footer")
        assert not {"Tick", "Drop", "Add", "Undo", "Details"} & set(shown()), shown()
        await pilot.press(*"Ship it")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ItemEditor), what="the dialog to close")
        assert any("Ship it" in row for row in checklist_rows(app))

"""The session list says how it is viewed, and keys act where they mean something,
driven through the real app under Pilot: the list's mode line names the count and the
mode (running only, a filter, the order); when the selected session leaves the list the
selection follows the list (none when it shows none, and nothing can be ticked);
`space`, `e` and `d` change the checklist only with the checklist focused (from the
session list they move there first, and say so); the details start at the top of each
session's text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, option_texts, select_own, until
from textual.widgets import Static
from toasts import Toasts

from planwatch.core.store.store import Store
from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.details import DetailsPanel
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio

NOW = datetime.now(UTC)


@pytest.fixture
def three(isolated_env) -> list[ClaudeTranscript]:  # type: ignore[no-untyped-def]
    """A running session (its last record a minute ago) and two idle ones, newest first."""
    made = []
    for title, folder, ago in (
        ("Running one", "/home/dev/web", 1),
        ("Idle api", "/home/dev/api", 90),
        ("Idle docs", "/home/dev/docs", 300),
    ):
        transcript = ClaudeTranscript(isolated_env.claude, folder, at=NOW - timedelta(minutes=ago, seconds=4))
        transcript.custom_title(title).todo_write([(f"{title} step", "pending"), (f"{title} more", "pending")])
        made.append(transcript)
    return made


def make(isolated_env, **kw):  # type: ignore[no-untyped-def]
    return make_app(AppOptions(config_path=isolated_env.config, follow=False, clock=lambda: NOW, **kw))


async def ready(pilot, app) -> SessionList:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.pause()
    return app.screen.query_one("#sessions", SessionList)


def shown(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    widget = app.screen.query_one(selector, Static)
    return str(widget.render()) if widget.display else ""


def checklist_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return option_texts(app.screen.query_one("#checklist", ChecklistView))


async def test_the_lists_mode_line_says_the_count_and_the_mode(three, isolated_env) -> None:
    app = make(isolated_env)
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


async def test_running_only_with_none_running_clears_the_selection_and_space_ticks_nothing(three, isolated_env) -> None:
    later = NOW + timedelta(hours=1)  # nothing ran in the last minutes
    app = make_app(AppOptions(config_path=isolated_env.config, follow=False, clock=lambda: later))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        session_list = await ready(pilot, app)
        before = app.screen.selected_id
        assert before == three[0].session_id
        await pilot.press("r")
        assert session_list.shown_ids == []
        assert app.screen.selected_id is None
        assert shown(app, "#sessions-mode") == "0 of 3 sessions · running · newest first"
        assert "No session ran in the last minutes." in shown(app, "#sessions-empty")
        assert "r shows every session again" in shown(app, "#sessions-empty")
        assert "No session listed." in shown(app, "#session-title")
        assert "[ ] Running one step" not in checklist_rows(app)
        await pilot.press("space", "tab", "space")
        assert app.overrides.for_session(before) == {}  # the hidden session kept its items
        await pilot.press("r")
        assert app.screen.selected_id == before


async def test_when_the_selected_session_leaves_the_list_the_selection_follows_it(three, isolated_env) -> None:
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await ready(pilot, app)
        await pilot.press("j")  # the person chooses an idle session
        assert app.screen.selected_id == three[1].session_id
        await pilot.press("r")  # it leaves the list: the cursor and the checklist move on
        assert session_list.shown_ids == [three[0].session_id]
        assert app.screen.selected_id == three[0].session_id
        assert "[ ] Running one step" in checklist_rows(app)
        await pilot.press("tab", "space")
        assert app.overrides.for_session(three[0].session_id)
        assert app.overrides.for_session(three[1].session_id) == {}


async def test_space_in_the_session_list_moves_to_the_checklist_and_ticks_nothing(three, isolated_env) -> None:
    app = make(isolated_env)
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        session_list = await ready(pilot, app)
        checklist = app.screen.query_one("#checklist", ChecklistView)
        assert app.focused is session_list
        before = checklist_rows(app)
        await pilot.press("space")
        assert app.focused is checklist
        assert checklist_rows(app) == before and app.overrides.for_session(three[0].session_id) == {}
        assert "Moved to the checklist" in [str(n.message) for n in told.seen][-1]
        await pilot.press("space")  # now it acts on the item under the checklist's cursor
        assert app.overrides.for_session(three[0].session_id)
        assert any("ticked by you" in row for row in checklist_rows(app))


async def test_e_and_d_in_the_session_list_move_to_the_checklist_and_change_nothing(three, isolated_env) -> None:
    from planwatch.tui.widgets.item_editor import ItemEditor

    app = make(isolated_env)
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
    long_steps = [(f"Step number {n} of a long plan", "in_progress") for n in range(60)]
    for n, title in enumerate(("First", "Second")):
        transcript = ClaudeTranscript(isolated_env.claude, f"/home/dev/p{n}", at=NOW - timedelta(minutes=10 + n))
        transcript.custom_title(title).todo_write(long_steps)
    app = make(isolated_env)
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

"""The session switcher (`s`) is a screen of its own: its footer and its help list the
switcher's keys, never the browse screen's behind it (a letter types into its search
box there), and each key it lists does what it says. (The browse screen on a host app
with a model of its own, no scan.)"""

from __future__ import annotations

import pytest
from app_transcripts import until
from browse_host import BrowseHost, entry

from planwatch.core.model import PlanItem
from planwatch.tui.screens.browse import BrowseScreen
from planwatch.tui.screens.help import HelpScreen
from planwatch.tui.session_palette import SessionSwitcher

pytestmark = pytest.mark.asyncio


@pytest.fixture
def two(isolated_env):  # type: ignore[no-untyped-def]
    older = entry(
        "older", "API work", (PlanItem(text="Split the router", status="in_progress"),), 120, cwd="/home/dev/api"
    )
    newer = entry("newer", "Web work", ("Add the theme switch",), 5, cwd="/home/dev/web")
    return older, newer


def host(isolated_env, two) -> BrowseHost:  # type: ignore[no-untyped-def]
    return BrowseHost(isolated_env.store, list(two))


def footer_keys(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(k.key_display, k.description) for k in app.screen.query("FooterKey") if k.display]


async def switcher(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.screen.selected_id is not None, what="the newest session")
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SessionSwitcher) and footer_keys(app), what="the switcher")


async def test_the_switchers_footer_shows_its_own_keys_not_the_browse_screens(two, isolated_env) -> None:  # type: ignore[no-untyped-def]
    app = host(isolated_env, two)
    async with app.run_test(size=(120, 36)) as pilot:
        await switcher(pilot, app)
        assert footer_keys(app) == [("↑↓", "Move"), ("⏎", "Show"), ("esc", "Close"), ("f1", "Help")]
        # What the person reads at the bottom of the terminal: the switcher's keys, drawn
        # over the browse screen's footer (whose `space Tick`, `q Quit` would type here).
        bottom = app.export_screenshot().replace("&#160;", " ")
        assert "Close" in bottom and "Tick" not in bottom and "Quit" not in bottom


async def test_the_switchers_help_lists_its_own_keys_only(two, isolated_env) -> None:  # type: ignore[no-untyped-def]
    app = host(isolated_env, two)
    async with app.run_test(size=(120, 36)) as pilot:
        await switcher(pilot, app)
        await pilot.press("question_mark")  # a character of a search here, not help
        await until(pilot, lambda: app.screen.query_one("CommandInput").value == "?", what="the typed ?")
        await pilot.press("backspace", "f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        rows = app.screen.rows
        assert {row.group for row in rows} == {"session switcher"}
        assert {(row.keys, row.description) for row in rows} >= {("↑↓", "Move"), ("enter", "Show"), ("esc", "Close")}
        assert not any(row.description in ("Tick", "Quit", "Store") for row in rows)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher), what="back to the switcher")


async def test_the_switchers_keys_do_what_its_footer_says(two, isolated_env) -> None:  # type: ignore[no-untyped-def]
    older, newer = two
    app = host(isolated_env, two)
    async with app.run_test(size=(120, 36)) as pilot:
        await switcher(pilot, app)
        assert app.screen_stack[-2].selected_id == newer.session.id
        await pilot.press(*"API", "down", "enter")  # Move, then Show
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen), what="the switcher closed")
        await until(pilot, lambda: app.screen.selected_id == older.session.id, what="the chosen session")
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, SessionSwitcher), what="the switcher again")
        await pilot.press("escape")  # Close: the session shown stays
        await until(pilot, lambda: isinstance(app.screen, BrowseScreen), what="closed")
        assert app.screen.selected_id == older.session.id

"""The session switcher (`s`, and the sessions in the app's palette) shows a session's
title and folder literally: text from a transcript is never read as Textual markup, so a
`[$accent]` or `[ @click=…]` in a title or a folder is shown as written, never styles the
hit, never vanishes, and never becomes an action a click on the hit would run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.session_palette import SessionSwitcher

pytestmark = pytest.mark.asyncio

# Textual markup that `textual.markup.escape` leaves as markup: a variable style, and a
# style with a leading space carrying a click action.
TITLE = "[$accent]Deploy [ @click=app.notify('pwned')]the web"
FOLDER = "/home/dev/[$accent]web"


def hits(app) -> list[str]:  # type: ignore[no-untyped-def]
    from textual.command import CommandList

    return [option.prompt.plain for option in app.screen.query_one(CommandList).options]


def hostile_session(isolated_env) -> ClaudeTranscript:  # type: ignore[no-untyped-def]
    web = ClaudeTranscript(isolated_env.claude, FOLDER, at=datetime.now(UTC) - timedelta(minutes=5))
    web.custom_title(TITLE).todo_write([("Ship it", "pending")])
    return web


async def open_switcher(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.press("s")
    await until(pilot, lambda: isinstance(app.screen, SessionSwitcher), what="the switcher")


async def test_a_title_and_folder_holding_markup_are_shown_literally_in_the_switchers_search_hits(
    isolated_env,
) -> None:  # type: ignore[no-untyped-def]
    hostile_session(isolated_env)
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await open_switcher(pilot, app)
        await pilot.press(*"Deploy")
        await until(pilot, lambda: any("Deploy" in hit for hit in hits(app)), what="the search hit")
        [hit] = [hit for hit in hits(app) if "Deploy" in hit]
        assert TITLE in hit, hit
        assert f"Claude Code · {FOLDER} · " in hit, hit


async def test_a_folder_holding_markup_is_shown_literally_in_the_switchers_first_hits(isolated_env) -> None:  # type: ignore[no-untyped-def]
    hostile_session(isolated_env)
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await open_switcher(pilot, app)
        await until(pilot, lambda: any("Deploy" in hit for hit in hits(app)), what="the hit before any search")
        [hit] = [hit for hit in hits(app) if "Deploy" in hit]
        assert TITLE in hit and "[$accent]web" in hit, hit
        # The harness's whole name, then the folder (a two-word name used to be cut at its space).
        assert f"Claude Code · {FOLDER} · " in hit, hit


async def test_a_click_on_a_switcher_hit_never_runs_an_action_written_in_its_title(isolated_env) -> None:  # type: ignore[no-untyped-def]
    from textual.command import CommandList

    hostile_session(isolated_env)
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await open_switcher(pilot, app)
        await pilot.press(*"Deploy")
        await until(pilot, lambda: any("Deploy" in hit for hit in hits(app)), what="the search hit")
        # A click on the hit where "the web" is drawn (its first line, below the border).
        await pilot.click(app.screen.query_one(CommandList), offset=(12, 1))
        pwned = lambda: any("pwned" in n.message for n in app._notifications)  # noqa: E731
        await until(pilot, lambda: pwned() or not isinstance(app.screen, SessionSwitcher), what="the click taken")
        assert not pwned(), "a click on the hit ran the action its title holds"

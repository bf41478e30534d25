"""How the whole app answers a newcomer, driven under Pilot: the footer's keys at every
size and screen, the theme kept, the app's palette, help.

These boot the whole app because what they test is the app's, not one screen's: the
footer and the help list the app's own keys (`?`, `q`, `t`, `,`) beside the screen's,
the palette offers the app's commands and its session hits, the theme is saved to the
settings file and read again on the next start, and the store view and the settings are
screens the app switches to. (What is the browse screen's alone, pane-mode focus, the
selection kept across widths, undo, the edit and add dialogs, the details, `s`, copy,
the pager and the editor, grouping and running only, runs on a host app:
test_screen_browse_ux.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from app_transcripts import ClaudeTranscript, until

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


@pytest.fixture
def two_sessions(isolated_env) -> list[ClaudeTranscript]:
    now = datetime.now(UTC)
    old = ClaudeTranscript(isolated_env.claude, "/home/dev/api", at=now - timedelta(hours=5))
    old.custom_title("Refactor the API").todo_write(
        [("Read the handlers", "completed"), ("Split the router", "pending")]
    )
    new = ClaudeTranscript(isolated_env.claude, "/home/dev/web", at=now - timedelta(minutes=20))
    new.custom_title("Web: add dark mode").todo_write(
        [("Add the theme switch", "completed"), ("Wire the CSS", "in_progress"), ("Write tests", "pending")]
    )
    return [old, new]


def make(isolated_env, **kw):  # type: ignore[no-untyped-def]
    return make_app(AppOptions(config_path=isolated_env.config, **kw))


async def ready(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.scan_done is not None and app.screen.selected_id is not None, what="the scan")
    await pilot.pause()


def palette_highlight(app) -> str:  # type: ignore[no-untyped-def]
    """The text of the command palette's highlighted hit ("" while it has none yet)."""
    from textual.command import CommandList

    hits = app.screen.query_one(CommandList)
    if hits.highlighted is None:
        return ""
    prompt = hits.get_option_at_index(hits.highlighted).prompt
    return str(getattr(prompt, "plain", prompt))


async def test_every_key_the_footer_shows_works_in_pane_mode(two_sessions, isolated_env) -> None:
    """Pane mode has no list to filter: `/` leaves the footer there; `?` stays."""
    app = make(isolated_env, pane=True)
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        shown = {
            binding.key for (_, binding, enabled, _) in app.screen.active_bindings.values() if binding.show and enabled
        }
        assert "slash" not in shown and "question_mark" in shown


def footer_laid_out(app) -> bool:  # type: ignore[no-untyped-def]
    """The screen's footer holds a key for each binding the screen shows now, fitted to
    its width (tui/widgets/key_footer.py) and laid out: every key it keeps has a place."""

    from planwatch.tui.widgets.key_footer import KeysFooter

    footers = list(app.screen.query(KeysFooter))
    if len(footers) != 1 or not footers[0].size.width:
        return False
    keys = [key for key in footers[0].query("FooterKey") if not key.has_class("-command-palette")]
    wanted = {b.action for (_, b, enabled, _) in app.screen.active_bindings.values() if b.show}
    shown = [key for key in keys if key.display]
    actions = {key.action.rpartition(".")[2] for key in keys}
    return bool(shown) and actions == {a.rpartition(".")[2] for a in wanted} and all(k.region.width for k in shown)


@pytest.mark.parametrize(("size", "pane"), [((120, 36), False), ((80, 24), False), ((40, 30), True)])
async def test_the_footer_keeps_help_and_the_keys_that_matter_at_every_size(
    two_sessions, isolated_env, size, pane
) -> None:
    """At 80×24 `? Help` and `q Quit` were cut off; at 40 columns only
    three keys showed. The footer now drops the least important keys first, keeps `?`."""

    app = make(isolated_env, pane=pane)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        await until(pilot, lambda: footer_laid_out(app), what="the footer's keys")
        keys = [key for key in app.screen.query("FooterKey") if key.display and not key.has_class("-command-palette")]
        shown = [key.key_display for key in keys]
        assert "?" in shown and "space" in shown
        if size[0] >= 80:
            assert {"q", "a", "u"} <= set(shown), shown
        # Every shown key is drawn in full, on screen.
        assert all(key.region.right <= size[0] and key.region.width > len(key.description) for key in keys)
        drawn = app.export_screenshot().replace("&#160;", " ")
        assert "Help" in drawn


@pytest.mark.parametrize("size", [(120, 36), (80, 24), (40, 30)])
async def test_the_store_view_and_settings_footers_keep_help_and_their_way_back(
    two_sessions, isolated_env, size
) -> None:
    """The footer on the other screens: the store view's footer at 40 columns showed
    `a Add n New plan e Edit` and no `?`; it keeps `?` and `esc Back` at every size, and so
    does the settings screen its `?` and ways out. Every key shown works there."""

    from planwatch.tui.screens.settings import SettingsScreen
    from planwatch.tui.screens.store import StoreScreen

    app = make(isolated_env)
    async with app.run_test(size=size) as pilot:
        await ready(pilot, app)
        for key, screen_type, must in (("t", StoreScreen, {"?", "esc", "a"}), ("comma", SettingsScreen, {"?", "esc"})):
            await pilot.press(key)
            await until(pilot, lambda screen_type=screen_type: isinstance(app.screen, screen_type), what=key)
            await until(pilot, lambda: footer_laid_out(app), what=f"the footer after {key}")
            keys = [k for k in app.screen.query("FooterKey") if k.display and not k.has_class("-command-palette")]
            assert must <= {k.key_display for k in keys}, [k.key_display for k in keys]
            assert all(k.region.right <= size[0] for k in keys)
            # Each key shown is one the screen allows now; escape then leaves it.
            assert all(
                app.screen.check_action(k.action.rpartition(".")[2], ()) is not False
                for k in keys
                if k.action.startswith("screen.")
            )
            await pilot.press("escape")
            await until(pilot, lambda screen_type=screen_type: not isinstance(app.screen, screen_type), what="back")


async def test_the_chosen_theme_is_saved_in_the_settings_and_used_next_time(two_sessions, isolated_env) -> None:
    """Smaller point: the chosen theme is saved (and the high-contrast theme is offered)."""
    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert "planwatch-high-contrast" in app.available_themes
        app.theme = "planwatch-high-contrast"
        await until(
            pilot,
            lambda: isolated_env.config.exists() and "planwatch-high-contrast" in isolated_env.config.read_text(),
            what="the saved theme",
        )
    assert "theme: planwatch-high-contrast" in isolated_env.config.read_text()
    again = make(isolated_env)
    async with again.run_test(size=(120, 36)) as pilot:
        await ready(pilot, again)
        assert again.theme == "planwatch-high-contrast"


async def test_the_palette_finds_a_session_by_folder_and_shows_it(two_sessions, isolated_env) -> None:
    """Beyond: sessions in the command palette, fuzzy by title, folder or harness."""
    from textual.command import CommandPalette

    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        assert app.screen.selected_id == two_sessions[1].session_id
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"dev/api")
        await until(pilot, lambda: "Refactor the API" in palette_highlight(app), what="the session offered")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette), what="the palette to close")
        await until(pilot, lambda: app.screen.selected_id == two_sessions[0].session_id, what="the chosen session")
        assert app.screen.query_one("#sessions", SessionList).selected_id == two_sessions[0].session_id


async def test_help_in_pane_mode_lists_only_keys_that_work_there(two_sessions, isolated_env) -> None:
    """Every key the help shows works where it is shown: pane mode has no list to filter."""
    from planwatch.tui.screens.help import HelpScreen

    app = make(isolated_env, pane=True)
    async with app.run_test(size=(40, 30)) as pilot:
        await ready(pilot, app)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
        keys = [row.keys for row in app.screen.rows]
        assert "/" not in keys and "space" in keys and "s" in keys and "?" in keys


def palette_rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    from textual.command import CommandList

    return [option.prompt.plain for option in app.screen.query_one(CommandList).options]


async def test_the_palette_offers_only_what_runs_on_the_screen_and_shows_help_literally(
    two_sessions, isolated_env
) -> None:
    """On the browse screen the palette has its keys, and the help of `y` reads `- [x] …` as
    written (not eaten as markup); over the store view the browse keys are not offered."""
    from textual.command import CommandPalette

    from planwatch.tui.screens.store import StoreScreen

    app = make(isolated_env)
    async with app.run_test(size=(120, 36)) as pilot:
        await ready(pilot, app)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await pilot.press(*"copy")
        await until(pilot, lambda: any(r.startswith("Copy (y)") for r in palette_rows(app)), what="the copy command")
        [copy] = [r for r in palette_rows(app) if r.startswith("Copy (y)")]
        assert "(- [x] …)" in copy, copy
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, CommandPalette), what="the palette to close")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, StoreScreen), what="the store view")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), what="the palette")
        await until(
            pilot, lambda: any(r.startswith("Approve") for r in palette_rows(app)), what="the store view's keys"
        )
        titles = [r.split("\n", 1)[0] for r in palette_rows(app)]
        for browse_only in ("Tick (space)", "Drop (d)", "Details (enter)", "Undo (u)", "Copy (y)", "Sessions (s)"):
            assert browse_only not in titles, titles
        assert "Add (a)" in titles and "Settings (,)" in titles, "the view's own keys and the app's stay"
        [add] = [r for r in palette_rows(app) if r.startswith("Add (a)")]
        assert add.count("Add") == 2, "the store view's own Add, once"

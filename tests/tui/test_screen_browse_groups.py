"""Grouped session lists (docs/app.md, Browsing sessions): grouped by folder (or
harness), a heading stands above each group — the folder's short name and its count of
sessions — and the cursor passes over it. On the browse screen of a host app with a model
of its own (no scan), at the sizes the review used and in a dark and a light theme."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from app_transcripts import until
from browse_host import NOW, BrowseHost, entry
from textual.app import App
from textual.geometry import Region
from toasts import Toasts

from planwatch.core.sessions import SessionEntry
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import SessionRow

pytestmark = pytest.mark.asyncio

# (folder, title, minutes ago): two folders named `api` tell themselves apart by their
# parent (`dev/api`, `ops/api`), as the folder column does.
SESSIONS = (
    ("/home/dev/web", "Web one", 1),
    ("/home/dev/api", "API one", 30),
    ("/home/dev/web", "Web two", 60),
    ("/srv/ops/api", "Ops API", 90),
    ("/home/dev/web", "Web three", 120),
)


@pytest.fixture
def five_sessions() -> list[SessionEntry]:
    return [
        entry(f"s{n}", title, ("A step",), minutes, cwd=folder) for n, (folder, title, minutes) in enumerate(SESSIONS)
    ]


def make(isolated_env, five_sessions) -> BrowseHost:  # type: ignore[no-untyped-def]
    return BrowseHost(isolated_env.store, five_sessions)


async def ready(pilot, app) -> SessionList:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.screen.selected_id is not None, what="the newest session")
    await pilot.pause()
    return app.screen.query_one("#sessions", SessionList)


async def grouped(pilot, app) -> SessionList:  # type: ignore[no-untyped-def]
    """The list once shown, grouped by folder (`O`)."""
    session_list = await ready(pilot, app)
    await pilot.press("O")
    await pilot.pause()
    return session_list


def listed(session_list: SessionList) -> list[tuple[bool, str]]:
    """(is a heading, its text) for each option, in order."""
    return [(bool(option.disabled), option.prompt.plain.strip()) for option in session_list.options]


def title_in(row: str) -> str:
    """The session a row shows."""
    return next(title for _f, title, _m in SESSIONS if f" {title} " in row)


def title_of(session_list: SessionList) -> str:
    """The session under the cursor."""
    return title_in(session_list.options[session_list.highlighted or 0].prompt.plain)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_grouped_by_folder_a_heading_names_each_folder_with_its_count(
    five_sessions, isolated_env, size, theme
) -> None:
    app = make(isolated_env, five_sessions)
    async with app.run_test(size=size) as pilot:
        app.theme = theme
        session_list = await ready(pilot, app)
        assert not any(heading for heading, _ in listed(session_list))  # newest first: no headings
        await pilot.press("O")
        await pilot.pause()
        assert session_list.order == "folder"
        shown = listed(session_list)
        headings = [text for heading, text in shown if heading]
        # In the folders' order (by path), each named by the tail that tells it apart.
        assert headings == ["dev/api · 1 session", "web · 3 sessions", "ops/api · 1 session"]
        # Each heading stands above its own sessions.
        at = {text: index for index, (_h, text) in enumerate(shown)}
        rows = [text for heading, text in shown if not heading]
        assert len(rows) == 5
        assert title_in(shown[at["dev/api · 1 session"] + 1][1]) == "API one"
        assert title_in(shown[at["ops/api · 1 session"] + 1][1]) == "Ops API"
        web = at["web · 3 sessions"]
        assert [title_in(text) for _h, text in shown[web + 1 : web + 4]] == ["Web one", "Web two", "Web three"]
        # What the person sees: the headings drawn, the folder column given to the titles.
        strips = session_list.render_lines(Region(0, 0, session_list.size.width, session_list.size.height))
        drawn = ["".join(segment.text for segment in strip).strip() for strip in strips]
        assert "web · 3 sessions" in drawn and "dev/api · 1 session" in drawn
        assert "folder" not in str(app.screen.query_one("#sessions-header").render())


async def test_j_and_k_pass_over_the_headings(five_sessions, isolated_env) -> None:
    app = make(isolated_env, five_sessions)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await grouped(pilot, app)
        session_list.action_first()
        await pilot.pause()
        seen = [title_of(session_list)]
        for _ in range(4):
            await pilot.press("j")
            await pilot.pause()
            assert not session_list.options[session_list.highlighted or 0].disabled
            assert app.screen.selected_id == session_list.selected_id is not None
            seen.append(title_of(session_list))
        # Five sessions in five presses, whatever headings lie between them.
        assert seen == ["API one", "Web one", "Web two", "Web three", "Ops API"]
        for expected in reversed(seen[:-1]):
            await pilot.press("k")
            await pilot.pause()
            assert title_of(session_list) == expected
        # The selected session is shown beside the list: its checklist follows the cursor.
        assert app.model.entry(app.screen.selected_id).session.title == "API one"


async def test_a_click_on_a_heading_selects_nothing_new(five_sessions, isolated_env) -> None:
    app = make(isolated_env, five_sessions)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await grouped(pilot, app)
        before = app.screen.selected_id
        await pilot.click("#sessions", offset=(4, 0))
        await pilot.pause()
        assert app.screen.selected_id == before and not session_list.options[session_list.highlighted or 0].disabled
        # Its positive twin: a click on the row under the heading selects that session.
        await pilot.click("#sessions", offset=(4, 1))
        await pilot.pause()
        assert (
            title_of(session_list) == "API one" and app.model.entry(app.screen.selected_id).session.title == "API one"
        )


async def test_the_counts_follow_the_filter_and_grouping_by_harness_heads_each_harness(
    five_sessions, isolated_env
) -> None:
    app = make(isolated_env, five_sessions)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await ready(pilot, app)
        await pilot.press("O", "slash", *"Web t")
        await pilot.pause()
        assert [text for heading, text in listed(session_list) if heading] == ["web · 2 sessions"]
        await pilot.press("escape", "O")
        await pilot.pause()
        assert session_list.order == "harness"
        assert [text for heading, text in listed(session_list) if heading] == ["Claude Code · 5 sessions"]


async def test_grouping_survives_the_pane_width_and_comes_back_wider(five_sessions, isolated_env) -> None:
    """At 40 columns the list gives way to pane mode (no list, so no `O` in the footer);
    widened again, the list is still grouped with its headings."""
    app = make(isolated_env, five_sessions)
    async with app.run_test(size=(120, 36)) as pilot:
        session_list = await grouped(pilot, app)
        selected = app.screen.selected_id
        await pilot.resize_terminal(40, 30)
        await pilot.pause()
        assert app.screen.pane and app.screen.selected_id == selected
        assert app.screen.check_action("cycle_order", ()) is False
        await pilot.press("O")  # means nothing in pane mode
        await pilot.pause()
        assert session_list.order == "folder"
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert not app.screen.pane
        assert [text for heading, text in listed(session_list) if heading][1] == "web · 3 sessions"
        assert session_list.selected_id == selected


class ListHost(App[None]):
    """The session list alone, in a tiny app (a widget test)."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield SessionList(id="sessions")


def rows_in(*folders: str) -> list[SessionRow]:
    """One row per folder, newest first."""
    return [
        SessionRow(f"s{i}", "claude", f"Session {i}", folder, NOW - timedelta(minutes=10 * i), 0, 1)
        for i, folder in enumerate(folders)
    ]


async def test_each_group_is_one_run_of_rows_under_one_heading() -> None:
    app = ListHost()
    async with app.run_test(size=(100, 20)) as pilot:
        session_list = app.query_one(SessionList)
        session_list.show_rows(rows_in("~/dev/API", "~/dev/api", "~/dev/API", "~/dev/api"), NOW)
        session_list.set_view(NOW, order="folder")
        await pilot.pause()
        headings = [text for heading, text in listed(session_list) if heading]
        # Folders alike but for case are two folders, each listed once with both its sessions.
        assert len(headings) == 2 and all(text.endswith("· 2 sessions") for text in headings)


async def test_a_session_that_moves_to_another_folder_moves_its_heading_count() -> None:
    app = ListHost()
    async with app.run_test(size=(100, 20)) as pilot:
        session_list = app.query_one(SessionList)
        session_list.show_rows(rows_in("~/a", "~/b", "~/b"), NOW)
        session_list.set_view(NOW, order="folder")
        await pilot.pause()
        assert [text for heading, text in listed(session_list) if heading] == ["a · 1 session", "b · 2 sessions"]
        # Same sessions in the same order; the second now runs in ~/a.
        session_list.show_rows(rows_in("~/a", "~/a", "~/b"), NOW)
        await pilot.pause()
        assert [text for heading, text in listed(session_list) if heading] == ["a · 2 sessions", "b · 1 session"]
        assert session_list.selected_id == "s0"


async def test_running_only_with_no_running_session_empties_the_list_without_a_crash() -> None:
    """`r` when no session ran in the last minutes: an empty list (it raised in the
    repaint-only path, which took "no rows" for "the same rows")."""
    app = ListHost()
    async with app.run_test(size=(100, 20)) as pilot:
        session_list = app.query_one(SessionList)
        old = [replace(row, updated=NOW - timedelta(days=1)) for row in rows_in("~/a", "~/b")]
        session_list.show_rows(old, NOW)
        await pilot.pause()
        session_list.set_view(NOW, running_only=True)
        await pilot.pause()
        assert listed(session_list) == []
        session_list.set_view(NOW, running_only=False)
        await pilot.pause()
        assert [text for heading, text in listed(session_list) if not heading] and session_list.selected_id == "s0"


async def test_r_with_no_running_session_says_so_and_r_again_shows_every_session(five_sessions, isolated_env) -> None:
    later = NOW + timedelta(days=1)  # every session last ran a day ago
    app = make(isolated_env, five_sessions)
    app.model.clock = later
    told = Toasts()
    async with app.run_test(message_hook=told, size=(120, 36), notifications=True) as pilot:
        session_list = await ready(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        assert session_list.option_count == 0
        said = [str(n.message) for n in told.seen]
        assert "Only running sessions: none ran in the last minutes (r shows all again)." in said
        await pilot.press("r")
        await pilot.pause()
        assert session_list.option_count == len(SESSIONS)

"""The session list makes a row's text only when it is drawn and again only when what it
shows changed: a row whose counts, title or age change is repainted, a new
width lays every row out again, and a store change that moves no count rebuilds nothing.
On the browse screen over a model of its own (a host app, no scan): what the list
draws is compared with the rows made afresh for the clock and width of the moment."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from app_transcripts import option_texts, until
from browse_host import NOW, BrowseHost, entry

from planwatch.core.model import PlanItem
from planwatch.core.sessions import SessionEntry
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import row_text

pytestmark = pytest.mark.asyncio

START = NOW


def session(n: int, minutes: int, title: str, write: str = "pending") -> SessionEntry:
    steps = (PlanItem(text="Read", status="completed"), PlanItem(text="Write", status=write))  # type: ignore[arg-type]
    return entry(f"s{n}", title, steps, minutes, cwd=f"/home/dev/proj{n}")


def host(isolated_env) -> BrowseHost:  # type: ignore[no-untyped-def]
    return BrowseHost(
        isolated_env.store, [session(n, minutes, f"Session number {n}") for n, minutes in enumerate((200, 40, 10))]
    )


def fresh(session_list: SessionList, now: datetime) -> list[str]:
    """Each shown row's text made afresh for `now` and the list's width now."""
    return [row_text(row, now, session_list.row_layout).plain for row in session_list._shown]


def drawn(session_list: SessionList) -> list[str]:
    """What the list draws, line by line (through its render cache)."""
    return [session_list.render_line(y).text for y in range(session_list.option_count)]


def assert_shows_now(session_list: SessionList, now: datetime) -> None:
    expected = fresh(session_list, now)
    assert option_texts(session_list) == expected
    # Every row is one line here: the drawn lines are the rows, padded to the width.
    assert [line.rstrip() for line in drawn(session_list)] == [text.rstrip() for text in expected]


async def listed(pilot, app: BrowseHost) -> SessionList:
    """The session list once it lists the three sessions."""
    session_list = app.browse.session_list()
    await until(pilot, lambda: session_list.option_count == 3, what="the rows")
    await pilot.pause()
    return session_list


async def test_a_row_whose_counts_title_or_age_change_is_repainted(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(120, 20)) as pilot:
        session_list = await listed(pilot, app)
        assert_shows_now(session_list, app.model.clock)
        before = option_texts(session_list)
        assert "Session number 2" in before[0] and "◑ 1/2" in before[0]

        # The newest session is renamed and ticks a step: its row (and only its row's
        # text) changes, on the same rows in the same order.
        options = list(session_list.options)
        app.model.put(session(2, 10, "Renamed session", write="completed"))
        await until(pilot, lambda: "Renamed session" in option_texts(session_list)[0], what="the renamed row")
        await until(pilot, lambda: "● 2/2" in option_texts(session_list)[0], what="the new counts")
        assert list(session_list.options) == options  # repainted in place, not rebuilt
        assert option_texts(session_list)[1:] == before[1:]
        assert_shows_now(session_list, app.model.clock)

        # The clock moves on (the screen's 30-second tick): every age is what it is now.
        app.model.clock = START + timedelta(hours=3, seconds=7)
        app.browse.sessions_pane().relayout()
        await pilot.pause()
        assert option_texts(session_list) != before
        assert_shows_now(session_list, app.model.clock)

        # A store change that moves no count makes no row again.
        options = list(session_list.options)
        texts = [option.prompt for option in options]
        app.store_service.changed.publish(app.store_service.summary)
        await pilot.pause()
        assert list(session_list.options) == options
        assert [option.prompt for option in session_list.options] == texts


async def test_a_new_width_lays_every_row_out_again(isolated_env) -> None:
    app = host(isolated_env)
    async with app.run_test(size=(200, 20)) as pilot:
        session_list = await listed(pilot, app)
        wide = session_list.row_layout
        assert_shows_now(session_list, START)
        assert " Claude " in option_texts(session_list)[0]  # a wide list names the harness

        await pilot.resize_terminal(100, 20)
        await until(pilot, lambda: session_list.row_layout != wide, what="the new layout")
        await pilot.pause()
        assert session_list.row_layout.width == session_list.row_width < wide.width
        assert " Claude " not in option_texts(session_list)[0]  # a letter now
        assert_shows_now(session_list, START)


def painted(session_list: SessionList) -> list[list[tuple[str, object]]]:
    """Each drawn line's segments: text and colours."""
    return [[(seg.text, seg.style) for seg in session_list.render_line(y)] for y in range(session_list.option_count)]


async def test_rows_kept_across_rebuilds_are_drawn_in_the_theme_of_the_moment(isolated_env) -> None:
    """A row that only moved keeps what it drew; a theme change draws every row anew."""
    app = host(isolated_env)
    async with app.run_test(size=(120, 20)) as pilot:
        session_list = await listed(pilot, app)
        before = painted(session_list)
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        for needle in ("number 1", ""):  # a filter typed and taken back: rows kept
            session_list.set_needle(needle, START)
            await pilot.pause()
        themed = painted(session_list)
        assert themed != before
        # Laid out from scratch (another width and back): drawn the same.
        await pilot.resize_terminal(100, 20)
        await pilot.pause()
        await pilot.resize_terminal(120, 20)
        await until(
            pilot,
            lambda: [text for text, _ in painted(session_list)[0]] == [text for text, _ in themed[0]],
            what="the first width again",
        )
        assert painted(session_list) == themed
        assert_shows_now(session_list, START)

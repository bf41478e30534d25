"""The store view as a person reads it: the row under the cursor stays in sight, dimmed,
while a filter has focus, and the filter bar says what the table shows (text typed and
left filters; a filter the store refuses is said to filter nothing). On a host app styled
and coloured as the app is (store_host.py), no scan."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from app_transcripts import until
from store_host import StoreHost
from textual.color import Color
from textual.widgets import DataTable, Input, Select

from planwatch.tui.screens.store import StoreScreen

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]
ALL_ROWS = ["p1", "t1", "t2", "t3", "t4", "p2", "t5", "group:none", "t6", "t7"]


def luminance(color: Color) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def ratio(a: Color, b: Color) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(row.key.value) for row in app.screen.query_one("#store-table", DataTable).ordered_rows]


def summary(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#store-summary").render())


async def store_view(isolated_env, pilot, app) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: isinstance(app.screen, StoreScreen) and rows(app) == ALL_ROWS, what="the store view")


@pytest.fixture
def app(isolated_env):  # type: ignore[no-untyped-def]
    shutil.copytree(ROOT / "fixtures" / "views" / "store", isolated_env.store)
    return StoreHost(isolated_env.store)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "catppuccin-latte", "flexoki", "ansi-dark"])
async def test_the_store_cursor_stays_in_sight_underlined_while_a_filter_has_focus(isolated_env, app, theme) -> None:  # type: ignore[no-untyped-def]
    async with app.run_test(size=(120, 36)) as pilot:
        await store_view(isolated_env, pilot, app)
        app.theme = theme
        table = app.screen.query_one("#store-table", DataTable)
        await pilot.press("j", "j")
        await until(pilot, lambda: table.cursor_row == 2 and table.has_focus, what="the cursor on t2")
        await pilot.pause()
        y = table.region.y + 1 + table.cursor_row - int(table.scroll_y)  # below the header row
        x = table.region.x + 2
        await pilot.press("f")  # the filter bar takes focus
        await until(pilot, lambda: isinstance(app.focused, Select), what="the status filter focused")
        await pilot.pause()
        blurred, neighbour = app.screen.get_style_at(x, y), app.screen.get_style_at(x, y + 1)
        assert blurred.underline, "the row under the cursor is marked in every theme, ANSI ones too"
        if theme.startswith("ansi"):
            return  # the terminal's own colours: the underline is the mark
        cursor, row = (Color.from_rich_color(s.bgcolor) for s in (blurred, neighbour))
        assert ratio(cursor, row) >= 1.5, f"the cursor's row reads apart from the others ({ratio(cursor, row):.2f}:1)"


async def test_a_filter_typed_and_left_is_the_filter_the_table_shows(isolated_env, app) -> None:  # type: ignore[no-untyped-def]
    async with app.run_test(size=(120, 36)) as pilot:
        await store_view(isolated_env, pilot, app)
        by = app.screen.query_one("#filter-by", Input)
        by.focus()
        await pilot.press(*"claude")
        await pilot.press("tab")  # left without enter: what the bar shows filters
        await until(pilot, lambda: rows(app) == ["p2", "t5"], what="the filtered rows")
        assert "filtered: by claude" in summary(app)
        assert by.value == "claude"


async def test_a_refused_filter_is_said_to_filter_nothing(isolated_env, app) -> None:  # type: ignore[no-untyped-def]
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await store_view(isolated_env, pilot, app)
        since = app.screen.query_one("#filter-since", Input)
        since.focus()
        await pilot.press(*"last tuesday", "enter")
        await until(pilot, lambda: "since last tuesday" in summary(app), what="the summary")
        assert "not filtered: since last tuesday was refused (x clears)" in summary(app)
        assert rows(app) == ALL_ROWS, "every task shows, as the summary says"
        await pilot.press("escape", "x")  # back to the table, then clear
        await until(pilot, lambda: "filtered" not in summary(app), what="the filter cleared")
        assert since.value == "" and rows(app) == ALL_ROWS

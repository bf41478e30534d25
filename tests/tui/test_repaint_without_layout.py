"""A key that moves to another session repaints what changed without laying the screen
out again (a layout repaints every widget on it: tui/widgets/boxed.py), and what is
sized by its content is still laid out when its size changes: the pill when its count
takes more cells, the checklist when it needs a scrollbar, the title in a pane when it
takes more lines."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from app_transcripts import ClaudeTranscript, option_texts, until
from textual.widgets import Static

from planwatch.tui.app import AppOptions, make_app
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.pill import Pill, pill_text
from planwatch.tui.widgets.session_list import SessionList

pytestmark = pytest.mark.asyncio


def steps(count: int, done: int) -> list[tuple[str, str]]:
    return [(f"Step {n + 1} of {count}", "completed" if n < done else "pending") for n in range(count)]


def write_sessions(claude, plans: list[tuple[str, list[tuple[str, str]]]]) -> None:  # type: ignore[no-untyped-def]
    """One session per (title, steps), the first newest."""
    now = datetime.now(UTC)
    for age, (title, items) in enumerate(plans):
        ClaudeTranscript(claude, f"/home/dev/p{age}", at=now - timedelta(minutes=5 + age)).prompt(title).todo_write(
            items
        )


def shows(checklist: ChecklistView, text: str) -> bool:
    return any(text in row for row in option_texts(checklist))


def drawn_on_screen(checklist: ChecklistView, text: str) -> bool:
    """Whether one of the lines the checklist draws in its box holds `text`."""
    return any(text in checklist.render_line(y).text for y in range(checklist.scrollable_content_region.height))


def count_layouts(screen: Any) -> Callable[[], int]:
    """How many times `screen` lays itself out from now on. Textual's layout pass is a
    private method of the pinned version; no public event tells a layout from a repaint."""
    calls = [0]
    real = screen._refresh_layout

    def counted(*args: Any, **kwargs: Any) -> None:
        calls[0] += 1
        real(*args, **kwargs)

    screen._refresh_layout = counted
    return lambda: calls[0]


async def test_moving_between_sessions_with_checklists_of_other_lengths_repaints_without_a_layout(
    isolated_env,
) -> None:
    # Pills of the same width (1/3, 2/5, 3/4), checklists of 3, 5 and 4 rows.
    write_sessions(
        isolated_env.claude,
        [("First session", steps(3, 1)), ("Second session", steps(5, 2)), ("Third session", steps(4, 3))],
    )
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        screen = app.screen
        sessions = screen.query_one("#sessions", SessionList)
        checklist = screen.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: shows(checklist, "Step 3 of 3"), what="the first session's plan")
        await pilot.pause()
        layouts = count_layouts(screen)
        for key, title, last_step in (
            ("j", "Second session", "Step 5 of 5"),
            ("j", "Third session", "Step 4 of 4"),
            ("k", "Second session", "Step 5 of 5"),
        ):
            await pilot.press(key)
            await until(pilot, lambda last_step=last_step: shows(checklist, last_step), what=last_step)
            await pilot.pause()
            assert title in str(screen.query_one("#session-title", Static).render())
            assert sessions.highlighted is not None
        # What was repainted is what a fresh draw shows: every step of the shown plan.
        assert [row[row.index("Step") :] for row in option_texts(checklist) if "Step" in row] == [
            f"Step {n} of 5" for n in range(1, 6)
        ]
        assert layouts() == 0


async def test_a_pill_whose_count_takes_more_cells_is_laid_out_again(isolated_env) -> None:
    write_sessions(isolated_env.claude, [("Short count", steps(3, 1)), ("Long count", steps(12, 10))])
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        pill = app.screen.query_one("#pill", Pill)
        title = app.screen.query_one("#session-title", Static)
        await until(pilot, lambda: pill.total == 3, what="the first pill")
        await pilot.pause()
        narrow, title_wide = pill.outer_size.width, title.outer_size.width
        assert narrow == pill_text(1, 3).cell_length + 2  # its padding
        await pilot.press("j")
        await until(pilot, lambda: pill.total == 12, what="the second pill")
        await until(
            pilot, lambda: pill.outer_size.width == pill_text(10, 12).cell_length + 2, what="the pill laid out again"
        )
        # The title beside it gave up the cells the pill took.
        assert title.outer_size.width == title_wide - (pill.outer_size.width - narrow)


async def test_a_checklist_longer_than_its_box_gets_its_scrollbar_and_scrolls_to_its_last_step(
    isolated_env,
) -> None:
    write_sessions(isolated_env.claude, [("A short plan", steps(3, 0)), ("A long plan", steps(60, 0))])
    app = make_app(AppOptions(config_path=isolated_env.config))
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        checklist = app.screen.query_one("#checklist", ChecklistView)
        await until(pilot, lambda: shows(checklist, "Step 3 of 3"), what="the short plan")
        assert not checklist.show_vertical_scrollbar
        await pilot.press("j")
        await until(pilot, lambda: shows(checklist, "Step 60 of 60"), what="the long plan")
        await until(pilot, lambda: checklist.show_vertical_scrollbar, what="the checklist's scrollbar")
        await pilot.press("tab")
        assert app.focused is checklist
        await pilot.press("G")
        await until(pilot, lambda: drawn_on_screen(checklist, "Step 60 of 60"), what="the last step drawn")
        last = checklist.highlighted
        assert last is not None and "Step 60 of 60" in option_texts(checklist)[last]
        assert checklist.scroll_y > 0


async def test_a_pane_s_title_that_takes_more_lines_is_laid_out_again(isolated_env) -> None:
    # A pane follows the newest session: its title is wrapped, so a longer one adds lines.
    now = datetime.now(UTC)
    transcript = ClaudeTranscript(isolated_env.claude, "/home/dev/pane", at=now - timedelta(minutes=5))
    transcript.prompt("Short").todo_write(steps(2, 0))
    app = make_app(AppOptions(config_path=isolated_env.config, pane=True))
    async with app.run_test(size=(40, 30)) as pilot:
        await until(pilot, lambda: app.scan_done is not None, what="the scan")
        title = app.screen.query_one("#session-title", Static)
        await until(pilot, lambda: "Short" in str(title.render()), what="the short title")
        short_height = title.outer_size.height
        transcript.custom_title("A much longer title that a forty-column pane wraps onto several lines")
        await until(pilot, lambda: "several" in str(title.render()).replace("\n", " "), what="the long title")
        await until(pilot, lambda: title.outer_size.height > short_height, what="the title laid out on more lines")

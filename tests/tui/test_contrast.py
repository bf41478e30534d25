"""Every checklist state, session row, pill and store status reads at ≥ 4.5:1 (WCAG AA)
in every bundled theme, under the cursor too, focused or not (docs/app.md,
Contrast and themes).

The browse screen, on a host app styled and coloured as the app is (its stylesheet, its
readable text colours, its high-contrast theme), draws a checklist holding every state (agent pending, in progress, done,
cancelled, ticked and unticked by you, high priority; own todo, doing, blocked, review, done, dropped),
session rows (running or not, every harness, with open counts, a partial mark, grouped
under their folders' headings) and the pill; the test
switches through every theme and measures each drawn cell's colour against its
background. The store view is walked the same way: a task in every status and plans
drafted and active, the cursor on each row in turn, on a host app styled the same way.
ANSI themes are left out: their colours are the terminal's own palette. (No scan: the
rows and the checklist measured are set on the widgets.)
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from app_transcripts import until
from browse_host import BrowseHost
from store_host import StoreHost
from textual.color import Color
from textual.geometry import Region
from textual.theme import BUILTIN_THEMES

from planwatch.core.checklist import AgentRow, AgentSection, Checklist, OwnRow
from planwatch.tui.screens.store import StoreScreen
from planwatch.tui.theme import HIGH_CONTRAST, MINIMUM_CONTRAST, contrast
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.pill import Pill
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import SessionRow

pytestmark = pytest.mark.asyncio

THEMES = [name for name in BUILTIN_THEMES if not name.startswith("ansi")] + [HIGH_CONTRAST.name]

EVERY_STATE = Checklist(
    sections=(
        AgentSection(
            "",
            "claude-todos",
            (
                AgentRow("k1", "", "A step not started", "pending"),
                AgentRow("k2", "", "A step under way", "in_progress", active_form="Working on a step"),
                AgentRow("k3", "", "A step done", "completed"),
                AgentRow("k4", "", "A step cancelled", "cancelled"),
                AgentRow("k7", "", "A step blocked", "blocked"),
                AgentRow("k8", "", "A high-priority step", "pending", priority="high"),
                AgentRow("k5", "", "A step you ticked", "pending", override="completed"),
                AgentRow("k6", "", "A step you unticked", "completed", override="pending"),
            ),
        ),
    ),
    own=tuple(
        OwnRow(f"t{i}", f"My {status} item", status)
        for i, status in enumerate(("todo", "doing", "blocked", "review", "done", "dropped"))
    ),
)


def drawn_cells(widget, line: int) -> list[tuple[str, Color, Color, bool]]:  # type: ignore[no-untyped-def]
    """(text, foreground, background, dim) of each segment with visible text on `line`."""
    width = widget.size.width
    strip = widget.render_lines(Region(0, line, width, 1))[0]
    cells = []
    for segment in strip:
        if not segment.text.strip() or segment.style is None:
            continue
        style = segment.style
        assert style.color is not None and style.bgcolor is not None, segment
        fg = Color.from_rich_color(style.color)
        bg = Color.from_rich_color(style.bgcolor)
        cells.append((segment.text, fg, bg, bool(style.dim)))
    return cells


MEASURED: list[int] = [0]


def browse_host(isolated_env, frozen_now) -> BrowseHost:  # type: ignore[no-untyped-def]
    """The browse screen over an empty model, the app's high-contrast theme registered."""
    app = BrowseHost(isolated_env.store, [])
    app.model.clock = frozen_now
    app.register_theme(HIGH_CONTRAST)
    return app


def worst(widget, lines: range, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    failures = []
    for line in lines:
        for text, fg, bg, dim in drawn_cells(widget, line):
            MEASURED[0] += 1
            ratio = contrast(fg, bg)
            if dim or ratio < MINIMUM_CONTRAST:
                failures.append(
                    f"{where} line {line} {text.strip()!r}: {fg.hex} on {bg.hex} = {ratio:.2f}{' dim' if dim else ''}"
                )
    return failures


async def test_every_state_reads_at_4_5_to_1_in_every_bundled_theme(isolated_env, frozen_now) -> None:
    app = browse_host(isolated_env, frozen_now)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: app.screen.is_current and bool(app.screen.query("#checklist")), what="the screen")
        screen = app.screen
        checklist = screen.query_one("#checklist", ChecklistView)
        sessions = screen.query_one("#sessions", SessionList)
        pill = screen.query_one("#pill", Pill)
        rows = [
            SessionRow(
                f"s{i}",
                harness,
                f"Session {harness}",
                f"/home/dev/{harness}",
                frozen_now - timedelta(minutes=minutes),
                done,
                4,
                count,
            )
            for i, (harness, minutes, done, count) in enumerate(
                [
                    ("claude", 1, 4, 2),
                    ("codex", 30, 1, None),
                    ("acp", 600, 0, 1),
                    ("gemini", 1, 2, 0),
                    ("opencode", 90, 3, 5),
                ]
            )
        ]
        rows.append(SessionRow("s9", "claude", "A partial plan", "/home/dev/big", frozen_now, 1, 3, None, partial=True))
        sessions.show_rows(rows, frozen_now)
        # Grouped by folder: a heading above each folder's rows is measured too.
        sessions.set_view(frozen_now, order="folder")
        checklist.show(EVERY_STATE)
        pill.set_counts(2, 4)
        await pilot.pause()
        failures: list[str] = []
        for theme in THEMES:
            app.theme = theme
            for focused in (checklist, sessions):
                focused.focus()
                await pilot.pause()
                for index in range(checklist.option_count):
                    checklist.highlighted = index
                    await pilot.pause()
                    failures += worst(
                        checklist,
                        range(checklist.option_count),
                        f"{theme} checklist (cursor {index}, {focused.id} focused)",
                    )
                for index in range(sessions.option_count):
                    if sessions.get_option_at_index(index).disabled:
                        continue  # a heading: the cursor passes over it
                    sessions.highlighted = index
                    await pilot.pause()
                    failures += worst(
                        sessions,
                        range(sessions.option_count),
                        f"{theme} sessions (cursor {index}, {focused.id} focused)",
                    )
            pill.set_counts(2, 4)
            await pilot.pause()
            failures += worst(pill, range(1), f"{theme} pill 2/4")
            pill.set_counts(4, 4)
            await pilot.pause()
            failures += worst(pill, range(1), f"{theme} pill 4/4")
        # A positive twin: every theme drew its rows (15 checklist rows, 5 sessions, the pill,
        # each under every cursor position, focused and not: some 330 cells a theme).
        assert MEASURED[0] >= len(THEMES) * 300
        assert not failures, f"{len(failures)} cells below {MINIMUM_CONTRAST}:1\n" + "\n".join(
            sorted(set(failures))[:60]
        )


async def test_every_store_status_reads_at_4_5_to_1_in_every_bundled_theme(
    isolated_env, frozen_now, copy_fixture
) -> None:
    """The store view's marks (todo, doing, blocked, review, done, dropped; draft and
    active plans) take the theme's colours: each reads on the table and under the cursor."""
    from planwatch.tui.widgets.store_table import StoreTable

    store = copy_fixture("views/store")
    app = StoreHost(store, clock=lambda: frozen_now)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StoreScreen), what="the store view")
        table = app.screen.query_one(StoreTable)
        await until(pilot, lambda: table.row_count == 10, what="the store's rows")
        statuses = {
            str(cell.plain).split(" ", 1)[-1] for cell in (table.get_row_at(i)[1] for i in range(table.row_count))
        }
        assert statuses >= {"todo", "doing", "blocked", "review", "done", "dropped", "draft", "active"}
        measured_before = MEASURED[0]
        failures: list[str] = []
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            # The marks are coloured by the theme: a status differs from the plain text.
            done_style = table.status_style("done")
            assert done_style.color is not None, theme
            for focused in (True, False):
                if focused:
                    table.focus()
                else:
                    app.screen.query_one("#filter-by").focus()
                await pilot.pause()
                for row in range(table.row_count):
                    table.move_cursor(row=row, animate=False)
                    await pilot.pause()
                    where = f"{theme} store view (cursor {row}, {'focused' if focused else 'blurred'})"
                    failures += worst(table, range(table.row_count + 1), where)
        # A positive twin: every theme drew the header and ten rows under each cursor position.
        assert MEASURED[0] - measured_before >= len(THEMES) * 2 * 10 * 11 * 3
        assert not failures, f"{len(failures)} cells below {MINIMUM_CONTRAST}:1\n" + "\n".join(
            sorted(set(failures))[:60]
        )


async def test_every_footer_key_label_reads_at_4_5_to_1_in_every_bundled_theme(isolated_env, frozen_now) -> None:
    """The footer's key labels (the accent colour by default: 1.9:1 in catppuccin-latte,
    2.9:1 in textual-light) and their descriptions read like the marks do."""

    app = browse_host(isolated_env, frozen_now)
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: bool(app.screen.query("FooterKey")), what="the footer")
        measured_before = MEASURED[0]
        failures: list[str] = []
        for theme in THEMES:
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            keys = [key for key in app.screen.query("FooterKey") if key.display and key.size.width]
            assert len(keys) >= 5, theme
            for key in keys:
                # The palette hint's thin divider (`▏`) is a line, not a label.
                failures += [f for f in worst(key, range(1), f"{theme} footer {key.key_display!r}") if "'▏'" not in f]
        # A positive twin: every theme drew a key label and a description per key.
        assert MEASURED[0] - measured_before >= len(THEMES) * 5 * 2
        assert not failures, f"{len(failures)} cells below {MINIMUM_CONTRAST}:1\n" + "\n".join(
            sorted(set(failures))[:60]
        )

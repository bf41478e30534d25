"""The help screen (docs/app.md): lists every key of the app's one list of commands."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

import planwatch.tui.screens.help as help_module
from planwatch.tui.keys import key_label
from planwatch.tui.screens.help import HelpScreen, help_rows

SAMPLE = [
    Binding("j,down", "cursor_down", "Move down"),
    Binding("space", "toggle", "Tick / untick", tooltip="An override on an agent item"),
    Binding("question_mark", "help", "Help"),
    Binding("ctrl+x", "internal", "", show=False),  # no description: not a person's key
    Binding("a", "add", "Add [bold]item[/bold]"),  # a description with brackets stays literal
]


class SampleHelp(HelpScreen):
    """The help screen listing SAMPLE instead of the app's commands."""

    CSS_PATH = str(Path(help_module.__file__).with_name("help.tcss"))

    def commands(self) -> list[Binding]:
        return SAMPLE


class Host(App[None]):
    def __init__(self, sample: bool = False) -> None:
        super().__init__()
        self._sample = sample

    def on_mount(self) -> None:
        self.push_screen(SampleHelp() if self._sample else HelpScreen())


def _table_text(app: App[None]) -> list[str]:
    """The help table as the person reads it, one line per row (wide enough not to wrap)."""
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(app.screen.table())
    return [line.strip() for line in console.export_text().splitlines() if line.strip()]


def test_help_rows_keep_order_and_skip_undescribed_commands() -> None:
    rows = help_rows(SAMPLE)
    assert [row.keys for row in rows] == ["j / ↓", "space", "?", "a"]
    assert rows[1].detail == "An override on an agent item"


@pytest.mark.parametrize(
    ("key", "label"),
    [("j,down", "j / ↓"), ("question_mark", "?"), ("comma", ","), ("ctrl+p", "ctrl+p"), ("escape", "esc")],
)
def test_help_key_labels_read_as_typed(key: str, label: str) -> None:
    assert key_label(key) == label


@pytest.mark.asyncio
async def test_help_screen_lists_each_key_and_closes_on_escape() -> None:
    app = Host(sample=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = _table_text(app)
        assert lines[0].split() == ["Key", "Does"]
        assert lines[1].split() == ["j", "/", "↓", "Move", "down"]
        assert lines[2].split()[:3] == ["space", "Tick", "/"] and lines[2].endswith("An override on an agent item")
        assert lines[4].split() == ["a", "Add", "[bold]item[/bold]"], "brackets in a description stay literal"
        assert len(lines) == 5
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.asyncio
async def test_help_screen_lists_every_key_of_the_app_commands() -> None:
    commands = pytest.importorskip("planwatch.tui.commands")
    expected = help_rows(commands.COMMANDS)
    assert expected, "the app's command list is empty"
    app = Host()  # the screen reads tui.commands itself
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        lines = _table_text(app)
        for row in expected:
            assert any(line.split()[1:2] == [row.keys.split()[0]] and row.description in line for line in lines), row
        # these keys at least, so habits carry over from other terminal tools.
        keys = {part for row in expected for part in row.keys.replace(" / ", " ").split()}
        for key in ("j", "k", "space", "a", "e", "d", "u", "enter", "/", "t", ",", "?", "q"):
            assert key in keys, f"{key!r} missing from the help screen; has {sorted(keys)}"


class StoreLike(Screen[None]):
    """A screen with its own keys, as the store view has."""

    HELP_GROUP = "store view"
    BINDINGS = [
        Binding("v", "approve", "Approve", tooltip="Approve the task"),
        Binding("j,down", "cursor_down", "Move down"),
    ]


@pytest.mark.asyncio
async def test_help_screen_adds_the_keys_of_the_screen_it_opened_over() -> None:
    app = Host(sample=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.pop_screen()
        await app.push_screen(StoreLike())
        # The screen that opens the help screen hands it its keys.
        await app.push_screen(SampleHelp(StoreLike.HELP_GROUP, StoreLike.BINDINGS))
        await pilot.pause()
        rows = app.screen.rows
        assert rows[0].group == "store view" and (rows[0].keys, rows[0].description) == ("v", "Approve")
        # A key the command list already describes the same way is not listed twice.
        assert [(r.keys, r.description) for r in rows].count(("j / ↓", "Move down")) == 1


@pytest.mark.asyncio
async def test_help_screen_says_what_every_mark_means() -> None:
    """Every mark the checklist, the pill and a session row draw is in the help screen's
    key, with its meaning, scrolled into view under the keys."""
    from planwatch.tui.widgets.checklist import AGENT_MARKS, OVERRIDE_MARKS, OWN_MARKS
    from planwatch.tui.widgets.pill import PIE
    from planwatch.tui.widgets.session_rows import FORK_MARK, PARTIAL_MARK

    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        legend = app.screen.query_one("#help-legend")
        text = legend.render().plain
        lines = text.splitlines()
        assert "What the marks mean" in lines
        marks = {mark for table in (AGENT_MARKS, OVERRIDE_MARKS, OWN_MARKS) for mark, _ in table.values()}
        for mark in marks | set(PIE) | {FORK_MARK.strip(), PARTIAL_MARK, "⚑"}:
            line = next((line for line in lines if line.strip().startswith(mark) or f" {mark} " in line), None)
            assert line is not None, mark
            assert len(line.strip()) > len(mark) + 4, (mark, line)  # a meaning beside it
        assert any("[·]" in line and "unticked by you" in line for line in lines)
        assert any("[?]" in line and "review" in line for line in lines)
        # The key is reachable: the help scrolls to it.
        scroll = app.screen.query_one("#help-scroll")
        scroll.scroll_end(animate=False)
        await pilot.pause()
        assert scroll.scroll_offset.y == scroll.max_scroll_y
        assert scroll.region.overlaps(legend.region)

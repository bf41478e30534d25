"""The help screen (SPEC §7): lists every key of the app's one list of commands."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.binding import Binding
from textual.widgets import DataTable

from tui.screens.help import HelpScreen, help_rows, key_label

SAMPLE = [
    Binding("j,down", "cursor_down", "Move down"),
    Binding("space", "toggle", "Tick / untick", tooltip="An override on an agent item"),
    Binding("question_mark", "help", "Help"),
    Binding("ctrl+x", "internal", "", show=False),  # no description: not a person's key
    Binding("a", "add", "Add [bold]item[/bold]"),  # a description with brackets stays literal
]


class Host(App[None]):
    def __init__(self, commands: object | None = None) -> None:
        super().__init__()
        self._commands = commands

    def on_mount(self) -> None:
        self.push_screen(HelpScreen(self._commands))  # type: ignore[arg-type]


def _table_text(app: App[None]) -> list[str]:
    table = app.screen.query_one(DataTable)
    return [" | ".join(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


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
    app = Host(SAMPLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = _table_text(app)
        assert lines[0].startswith("j / ↓ | Move down")
        assert any(line.startswith("a | Add [bold]item[/bold]") for line in lines), lines
        assert len(lines) == 4
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


@pytest.mark.asyncio
async def test_help_screen_lists_every_key_of_the_app_commands() -> None:
    commands = pytest.importorskip("tui.commands")
    expected = help_rows(commands.COMMANDS)
    assert expected, "the app's command list is empty"
    app = Host()  # the screen reads tui.commands itself
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        lines = _table_text(app)
        for row in expected:
            assert any(row.keys in line and row.description in line for line in lines), row
        # Issue 4: these keys at least, so habits carry over from other terminal tools.
        keys = {part for row in expected for part in row.keys.replace(" / ", " ").split()}
        for key in ("j", "k", "space", "a", "e", "d", "u", "enter", "/", "t", ",", "?", "q"):
            assert key in keys, f"{key!r} missing from the help screen; has {sorted(keys)}"

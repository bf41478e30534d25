"""The session list: one row per session, newest activity first.

A row shows a running marker, the harness, the title, the folder, the age, the pill and
the open count of the session's store tasks. Rows are `Text`, never markup strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from core.text import safe_text
from tui.widgets.pill import pill_text

# A session whose transcript changed this recently has a running agent.
RUNNING_WINDOW = timedelta(minutes=3)


@dataclass(frozen=True)
class SessionRow:
    """What one row shows; built by the screen from the index, the store and overrides."""

    id: str
    harness: str
    title: str
    folder: str
    updated: datetime
    done: int
    total: int
    open_count: int | None = None

    def matches(self, needle: str) -> bool:
        needle = needle.casefold()
        return any(needle in part.casefold() for part in (self.title, self.folder, self.harness, self.id))


def age(updated: datetime, now: datetime) -> str:
    """How long ago, in at most four characters: 45s, 12m, 3h, 5d, 7w."""
    seconds = max(0, int((now - updated).total_seconds()))
    for unit, size in (("w", 604800), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def short_folder(folder: str, home: str | None = None) -> str:
    if home and folder.startswith(home):
        folder = "~" + folder[len(home):]
    return folder


def fit(text: str, width: int) -> str:
    if width <= 0:
        return ""
    if len(text) <= width:
        return text.ljust(width)
    return text[: max(0, width - 1)] + "…"


def fit_left(text: str, width: int) -> str:
    """Cut from the left: the end of a folder path says most."""
    if width <= 0:
        return ""
    if len(text) <= width:
        return text.ljust(width)
    return "…" + text[len(text) - width + 1 :]


PILL_CELLS = 9  # "◑ 100/200"
OPEN_CELLS = 7  # "12 open"


def _widths(width: int) -> tuple[int, int, int, int]:
    """(harness, title, folder, open) column widths for a list `width` cells wide. A
    narrow list drops the folder, then the open count, then the harness (0) rather than
    wrap a row."""
    folder = 22 if width >= 100 else (14 if width >= 66 else 0)
    open_cells = OPEN_CELLS if width >= 46 else 0
    harness = 6 if width >= 40 else 0
    fixed = 2 + (harness + 1 if harness else 0) + 1 + (folder + 1 if folder else 0) + 4 + 1 + PILL_CELLS
    fixed += open_cells + 1 if open_cells else 0
    return harness, max(6, width - fixed), folder, open_cells


def header_text(width: int) -> Text:
    """The column names above the rows, aligned with row_text."""
    harness, title_width, folder_width, open_cells = _widths(width)
    line = "  " + (fit("agent", harness) + " " if harness else "") + fit("session", title_width) + " "
    if folder_width:
        line += fit("folder", folder_width) + " "
    line += " age" + " " + fit("done", PILL_CELLS)
    if open_cells:
        line += " " + fit("tasks", open_cells)
    return Text(line, style="bold dim")


def row_text(row: SessionRow, now: datetime, width: int) -> Text:
    """One line: `● claude Title……  ~/src/api  12m ◑ 3/7     2 open`."""
    running = now - row.updated <= RUNNING_WINDOW
    harness, title_width, folder_width, open_cells = _widths(width)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("● " if running else "  ", style="bold green")
    if harness:
        text.append(fit(row.harness, harness), style=HARNESS_STYLES.get(row.harness, "blue"))
        text.append(" ")
    text.append(fit(safe_text(row.title or f"Session {row.id}", single_line=True), title_width), style="bold" if running else "")
    text.append(" ")
    if folder_width:
        text.append(fit_left(safe_text(row.folder, single_line=True), folder_width), style="dim")
        text.append(" ")
    text.append(age(row.updated, now).rjust(4), style="green" if running else "dim")
    text.append(" ")
    pill = pill_text(row.done, row.total)
    pill.truncate(PILL_CELLS, overflow="ellipsis", pad=True)
    text.append_text(pill)
    if open_cells:
        text.append(" ")
        text.append(fit(f"{row.open_count} open" if row.open_count else "", open_cells), style="yellow")
    return text


HARNESS_STYLES = {"claude": "cyan", "codex": "magenta", "acp": "blue"}


class SessionList(OptionList):
    """Every session, filtered by a needle; the highlighted one is the selected session."""

    # Moving already selects a session, so enter means what it means everywhere in the
    # app: open the details (tui.commands). A click still selects the clicked row.
    BINDINGS = [Binding("enter", "screen.details", "Details", show=False)]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.rows: list[SessionRow] = []
        self.needle = ""
        self._shown: list[SessionRow] = []
        self._layout_key: tuple[int, datetime | None] | None = None

    def show_rows(self, rows: list[SessionRow], now: datetime) -> None:
        """Replace the rows, keeping the selected session highlighted."""
        selected = self.selected_id
        self.rows = rows
        self._render_rows(now, selected)

    def set_needle(self, needle: str, now: datetime) -> None:
        selected = self.selected_id
        self.needle = needle
        self._render_rows(now, selected)

    @property
    def row_width(self) -> int:
        return self.scrollable_content_region.width or self.size.width or 100

    def _render_rows(self, now: datetime, selected: str | None) -> None:
        width = self.row_width
        shown = [row for row in self.rows if not self.needle or row.matches(self.needle)]
        key = (width, now.replace(second=0, microsecond=0) if now else None)
        if [r.id for r in shown] == [r.id for r in self._shown] and key == self._layout_key:
            # Same rows in the same order (the usual live append): repaint only the rows
            # that changed instead of rebuilding a list of a thousand options.
            for index, (old, new) in enumerate(zip(self._shown, shown, strict=True)):
                if old != new:
                    self.replace_option_prompt_at_index(index, row_text(new, now, width))
            self._shown = shown
            return
        self._shown = shown
        self._layout_key = key
        self.set_options([Option(row_text(row, now, width), id=row.id) for row in shown])
        if not shown:
            return
        index = next((i for i, row in enumerate(shown) if row.id == selected), 0)
        self.highlighted = index

    def rerender(self, now: datetime) -> None:
        """Lay every row out again (the clock moved: ages; the width changed)."""
        self._layout_key = None
        self._render_rows(now, self.selected_id)

    @property
    def selected_id(self) -> str | None:
        if self.highlighted is None or not (0 <= self.highlighted < len(self._shown)):
            return None
        return self._shown[self.highlighted].id

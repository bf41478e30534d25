"""The session list: one row per session, newest activity first.

A row shows a running marker, the harness, the title, the folder, the age, the pill and
the open count of the session's store tasks. The title gets most of the row: the folder
shows only the tail that tells folders apart, and a narrow list shows the harness as a
coloured letter. Grouped by folder or harness, a heading (the folder's short name or the
harness, and its count of sessions) stands above each group; headings are disabled
options, so the cursor passes over them. Rows are `Content` (literal text, theme
colours), never markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Literal

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.widgets.option_list import Option

from planwatch.core.text import safe_text
from planwatch.tui import palette
from planwatch.tui.palette import CursorPlainOptionList
from planwatch.tui.widgets.pill import pill_text

Order = Literal["recent", "folder", "harness"]
ORDERS: tuple[Order, ...] = ("recent", "folder", "harness")

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
    # The plan was rebuilt from an incomplete recovery (SPEC §2): a mark beside the pill.
    partial: bool = False

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


def folder_labels(folders: Iterable[str]) -> dict[str, str]:
    """Each folder's shortest tail that tells it apart from the others shown:
    `/home/dev/api` and `/srv/web` read `api` and `web`; `/a/x/api` beside `/b/y/api`
    read `x/api` and `y/api`."""
    unique = sorted({f for f in folders if f})
    parts = {f: [p for p in f.replace("\\", "/").split("/") if p] or [f] for f in unique}
    labels: dict[str, str] = {}
    depth = {f: 1 for f in unique}
    while True:
        tails: dict[str, list[str]] = {}
        for f in unique:
            tails.setdefault("/".join(parts[f][-depth[f]:]), []).append(f)
        clashes = [group for group in tails.values() if len(group) > 1]
        grown = False
        for group in clashes:
            for f in group:
                if depth[f] < len(parts[f]):
                    depth[f] += 1
                    grown = True
        if not clashes or not grown:
            break
    for f in unique:
        labels[f] = "/".join(parts[f][-depth[f]:])
    return labels


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


# Harness names when the list is wide; one coloured letter when it is not.
HARNESS_CELLS = 6
HARNESS_GLYPHS = {"claude": "C", "codex": "X", "acp": "A", "gemini": "G", "opencode": "O"}
WIDE_LIST = 100  # from here on the harness is named
OPEN_WORDS = 60  # from here on open counts say "2 open" (below: "⚑2")
FOLDER_MAX = 20
FOLDER_MIN = 6
AGE_CELLS = 4


def harness_style(harness: str) -> str:
    return palette.HARNESS.get(harness, palette.HARNESS_DEFAULT)


@dataclass(frozen=True)
class RowLayout:
    """Column widths for one width of the list and the rows it shows. The title takes
    what the other columns leave; the folder shows the tail that tells folders apart."""

    width: int
    harness: int  # 0: none; 1: a coloured letter; HARNESS_CELLS: the name
    title: int
    folder: int
    pill: int
    open: int
    folder_label: Mapping[str, str] = field(default_factory=dict, compare=True, hash=False)

    @classmethod
    def for_rows(cls, rows: Sequence[SessionRow], width: int) -> RowLayout:
        wide = width >= WIDE_LIST
        harness = HARNESS_CELLS if wide else (1 if width >= 24 else 0)
        pill = max([PILL_MIN, *(len(pill_text(r.done, r.total).plain) + r.partial for r in rows)])
        counts = [r.open_count for r in rows if r.open_count]
        if width >= OPEN_WORDS:
            open_cells = OPEN_CELLS
        elif width >= 40 and counts:
            open_cells = 1 + len(str(max(counts)))  # "⚑2"
        else:
            open_cells = 0
        fixed = 2 + (harness + 1 if harness else 0) + 1 + AGE_CELLS + 1 + pill
        fixed += open_cells + 1 if open_cells else 0
        labels = folder_labels(r.folder for r in rows)
        longest = max((len(label) for label in labels.values()), default=0)
        # The title keeps at least two thirds of what is left.
        room = width - fixed
        folder = min(longest, FOLDER_MAX if wide else FOLDER_MAX // 2, max(0, room // 3 - 1))
        if folder < min(longest, FOLDER_MIN):
            folder = 0  # a folder cut to a few letters tells nothing apart
        title = max(6, room - (folder + 1 if folder else 0))
        return cls(width, harness, title, folder, pill, open_cells, labels)


PILL_MIN = 5  # "○ 0/4"
PILL_CELLS = 9  # "◑ 100/200"
# Beside the pill of a session whose plan is partial (the hover card says what is missing).
PARTIAL_MARK = "~"
OPEN_CELLS = 7  # "12 open"


def header_text(layout: RowLayout) -> Content:
    """The column names above the rows, aligned with row_text."""
    line = "  "
    if layout.harness == HARNESS_CELLS:
        line += fit("agent", layout.harness) + " "
    elif layout.harness:
        line += " " * (layout.harness + 1)
    line += fit("session", layout.title) + " "
    if layout.folder:
        line += fit("folder", layout.folder) + " "
    line += "age".rjust(AGE_CELLS) + " " + fit("done", layout.pill)
    if layout.open:
        line += " " + fit("tasks" if layout.open >= 5 else "⚑", layout.open)
    return Content.styled(line, f"bold {palette.MUTED}")


def pill_span(layout: RowLayout) -> tuple[int, int]:
    """The cells [start, end) the pill (and its partial mark) take in a row."""
    start = 2 + (layout.harness + 1 if layout.harness else 0) + layout.title + 1
    start += (layout.folder + 1 if layout.folder else 0) + AGE_CELLS + 1
    return start, start + layout.pill


def row_text(row: SessionRow, now: datetime, layout: RowLayout) -> Content:
    """One line: `● claude Title……  api  12m ◑ 3/7  2 open` (wide) or
    `● C Title……  api  12m ◑ 3/7 ⚑2` (narrower)."""
    running = now - row.updated <= RUNNING_WINDOW
    parts: list[Content | tuple[str, str] | str] = [("● " if running else "  ", palette.RUNNING)]
    if layout.harness:
        shown = row.harness if layout.harness == HARNESS_CELLS else HARNESS_GLYPHS.get(row.harness, row.harness[:1].upper())
        parts += [(fit(shown, layout.harness), harness_style(row.harness)), " "]
    title = safe_text(row.title or f"Session {row.id}", single_line=True)
    parts += [(fit(title, layout.title), "bold" if running else ""), " "]
    if layout.folder:
        label = layout.folder_label.get(row.folder, row.folder)
        parts += [(fit_left(safe_text(label, single_line=True), layout.folder), palette.MUTED), " "]
    parts += [(age(row.updated, now).rjust(AGE_CELLS), palette.RUNNING if running else palette.MUTED), " "]
    pill = pill_text(row.done, row.total)
    if row.partial:
        pill = Content.assemble(pill, (PARTIAL_MARK, palette.WARNING))
    parts.append(pill.pad_right(layout.pill - len(pill.plain)) if len(pill.plain) <= layout.pill else pill.truncate(layout.pill, ellipsis=True))
    if layout.open:
        if row.open_count:
            shown = f"{row.open_count} open" if layout.open == OPEN_CELLS else f"⚑{row.open_count}"
        else:
            shown = ""
        parts += [" ", (fit(shown, layout.open), palette.OPEN_COUNT)]
    return Content.assemble(*parts)


NO_FOLDER = "(no folder)"


def group_key(row: SessionRow, order: Order) -> str:
    """What a row is grouped by in `order` (folder or harness)."""
    return row.folder if order == "folder" else row.harness


def heading_text(label: str, count: int, width: int, style: str = palette.HEADING) -> Content:
    """A group's heading: `api · 3 sessions`, the name cut to fit, the count kept."""
    noun = "session" if count == 1 else "sessions"
    tail = f" · {count} {noun}"
    name = safe_text(label or NO_FOLDER, single_line=True)
    room = max(1, width - len(tail))
    if len(name) > room:
        name = "…" + name[len(name) - room + 1 :]  # a folder's end tells it apart
    return Content.assemble((name, style), (tail, palette.MUTED))


class SessionList(CursorPlainOptionList):
    """Every session, filtered by a needle; the highlighted one is the selected session."""

    # Moving already selects a session, so enter means what it means everywhere in the
    # app: open the details (tui.commands). A click still selects the clicked row.
    BINDINGS = [Binding("enter", "screen.details", "Details", show=False)]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.rows: list[SessionRow] = []
        self.needle = ""
        self.order: Order = "recent"
        self.running_only = False
        self._shown: list[SessionRow] = []
        # The row each option stands for (None: a group's heading) and each shown row's
        # option: grouped by folder or harness, headings sit between the rows.
        self._option_rows: list[SessionRow | None] = []
        self._positions: list[int] = []
        self._layout_key: tuple[RowLayout, datetime | None] | None = None
        self.row_layout = RowLayout.for_rows([], 100)
        # The pill's hover card of a session (set by the screen, which holds the data):
        # shown as this list's tooltip while the mouse is over a row's pill (SPEC §3).
        self.hover_card_for: Callable[[str], Content] | None = None
        self._hovered_pill: str | None = None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        # OptionList's own handler (hover highlight) runs as well: Textual calls each
        # class's handler along the MRO.
        index = event.style.meta.get("option")
        start, end = pill_span(self.row_layout)
        x = event.x - self.gutter.left + self.scroll_offset.x
        over = None
        row = self._option_rows[index] if index is not None and 0 <= index < len(self._option_rows) else None
        if row is not None and start <= x < end:
            over = row.id
        if over == self._hovered_pill:
            return
        self._hovered_pill = over
        self.tooltip = None if over is None or self.hover_card_for is None else self.hover_card_for(over)

    def on_leave(self, event: events.Leave) -> None:
        self._hovered_pill = None
        self.tooltip = None

    def show_rows(self, rows: list[SessionRow], now: datetime) -> None:
        """Replace the rows, keeping the selected session highlighted."""
        selected = self.selected_id
        self.rows = rows
        self._render_rows(now, selected)

    def set_view(self, now: datetime, *, order: Order | None = None, running_only: bool | None = None) -> None:
        """Order the rows (newest first, or grouped by folder or harness) and/or show only
        running sessions."""
        selected = self.selected_id
        if order is not None:
            self.order = order
        if running_only is not None:
            self.running_only = running_only
        self._shown = []  # a new order: lay every row out again
        self._render_rows(now, selected)

    def set_needle(self, needle: str, now: datetime) -> None:
        selected = self.selected_id
        self.needle = needle
        self._render_rows(now, selected)

    @property
    def row_width(self) -> int:
        return self.scrollable_content_region.width or self.size.width or 100

    def _render_rows(self, now: datetime, selected: str | None) -> None:
        # Laid out over every row, not only the filtered ones: columns stay put while typing.
        layout = RowLayout.for_rows(self.rows, self.row_width)
        if self.order == "folder" and layout.folder:
            # The heading above each group names the folder: its column goes to the title.
            layout = replace(layout, title=layout.title + layout.folder + 1, folder=0)
        shown = [row for row in self.rows if not self.needle or row.matches(self.needle)]
        if self.running_only:
            shown = [row for row in shown if now - row.updated <= RUNNING_WINDOW]
        if self.order != "recent":
            # Stable: newest first within each folder or harness.
            attribute = "folder" if self.order == "folder" else "harness"
            shown.sort(key=lambda row: getattr(row, attribute).casefold())
        key = (layout, now.replace(second=0, microsecond=0) if now else None)
        if [r.id for r in shown] == [r.id for r in self._shown] and key == self._layout_key:
            # Same rows in the same order (the usual live append): repaint only the rows
            # that changed instead of rebuilding a list of a thousand options.
            for position, old, new in zip(self._positions, self._shown, shown, strict=True):
                if old != new:
                    self._option_rows[position] = new
                    self.replace_option_prompt_at_index(position, row_text(new, now, layout))
            self._shown = shown
            return
        self._shown = shown
        self._layout_key = key
        self.row_layout = layout
        self._set_rows(shown, now, layout)
        if not shown:
            return
        index = next((i for i, row in enumerate(shown) if row.id == selected), 0)
        self.highlighted = self._positions[index]

    def _set_rows(self, shown: list[SessionRow], now: datetime, layout: RowLayout) -> None:
        """The options: the rows, and when grouped a heading above each group (disabled,
        so the cursor passes over it)."""
        options: list[Option] = []
        self._option_rows = []
        self._positions = []
        counts: dict[str, int] = {}
        if self.order != "recent":
            for row in shown:
                counts[group_key(row, self.order)] = counts.get(group_key(row, self.order), 0) + 1
        group: str | None = None
        for row in shown:
            if self.order != "recent" and group_key(row, self.order) != group:
                group = group_key(row, self.order)
                options.append(Option(self._heading(group, counts[group], layout), disabled=True))
                self._option_rows.append(None)
            self._positions.append(len(options))
            options.append(Option(row_text(row, now, layout), id=row.id))
            self._option_rows.append(row)
        self.set_options(options)

    def _heading(self, group: str, count: int, layout: RowLayout) -> Content:
        width = max(1, layout.width)
        if self.order == "folder":
            return heading_text(layout.folder_label.get(group, group), count, width)
        return heading_text(group, count, width, f"bold {harness_style(group)}")

    @property
    def shown_ids(self) -> list[str]:
        """The sessions listed now (after the filter), in order."""
        return [row.id for row in self._shown]

    def highlight_id(self, session_id: str) -> None:
        """Put the cursor on a session (when it is shown)."""
        for position, row in zip(self._positions, self._shown, strict=True):
            if row.id == session_id:
                self.highlighted = position
                return

    def rerender(self, now: datetime) -> None:
        """Lay every row out again (the clock moved: ages; the width changed)."""
        self._layout_key = None
        self._render_rows(now, self.selected_id)

    @property
    def selected_id(self) -> str | None:
        if self.highlighted is None or not (0 <= self.highlighted < len(self._option_rows)):
            return None
        row = self._option_rows[self.highlighted]
        return row.id if row is not None else None

"""Moving the cursor of the app's lists (the session list, the checklist) as a keyboard
user expects: one row, half a page or to either end, stopping at the ends instead of
wrapping round (a stray `k` on the first row must not put the cursor on the last), and
passing over disabled rows (headings, notes)."""

from __future__ import annotations

from typing import Literal

from textual._widget_navigation import find_first_enabled, find_last_enabled, find_next_enabled_no_wrap
from textual.geometry import Size
from textual.reactive import Reactive, reactive

from planwatch.tui.widgets.boxed import sized_by_content
from planwatch.tui.widgets.cursor_option_list import CursorPlainOptionList

Direction = Literal[-1, 1]


class SteppedOptionList(CursorPlainOptionList):
    """An OptionList whose moves stop at the ends. Each move the person makes calls
    `moved_by_person`, which a list that remembers the person's choice overrides."""

    # The lines the list holds (its scrollable size). Textual's widgets ask for a layout
    # of the whole screen whenever it changes (tui/widgets/boxed.py): each key that
    # showed another session's checklist, and each batch of a first scan that lengthened
    # the session list, cost a repaint of every widget beside the key's own work. A list
    # whose box the stylesheet sizes (both of the app's are `height: 1fr`) only needs
    # repainting: its scrollbars follow the new size in OptionList's own update, and a
    # scrollbar shown or hidden asks for its own layout. A list sized by its lines
    # (`height: auto`) still asks for one.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self) -> None:
        if sized_by_content(self):
            self.refresh(layout=True)

    # Moving the cursor repaints the rows it leaves and reaches, not every row in view:
    # repainting the whole list (33 rows at 120×36) was about a third of a key's cost.
    # A move that scrolls repaints what scrolled into view as any scroll does.
    highlighted: Reactive[int | None] = reactive(None, repaint=False)

    def _watch_highlighted(self, old: int | None, new: int | None) -> None:
        for index in (old, new):
            if index is None:
                continue
            line = self._index_to_line.get(index)
            if line is None:  # its lines not mapped yet: the whole list
                self.refresh()
                return
            self.refresh_lines(line, self._line_cache.heights.get(index, 1))

    def moved_by_person(self) -> None:
        """The person put the cursor on a row (a key that moved it, a click)."""

    def _land(self, target: int | None) -> None:
        if target is not None:
            self.highlighted = target
            self.moved_by_person()

    def _step(self, direction: Direction) -> None:
        # Textual's navigation helpers and line map are private to the pinned version;
        # OptionList's own moves use them the same way.
        options = self.options
        if self.highlighted is None:
            target = find_first_enabled(options)
        else:
            target = find_next_enabled_no_wrap(options, self.highlighted, direction)
        self._land(target)

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def action_first(self) -> None:
        self._land(find_first_enabled(self.options))

    def action_last(self) -> None:
        self._land(find_last_enabled(self.options))

    def _move_lines(self, direction: Direction, fraction: float) -> None:
        """Move by `fraction` of the list's height in lines (a row two lines high counts
        two), to the nearest enabled row, stopping at the ends."""
        options = self.options
        if not options:
            return
        if self.highlighted is None:
            self.action_first()
            return
        lines = max(1, int(self.scrollable_content_region.height * fraction))
        line = self._index_to_line.get(self.highlighted, 0) + direction * lines
        line = min(max(line, 0), len(self._lines) - 1)
        index = self._lines[line][0]
        target = find_next_enabled_no_wrap(options, index, direction, with_anchor=True)
        if target is None:  # only disabled rows that way (a note at the end): the last enabled one
            back: Direction = -1 if direction == 1 else 1
            target = find_next_enabled_no_wrap(options, index, back, with_anchor=True)
        self._land(target)

    def action_page_down(self) -> None:
        self._move_lines(1, 1.0)

    def action_page_up(self) -> None:
        self._move_lines(-1, 1.0)

    def action_half_page_down(self) -> None:
        self._move_lines(1, 0.5)

    def action_half_page_up(self) -> None:
        self._move_lines(-1, 0.5)

"""The session list: one row per session, newest activity first, or grouped by folder or
harness with a heading (the folder's short name or the harness, and its count of
sessions) above each group; headings are disabled options, so the cursor passes over
them. What a row shows is tui/widgets/session_rows.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from itertools import repeat
from typing import cast

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.css.styles import RulesMap
from textual.message import Message
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual, VisualType
from textual.widgets.option_list import Option

from planwatch.core.model import harness_label
from planwatch.tui.widgets.list_moves import SteppedOptionList
from planwatch.tui.widgets.session_rows import (
    RUNNING_WINDOW,
    Order,
    RowLayout,
    SessionRow,
    face_until,
    group_key,
    harness_style,
    heading_text,
    pill_span,
    row_cells,
    row_face,
    row_text,
)


class _Looks:
    """The columns a list's rows are shown in now and the clock they were last shown at,
    shared by the list's options: when the columns change (a wider pill or folder while a
    first scan fills the list: every row of ten thousand), an option still holding a
    visual made in other columns is given one in these when it is next drawn or read
    (`RowOption.row_visual`), not all of them at the change."""

    __slots__ = ("layout", "now", "remake")

    def __init__(self, remake: Callable[[_RowVisual], _RowVisual]) -> None:
        self.layout: RowLayout | None = None
        self.now: datetime | None = None
        self.remake = remake


class RowOption(Option):
    """A session's option, drawn from a `_RowVisual`: its text made when first drawn or
    read (of a thousand rows the list draws the few on screen), its height known without
    the text when the row's cells fit; its visual made in the list's columns now when it
    was made in others (`_Looks`)."""

    # Identity, as Option's own hash, but without a Python call: the list's maps are
    # keyed by option and rebuilt over thousands of rows at a refresh.
    __hash__ = object.__hash__

    def __init__(self, visual: _RowVisual, looks: _Looks | None = None) -> None:
        super().__init__("", id=visual.row.id)
        self._row_visual = visual
        self._visual = visual
        self._looks = looks

    @property
    def row_visual(self) -> _RowVisual:
        visual = self._row_visual
        looks = self._looks
        if looks is not None and looks.layout is not None and visual.layout is not looks.layout:
            visual = self._row_visual = self._visual = looks.remake(visual)
        return visual

    @property
    def prompt(self) -> VisualType:
        return self.row_visual.content

    def _set_prompt(self, prompt: VisualType) -> None:
        # The list gives a row option another row's visual only (replace_option_prompt).
        assert isinstance(prompt, _RowVisual)
        self._row_visual = prompt
        self._visual = prompt


class _RowVisual(Visual):
    """One row as shown: made from the row, the clock and the layout, and equal to
    another made from the same row, face (what of the clock it shows) and columns, so the
    list keeps it across rebuilds. One line high when the row's cells fit the width
    (known without its text); its text made when first drawn, its strips kept per width
    and style. (It holds no reference to an option: no reference cycle per row.)"""

    # Made by the thousand while a first scan fills the list (every row at once when its
    # columns change), drawn by the few dozen: what only drawing or a later check needs
    # (the face, its span, the columns, the cells, the text, the strips) is worked out
    # when first asked for, and until then read from these class defaults.
    _until: datetime | None = None
    _columns: tuple[object, ...] | None = None
    _cells_known = False
    _cells: int | None = None
    _content: Content | None = None
    _strips: dict[tuple[object, ...], list[Strip]] | None = None

    def __init__(self, row: SessionRow, now: datetime, layout: RowLayout, face: tuple[bool, str] | None = None) -> None:
        self.row = row
        self.now = now
        self.layout = layout
        self._face = face

    @classmethod
    def remade(cls, old: _RowVisual | None, row: SessionRow, now: datetime, layout: RowLayout) -> _RowVisual:
        """The visual of `row` at `now` in `layout`, in place of `old` (the same session's
        visual before, which does not hold): its face and the span it holds for are
        kept while they still hold, so a row laid out in new columns (a wider pill at
        the end of a first scan: every row) does not work its age out again."""
        if (
            old is not None
            and old._until is not None
            and (old.row is row or old.row == row)
            and old.now <= now < old._until
        ):
            visual = cls(row, old.now, layout, old._face)
            visual._until = old._until
            return visual
        return cls(row, now, layout)

    @property
    def face(self) -> tuple[bool, str]:
        """What of the clock the row's text shows (running, age): row_face at `now`."""
        if self._face is None:
            self._face = row_face(self.row, self.now)
        return self._face

    @property
    def until(self) -> datetime:
        """The face holds for every clock from `now` until this (face_until)."""
        if self._until is None:
            self._until = face_until(self.row, self.now)
        return self._until

    @property
    def columns(self) -> tuple[object, ...]:
        if self._columns is None:
            self._columns = columns_of(self.layout, self.row)
        return self._columns

    def holds(self, row: SessionRow, now: datetime, layout: RowLayout) -> bool:
        """Whether this visual's text is the one `row` shows at `now` in `layout`: the
        same row, a clock within its face's span (no age made), the same columns."""
        return (
            (self.row is row or self.row == row)
            and (now == self.now or self.now <= now < self.until)
            and (self.layout is layout or self.columns == columns_of(layout, row))
        )

    @property
    def content(self) -> Content:
        if self._content is None:
            self._content = row_text(self.row, self.now, self.layout)
        return self._content

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        if options.selection is not None or options.post_style is not None:
            return self.content.render_strips(width, height, style, options)
        get_rule = options.rules.get
        key = (
            width,
            height,
            style,
            get_rule("text_align", "left"),
            get_rule("text_overflow", "fold"),
            get_rule("text_wrap", "wrap"),
            get_rule("line_pad", 0),
        )
        kept = self._strips
        if kept is None:
            kept = self._strips = {}
        strips = kept.get(key)
        if strips is None:
            if len(kept) >= 8:
                kept.clear()
            strips = kept[key] = self.content.render_strips(width, height, style, options)
        return list(strips)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        if not self._cells_known:
            self._cells, self._cells_known = row_cells(self.row, self.layout), True
        if self._cells is not None and self._cells <= width - rules.get("line_pad", 0) * 2:
            return 1  # one line, no newline in a row (safe_text): what the text would say
        # A row wider than the list (a narrow moment while the screen lays out, or a
        # wide title): measured from its text, which is kept only once it is drawn, so
        # a long list measured at such a moment keeps no text for its thousands of rows.
        text = self._content if self._content is not None else row_text(self.row, self.now, self.layout)
        return text.get_height(rules, width)


def columns_of(layout: RowLayout, row: SessionRow) -> tuple[object, ...]:
    """What of a layout one row's text depends on: the column widths and its folder's label."""
    label = layout.folder_label.get(row.folder, row.folder) if layout.folder else None
    return (*widths_of(layout), label)


def widths_of(layout: RowLayout) -> tuple[int, ...]:
    """A layout's column widths: a row laid out in other widths never holds in this one."""
    return (layout.width, layout.harness, layout.title, layout.folder, layout.pill, layout.open)


class SessionList(SteppedOptionList):
    """Every session, filtered by a needle; the highlighted one is the selected session.

    Until the person puts the cursor on a row (a key that moves it, a click, a jump to a
    session, a filter), the cursor is on the first row, whatever order the rows arrive
    in: the first scan delivers sessions in batches, newer ones often after older ones,
    and each lands above the rows before it. From the person's first choice on, the
    cursor stays on the session they chose (`chosen`).

    Whenever the session under the cursor changes (a move, a click, rows that came or
    went, an order, a filter), the list posts `SessionHighlighted` with it: the screen
    shows the session it names (messages up)."""

    class SessionHighlighted(Message):
        """The session under the list's cursor changed (None: the list shows no session)."""

        def __init__(self, session_list: SessionList, session_id: str | None) -> None:
            super().__init__()
            self.session_list = session_list
            self.session_id = session_id

        @property
        def control(self) -> SessionList:
            return self.session_list

    # Moving already selects a session, so enter means what it means everywhere in the
    # app: open the details (tui.commands). A click still selects the clicked row.
    BINDINGS = [Binding("enter", "screen.details", "Details", show=False)]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.rows: list[SessionRow] = []
        self.needle = ""
        self.order: Order = "recent"
        self.running_only = False
        # The person put the cursor on a row: it stays on that session as rows change.
        self.chosen = False
        self._shown: list[SessionRow] = []
        # The row each option stands for (None: a group's heading) and each shown row's
        # option: grouped by folder or harness, headings sit between the rows.
        self._option_rows: list[SessionRow | None] = []
        self._positions: list[int] = []
        # The layout the options were made with, and each shown row's option.
        self._layout_key: RowLayout | None = None
        self._row_options: list[RowOption] = []
        # Each listed session's visual (its text and strips), kept while its text holds.
        self._visuals: dict[str, _RowVisual] = {}
        self._visuals_theme: str | None = None
        # Each shown row's option, kept while its visual is (a rebuild makes none anew).
        self._options_by_id: dict[str, RowOption] = {}
        # The clocks for which every listed option's face holds (from the latest clock a
        # visual was made or checked at, until the first `until`): within them a row
        # that is the same object as its visual's needs no check. None: not known.
        self._faces_from: datetime | None = None
        self._faces_until: datetime | None = None
        self.row_layout = RowLayout.for_rows([], 100)
        # The columns and clock the options are shown in (their visuals follow lazily).
        self._looks = _Looks(self._remade_in_columns)
        # Options made ahead of the show that lists their rows (`make_looks`).
        self._premade: dict[str, RowOption] = {}
        # The pill's hover card of a session (set by the screen, which holds the data):
        # shown as this list's tooltip while the mouse is over a row's pill (docs/app.md, The checklist).
        self.hover_card_for: Callable[[str], Content] | None = None
        self._hovered_pill: str | None = None
        # The session last announced with SessionHighlighted, and whether the rows are
        # being replaced (the cursor passes through None and back: one announcement after).
        self._announced: str | None = None
        self._replacing = False

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        if not self._replacing:
            self._announce()

    def _announce(self) -> None:
        """Post `SessionHighlighted` when the session under the cursor is not the one last posted."""
        session_id = self.selected_id
        if session_id != self._announced:
            self._announced = session_id
            # Sent by the list whoever moved it: a message made while the pane handles
            # its filter would be the pane's, and Textual stops a message at its sender.
            self.post_message(self.SessionHighlighted(self, session_id).set_sender(self))

    def moved_by_person(self) -> None:
        self.chosen = True

    async def _on_click(self, event: events.Click) -> None:
        clicked = event.style.meta.get("option")
        if clicked is not None and 0 <= clicked < len(self._option_rows) and self._option_rows[clicked] is not None:
            self.chosen = True
        await super()._on_click(event)

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
        self._layout_key = None  # a new order or filter: lay every row out again
        self._render_rows(now, selected)

    def set_needle(self, needle: str, now: datetime) -> None:
        """Show the sessions matching `needle` (typed by the person: from now on the
        cursor stays where the filter left it)."""
        selected = self.selected_id
        self.needle = needle
        self._render_rows(now, selected)
        self.chosen = self.chosen or self.highlighted is not None

    @property
    def row_width(self) -> int:
        return self.scrollable_content_region.width or self.size.width or 100

    def _render_rows(self, now: datetime, selected: str | None) -> None:
        self._replacing = True
        try:
            self._lay_out_rows(now, selected)
        finally:
            self._replacing = False
            self._premade.clear()  # made for this show: used by it or no longer wanted
        self._announce()

    def _lay_out_rows(self, now: datetime, selected: str | None) -> None:
        # Laid out over every row, not only the filtered ones: columns stay put while typing.
        layout = RowLayout.for_rows(self.rows, self.row_width)
        if self.order == "folder" and layout.folder:
            # The heading above each group names the folder: its column goes to the title.
            layout = replace(layout, title=layout.title + layout.folder + 1, folder=0)
        shown = [row for row in self.rows if not self.needle or row.matches(self.needle)]
        if self.running_only:
            shown = [row for row in shown if now - row.updated <= RUNNING_WINDOW]
        if self.order != "recent":
            # Stable: newest first within each folder or harness; one run of rows per group
            # (two folders alike but for case are two groups, one after the other).
            order = self.order
            shown.sort(key=lambda row: (group_key(row, order).casefold(), group_key(row, order)))
        same_groups = self.order == "recent" or [group_key(r, self.order) for r in shown] == [
            group_key(r, self.order) for r in self._shown
        ]
        if layout == self._layout_key:
            layout = self._layout_key  # one object per layout: a visual made in it is checked by identity
        if [r.id for r in shown] == [r.id for r in self._shown] and same_groups and layout is self._layout_key:
            # Same rows in the same order and columns (the usual live append, a store
            # change, the clock's tick): give a new visual only to the rows whose text
            # changes (the row, or its age or running mark); no rebuild of a thousand options.
            layout = self._layout_key  # the same layout: the one the visuals were made in
            faces_hold = self._faces_hold(now)
            faces_from, faces_until = self._faces_from, self._faces_until
            if not faces_hold or faces_from is None or faces_until is None:
                faces_from, faces_until = now, datetime.max.replace(tzinfo=now.tzinfo)
            for position, option, new in zip(self._positions, self._row_options, shown, strict=True):
                if faces_hold and option._row_visual.row is new:
                    continue  # in columns shown before, it is given a visual in these when drawn
                visual = option.row_visual
                if not visual.holds(new, now, layout):
                    visual = self._visual_for(new, now, layout)
                    self._option_rows[position] = new
                    self.replace_option_prompt_at_index(position, visual)
                faces_from, faces_until = max(faces_from, visual.now), min(faces_until, visual.until)
            self._faces_from, self._faces_until = faces_from, faces_until
            self._shown = shown
            return
        if self._update_in_place(shown, now, layout, selected):
            return
        self._shown = shown
        self._layout_key = layout
        self.row_layout = layout
        self._set_rows(shown, now, layout)
        if not shown:
            return
        # Before the person chose a row the cursor is on the first, not on whichever
        # session reached the list first; after, it stays on their session while shown.
        index = next((i for i, row in enumerate(shown) if row.id == selected), 0) if self.chosen else 0
        self.highlighted = self._positions[index]

    def _faces_hold(self, now: datetime) -> bool:
        """Whether every listed option's face holds at `now` (see `_faces_until`)."""
        return (
            self._faces_from is not None
            and self._faces_until is not None
            and self._faces_from <= now < self._faces_until
        )

    def _note_face(self, visual: _RowVisual) -> None:
        """Narrow the clocks every listed face holds for to those `visual`'s holds for."""
        if self._faces_from is not None and self._faces_until is not None:
            self._faces_from = max(self._faces_from, visual.now)
            self._faces_until = min(self._faces_until, visual.until)

    def _update_in_place(self, shown: list[SessionRow], now: datetime, layout: RowLayout, selected: str | None) -> bool:
        """The options for `shown` when rows were only added or changed since the last
        refresh (none went, newest first, the same theme and faces): the rows that are
        the same objects keep their options with no check, only the others are looked
        at, and the lines drawn above the first change are kept. In new columns the kept
        options take visuals in them when next drawn or read (`_Looks`). While a first
        scan fills the list each refresh adds a batch to thousands of rows, mostly below
        the screen. False (nothing done) when this does not apply: a full rebuild then."""
        theme = self.app.theme if self.is_attached else None
        if self.order != "recent" or theme != self._visuals_theme or self._layout_key is None:
            return False
        if not self._faces_hold(now):
            return False
        # New columns (a wider pill or folder): the rows kept are given visuals in them
        # as they are drawn or read (`_Looks`), not ten thousand of them now.
        relayout = layout is not self._layout_key
        by_id = self._options_by_id
        get = by_id.get
        options: list[RowOption | None] = [get(row.id) for row in shown]
        stale = [
            i
            for i, (option, row) in enumerate(zip(options, shown, strict=True))
            if option is None or option._row_visual.row is not row
        ]
        added = sum(1 for i in stale if options[i] is None)
        if len(shown) - added != len(self._shown):
            return False  # a row went (or the filter hid it): laid out anew
        new_ids: dict[str, Option] = {}
        take_made = self._premade.pop
        for i in stale:
            row = shown[i]
            option = options[i]
            ahead = take_made(row.id, None) if option is None else None
            if ahead is not None:
                visual = ahead._row_visual
                if visual.row is row and visual.layout is layout and visual.now <= now < visual.until:
                    options[i] = by_id[row.id] = new_ids[row.id] = ahead
                    self._note_face(visual)
                    continue
            visual = self._visual_for(row, now, layout)
            if option is None or option._row_visual is not visual:
                option = RowOption(visual, self._looks)
            options[i] = by_id[row.id] = new_ids[row.id] = option
            self._note_face(visual)
        made = cast("list[RowOption]", options)
        unchanged = 0
        if not relayout:  # in new columns every drawn line is drawn again
            for before, after in zip(self._row_options, made, strict=False):
                if before is not after:
                    break
                unchanged += 1
        if relayout:
            self._layout_key = self.row_layout = layout
        self._looks.layout, self._looks.now = layout, now
        self._shown = shown
        self._option_rows = list(shown)
        self._positions = list(range(len(shown)))
        self._row_options = made
        self._replace_options(list(made), unchanged=unchanged, new_ids=new_ids)
        chosen = by_id.get(selected) if self.chosen and selected is not None else None
        self.highlighted = self._option_to_index[chosen] if chosen is not None else 0
        return True

    def _remade_in_columns(self, visual: _RowVisual) -> _RowVisual:
        """`visual`'s row in the columns shown now, at the clock last shown (`_Looks`):
        its face kept while it holds, as a relayout of every row at once would make it."""
        looks = self._looks
        assert looks.layout is not None and looks.now is not None
        row = visual.row
        made = _RowVisual.remade(visual, row, looks.now, looks.layout)
        if self._visuals.get(row.id) is visual:
            self._visuals[row.id] = made
        self._note_face(made)
        return made

    def _get_visual(self, option: Option) -> Visual:
        # A row's visual in the columns shown now (RowOption.row_visual), else OptionList's.
        if type(option) is RowOption:
            return option.row_visual
        return super()._get_visual(option)

    def make_looks(self, rows: list[SessionRow], now: datetime) -> None:
        """Make the visuals of `rows` (sessions about to be listed) in the columns shown
        now, with the span their face holds for, and the options of those not listed
        yet: the show that lists them finds them made (`_visual_for`, `_premade`), so a
        batch of thousands of new rows is made a few hundred a turn of the event loop
        beforehand (the screen's `_make_rows`), not in the show."""
        layout = self._layout_key
        if layout is None:
            return
        listed, premade, looks = self._options_by_id, self._premade, self._looks
        for row in rows:
            visual = self._visual_for(row, now, layout)
            visual.until  # noqa: B018 (worked out now, kept)
            if row.id not in listed:
                premade[row.id] = RowOption(visual, looks)

    def _visual_for(self, row: SessionRow, now: datetime, layout: RowLayout) -> _RowVisual:
        """The row's visual: the one it had if its text would be the same (kept with its
        strips across rebuilds: a row that only moved is not laid out again), else a new one."""
        visual = self._visuals.get(row.id)
        if visual is None or not visual.holds(row, now, layout):
            visual = self._visuals[row.id] = _RowVisual.remade(visual, row, now, layout)
        return visual

    def _set_rows(self, shown: list[SessionRow], now: datetime, layout: RowLayout) -> None:
        """The options: the rows, and when grouped a heading above each group (disabled,
        so the cursor passes over it)."""
        options: list[Option] = []
        self._option_rows = []
        self._positions = []
        self._row_options = []
        theme = self.app.theme if self.is_attached else None
        if theme != self._visuals_theme:
            self._visuals = {}  # strips drawn in another theme's colours
            self._visuals_theme = theme
        # Kept for every row of the list, shown or filtered out (typing a filter and
        # taking it back draws no row anew).
        listed = {row.id for row in self.rows}
        visuals = self._visuals
        kept = self._visuals = {key: visual for key, visual in visuals.items() if key in listed}
        made, by_id = self._options_by_id, dict[str, RowOption]()
        self._options_by_id = by_id
        # Whether a visual's layout has `layout`'s column widths (by the layout's id; a
        # few layouts in all): when not (new columns, every row anew: a wider pill or
        # folder while a first scan fills the list), it is not checked row by row.
        widths = widths_of(layout)
        same_widths: dict[int, bool] = {id(layout): True}
        get_same = same_widths.get
        faces_from, faces_until = now, datetime.max.replace(tzinfo=now.tzinfo)
        grouped = self.order != "recent"
        counts: dict[str, int] = {}
        if grouped:
            for row in shown:
                counts[group_key(row, self.order)] = counts.get(group_key(row, self.order), 0) + 1
        group: str | None = None
        # One pass over every shown row (ten thousand at a heavy user's start): what a
        # row needs is looked up once; newest first, the maps of places are made after.
        for row in shown:
            if grouped:
                if group_key(row, self.order) != group:
                    group = group_key(row, self.order)
                    options.append(Option(self._heading(group, counts[group], layout), disabled=True))
                    self._option_rows.append(None)
                self._positions.append(len(options))
                self._option_rows.append(row)
            sid = row.id
            visual = visuals.get(sid)
            if visual is None:
                visual = _RowVisual(row, now, layout)
            else:
                fits = get_same(id(visual.layout))
                if fits is None:
                    fits = same_widths[id(visual.layout)] = widths_of(visual.layout) == widths
                if not (fits and visual.holds(row, now, layout)):
                    visual = _RowVisual.remade(visual, row, now, layout)
            if visual.now > faces_from:
                faces_from = visual.now
            until = visual.until
            if until < faces_until:
                faces_until = until
            kept[sid] = visual
            option = made.get(sid)
            if option is None:
                option = RowOption(visual, self._looks)
            elif option._row_visual is not visual:
                # The session's option, given its new visual: every map and drawn line
                # is made again below, so none holds the visual it had.
                option._row_visual = option._visual = visual
            by_id[sid] = option
            options.append(option)
        if grouped:
            self._row_options = [option for option in options if isinstance(option, RowOption)]
        else:
            self._option_rows = list(shown)
            self._positions = list(range(len(shown)))
            self._row_options = cast("list[RowOption]", list(options))
        self._faces_from, self._faces_until = faces_from, faces_until
        self._looks.layout, self._looks.now = layout, now
        self._replace_options(options, ids=by_id)  # every option with an id: the rows'

    def _replace_options(
        self,
        options: list[Option],
        *,
        unchanged: int = 0,
        new_ids: dict[str, Option] | None = None,
        ids: Mapping[str, Option] | None = None,
    ) -> None:
        """`set_options(options)` for a list of thousands of rows: OptionList's own maps
        and line map built in one pass each, with no per-option checks (the options are
        made here, their ids unique: one per session, headings without one). What the
        pinned Textual's set_options leaves, it leaves the same (a test compares).
        `unchanged`: how many leading options are those that were at the same places;
        their drawn lines are kept (each line holds its option's place for a click).
        `new_ids`: the options are those before and these (none went): the map of ids
        is updated with these instead of made again. `ids`: the map of ids of `options`,
        made by the caller (no option's id read again)."""
        self._cursor_twins.clear()
        self._options[:] = options
        self._line_cache.clear()
        cache = self._option_render_cache
        if unchanged:
            place = self._option_to_index  # the places before: what a drawn line holds
            for key in list(cache.keys()):
                at = place.get(key[0])
                if at is None or at >= unchanged:
                    cache.discard(key)
        else:
            cache.clear()
        if new_ids is not None:
            self._id_to_option.update(new_ids)
        else:
            self._id_to_option.clear()
            if ids is None:
                ids = {option.id: option for option in options if option.id is not None}
            self._id_to_option.update(ids)
        self._option_to_index.clear()
        self._option_to_index.update(zip(options, range(len(options)), strict=True))
        self.highlighted = None
        self.scroll_y = 0
        if self.is_mounted:
            self.refresh(layout=self.styles.auto_dimensions)
            self._update_lines()

    def _update_lines(self) -> None:
        # OptionList measures every option anew (its height, through the styles) each
        # time the options are set; a list whose every option is one row that fits the
        # width (the usual list: known without its text) maps line n to option n at once.
        cache = self._line_cache
        region = self.scrollable_content_region
        count = len(self._options)
        if region and count and not cache.lines and self._single_lines(region.width - self._get_left_gutter_width()):
            cache.lines.extend(zip(range(count), repeat(0, count), strict=True))
            cache.heights.update(zip(range(count), repeat(1, count), strict=True))
            cache.index_to_line.update(zip(range(count), range(count), strict=True))
        super()._update_lines()

    def _single_lines(self, width: int) -> bool:
        """Whether every option is one line at `width`: all rows, no headings, no
        padding, each row's cells known and fitting (RowOption._RowVisual.get_height)."""
        if self.order != "recent" or len(self._row_options) != len(self._options):
            return False
        if self.get_component_styles("option-list--option").padding.width:
            return False
        # Every row of a layout takes the same cells (row_cells).
        cells = row_cells(self._shown[0], self.row_layout) if self._shown else None
        return cells is not None and cells <= width - self.styles.line_pad * 2

    def _heading(self, group: str, count: int, layout: RowLayout) -> Content:
        width = max(1, layout.width)
        if self.order == "folder":
            return heading_text(layout.folder_heading.get(group, group), count, width)
        return heading_text(harness_label(group), count, width, f"bold {harness_style(group)}")

    @property
    def shown_ids(self) -> list[str]:
        """The sessions listed now (after the filter), in order."""
        return [row.id for row in self._shown]

    def highlight_id(self, session_id: str, *, chosen: bool = False) -> bool:
        """Put the cursor on a session (when it is shown; False when it is not);
        `chosen`: the person picked it (a jump), so the cursor stays on it."""
        for position, row in zip(self._positions, self._shown, strict=True):
            if row.id == session_id:
                self.highlighted = position
                self.chosen = self.chosen or chosen
                return True
        return False

    def rerender(self, now: datetime) -> None:
        """Show the rows for `now` and the list's width now (the clock moved: ages and
        running marks; the width changed: every row laid out again)."""
        self._render_rows(now, self.selected_id)

    @property
    def selected_id(self) -> str | None:
        if self.highlighted is None or not (0 <= self.highlighted < len(self._option_rows)):
            return None
        row = self._option_rows[self.highlighted]
        return row.id if row is not None else None

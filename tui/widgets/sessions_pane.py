"""The browse screen's left side: the filter box, the column names, the session list and
its empty state, as one widget.

The screen hands it rows (attributes down) and learns which session is under the list's
cursor from the list's `SessionHighlighted` (messages up), whatever moved it: a key, a
click, a filter, an order. The pane keeps how the
list is viewed: its order (newest first, grouped by folder or harness), "running only",
the filter's needle.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from planwatch.core.text import safe_text, shorten
from planwatch.tui import colours
from planwatch.tui.widgets.boxed import sized_by_content
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import ORDERS, SessionRow, header_text

ORDER_NAMES = {"recent": "newest first", "folder": "grouped by folder", "harness": "grouped by harness"}


def mode_line(shown: int, total: int, order: str, running_only: bool, needle: str) -> Content:
    """The list's frame title: how many sessions it shows of how many, and how it is
    viewed (`12 of 1,000 sessions · running · grouped by folder`), as lazygit's and
    k9s's frames say theirs."""
    noun = "session" if total == 1 else "sessions"
    count = f"{total:,} {noun}" if shown == total else f"{shown:,} of {total:,} {noun}"
    modes = []
    if running_only:
        modes.append("running")
    if needle:
        modes.append(f"matching “{safe_text(shorten(needle, 30), single_line=True)}”")
    modes.append(ORDER_NAMES.get(order, order))
    return Content.assemble((count, "bold"), (" · " + " · ".join(modes), colours.MUTED))


def hidden_note(running_only: bool, needle: str) -> Content:
    """What the list says when its mode hides every session, and how to see them again."""
    if running_only and not needle:
        text = "No session ran in the last minutes.\nr shows every session again."
    elif running_only:
        text = "No running session matches the filter.\nr shows every session again; esc empties the filter."
    else:
        text = "No session matches the filter.\nesc empties the filter."
    return Content.styled(text, colours.NOTE)


class SessionsPane(Vertical):
    """Filter box, column names, the list and its empty state."""

    def __init__(self, clock: Callable[[], datetime], *, id: str | None = None) -> None:
        super().__init__(id=id)
        # The app's clock (frozen in tests): ages and "running" are measured with it.
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield Static(id="sessions-mode", markup=False)
        yield Input(placeholder="filter sessions…", id="filter")
        yield Static(id="sessions-header", markup=False)
        yield SessionList(id="sessions")
        yield Static(id="sessions-empty", markup=False)

    def on_mount(self) -> None:
        self.filter_box.display = False

    @property
    def session_list(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    @property
    def filter_box(self) -> Input:
        return self.query_one("#filter", Input)

    def show(self, rows: list[SessionRow], empty: Content | None) -> None:
        """Show `rows` (the cursor stays on its session), or `empty` when there are none."""
        self._empty = empty
        self.session_list.show_rows(rows, self.clock())
        self._show_header()

    _empty: Content | None = None

    def relayout(self) -> None:
        """Lay the rows out again (the clock moved, the width changed)."""
        self.session_list.rerender(self.clock())
        self._show_header()

    def _show_header(self) -> None:
        """The list's frame: its mode line, the column names for the layout now (its
        width, its grouping), and what it says when it shows no session."""
        session_list = self.session_list
        # Both lines are one line high: a new text needs a repaint, not a layout of the
        # screen, which each batch of a first scan would otherwise cost (boxed.py).
        header = self.query_one("#sessions-header", Static)
        header.update(header_text(session_list.row_layout), layout=sized_by_content(header))
        shown, total = len(session_list.shown_ids), len(session_list.rows)
        mode = self.query_one("#sessions-mode", Static)
        mode.update(
            mode_line(shown, total, session_list.order, session_list.running_only, session_list.needle),
            layout=sized_by_content(mode),
        )
        message = self.query_one("#sessions-empty", Static)
        message.display = not shown
        if not total:
            if self._empty is not None:
                message.update(self._empty)
        elif not shown:
            message.update(hidden_note(session_list.running_only, session_list.needle))

    # -- how the list is viewed

    def cycle_order(self) -> str:
        """The next order (newest first → by folder → by harness); says which."""
        session_list = self.session_list
        order = ORDERS[(ORDERS.index(session_list.order) + 1) % len(ORDERS)]
        session_list.set_view(self.clock(), order=order)
        self._show_header()
        return f"Sessions {ORDER_NAMES[order]}."

    def toggle_running_only(self) -> str:
        """Only running sessions, or all again; says which."""
        session_list = self.session_list
        session_list.set_view(self.clock(), running_only=not session_list.running_only)
        self._show_header()
        if not session_list.running_only:
            return "All sessions."
        if session_list.option_count == 0:
            return "Only running sessions: none ran in the last minutes (r shows all again)."
        return "Only running sessions."

    def open_filter(self) -> None:
        self.filter_box.display = True
        self.filter_box.focus()

    def close_filter(self) -> bool:
        """Empty and hide the filter (the list shows every session); False if it was not open."""
        box = self.filter_box
        if not box.display:
            return False
        box.value = ""
        box.display = False
        self.session_list.focus()
        return True

    def reveal(self, session_id: str) -> None:
        """Put the cursor on a session the person picked (it stays there), emptying a
        filter and leaving "running only" when they hide it."""
        session_list = self.session_list
        box = self.filter_box
        if box.display and session_id not in session_list.shown_ids:
            box.value = ""
            box.display = False
            session_list.set_needle("", self.clock())
        if session_list.running_only and session_id not in session_list.shown_ids:
            session_list.set_view(self.clock(), running_only=False)
            self._show_header()
        session_list.highlight_id(session_id, chosen=True)

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.session_list.set_needle(event.value, self.clock())
        self._show_header()

    @on(Input.Submitted, "#filter")
    def _filter_done(self, event: Input.Submitted) -> None:
        event.stop()
        self.session_list.focus()

"""The browse screen: the session list beside the selected session's checklist.

In pane mode (`--pane`, or narrower than PANE_WIDTH columns) the `-pane` class hides the
list and the screen follows the most recently active session (of a folder, with --cwd:
browse_follow.py).

The app builds the screen with what it shows (attributes down): a `BrowseModel`
(browse_model.py: the sessions, a session's checklist, counts and timeline, the scan's
state, the reading switch, their signals), the store service (the store's contents and
its signals), and the start-up choices (a pane started as one, the folder it follows).
The screen never names the app; what it asks for goes up as messages (browse_model.py).

The selected session is one reactive, `selected_id`, whose watcher paints the head, the
checklist and the details. It has one owner at a time: the session list's cursor, which
posts `SessionList.SessionHighlighted` whenever the session under it changes (the only
place the screen takes it from), or in a pane started as one the screen itself, which
follows the newest session (`select`). Every change from above (the sessions, the
store, the scan's end, the settings) repaints through `_repaint`. The actions on items,
the ways out of the app and the texts live beside the screen (browse_items,
browse_outside, browse_texts).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Click, Resize
from textual.reactive import var
from textual.widgets import OptionList, Static

from planwatch.core.checklist import Checklist
from planwatch.core.text import safe_text
from planwatch.tui import colours
from planwatch.tui.commands import bindings
from planwatch.tui.screens import browse_follow, browse_items, browse_outside, browse_texts
from planwatch.tui.screens.browse_items import Undo
from planwatch.tui.screens.browse_model import SessionShown
from planwatch.tui.session_palette import SessionScreen, SessionSwitcher
from planwatch.tui.widgets.boxed import sized_by_content
from planwatch.tui.widgets.checklist import ChecklistView
from planwatch.tui.widgets.details import DetailsPanel, details_text, hover_card
from planwatch.tui.widgets.key_footer import KeysFooter
from planwatch.tui.widgets.list_moves import SteppedOptionList
from planwatch.tui.widgets.pill import Pill
from planwatch.tui.widgets.session_list import SessionList
from planwatch.tui.widgets.session_rows import SessionRow
from planwatch.tui.widgets.sessions_pane import SessionsPane

if TYPE_CHECKING:
    from textual.timer import Timer

    from planwatch.core.model import Session
    from planwatch.core.sessions import SessionEntry
    from planwatch.tui.messages import ScanFinished
    from planwatch.tui.screens.browse_model import BrowseModel
    from planwatch.tui.store_service import StoreService


# What a listed session's row is made from besides the session: its pill counts (done,
# total, partial), its open own items, the home folder (see `_row`).
RowInputs = tuple[tuple[int, int, bool], int | None, str]
# Seconds of the event loop between making a batch's rows and showing them while the
# first scan fills the list: long enough for a key queued meanwhile to reach its action.
SLICE_GAP = 0.003
# ... once the list holds this many rows (a shorter list's refresh is a few milliseconds,
# and the first screen's rows are shown at once), or a refresh brings this many sessions.
SPLIT_FROM_ROWS = 2000
# Rows made in one turn of the event loop while the first scan fills the list: a row
# (its pill counts, its text's parts, its face) is about 10 us of the UI thread, and the
# app hands on the scan's batches a few times a second, thousands of sessions at once at
# ten thousand: made in one turn they held a key back 30-60 ms.
ROWS_PER_TURN = 500


class BrowseScreen(SessionScreen):
    """Sessions on the left, the checklist and details on the right; one column in pane mode."""

    CSS_PATH = "browse.tcss"
    BINDINGS = bindings("browse")
    AUTO_FOCUS = "#sessions"

    selected_id: var[str | None] = var(None, init=False)
    """The session on screen: the list's highlighted session (`_list_highlighted`), or the
    one a pane started as one follows (`select`); its watcher paints it."""

    def __init__(
        self, model: BrowseModel, store: StoreService, *, pane: bool = False, folder: Path | None = None
    ) -> None:
        """`model`: the sessions and what is shown of each; `store`: the store service;
        `pane`: started as a pane (`--pane`), which follows the newest session, of
        `folder` when one is given."""
        super().__init__(id="browse")
        self.model = model
        self.store = store
        self.started_as_pane = pane
        self.folder = folder
        self.undo_stack: list[Undo] = []
        # The session the details panel last showed (its scroll position is that session's).
        self._details_session: str | None = None
        # (session, its own item ids) while an added item is on its way to the store.
        self.awaited_item: tuple[str, set[str]] | None = None
        # Pill counts (done, total, partial) per session, dropped when the session, the
        # store or overrides change.
        self._counts: dict[str, tuple[int, int, bool]] = {}
        # Each listed session's row and what it was made from (see _row).
        self._made_rows: dict[str, tuple[Session, RowInputs, SessionRow]] = {}
        self._next_rows: dict[str, tuple[Session, RowInputs, SessionRow]] = {}
        # The store's open counts and the home folder the listed rows were made with.
        self._rows_inputs: tuple[object, str] | None = None
        # While the first scan fills the list, a batch's rows are made in one turn of the
        # event loop and shown in the next (`_show_made_rows`): the rows made, and the
        # sessions changed since the list last showed its rows.
        self._made_for_list: list[SessionRow] | None = None
        self._changed_for_list: set[str] = set()
        self._show_timer: Timer | None = None
        # The entries whose rows the refresh's turns have yet to make, newest last
        # (`_make_some_rows`); None: found at the next turn.
        self._to_make: list[SessionEntry] | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield SessionsPane(self.model.now, id="sessions-pane")
            with Vertical(id="checklist-pane"):
                with Horizontal(id="session-head"):
                    yield Static(id="session-title", markup=False)
                    yield Pill(id="pill")
                yield ChecklistView(id="checklist")
                yield DetailsPanel(id="details")
        yield Static(id="status-line", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        # Told of changes by the model's and the store's signals; the app never calls
        # into this screen.
        self.model.sessions_changed.subscribe(self, self.sessions_changed, immediate=True)
        self.model.scan_finished.subscribe(self, self.scan_finished, immediate=True)
        store = self.store
        store.changed.subscribe(self, lambda _view: self.store_changed(), immediate=True)
        store.settings_changed.subscribe(self, lambda _settings: self.refresh_all(), immediate=True)
        store.sync_changed.subscribe(self, lambda _status: self._show_status(), immediate=True)
        self.session_list().hover_card_for = self._hover_card
        self.set_class(self.started_as_pane, "-pane")
        if self.pane:
            # The list is hidden: keys go to the checklist from the first press.
            self.query_one("#checklist", ChecklistView).focus()
        self.set_interval(30, self._tick_clock)
        self.refresh_all()

    # -- pane mode

    @property
    def pane(self) -> bool:
        return self.has_class("-pane")

    def on_resize(self, event: Resize) -> None:
        from planwatch.tui.app_options import MEDIUM_WIDTH, PANE_WIDTH

        was = self.pane
        self.set_class(self.started_as_pane or event.size.width < PANE_WIDTH, "-pane")
        self.set_class(event.size.width < MEDIUM_WIDTH, "-medium")
        if self.pane != was:
            # The selected session stays selected whatever the width (it is the list's
            # cursor, shown or hidden), so a person's choice survives a resize; only a
            # pane started as one follows the newest session.
            if self.pane and self.focused is not self.query_one("#details"):
                self.query_one("#checklist", ChecklistView).focus()
            self.refresh_all()
        # Rows are laid out for a width: lay them out again once the new size is known.
        self.call_after_refresh(self.sessions_pane().relayout)

    def sessions_pane(self) -> SessionsPane:
        return self.query_one(SessionsPane)

    def session_list(self) -> SessionList:
        return self.query_one("#sessions", SessionList)

    @property
    def list_selects(self) -> bool:
        """Whether the session list's cursor is the selection: always but in a pane started
        as one (`--pane`), which follows the newest session (of its folder) itself. A
        window narrowed into pane mode keeps the list's session, hidden or not."""
        return not self.started_as_pane

    @property
    def pinned(self) -> bool:
        """The person chose a session (in the list, or with a jump): the selection stays
        on it; until then it is the newest session (the list's first row, or the one a
        pane follows)."""
        return self.session_list().chosen

    # -- data from the app

    def sessions_changed(self, changed: set[str]) -> None:
        if (
            self.model.scan_done is None
            and self.is_attached
            and (len(self.session_list().rows) >= SPLIT_FROM_ROWS or len(changed) >= ROWS_PER_TURN)
        ):
            # While the first scan fills the list, a refresh at ten thousand rows is tens
            # of milliseconds of the UI thread: the changed sessions' rows are made a few
            # hundred a turn of the loop (`_make_rows`), then the list, the followed and
            # the selected session are shown in a later turn, so a key pressed meanwhile
            # is acted on between them, not after all of them.
            for session_id in changed:
                self._counts.pop(session_id, None)
            self._changed_for_list |= changed
            self._made_for_list = None  # made again from the sessions as they are now
            self._to_make = None  # and the rows to make found again
            if self._show_timer is not None and self._show_timer.name == "show-rows":
                self._show_timer.stop()
                self._show_timer = None
            if self._show_timer is None:
                self._show_timer = self.set_timer(SLICE_GAP, self._make_rows, name="make-rows")
            return
        self._repaint(changed)

    @property
    def rows_pending(self) -> bool:
        """Rows of a refresh still being made or shown in slices (`sessions_changed`)."""
        return self._show_timer is not None

    def _make_rows(self) -> None:
        """A turn of a refresh while the first scan runs (`sessions_changed`): up to
        ROWS_PER_TURN rows made, and again in the next turn while rows are left to make;
        then every row listed, each made already, and shown in the turn after."""
        self._show_timer = None
        if self._make_some_rows():
            self._show_timer = self.set_timer(SLICE_GAP, self._make_rows, name="make-rows")
            return
        self._made_for_list = self._list_rows()
        self._show_timer = self.set_timer(SLICE_GAP, self._show_made_rows, name="show-rows")

    def _make_some_rows(self) -> bool:
        """Make the rows of up to ROWS_PER_TURN sessions whose row does not hold (new or
        changed sessions), and each one's look in the list's columns now; True when rows
        are left to make. Made as `_rows_kept` would (it then finds them made); when the
        store's counts or the home folder changed since the last listing, every row is
        checked in one go by `_list_rows` instead."""
        home = str(Path.home())
        open_counts = self.store.summary.open_counts
        inputs = self._rows_inputs
        if inputs is None or inputs[0] is not open_counts or inputs[1] != home:
            return False
        made_rows, get_counts = self._made_rows, self._counts.get
        get_made = made_rows.get
        if self._to_make is None:
            # Found once a refresh (ten thousand entries looked at), not each turn.
            self._to_make = [
                entry
                for entry in self.model.entries()
                if (made := get_made(entry.session.id)) is None
                or made[0] is not entry.session
                or made[1][0] is not get_counts(entry.session.id)
            ]
            self._to_make.reverse()  # taken from the end: the newest first
        to_make = self._to_make
        turn = [to_make.pop() for _ in range(min(ROWS_PER_TURN, len(to_make)))]
        self._next_rows = {}
        rows = [self._row(entry, home, open_counts) for entry in turn]
        made_rows.update(self._next_rows)
        self._next_rows = {}
        pane = self.sessions_pane()
        pane.session_list.make_looks(rows, pane.clock())
        if to_make:
            return True
        self._to_make = None
        return False

    def _show_made_rows(self) -> None:
        """The last turn of a refresh while the first scan runs (`sessions_changed`)."""
        self._show_timer = None
        rows, changed = self._made_for_list, self._changed_for_list
        self._made_for_list, self._changed_for_list = None, set()
        if rows is None:
            return  # a full repaint came first and showed them
        self._show_rows(rows)
        browse_follow.follow(self)
        if self.selected_id in changed:
            self._show_selected()
        self._show_status()

    def store_changed(self) -> None:
        self._counts.clear()  # the pill counts hold the store's overrides
        self._repaint()
        browse_items.select_added_item(self)

    def scan_finished(self, event: ScanFinished) -> None:
        self._repaint()

    def refresh_all(self) -> None:
        self._counts.clear()
        self._repaint()

    def _repaint(self, changed: set[str] | None = None) -> None:
        """Show what the model and the store hold now, the one path every change from
        above takes: the list, the session a pane follows, the selected session and the
        status line. `changed`: only these sessions changed (their pill counts are made
        again; the selected session is painted again when it is one of them, the status
        line while the first scan runs, for its progress); None: the change is not one
        session's (the store, the settings, the scan's end), everything is painted."""
        if self._show_timer is not None:
            # Rows made for the list and not shown yet: this repaint makes and shows them
            # anew, and paints the selected session if it was one of their sessions.
            self._show_timer.stop()
            self._show_timer = None
            if changed is not None:
                changed = changed | self._changed_for_list
            self._made_for_list, self._changed_for_list = None, set()
        if changed is not None:
            for session_id in changed:
                self._counts.pop(session_id, None)
        self._refresh_list()
        browse_follow.follow(self)
        if changed is None or self.selected_id in changed:
            self._show_selected()
        if changed is None or self.model.scan_done is None:
            self._show_status()

    def _tick_clock(self) -> None:
        self.sessions_pane().relayout()
        if self.pane:
            self._show_selected()  # the head's age and running mark

    def _hover_card(self, session_id: str) -> Content:
        """The hover card of a session's pill, wherever the pill is shown (docs/app.md, The checklist)."""
        return hover_card(self.model.checklist_for(session_id), self.model.reading)

    def _row(self, entry: SessionEntry, home: str, open_counts: dict[str, int]) -> SessionRow:
        # The row made last time while its session (a frozen value: a change makes a new
        # one), counts, open tasks and home folder are the same: a list of a thousand rows
        # is refreshed on every change of one.
        session = entry.session
        inputs = (self._session_counts(session.id), open_counts.get(session.id), home)
        made = self._made_rows.get(session.id)
        if made is not None and made[0] is session and made[1] == inputs:
            row = made[2]
        else:
            row = SessionRow.of(session, *inputs[0], inputs[1], home)
        self._next_rows[session.id] = (session, inputs, row)
        return row

    def _rows(self, entries: list[SessionEntry], home: str, open_counts: dict[str, int]) -> list[SessionRow]:
        """`_row` of every entry, in one loop over locals: run on the UI thread for every
        session at each refresh (ten thousand while a first scan fills the list)."""
        inputs = self._rows_inputs
        if inputs is not None and inputs[0] is open_counts and inputs[1] == home:
            return self._rows_kept(entries, home, open_counts)
        self._rows_inputs = (open_counts, home)
        return self._rows_checked(entries, home, open_counts)

    def _rows_kept(self, entries: list[SessionEntry], home: str, open_counts: dict[str, int]) -> list[SessionRow]:
        """`_rows` when the store's open counts (the same object: a store change makes a
        new one) and the home folder are those the last refresh made its rows with: a
        row still holds when its session is the same object and its pill counts are the
        very ones it was made with (a change drops them), checked in one comprehension;
        the others are made again."""
        made_rows, get_counts = self._made_rows, self._counts.get
        get_made = made_rows.get
        kept = [
            made[2]
            if (made := get_made(entry.session.id)) is not None
            and made[0] is entry.session
            and made[1][0] is get_counts(entry.session.id)
            else None
            for entry in entries
        ]
        self._next_rows = {}
        for at in [at for at, row in enumerate(kept) if row is None]:
            kept[at] = self._row(entries[at], home, open_counts)
        made_rows.update(self._next_rows)
        if len(made_rows) > len(entries):  # sessions went: only those listed now
            made_rows = {entry.session.id: made_rows[entry.session.id] for entry in entries}
        self._next_rows = made_rows
        return cast("list[SessionRow]", kept)

    def _rows_checked(self, entries: list[SessionEntry], home: str, open_counts: dict[str, int]) -> list[SessionRow]:
        """`_rows`, each row's inputs compared with those it was made with."""
        made_rows, next_rows, counts = self._made_rows, self._next_rows, self._counts
        get_made, get_open, get_counts = made_rows.get, open_counts.get, counts.get
        rows: list[SessionRow] = []
        append = rows.append
        for entry in entries:
            session = entry.session
            sid = session.id
            made = get_made(sid)
            if made is not None and made[0] is session:
                inputs = made[1]
                counted = get_counts(sid)
                if counted is not None and inputs[0] == counted and inputs[1] == get_open(sid) and inputs[2] == home:
                    next_rows[sid] = made
                    append(made[2])
                    continue
            append(self._row(entry, home, open_counts))
        return rows

    def _session_counts(self, session_id: str) -> tuple[int, int, bool]:
        cached = self._counts.get(session_id)
        if cached is None:
            cached = self._counts[session_id] = self.model.pill_counts(session_id)
        return cached

    def _refresh_list(self) -> None:
        self._show_rows(self._list_rows())

    def _list_rows(self) -> list[SessionRow]:
        """A row for every session the model holds now, newest first."""
        entries = self.model.entries()
        home = str(Path.home())
        open_counts = self.store.summary.open_counts
        self._next_rows = {}
        rows = self._rows(entries, home, open_counts)
        self._made_rows, self._next_rows = self._next_rows, {}  # only the sessions listed now
        return rows

    def _show_rows(self, rows: list[SessionRow]) -> None:
        # The list's cursor stays on the newest session until the person chooses one, and
        # moves on when theirs left the list; it says so (SessionHighlighted).
        self.sessions_pane().show(rows, None if rows else self._empty_text())

    def _empty_text(self) -> Content:
        return browse_texts.empty_text(self.model.scan_done)

    _status_one_line = False

    def _show_status(self) -> None:
        line = self.query_one("#status-line", Static)
        text = browse_texts.status_text(
            self.store.summary,
            self.model.scan_done is not None,
            self.model.scan_progress,
            self.store.sync_status,
            now=self.model.now(),  # the app's clock (frozen in tests), as every age on screen
        )
        # The line is as tall as its text (up to three lines): laid out again only when the
        # text may take another number of lines. Each batch of a first scan changes its
        # count, and a layout repaints the whole screen (tui/widgets/boxed.py).
        one_line = "\n" not in text.plain and text.cell_length <= line.content_size.width
        line.update(text, layout=not (one_line and self._status_one_line and line.display))
        self._status_one_line = one_line
        line.display = bool(text.plain)

    # -- the selected session

    def select(self, session_id: str | None) -> None:
        """Show `session_id`: the list's cursor moves onto it (when it is listed; the
        list then says so), or a pane started as one, which owns its selection, shows it."""
        if not self.list_selects:
            self.selected_id = session_id
        elif session_id is not None:
            self.session_list().highlight_id(session_id)

    @on(SessionList.SessionHighlighted, "#sessions")
    def _list_highlighted(self, event: SessionList.SessionHighlighted) -> None:
        # The one place the list's cursor becomes the selection. Each change of the
        # session under the cursor is posted in turn, so a message the cursor has left
        # since is followed by the one it is on now: only that one is taken.
        if self.list_selects and event.session_id == event.session_list.selected_id:
            self.selected_id = event.session_id

    def watch_selected_id(self, session_id: str | None) -> None:
        self._show_selected()
        self.post_message(SessionShown(session_id))

    def _show_selected(self) -> None:
        checklist_view = self.query_one("#checklist", ChecklistView)
        title = self.query_one("#session-title", Static)
        pill = self.query_one("#pill", Pill)
        session_id = self.selected_id
        entry = self.model.entry(session_id) if session_id else None
        if entry is None:
            if self.pane and self.model.scan_done is not None and not self.model.entries():
                # The list with its empty state is hidden in pane mode: say it here.
                title.update(self._empty_text())
            else:
                title.update(Content.styled(self._no_selection_text(), colours.NOTE))
            pill.set_counts(0, 0)
            pill.tooltip = None
            checklist_view.show(
                Checklist(), agent_note="No session selected.", own_note="Select a session to see its items."
            )
            self._show_details(None)
            return
        session = entry.session
        checklist = self.model.checklist_for(session.id)
        reading = self.model.reading
        # One line high beside the list (a repaint is enough); wrapped in a pane, where a
        # title of more lines needs the layout (tui/widgets/boxed.py).
        title.update(browse_texts.head_text(session, self.model.now(), pane=self.pane), layout=sized_by_content(title))
        pill.set_counts(*checklist.counts())
        pill.tooltip = hover_card(checklist, reading)
        error = self.store.summary.error
        own_note = safe_text(error, single_line=True) if error else None
        checklist_view.show(checklist, agent_note=browse_texts.agent_note(checklist, reading), own_note=own_note)
        self._show_details(session.id)

    def _no_selection_text(self) -> str:
        listed = self.session_list()
        if not self.pane and listed.rows and not listed.shown_ids:
            # The list's mode hides every session (running only, a filter): the checklist
            # shows none, and the list says how to see them again.
            return "No session listed."
        # Only a pane started as one, on a folder, waits for that folder's sessions.
        folder = self.folder if self.pane and self.started_as_pane else None
        return browse_texts.no_selection_text(folder, scanned=self.model.scan_done is not None)

    def _show_details(self, session_id: str | None) -> None:
        panel = self.query_one("#details", DetailsPanel)
        if not panel.has_class("-open"):
            return
        if session_id != self._details_session:
            # Another session's details start at their top: a position in one session's
            # text means nothing in another's.
            self._details_session = session_id
            panel.scroll_home(animate=False)
        model = self.model
        entry = model.entry(session_id) if session_id else None
        if entry is None:
            panel.show_text(Content.styled("No session selected.", colours.MUTED))
            panel.show_documents(())
            return
        checklist = model.checklist_for(entry.session.id)
        timeline, rebuild = model.timeline(entry.session.id), model.timeline_rebuild(entry.session.id)
        panel.show_text(
            details_text(
                entry.session,
                checklist,
                timeline,
                reading=model.reading,
                rebuild=rebuild,
                skipped=entry.skipped_lines,
            )
        )
        panel.show_documents(checklist.documents if model.reading else ())

    @on(OptionList.OptionSelected, "#checklist")
    def _row_chosen(self) -> None:
        self.action_details()

    @on(Click, "#pill")
    def _pill_clicked(self) -> None:
        self.action_details()

    @on(ChecklistView.TickRequested)
    def _mark_clicked(self, event: ChecklistView.TickRequested) -> None:
        browse_items.tick(self, event.ref)

    # -- order and running only

    def action_cycle_order(self) -> None:
        self.notify(self.sessions_pane().cycle_order(), markup=False)

    def action_running_only(self) -> None:
        self.notify(self.sessions_pane().toggle_running_only(), markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that mean nothing in the current mode leave the footer (and do nothing)."""
        if action in ("filter", "cycle_order", "running_only") and self.pane:
            return False  # pane mode has no list to filter or order
        return True

    # -- jumping to a session

    def action_pick_session(self) -> None:
        self.app.push_screen(SessionSwitcher())

    def listed_sessions(self) -> list[SessionEntry]:
        return self.model.entries()

    def clock(self) -> datetime:
        return self.model.now()

    def show_session(self, session_id: str) -> None:
        """Show a session chosen in the palette; in pane mode the pane then stays on it."""
        if self.model.entry(session_id) is None:
            return
        self.sessions_pane().reveal(session_id)  # the list's cursor stays on it (pinned)
        if not self.list_selects:
            self.select(session_id)

    # -- filter

    def action_filter(self) -> None:
        if not self.pane:
            self.sessions_pane().open_filter()

    def action_close(self) -> None:
        """escape: close the details, else empty and close the filter."""
        panel = self.query_one("#details", DetailsPanel)
        if panel.has_class("-open"):
            panel.remove_class("-open")
        else:
            self.sessions_pane().close_filter()

    # -- moving

    def action_cursor_down(self) -> None:
        self._on_focused(lambda moves: moves.action_cursor_down(), lambda panel: panel.scroll_down())

    def action_cursor_up(self) -> None:
        self._on_focused(lambda moves: moves.action_cursor_up(), lambda panel: panel.scroll_up())

    def action_cursor_first(self) -> None:
        self._on_focused(lambda moves: moves.action_first(), lambda panel: panel.scroll_home(animate=False))

    def action_cursor_last(self) -> None:
        self._on_focused(lambda moves: moves.action_last(), lambda panel: panel.scroll_end(animate=False))

    def action_half_page_down(self) -> None:
        self._on_focused(
            lambda moves: moves.action_half_page_down(),
            lambda panel: panel.scroll_relative(y=panel.size.height // 2, animate=False),
        )

    def action_half_page_up(self) -> None:
        self._on_focused(
            lambda moves: moves.action_half_page_up(),
            lambda panel: panel.scroll_relative(y=-(panel.size.height // 2), animate=False),
        )

    def _on_focused(
        self, list_action: Callable[[SteppedOptionList], object], scroll: Callable[[DetailsPanel], object]
    ) -> None:
        """A move: in the focused list, or the details (which scroll), else in the list
        the mode shows."""
        focused = self.focused
        if isinstance(focused, DetailsPanel):
            scroll(focused)
            return
        target = (
            focused
            if isinstance(focused, SteppedOptionList)
            else self.query_one("#checklist" if self.pane else "#sessions", SteppedOptionList)
        )
        list_action(target)

    def action_switch_focus(self) -> None:
        """Focus the next part: session list → checklist → details (when open) → …;
        pane mode has no list."""
        order = [] if self.pane else [self.query_one("#sessions")]
        order.append(self.query_one("#checklist"))
        details = self.query_one("#details", DetailsPanel)
        if details.has_class("-open"):
            order.append(details)
        at = order.index(self.focused) if self.focused in order else -1
        order[(at + 1) % len(order)].focus()

    # -- ticking and own items (tui/screens/browse_items.py)

    def checklist_view(self) -> ChecklistView:
        return self.query_one("#checklist", ChecklistView)

    def _on_checklist(self, verb: str) -> bool:
        """Whether a key that acts on the checklist's item can act: only with the checklist
        focused (its cursor is the item meant). From elsewhere (the session list, the
        details) the key moves there first, and says so: a key must not change an item
        the person is not looking at."""
        checklist = self.checklist_view()
        if self.focused is checklist:
            return True
        if self.selected_id is None:
            self.notify("No session selected: nothing to change.", markup=False)
            return False
        checklist.focus()
        self.notify(f"Moved to the checklist: press again to {verb} the item under its cursor.", markup=False)
        return False

    def action_tick(self) -> None:
        if self._on_checklist("tick"):
            browse_items.tick_current(self)

    def action_undo(self) -> None:
        browse_items.undo(self)

    def action_add_item(self) -> None:
        browse_items.add_item(self)

    def action_edit_item(self) -> None:
        if self._on_checklist("edit"):
            browse_items.edit_item(self)

    def action_drop_item(self) -> None:
        if self._on_checklist("drop"):
            browse_items.drop_item(self)

    # -- open and copy (tui/screens/browse_outside.py)

    def action_copy_checklist(self) -> None:
        browse_outside.copy_checklist(self)

    def action_open_outside(self) -> None:
        browse_outside.open_outside(self)

    def action_edit_record(self) -> None:
        browse_outside.edit_record(self)

    # -- details

    def action_details(self) -> None:
        panel = self.query_one("#details", DetailsPanel)
        panel.toggle_class("-open")
        self._show_details(self.selected_id)

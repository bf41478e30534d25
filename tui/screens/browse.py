"""The browse screen: the session list beside the selected session's checklist.

In pane mode (`--pane`, or narrower than PANE_WIDTH columns) the `-pane` class hides the
list and the screen follows the most recently active session (of a folder, with --cwd).
The screen owns the selected session and sets it on its children; the app owns the data.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import Click, Resize
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from planwatch.core.checklist import Checklist
from planwatch.core.text import safe_text, shorten
from planwatch.tui import palette
from planwatch.tui.commands import bindings
from planwatch.tui.screens import browse_items, browse_texts
from planwatch.tui.screens.browse_items import Undo
from planwatch.tui.widgets.checklist import ChecklistView, RowRef
from planwatch.tui.widgets.details import DetailsPanel, details_text, hover_card
from planwatch.tui.widgets.key_footer import KeysFooter
from planwatch.tui.widgets.pill import Pill
from planwatch.tui.widgets.session_list import (
    RUNNING_WINDOW,
    SessionList,
    SessionRow,
    age,
    header_text,
    short_folder,
)

if TYPE_CHECKING:
    from planwatch.tui.app import PlanwatchApp
    from planwatch.tui.messages import ScanFinished

READING_OFF = "Reading agents' plans is off. Turn it on in Settings (press ,) → Privacy."


@lru_cache(maxsize=4096)
def _resolved(folder: str) -> Path | None:
    # Resolving reads the disk; pane mode asks on the UI thread for every session on
    # every change, so each folder is resolved once.
    try:
        return Path(folder).resolve()
    except (OSError, RuntimeError):
        return None


def folder_matches(session_cwd: str | None, folder: Path) -> bool:
    """A session belongs to `folder` when it ran there or in a folder inside it."""
    if not session_cwd:
        return False
    here, there = _resolved(session_cwd), _resolved(str(folder))
    if here is None or there is None:
        return False
    return here == there or there in here.parents


class BrowseScreen(Screen[None]):
    """Sessions on the left, the checklist and details on the right; one column in pane mode."""

    CSS_PATH = "browse.tcss"
    BINDINGS = bindings("browse")
    AUTO_FOCUS = "#sessions"

    app: PlanwatchApp  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__(id="browse")
        self.selected_id: str | None = None
        self.undo_stack: list[Undo] = []
        # Set when the person picks a session in pane mode: the pane stops following.
        self._pinned = False
        # (session, its own item ids) while an added item is on its way to the store.
        self._awaited_item: tuple[str, set[str]] | None = None
        # Pill counts (done, total, partial) per session, dropped when the session, the
        # store or overrides change.
        self._counts: dict[str, tuple[int, int, bool]] = {}

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="sessions-pane"):
                yield Input(placeholder="filter sessions…", id="filter")
                yield Static(id="sessions-header", markup=False)
                yield SessionList(id="sessions")
                yield Static(id="sessions-empty", markup=False)
            with Vertical(id="checklist-pane"):
                with Horizontal(id="session-head"):
                    yield Static(id="session-title", markup=False)
                    yield Pill(id="pill")
                yield ChecklistView(id="checklist")
                yield DetailsPanel(id="details")
        yield Static(id="status-line", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        # Told of changes by the app's signals; the app never calls into this screen.
        # (Looked up at each call, so a test may wrap a handler on the instance.)
        self.app.sessions_changed.subscribe(self, lambda ids: self.sessions_changed(ids), immediate=True)
        self.app.scan_finished.subscribe(self, lambda event: self.scan_finished(event), immediate=True)
        store = self.app.store_service
        store.changed.subscribe(self, lambda _view: self.store_changed(), immediate=True)
        store.settings_changed.subscribe(self, lambda _settings: self.refresh_all(), immediate=True)
        self.query_one("#filter", Input).display = False
        self.query_one("#sessions", SessionList).hover_card_for = self._hover_card
        self.set_class(self.app.options.pane, "-pane")
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
        from planwatch.tui.options import PANE_WIDTH

        was = self.pane
        self.set_class(self.app.options.pane or event.size.width < PANE_WIDTH, "-pane")
        if self.pane != was:
            # The selected session stays selected whatever the width (issue 12 point 4);
            # only a pane started as one follows the newest session.
            if self.pane and self.focused is not self.query_one("#details"):
                self.query_one("#checklist", ChecklistView).focus()
            elif not self.pane and self.selected_id is not None:
                self.query_one("#sessions", SessionList).highlight_id(self.selected_id)
            self.refresh_all()
        # Rows are laid out for a width: lay them out again once the new size is known.
        self.call_after_refresh(self._relayout_rows)

    def _relayout_rows(self) -> None:
        self.query_one("#sessions", SessionList).rerender(self.app.now())
        self._show_header()

    def _show_header(self) -> None:
        """The column names, for the list's layout now (its width, its grouping)."""
        self.query_one("#sessions-header", Static).update(header_text(self.query_one("#sessions", SessionList).row_layout))

    @property
    def following(self) -> bool:
        """Whether the screen follows the newest session: a pane started as one (`--pane`)
        does, a window narrowed into pane mode keeps what was selected (it follows only
        while nothing is)."""
        return self.pane and not self._pinned and (self.app.options.pane or self.selected_id is None)

    def _follow(self) -> None:
        """Select the newest session (of the --cwd folder, in a pane started as one)."""
        if not self.following:
            return
        folder = self.app.options.cwd if self.app.options.pane else None
        for entry in self.app.entries():
            if folder is None or folder_matches(entry.session.cwd, folder):
                if entry.session.id != self.selected_id:
                    self.select(entry.session.id)
                return
        if self.selected_id is not None and folder is not None:
            self.select(None)

    # -- data from the app

    def sessions_changed(self, changed: set[str]) -> None:
        for session_id in changed:
            self._counts.pop(session_id, None)
        self._refresh_list()
        if self.app.scan_done is None:
            self._show_status()  # how far the first scan is
        self._follow()
        if self.selected_id in changed:
            self._show_selected()

    def store_changed(self) -> None:
        self._counts.clear()
        self._refresh_list()
        self._show_selected()
        self._show_status()
        self._select_added_item()

    def _select_added_item(self) -> None:
        """After `a`, put the cursor on the new item once the store shows it."""
        if self._awaited_item is None:
            return
        session_id, before = self._awaited_item
        if session_id != self.selected_id:
            self._awaited_item = None
            return
        checklist = self.checklist_view()
        new = [own.task_id for own in checklist.checklist.own if own.task_id not in before]
        if new:
            self._awaited_item = None
            checklist.select_own(new[-1])

    def scan_finished(self, event: ScanFinished) -> None:
        self._refresh_list()
        self._show_status()
        self._follow()
        self._show_selected()

    def refresh_all(self) -> None:
        self._counts.clear()
        self._refresh_list()
        self._follow()
        self._show_selected()
        self._show_status()

    def _tick_clock(self) -> None:
        self.query_one("#sessions", SessionList).rerender(self.app.now())
        if self.pane:
            self._show_selected()  # the head's age and running mark

    def _hover_card(self, session_id: str) -> Content:
        """The hover card of a session's pill, wherever the pill is shown (SPEC §3)."""
        return hover_card(self.app.checklist_for(session_id), self.app.reading)

    def _row(self, entry: Any) -> SessionRow:
        session = entry.session
        done, total, partial = self._session_counts(session.id)
        return SessionRow(
            id=session.id,
            harness=session.harness,
            title=session.title,
            folder=short_folder(session.cwd or "", str(Path.home())),
            updated=session.updated,
            done=done,
            total=total,
            open_count=self.app.store_view.open_counts.get(session.id),
            partial=partial,
        )

    def _session_counts(self, session_id: str) -> tuple[int, int, bool]:
        cached = self._counts.get(session_id)
        if cached is None:
            checklist = self.app.checklist_for(session_id)
            cached = self._counts[session_id] = (*checklist.counts(), bool(checklist.partial_labels()))
        return cached

    def _refresh_list(self) -> None:
        entries = self.app.entries()
        session_list = self.query_one("#sessions", SessionList)
        session_list.show_rows([self._row(entry) for entry in entries], self.app.now())
        self._show_header()
        empty = self.query_one("#sessions-empty", Static)
        if entries:
            empty.display = False
        else:
            empty.display = True
            empty.update(self._empty_text())
        gone = self.selected_id is not None and self.app.entry(self.selected_id) is None
        if (self.selected_id is None or gone) and not self.pane:
            self.select(session_list.selected_id)

    def _empty_text(self) -> Content:
        return browse_texts.empty_text(self.app.scan_done)

    def _show_status(self) -> None:
        line = self.query_one("#status-line", Static)
        progress = getattr(self.app.index, "progress", (0, 0))
        text = browse_texts.status_text(self.app.store_view, self.app.scan_done is not None, progress)
        line.update(text)
        line.display = bool(text.plain)

    # -- the selected session

    def select(self, session_id: str | None) -> None:
        if session_id == self.selected_id:
            return
        self.selected_id = session_id
        self._show_selected()
        if session_id is not None and self.app.settings.keep_plans_in_store and self.app.reading:
            entry = self.app.entry(session_id)
            if entry is not None and entry.plan is not None and entry.plan.groups:
                self.app.mirror([(entry.session, entry.plan)])

    def _show_selected(self) -> None:
        checklist_view = self.query_one("#checklist", ChecklistView)
        title = self.query_one("#session-title", Static)
        pill = self.query_one("#pill", Pill)
        session_id = self.selected_id
        entry = self.app.entry(session_id) if session_id else None
        if entry is None:
            if self.pane and self.app.scan_done is not None and not self.app.entries():
                # The list with its empty state is hidden in pane mode: say it here.
                title.update(self._empty_text())
            else:
                title.update(Content.styled(self._no_selection_text(), palette.NOTE))
            pill.set_counts(0, 0)
            pill.tooltip = None
            checklist_view.show(Checklist(), agent_note="No session selected.",
                                own_note="Select a session to see its items.")
            self._show_details(None)
            return
        session = entry.session
        checklist = self.app.checklist_for(session.id)
        parts: list[tuple[str, str]] = [(shorten(session.title or f"Session {session.id}", 80), "bold")]
        if self.pane:
            # One column has no list beside it: say where and how lively the session is.
            now = self.app.now()
            where = short_folder(shorten(session.cwd, 60), str(Path.home())) if session.cwd else session.harness
            parts.append((f"\n{where} · {age(session.updated, now)} ago", palette.MUTED))
            if now - session.updated <= RUNNING_WINDOW:
                parts.append((" · ● running", palette.RUNNING))
        title.update(Content.assemble(*parts))
        pill.set_counts(*checklist.counts())
        pill.tooltip = hover_card(checklist, self.app.reading)
        agent_note = None
        if not self.app.reading:
            agent_note = READING_OFF
        elif not checklist.sections and not checklist.documents:
            agent_note = "No plan yet: this agent has made no plan calls in this session."
        own_note = None
        if self.app.store_view.error:
            own_note = safe_text(self.app.store_view.error, single_line=True)
        checklist_view.show(checklist, agent_note=agent_note, own_note=own_note)
        self._show_details(session.id)

    def _no_selection_text(self) -> str:
        if self.pane and self.app.options.pane and self.app.options.cwd is not None:
            return f"No session in {safe_text(str(self.app.options.cwd), single_line=True)} yet."
        if self.app.scan_done is None:
            return "Looking for sessions…"
        return "No session selected."

    def _show_details(self, session_id: str | None) -> None:
        panel = self.query_one("#details", DetailsPanel)
        if not panel.has_class("-open"):
            return
        entry = self.app.entry(session_id) if session_id else None
        if entry is None:
            panel.show_text(Content.styled("No session selected.", palette.MUTED))
            panel.show_documents(())
            return
        checklist = self.app.checklist_for(entry.session.id)
        panel.show_text(details_text(
            entry.session,
            checklist,
            self.app.timeline(entry.session.id),
            reading=self.app.reading,
            rebuild=self.app.timeline_rebuild(entry.session.id),
        ))
        panel.show_documents(checklist.documents if self.app.reading else ())

    @on(OptionList.OptionHighlighted, "#sessions")
    def _session_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if not self.pane:
            self.select(event.option.id)

    @on(OptionList.OptionSelected, "#sessions")
    def _session_chosen(self, event: OptionList.OptionSelected) -> None:
        self.select(event.option.id)

    @on(OptionList.OptionSelected, "#checklist")
    def _row_chosen(self) -> None:
        self.action_details()

    @on(Click, "#pill")
    def _pill_clicked(self) -> None:
        self.action_details()

    @on(ChecklistView.TickRequested)
    def _mark_clicked(self, event: ChecklistView.TickRequested) -> None:
        self._tick(event.ref)

    # -- order and running only

    def action_cycle_order(self) -> None:
        from planwatch.tui.widgets.session_list import ORDERS

        session_list = self.query_one("#sessions", SessionList)
        order = ORDERS[(ORDERS.index(session_list.order) + 1) % len(ORDERS)]
        session_list.set_view(self.app.now(), order=order)
        self._show_header()
        names = {"recent": "newest first", "folder": "grouped by folder", "harness": "grouped by harness"}
        self.notify(f"Sessions {names[order]}.", markup=False)

    def action_running_only(self) -> None:
        session_list = self.query_one("#sessions", SessionList)
        session_list.set_view(self.app.now(), running_only=not session_list.running_only)
        self._show_header()
        self.notify("Only running sessions." if session_list.running_only else "All sessions.", markup=False)
        if not self.pane and session_list.selected_id is not None:
            self.select(session_list.selected_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that mean nothing in the current mode leave the footer (and do nothing)."""
        if action in ("filter", "cycle_order", "running_only") and self.pane:
            return False  # pane mode has no list to filter or order
        return True

    # -- jumping to a session

    def action_pick_session(self) -> None:
        from textual.command import CommandPalette

        from planwatch.tui.session_palette import SessionsProvider

        self.app.push_screen(CommandPalette(providers=[SessionsProvider], placeholder="Jump to a session…"))

    def show_session(self, session_id: str) -> None:
        """Show a session chosen in the palette; in pane mode the pane then stays on it."""
        if self.app.entry(session_id) is None:
            return
        if self.pane:
            self._pinned = True
        box = self.query_one("#filter", Input)
        session_list = self.query_one("#sessions", SessionList)
        if box.display and session_id not in session_list.shown_ids:
            box.value = ""
            box.display = False
            session_list.set_needle("", self.app.now())
        session_list.highlight_id(session_id)
        self.select(session_id)

    # -- filter

    def action_filter(self) -> None:
        if self.pane:
            return
        box = self.query_one("#filter", Input)
        box.display = True
        box.focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_one("#sessions", SessionList).set_needle(event.value, self.app.now())
        self.select(self.query_one("#sessions", SessionList).selected_id)

    @on(Input.Submitted, "#filter")
    def _filter_done(self) -> None:
        self.query_one("#sessions", SessionList).focus()

    def action_close(self) -> None:
        panel = self.query_one("#details", DetailsPanel)
        box = self.query_one("#filter", Input)
        if panel.has_class("-open"):
            panel.remove_class("-open")
        elif box.display:
            box.value = ""
            box.display = False
            self.query_one("#sessions", SessionList).focus()

    # -- moving

    def _list(self) -> OptionList | DetailsPanel:
        focused = self.focused
        if isinstance(focused, (OptionList, DetailsPanel)):
            return focused
        return self.query_one("#checklist" if self.pane else "#sessions", OptionList)

    def action_cursor_down(self) -> None:
        target = self._list()
        if isinstance(target, DetailsPanel):
            target.scroll_down()
        else:
            target.action_cursor_down()

    def action_cursor_up(self) -> None:
        target = self._list()
        if isinstance(target, DetailsPanel):
            target.scroll_up()
        else:
            target.action_cursor_up()

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

    def repaint_session(self, session_id: str) -> None:
        """After an override changed: the session's pill, checklist and row again."""
        self._counts.pop(session_id, None)
        self._show_selected()
        self._refresh_list()

    def await_item(self, session_id: str, before: set[str]) -> None:
        """When the store read brings a new own item (not in `before`), put the cursor on it."""
        self._awaited_item = (session_id, before)

    def action_tick(self) -> None:
        browse_items.tick_current(self)

    def _tick(self, ref: RowRef) -> None:
        browse_items.tick(self, ref)

    def action_undo(self) -> None:
        browse_items.undo(self)

    def action_add_item(self) -> None:
        browse_items.add_item(self)

    def action_edit_item(self) -> None:
        browse_items.edit_item(self)

    def action_drop_item(self) -> None:
        browse_items.drop_item(self)

    # -- open and copy (tui.outside)

    def action_copy_checklist(self) -> None:
        entry = self.app.entry(self.selected_id) if self.selected_id else None
        if entry is None:
            self.notify("Select a session first.", markup=False)
            return
        from planwatch.tui.outside import checklist_markdown

        title = entry.session.title or f"Session {entry.session.id}"
        text = checklist_markdown(title, self.app.checklist_for(entry.session.id), self.app.reading)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied the checklist ({len(text.splitlines())} lines) as Markdown.", markup=False)

    def action_open_outside(self) -> None:
        from planwatch.tui.outside import DEFAULT_PAGER, command_from, regular_file, run_outside

        entry = self.app.entry(self.selected_id) if self.selected_id else None
        if entry is None:
            self.notify("Select a session first.", markup=False)
            return
        pager = command_from("PAGER", DEFAULT_PAGER)
        details = self.query_one("#details", DetailsPanel)
        documents = self.app.checklist_for(entry.session.id).documents if self.app.reading else ()
        if documents and self.focused is details:
            # The documents on the pager's standard input: plan text never goes to a file.
            text = "\n\n".join(d.text for d in documents)
            problem = run_outside(self.app, pager, stdin_text=text)
        elif regular_file(entry.session.path):
            problem = run_outside(self.app, [*pager, str(entry.session.path)])
        else:
            problem = f"{safe_text(str(entry.session.path), single_line=True)} is not a regular file."
        if problem:
            self.notify(problem, severity="error", markup=False)

    def action_edit_record(self) -> None:
        from planwatch.tui.outside import DEFAULT_EDITOR, command_from, regular_file, run_outside

        own = self.checklist_view().current_own_row()
        if own is None:
            self.notify("Move to one of your own items: its store record opens in $EDITOR.", markup=False)
            return
        path = Path(self.app.store_root) / "tasks" / f"{own.task_id}.md"
        if not regular_file(path):
            self.notify(f"No record file for {own.task_id} at {safe_text(str(path), single_line=True)}.", markup=False)
            return
        editor = command_from("VISUAL", "") or command_from("EDITOR", DEFAULT_EDITOR)
        problem = run_outside(self.app, [*editor, str(path)])
        if problem:
            self.notify(problem, severity="error", markup=False)

    # -- details

    def action_details(self) -> None:
        panel = self.query_one("#details", DetailsPanel)
        panel.toggle_class("-open")
        self._show_details(self.selected_id)

"""The store view (`t`): plans with their tasks, filters, approve, review, add and edit.

Every change goes through `core.store.tools.run_tool` — the same ten tools the command
line and the MCP server call — in a thread worker, so the rules (approval, grants,
wording of refusals) live in one place. A refusal is shown with its own sentence.
Filters are task_list's (status, ready, by, since) and are answered by task_list too.

The view keeps no store of its own: it reads and writes through the app's one store
service (the one `Store`, settings object, ordered writer and watcher), which the app
hands it when it builds the view. It paints from the service's one read per change (its
`changed` signal: after each write, its own or another's, and whatever the watcher saw),
asking task_list only for the tasks a filter shows, and uses the settings
the service holds at the moment of each call, so a rule switched on in Settings holds
here at once. Records that are not valid are listed below the table with their file
and what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Input, Select, Static

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import TASK_STATUSES, PlanRecord, TaskRecord
from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.store.store import Store
from planwatch.core.store.tool_refusals import ToolRefused
from planwatch.core.store.tools import run_tool
from planwatch.core.sync.contests import Contest
from planwatch.core.text import safe_text
from planwatch.tui.messages import StoreSummary
from planwatch.tui.screens import store_actions
from planwatch.tui.screens.help import HelpScreen, ScreenKeysProvider
from planwatch.tui.screens.store_rows import (
    Filters,
    detail_text,
    plan_cells,
    problems_text,
    refusal_text,
    task_cells,
    toast_text,
)
from planwatch.tui.screens.store_texts import COLUMNS, NARROW, column_widths, empty_text, summary_text
from planwatch.tui.store_service import StoreService
from planwatch.tui.widgets.key_footer import KeysFooter
from planwatch.tui.widgets.store_table import StoreTable

NO_PLAN = "group:none"


class StoreScreen(Screen[None]):
    """The record store as a grouped table: each plan, then its tasks; then tasks with no plan."""

    CSS_PATH = "store.tcss"
    TITLE = "Task store"
    COMMANDS = {ScreenKeysProvider}
    HELP_GROUP = "store view"
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, tooltip="Move to the next row"),
        Binding("k", "cursor_up", "Up", show=False, tooltip="Move to the previous row"),
        Binding("a", "add_task", "Add", tooltip="Add a task"),
        Binding("n", "new_plan", "New plan", tooltip="Create a plan"),
        Binding("e", "edit_task", "Edit", tooltip="Edit the task or plan under the cursor"),
        Binding(
            "E", "edit_file", "Edit file", show=False, tooltip="Open the record under the cursor in $VISUAL or $EDITOR"
        ),
        Binding("v", "approve", "Approve", tooltip="Approve the plan or task under the cursor"),
        Binding("r", "review", "Review", tooltip="Review the task or plan: approved or changes"),
        Binding("f,slash", "filters", "Filter", key_display="f", tooltip="Filter the tasks (status, ready, by, since)"),
        Binding("x", "clear_filters", "Clear", tooltip="Clear the filters"),
        Binding("ctrl+r", "reload", "Reload", show=False, tooltip="Read the store again"),
        Binding("escape,t", "back", "Back", tooltip="Back to the sessions"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="Every key of this view"),
    ]

    class Filtered(Message):
        """task_list's answer for the filters, over one read of the store, from a worker."""

        def __init__(self, summary: StoreSummary, filters: Filters, shown: set[str] | None, error: str | None) -> None:
            super().__init__()
            self.summary = summary
            self.filters = filters
            self.shown = shown
            self.error = error

    class ToolAnswered(Message):
        """A tool call made from the view finished: its answer, or its refusal."""

        def __init__(self, tool: str, answer: str, refused: bool, args: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.tool = tool
            self.args = args or {}
            self.answer = answer
            self.refused = refused

    def __init__(self, service: StoreService, *, session_title: Callable[[str], str | None] | None = None) -> None:
        """`service`: the app's store service, which the view reads and writes through;
        `session_title`: a session's own title by id (None for one not known), for the
        rows of tasks tied to a session (a host without sessions gives none)."""
        super().__init__()
        self._service = service
        self._titles = session_title
        self._summary = StoreSummary()  # the service's read on screen
        self.snapshot = StoreSnapshot()
        self.contests: dict[str, list[Contest]] = {}  # a shared store's contested records, by id
        self.required = False  # a shared store's team policy requires approval to start
        self._narrow = False
        self._column_widths: dict[str, int] = {}
        self.unreadable: str | None = None
        self.refused: str | None = None
        self.filters = Filters()
        self.shown: set[str] | None = None
        # The records whose approved stamp does not count (core/store/approvals.py), as
        # the worker found them: the host's ledger is read there, not on the UI thread.
        self.uncounted: frozenset[str] = frozenset()

    # -- what the screen works on: the app's store service, handed to it

    @property
    def service(self) -> StoreService:
        return self._service

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def settings(self) -> Settings:
        return self.service.settings

    @property
    def caller(self) -> Caller:
        return self.service.caller

    @property
    def clock(self) -> Callable[[], datetime] | None:
        return self.service.clock

    def compose(self) -> ComposeResult:
        yield Static("Task store", id="store-title")
        with Horizontal(id="store-filters"):
            yield Select([(s, s) for s in TASK_STATUSES], prompt="any status", id="filter-status", compact=True)
            yield Checkbox("ready", id="filter-ready", compact=True)
            yield Input(placeholder="by (name)", id="filter-by", compact=True)
            yield Input(placeholder="since YYYY-MM-DD", id="filter-since", compact=True)
        yield Static("", id="store-summary", markup=False)
        yield StoreTable(id="store-table", cursor_type="row", zebra_stripes=False)
        yield Static("", id="store-empty", markup=False)
        with Vertical(id="store-bottom"):
            yield Static("", id="store-detail", markup=False)
            yield Static("", id="store-problems", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self._narrow = self.app.size.width < NARROW
        self.set_class(self._narrow, "-narrow")
        self._set_columns()
        self.query_one(DataTable).focus()
        self.service.changed.subscribe(self, self._show_summary)
        self.service.settings_changed.subscribe(self, lambda _settings: self._fill())
        # The status marks' colours are the theme's at the time of a fill (StoreTable).
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._fill())
        # A fresh read for the view (the watcher may be off); it arrives as `changed`.
        self.service.reload()

    def on_resize(self, event: Resize) -> None:
        narrow = event.size.width < NARROW
        self.set_class(narrow, "-narrow")
        if narrow != self._narrow or column_widths(event.size.width) != self._column_widths:
            self._narrow = narrow
            self._set_columns()
            self._fill()
            self._show_detail()

    def _set_columns(self) -> None:
        table: DataTable[Text] = self.query_one(DataTable)
        table.clear(columns=True)
        self._column_widths = column_widths(self.app.size.width)
        for label, key in COLUMNS:
            if key in self._column_widths:
                table.add_column(label, key=key, width=self._column_widths[key])

    def _add_row(self, table: DataTable[Text], cells: dict[str, Text], key: str) -> None:
        table.add_row(*(self._fitted(cells[str(column.value)], str(column.value)) for column in table.columns), key=key)

    def _fitted(self, cell: Text, column: str) -> Text:
        """The cell drawn cut to its column with an ellipsis (the table would cut it
        silently), measured in cells, so a person sees that more is there; the cell keeps
        its whole text (the detail shows it)."""
        width = self._column_widths.get(column)
        if width is None or cell.cell_len <= width:
            return cell
        cell.overflow = "ellipsis"
        cell.no_wrap = True
        return cell

    # -- reading

    def action_reload(self) -> None:
        self.service.reload()

    def _show_summary(self, summary: StoreSummary) -> None:
        """Paint the service's read: at once, or once task_list says what a filter shows."""
        self._summary = summary
        if self.filters.active and summary.snapshot is not None:
            self._filter(summary, self.filters)
        else:
            self._show(summary, None, None)

    @work(thread=True, exclusive=True, group="store-filter", exit_on_error=False)
    def _filter(self, summary: StoreSummary, filters: Filters) -> None:
        shown: set[str] | None = None
        error: str | None = None
        try:
            result = run_tool("task_list", self.store, self.settings, self.caller, filters.args(), now=self.clock)
            shown = {line.split(" ", 1)[0] for line in result.lines}
        except ToolRefused as exc:
            error = exc.message
        self.post_message(self.Filtered(summary, filters, shown, error))

    @on(Filtered)
    def _on_filtered(self, event: Filtered) -> None:
        if event.summary is self._summary and event.filters == self.filters:
            self._show(event.summary, event.shown, event.error)
        # else the answer is for a read or filters no longer on screen; theirs follows

    def _show(self, summary: StoreSummary, shown: set[str] | None, refused: str | None) -> None:
        self.snapshot = summary.snapshot if summary.snapshot is not None else StoreSnapshot()
        self.contests = summary.contests
        if summary.require_approval is not None:
            self.required = summary.require_approval
        self.shown = shown
        self.uncounted = summary.uncounted
        self.unreadable = summary.unreadable
        # A filter task_list refused filters nothing: the summary says so, not "filtered".
        self.refused = refused
        error = summary.unreadable or refused
        if error:
            self.notify(refusal_text(error), severity="error", markup=False)
        self._fill()

    # -- showing

    def _visible_tasks(self) -> list[TaskRecord]:
        tasks = self.snapshot.tasks_sorted()
        if self.shown is None:
            return tasks
        return [task for task in tasks if task.id in self.shown]

    def _fill(self) -> None:
        table = self.query_one(StoreTable)
        keep = self.current_key()
        table.clear()
        tasks = self._visible_tasks()
        plans = self.snapshot.plans_sorted()
        known = {plan.id for plan in plans}
        filtered = self.shown is not None
        for plan in plans:
            own = [task for task in tasks if task.plan == plan.id]
            if filtered and not own:
                continue
            self._add_plan_row(table, plan, own)
            for task in own:
                self._add_task_row(table, task)
        loose = [task for task in tasks if task.plan not in known]
        if loose:
            blank = Text("")
            cells = {
                "id": Text("─"),
                "status": blank,
                "priority": blank,
                "title": Text("Tasks without a plan", style="bold"),
                "approved": blank,
                "notes": blank,
            }
            self._add_row(table, cells, NO_PLAN)
            for task in loose:
                self._add_task_row(table, task)
        if keep is not None and keep in table.rows:
            table.move_cursor(row=table.get_row_index(keep), animate=False)
        self._fill_texts(len(tasks))
        self._show_detail()

    def _add_plan_row(self, table: StoreTable, plan: PlanRecord, tasks: list[TaskRecord]) -> None:
        counts = plan.id not in self.uncounted
        cells = plan_cells(plan, tasks, self._session_title, table.status_style, counts, self.contests.get(plan.id))
        self._add_row(table, cells, plan.id)

    def _add_task_row(self, table: StoreTable, task: TaskRecord) -> None:
        counts = task.id not in self.uncounted
        # Doing, though with approval required it could not have started (a status
        # written by hand): shown as the listings say it, never silently.
        unapproved = grants.started_without_approval(
            task, bool(self.settings.require_approval or self.required), task.approved is not None and counts
        )
        cells = task_cells(
            task, self._session_title, table.status_style, counts, self.contests.get(task.id), unapproved
        )
        self._add_row(table, cells, task.id)

    def _session_title(self, session_id: str) -> str | None:
        return self._titles(session_id) if self._titles is not None else None

    def _fill_texts(self, task_count: int) -> None:
        snap = self.snapshot
        summary = summary_text(
            snap,
            task_count,
            self.shown,
            self.filters,
            self.settings.require_approval or self.required,
            refused=self.refused is not None,
        )
        self.query_one("#store-summary", Static).update(summary)
        message = empty_text(snap, task_count, self.shown, self.unreadable, self.store.root)
        empty = self.query_one("#store-empty", Static)
        empty.update(message)
        empty.display = bool(message)

        problems = self.query_one("#store-problems", Static)
        problems.update(problems_text(snap.problems))
        problems.display = bool(snap.problems)

    # -- the record under the cursor

    def current_key(self) -> str | None:
        table: DataTable[Text] = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - a cursor past the end after a clear
            return None
        return key

    def current_task(self) -> TaskRecord | None:
        key = self.current_key()
        return self.snapshot.tasks.get(key) if key else None

    def current_plan(self) -> PlanRecord | None:
        key = self.current_key()
        return self.snapshot.plans.get(key) if key else None

    def group_plan(self) -> str | None:
        """The plan whose group the cursor is in (for a new task's default plan)."""
        plan = self.current_plan()
        if plan is not None:
            return plan.id
        task = self.current_task()
        return task.plan if task is not None else None

    @on(DataTable.RowHighlighted)
    def _show_detail(self) -> None:
        detail = self.query_one("#store-detail", Static)
        record: TaskRecord | PlanRecord | None = self.current_task() or self.current_plan()
        if record is None:
            detail.update("")
            detail.display = False
            return
        detail.update(detail_text(record, self.contests.get(record.id)))
        # A side pane has no room for it; the wide view shows it under the table.
        detail.display = not self._narrow

    # -- filters

    def action_filters(self) -> None:
        self.query_one("#filter-status", Select).focus()

    def action_clear_filters(self) -> None:
        with self.prevent(Select.Changed, Checkbox.Changed):
            self.query_one("#filter-status", Select).clear()
            self.query_one("#filter-ready", Checkbox).value = False
        self.query_one("#filter-by", Input).value = ""
        self.query_one("#filter-since", Input).value = ""
        self._apply_filters()

    def _apply_filters(self) -> None:
        status = self.query_one("#filter-status", Select).value
        self.filters = Filters(
            status=str(status) if status is not Select.NULL else None,
            ready=self.query_one("#filter-ready", Checkbox).value,
            by=self.query_one("#filter-by", Input).value.strip(),
            since=self.query_one("#filter-since", Input).value.strip(),
        )
        self._show_summary(self._summary)

    @on(Select.Changed, "#filter-status")
    @on(Checkbox.Changed, "#filter-ready")
    @on(Input.Submitted, "#filter-by, #filter-since")
    def _filters_changed(self) -> None:
        self._apply_filters()

    @on(Input.Blurred, "#filter-by, #filter-since")
    def _filter_left(self) -> None:
        # What the bar shows is what filters: text typed and left (tab, esc, a click on
        # the table) applies as enter would, rather than showing a filter not in force.
        by = self.query_one("#filter-by", Input).value.strip()
        since = self.query_one("#filter-since", Input).value.strip()
        if (by, since) != (self.filters.by, self.filters.since):
            self._apply_filters()

    # -- actions through the tools

    def action_back(self) -> None:
        if isinstance(self.focused, (Input, Select, Checkbox)):
            self.query_one(DataTable).focus()
            return
        self.dismiss(None)

    def action_cursor_down(self) -> None:
        self.query_one(DataTable).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.query_one(DataTable).action_cursor_up()

    def action_help(self) -> None:
        # The help screen lists the app's keys and, above them, this view's own.
        self.app.push_screen(HelpScreen(self.HELP_GROUP, self.BINDINGS, self.check_action))

    def action_new_plan(self) -> None:
        store_actions.new_plan(self)

    def action_add_task(self) -> None:
        store_actions.add_task(self)

    def action_edit_file(self) -> None:
        """`E`: the record under the cursor's file in $VISUAL or $EDITOR, as on the browse
        screen; the watcher reads the person's save back."""
        from planwatch.tui.outside import DEFAULT_EDITOR, command_from, regular_file, run_outside

        task, plan = self.current_task(), self.current_plan()
        if task is None and plan is None:
            self.notify("Move to a task or a plan: its record opens in $EDITOR.", markup=False)
            return
        path = self.store.root / ("tasks" if task is not None else "plans") / f"{(task or plan).id}.md"  # type: ignore[union-attr]
        if not regular_file(path):
            self.notify(f"No record file at {safe_text(str(path), single_line=True)}.", markup=False)
            return
        editor = command_from("VISUAL", "") or command_from("EDITOR", DEFAULT_EDITOR)
        problem = run_outside(self.app, [*editor, str(path)])
        if problem:
            self.notify(problem, severity="error", markup=False)
        self.service.reload()

    def action_edit_task(self) -> None:
        store_actions.edit_record(self)

    def action_approve(self) -> None:
        store_actions.approve(self)

    def action_review(self) -> None:
        store_actions.review(self)

    def run_store_tool(self, tool: str, args: dict[str, Any]) -> None:
        """Call one of the ten tools off the UI thread; the answer arrives as ToolAnswered."""
        self._call_tool(tool, args)

    @work(thread=True, group="store-tool", exit_on_error=False)
    def _call_tool(self, tool: str, args: dict[str, Any]) -> None:
        # The app's one writer makes the call, in order with every other write; this
        # worker waits for its answer.
        answer, refused = self.service.submit(tool, args).result()
        self.post_message(self.ToolAnswered(tool, answer, refused, args))

    @on(ToolAnswered)
    def _on_tool_answered(self, event: ToolAnswered) -> None:
        if event.refused:
            self.notify(refusal_text(event.answer), title="Refused", severity="error", markup=False)
            return
        # The service read the store after the call, before answering: `changed` shows it.
        self.notify(toast_text(event.tool, event.answer, event.args), markup=False)

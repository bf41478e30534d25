"""The modal that adds or edits a store task, for the store view.

It only gathers input: the result is a `TaskDraft` whose `changes()` are the fields to
hand to `task_add` or `task_set`. The store's tools do every check (their refusal is
shown by the store view), so the form holds no rules of its own beyond "title given".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from planwatch.core.store.schema import TASK_PRIORITIES, TASK_STATUSES
from planwatch.core.text import quoted, shorten
from planwatch.tui.widgets.record_form import RecordForm

if TYPE_CHECKING:
    from planwatch.core.store.schema import TaskRecord


def split_list(raw: str) -> tuple[str, ...]:
    """`"a, b,,c "` → `("a", "b", "c")`: the comma lists of the form (labels, blockedBy)."""
    return tuple(part.strip() for part in raw.split(",") if part.strip())


@dataclass(frozen=True)
class TaskDraft:
    """What the form holds: every field it shows, and the task it edits (None when adding)."""

    task_id: str | None
    title: str
    priority: str = "medium"
    status: str | None = None
    plan: str | None = None
    labels: tuple[str, ...] = ()
    blocked_by: tuple[str, ...] = ()
    note: str | None = None
    original: dict[str, Any] = field(default_factory=dict)
    """The field values the form opened with, so `changes()` sends only what changed."""

    def values(self) -> dict[str, Any]:
        """Every field by the tools' input names (`blockedBy`, not `blocked_by`)."""
        out: dict[str, Any] = {
            "title": self.title,
            "priority": self.priority,
            "plan": self.plan,
            "labels": list(self.labels),
            "blockedBy": list(self.blocked_by),
            "note": self.note,
        }
        if self.task_id is not None and self.status is not None:
            out["status"] = self.status
        return out

    def changes(self) -> dict[str, Any]:
        """For task_add: every field given; for task_set: only the fields that changed."""
        values = self.values()
        if self.task_id is None:
            return {k: v for k, v in values.items() if v not in (None, [], "")}
        return {k: v for k, v in values.items() if self.original.get(k) != v}


class TaskForm(RecordForm[TaskDraft]):
    """Add a task (`task`=None) or edit one; dismisses with a `TaskDraft`, or None on cancel.

    `task` is any object with the task record's attributes (`id, title, status,
    priority, plan, labels, blocked_by, note`); `plans` are `(id, title)` pairs offered
    for the plan field.
    """

    FORM_ID = "task-form"
    NOUN = "task"
    DEFAULT_CSS = """
    TaskForm { align: center middle; }
    TaskForm #task-form { width: 72; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1; }
    TaskForm #task-form-title { text-style: bold; color: $text-accent; padding: 0 0 1 0; }
    TaskForm .row { height: auto; }
    TaskForm .row Label { width: 12; padding: 1 1 0 0; }
    TaskForm .row Input, TaskForm .row Select { width: 1fr; }
    TaskForm #task-form-error { color: $text-error; height: auto; }
    TaskForm #task-form-buttons { height: auto; padding: 1 0 0 0; }
    TaskForm #task-form-buttons Button { margin: 0 2 0 0; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without saving"),
        Binding("ctrl+s", "submit", "Save", tooltip="Save the task"),
    ]

    def __init__(
        self, task: TaskRecord | None = None, plans: Sequence[tuple[str, str]] = (), default_plan: str | None = None
    ) -> None:
        """`default_plan` preselects a plan for a new task (the group the cursor was in)."""
        super().__init__()
        self._record = task
        self._plans = list(plans)
        self._default_plan = default_plan

    def _original(self) -> dict[str, Any]:
        task = self._record
        if task is None:
            return {}
        return TaskDraft(
            task_id=task.id,
            title=task.title,
            priority=task.priority,
            status=task.status,
            plan=task.plan,
            labels=tuple(task.labels),
            blocked_by=tuple(task.blocked_by),
            note=task.note,
        ).values()

    def compose(self) -> ComposeResult:
        task = self._record
        heading = "New task" if task is None else f"Edit {task.id} {quoted(task.title, 50)}"
        plan_ids = {plan_id for plan_id, _ in self._plans}
        wanted = task.plan if task is not None else self._default_plan
        plan_value = wanted if wanted in plan_ids else Select.NULL
        with Vertical(id="task-form"):
            yield Static(heading, id="task-form-title", markup=False)
            with Horizontal(classes="row"):
                yield Label("Title")
                yield Input(self.shown("title", task.title) if task else "", placeholder="what needs doing", id="title")
            with Horizontal(classes="row"):
                yield Label("Priority")
                yield Select(
                    [(p, p) for p in TASK_PRIORITIES],
                    value=task.priority if task else "medium",
                    allow_blank=False,
                    id="priority",
                )
            if task is not None:
                with Horizontal(classes="row"):
                    yield Label("Status")
                    yield Select([(s, s) for s in TASK_STATUSES], value=task.status, allow_blank=False, id="status")
            with Horizontal(classes="row"):
                yield Label("Plan")
                # Text, not str: a plan title is untrusted and must not be read as markup.
                options = [(Text(f"{pid}  {shorten(title, 50)}"), pid) for pid, title in self._plans]
                yield Select(options, value=plan_value, prompt="no plan", id="plan")
            with Horizontal(classes="row"):
                yield Label("Labels")
                yield Input(
                    self.shown("labels", ", ".join(task.labels)) if task else "", placeholder="a, b", id="labels"
                )
            with Horizontal(classes="row"):
                yield Label("Blocked by")
                yield Input(
                    self.shown("blocked-by", ", ".join(task.blocked_by)) if task else "",
                    placeholder="t1, t2",
                    id="blocked-by",
                )
            with Horizontal(classes="row"):
                yield Label("Note")
                yield Input(self.shown("note", task.note or "") if task else "", id="note")
            yield Static("", id="task-form-error", markup=False)
            with Horizontal(id="task-form-buttons"):
                yield Button("Save", variant="primary", id="save")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()

    def _list(self, field_id: str, raw: Sequence[str]) -> tuple[str, ...]:
        """A comma list's items: the record's own while the field holds what it showed."""
        value = self.taken(field_id)
        if value == ", ".join(raw):
            return tuple(raw)
        return split_list(value)

    def draft(self) -> TaskDraft:
        """The form's current contents."""
        plan = self.query_one("#plan", Select).value
        status = self.query_one("#status", Select).value if self._record is not None else None
        note = self.taken("note").strip()
        return TaskDraft(
            task_id=self._record.id if self._record is not None else None,
            title=self.taken("title").strip(),
            priority=str(self.query_one("#priority", Select).value),
            status=str(status) if status is not None else None,
            plan=str(plan) if plan is not Select.NULL else None,
            labels=self._list("labels", self._record.labels if self._record else ()),
            blocked_by=self._list("blocked-by", self._record.blocked_by if self._record else ()),
            # Blank means no note: task_set removes a field given as null.
            note=note or None,
            original=self._original(),
        )


class ReviewForm(ModalScreen[str | None]):
    """Ask for a review verdict on a task: dismisses with "approved", "changes", or None."""

    DEFAULT_CSS = """
    ReviewForm { align: center middle; }
    ReviewForm #review-form { width: 56; max-width: 100%; height: auto; border: round $primary;
        background: $surface; padding: 0 1; }
    ReviewForm #review-form-title { text-style: bold; color: $text-accent; padding: 0 0 1 0; }
    ReviewForm #review-buttons { height: auto; }
    ReviewForm #review-buttons Button { margin: 0 2 0 0; }
    """
    BINDINGS = [
        Binding("y", "verdict('approved')", "Approved", tooltip="Review verdict: approved"),
        Binding("c", "verdict('changes')", "Changes", tooltip="Review verdict: changes requested"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, task_id: str, title: str) -> None:
        super().__init__()
        self._task_id = task_id
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="review-form"):
            yield Static(f"Review {self._task_id}: {shorten(self._title, 40)}", id="review-form-title", markup=False)
            with Horizontal(id="review-buttons"):
                yield Button("Approved (y)", variant="success", id="approved")
                yield Button("Changes (c)", variant="warning", id="changes")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#approved")
    def _approved(self) -> None:
        self.dismiss("approved")

    @on(Button.Pressed, "#changes")
    def _changes(self) -> None:
        self.dismiss("changes")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_verdict(self, verdict: str) -> None:
        self.dismiss(verdict)

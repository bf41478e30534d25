"""The store view's actions on records: create and edit plans, add and edit tasks,
approve (asking first when the record is already approved) and review. Each gathers
input in a modal and hands it to one of the store's tools through the view's
`run_store_tool`; the tools hold every rule. The view's keys call these with itself."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from planwatch.core.store.schema import PlanRecord, TaskRecord
from planwatch.tui.widgets.plan_form import ConfirmScreen, PlanDraft, PlanForm
from planwatch.tui.widgets.task_form import ReviewForm, TaskDraft, TaskForm

if TYPE_CHECKING:
    from planwatch.tui.screens.store import StoreScreen


def new_plan(screen: StoreScreen) -> None:
    screen.app.push_screen(PlanForm(None), partial(plan_form_done, screen))


def plan_form_done(screen: StoreScreen, draft: PlanDraft | None) -> None:
    if draft is not None:
        _save(screen, "plan", draft.plan_id, draft.changes(), "plan_create", "plan_set")


def _save(
    screen: StoreScreen, kind: str, record_id: str | None, changes: dict[str, Any], create: str, update: str
) -> None:
    """A form's draft to the tools: `create` a new record, or `update` only what changed
    (the record named by the tool's input, `task` or `plan`)."""
    if record_id is None:
        screen.run_store_tool(create, changes)
    elif changes:
        screen.run_store_tool(update, {kind: record_id, **changes})
    else:
        screen.notify(f"{record_id}: nothing changed.")


def add_task(screen: StoreScreen) -> None:
    plans = [(plan.id, plan.title) for plan in screen.snapshot.plans_sorted()]
    screen.app.push_screen(TaskForm(None, plans, default_plan=screen.group_plan()), partial(task_form_done, screen))


def edit_record(screen: StoreScreen) -> None:
    plan = screen.current_plan()
    if plan is not None:
        screen.app.push_screen(PlanForm(plan), partial(plan_form_done, screen))
        return
    task = screen.current_task()
    if task is None:
        screen.notify("Move to a task or a plan to edit it.", severity="warning")
        return
    plans = [(plan.id, plan.title) for plan in screen.snapshot.plans_sorted()]
    screen.app.push_screen(TaskForm(task, plans), partial(task_form_done, screen))


def task_form_done(screen: StoreScreen, draft: TaskDraft | None) -> None:
    if draft is not None:
        _save(screen, "task", draft.task_id, draft.changes(), "task_add", "task_set")


def approve(screen: StoreScreen) -> None:
    record: TaskRecord | PlanRecord | None = screen.current_task() or screen.current_plan()
    if record is None:
        screen.notify("Move to a plan or a task to approve it.", severity="warning")
        return
    # The tools name the record they act on by their input `task` or `plan`.
    tool, key = ("task_approve", "task") if isinstance(record, TaskRecord) else ("plan_approve", "plan")
    record_id = record.id
    if record.approved is None:
        screen.run_store_tool(tool, {key: record_id})
        return

    # Approving again replaces the stamp (another person, another time): ask first.
    def answered(yes: bool | None) -> None:
        if yes:
            screen.run_store_tool(tool, {key: record_id})

    question = f"{record_id} is approved by {record.approved.by}; approve again as {screen.caller.by}?"
    screen.app.push_screen(ConfirmScreen(question), answered)


def review(screen: StoreScreen) -> None:
    record: TaskRecord | PlanRecord | None = screen.current_task() or screen.current_plan()
    if record is None:
        screen.notify("Move to a task or a plan to review it.", severity="warning")
        return
    record_id = record.id

    def reviewed(verdict: str | None) -> None:
        if verdict is not None:
            key = "plan" if isinstance(record, PlanRecord) else "task"
            screen.run_store_tool("task_review", {key: record_id, "verdict": verdict})

    screen.app.push_screen(ReviewForm(record.id, record.title), reviewed)

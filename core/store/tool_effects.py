"""What each of the ten tools does (docs/store.md, The tools): the records it reads and writes.

Why a module of its own: the effects table — stamps, defaults, what a status change
clears, the filters of a listing — changes with what the tools are meant to do, apart from the inputs
(core/store/tool_inputs.py), the refusals (core/store/tool_refusals.py) and the registry
that validates and dispatches (core/store/tools.py).

Each tool is `tool(ctx, inp) -> ToolResult`, called with a validated input; refusals
raise `ToolRefused` before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.approvals import Approvals, approvals_of
from planwatch.core.store.schema import FINISHED_PLAN, PlanRecord, TaskRecord, id_number, task_status_change
from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.store.tool_inputs import (
    PlanCreateInput,
    PlanIdInput,
    PlanListInput,
    PlanSetInput,
    TaskAddInput,
    TaskFields,
    TaskIdInput,
    TaskListInput,
    TaskReviewInput,
    TaskSetInput,
)
from planwatch.core.store.tool_refusals import (
    ToolContext,
    known_blockers,
    known_plan,
    known_plan_record,
    known_task,
    need_approval_to_start,
    need_grant,
    need_read,
    unknown_record,
)


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: one line per item.

    `records` are the items themselves (for `--json`), `problems` the broken records
    the tool left out of a listing (`tasks/t5.md: status must be …`): the caller
    reports them beside the answer, never inside it.
    """

    lines: list[str] = field(default_factory=list)
    records: list[TaskRecord | PlanRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Sentences the caller says beside the lines (CLI: stderr; MCP: a second text block):
    an approval this call withdrew, approved stamps that do not count."""

    def text(self) -> str:
        return "\n".join(self.lines)


def _by_number(tasks: list[TaskRecord]) -> list[TaskRecord]:
    return sorted(tasks, key=lambda t: id_number(t.id))


def _problems(snap: StoreSnapshot) -> list[str]:
    return [p.message for p in snap.problems]


def _task_changes(inp: TaskFields, given: set[str]) -> dict[str, Any]:
    """The record fields an add/set input names (None where a set input clears one)."""
    changes: dict[str, Any] = {}
    for name in given:
        if name in ("task", "title", "status"):
            continue
        value = getattr(inp, name)
        if name in ("labels", "refs", "blocked_by"):
            changes[name] = tuple(value) if value is not None else ()
        elif name == "body":
            changes[name] = value or ""
        elif name == "priority":
            changes[name] = value or "medium"
        else:
            changes[name] = value
    return changes


def plan_create(ctx: ToolContext, inp: PlanCreateInput) -> ToolResult:
    def make(plan_id: str) -> PlanRecord:
        return PlanRecord(
            id=plan_id,
            title=inp.title,
            scope=inp.scope.to_scope() if inp.scope else None,
            goal=inp.goal or "",
            status="draft",  # a plan starts as a draft
            refs=tuple(inp.refs or ()),
            created=ctx.stamp(),
        )

    rec = ctx.store.add_plan(make)
    return ToolResult([rec.line()], [rec])


def plan_set(ctx: ToolContext, inp: PlanSetInput) -> ToolResult:
    given = set(inp.model_fields_set) - {"plan"}
    for name in ("title", "status"):
        if name in given and getattr(inp, name) is None:
            raise ctx.refuse(f"{name} cannot be removed.")
    with ctx.store.lock():
        current = known_plan_record(ctx, inp.plan)
        update: dict[str, Any] = {}
        if "title" in given:
            update["title"] = inp.title
        if "scope" in given:
            update["scope"] = inp.scope.to_scope() if inp.scope else None
        if "goal" in given:
            update["goal"] = inp.goal or ""
        if "refs" in given:
            update["refs"] = tuple(inp.refs or ())
        if "status" in given:
            update["status"] = inp.status
            if inp.status in FINISHED_PLAN and current.finished is None:
                update["finished"] = ctx.stamp()
        # Validated (model_copy does not): the record answered is the one written and read
        # back (a goal ends its line).
        new = PlanRecord.model_validate(current.model_copy(update=update).model_dump(by_alias=False))
        if new != current:
            ctx.store.write_plan(new)
    return ToolResult([new.line()], [new])


def plan_show(ctx: ToolContext, inp: PlanIdInput) -> ToolResult:
    need_read(ctx)
    snap = ctx.store.load()
    plan = snap.plans.get(inp.plan)
    if plan is None:
        raise unknown_record(ctx, "plan", inp.plan)
    tasks = _by_number([t for t in snap.tasks.values() if t.plan == inp.plan])
    records: list[TaskRecord | PlanRecord] = [plan, *tasks]
    notes = _uncounted(ctx.settings, approvals_of(ctx.store), records)
    return ToolResult([plan.line(), *(t.line() for t in tasks)], records, _problems(snap), notes)


def plan_list(ctx: ToolContext, inp: PlanListInput) -> ToolResult:
    need_read(ctx)
    snap = ctx.store.load()
    plans: list[PlanRecord] = []
    for plan in snap.plans_sorted():
        if inp.status is not None and plan.status != inp.status:
            continue
        if inp.scope is not None:
            if plan.scope is None or plan.scope.kind != inp.scope.kind:
                continue
            wanted = getattr(inp.scope, inp.scope.kind)
            if wanted is not None and plan.scope.value != wanted:
                continue
        plans.append(plan)
    return ToolResult([p.line() for p in plans], list(plans), _problems(snap))


def task_add(ctx: ToolContext, inp: TaskAddInput) -> ToolResult:
    changes = _task_changes(inp, set(inp.model_fields_set))
    if "session" not in inp.model_fields_set and ctx.caller.session:
        changes["session"] = ctx.caller.session  # the session the task was made in
    with ctx.store.lock():
        known_plan(ctx, inp.plan)
        known_blockers(ctx, inp.blocked_by, None)

        def make(task_id: str) -> TaskRecord:
            # A new task is always todo.
            base = TaskRecord(id=task_id, title=inp.title, status="todo", created=ctx.stamp())
            # Validated as task_set's (model_copy does not): the record answered is the
            # one written and read back (a body ends its line).
            return TaskRecord.model_validate(base.model_copy(update=changes).model_dump(by_alias=False))

        rec = ctx.store.add_task(make)
    return ToolResult([rec.line()], [rec])


def task_set(ctx: ToolContext, inp: TaskSetInput) -> ToolResult:
    given = set(inp.model_fields_set) - {"task"}
    for name in ("title", "status"):
        if name in given and getattr(inp, name) is None:
            raise ctx.refuse(f"{name} cannot be removed.")
    changes = _task_changes(inp, given)
    with ctx.store.lock():
        current = known_task(ctx, inp.task)
        if "plan" in given:
            known_plan(ctx, inp.plan)
        if "blocked_by" in given:
            known_blockers(ctx, inp.blocked_by, inp.task)
        new = current.model_copy(update=changes)
        if "title" in given:
            new = new.model_copy(update={"title": inp.title})
        notes: list[str] = []
        approvals = approvals_of(ctx.store)
        rebind = False
        if current.approved is not None and (new.title, new.body) != (current.title, current.body):
            if grants.holds(ctx.settings, ctx.caller, grants.TASK_APPROVE, ctx.store.root) and approvals.counts(
                current
            ):
                rebind = True  # an approver's own edit keeps the approval, for the new text
            else:
                # What was approved is not what the task says now.
                new = new.model_copy(update={"approved": None})
                if approvals.counts(current):
                    notes.append(
                        f"{current.id} needs approval again: its title or body changed after "
                        f"{current.approved.by} approved it (see task_approve)."
                    )
        if rebind and new.approved is not None:
            # Bound to the text as it will be written (validated: a body ends its line).
            approvals.record(TaskRecord.model_validate(new.model_dump(by_alias=False)), new.approved)
        if inp.status is not None and inp.status != current.status:
            if inp.status == "doing":
                need_approval_to_start(ctx, new)
            new = new.model_copy(update=task_status_change(current, inp.status, ctx.stamp))
        # Re-validate: model_copy does not, and a set may combine fields in a bad way.
        new = TaskRecord.model_validate(new.model_dump(by_alias=False))
        if new != current:
            ctx.store.write_task(new)
    return ToolResult([new.line()], [new], notes=notes)


def _ready(settings: Settings, snap: StoreSnapshot, task: TaskRecord, approvals: Approvals) -> bool:
    if task.status != "todo":
        return False
    for blocker in task.blocked_by:
        other = snap.tasks.get(blocker)
        if other is None or other.status != "done":
            return False
    return grants.may_start(settings, task, approvals)


def task_list(ctx: ToolContext, inp: TaskListInput) -> ToolResult:
    need_read(ctx)
    snap = ctx.store.load()
    statuses = {inp.status} if isinstance(inp.status, str) else set(inp.status or ())
    since = inp.since_instant()
    approvals = approvals_of(ctx.store)
    out = []
    for task in snap.tasks.values():
        if statuses and task.status not in statuses:
            continue
        if inp.approved is not None and approvals.counts(task) != inp.approved:
            continue
        if inp.ready is not None and _ready(ctx.settings, snap, task, approvals) != inp.ready:
            continue
        if inp.plan is not None and task.plan != inp.plan:
            continue
        if inp.session is not None and task.session != inp.session:
            continue
        if inp.by is not None or since is not None:
            if not any(
                (inp.by is None or s.by == inp.by) and (since is None or s.at >= since) for s in task.stamps().values()
            ):
                continue
        out.append(task)
    tasks = _by_number(out)
    notes = _uncounted(ctx.settings, approvals, tasks)
    return ToolResult([t.line() for t in tasks], list(tasks), _problems(snap), notes)


def _uncounted(
    settings: Settings, approvals: Approvals, records: list[TaskRecord] | list[TaskRecord | PlanRecord]
) -> list[str]:
    """A sentence for each approved stamp among `records` that does not count, and for
    each task that is doing although, with requireApproval, it could not have started."""
    notes = []
    for rec in records:
        why = approvals.why_not(rec)
        if isinstance(rec, TaskRecord) and grants.doing_without_approval(settings, rec, approvals):
            reason = why or "it was never approved"
            notes.append(f"{rec.id} is doing without approval: requireApproval is on and {reason}.")
        elif why is not None:
            notes.append(f"{rec.id} is not approved: {why}.")
    return notes


def plan_approve(ctx: ToolContext, inp: PlanIdInput) -> ToolResult:
    need_grant(ctx)
    with ctx.store.lock():
        known_plan_record(ctx, inp.plan)
        new = ctx.store.update_plan(inp.plan, lambda p: _approved(ctx, p))
    return ToolResult([new.line()], [new])


def task_approve(ctx: ToolContext, inp: TaskIdInput) -> ToolResult:
    need_grant(ctx)
    with ctx.store.lock():
        known_task(ctx, inp.task)
        new = ctx.store.update_task(inp.task, lambda t: _approved(ctx, t))
    return ToolResult([new.line()], [new])


def _approved(ctx: ToolContext, rec: Any) -> Any:
    """`rec` stamped approved, the approval first kept in the host's record (a stamp no
    approval call wrote does not count, and this one binds the title and body as now)."""
    stamp = ctx.stamp()
    approvals_of(ctx.store).record(rec, stamp)
    return rec.model_copy(update={"approved": stamp})


def task_review(ctx: ToolContext, inp: TaskReviewInput) -> ToolResult:
    with ctx.store.lock():
        stamp = ctx.stamp(verdict=inp.verdict)
        if inp.plan is not None:
            known_plan_record(ctx, inp.plan)
            plan = ctx.store.update_plan(inp.plan, lambda p: p.model_copy(update={"reviewed": stamp}))
            return ToolResult([plan.line()], [plan])
        assert inp.task is not None  # the input model requires one of them
        known_task(ctx, inp.task)
        task = ctx.store.update_task(inp.task, lambda t: t.model_copy(update={"reviewed": stamp}))
    return ToolResult([task.line()], [task])

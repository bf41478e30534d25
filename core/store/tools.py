"""The ten store tools, shared by the CLI, the app and the MCP server (SPEC §4 Tools).

API summary:
- `run_tool(name, store, settings, caller, args, now=None) -> ToolResult` — validate
  `args` (a dict, e.g. an MCP call's arguments) and run the tool. Raises `ToolRefused`
  with the sentence to show (`Invalid task_set input: status must be todo, …`), or
  `StoreError` when the disk refused a write.
- `TOOLS: dict[str, ToolSpec]` — each tool's input model (pydantic, extra fields
  forbidden; `input_model.model_json_schema()` for MCP), one-line description, function.
- `TOOL_NAMES` — the ten names in the product's order.
- `ToolResult(lines)` — one line per item: tasks `id status priority title`, plans
  `id status title`; `.text()` joins them.

Effects (beyond the obvious field changes), all stamps `{at, by, in}` from the Caller:
- plan_create: `created`; status done/dropped also stamps `finished`.
- plan_set: first move to done/dropped stamps `finished` (once).
- task_add: `created`; doing stamps `started`; review/done/dropped stamps `finished`.
- task_set: first doing stamps `started` (once); first review/done/dropped stamps
  `finished` (once). With requireApproval, moving to doing needs an `approved` stamp.
- plan_approve / task_approve: `approved` (each approve replaces it); under a user
  directory the caller needs the `task:approve` grant.
- task_review: `reviewed` (each review replaces it) with the optional verdict. It
  takes a plan id too (p<n>), stamping the plan's `reviewed`. Status is not changed.
- In the set tools, a field given as null is removed (title and status cannot be).
- task_list: `by` and `since` together must match the same stamp.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from core.settings import Settings
from core.store import grants
from core.store.identity import Caller
from core.store.records import Store, StoreSnapshot
from core.store.schema import (
    FINISHED_PLAN,
    PLAN_ID_PATTERN,
    PLAN_STATUSES,
    SCOPE_KINDS,
    TASK_ID_PATTERN,
    TASK_STATUSES,
    TITLE_MAX,
    PlanRecord,
    PlanStatus,
    Scope,
    ScopeKind,
    Source,
    Stamp,
    TaskPriority,
    TaskRecord,
    TaskStatus,
    Verdict,
    describe_validation_error,
    id_number,
    is_plan_id,
    one_of,
    refuse_bare_number,
    task_status_stamps,
)

TOOL_NAMES: tuple[str, ...] = (
    "plan_create", "plan_set", "plan_show", "plan_list",
    "task_add", "task_set", "task_list",
    "plan_approve", "task_approve", "task_review",
)  # fmt: skip

class ToolRefused(Exception):
    """A tool refused its input or its caller; `message` is the sentence to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: one line per item."""

    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.lines)


# ---------------------------------------------------------------- inputs

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]
TaskId = Annotated[str, StringConstraints(pattern=TASK_ID_PATTERN)]
PlanId = Annotated[str, StringConstraints(pattern=PLAN_ID_PATTERN)]
Text = Annotated[str, StringConstraints(max_length=100_000)]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    @field_validator("title", mode="after", check_fields=False)
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and ("\n" in value or "\r" in value):
            raise ValueError("title must be one line")
        return value


class ScopeInput(_Input):
    """`{kind: folder, folder: /srv/work}` (or bot / session)."""

    kind: ScopeKind
    folder: ShortText | None = None
    bot: ShortText | None = None
    session: ShortText | None = None

    @model_validator(mode="after")
    def _value_matches_kind(self) -> ScopeInput:
        given = [k for k in SCOPE_KINDS if getattr(self, k) is not None]
        if given != [self.kind]:
            raise ValueError(f"scope must be {{kind: {'|'.join(SCOPE_KINDS)}, <kind>: value}}, e.g. {{kind: folder, folder: /srv/work}}")
        return self

    def to_scope(self) -> Scope:
        return Scope(kind=self.kind, value=getattr(self, self.kind))


class ScopeFilter(_Input):
    """plan_list's scope filter: a kind, and optionally its value."""

    kind: ScopeKind
    folder: str | None = None
    bot: str | None = None
    session: str | None = None


class SourceInput(_Input):
    tool: ShortText
    id: ShortText | None = None


class PlanCreateInput(_Input):
    title: Title
    scope: ScopeInput | None = None
    goal: Text | None = None
    status: PlanStatus = "draft"
    refs: list[ShortText] | None = None


class PlanSetInput(_Input):
    id: PlanId
    title: Title | None = None
    scope: ScopeInput | None = None
    goal: Text | None = None
    status: PlanStatus | None = None
    refs: list[ShortText] | None = None


class IdInput(_Input):
    id: PlanId


class PlanListInput(_Input):
    status: PlanStatus | None = None
    scope: ScopeFilter | None = None


class _TaskFields(_Input):
    priority: TaskPriority | None = None
    labels: list[ShortText] | None = None
    topic: ShortText | None = None
    plan: PlanId | None = None
    bot: ShortText | None = None
    folder: ShortText | None = None
    session: ShortText | None = None
    blocked_by: list[TaskId] | None = Field(None, alias="blockedBy")
    active: ShortText | None = None
    note: Text | None = None
    refs: list[ShortText] | None = None
    source: SourceInput | None = None
    body: Text | None = None


class TaskAddInput(_TaskFields):
    title: Title
    status: TaskStatus = "todo"


class TaskSetInput(_TaskFields):
    id: TaskId
    title: Title | None = None
    status: TaskStatus | None = None


class TaskIdInput(_Input):
    id: TaskId


class TaskReviewInput(_Input):
    id: Annotated[str, StringConstraints(pattern=r"^[tp][1-9][0-9]{0,8}$")]
    verdict: Verdict | None = None


class TaskListInput(_Input):
    status: TaskStatus | list[TaskStatus] | None = None
    approved: bool | None = None
    ready: bool | None = None
    by: ShortText | None = None
    since: datetime | date | None = None
    plan: PlanId | None = None
    session: ShortText | None = None

    @field_validator("since", mode="before")
    @classmethod
    def _since_not_a_number(cls, value: object) -> object:
        return refuse_bare_number(value)

    def since_instant(self) -> datetime | None:
        if self.since is None:
            return None
        if isinstance(self.since, datetime):
            return self.since if self.since.tzinfo else self.since.replace(tzinfo=UTC)
        return datetime(self.since.year, self.since.month, self.since.day, tzinfo=UTC)


# ---------------------------------------------------------------- context


@dataclass(frozen=True)
class ToolContext:
    store: Store
    settings: Settings
    caller: Caller
    now: Callable[[], datetime]
    name: str

    def refuse(self, reason: str) -> ToolRefused:
        return ToolRefused(f"Invalid {self.name} input: {reason}")

    def stamp(self, *, verdict: str | None = None) -> Stamp:
        return self.caller.stamp(self.now(), verdict=verdict)


def _task_lines(tasks: list[TaskRecord]) -> list[str]:
    return [t.line() for t in sorted(tasks, key=lambda t: id_number(t.id))]


def _known_plan(ctx: ToolContext, plan_id: str | None) -> None:
    if plan_id is not None and ctx.store.read_plan(plan_id) is None:
        raise ctx.refuse("plan must match the id of a known plan (see plan_list).")


def _known_blockers(ctx: ToolContext, blockers: list[str] | None, own_id: str | None) -> None:
    for blocker in blockers or ():
        if blocker == own_id:
            raise ctx.refuse("blockedBy must not name the task itself.")
        if ctx.store.read_task(blocker) is None:
            raise ctx.refuse(f"blockedBy must name known tasks (see task_list); {blocker} is not one.")
    if own_id is not None:
        _no_cycle(ctx, blockers or [], own_id)


def _no_cycle(ctx: ToolContext, blockers: list[str], own_id: str) -> None:
    """A task may not wait on itself through others: such a task could never be ready."""
    seen: set[str] = set()
    todo = list(blockers)
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        rec = ctx.store.read_task(current)
        if rec is None:
            continue
        if own_id in rec.blocked_by:
            raise ctx.refuse(f"blockedBy must not form a cycle; {current} already waits on {own_id}.")
        todo.extend(rec.blocked_by)


def _known_task(ctx: ToolContext, task_id: str) -> TaskRecord:
    rec = ctx.store.read_task(task_id)
    if rec is None:
        raise ctx.refuse("id must match the id of a known task (see task_list).")
    return rec


def _known_plan_record(ctx: ToolContext, plan_id: str) -> PlanRecord:
    rec = ctx.store.read_plan(plan_id)
    if rec is None:
        raise ctx.refuse("id must match the id of a known plan (see plan_list).")
    return rec


def _task_changes(inp: _TaskFields, given: set[str]) -> dict[str, Any]:
    """The record fields an add/set input names (None where a set input clears one)."""
    changes: dict[str, Any] = {}
    for name in given:
        if name in ("id", "title", "status"):
            continue
        value = getattr(inp, name)
        if name in ("labels", "refs", "blocked_by"):
            changes[name] = tuple(value) if value is not None else ()
        elif name == "source":
            changes[name] = Source(tool=value.tool, id=value.id) if value is not None else None
        elif name == "body":
            changes[name] = value or ""
        elif name == "priority":
            changes[name] = value or "medium"
        else:
            changes[name] = value
    return changes


def _need_approval_to_start(ctx: ToolContext, rec: TaskRecord) -> None:
    if not grants.may_start(ctx.settings, rec):
        raise ctx.refuse(
            f"status doing needs {rec.id} approved first (requireApproval is on; see task_approve)."
        )


def _need_grant(ctx: ToolContext) -> None:
    if not grants.holds(ctx.settings, ctx.caller, grants.TASK_APPROVE):
        raise ToolRefused(grants.refusal(ctx.name, "approving", grants.TASK_APPROVE, ctx.caller, ctx.settings))


# ---------------------------------------------------------------- the tools


def plan_create(ctx: ToolContext, inp: PlanCreateInput) -> ToolResult:
    def make(plan_id: str) -> PlanRecord:
        stamp = ctx.stamp()
        return PlanRecord(
            id=plan_id,
            title=inp.title,
            scope=inp.scope.to_scope() if inp.scope else None,
            goal=inp.goal or "",
            status=inp.status,
            refs=tuple(inp.refs or ()),
            created=stamp,
            finished=stamp if inp.status in FINISHED_PLAN else None,
        )

    return ToolResult([ctx.store.add_plan(make).line()])


def plan_set(ctx: ToolContext, inp: PlanSetInput) -> ToolResult:
    given = set(inp.model_fields_set) - {"id"}
    for name in ("title", "status"):
        if name in given and getattr(inp, name) is None:
            raise ctx.refuse(f"{name} cannot be removed.")
    with ctx.store.lock():
        current = _known_plan_record(ctx, inp.id)
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
        new = current.model_copy(update=update)
        if new != current:
            ctx.store.write_plan(new)
    return ToolResult([new.line()])


def plan_show(ctx: ToolContext, inp: IdInput) -> ToolResult:
    snap = ctx.store.load()
    plan = snap.plans.get(inp.id)
    if plan is None:
        raise ctx.refuse("id must match the id of a known plan (see plan_list).")
    return ToolResult([plan.line(), *_task_lines([t for t in snap.tasks.values() if t.plan == inp.id])])


def plan_list(ctx: ToolContext, inp: PlanListInput) -> ToolResult:
    lines = []
    for plan in ctx.store.load().plans_sorted():
        if inp.status is not None and plan.status != inp.status:
            continue
        if inp.scope is not None:
            if plan.scope is None or plan.scope.kind != inp.scope.kind:
                continue
            wanted = getattr(inp.scope, inp.scope.kind)
            if wanted is not None and plan.scope.value != wanted:
                continue
        lines.append(plan.line())
    return ToolResult(lines)


def task_add(ctx: ToolContext, inp: TaskAddInput) -> ToolResult:
    changes = _task_changes(inp, set(inp.model_fields_set))
    with ctx.store.lock():
        _known_plan(ctx, inp.plan)
        _known_blockers(ctx, inp.blocked_by, None)

        def make(task_id: str) -> TaskRecord:
            base = TaskRecord(id=task_id, title=inp.title, status="todo", created=ctx.stamp())
            rec = base.model_copy(update=changes)
            if inp.status == "doing" and not grants.may_start(ctx.settings, rec):
                raise ctx.refuse(
                    "status doing needs an approved task: add it as todo, then task_approve it (requireApproval is on)."
                )
            return rec.model_copy(update={"status": inp.status, **task_status_stamps(rec, inp.status, ctx.stamp)})

        rec = ctx.store.add_task(make)
    return ToolResult([rec.line()])


def task_set(ctx: ToolContext, inp: TaskSetInput) -> ToolResult:
    given = set(inp.model_fields_set) - {"id"}
    for name in ("title", "status"):
        if name in given and getattr(inp, name) is None:
            raise ctx.refuse(f"{name} cannot be removed.")
    changes = _task_changes(inp, given)
    with ctx.store.lock():
        current = _known_task(ctx, inp.id)
        if "plan" in given:
            _known_plan(ctx, inp.plan)
        if "blocked_by" in given:
            _known_blockers(ctx, inp.blocked_by, inp.id)
        new = current.model_copy(update=changes)
        if "title" in given:
            new = new.model_copy(update={"title": inp.title})
        if inp.status is not None and inp.status != current.status:
            if inp.status == "doing":
                _need_approval_to_start(ctx, current)
            new = new.model_copy(update={"status": inp.status, **task_status_stamps(current, inp.status, ctx.stamp)})
        # Re-validate: model_copy does not, and a set may combine fields in a bad way.
        new = TaskRecord.model_validate(new.model_dump(by_alias=False))
        if new != current:
            ctx.store.write_task(new)
    return ToolResult([new.line()])


def _ready(settings: Settings, snap: StoreSnapshot, task: TaskRecord) -> bool:
    if task.status != "todo":
        return False
    for blocker in task.blocked_by:
        other = snap.tasks.get(blocker)
        if other is None or other.status != "done":
            return False
    return grants.may_start(settings, task)


def task_list(ctx: ToolContext, inp: TaskListInput) -> ToolResult:
    snap = ctx.store.load()
    statuses = {inp.status} if isinstance(inp.status, str) else set(inp.status or ())
    since = inp.since_instant()
    out = []
    for task in snap.tasks.values():
        if statuses and task.status not in statuses:
            continue
        if inp.approved is not None and (task.approved is not None) != inp.approved:
            continue
        if inp.ready is not None and _ready(ctx.settings, snap, task) != inp.ready:
            continue
        if inp.plan is not None and task.plan != inp.plan:
            continue
        if inp.session is not None and task.session != inp.session:
            continue
        if inp.by is not None or since is not None:
            if not any(
                (inp.by is None or s.by == inp.by) and (since is None or s.at >= since)
                for s in task.stamps().values()
            ):
                continue
        out.append(task)
    return ToolResult(_task_lines(out))


def plan_approve(ctx: ToolContext, inp: IdInput) -> ToolResult:
    _need_grant(ctx)
    with ctx.store.lock():
        _known_plan_record(ctx, inp.id)
        new = ctx.store.update_plan(inp.id, lambda p: p.model_copy(update={"approved": ctx.stamp()}))
    return ToolResult([new.line()])


def task_approve(ctx: ToolContext, inp: TaskIdInput) -> ToolResult:
    _need_grant(ctx)
    with ctx.store.lock():
        _known_task(ctx, inp.id)
        new = ctx.store.update_task(inp.id, lambda t: t.model_copy(update={"approved": ctx.stamp()}))
    return ToolResult([new.line()])


def task_review(ctx: ToolContext, inp: TaskReviewInput) -> ToolResult:
    with ctx.store.lock():
        stamp = ctx.stamp(verdict=inp.verdict)
        if is_plan_id(inp.id):
            _known_plan_record(ctx, inp.id)
            plan = ctx.store.update_plan(inp.id, lambda p: p.model_copy(update={"reviewed": stamp}))
            return ToolResult([plan.line()])
        _known_task(ctx, inp.id)
        task = ctx.store.update_task(inp.id, lambda t: t.model_copy(update={"reviewed": stamp}))
    return ToolResult([task.line()])


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    input_model: type[_Input]
    run: Callable[[ToolContext, Any], ToolResult]
    description: str
    kind: Literal["plan", "task"]


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("plan_create", PlanCreateInput, plan_create, "Create a plan (draft unless a status is given); answers its line.", "plan"),
        ToolSpec("plan_set", PlanSetInput, plan_set, "Change a plan's title, scope, goal, status or refs; null removes a field.", "plan"),
        ToolSpec("plan_show", IdInput, plan_show, "A plan's line, then the lines of its tasks.", "plan"),
        ToolSpec("plan_list", PlanListInput, plan_list, "Plans, filtered by status and scope.", "plan"),
        ToolSpec("task_add", TaskAddInput, task_add, "Add a task (todo unless a status is given); answers its line.", "task"),
        ToolSpec("task_set", TaskSetInput, task_set, "Change a task's fields or status; null removes a field.", "task"),
        ToolSpec("task_list", TaskListInput, task_list, "Tasks, filtered by status, approved, ready, by, since, plan, session.", "task"),
        ToolSpec("plan_approve", IdInput, plan_approve, "Stamp a plan approved (needs task:approve under a user directory).", "plan"),
        ToolSpec("task_approve", TaskIdInput, task_approve, "Stamp a task approved (needs task:approve under a user directory).", "task"),
        ToolSpec("task_review", TaskReviewInput, task_review, "Stamp a task (or plan) reviewed, with an optional verdict approved|changes.", "task"),
    )
}


def run_tool(
    name: str,
    store: Store,
    settings: Settings,
    caller: Caller,
    args: dict[str, Any] | None,
    now: Callable[[], datetime] | None = None,
) -> ToolResult:
    """Validate `args` for tool `name` and run it; refusals raise `ToolRefused`."""
    spec = TOOLS.get(name)
    if spec is None:
        raise ToolRefused(f"Unknown tool {name}: use one of {one_of(TOOL_NAMES)}.")
    ctx = ToolContext(store, settings, caller, now or (lambda: datetime.now(UTC)), name)
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ctx.refuse("input must be a mapping of fields.")
    if "id" in args and name in ("task_add", "plan_create"):
        raise ctx.refuse("id is minted by the store, never taken as input.")
    try:
        inp = spec.input_model.model_validate(args)
    except ValidationError as exc:
        statuses = PLAN_STATUSES if spec.kind == "plan" else TASK_STATUSES
        raise ctx.refuse(describe_validation_error(exc, statuses=statuses)) from None
    return spec.run(ctx, inp)

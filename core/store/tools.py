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

Inputs carry the seed's names only (SPEC §4–§6): the record a call acts on is `plan`
(plan_set, plan_show, plan_approve) or `task` (task_set, task_approve, task_review);
fields are the record's own keys (`blockedBy`, never `blocked_by`). Every input model
says what each input takes (`Field(description=…)`), which is what the MCP listing
shows a model.

Effects (beyond the obvious field changes), all stamps `{at, by, in}` from the Caller:
- plan_create: `created`. A plan starts as a draft (no status input).
- plan_set: first move to done/dropped stamps `finished` (once).
- task_add: `created`. A new task is always todo (no status input); `session` defaults
  to the session the call was made in; `source` is never an input (SPEC §5 only).
- task_set: first doing stamps `started` (once); first review/done/dropped stamps
  `finished` (once); leaving doing clears `active`. With requireApproval, moving to
  doing needs an `approved` stamp.
- plan_approve / task_approve: `approved` (each approve replaces it); under a user
  directory the caller needs the `task:approve` grant.
- task_review: `reviewed` (each review replaces it) with the optional verdict, on the
  `task` given, or on the `plan` given instead. Status is not changed.
- In the set tools, a field given as null is removed (title and status cannot be).
- task_list: `by` and `since` together must match the same stamp.
- A record acted on whose file is broken is refused with what is wrong with the file.
- `ToolResult.problems`: the broken records a listing left out (`tasks/t5.md: …`), for
  the caller to report beside the answer (CLI: stderr; MCP: a logging notification).
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

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.errors import RecordTooLarge
from planwatch.core.store.identity import Caller
from planwatch.core.store.parsecache import StoreSnapshot
from planwatch.core.store.recordfile import RecordProblem, parse_record_file
from planwatch.core.store.records import Store
from planwatch.core.store.schema import (
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
    Stamp,
    TaskPriority,
    TaskRecord,
    TaskStatus,
    Verdict,
    describe_validation_error,
    id_number,
    one_of,
    refuse_bare_number,
    task_status_change,
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
    """A tool's answer: one line per item.

    `records` are the items themselves (for `--json`), `problems` the broken records
    the tool left out of a listing (`tasks/t5.md: status must be …`): the caller
    reports them beside the answer, never inside it.
    """

    lines: list[str] = field(default_factory=list)
    records: list[TaskRecord | PlanRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(self.lines)


# ---------------------------------------------------------------- inputs

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]
TaskId = Annotated[str, StringConstraints(pattern=TASK_ID_PATTERN)]
PlanId = Annotated[str, StringConstraints(pattern=PLAN_ID_PATTERN)]
Text = Annotated[str, StringConstraints(max_length=100_000)]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
OneLine = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]

ONE_LINE_FIELDS = ("title", "active", "note")
"""The seed's one-line fields: a newline in them is refused, as in a title."""
MAX_LIST = 50
"""Lists (labels, refs, blockedBy) are bounded like strings: a record must stay readable."""
ShortTexts = Annotated[list[ShortText], Field(max_length=MAX_LIST)]
TaskIds = Annotated[list[TaskId], Field(max_length=MAX_LIST)]


class _Input(BaseModel):
    # Only the seed's names are inputs: `blockedBy`, never the Python name `blocked_by`.
    model_config = ConfigDict(extra="forbid", validate_by_alias=True, validate_by_name=False, frozen=True)

    @field_validator(*ONE_LINE_FIELDS, mode="after", check_fields=False)
    @classmethod
    def _one_line(cls, value: str | None, info: Any) -> str | None:
        if value is not None and ("\n" in value or "\r" in value):
            raise ValueError(f"{info.field_name} must be one line")
        return value


_SCOPE_HELP = "{kind: folder|bot|session, <kind>: value}, e.g. {kind: folder, folder: /srv/work}"


class ScopeInput(_Input):
    """What a plan is about: `{kind: folder, folder: /srv/work}` (or bot / session)."""

    kind: ScopeKind = Field(description="folder, bot or session.")
    folder: ShortText | None = Field(None, description="The folder's path, with kind folder.")
    bot: ShortText | None = Field(None, description="The bot's name, with kind bot.")
    session: ShortText | None = Field(None, description="The session's id, with kind session.")

    @model_validator(mode="after")
    def _value_matches_kind(self) -> ScopeInput:
        given = [k for k in SCOPE_KINDS if getattr(self, k) is not None]
        if given != [self.kind]:
            raise ValueError(f"scope must be {_SCOPE_HELP}")
        return self

    def to_scope(self) -> Scope:
        return Scope(kind=self.kind, value=getattr(self, self.kind))


class ScopeFilter(_Input):
    """plan_list's scope filter: a kind, and optionally its value."""

    kind: ScopeKind = Field(description="folder, bot or session.")
    folder: str | None = Field(None, description="Only this folder (kind folder).")
    bot: str | None = Field(None, description="Only this bot (kind bot).")
    session: str | None = Field(None, description="Only this session (kind session).")


_PLAN_ID_HELP = "a plan id, p<n> (see plan_list)"
_TASK_ID_HELP = "a task id, t<n> (see task_list)"
_REFS = "References (links, paths, issue ids): a list of text."


class PlanCreateInput(_Input):
    title: Title = Field(description="The plan's title, one line.")
    scope: ScopeInput | None = Field(None, description=f"What the plan is about: {_SCOPE_HELP}.")
    goal: Text | None = Field(None, description="The plan's goal, Markdown (the record's body).")
    refs: ShortTexts | None = Field(None, description=_REFS)


class PlanSetInput(_Input):
    plan: PlanId = Field(description=f"The plan to change: {_PLAN_ID_HELP}.")
    title: Title | None = Field(None, description="A new title, one line.")
    scope: ScopeInput | None = Field(None, description=f"What the plan is about: {_SCOPE_HELP}; null removes it.")
    goal: Text | None = Field(None, description="The plan's goal, Markdown; null empties it.")
    status: PlanStatus | None = Field(None, description="draft, active, done or dropped.")
    refs: ShortTexts | None = Field(None, description=_REFS + " Null removes them.")


class PlanIdInput(_Input):
    plan: PlanId = Field(description=f"The plan: {_PLAN_ID_HELP}.")


class PlanListInput(_Input):
    status: PlanStatus | None = Field(None, description="Only plans with this status: draft, active, done or dropped.")
    scope: ScopeFilter | None = Field(
        None, description="Only plans with this scope: {kind}, or {kind, <kind>: value} for one folder, bot or session."
    )


_SET_NULL = " Null removes it."


class _TaskFields(_Input):
    priority: TaskPriority | None = Field(None, description="high, medium or low (medium when not given).")
    labels: ShortTexts | None = Field(None, description="Labels: a list of text.")
    topic: ShortText | None = Field(None, description="A topic: text.")
    plan: PlanId | None = Field(None, description=f"The plan the task belongs to: {_PLAN_ID_HELP}.")
    bot: ShortText | None = Field(None, description="The bot the task is for: text.")
    folder: ShortText | None = Field(None, description="The folder the task is about: a path.")
    session: ShortText | None = Field(None, description="The id of the session the task belongs to.")
    blocked_by: TaskIds | None = Field(
        None, alias="blockedBy", description='The tasks that must be done first: a list of task ids, e.g. ["t1"].'
    )
    active: OneLine | None = Field(
        None, description='What is being done while the task is doing, one line ("Running the tests"); cleared when it leaves doing.'
    )
    note: OneLine | None = Field(None, description="A short note, one line.")
    refs: ShortTexts | None = Field(None, description=_REFS)
    body: Text | None = Field(None, description="The task's long text, Markdown (the record's body).")


class TaskAddInput(_TaskFields):
    title: Title = Field(description="The task's title, one line.")
    session: ShortText | None = Field(
        None, description="The id of the session the task belongs to; when not given, the session this call is made in."
    )


class TaskSetInput(_TaskFields):
    task: TaskId = Field(description=f"The task to change: {_TASK_ID_HELP}.")
    title: Title | None = Field(None, description="A new title, one line.")
    status: TaskStatus | None = Field(None, description="todo, doing, blocked, review, done or dropped.")


class TaskIdInput(_Input):
    task: TaskId = Field(description=f"The task: {_TASK_ID_HELP}.")


class TaskReviewInput(_Input):
    task: TaskId | None = Field(None, description=f"The task reviewed: {_TASK_ID_HELP}. Give task or plan.")
    plan: PlanId | None = Field(None, description=f"A plan reviewed instead of a task: {_PLAN_ID_HELP}.")
    verdict: Verdict | None = Field(None, description="approved or changes (optional).")

    @model_validator(mode="after")
    def _task_or_plan(self) -> TaskReviewInput:
        if self.task is None and self.plan is None:
            raise ValueError("task is required (or plan, to review a plan)")
        if self.task is not None and self.plan is not None:
            raise ValueError("give task or plan, not both")
        return self


class TaskListInput(_Input):
    status: TaskStatus | list[TaskStatus] | None = Field(
        None, description="Only tasks with this status (or any of a list): todo, doing, blocked, review, done, dropped."
    )
    approved: bool | None = Field(None, description="true: only tasks with an approved stamp; false: only tasks without.")
    ready: bool | None = Field(
        None, description="true: only tasks ready to start (todo, every blockedBy done, approved when approval is required); false: the others."
    )
    by: ShortText | None = Field(None, description="Only tasks with a stamp by this person.")
    since: datetime | date | None = Field(
        None, description="Only tasks with a stamp at or after this ISO 8601 date or date and time (with by: the same stamp)."
    )
    plan: PlanId | None = Field(None, description=f"Only the tasks of this plan: {_PLAN_ID_HELP}.")
    session: ShortText | None = Field(None, description="Only the tasks naming this session.")

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
    return [t.line() for t in _by_number(tasks)]


def _by_number(tasks: list[TaskRecord]) -> list[TaskRecord]:
    return sorted(tasks, key=lambda t: id_number(t.id))


def _problems(snap: StoreSnapshot) -> list[str]:
    return [p.message for p in snap.problems]


def _broken(ctx: ToolContext, record_id: str) -> str | None:
    """What is wrong with the file of `record_id`, when it exists and is not a valid record."""
    path = ctx.store.task_path(record_id) if record_id.startswith("t") else ctx.store.plan_path(record_id)
    found = parse_record_file(path)
    return found.message if isinstance(found, RecordProblem) else None


def _unknown(ctx: ToolContext, name: str, record_id: str) -> ToolRefused:
    """`<name> must match the id of a known task (see task_list).`, or what is wrong with its file."""
    problem = _broken(ctx, record_id)
    if problem is not None:
        return ctx.refuse(f"{name} {record_id} is not a valid record ({problem}); fix or remove the file.")
    kind, lister = ("task", "task_list") if record_id.startswith("t") else ("plan", "plan_list")
    return ctx.refuse(f"{name} must match the id of a known {kind} (see {lister}).")


def _known_plan(ctx: ToolContext, plan_id: str | None) -> None:
    if plan_id is not None and ctx.store.read_plan(plan_id) is None:
        raise _unknown(ctx, "plan", plan_id)


def _known_blockers(ctx: ToolContext, blockers: list[str] | None, own_id: str | None) -> None:
    for blocker in blockers or ():
        if blocker == own_id:
            raise ctx.refuse("blockedBy must not name the task itself.")
        if ctx.store.read_task(blocker) is None:
            problem = _broken(ctx, blocker)
            if problem is not None:
                raise ctx.refuse(f"blockedBy names {blocker}, which is not a valid record ({problem}).")
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
        raise _unknown(ctx, "task", task_id)
    return rec


def _known_plan_record(ctx: ToolContext, plan_id: str) -> PlanRecord:
    rec = ctx.store.read_plan(plan_id)
    if rec is None:
        raise _unknown(ctx, "plan", plan_id)
    return rec


def _task_changes(inp: _TaskFields, given: set[str]) -> dict[str, Any]:
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
        current = _known_plan_record(ctx, inp.plan)
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
    return ToolResult([new.line()], [new])


def plan_show(ctx: ToolContext, inp: PlanIdInput) -> ToolResult:
    snap = ctx.store.load()
    plan = snap.plans.get(inp.plan)
    if plan is None:
        raise _unknown(ctx, "plan", inp.plan)
    tasks = _by_number([t for t in snap.tasks.values() if t.plan == inp.plan])
    return ToolResult([plan.line(), *(t.line() for t in tasks)], [plan, *tasks], _problems(snap))


def plan_list(ctx: ToolContext, inp: PlanListInput) -> ToolResult:
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
        _known_plan(ctx, inp.plan)
        _known_blockers(ctx, inp.blocked_by, None)

        def make(task_id: str) -> TaskRecord:
            # A new task is always todo.
            base = TaskRecord(id=task_id, title=inp.title, status="todo", created=ctx.stamp())
            return base.model_copy(update=changes)

        rec = ctx.store.add_task(make)
    return ToolResult([rec.line()], [rec])


def task_set(ctx: ToolContext, inp: TaskSetInput) -> ToolResult:
    given = set(inp.model_fields_set) - {"task"}
    for name in ("title", "status"):
        if name in given and getattr(inp, name) is None:
            raise ctx.refuse(f"{name} cannot be removed.")
    changes = _task_changes(inp, given)
    with ctx.store.lock():
        current = _known_task(ctx, inp.task)
        if "plan" in given:
            _known_plan(ctx, inp.plan)
        if "blocked_by" in given:
            _known_blockers(ctx, inp.blocked_by, inp.task)
        new = current.model_copy(update=changes)
        if "title" in given:
            new = new.model_copy(update={"title": inp.title})
        if inp.status is not None and inp.status != current.status:
            if inp.status == "doing":
                _need_approval_to_start(ctx, current)
            new = new.model_copy(update=task_status_change(current, inp.status, ctx.stamp))
        # Re-validate: model_copy does not, and a set may combine fields in a bad way.
        new = TaskRecord.model_validate(new.model_dump(by_alias=False))
        if new != current:
            ctx.store.write_task(new)
    return ToolResult([new.line()], [new])


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
    tasks = _by_number(out)
    return ToolResult([t.line() for t in tasks], list(tasks), _problems(snap))


def plan_approve(ctx: ToolContext, inp: PlanIdInput) -> ToolResult:
    _need_grant(ctx)
    with ctx.store.lock():
        _known_plan_record(ctx, inp.plan)
        new = ctx.store.update_plan(inp.plan, lambda p: p.model_copy(update={"approved": ctx.stamp()}))
    return ToolResult([new.line()], [new])


def task_approve(ctx: ToolContext, inp: TaskIdInput) -> ToolResult:
    _need_grant(ctx)
    with ctx.store.lock():
        _known_task(ctx, inp.task)
        new = ctx.store.update_task(inp.task, lambda t: t.model_copy(update={"approved": ctx.stamp()}))
    return ToolResult([new.line()], [new])


def task_review(ctx: ToolContext, inp: TaskReviewInput) -> ToolResult:
    with ctx.store.lock():
        stamp = ctx.stamp(verdict=inp.verdict)
        if inp.plan is not None:
            _known_plan_record(ctx, inp.plan)
            plan = ctx.store.update_plan(inp.plan, lambda p: p.model_copy(update={"reviewed": stamp}))
            return ToolResult([plan.line()], [plan])
        assert inp.task is not None  # the input model requires one of them
        _known_task(ctx, inp.task)
        task = ctx.store.update_task(inp.task, lambda t: t.model_copy(update={"reviewed": stamp}))
    return ToolResult([task.line()], [task])


# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    input_model: type[_Input]
    run: Callable[[ToolContext, Any], ToolResult]
    summary: str
    kind: Literal["plan", "task"]

    def input_schema(self) -> dict[str, Any]:
        """The input's JSON schema under the seed's names (what MCP lists), its inputs in
        the seed's field order, the record acted on first."""
        schema = self.input_model.model_json_schema(by_alias=True)
        order = _ORDER.get(self.name) or (_PLAN_ORDER if self.kind == "plan" else _TASK_ORDER)
        props = schema["properties"]
        schema["properties"] = {k: props[k] for k in sorted(props, key=lambda k: order.index(k) if k in order else len(order))}
        return schema

    def inputs(self) -> list[tuple[str, bool, str]]:
        """(name, required, what it takes) for each input, in the schema's order."""
        schema = self.input_schema()
        required = set(schema.get("required", ()))
        return [(name, name in required, prop.get("description", "")) for name, prop in schema["properties"].items()]

    def hints(self) -> dict[str, str]:
        """Names that are not inputs but look like one → the seed's name (for refusals)."""
        out = {
            name: info.alias
            for name, info in self.input_model.model_fields.items()
            if info.alias is not None and info.alias != name
        }
        record = "plan" if self.kind == "plan" else "task"
        if record in self.input_model.model_fields and "id" not in self.input_model.model_fields:
            out["id"] = record
        return out

    @property
    def description(self) -> str:
        """The summary, then one line per input saying what it takes (the MCP listing)."""
        lines = [self.summary, "Inputs:"]
        for name, required, what in self.inputs():
            lines.append(f"- {name}{' (required)' if required else ''}: {what}")
        return "\n".join(lines)


# SPEC §4's field order, the record acted on first and then its title; task_list's
# filters in SPEC's order (status, approved, ready, by, since), then plan and session.
_PLAN_ORDER = ("plan", "title", "scope", "status", "refs", "goal")
_TASK_ORDER = (
    "task", "title", "status", "priority", "labels", "topic", "plan", "bot", "folder", "session",
    "blockedBy", "active", "note", "refs", "body", "verdict",
)  # fmt: skip
_ORDER = {"task_list": ("status", "approved", "ready", "by", "since", "plan", "session")}

_TASK_LINE = "Answers the task's line: `id status priority title`."
_PLAN_LINE = "Answers the plan's line: `id status title`."

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec("plan_create", PlanCreateInput, plan_create, f"Create a plan; it starts as a draft. {_PLAN_LINE}", "plan"),
        ToolSpec("plan_set", PlanSetInput, plan_set, f"Change a plan's title, scope, goal, status or refs; a field given as null is removed. {_PLAN_LINE}", "plan"),
        ToolSpec("plan_show", PlanIdInput, plan_show, "A plan's line (`id status title`), then one line per task of the plan (`id status priority title`).", "plan"),
        ToolSpec("plan_list", PlanListInput, plan_list, "One line per plan (`id status title`), filtered by status and scope.", "plan"),
        ToolSpec("task_add", TaskAddInput, task_add, f"Make a task; a new task is always todo. {_TASK_LINE}", "task"),
        ToolSpec("task_set", TaskSetInput, task_set, f"Change a task's fields or status; a field given as null is removed. Leaving doing clears active; with requireApproval, doing needs an approved task. {_TASK_LINE}", "task"),
        ToolSpec("task_list", TaskListInput, task_list, "One line per task (`id status priority title`), filtered by every input given.", "task"),
        ToolSpec("plan_approve", PlanIdInput, plan_approve, f"Stamp a plan approved (under a user directory: needs the task:approve grant). {_PLAN_LINE}", "plan"),
        ToolSpec("task_approve", TaskIdInput, task_approve, f"Stamp a task approved (under a user directory: needs the task:approve grant). {_TASK_LINE}", "task"),
        ToolSpec("task_review", TaskReviewInput, task_review, "Stamp a task (or a plan) reviewed, with an optional verdict; the status is not changed. Answers its line.", "task"),
    )
}

# Inputs the seed's table does not have, each refused with what to do instead.
_NOT_INPUTS: dict[tuple[str, str], str] = {
    ("task_add", "id"): "id is minted by the store, never taken as input.",
    ("plan_create", "id"): "id is minted by the store, never taken as input.",
    ("task_add", "status"): "status is not an input: a new task is always todo (change it with task_set).",
    ("plan_create", "status"): "status is not an input: a plan starts as a draft (change it with plan_set).",
    ("task_add", "source"): "source is not an input: it is written only on a task translated from an agent's own list.",
    ("task_set", "source"): "source is not an input: it is written only on a task translated from an agent's own list.",
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
    for key in args:
        if (name, key) in _NOT_INPUTS:
            raise ctx.refuse(_NOT_INPUTS[(name, key)])
    try:
        inp = spec.input_model.model_validate(args)
    except ValidationError as exc:
        statuses = PLAN_STATUSES if spec.kind == "plan" else TASK_STATUSES
        raise ctx.refuse(describe_validation_error(exc, statuses=statuses, hints=spec.hints())) from None
    try:
        return spec.run(ctx, inp)
    except RecordTooLarge as exc:  # reads refuse such a file: the write never happens
        raise ctx.refuse(str(exc)) from None

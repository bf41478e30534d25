"""The tools' inputs (docs/store.md, The tools): one pydantic model per tool, under the store's field names.

Why a module of its own: this is the tools' input table (docs/store.md, The tools) — which inputs each tool takes,
their bounds and the description the MCP listing shows a model — and it changes with
that table, not with what the tools do (core/store/tool_effects.py) or refuse
(core/store/tool_refusals.py).

Only the store's field names are accepted (`blockedBy`, never the Python name `blocked_by`);
unknown inputs are refused; one-line fields refuse a newline; strings and lists are
bounded so a record stays readable.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StringConstraints,
    field_validator,
    model_validator,
)

from planwatch.core.store.schema import (
    PLAN_ID_PATTERN,
    SCOPE_KINDS,
    TASK_ID_PATTERN,
    TITLE_MAX,
    PlanStatus,
    Scope,
    ScopeKind,
    TaskPriority,
    TaskStatus,
    Verdict,
    refuse_bare_number,
)

Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]
TaskId = Annotated[str, StringConstraints(pattern=TASK_ID_PATTERN)]
PlanId = Annotated[str, StringConstraints(pattern=PLAN_ID_PATTERN)]
Text = Annotated[str, StringConstraints(max_length=100_000)]
ShortText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
OneLine = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)]

ONE_LINE_FIELDS = ("title", "active", "note")
"""The one-line fields: a newline in them is refused, as in a title."""
MAX_LIST = 50
"""Lists (labels, refs, blockedBy) are bounded like strings: a record must stay readable."""
ShortTexts = Annotated[list[ShortText], Field(max_length=MAX_LIST)]
TaskIds = Annotated[list[TaskId], Field(max_length=MAX_LIST)]


class ToolInput(BaseModel):
    # Only the store's field names are inputs: `blockedBy`, never the Python name `blocked_by`.
    model_config = ConfigDict(
        extra="forbid", validate_by_alias=True, validate_by_name=False, frozen=True, defer_build=True
    )

    @field_validator(*ONE_LINE_FIELDS, mode="after", check_fields=False)
    @classmethod
    def _one_line(cls, value: str | None, info: Any) -> str | None:
        if value is not None and ("\n" in value or "\r" in value):
            raise ValueError(f"{info.field_name} must be one line")
        return value


_SCOPE_HELP = "{kind: folder|bot|session, <kind>: value}, e.g. {kind: folder, folder: /srv/work}"


class ScopeInput(ToolInput):
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


class ScopeFilter(ToolInput):
    """plan_list's scope filter: a kind, and optionally its value."""

    kind: ScopeKind = Field(description="folder, bot or session.")
    folder: str | None = Field(None, description="Only this folder (kind folder).")
    bot: str | None = Field(None, description="Only this bot (kind bot).")
    session: str | None = Field(None, description="Only this session (kind session).")


_PLAN_ID_HELP = "a plan id, p<n> (see plan_list)"
_TASK_ID_HELP = "a task id, t<n> (see task_list)"
_REFS = "References (links, paths, issue ids): a list of text."


class PlanCreateInput(ToolInput):
    title: Title = Field(description="The plan's title, one line.")
    scope: ScopeInput | None = Field(None, description=f"What the plan is about: {_SCOPE_HELP}.")
    goal: Text | None = Field(None, description="The plan's goal, Markdown (the record's body).")
    refs: ShortTexts | None = Field(None, description=_REFS)


class PlanSetInput(ToolInput):
    plan: PlanId = Field(description=f"The plan to change: {_PLAN_ID_HELP}.")
    title: Title | None = Field(None, description="A new title, one line.")
    scope: ScopeInput | None = Field(None, description=f"What the plan is about: {_SCOPE_HELP}; null removes it.")
    goal: Text | None = Field(None, description="The plan's goal, Markdown; null empties it.")
    status: PlanStatus | None = Field(None, description="draft, active, done or dropped.")
    refs: ShortTexts | None = Field(None, description=_REFS + " Null removes them.")


class PlanIdInput(ToolInput):
    plan: PlanId = Field(description=f"The plan: {_PLAN_ID_HELP}.")


class PlanListInput(ToolInput):
    status: PlanStatus | None = Field(None, description="Only plans with this status: draft, active, done or dropped.")
    scope: ScopeFilter | None = Field(
        None, description="Only plans with this scope: {kind}, or {kind, <kind>: value} for one folder, bot or session."
    )


_SET_NULL = " Null removes it."


class TaskFields(ToolInput):
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
        None,
        description='What is being done while the task is doing, one line ("Running the tests"); cleared when it leaves doing.',
    )
    note: OneLine | None = Field(None, description="A short note, one line.")
    refs: ShortTexts | None = Field(None, description=_REFS)
    body: Text | None = Field(None, description="The task's long text, Markdown (the record's body).")


class TaskAddInput(TaskFields):
    title: Title = Field(description="The task's title, one line.")
    session: ShortText | None = Field(
        None, description="The id of the session the task belongs to; when not given, the session this call is made in."
    )


class TaskSetInput(TaskFields):
    task: TaskId = Field(description=f"The task to change: {_TASK_ID_HELP}.")
    title: Title | None = Field(None, description="A new title, one line.")
    status: TaskStatus | None = Field(None, description="todo, doing, blocked, review, done or dropped.")


class TaskIdInput(ToolInput):
    task: TaskId = Field(description=f"The task: {_TASK_ID_HELP}.")


class TaskReviewInput(ToolInput):
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


class TaskListInput(ToolInput):
    status: TaskStatus | list[TaskStatus] | None = Field(
        None, description="Only tasks with this status (or any of a list): todo, doing, blocked, review, done, dropped."
    )
    # Strict: true or false as JSON writes them; "yes" or 1 is refused, as every other
    # input of the wrong type is (pydantic's lax mode would read them as true).
    approved: StrictBool | None = Field(
        None, description="true: only tasks with an approved stamp; false: only tasks without."
    )
    ready: StrictBool | None = Field(
        None,
        description="true: only tasks ready to start (todo, every blockedBy done, approved when approval is required); false: the others.",
    )
    by: ShortText | None = Field(None, description="Only tasks with a stamp by this person.")
    since: datetime | date | None = Field(
        None,
        description="Only tasks with a stamp at or after this ISO 8601 date or date and time (with by: the same stamp).",
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

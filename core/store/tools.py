"""The ten store tools, shared by the CLI, the app and the MCP server (docs/store.md, The tools).

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

Inputs carry the store's field names only (docs/store.md, The tools): the record a call acts on is `plan`
(plan_set, plan_show, plan_approve) or `task` (task_set, task_approve, task_review);
fields are the record's own keys (`blockedBy`, never `blocked_by`). Every input model
says what each input takes (`Field(description=…)`), which is what the MCP listing
shows a model.

Effects (beyond the obvious field changes), all stamps `{at, by, in}` from the Caller:
- plan_create: `created`. A plan starts as a draft (no status input).
- plan_set: first move to done/dropped stamps `finished` (once).
- task_add: `created`. A new task is always todo (no status input); `session` defaults
  to the session the call was made in; `source` is never an input (only the translation of an agent's list
  sets it: docs/store.md, Agents' lists in the store).
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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ValidationError

from planwatch.core.settings import Settings
from planwatch.core.store.error_wording import describe_validation_error
from planwatch.core.store.errors import RecordTooLarge
from planwatch.core.store.identity import Caller
from planwatch.core.store.schema import PLAN_STATUSES, TASK_STATUSES, one_of
from planwatch.core.store.store import Store
from planwatch.core.store.team import effective
from planwatch.core.store.tool_effects import (
    ToolResult,
    plan_approve,
    plan_create,
    plan_list,
    plan_set,
    plan_show,
    task_add,
    task_approve,
    task_list,
    task_review,
    task_set,
)
from planwatch.core.store.tool_inputs import (
    PlanCreateInput,
    PlanIdInput,
    PlanListInput,
    PlanSetInput,
    TaskAddInput,
    TaskIdInput,
    TaskListInput,
    TaskReviewInput,
    TaskSetInput,
    ToolInput,
)
from planwatch.core.store.tool_refusals import ToolContext, ToolRefused

__all__ = ["TOOLS", "TOOL_NAMES", "ToolSpec", "run_tool"]

TOOL_NAMES: tuple[str, ...] = (
    "plan_create", "plan_set", "plan_show", "plan_list",
    "task_add", "task_set", "task_list",
    "plan_approve", "task_approve", "task_review",
)  # fmt: skip


@dataclass(frozen=True)
class ToolSpec:
    """One tool of the store: its name, input model, handler, summary and kind."""

    name: str
    input_model: type[ToolInput]
    run: Callable[[ToolContext, Any], ToolResult]
    summary: str
    kind: Literal["plan", "task"]

    def input_schema(self) -> dict[str, Any]:
        """The input's JSON schema under the store's field names (what MCP lists),
        its inputs in the records' field order, the record acted on first."""
        schema = self.input_model.model_json_schema(by_alias=True)
        order = _ORDER.get(self.name) or (_PLAN_ORDER if self.kind == "plan" else _TASK_ORDER)
        props = schema["properties"]
        schema["properties"] = {
            k: props[k] for k in sorted(props, key=lambda k: order.index(k) if k in order else len(order))
        }
        return schema

    def inputs(self) -> list[tuple[str, bool, str]]:
        """(name, required, what it takes) for each input, in the schema's order."""
        schema = self.input_schema()
        required = set(schema.get("required", ()))
        return [(name, name in required, prop.get("description", "")) for name, prop in schema["properties"].items()]

    def hints(self) -> dict[str, str]:
        """Names that are not inputs but look like one → the input's real name (for refusals)."""
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


# docs/store.md's field order, the record acted on first and then its title; task_list's
# filters in the order docs/store.md lists them (status, approved, ready, by, since), then plan and session.
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
        ToolSpec(
            "plan_create", PlanCreateInput, plan_create, f"Create a plan; it starts as a draft. {_PLAN_LINE}", "plan"
        ),
        ToolSpec(
            "plan_set",
            PlanSetInput,
            plan_set,
            f"Change a plan's title, scope, goal, status or refs; a field given as null is removed. {_PLAN_LINE}",
            "plan",
        ),
        ToolSpec(
            "plan_show",
            PlanIdInput,
            plan_show,
            "A plan's line (`id status title`), then one line per task of the plan (`id status priority title`).",
            "plan",
        ),
        ToolSpec(
            "plan_list",
            PlanListInput,
            plan_list,
            "One line per plan (`id status title`), filtered by status and scope.",
            "plan",
        ),
        ToolSpec("task_add", TaskAddInput, task_add, f"Make a task; a new task is always todo. {_TASK_LINE}", "task"),
        ToolSpec(
            "task_set",
            TaskSetInput,
            task_set,
            f"Change a task's fields or status; a field given as null is removed. Leaving doing clears active; with requireApproval, doing needs an approved task. {_TASK_LINE}",
            "task",
        ),
        ToolSpec(
            "task_list",
            TaskListInput,
            task_list,
            "One line per task (`id status priority title`), filtered by every input given.",
            "task",
        ),
        ToolSpec(
            "plan_approve",
            PlanIdInput,
            plan_approve,
            f"Stamp a plan approved (under a user directory: needs the task:approve grant). {_PLAN_LINE}",
            "plan",
        ),
        ToolSpec(
            "task_approve",
            TaskIdInput,
            task_approve,
            f"Stamp a task approved (under a user directory: needs the task:approve grant). {_TASK_LINE}",
            "task",
        ),
        ToolSpec(
            "task_review",
            TaskReviewInput,
            task_review,
            "Stamp a task (or a plan) reviewed, with an optional verdict; the status is not changed. Answers its line.",
            "task",
        ),
    )
}

# Inputs the tools do not have, each refused with what to do instead.
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
    # A shared store's team policy says requireApproval once for every host (core/store/team.py).
    ctx = ToolContext(store, effective(settings, store.root), caller, now or (lambda: datetime.now(UTC)), name)
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ctx.refuse("input must be a mapping of fields.")
    for key in args:
        if (name, key) in _NOT_INPUTS:
            raise ctx.refuse(_NOT_INPUTS[(name, key)])
    args, moved = _renumbered_input(store, caller, args)
    try:
        inp = spec.input_model.model_validate(args)
    except ValidationError as exc:
        statuses = PLAN_STATUSES if spec.kind == "plan" else TASK_STATUSES
        raise ctx.refuse(describe_validation_error(exc, statuses=statuses, hints=spec.hints())) from None
    try:
        result = spec.run(ctx, inp)
        for old, new in moved:
            result.notes.append(f"{old} is now {new}: a sync renumbered it; use {new} from now on.")
        return result
    except RecordTooLarge as exc:  # reads refuse such a file: the write never happens
        raise ctx.refuse(str(exc)) from None


def _renumbered_input(
    store: Store, caller: Caller, args: dict[str, Any]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The call's ids as the store now numbers them, and each (old, new) moved: a sync of a
    shared store renumbered a provisional id, and the call comes from the session that
    was told the old one. Every id the call names counts: the record acted on (`task`,
    `plan`) and the ones it points at (`plan`, `blockedBy`)."""
    if caller.session is None or not (store.root / ".sync" / "aliases.json").is_file():
        return args, []
    from planwatch.core.sync.aliases import resolve

    moved: list[tuple[str, str]] = []

    def renamed(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        new = resolve(store.root, value, caller.session)
        if new is None or new == value:
            return value
        if (value, new) not in moved:
            moved.append((value, new))
        return new

    out = dict(args)
    for key in ("task", "plan"):
        if key in out:
            out[key] = renamed(out[key])
    if isinstance(out.get("blockedBy"), list):
        out["blockedBy"] = [renamed(b) for b in out["blockedBy"]]
    return out, moved

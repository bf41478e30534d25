"""What a tool refuses before it acts, and the sentence it says (docs/store.md, The tools).

Why a module of its own: the wording of refusals (`Invalid task_set input: …`) and the
checks behind them — a record that is unknown or whose file is broken, blockers that are
unknown or form a cycle, approval before doing, the approve grant — change with what
callers are told, apart from the tools' effects (core/store/tool_effects.py).

- `ToolRefused(message)`: a refusal; `message` is the sentence to show.
- `ToolContext`: what every tool is handed (store, settings, caller, clock, its name);
  `ctx.refuse(reason)` builds the refusal in the tool's name.
- `known_task`, `known_plan_record`, `known_plan`, `known_blockers`, `unknown_record`,
  `need_approval_to_start`, `need_grant`, `need_read`: each raises the refusal or returns quietly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from planwatch.core.settings import Settings
from planwatch.core.store import grants
from planwatch.core.store.approvals import approvals_of
from planwatch.core.store.identity import Caller
from planwatch.core.store.recordfile import RecordProblem, parse_record_file
from planwatch.core.store.schema import PlanRecord, Stamp, TaskRecord
from planwatch.core.store.store import Store


class ToolRefused(Exception):
    """A tool refused its input or its caller; `message` is the sentence to show."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ToolContext:
    """What a tool call runs with: the store, the settings, who calls, the clock, the tool's name."""

    store: Store
    settings: Settings
    caller: Caller
    now: Callable[[], datetime]
    name: str

    def refuse(self, reason: str) -> ToolRefused:
        return ToolRefused(f"Invalid {self.name} input: {reason}")

    def stamp(self, *, verdict: str | None = None) -> Stamp:
        return self.caller.stamp(self.now(), verdict=verdict)


def _broken_file(ctx: ToolContext, record_id: str) -> str | None:
    """What is wrong with the file of `record_id`, when it exists and is not a valid record."""
    path = ctx.store.task_path(record_id) if record_id.startswith("t") else ctx.store.plan_path(record_id)
    found = parse_record_file(path)
    return found.message if isinstance(found, RecordProblem) else None


def unknown_record(ctx: ToolContext, name: str, record_id: str) -> ToolRefused:
    """`<name> must match the id of a known task (see task_list).`, or what is wrong with its file."""
    problem = _broken_file(ctx, record_id)
    if problem is not None:
        return ctx.refuse(f"{name} {record_id} is not a valid record ({problem}); fix or remove the file.")
    kind, lister = ("task", "task_list") if record_id.startswith("t") else ("plan", "plan_list")
    return ctx.refuse(f"{name} must match the id of a known {kind} (see {lister}).")


def known_plan(ctx: ToolContext, plan_id: str | None) -> None:
    if plan_id is not None and ctx.store.read_plan(plan_id) is None:
        raise unknown_record(ctx, "plan", plan_id)


def known_blockers(ctx: ToolContext, blockers: list[str] | None, own_id: str | None) -> None:
    for blocker in blockers or ():
        if blocker == own_id:
            raise ctx.refuse("blockedBy must not name the task itself.")
        if ctx.store.read_task(blocker) is None:
            problem = _broken_file(ctx, blocker)
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


def known_task(ctx: ToolContext, task_id: str) -> TaskRecord:
    rec = ctx.store.read_task(task_id)
    if rec is None:
        raise unknown_record(ctx, "task", task_id)
    return rec


def known_plan_record(ctx: ToolContext, plan_id: str) -> PlanRecord:
    rec = ctx.store.read_plan(plan_id)
    if rec is None:
        raise unknown_record(ctx, "plan", plan_id)
    return rec


def need_approval_to_start(ctx: ToolContext, rec: TaskRecord) -> None:
    approvals = approvals_of(ctx.store)
    if not grants.may_start(ctx.settings, rec, approvals):
        why = approvals.why_not(rec)
        said = f": {why}" if why else ""
        raise ctx.refuse(f"status doing needs {rec.id} approved first{said} (requireApproval is on; see task_approve).")


def need_read(ctx: ToolContext) -> None:
    """The tools that read plans and tasks need the grant the plan channel needs: what a
    caller may not subscribe to, it may not list or show either."""
    root = ctx.store.root
    if not grants.holds(ctx.settings, ctx.caller, grants.SESSION_READ, root):
        raise ToolRefused(
            grants.refusal(ctx.name, "reading plans and tasks", grants.SESSION_READ, ctx.caller, ctx.settings, root)
        )


def need_grant(ctx: ToolContext) -> None:
    root = ctx.store.root
    if not grants.holds(ctx.settings, ctx.caller, grants.TASK_APPROVE, root):
        raise ToolRefused(grants.refusal(ctx.name, "approving", grants.TASK_APPROVE, ctx.caller, ctx.settings, root))

"""What clients see of a session in the store (SPEC §6): its todo lines and open count.

Pure functions over records already read (a store snapshot or any iterables of
`TaskRecord` / `PlanRecord`); nothing here touches files.

A session's tasks are the tasks of its plans (scope `{kind: session, session: <id>}`)
and the tasks whose `session` field names it, each once, in id-number order.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.store.schema import PlanRecord, TaskRecord, id_number
from core.text import safe_text

OPEN_KEY = "ahpd.tasks"
"""The `_meta` key that carries a session's open count."""

CLOSED_STATUSES = frozenset({"done", "dropped"})


def session_plan_ids(session_id: str, plans: Iterable[PlanRecord]) -> set[str]:
    """Ids of the plans whose scope is this session."""
    return {
        plan.id
        for plan in plans
        if plan.scope is not None and plan.scope.kind == "session" and plan.scope.value == session_id
    }


def session_tasks(
    session_id: str, tasks: Iterable[TaskRecord], plans: Iterable[PlanRecord]
) -> list[TaskRecord]:
    """The session's tasks: of its plans, or naming it; no duplicates, by id number."""
    plan_ids = session_plan_ids(session_id, plans)
    chosen = {
        task.id: task
        for task in tasks
        if task.session == session_id or (task.plan is not None and task.plan in plan_ids)
    }
    return [chosen[key] for key in sorted(chosen, key=id_number)]


def todo_line(task: TaskRecord) -> str:
    """`- [x] <title>` for a done task, `- [ ] <title>` for any other status."""
    mark = "x" if task.status == "done" else " "
    # A hand-edited title may hold a newline or an escape; one task stays one safe line.
    return f"- [{mark}] {safe_text(task.title, single_line=True)}"


def todo_lines(
    session_id: str, tasks: Iterable[TaskRecord], plans: Iterable[PlanRecord]
) -> list[str]:
    """The session's todo list, one line per task."""
    return [todo_line(task) for task in session_tasks(session_id, tasks, plans)]


def open_count(
    session_id: str, tasks: Iterable[TaskRecord], plans: Iterable[PlanRecord]
) -> int | None:
    """Open tasks of the session (every status but done and dropped); None when no task names it."""
    found = session_tasks(session_id, tasks, plans)
    if not found:
        return None
    return sum(task.status not in CLOSED_STATUSES for task in found)


def session_meta(
    session_id: str, tasks: Iterable[TaskRecord], plans: Iterable[PlanRecord]
) -> dict[str, dict[str, int]]:
    """The session's `_meta` part: `{"ahpd.tasks": {"open": N}}`, or `{}` when no task names it."""
    count = open_count(session_id, tasks, plans)
    return {} if count is None else {OPEN_KEY: {"open": count}}


def open_counts(tasks: Iterable[TaskRecord], plans: Iterable[PlanRecord]) -> dict[str, int]:
    """Open count of every session some task names (directly or through its plan)."""
    tasks = list(tasks)
    by_plan: dict[str, str] = {}
    for plan in plans:
        if plan.scope is not None and plan.scope.kind == "session":
            by_plan[plan.id] = plan.scope.value
    counts: dict[str, int] = {}
    for task in tasks:
        sessions = {task.session} if task.session else set()
        if task.plan is not None and task.plan in by_plan:
            sessions.add(by_plan[task.plan])
        is_open = task.status not in CLOSED_STATUSES
        for session in sessions:
            counts[session] = counts.get(session, 0) + is_open
    return counts

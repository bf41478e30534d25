"""What clients see of a session in the store (docs/store.md, What clients see): its todo lines and open count.

Pure functions over a `StoreSnapshot` (`Store(root).load()`); nothing here touches files.

A session's tasks are the tasks of its plans (scope `{kind: session, session: <id>}`)
and the tasks whose `session` field names it, each once, in id-number order.
"""

from __future__ import annotations

from planwatch.core.store.schema import TaskRecord, id_number
from planwatch.core.store.snapshot import StoreSnapshot
from planwatch.core.text import safe_text

OPEN_KEY = "ahpd.tasks"
"""The `_meta` key that carries a session's open count."""

CLOSED_STATUSES = frozenset({"done", "dropped"})


def session_plan_ids(snapshot: StoreSnapshot, session_id: str) -> set[str]:
    """Ids of the plans whose scope is this session."""
    return {
        plan.id
        for plan in snapshot.plans.values()
        if plan.scope is not None and plan.scope.kind == "session" and plan.scope.value == session_id
    }


def session_ids(snapshot: StoreSnapshot) -> set[str]:
    """Every session the store names: a plan's scope, or a task's `session` field."""
    named = {
        plan.scope.value
        for plan in snapshot.plans.values()
        if plan.scope is not None and plan.scope.kind == "session" and plan.scope.value
    }
    named.update(task.session for task in snapshot.tasks.values() if task.session)
    return named


def session_tasks(snapshot: StoreSnapshot, session_id: str) -> list[TaskRecord]:
    """The session's tasks: of its plans, or naming it; no duplicates, by id number."""
    plan_ids = session_plan_ids(snapshot, session_id)
    chosen = [
        task
        for task in snapshot.tasks.values()
        if task.session == session_id or (task.plan is not None and task.plan in plan_ids)
    ]
    return sorted(chosen, key=lambda task: id_number(task.id))


def todo_line(task: TaskRecord) -> str:
    """`- [x] <title>` for a done task, `- [ ] <title>` for any other status."""
    mark = "x" if task.status == "done" else " "
    # A hand-edited title may hold a newline or an escape; one task stays one safe line.
    return f"- [{mark}] {safe_text(task.title, single_line=True)}"


def todo_lines(snapshot: StoreSnapshot, session_id: str) -> list[str]:
    """The session's todo list, one line per task."""
    return [todo_line(task) for task in session_tasks(snapshot, session_id)]


def open_count(snapshot: StoreSnapshot, session_id: str) -> int | None:
    """Open tasks of the session (every status but done and dropped); None when no task names it."""
    found = session_tasks(snapshot, session_id)
    if not found:
        return None
    return sum(task.status not in CLOSED_STATUSES for task in found)


def session_meta(snapshot: StoreSnapshot, session_id: str) -> dict[str, dict[str, int]]:
    """The session's `_meta` part: `{"ahpd.tasks": {"open": N}}`, or `{}` when no task names it."""
    count = open_count(snapshot, session_id)
    return {} if count is None else {OPEN_KEY: {"open": count}}


def open_counts(snapshot: StoreSnapshot) -> dict[str, int]:
    """Open count of every session some task names (directly or through its plan).

    A session absent from the answer has no task: show no count for it.
    """
    plan_session = {
        plan.id: plan.scope.value
        for plan in snapshot.plans.values()
        if plan.scope is not None and plan.scope.kind == "session"
    }
    counts: dict[str, int] = {}
    for task in snapshot.tasks.values():
        sessions = {task.session} if task.session else set()
        if task.plan is not None and task.plan in plan_session:
            sessions.add(plan_session[task.plan])
        is_open = task.status not in CLOSED_STATUSES
        for session in sessions:
            counts[session] = counts.get(session, 0) + int(is_open)
    return counts

"""The Claude Code task correlator: TaskCreate / TaskUpdate calls ↔ their results.

The rules are in docs/reading.md, Claude Code. A call alone proves nothing; only its matching, successful
result does:
- `tool_use.id` is matched with `tool_result.tool_use_id`;
- a task is created only by a successful result returning `toolUseResult.task.id`;
- an update counts only with `success: true`; the status comes from the result's
  `statusChange.to`, or from `input.status` when `updatedFields` names `status`; the
  subject changes only when `updatedFields` names `subject`; anything else
  (`blockedBy`, …) changes nothing;
- failed (`success: false`, with or without `is_error`), unconfirmed (no result yet),
  unrelated (unknown call id, or a result for another task id) and ambiguous (several
  results sharing one `toolUseResult`) results are ignored;
- at most `MAX_PENDING` calls wait for results (oldest evicted), holding only ids,
  subjects and statuses.
The replay keeps at most 100 known tasks and never invents one from an update.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Literal

from planwatch.core.model import LIST_STATUSES, pickled_by_slots, read_status
from planwatch.core.transcripts.events import PlanEvent, TaskCreated, TaskDeleted, TaskUpdated
from planwatch.core.transcripts.reader import hold

TASK_CREATE = "TaskCreate"
TASK_UPDATE = "TaskUpdate"
TOOL_NAMES: tuple[str, ...] = (TASK_CREATE, TASK_UPDATE)
MAX_PENDING = 100


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class _Request:
    """One task call, as its input asked (the result decides whether it took effect)."""

    kind: Literal["create", "update"]
    group: str
    task_id: str | None = None  # update: the task named by the call
    subject: str | None = None  # create: input.subject; update: a new subject, if sent
    status: str | None = None  # update: input.status, if sent


def task_id_of(raw: Any) -> str | None:
    """Task ids compared as strings: a model may send `taskId` as a number."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, str) and raw:
        return raw
    if isinstance(raw, int):
        return str(raw)
    return None


class TaskCorrelator:
    """Holds TaskCreate/TaskUpdate calls until their results say what really happened."""

    def __init__(self) -> None:
        self._pending: OrderedDict[str, _Request] = OrderedDict()

    @property
    def pending_ids(self) -> tuple[str, ...]:
        return tuple(self._pending)

    def __contains__(self, call_id: object) -> bool:
        return call_id in self._pending

    def on_call(self, call_id: str, name: str, tool_input: Any, group: str) -> bool:
        """Remember a task call. Returns False when it is not a task call of known shape."""
        if not isinstance(tool_input, dict) or not call_id:
            return False
        subject = tool_input.get("subject")
        subject = subject if isinstance(subject, str) else None
        if name == TASK_CREATE:
            request = _Request("create", group, subject=subject)
        elif name == TASK_UPDATE:
            task_id = task_id_of(tool_input.get("taskId"))
            if task_id is None:
                return False
            status = tool_input.get("status")
            request = _Request(
                "update",
                group,
                task_id=task_id,
                subject=subject,
                status=status if isinstance(status, str) else None,
            )
        else:
            return False
        hold(self._pending, call_id, request, MAX_PENDING)
        return True

    def on_result(self, call_id: str, *, is_error: bool, result: Any, ambiguous: bool = False) -> list[PlanEvent]:
        """The events a result confirms (often none). The call is settled either way."""
        request = self._pending.pop(call_id, None)
        if request is None or is_error or ambiguous or not isinstance(result, dict):
            return []
        if request.kind == "create":
            return self._created(request, result)
        return self._updated(request, result)

    @staticmethod
    def _created(request: _Request, result: dict[str, Any]) -> list[PlanEvent]:
        task = result.get("task")
        if not isinstance(task, dict):
            return []
        task_id = task_id_of(task.get("id"))
        if task_id is None:
            return []
        subject = task.get("subject")
        if not isinstance(subject, str):
            subject = request.subject
        if subject is None:  # nothing to show: not a task we can list
            return []
        return [TaskCreated(group=request.group, task_id=task_id, subject=subject)]

    @staticmethod
    def _updated(request: _Request, result: dict[str, Any]) -> list[PlanEvent]:
        assert request.task_id is not None
        if result.get("success") is not True:
            return []
        if "taskId" in result and task_id_of(result.get("taskId")) != request.task_id:
            return []  # a result about another task: unrelated
        fields = result.get("updatedFields")
        fields = [f for f in fields if isinstance(f, str)] if isinstance(fields, list) else []
        change = result.get("statusChange")
        to = change.get("to") if isinstance(change, dict) else None
        if not isinstance(to, str):
            to = request.status if "status" in fields else None
        if to == "deleted" or "deleted" in fields:
            return [TaskDeleted(group=request.group, task_id=request.task_id)]
        subject = request.subject if "subject" in fields else None
        status = read_status(to, LIST_STATUSES) if to is not None else None
        if status is None and subject is None:
            return []  # dependency-only (blockedBy, …) or nothing confirmed
        return [TaskUpdated(group=request.group, task_id=request.task_id, status=status, subject=subject)]

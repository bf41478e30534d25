"""A record ↔ the mapping its frontmatter holds, and a record as JSON.

Why a module of its own: which keys a file holds, in which order, how stamps and lists
are written and what a loaded mapping must be to count as a record change with the file
format (docs/store.md's field order), apart from the records' own rules
(core/store/schema.py) and the YAML text (core/store/frontmatter.py, core/store/record_render.py).

- `task_from_frontmatter(data, body)`, `plan_from_frontmatter(data, body)` — validate a
  loaded frontmatter mapping; raise `RecordInvalid(reason)` with a readable reason.
- `task_to_frontmatter(rec)`, `plan_to_frontmatter(rec)` — the ordered mapping to write
  (absent optional fields omitted; stamps' `at` as timezone-aware datetimes).
- `LIST_FIELDS`: the list fields, written as `[]` when empty.
- `task_json(rec)`, `plan_json(rec)` — a record as JSON (the plan channel, `--json`):
  its fields in the file's order, stamps' `at` as `format_stamp` writes them, and the
  body (`body` / `goal`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from planwatch.core.store.error_wording import describe_validation_error
from planwatch.core.store.schema import (
    PLAN_FIELDS,
    PLAN_STAMPS,
    PLAN_STATUSES,
    TASK_FIELDS,
    TASK_STAMPS,
    TASK_STATUSES,
    PlanRecord,
    RecordInvalid,
    Scope,
    StampTime,
    TaskRecord,
    format_stamp,
)

__all__ = [
    "LIST_FIELDS",
    "plan_from_frontmatter",
    "plan_json",
    "plan_to_frontmatter",
    "task_from_frontmatter",
    "task_json",
    "task_to_frontmatter",
]


def _stamps_from(data: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        if name in data and data[name] is not None:
            value = data[name]
            if not isinstance(value, dict):
                raise RecordInvalid(f"{name} must be a stamp {{at, by, in}}.")
            out[name] = value
    return out


def _validate(model: type[BaseModel], values: dict[str, Any], statuses: tuple[str, ...]) -> Any:
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise RecordInvalid(describe_validation_error(exc, statuses=statuses)) from None


def _fields_of(data: object, fields: Any, stamps: Any, below: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A loaded frontmatter mapping split into the record's known fields (stamps read)
    and the hand-written others, which are kept; `below` is the field that lives in the
    body and may not be in the frontmatter."""
    if not isinstance(data, dict):
        raise RecordInvalid("frontmatter must be a mapping of fields.")
    for key in data:
        if not isinstance(key, str):
            raise RecordInvalid(f"field name {key!r} must be text.")
    values: dict[str, Any] = {k: v for k, v in data.items() if k in fields and v is not None}
    extra = {k: v for k, v in data.items() if k not in fields}
    if below in extra:
        raise RecordInvalid(f"{below} belongs below the frontmatter, not in it.")
    values.update(_stamps_from(data, stamps))
    return values, extra


def task_from_frontmatter(data: object, body: str) -> TaskRecord:
    """Validate a loaded frontmatter mapping as a task; raise `RecordInvalid` when it is not one."""
    values, extra = _fields_of(data, TASK_FIELDS, TASK_STAMPS, "body")
    if "source" in values and not isinstance(values["source"], dict):
        raise RecordInvalid("source must be a mapping {tool, id}.")
    values["body"] = body
    values["extra"] = extra
    return _validate(TaskRecord, values, TASK_STATUSES)


def plan_from_frontmatter(data: object, body: str) -> PlanRecord:
    """Validate a loaded frontmatter mapping as a plan; raise `RecordInvalid` when it is not one."""
    values, extra = _fields_of(data, PLAN_FIELDS, PLAN_STAMPS, "goal")
    if "scope" in values:
        values["scope"] = Scope.from_yaml(values["scope"])
    values["goal"] = body
    values["extra"] = extra
    return _validate(PlanRecord, values, PLAN_STATUSES)


def task_to_frontmatter(rec: TaskRecord) -> dict[str, Any]:
    """The ordered mapping written for a task, in docs/store.md's field order: the lists
    (`labels`, `blockedBy`, `refs`) always, empty as `[]`; other absent fields left out."""
    out: dict[str, Any] = {"id": rec.id, "title": rec.title, "status": rec.status, "priority": rec.priority}
    out["labels"] = list(rec.labels)
    for name in ("topic", "plan", "bot", "folder", "session"):
        if (value := getattr(rec, name)) is not None:
            out[name] = value
    out["blockedBy"] = list(rec.blocked_by)
    for name in ("active", "note"):
        if (value := getattr(rec, name)) is not None:
            out[name] = value
    out["refs"] = list(rec.refs)
    if rec.source is not None:
        out["source"] = rec.source.to_yaml()
    for name, stamp in rec.stamps().items():
        out[name] = stamp.to_yaml()
    return out


def plan_to_frontmatter(rec: PlanRecord) -> dict[str, Any]:
    """The ordered mapping written for a plan, in docs/store.md's field order; `refs` always
    (empty as `[]`), other absent fields left out."""
    out: dict[str, Any] = {"id": rec.id}
    if rec.scope is not None:
        out["scope"] = rec.scope.to_yaml()
    out["title"] = rec.title
    out["status"] = rec.status
    out["refs"] = list(rec.refs)
    for name, stamp in rec.stamps().items():
        out[name] = stamp.to_yaml()
    return out


LIST_FIELDS: tuple[str, ...] = ("labels", "blockedBy", "refs")
"""The list fields, written as `[]` when empty (a hand-written file that leaves one out
keeps it out while it is empty)."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime):
        return format_stamp(value)
    if isinstance(value, StampTime):
        return str(value)
    return value


def task_json(rec: TaskRecord) -> dict[str, Any]:
    """A task as JSON: its frontmatter fields (stamps included) and its body."""
    out: dict[str, Any] = _jsonable(task_to_frontmatter(rec))
    out["body"] = rec.body
    return out


def plan_json(rec: PlanRecord) -> dict[str, Any]:
    """A plan as JSON: its frontmatter fields (stamps included) and its goal."""
    out: dict[str, Any] = _jsonable(plan_to_frontmatter(rec))
    out["goal"] = rec.goal
    return out

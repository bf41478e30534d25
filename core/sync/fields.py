"""A record as a flat mapping of fields, and back: what the change log speaks in.

Why a module of its own: the merge works on fields (one value each, JSON-able), never on
file text, so every host renders the same bytes from the same fields. A record's
fields are its frontmatter keys (`blockedBy`, stamps as `{at, by, in}` with `at` in the
store's form), `body` (a plan's `goal`), and each hand-added unknown key as `x:<key>`.
An absent optional field is None; a list field is a list.

- `fields_of(rec)`, `record_of(kind, record_id, fields)`: the two directions;
  `record_of(k, i, fields_of(rec)) == rec` for every valid record.
- `render(kind, record_id, fields)`: the file's text, rendered from scratch (no hand
  layout kept: the same text on every host).
- The field classes the merge and the capture share: `lww_fields(kind)`, `set_fields`,
  `text_field`, `ONCE_STAMPS`, `LATEST_STAMPS`.
"""

from __future__ import annotations

from typing import Any

from planwatch.core.store.record_mapping import (
    plan_from_frontmatter,
    plan_json,
    task_from_frontmatter,
    task_json,
)
from planwatch.core.store.record_render import render_record
from planwatch.core.store.schema import PLAN_FIELDS, TASK_FIELDS, PlanRecord, TaskRecord

Record = TaskRecord | PlanRecord

TASK_LWW: tuple[str, ...] = (
    "title", "priority", "topic", "plan", "bot", "folder", "session", "active", "note", "source",
)  # fmt: skip
PLAN_LWW: tuple[str, ...] = ("scope", "title")
TASK_SETS: tuple[str, ...] = ("labels", "blockedBy", "refs")
PLAN_SETS: tuple[str, ...] = ("refs",)
ONCE_STAMPS: tuple[str, ...] = ("started", "finished")
"""Stamped once: the earliest of concurrent ones stays."""
LATEST_STAMPS: tuple[str, ...] = ("reviewed",)
"""Each one replaces the one before: the latest stays."""
EXTRA = "x:"
"""The prefix of a hand-added key's field (`x:estimate`)."""


def kind_of_record(rec: Record) -> str:
    return "task" if isinstance(rec, TaskRecord) else "plan"


def lww_fields(kind: str) -> tuple[str, ...]:
    return TASK_LWW if kind == "task" else PLAN_LWW


def set_fields(kind: str) -> tuple[str, ...]:
    return TASK_SETS if kind == "task" else PLAN_SETS


def text_field(kind: str) -> str:
    return "body" if kind == "task" else "goal"


def _all_fields(kind: str) -> tuple[str, ...]:
    return (TASK_FIELDS if kind == "task" else PLAN_FIELDS)[1:] + (text_field(kind),)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        from planwatch.core.store.schema import format_stamp

        return format_stamp(value)
    return value


def fields_of(rec: Record) -> dict[str, Any]:
    """Every field of `rec` (None for an absent one), its hand-added keys as `x:<key>`."""
    kind = kind_of_record(rec)
    data = task_json(rec) if isinstance(rec, TaskRecord) else plan_json(rec)  # type: ignore[arg-type]
    out: dict[str, Any] = {name: data.get(name) for name in _all_fields(kind)}
    for name in set_fields(kind):
        out[name] = list(out[name] or [])
    for key, value in rec.extra.items():
        out[EXTRA + str(key)] = _plain(value)
    return out


def record_of(kind: str, record_id: str, fields: dict[str, Any]) -> Record:
    """The record the fields describe; raises `RecordInvalid` when they make none."""
    mapping: dict[str, Any] = {"id": record_id}
    text = text_field(kind)
    lists = set_fields(kind)
    for name in _all_fields(kind):
        if name == text:
            continue
        value = fields.get(name)
        if name in lists:
            mapping[name] = list(value or [])
        elif value is not None:
            mapping[name] = value
    for key, value in fields.items():
        if key.startswith(EXTRA) and value is not None:
            mapping[key[len(EXTRA) :]] = value
    body = fields.get(text) or ""
    if kind == "task":
        return task_from_frontmatter(mapping, body)
    return plan_from_frontmatter(mapping, body)


def render(kind: str, record_id: str, fields: dict[str, Any]) -> str:
    """The record's file text, rendered from scratch (the same bytes on every host)."""
    return render_record(record_of(kind, record_id, fields))

"""The record store's value types: `TaskRecord`, `PlanRecord`, `Stamp`, `Scope`, `Source`.

API summary (stable; other modules build on it):

- `TaskRecord`, `PlanRecord` — frozen pydantic models, one per file. Python names are
  snake_case (`blocked_by`); the on-disk keys are the product's (`blockedBy`).
  `model_copy(update={...})` gives a changed copy. `extra` holds keys a person added by
  hand that planwatch does not know; they are kept and written back untouched.
- `Stamp(at, by, in_, verdict=None)` — `{at, by, in}` on disk; `verdict` only on a
  task's or plan's `reviewed` stamp. Stamps are written by the host only.
- `Scope(kind, value)` — `{kind: folder, folder: /srv/work}` on disk.
- `Source(tool, id=None)` — where a translated task came from (docs/store.md, Agents' lists in the store).
- `TASK_STATUSES`, `TASK_PRIORITIES`, `PLAN_STATUSES`, `SCOPE_KINDS`, `VERDICTS`.
- `TASK_FIELDS`, `PLAN_FIELDS` — the on-disk key order (the product's example).
- `TASK_STAMPS`, `PLAN_STAMPS` — the stamp keys, never accepted as input.
- `FINISHED_TASK`, `FINISHED_PLAN` — the statuses that stamp `finished`.
- `task_status_change(task, status, stamp)` — the update a task's move to `status`
  makes: the status, `started` on the first doing, `finished` on the first
  review/done/dropped, `active` cleared on leaving doing; the one rule the tools and
  the translation both follow.
- `format_stamp(at)` — a stamp's `at` as written: ISO 8601 UTC with milliseconds and
  `Z` (`2026-10-18T10:00:00.000Z`); both that and `2026-10-18 10:00:00+00:00` are read.
- How a record is written to and read from its file's mapping, and as JSON:
  core/store/record_mapping.py. A validation error in the store's wording:
  core/store/error_wording.py.
- `is_task_id(s)`, `is_plan_id(s)`, `id_number(s)`.
- `valid_text(s)` — lone surrogates (bytes that were not UTF-8) as U+FFFD, so any
  text from a transcript, a file name or the environment can be written.
- `refuse_bare_number(v)` — a before-validator: a date-and-time field never takes a
  number (pydantic would read it as seconds since 1970).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

TaskStatus = Literal["todo", "doing", "blocked", "review", "done", "dropped"]
TaskPriority = Literal["high", "medium", "low"]
PlanStatus = Literal["draft", "active", "done", "dropped"]
ScopeKind = Literal["folder", "bot", "session"]
Verdict = Literal["approved", "changes"]

TASK_STATUSES: tuple[str, ...] = ("todo", "doing", "blocked", "review", "done", "dropped")
TASK_PRIORITIES: tuple[str, ...] = ("high", "medium", "low")
PLAN_STATUSES: tuple[str, ...] = ("draft", "active", "done", "dropped")
SCOPE_KINDS: tuple[str, ...] = ("folder", "bot", "session")
VERDICTS: tuple[str, ...] = ("approved", "changes")

TASK_FIELDS: tuple[str, ...] = (
    "id", "title", "status", "priority", "labels", "topic", "plan", "bot", "folder",
    "session", "blockedBy", "active", "note", "refs", "source",
    "created", "approved", "started", "finished", "reviewed",
)  # fmt: skip
PLAN_FIELDS: tuple[str, ...] = (
    "id", "scope", "title", "status", "refs", "created", "approved", "finished", "reviewed",
)  # fmt: skip
TASK_STAMPS: tuple[str, ...] = ("created", "approved", "started", "finished", "reviewed")
PLAN_STAMPS: tuple[str, ...] = ("created", "approved", "finished", "reviewed")
FINISHED_TASK: tuple[str, ...] = ("review", "done", "dropped")
FINISHED_PLAN: tuple[str, ...] = ("done", "dropped")

_TASK_ID = re.compile(r"t[1-9][0-9]{0,8}")
_PLAN_ID = re.compile(r"p[1-9][0-9]{0,8}")
TASK_ID_PATTERN = r"^t[1-9][0-9]{0,8}$"
PLAN_ID_PATTERN = r"^p[1-9][0-9]{0,8}$"
TITLE_MAX = 500
"""A title is one line for a list row; longer text belongs in the body or note."""


def is_task_id(value: object) -> bool:
    return isinstance(value, str) and _TASK_ID.fullmatch(value) is not None


def is_plan_id(value: object) -> bool:
    return isinstance(value, str) and _PLAN_ID.fullmatch(value) is not None


def id_number(record_id: str) -> int:
    """`t12` → 12. The caller has checked the id's shape."""
    return int(record_id[1:])


def one_of(values: tuple[str, ...]) -> str:
    """`("a", "b", "c")` → `a, b, or c` (the wording of every refusal)."""
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return f"{values[0]} or {values[1]}"
    return ", ".join(values[:-1]) + f", or {values[-1]}"


def _end_line(text: str) -> str:
    # A body is written with a final newline; holding it the same way in memory keeps
    # a record equal to itself after a write and a read.
    return text + "\n" if text and not text.endswith("\n") else text


_NUMBER = re.compile(r"\s*[+-]?[0-9]+(?:\.[0-9]*)?\s*")


def refuse_bare_number(value: object) -> object:
    """A date-and-time field must be a date and time, never a number.

    pydantic reads `1764499200` (or the text "1764499200") as seconds since 1970; in a
    record or a tool input that is a wrong field type, not a moment.
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        raise PydanticCustomError("datetime_type", "Input should be a valid datetime")
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        raise PydanticCustomError("datetime_type", "Input should be a valid datetime")
    return value


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD.

    Bytes that are not UTF-8 in a file name, an environment variable or an argument
    decode to lone surrogates, and a transcript's JSON may hold `"\\ud800"`; no file
    can hold them. A well-formed surrogate pair becomes the character it stands for.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def format_stamp(at: datetime) -> str:
    """`2026-10-18T10:00:00.000Z`: a stamp's moment in UTC, milliseconds, `Z`."""
    utc = (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


class StampTime(str):
    """A stamp's `at` on its way to a file: the text `format_stamp` gives, written as a
    plain YAML timestamp (no quotes), so it reads back as the same moment."""

    __slots__ = ()

    @classmethod
    def of(cls, at: datetime) -> StampTime:
        return cls(format_stamp(at))

    def moment(self) -> datetime:
        return datetime.fromisoformat(self)


class RecordInvalid(ValueError):
    """A frontmatter mapping that is not a valid record; `reason` says why, in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)


class Stamp(_Frozen):
    """Who did something to a record, when, and in which session. Host-written only."""

    at: datetime
    by: str = Field(min_length=1)
    in_: str | None = Field(None, alias="in")
    verdict: Verdict | None = None
    """Only on `reviewed`: the reviewer's verdict, when one was given."""

    @field_validator("at", mode="before")
    @classmethod
    def _not_a_number(cls, value: object) -> object:
        return refuse_bare_number(value)

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        # A hand-written stamp without a zone is read as UTC so comparisons never fail;
        # whole milliseconds, as written, so a record in memory equals the one read back.
        value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
        return value.replace(microsecond=value.microsecond // 1000 * 1000)

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at": StampTime.of(self.at), "by": self.by}
        if self.in_:
            out["in"] = self.in_
        if self.verdict:
            out["verdict"] = self.verdict
        return out


class Scope(_Frozen):
    """What a plan is about: a folder, a bot, or a session."""

    kind: ScopeKind
    value: str = Field(min_length=1)

    @classmethod
    def from_yaml(cls, data: object) -> Scope:
        if not isinstance(data, dict) or set(data) != {"kind", data.get("kind")}:
            raise RecordInvalid("scope must be {kind: folder|bot|session, <kind>: value}.")
        kind = data["kind"]
        if kind not in SCOPE_KINDS:
            raise RecordInvalid(f"scope kind must be {one_of(SCOPE_KINDS)}.")
        value = data[kind]
        if not isinstance(value, str) or not value:
            raise RecordInvalid(f"scope {kind} must be text.")
        return cls(kind=kind, value=value)

    def to_yaml(self) -> dict[str, Any]:
        return {"kind": self.kind, self.kind: self.value}

    def label(self) -> str:
        return f"{self.kind}:{self.value}"


class Source(_Frozen):
    """Where a translated task came from: the harness tool, and its own id when it has one."""

    tool: str = Field(min_length=1)
    id: str | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        # Claude task ids are strings, but a hand edit may leave `id: 3`; same id.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def to_yaml(self) -> dict[str, Any]:
        return {"tool": self.tool, "id": self.id} if self.id is not None else {"tool": self.tool}


def _check_verdicts(stamps: dict[str, Stamp]) -> None:
    # docs/store.md: only a review carries a verdict; on any other stamp it is a wrong field.
    for name, stamp in stamps.items():
        if name != "reviewed" and stamp.verdict is not None:
            raise ValueError(f"{name} verdict belongs only on the reviewed stamp")


class TaskRecord(_Frozen):
    """One task: `tasks/t<n>.md`. Body is the Markdown after the frontmatter."""

    id: str = Field(pattern=TASK_ID_PATTERN)
    title: str = Field(min_length=1)  # TITLE_MAX bounds the tools' input; a hand edit may be longer
    status: TaskStatus = "todo"
    priority: TaskPriority = "medium"
    labels: tuple[str, ...] = ()
    topic: str | None = None
    plan: str | None = Field(None, pattern=PLAN_ID_PATTERN)
    bot: str | None = None
    folder: str | None = None
    session: str | None = None
    blocked_by: tuple[str, ...] = Field((), alias="blockedBy")
    active: str | None = None
    """The "-ing" form shown while the task is in progress (Claude's activeForm)."""
    note: str | None = None
    refs: tuple[str, ...] = ()
    source: Source | None = None
    created: Stamp | None = None
    approved: Stamp | None = None
    started: Stamp | None = None
    finished: Stamp | None = None
    reviewed: Stamp | None = None
    body: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Keys a person added by hand that planwatch does not know; written back as they were."""

    @field_validator("body")
    @classmethod
    def _body_ends_line(cls, value: str) -> str:
        return _end_line(value)

    @field_validator("blocked_by")
    @classmethod
    def _task_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for item in value:
            if not is_task_id(item):
                raise ValueError("blockedBy must name task ids like t1")
        return value

    @model_validator(mode="after")
    def _verdict_only_on_review(self) -> TaskRecord:
        _check_verdicts(self.stamps())
        return self

    def stamps(self) -> dict[str, Stamp]:
        return {name: s for name in TASK_STAMPS if (s := getattr(self, name)) is not None}

    def line(self) -> str:
        """The answer line of every tool: `id status priority title` (the whole title,
        made safe and kept on one line: scripts and agents read it back)."""
        from planwatch.core.text import safe_text

        return f"{self.id} {self.status} {self.priority} {safe_text(self.title, single_line=True)}"


class PlanRecord(_Frozen):
    """One plan: `plans/p<n>.md`. Its goal is the Markdown body."""

    id: str = Field(pattern=PLAN_ID_PATTERN)
    scope: Scope | None = None
    title: str = Field(min_length=1)  # TITLE_MAX bounds the tools' input; a hand edit may be longer
    status: PlanStatus = "draft"
    refs: tuple[str, ...] = ()
    created: Stamp | None = None
    approved: Stamp | None = None
    finished: Stamp | None = None
    reviewed: Stamp | None = None
    goal: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Keys a person added by hand that planwatch does not know; written back as they were."""

    @field_validator("goal")
    @classmethod
    def _goal_ends_line(cls, value: str) -> str:
        return _end_line(value)

    @model_validator(mode="after")
    def _verdict_only_on_review(self) -> PlanRecord:
        _check_verdicts(self.stamps())
        return self

    def stamps(self) -> dict[str, Stamp]:
        return {name: s for name in PLAN_STAMPS if (s := getattr(self, name)) is not None}

    def line(self) -> str:
        """The answer line of every tool: `id status title` (the whole title, made safe
        and kept on one line)."""
        from planwatch.core.text import safe_text

        return f"{self.id} {self.status} {safe_text(self.title, single_line=True)}"


def task_status_change(task: TaskRecord, status: str, stamp: Callable[[], Stamp]) -> dict[str, Any]:
    """The update that moves `task` to `status`: the status, `started` on its first
    doing, `finished` on its first review, done or dropped (each once, never replaced),
    and `active` cleared when it leaves doing (whatever it moves to)."""
    update: dict[str, Any] = {"status": status}
    if status == "doing" and task.started is None:
        update["started"] = stamp()
    if status in FINISHED_TASK and task.finished is None:
        update["finished"] = stamp()
    if task.status == "doing" and status != "doing":
        update["active"] = None
    return update

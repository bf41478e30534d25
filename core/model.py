"""Frozen value types shared by the readers, the replay, the checklist and the app.

Everything here is immutable: the core hands these out and never changes them in place.
Plan text held in these objects lives in memory only (docs/privacy.md).

Plain frozen dataclasses (slots), not pydantic models: these are built by the readers
from values they already checked, tens of thousands per scan, and the command line
reads them without the cost of pydantic's import and validation, which a fast start
cannot afford (docs/performance.md). A change is
`dataclasses.replace`; sequences handed in as lists are kept as tuples, as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal, TypeVar

from planwatch.core.titles import TITLE_LIMIT as _TITLE_LIMIT

# The statuses an agent item can have once read (docs/reading.md, Statuses and priorities). Anything else a harness
# writes reads as "pending" (docs/reading.md, No guessing).
Status = Literal["pending", "in_progress", "completed", "cancelled", "blocked"]
# ACP's vocabulary (v2 adds `cancelled`), and `read_status`'s default.
STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed", "cancelled")

# Where a plan came from; also the `# <source>` header of `planwatch show --plain`.
Source = Literal[
    "claude_desktop",
    "claude_todos",
    "claude_tasks",
    "codex",
    "acp",
    "gemini_todos",
    "opencode_todos",
    "qwen_todos",
    "pi_todos",
    "copilot_todos",
    "kilo_todos",
    "cline_tasks",
]

SOURCE_LABELS: dict[str, str] = {
    "claude_desktop": "Claude task list",
    "claude_todos": "Claude Code todos",
    "claude_tasks": "Claude Code tasks",
    "codex": "Codex plan",
    "acp": "ACP plan",
    "gemini_todos": "Gemini CLI todos",
    "opencode_todos": "OpenCode todos",
    "claude_plan_mode": "Claude plan mode",
    "qwen_todos": "Qwen Code todos",
    "pi_todos": "pi todos",
    "copilot_todos": "Copilot CLI todos",
    "kilo_todos": "Kilo todos",
    "cline_tasks": "Cline tasks",
}

Harness = Literal["claude", "codex", "acp", "gemini", "opencode", "qwen", "pi", "copilot", "kilo", "cline"]

# Each harness as a person names it (every label on screen; scripts keep the ids).
HARNESS_LABELS: dict[str, str] = {
    "claude": "Claude Code",
    "codex": "Codex",
    "acp": "ACP agent",
    "gemini": "Gemini CLI",
    "opencode": "OpenCode",
    "qwen": "Qwen Code",
    "pi": "pi",
    "copilot": "Copilot CLI",
    "kilo": "Kilo CLI",
    "cline": "Cline",
}


def harness_label(harness: str) -> str:
    """A harness's human name; an unknown one as it is written."""
    return HARNESS_LABELS.get(harness, harness)


# `cancelled` is a status in ACP (v2), Gemini CLI and OpenCode only (docs/reading.md, Statuses and priorities); Claude's
# and Codex's vocabulary is the first three, and a word outside a source's vocabulary
# reads as pending.
LIST_STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed")
# Gemini CLI's write_todos and OpenCode's todowrite (docs/reading.md, Statuses and priorities): `blocked` is a status
# of their own (shown as blocked, open in the pill), `cancelled` as in ACP.
TODO_STATUSES: tuple[Status, ...] = ("pending", "in_progress", "completed", "cancelled", "blocked")


# An agent item's priority where its format carries one (ACP entries, legacy TodoWrite
# items): the store's own vocabulary (docs/store.md). A word outside it is no priority.
Priority = Literal["high", "medium", "low"]
PRIORITIES: tuple[Priority, ...] = ("high", "medium", "low")


def read_priority(raw: object) -> Priority | None:
    """A harness's priority word, or None where the item names none (or another word)."""
    if raw in PRIORITIES:
        return raw  # type: ignore[return-value]
    return None


def partial_label(source: str) -> str:
    """What a partial group (docs/reading.md, Bounded reading) is missing, said for its source:
    a task source keeps only the tasks found; a list source shows the last full list
    read, and the list stated in the part not read is missing."""
    if source == "claude_tasks":
        return "partial (only the tasks found)"
    return "partial (an earlier list: the latest was not found)"


def read_status(raw: object, vocabulary: tuple[Status, ...] = STATUSES) -> Status:
    """Map a harness's status word onto ours; unknown or missing reads as pending.

    `vocabulary` is the source's own set (docs/reading.md, Statuses and priorities): `LIST_STATUSES` for Claude and
    Codex, `TODO_STATUSES` for Gemini CLI and OpenCode, the default for ACP."""
    if raw in vocabulary:
        return raw  # type: ignore[return-value]
    return "pending"


def _tuple(value: object, name: str, items: Iterable[object]) -> None:
    """Keep a sequence field a tuple when it was handed in as a list (frozen: set once)."""
    if type(items) is not tuple:
        object.__setattr__(value, name, tuple(items))


_Frozen = TypeVar("_Frozen", bound=type)


def pickled_by_slots(cls: _Frozen) -> _Frozen:
    """A frozen dataclass with slots, pickled as its fields' values in order and restored
    through its slots' own descriptors (which a frozen class's `__setattr__` does not
    stand in front of). The dataclass's own way works its fields out again for every
    object restored and sets each through `object.__setattr__`: most of the time a
    scan took to take a worker's reads in (thousands of plan items, ~70% of unpickling)."""
    names = tuple(field.name for field in fields(cls))  # inherited ones too, in order
    setters = tuple(getattr(cls, name).__set__ for name in names)  # the slots' descriptors
    # A tuple of the values, made in C (`attrgetter` of one name gives the value alone).
    get = attrgetter(*names) if len(names) > 1 else lambda self: tuple(getattr(self, name) for name in names)

    def __getstate__(self: Any) -> tuple[Any, ...]:
        return get(self)  # type: ignore[no-any-return]

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for set_slot, value in zip(setters, state, strict=True):
            set_slot(self, value)

    cls.__getstate__ = __getstate__  # type: ignore[method-assign,assignment]
    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
    return cls


# Immutable, keyword-only, no per-instance dict.
@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanItem:
    """One step of an agent's plan, as the agent last stated it."""

    text: str
    status: Status = "pending"
    # The "-ing" form Claude shows while the step runs (TodoWrite/TaskCreate activeForm).
    active_form: str | None = None
    # Claude task id, kept so a task's later updates find it; None for list sources.
    task_id: str | None = None
    # The agent's priority for the step, where its format carries one; None otherwise.
    priority: Priority | None = None
    # What the step waits for, where its format says (Qwen Code's `blockedBy`): the
    # positions of those steps in the same list (positions, not ids or text: the
    # checklist names them from the list itself).
    waits_for: tuple[int, ...] = ()


# Immutable, keyword-only, no per-instance dict.
@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanGroup:
    """One checklist-shaped plan of a session.

    `key` tells groups of one session apart: "" is the session's main plan; an ACP plan
    sent with a planId has key "acp:<planId>"; a Claude subagent's plan has key
    "agent-<agentId>".
    """

    key: str = ""
    source: Source
    items: tuple[PlanItem, ...] = ()
    # True when the reader skipped part of a long transcript and could not find a full
    # list: the group then holds only the tasks it could rebuild (docs/reading.md, Bounded reading).
    partial: bool = False
    # True when the agent cleared the list after every step was done: `items` is the
    # finished list it cleared (shown as finished, never as no plan).
    cleared: bool = False

    def __post_init__(self) -> None:
        _tuple(self, "items", self.items)


# Immutable, keyword-only, no per-instance dict.
@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanDocument:
    """A plan that is a document, not a checklist: Claude's plan mode (ExitPlanMode)
    or an ACP plan whose type is not `items` (markdown, file, a custom `_…` type or a
    future one). Shown beside the plan."""

    key: str = ""
    source: str
    text: str
    # The ACP plan's `type` (`markdown`, `_custom`, …); None for Claude's plan mode.
    plan_type: str | None = None


# Immutable, keyword-only, no per-instance dict.
@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentPlan:
    """Everything a session's agent has planned, replayed in transcript order."""

    groups: tuple[PlanGroup, ...] = ()
    documents: tuple[PlanDocument, ...] = ()

    def __post_init__(self) -> None:
        _tuple(self, "groups", self.groups)
        _tuple(self, "documents", self.documents)

    @property
    def main(self) -> PlanGroup | None:
        for group in self.groups:
            if group.key == "":
                return group
        return None

    def counts(self) -> tuple[int, int]:
        """(done, total) over every group; cancelled steps count as neither."""
        done = total = 0
        for group in self.groups:
            for item in group.items:
                if item.status == "cancelled":
                    continue
                total += 1
                done += item.status == "completed"
        return done, total


EMPTY_PLAN = AgentPlan()


# A session's title is shown on one line; the reader keeps more, the index trims it
# (core/titles.py, where a warm listing takes it from without loading this module).
TITLE_LIMIT = _TITLE_LIMIT


# Immutable, keyword-only, no per-instance dict.
@pickled_by_slots
@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
    """One transcript on disk: identity and the facts shown in the session list."""

    id: str
    harness: Harness
    path: Path
    title: str = ""
    cwd: str | None = None
    git_branch: str | None = None
    updated: datetime
    # Lineage: the session this one was forked from, when the transcript says so.
    parent_id: str | None = None
    # Subagent transcripts attached to this session (Claude subagents, Codex sub-threads).
    subagents: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        _tuple(self, "subagents", self.subagents)

"""Plan events: what a transcript reader found, in transcript order, ready for the replay.

Readers turn raw records into these frozen values; `core.replay` turns a sequence of
them into an `AgentPlan`. Every event names the plan group it acts on (see
`core.model.PlanGroup`: "" main, "acp:<planId>", "agent-<agentId>").

An event is only emitted for a call the harness *accepted*: the readers hold a call
until its result arrives and drop it when the result is an error (one rule for every
harness). Events keep only what the replay needs (texts, statuses, ids): never the
arguments, descriptions or results they came from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from planwatch.core.model import PlanItem, Source, Status, pickled_by_slots


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class FullList:
    """A call stating a whole list: TodoWrite, ccd `update_plan` with `items`, Codex
    `update_plan`, an ACP `plan` / `plan_update` of type items. Replaces the group's plan,
    switches the group to `source` and clears its task items."""

    group: str
    source: Source
    items: tuple[PlanItem, ...]
    # A non-empty list whose items are made only when the replay needs them (`build`,
    # `items` left empty): a list a later one replaces before anything reads it is
    # never turned into items. The shape was checked when the call was read, so the
    # items built later are the ones building them at once gives.
    build: Callable[[], tuple[PlanItem, ...]] | None = None

    def resolved(self) -> tuple[PlanItem, ...]:
        """The list's items, built now if they were left for later."""
        return self.build() if self.build is not None else self.items


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class StepAdvance:
    """ccd `update_plan {advance: true}`: the step in progress completes and the first
    pending step after it starts (with nothing in progress, the first pending starts)."""

    group: str
    source: Source = "claude_desktop"


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class StepDoneStart:
    """ccd `update_plan {done: [...], start: ...}`: each reference is a step's exact text
    (str) or its 0-based position (int) in the current list."""

    group: str
    done: tuple[str | int, ...]
    start: str | int | None
    source: Source = "claude_desktop"


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class StepWrapUp:
    """ccd `wrap_up`: the step in progress completes; other open steps stay open."""

    group: str
    source: Source = "claude_desktop"


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class TaskCreated:
    """A TaskCreate confirmed by its result (`toolUseResult.task.id`)."""

    group: str
    task_id: str
    subject: str


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class TaskUpdated:
    """A TaskUpdate confirmed by its result. `None` means "this field did not change"."""

    group: str
    task_id: str
    status: Status | None = None
    subject: str | None = None


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class TaskDeleted:
    """A TaskUpdate to `deleted`, confirmed by its result: the item goes."""

    group: str
    task_id: str


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class PlanRemoved:
    """ACP `plan_removed`: the group (and any document with the same key) goes."""

    group: str


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class DocumentSet:
    """A plan that is a document: Claude plan mode (ExitPlanMode `input.plan`) or an ACP
    plan whose type is not `items`.

    `replaces_group`: an ACP plan id holds either a checklist or a document, whichever
    came last; Claude's plan document sits beside the main checklist instead.
    """

    key: str
    source: str
    text: str
    replaces_group: bool = False
    # The ACP plan's type (`markdown`, `_custom`, a future one); None for Claude's.
    plan_type: str | None = None


@pickled_by_slots
@dataclass(frozen=True, slots=True)
class Gap:
    """IO skipped part of a long transcript here. Groups not restated by a full list
    after it are marked partial (docs/reading.md, Bounded reading)."""


PlanEvent = (
    FullList
    | StepAdvance
    | StepDoneStart
    | StepWrapUp
    | TaskCreated
    | TaskUpdated
    | TaskDeleted
    | PlanRemoved
    | DocumentSet
    | Gap
)

# Sources whose group state is a list that step operations may act on.
LIST_SOURCES: frozenset[str] = frozenset({"claude_desktop", "claude_todos", "codex", "acp"})

"""The plan replay: plan events, in transcript order, → an immutable `AgentPlan`.

Pure logic, no IO. The rules (docs/reading.md, No guessing):
- a full list replaces its group's plan, switches the group to that source and clears
  the group's task items;
- step operations (advance, done/start, wrap-up) act only on a list of their own source;
  before any full list, on another source's list, or on a list from before a gap (IO
  skipped lines; see `Gap`), they change nothing;
- task updates and deletions act only on tasks seen created; a creation with a known id
  replaces that item in place; at most `MAX_TASKS` tasks are kept (oldest evicted);
- a group exists once a full list or a task creation made it; an empty full list leaves
  an empty group (the agent cleared its list), except after every step was done: then
  the finished list stays, marked cleared (a finished plan reads "finished 4/4", not as
  no plan; the store's translation likewise drops nothing for such a list: docs/store.md,
  Agents' lists in the store);
- statuses were already normalised by the readers (`core.model.read_status`).

`PlanReplay` keeps mutable state for speed while a transcript is followed; `snapshot()`
hands out frozen values. `replay(events)` is the one-shot pure form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from planwatch.core.model import AgentPlan, PlanDocument, PlanGroup, PlanItem, Source
from planwatch.core.transcripts.events import (
    LIST_SOURCES,
    DocumentSet,
    FullList,
    Gap,
    PlanEvent,
    PlanRemoved,
    StepAdvance,
    StepDoneStart,
    StepWrapUp,
    TaskCreated,
    TaskDeleted,
    TaskUpdated,
)

MAX_TASKS = 100


@dataclass(slots=True)
class _Group:
    """One plan group while a replay runs: its list or its tasks, as the events left them."""

    source: Source
    # The current list for list sources; None while the group shows tasks.
    items: list[PlanItem] | None = None
    # Task items by id, in creation order (dicts keep insertion order; reassigning an
    # existing key keeps its place, which is exactly "replaces that item in place").
    tasks: dict[str, PlanItem] = field(default_factory=dict)
    partial: bool = False
    # A list carried over a gap may be outdated: steps named against it would be guesses.
    stale: bool = False
    # The agent cleared this list after every step was done: `items` is that last list.
    cleared: bool = False
    # A list source's items not built yet (FullList.build): `items` is None until
    # something reads them (`list_items`).
    build: Callable[[], tuple[PlanItem, ...]] | None = None

    def list_items(self) -> list[PlanItem] | None:
        """The current list (built now if it was left for later); None for tasks."""
        if self.build is not None:
            self.items, self.build = list(self.build()), None
        return self.items

    def freeze(self, key: str) -> PlanGroup:
        listed = self.list_items()
        items = tuple(self.tasks.values()) if listed is None else tuple(listed)
        return PlanGroup(key=key, source=self.source, items=items, partial=self.partial, cleared=self.cleared)


class PlanReplay:
    """Applies plan events one by one; `snapshot()` returns the plan so far.

    A full list whose items were left for later (`FullList.build`) is built only when
    something reads it: a step operation on it, a cleared list after it, the snapshot.
    So of a transcript's many lists only the last that took effect is made into items.
    `every_list` builds each list as it applies instead (the plain replay the lazy one
    is checked against: both give the same plan)."""

    def __init__(self, *, every_list: bool = False) -> None:
        self._every_list = every_list
        self._groups: dict[str, _Group] = {}
        self._documents: dict[str, PlanDocument] = {}
        self._after_gap = False
        self._cached: AgentPlan | None = None

    def apply(self, event: PlanEvent) -> None:
        self._cached = None
        match event:
            case FullList():
                self._full_list(event)
            case StepAdvance():
                self._advance(event)
            case StepDoneStart():
                self._done_start(event)
            case StepWrapUp():
                self._wrap_up(event)
            case TaskCreated():
                self._task_created(event)
            case TaskUpdated():
                self._task_updated(event)
            case TaskDeleted():
                group = self._task_group(event.group)
                if group is not None:
                    group.tasks.pop(event.task_id, None)
            case PlanRemoved():
                self._groups.pop(event.group, None)
                self._documents.pop(event.group, None)
            case DocumentSet():
                if event.replaces_group:
                    self._groups.pop(event.key, None)
                self._documents[event.key] = PlanDocument(
                    key=event.key, source=event.source, text=event.text, plan_type=event.plan_type
                )
            case Gap():
                self._after_gap = True
                for group in self._groups.values():
                    group.partial = True
                    group.stale = True

    def apply_all(self, events: Iterable[PlanEvent]) -> None:
        for event in events:
            self.apply(event)

    def snapshot(self) -> AgentPlan:
        if self._cached is None:
            # The main plan first, then the others in the order they appeared.
            keys = sorted(self._groups, key=lambda k: k != "")
            self._cached = AgentPlan(
                groups=tuple(self._groups[k].freeze(k) for k in keys),
                documents=tuple(self._documents.values()),
            )
        return self._cached

    # -- lists -------------------------------------------------------------------------

    def _full_list(self, event: FullList) -> None:
        # An ACP plan id holds a checklist or a document, whichever came last.
        if event.source == "acp":
            self._documents.pop(event.group, None)
        old = self._groups.get(event.group)
        empty = event.build is None and not event.items
        if empty and old is not None and old.source == event.source and _finished(old.list_items()):
            old.cleared = True  # the finished list stays, shown as finished
            return
        if event.build is not None and not self._every_list:
            self._groups[event.group] = _Group(source=event.source, build=event.build)
        else:
            self._groups[event.group] = _Group(source=event.source, items=list(event.resolved()))

    def _list_of(self, key: str, source: Source) -> list[PlanItem] | None:
        group = self._groups.get(key)
        if group is None or group.stale or group.source != source:
            return None
        return group.list_items() if group.source in LIST_SOURCES else None

    def _advance(self, event: StepAdvance) -> None:
        items = self._list_of(event.group, event.source)
        if items is None:
            return
        current = _first_index(items, "in_progress")
        if current is not None:
            items[current] = replace(items[current], status="completed")
        start_from = 0 if current is None else current + 1
        nxt = _first_index(items, "pending", start_from)
        if nxt is not None:
            items[nxt] = replace(items[nxt], status="in_progress")

    def _done_start(self, event: StepDoneStart) -> None:
        items = self._list_of(event.group, event.source)
        if items is None:
            return
        done = [_resolve(items, ref) for ref in event.done]
        start = None if event.start is None else _resolve(items, event.start)
        # A reference that names no step makes the whole call unrecognised: no partial
        # application, no guessing.
        if any(i is None for i in done) or (event.start is not None and start is None):
            return
        for i in done:
            assert i is not None
            items[i] = replace(items[i], status="completed")
        if start is not None:
            items[start] = replace(items[start], status="in_progress")

    def _wrap_up(self, event: StepWrapUp) -> None:
        items = self._list_of(event.group, event.source)
        if items is None:
            return
        current = _first_index(items, "in_progress")
        if current is not None:
            items[current] = replace(items[current], status="completed")

    # -- tasks -------------------------------------------------------------------------

    def _task_group(self, key: str) -> _Group | None:
        group = self._groups.get(key)
        if group is None or group.source != "claude_tasks":
            return None
        return group

    def _task_created(self, event: TaskCreated) -> None:
        group = self._task_group(event.group)
        if group is None:
            # Tasks take the group over from any list; a group first built from tasks
            # after a gap may miss creations from the skipped part.
            previous = self._groups.get(event.group)
            partial = self._after_gap or (previous is not None and previous.partial)
            group = _Group(source="claude_tasks", partial=partial)
            self._groups[event.group] = group
        item = PlanItem(text=event.subject, status="pending", task_id=event.task_id)
        group.tasks[event.task_id] = item
        while len(group.tasks) > MAX_TASKS:
            del group.tasks[next(iter(group.tasks))]

    def _task_updated(self, event: TaskUpdated) -> None:
        group = self._task_group(event.group)
        if group is None:
            return
        item = group.tasks.get(event.task_id)
        if item is None:  # never seen created: never invent one
            return
        changed = item
        if event.status is not None:
            changed = replace(changed, status=event.status)
        if event.subject is not None:
            changed = replace(changed, text=event.subject)
        if changed is not item:
            group.tasks[event.task_id] = changed


def _finished(items: list[PlanItem] | None) -> bool:
    """Every step of a non-empty list done (cancelled steps aside), at least one of them."""
    if not items:
        return False
    statuses = {item.status for item in items}
    return "completed" in statuses and statuses <= {"completed", "cancelled"}


def _first_index(items: list[PlanItem], status: str, start: int = 0) -> int | None:
    for i in range(start, len(items)):
        if items[i].status == status:
            return i
    return None


def _resolve(items: list[PlanItem], ref: str | int) -> int | None:
    """A step named by exact text (first match) or by 0-based position."""
    if isinstance(ref, int):
        return ref if 0 <= ref < len(items) else None
    for i, item in enumerate(items):
        if item.text == ref:
            return i
    return None


def replay(events: Iterable[PlanEvent]) -> AgentPlan:
    """Replay `events` from nothing and return the resulting plan."""
    state = PlanReplay()
    state.apply_all(events)
    return state.snapshot()


def merge_plans(*plans: AgentPlan) -> AgentPlan:
    """One session's plan from its own transcript and its subagents' (whose groups are
    keyed "agent-<agentId>"). A later plan's group or document wins on a key clash."""
    groups: dict[str, PlanGroup] = {}
    documents: dict[str, PlanDocument] = {}
    for plan in plans:
        for group in plan.groups:
            groups[group.key] = group
        for document in plan.documents:
            documents[document.key] = document
    keys = sorted(groups, key=lambda k: k != "")
    return AgentPlan(groups=tuple(groups[k] for k in keys), documents=tuple(documents.values()))

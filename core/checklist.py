"""A session's two-section checklist (docs/app.md, The checklist): the agent's plan with the person's
overrides applied, then the person's own items; item keys; the pill's counts.

Pure functions over in-memory values: nothing here touches a file. Item keys are hashes
so that overrides can be stored without the item's text (docs/privacy.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from planwatch.core.model import AgentPlan, PlanDocument, PlanItem, Priority, Source, Status, partial_label

# What the person chose for an agent item: ticked (done) or unticked (not done).
OverrideStatus = Literal["completed", "pending"]
OVERRIDE_STATUSES: tuple[OverrideStatus, ...] = ("completed", "pending")

# Store task statuses that count as finished for the pill, and as "not there" at all.
OWN_DONE = "done"
OWN_DROPPED = "dropped"


def item_key(text: str, occurrence: int, group_key: str = "") -> str:
    """The key of an agent item: a hash of its text and its occurrence.

    `occurrence` is 0 for the first item with this text in its group, 1 for the second,
    and so on, so two identical steps keep separate overrides. The group key ("" for the
    main plan, "agent-<id>" / "acp:<planId>" otherwise) is an identifier, not plan text.
    A reworded item hashes differently, so an override on the old text no longer applies.
    """
    digest = hashlib.sha256()
    digest.update(group_key.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(str(occurrence).encode())
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def item_keys(texts: Iterable[str], group_key: str = "") -> list[str]:
    """Keys for a group's items in order (occurrences counted per text)."""
    seen: dict[str, int] = {}
    keys = []
    for text in texts:
        occurrence = seen.get(text, 0)
        seen[text] = occurrence + 1
        keys.append(item_key(text, occurrence, group_key))
    return keys


class OwnTask(Protocol):
    """What the checklist needs of a store task (core.store's TaskRecord has these)."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def status(self) -> str: ...


@dataclass(frozen=True)
class AgentRow:
    """One agent item as shown: the agent's status, and the person's override if any."""

    key: str
    group_key: str
    text: str
    agent_status: Status
    active_form: str | None = None
    override: OverrideStatus | None = None
    # The agent's priority for the step, where its format carries one.
    priority: Priority | None = None
    # The texts of the steps this one waits for that are not yet done (Qwen Code's
    # `blockedBy`); empty once the step itself is done or dropped.
    waits_for: tuple[str, ...] = ()

    @property
    def status(self) -> Status:
        """The status shown: the override where the person chose one, else the agent's."""
        return self.override or self.agent_status

    @property
    def override_label(self) -> str | None:
        if self.override == "completed":
            return "ticked by you"
        if self.override == "pending":
            return "unticked by you"
        return None

    @property
    def done(self) -> bool:
        return self.status == "completed"


@dataclass(frozen=True)
class AgentSection:
    """One plan group of the session (main plan, an ACP plan id, a subagent)."""

    group_key: str
    source: Source
    rows: tuple[AgentRow, ...]
    partial: bool = False
    # The agent cleared its list after every step was done: the rows are that list.
    cleared: bool = False

    @property
    def partial_label(self) -> str | None:
        """What this section is missing, for its source; None when it is whole."""
        return partial_label(self.source) if self.partial else None


@dataclass(frozen=True)
class OwnRow:
    """One of the person's own items: a store task naming this session."""

    task_id: str
    title: str
    status: str

    @property
    def done(self) -> bool:
        return self.status == OWN_DONE


@dataclass(frozen=True)
class Checklist:
    """Both sections of one session, ready to show."""

    sections: tuple[AgentSection, ...] = ()
    documents: tuple[PlanDocument, ...] = ()
    own: tuple[OwnRow, ...] = ()

    @property
    def agent_rows(self) -> tuple[AgentRow, ...]:
        return tuple(row for section in self.sections for row in section.rows)

    def counts(self) -> tuple[int, int]:
        """The pill's (done, total) over both sections.

        Cancelled agent steps and dropped own items count as neither done nor open.
        """
        done = total = 0
        for row in self.agent_rows:
            if row.status == "cancelled":
                continue
            total += 1
            done += row.done
        for own in self.own:
            if own.status == OWN_DROPPED:
                continue
            total += 1
            done += own.done
        return done, total

    def in_progress(self) -> tuple[AgentRow, ...]:
        """The steps the agent has in progress, whatever the person ticked (a ticked one
        keeps its `override_label`, so it is listed "ticked by you")."""
        return tuple(row for row in self.agent_rows if row.agent_status == "in_progress")

    def high_priority(self) -> tuple[AgentRow, ...]:
        return tuple(row for row in self.agent_rows if row.priority == "high")

    def partial_labels(self) -> tuple[str, ...]:
        """Each distinct partial label of the agent sections (empty: nothing partial)."""
        labels: list[str] = []
        for section in self.sections:
            label = section.partial_label
            if label is not None and label not in labels:
                labels.append(label)
        return tuple(labels)

    def overridden(self) -> tuple[AgentRow, ...]:
        return tuple(row for row in self.agent_rows if row.override is not None)


def build_checklist(
    plan: AgentPlan,
    overrides: Mapping[str, str] | None = None,
    own_tasks: Sequence[OwnTask] = (),
) -> Checklist:
    """Apply `overrides` (item key → chosen status) to `plan` and add the own items.

    An override equal to the agent's current status is shown as the agent's status,
    not as the person's choice: once the agent agrees there is nothing to mark.
    """
    overrides = overrides or {}
    sections = []
    for group in plan.groups:
        keys = item_keys((item.text for item in group.items), group.key)
        rows = []
        for key, item in zip(keys, group.items, strict=True):
            chosen = overrides.get(key)
            override: OverrideStatus | None = None
            if chosen in OVERRIDE_STATUSES and chosen != item.status:
                override = chosen  # type: ignore[assignment]
            rows.append(
                AgentRow(
                    key=key,
                    group_key=group.key,
                    text=item.text,
                    agent_status=item.status,
                    active_form=item.active_form,
                    override=override,
                    priority=item.priority,
                    waits_for=waits_for(group.items, item),
                )
            )
        sections.append(
            AgentSection(
                group_key=group.key, source=group.source, rows=tuple(rows), partial=group.partial, cleared=group.cleared
            )
        )
    own = tuple(OwnRow(task_id=t.id, title=t.title, status=t.status) for t in own_tasks)
    return Checklist(sections=tuple(sections), documents=plan.documents, own=own)


def waits_for(items: tuple[PlanItem, ...], item: PlanItem) -> tuple[str, ...]:
    """What an open step still waits for: the texts of the steps it names (by their
    place in its list) that are neither done nor dropped."""
    if not item.waits_for or item.status in ("completed", "cancelled"):
        return ()
    return tuple(
        items[at].text
        for at in item.waits_for
        if 0 <= at < len(items) and items[at].status not in ("completed", "cancelled")
    )


def pill_counts(
    plan: AgentPlan,
    overrides: Mapping[str, str] | None = None,
    own_tasks: Sequence[OwnTask] = (),
) -> tuple[int, int, bool]:
    """The pill's (done, total) and whether an agent section is partial: what
    `build_checklist(...)`'s `counts()` and `partial_labels()` say, without building the
    rows. Item keys (a hash per item) are made only for a session with overrides: a list
    of a thousand sessions asks this of each."""
    if overrides:
        checklist = build_checklist(plan, overrides, own_tasks)
        return (*checklist.counts(), bool(checklist.partial_labels()))
    done = total = 0
    partial = False
    for group in plan.groups:
        partial = partial or group.partial
        for item in group.items:
            if item.status == "cancelled":
                continue
            total += 1
            done += item.status == "completed"
    for task in own_tasks:
        if task.status == OWN_DROPPED:
            continue
        total += 1
        done += task.status == OWN_DONE
    return done, total, partial


def toggle_agent(row: AgentRow) -> OverrideStatus | None:
    """The override after the person presses tick on `row` (None: no override).

    Ticking flips what is shown between done and not done. When the new choice is the
    agent's own status the override goes away (docs/app.md, The checklist).
    """
    wanted: OverrideStatus = "pending" if row.done else "completed"
    if wanted == row.agent_status:
        return None
    if row.override is not None:
        # Undoing the person's own choice returns to the agent's status, whatever it is
        # (an in-progress step unticked goes back to in progress, not to pending).
        return None
    return wanted


def toggle_own(status: str) -> str:
    """todo ↔ done for an own item; any other open status ticks to done."""
    return "todo" if status == OWN_DONE else OWN_DONE

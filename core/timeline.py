"""Each session's timeline: the plan changes rebuilt from its transcript (core/history.py,
read once, when the timeline is first shown) followed by those seen while the app runs;
in memory only (plan text never reaches the disk), and the one line that describes a
change."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from planwatch.core.model import EMPTY_PLAN, AgentPlan, PlanItem
from planwatch.core.text import shorten

if TYPE_CHECKING:
    from planwatch.core.history import Unread

TIMELINE_LENGTH = 50
# How many characters of a step a timeline line names at most.
NAME_LIMIT = 120
# How many added steps a timeline line names.
ADDED_NAMED = 3


@dataclass(frozen=True)
class TimelineEntry:
    """One change of a session's plan: seen while the app ran, or rebuilt from the
    transcript's own records for what happened before (memory only)."""

    # When it happened: the time of the transcript line that caused it, or when the app
    # saw it; None for a rebuilt change whose format carries no time (a bare ACP log).
    at: datetime | None
    what: str


@dataclass(frozen=True)
class Rebuild:
    """How far a session's timeline was rebuilt from its transcript."""

    done: bool = False
    # Which part of a transcript over the bound was not read ("start", "end"; "" none).
    unread: Unread = ""


class Timelines:
    """The last `TIMELINE_LENGTH` changes of every session's plan, and each session's
    last plan to compare the next one with."""

    def __init__(self, length: int = TIMELINE_LENGTH) -> None:
        self._length = length
        self._lines: dict[str, deque[TimelineEntry]] = {}
        self._plans: dict[str, AgentPlan] = {}
        # Per session: how many changes were noted live (to keep, after a rebuild, those
        # noted since it began) and the count when its rebuild began.
        self._noted: dict[str, int] = {}
        self._rebuilds: dict[str, int] = {}
        self._rebuilt: dict[str, Rebuild] = {}

    def of(self, session_id: str) -> list[TimelineEntry]:
        return list(self._lines.get(session_id, ()))

    def knows(self, session_id: str) -> bool:
        return session_id in self._plans

    def keep(self, session_id: str, plan: AgentPlan) -> None:
        """Remember `plan` as the session's current one without noting a change (the
        first read of a session is not a change)."""
        self._plans.setdefault(session_id, plan)

    def last_plan(self, session_id: str) -> AgentPlan | None:
        """The session's plan as last taken (None: not seen yet)."""
        return self._plans.get(session_id)

    def note(self, session_id: str, plan: AgentPlan, at: datetime, *, record: bool) -> bool:
        """Take the session's plan as it is now; returns whether it changed (a session
        seen for the first time counts as changed only when `record`). A change is
        noted in the timeline when `record`, or when the session was known before."""
        before = self._plans.get(session_id)
        self._plans[session_id] = plan
        if before is None and not record:
            return False
        if before is not None and before == plan:
            return False
        what = describe_change(before, plan)
        if what:
            self._lines.setdefault(session_id, deque(maxlen=self._length)).append(TimelineEntry(at, what))
            self._noted[session_id] = self._noted.get(session_id, 0) + 1
        return True

    def begin_rebuild(self, session_id: str) -> bool:
        """Mark the session's rebuild as started; False when one started before (it is
        read once per run: later changes are seen live)."""
        if session_id in self._rebuilds:
            return False
        self._rebuilds[session_id] = self._noted.get(session_id, 0)
        return True

    def cancel_rebuild(self, session_id: str) -> None:
        """The rebuild begun for the session did not read (plan reading was not back on
        in the index yet): the next ask begins another."""
        self._rebuilds.pop(session_id, None)

    def rebuild(self, session_id: str) -> Rebuild:
        """How far the session's timeline was rebuilt (not done: not asked, or reading)."""
        return self._rebuilt.get(session_id, Rebuild())

    def seed(
        self,
        session_id: str,
        history: Sequence[tuple[datetime | None, AgentPlan]],
        unread: Unread = "",
        base: AgentPlan | None = None,
    ) -> None:
        """The changes rebuilt from the transcript (`history`: the plan after each
        change, with its time, oldest first; `base`: the plan before the first of them,
        None for none), before the changes noted live since the rebuild began (those
        noted earlier are in the transcript too)."""
        seeded: list[TimelineEntry] = []
        before: AgentPlan | None = base
        for at, plan in history:
            what = describe_change(before, plan)
            if what:
                seeded.append(TimelineEntry(at, what))
            before = plan
        since = self._noted.get(session_id, 0) - self._rebuilds.get(session_id, 0)
        held = list(self._lines.get(session_id, ()))
        live = held[len(held) - since :] if since > 0 else []
        self._lines[session_id] = deque([*seeded, *live], maxlen=self._length)
        self._rebuilt[session_id] = Rebuild(done=True, unread=unread)


def describe_change(before: AgentPlan | None, after: AgentPlan) -> str:
    """One timeline line for a plan change: counts and statuses, in memory only."""
    if before is None:
        before = EMPTY_PLAN
    b_done, b_total = before.counts()
    a_done, a_total = after.counts()
    parts = []
    if a_total != b_total:
        parts.append(f"{b_total} → {a_total} steps")
    replaced = _replaced(before, after)
    if replaced:
        parts.insert(0, "list replaced")
    # Steps new to a list that held some (the first list is counted, not named).
    added = _added(before, after) if before.groups and not replaced else []
    if added:
        names = [
            f"{_named(item.text)} (started)" if item.status == "in_progress" else _named(item.text) for item in added
        ]
        parts.append("added: " + ", ".join(names[:ADDED_NAMED]) + (", …" if len(names) > ADDED_NAMED else ""))
    if a_done != b_done:
        parts.append(f"{b_done} → {a_done} done")
    new = {id(item) for item in added}
    started = [
        _named(item.active_form or item.text)
        for group in after.groups
        for item in group.items
        if item.status == "in_progress" and id(item) not in new
    ]
    before_started = {
        _named(item.active_form or item.text)
        for group in before.groups
        for item in group.items
        if item.status == "in_progress"
    }
    for step in started:
        if step not in before_started:
            parts.append(f"started: {step}")
    if before.documents != after.documents:
        parts.append("plan document updated" if before.documents else "plan document")
    if not parts and before != after:
        parts.append("plan updated")
    return "; ".join(parts)


def _named(text: str) -> str:
    """A step as a timeline line names it: one line of at most `NAME_LIMIT` characters (a
    runaway or hostile step, a pasted file, would make the panel wrap megabytes)."""
    return shorten(text, NAME_LIMIT)


def _replaced(before: AgentPlan, after: AgentPlan) -> bool:
    """A list that held steps is now a list holding none of them (a new plan)."""
    old = {item.text for group in before.groups for item in group.items}
    new = {item.text for group in after.groups for item in group.items}
    return bool(old) and bool(new) and not old & new


def _added(before: AgentPlan, after: AgentPlan) -> list[PlanItem]:
    """Steps of `after` that `before` did not hold (the n-th of a text counts once)."""
    held: dict[str, int] = {}
    for group in before.groups:
        for item in group.items:
            held[item.text] = held.get(item.text, 0) + 1
    added: list[PlanItem] = []
    for group in after.groups:
        for item in group.items:
            if held.get(item.text, 0):
                held[item.text] -= 1
            else:
                added.append(item)
    return added

"""Each session's timeline: the plan changes seen while the app runs, in memory only
(plan text never reaches the disk), and the one line that describes a change."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from datetime import datetime

from planwatch.core.model import EMPTY_PLAN, AgentPlan

TIMELINE_LENGTH = 50


@dataclass(frozen=True)
class TimelineEntry:
    """One change of a session's plan: seen while the app ran, or rebuilt from the
    transcript's own records for what happened before (memory only)."""

    at: datetime
    what: str


class Timelines:
    """The last `TIMELINE_LENGTH` changes of every session's plan, and each session's
    last plan to compare the next one with."""

    def __init__(self, length: int = TIMELINE_LENGTH) -> None:
        self._length = length
        self._lines: dict[str, deque[TimelineEntry]] = {}
        self._plans: dict[str, AgentPlan] = {}

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
        return True


    def seed(self, session_id: str, history: list[tuple[datetime, AgentPlan]]) -> None:
        """The changes from before the app started, rebuilt from the source's own
        records (`history`: the plan after each call, with its time, oldest first); the
        changes seen live after the last of them are kept after them."""
        seeded: list[TimelineEntry] = []
        before: AgentPlan | None = None
        for at, plan in history:
            what = describe_change(before, plan)
            if what:
                seeded.append(TimelineEntry(at, what))
            before = plan
        live = [e for e in self._lines.get(session_id, ()) if not seeded or e.at > seeded[-1].at]
        self._lines[session_id] = deque([*seeded, *live], maxlen=self._length)


def describe_change(before: AgentPlan | None, after: AgentPlan) -> str:
    """One timeline line for a plan change: counts and statuses, in memory only."""
    if before is None:
        before = EMPTY_PLAN
    b_done, b_total = before.counts()
    a_done, a_total = after.counts()
    parts = []
    if a_total != b_total:
        parts.append(f"{b_total} → {a_total} steps")
    if a_done != b_done:
        parts.append(f"{b_done} → {a_done} done")
    started = [
        item.active_form or item.text
        for group in after.groups
        for item in group.items
        if item.status == "in_progress"
    ]
    before_started = {
        item.active_form or item.text
        for group in before.groups
        for item in group.items
        if item.status == "in_progress"
    }
    for step in started:
        if step not in before_started:
            parts.append(f"started: {step}")
    if not parts and before != after:
        parts.append("plan updated")
    return "; ".join(parts)

"""Notifications: what is worth ringing the bell for (docs/app.md, Settings).

A plan that became complete, a step that became blocked, a running session that went
idle. Pure functions over plans and times pick them; the app rings the bell, shows a
toast and, when asked, sends an OSC 9 / OSC 777 desktop notification. Plan text stays
in memory: it is shown, never written anywhere but the terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from planwatch.core.model import AgentPlan
from planwatch.core.text import safe_text, shorten

Kind = Literal["complete", "blocked", "idle"]


@dataclass(frozen=True)
class Notice:
    """One notice to show: its kind, the session's title, and what happened."""

    kind: Kind
    title: str  # the session's title
    body: str

    @property
    def message(self) -> str:
        return f"{self.body} — {self.title}"


def _blocked(plan: AgentPlan) -> list[str]:
    return [item.text for group in plan.groups for item in group.items if item.status == "blocked"]


def plan_notices(title: str, before: AgentPlan | None, after: AgentPlan) -> list[Notice]:
    """What changed in one session's plan that is worth a notification."""
    if before is None:
        return []
    found: list[Notice] = []
    b_done, b_total = before.counts()
    a_done, a_total = after.counts()
    if a_total and a_done >= a_total and not (b_total and b_done >= b_total):
        found.append(Notice("complete", title, f"Plan complete ({a_done}/{a_total})"))
    was = _blocked(before)
    for text in _blocked(after):
        if text in was:
            was.remove(text)
        else:
            found.append(Notice("blocked", title, f"Blocked: {shorten(text, 60)}"))
    return found


def idle_notice(title: str) -> Notice:
    return Notice("idle", title, "Went idle")


def desktop_escapes(notice: Notice) -> str:
    """OSC 9 (iTerm2, WezTerm, Windows Terminal…) and OSC 777 (rxvt, foot, Ghostty…) for
    one notice. Text is made single-line and stripped of what would end or split the
    sequence (control characters, `;` in OSC 777's fields)."""
    title = safe_text(f"planwatch: {notice.title}", single_line=True).replace(";", ",")
    body = safe_text(notice.body, single_line=True).replace(";", ",")
    return f"\x1b]9;{title}: {body}\x07\x1b]777;notify;{title};{body}\x07"

"""What the marks mean: the checklist's status marks, the pill's pie, and the marks of a
session row, in words, each taken from the table that draws it (tui.widgets.checklist,
tui.widgets.pill, tui.widgets.session_rows), so the key cannot disagree with the screen.
Shown under the keys on the help screen (`?`).
"""

from __future__ import annotations

from dataclasses import dataclass

from planwatch.tui.widgets.checklist import AGENT_MARKS, OVERRIDE_MARKS, OWN_MARKS, PRIORITY_MARK
from planwatch.tui.widgets.pill import PIE
from planwatch.tui.widgets.session_rows import FORK_MARK, PARTIAL_MARK, RUNNING_WINDOW


@dataclass(frozen=True)
class LegendRow:
    """One mark and what it means; `style` is the theme role it is drawn in."""

    mark: str
    meaning: str
    style: str = ""


def legend() -> list[tuple[str, list[LegendRow]]]:
    """The key, by where a mark appears: the checklist, the pill, a session's row."""
    minutes = int(RUNNING_WINDOW.total_seconds() // 60)
    checklist = [
        LegendRow(AGENT_MARKS["pending"][0], "to do (a step of the agent's or one of your items)"),
        LegendRow(AGENT_MARKS["in_progress"][0], "in progress", AGENT_MARKS["in_progress"][1]),
        LegendRow(AGENT_MARKS["completed"][0], "done", AGENT_MARKS["completed"][1]),
        LegendRow(
            AGENT_MARKS["cancelled"][0], "cancelled by the agent, or your item dropped", AGENT_MARKS["cancelled"][1]
        ),
        LegendRow(AGENT_MARKS["blocked"][0], "blocked", AGENT_MARKS["blocked"][1]),
        LegendRow(OWN_MARKS["review"][0], "your item is waiting for review", OWN_MARKS["review"][1]),
        LegendRow(
            OVERRIDE_MARKS["completed"][0],
            "ticked by you: shown done here; the agent is never told",
            OVERRIDE_MARKS["completed"][1],
        ),
        LegendRow(
            OVERRIDE_MARKS["pending"][0],
            "unticked by you: shown open here; the agent is never told",
            OVERRIDE_MARKS["pending"][1],
        ),
        LegendRow(f"{AGENT_MARKS['pending'][0]} {PRIORITY_MARK}", "a step the agent marked high priority"),
    ]
    pill = [
        LegendRow("○ –", "no plan yet"),
        LegendRow(f"{PIE[0]} 0/4", "a plan, nothing done"),
        LegendRow(f"{PIE[1]} {PIE[2]} {PIE[3]}", "about a quarter, a half, three quarters done"),
        LegendRow(f"{PIE[4]} 4/4", "every step done"),
        LegendRow(PARTIAL_MARK, "after the pill: part of a long transcript was not read, the plan may lack steps"),
    ]
    row = [
        LegendRow("●", f"before a row: its agent wrote in the last {minutes} minutes (running)"),
        LegendRow(FORK_MARK.strip(), "a fork of another session (the details name its original)"),
        LegendRow("⚑2 / 2 open", "your open tasks for the session"),
    ]
    return [("Checklist", checklist), ("Pill", pill), ("Session rows", row)]

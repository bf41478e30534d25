"""The details panel and the pill's hover card (SPEC §3): source, steps in progress,
overrides, folder, branch, file, plan documents and the timeline of plan changes.

Everything is built as `Text` from safe_text output: transcript text never becomes markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.checklist import Checklist
from core.model import SOURCE_LABELS, Session
from core.text import safe_text, shorten


@dataclass(frozen=True)
class TimelineEntry:
    """One change of a session's plan seen while the app ran (memory only)."""

    at: datetime
    what: str


def _line(text: Text, label: str, value: str, style: str = "") -> None:
    text.append(f"{label}: ", style="bold")
    text.append(safe_text(value, single_line=True), style=style)
    text.append("\n")


def agent_part(checklist: Checklist, reading: bool = True) -> Text:
    """The Agent-plan part shared by the details panel and the hover card."""
    text = Text()
    if not reading:
        text.append("Reading agents' plans is off (Settings → Privacy).\n", style="italic")
        return text
    sources = sorted({SOURCE_LABELS.get(s.source, s.source) for s in checklist.sections})
    _line(text, "Source", ", ".join(sources) if sources else "no plan calls yet")
    done, total = checklist.counts()
    _line(text, "Done", f"{done} of {total}")
    steps = checklist.in_progress()
    text.append("In progress:", style="bold")
    if not steps:
        text.append(" none\n", style="dim")
    else:
        text.append("\n")
        for row in steps:
            text.append("  ▸ ", style="yellow")
            text.append(shorten(row.active_form or row.text, 70))
            text.append("\n")
    overridden = checklist.overridden()
    text.append("Your overrides:", style="bold")
    if not overridden:
        text.append(" none\n", style="dim")
    else:
        text.append("\n")
        for row in overridden:
            text.append(f"  {row.override_label}: ", style="cyan")
            text.append(shorten(row.text, 60))
            text.append("\n")
    return text


def hover_card(checklist: Checklist, reading: bool = True) -> Text:
    """The pill's tooltip."""
    card = agent_part(checklist, reading)
    card.rstrip()  # in place: Text.rstrip returns None
    return card


def details_text(
    session: Session,
    checklist: Checklist,
    timeline: Sequence[TimelineEntry],
    *,
    reading: bool = True,
) -> Text:
    text = Text()
    text.append(shorten(session.title or f"Session {session.id}", 100), style="bold")
    text.append("\n\n")
    text.append_text(agent_part(checklist, reading))
    text.append("\n")
    _line(text, "Harness", session.harness)
    _line(text, "Session", session.id)
    _line(text, "Folder", session.cwd or "unknown", "dim" if not session.cwd else "")
    _line(text, "Branch", session.git_branch or "unknown", "dim" if not session.git_branch else "")
    _line(text, "File", str(session.path))
    if session.parent_id:
        _line(text, "Forked from", session.parent_id)
    if session.subagents:
        _line(text, "Subagents", str(len(session.subagents)))
    _line(text, "Last activity", session.updated.strftime("%Y-%m-%d %H:%M:%S"))
    text.append("\nTimeline", style="bold")
    text.append(" (changes seen while planwatch ran)\n", style="dim")
    if not timeline:
        text.append("  no changes yet\n", style="dim")
    for entry in list(timeline)[-20:]:
        text.append(f"  {entry.at.strftime('%H:%M:%S')} ", style="dim")
        text.append(safe_text(entry.what, single_line=True))
        text.append("\n")
    for document in checklist.documents if reading else ():
        text.append(f"\nPlan document · {safe_text(document.source, single_line=True)}\n", style="bold")
        text.append(safe_text(document.text))
        text.append("\n")
    return text


class DetailsPanel(VerticalScroll):
    """A scrollable panel holding details_text; hidden until asked for."""

    def compose(self):  # type: ignore[no-untyped-def]
        yield Static(id="details-body", markup=False)

    def show_text(self, text: Text) -> None:
        self.query_one("#details-body", Static).update(text)

"""The details panel and the pill's hover card (docs/app.md, The checklist): source, steps in progress,
overrides, folder, branch, file, plan documents and the timeline of plan changes.

Everything is built as `Content` from safe_text output: transcript text never becomes
markup. Plan documents are Markdown, drawn by Textual's Markdown widget from the same
safe text, with links shown but never opened (the text is the agent's, not ours).
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from planwatch.core.checklist import Checklist
from planwatch.core.history import HISTORY_BOUND
from planwatch.core.model import SOURCE_LABELS, PlanDocument, Session, harness_label
from planwatch.core.text import safe_text, shorten
from planwatch.core.timeline import Rebuild, TimelineEntry
from planwatch.tui import colours
from planwatch.tui.widgets.session_rows import untitled

Part = str | tuple[str, str]

# The timeline's last changes the panel shows (the timeline keeps more).
TIMELINE_SHOWN = 20


def _line(parts: list[Part], label: str, value: str, style: str = "") -> None:
    parts += [(f"{label}: ", "bold"), (safe_text(value, single_line=True), style), "\n"]


def agent_parts(checklist: Checklist, reading: bool = True) -> list[Part]:
    """The Agent-plan part shared by the details panel and the hover card."""
    parts: list[Part] = []
    if not reading:
        parts.append(("Reading agents' plans is off (Settings → Privacy).\n", "italic"))
        return parts
    sources = sorted({SOURCE_LABELS.get(s.source, s.source) for s in checklist.sections})
    _line(parts, "Source", ", ".join(sources) if sources else "no plan calls yet")
    done, total = checklist.counts()
    _line(parts, "Done", f"{done} of {total}")
    for label in checklist.partial_labels():
        _line(parts, "Partial", label.removeprefix("partial (").removesuffix(")"), colours.WARNING)
    steps = checklist.in_progress()
    parts.append(("In progress:", "bold"))
    if not steps:
        parts.append((" none\n", colours.MUTED))
    else:
        parts.append("\n")
        for row in steps:
            parts += [("  ▸ ", colours.DOING), shorten(row.active_form or row.text, 70)]
            if row.override_label:
                parts.append((f" ({row.override_label})", colours.OVERRIDE_LABEL))
            parts.append("\n")
    overridden = checklist.overridden()
    parts.append(("Your overrides:", "bold"))
    if not overridden:
        parts.append((" none\n", colours.MUTED))
    else:
        parts.append("\n")
        for row in overridden:
            parts += [(f"  {row.override_label}: ", colours.OVERRIDE_LABEL), shorten(row.text, 60), "\n"]
    return parts


def agent_part(checklist: Checklist, reading: bool = True) -> Content:
    return Content.assemble(*agent_parts(checklist, reading))


def hover_card(checklist: Checklist, reading: bool = True) -> Content:
    """The pill's tooltip."""
    return agent_part(checklist, reading).rstrip()


def details_text(
    session: Session,
    checklist: Checklist,
    timeline: Sequence[TimelineEntry],
    *,
    reading: bool = True,
    rebuild: Rebuild | None = None,
    skipped: int = 0,
) -> Content:
    """Everything but the plan documents (those are Markdown: see DetailsPanel).
    `rebuild`: how far the timeline was rebuilt from the transcript (None: not asked);
    `skipped`: lines of the transcript that were not records and were read past."""
    # The whole title (a row cuts it to its width): enter shows what the row could not.
    title = session.title or untitled(session.harness, checklist.counts()[1])
    parts: list[Part] = [(safe_text(title), "bold"), "\n\n"]
    parts += agent_parts(checklist, reading)
    if reading:
        parts += _priorities(checklist)
    parts.append("\n")
    _line(parts, "Harness", harness_label(session.harness))
    _line(parts, "Session", session.id)
    _line(parts, "Folder", session.cwd or "unknown", colours.MUTED if not session.cwd else "")
    _line(parts, "Branch", session.git_branch or "unknown", colours.MUTED if not session.git_branch else "")
    _line(parts, "File", str(session.path))
    if skipped:
        # Said where the session is looked at, as `show` says it: a plan read past broken
        # lines may lack what they held.
        _line(
            parts, "Skipped", f"{skipped:,} unreadable line{'s' if skipped != 1 else ''} of the file", colours.WARNING
        )
    if session.parent_id:
        _line(parts, "Forked from", session.parent_id)
    if session.subagents:
        _line(parts, "Subagents", str(len(session.subagents)))
    _line(parts, "Last activity", session.updated.strftime("%Y-%m-%d %H:%M:%S"))
    parts += timeline_parts(timeline, rebuild if reading else None)
    return Content.assemble(*parts)


def timeline_parts(timeline: Sequence[TimelineEntry], rebuild: Rebuild | None) -> list[Part]:
    """The timeline: the changes rebuilt from the transcript, then those seen live; the
    day on a line of its own whenever it changes (a past session's changes are days old)."""
    parts: list[Part] = [("\nTimeline", "bold")]
    if rebuild is None:
        parts.append((" (changes seen while planwatch ran)\n", colours.MUTED))
    elif not rebuild.done:
        parts.append((" (reading the transcript…)\n", colours.MUTED))
    else:
        parts.append((" (from the transcript)\n", colours.MUTED))
        if rebuild.unread == "start":
            parts.append(
                (f"  only the last {HISTORY_BOUND >> 20} MB of a longer transcript were read\n", colours.WARNING)
            )
        elif rebuild.unread == "end":
            parts.append(
                (f"  only the first {HISTORY_BOUND >> 20} MB of a longer transcript were read\n", colours.WARNING)
            )
    if not timeline:
        empty = "no plan changes in the transcript" if rebuild is not None and rebuild.done else "no changes yet"
        parts.append((f"  {empty}\n", colours.MUTED))
    day = None
    for entry in list(timeline)[-TIMELINE_SHOWN:]:
        if entry.at is not None and entry.at.date() != day:
            day = entry.at.date()
            parts.append((f"  {day.isoformat()}\n", colours.MUTED))
        clock = entry.at.strftime("%H:%M:%S") if entry.at is not None else "--:--:--"
        parts += [(f"  {clock} ", colours.MUTED), safe_text(entry.what, single_line=True), "\n"]
    return parts


def _priorities(checklist: Checklist) -> list[Part]:
    """The agent's high-priority steps (ACP entries, legacy TodoWrite items)."""
    rows = checklist.high_priority()
    if not rows:
        return []
    parts: list[Part] = [("High priority:", "bold"), "\n"]
    for row in rows:
        parts += [("  ! ", colours.PRIORITY), shorten(row.text, 70), "\n"]
    return parts


def document_title(document: PlanDocument) -> str:
    """A plan document's heading, made safe: Claude's plan mode, or an ACP plan by its
    planId and its type (`markdown`, `_custom`, a future one)."""
    if document.key.startswith("acp:"):
        head = f"Plan document · ACP plan {document.key.removeprefix('acp:')}"
    else:
        head = f"Plan document · {SOURCE_LABELS.get(document.source, document.source)}"
    if document.plan_type is not None:
        head += f" · type {document.plan_type}"
    return safe_text(head, single_line=True)


class DetailsPanel(VerticalScroll, can_focus=True):
    """A focusable, scrollable panel: the details text, then each plan document rendered
    as Markdown. Hidden until asked for; tab reaches it, arrows and PageUp/PageDown
    scroll it."""

    # The plan documents shown, as (key, source, type, text): none until some are.
    _documents: tuple[tuple[str, str, str | None, str], ...] | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="details-body", markup=False)
        yield Vertical(id="details-documents")

    def show_text(self, text: Content) -> None:
        self.query_one("#details-body", Static).update(text)

    def show_documents(self, documents: Sequence[PlanDocument]) -> None:
        """Replace the plan documents (only when they changed: a Markdown parse is not free)."""
        wanted = tuple((d.key, d.source, d.plan_type, d.text) for d in documents)
        if self._documents == wanted:
            return
        self._documents = wanted
        holder = self.query_one("#details-documents", Vertical)
        holder.remove_children()
        if not documents:
            return
        # Imported here: Markdown brings markdown-it, whose import compiles large regexes
        # (a tenth of a second at every start); most starts show no plan document.
        from textual.widgets import Markdown

        widgets: list[Static | Markdown] = []
        for document in documents:
            widgets.append(Static(Content.styled(document_title(document), "bold"), classes="document-title"))
            # The agent's text, made safe, read as Markdown; links are shown, not followed.
            widgets.append(Markdown(safe_text(document.text), open_links=False, classes="document"))
        if widgets:
            holder.mount_all(widgets)

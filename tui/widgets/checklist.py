"""The checklist widget: a session's Agent plan and My items, with status marks.

It renders what it is given (a core.checklist.Checklist); ticks are overrides held in
core, not widget state. It posts TickRequested when the person clicks a mark, and the
screen decides what a tick means. Untrusted text goes into `Content` as literal text
(never parsed as markup); colours are theme roles from tui.colours.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual import events
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets.option_list import Option

from planwatch.core.checklist import AgentRow, AgentSection, Checklist, OwnRow
from planwatch.core.model import SOURCE_LABELS, PlanDocument
from planwatch.core.text import quoted, safe_text, shorten
from planwatch.tui import colours
from planwatch.tui.widgets.list_moves import SteppedOptionList

# Marks are three cells wide, so a click on columns 0-3 of a row is a click on the mark.
# Styles are theme roles (tui.colours), resolved against the theme when drawn.
AGENT_MARKS: dict[str, tuple[str, str]] = {
    "pending": ("[ ]", ""),
    "in_progress": ("[▸]", colours.DOING),
    "completed": ("[x]", colours.DONE),
    "cancelled": ("[-]", colours.MUTED),
    "blocked": ("[!]", colours.BLOCKED),  # as a blocked store task
}
OVERRIDE_MARKS: dict[str, tuple[str, str]] = {
    "completed": ("[✓]", colours.OVERRIDE),  # ticked by you
    "pending": ("[·]", colours.OVERRIDE),  # unticked by you
}
OWN_MARKS: dict[str, tuple[str, str]] = {
    "todo": ("[ ]", ""),
    "doing": ("[▸]", colours.DOING),
    "blocked": ("[!]", colours.BLOCKED),
    "review": ("[?]", colours.REVIEW),
    "done": ("[x]", colours.DONE),
    "dropped": ("[-]", colours.MUTED),
}
MARK_CELLS = 4
# A high-priority agent step: a glyph after its status mark, so it reads without colour
# (every theme, pane mode, a monochrome terminal); colours.PRIORITY colours it.
PRIORITY_MARK = "!"
# How many characters of a step's text its row shows at most (`capped`).
ROW_TEXT_LIMIT = 1000
# Lines of a plan document shown in the checklist; the details panel holds the rest.
DOCUMENT_LINES = 6


def agent_mark(row: AgentRow) -> tuple[str, str]:
    if row.override is not None:
        return OVERRIDE_MARKS[row.override]
    return AGENT_MARKS.get(row.status, AGENT_MARKS["pending"])


def section_title(section: AgentSection, subagent: int = 1) -> str:
    """A section's heading in words: the agent's plan, a subagent's by its place among
    the session's subagents (`Subagent 2`: its id, `ses_1f3a…`, means nothing to a
    person; the details panel names the files), an ACP plan by its planId."""
    label = SOURCE_LABELS.get(section.source, section.source)
    if section.group_key.startswith("agent-"):
        head = f"Subagent {subagent}"
    elif section.group_key.startswith("acp:"):
        head = f"ACP plan {section.group_key.removeprefix('acp:')}"
    else:
        head = "Agent plan"
    title = f"{head} · {label}"
    if section.partial_label:
        title += f" · {section.partial_label}"
    return safe_text(title, single_line=True)


def document_section_title(document: PlanDocument) -> str:
    """A plan document's section heading: an ACP plan by its planId and type, or
    Claude's plan mode (made safe: the planId and type come from the transcript)."""
    if document.key.startswith("acp:"):
        head = f"ACP plan {document.key.removeprefix('acp:')} · {document.plan_type or 'document'} document"
    else:
        head = f"Plan document · {SOURCE_LABELS.get(document.source, document.source)}"
    return safe_text(head, single_line=True)


def agent_row_text(row: AgentRow) -> Content:
    mark, style = agent_mark(row)
    body_style = colours.STRUCK if row.status == "cancelled" else (colours.FINISHED if row.done else "")
    shown = row.active_form if row.status == "in_progress" and row.active_form else row.text
    parts: list[tuple[str, str]] = [(mark, style), (" ", "")]
    if row.priority == "high":
        parts += [(PRIORITY_MARK, colours.PRIORITY), (" ", "")]
    parts.append((safe_text(capped(shown), single_line=True), body_style))
    if row.waits_for:
        # What the step waits for (Qwen Code's blockedBy), named by the steps' own text.
        named = ", ".join(quoted(text) for text in row.waits_for)
        parts.append((f"  waits for {named}", colours.NOTE))
    if row.override_label:
        parts.append((f"  {row.override_label}", colours.OVERRIDE_LABEL))
    return Content.assemble(*parts)


def capped(text: str) -> str:
    """A step's text as its row shows it: whole up to `ROW_TEXT_LIMIT` characters, then
    cut with an ellipsis. The text is the agent's: a runaway or hostile step (a pasted
    file) would take the list seconds to wrap on the UI thread."""
    return text if len(text) <= ROW_TEXT_LIMIT else text[: ROW_TEXT_LIMIT - 1] + "…"


def own_row_text(row: OwnRow) -> Content:
    mark, style = OWN_MARKS.get(row.status, OWN_MARKS["todo"])
    body_style = colours.STRUCK if row.status == "dropped" else (colours.FINISHED if row.status == "done" else "")
    parts: list[tuple[str, str]] = [(mark, style), (" ", ""), (safe_text(row.title, single_line=True), body_style)]
    if row.status not in ("todo", "done"):
        parts.append((f"  {row.status}", f"{style or colours.MUTED} italic"))
    return Content.assemble(*parts)


def header(label: str) -> Option:
    return Option(Content.styled(label, colours.HEADING), disabled=True)


def note(label: str) -> Option:
    return Option(Content.styled(label, colours.NOTE), disabled=True)


def document_options(document: PlanDocument) -> list[Option]:
    """A plan document as a section: Claude's plan mode as one line; an ACP plan that is
    not a checklist (markdown, file, a custom or future type) under its own heading with
    its first lines, made safe. The details panel (enter) holds the whole text."""
    lines = [line for line in document.text.splitlines() if line.strip()]
    if not document.key.startswith("acp:"):
        first = lines[0] if lines else ""
        return [note(f"{document_section_title(document)}: {shorten(first, 60)} — enter for the whole text")]
    options = [header(document_section_title(document))]
    for line in lines[:DOCUMENT_LINES]:
        options.append(Option(Content(safe_text(line, single_line=True)[:200]), disabled=True))
    if not lines:
        options.append(note("(empty)"))
    elif len(lines) > DOCUMENT_LINES:
        options.append(note(f"… {len(lines) - DOCUMENT_LINES} more lines — enter for the whole text"))
    return options


@dataclass(frozen=True)
class RowRef:
    """What an option of the list stands for: an item, by its key (an agent item's key,
    an own item's task id), which the screen finds in the session's checklist."""

    kind: Literal["agent", "own"]
    index: int  # into checklist.agent_rows / checklist.own as shown
    key: str


class ChecklistView(SteppedOptionList):
    """The two sections of one session as a keyboard- and mouse-driven list."""

    # enter opens the details whatever the cursor is on, as in the session list
    # (tui.commands): a session whose checklist holds only a plan document has no row to
    # highlight, and its note promises "enter for the whole text". A click still selects.
    BINDINGS = [Binding("enter", "screen.details", "Details", show=False)]

    class TickRequested(Message):
        """The person clicked a row's mark."""

        def __init__(self, ref: RowRef) -> None:
            super().__init__()
            self.ref = ref

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, markup=False)
        self.checklist = Checklist()
        self._refs: dict[int, RowRef] = {}

    def show(self, checklist: Checklist, *, agent_note: str | None = None, own_note: str | None = None) -> None:
        """Show `checklist`, keeping the highlighted item highlighted when it is still
        there (found by item key or task id, so a step the agent inserts above it does
        not move the highlight onto another item)."""
        previous = self.current_ref()
        self.checklist = checklist
        options: list[Option] = []
        refs: dict[int, RowRef] = {}
        if agent_note is not None:
            options.append(header("Agent plan"))
            options.append(note(agent_note))
        else:
            agent_index = 0
            subagents = 0
            for section in checklist.sections:
                subagents += section.group_key.startswith("agent-")
                options.append(header(section_title(section, subagents)))
                if not section.rows:
                    options.append(note("(the agent cleared its list)"))
                elif section.cleared:
                    done = sum(row.done for row in section.rows)
                    options.append(note(f"finished {done}/{len(section.rows)} · the agent then cleared its list"))
                for row in section.rows:
                    refs[len(options)] = RowRef("agent", agent_index, row.key)
                    options.append(Option(agent_row_text(row)))
                    agent_index += 1
            for document in checklist.documents:
                options += document_options(document)
        options.append(header("My items"))
        if own_note is not None:
            options.append(note(own_note))
        for index, own in enumerate(checklist.own):
            refs[len(options)] = RowRef("own", index, own.task_id)
            options.append(Option(own_row_text(own)))
        if not checklist.own and own_note is None:
            options.append(note("none yet — press a to add one"))
        self._refs = refs
        self.set_options(options)
        self._restore(previous)

    def _restore(self, previous: RowRef | None) -> None:
        if not self._refs:
            self.highlighted = None
            return
        if previous is not None:
            for position, ref in self._refs.items():
                if (ref.kind, ref.key) == (previous.kind, previous.key):
                    self.highlighted = position
                    return
            # The row is gone (an own item dropped): stay near where it was.
            same_kind = [p for p, r in self._refs.items() if r.kind == previous.kind]
            if same_kind:
                self.highlighted = min(same_kind, key=lambda p: abs(self._refs[p].index - previous.index))
                return
        self.highlighted = min(self._refs)

    def current_ref(self) -> RowRef | None:
        if self.highlighted is None:
            return None
        return self._refs.get(self.highlighted)

    def current_own_row(self) -> OwnRow | None:
        ref = self.current_ref()
        if ref is None or ref.kind != "own":
            return None
        return self.checklist.own[ref.index]

    def select_own(self, task_id: str) -> bool:
        """Move the cursor to the own item of `task_id` (a new item the person added);
        whether the list shows it."""
        for position, ref in self._refs.items():
            if ref.kind == "own" and ref.key == task_id:
                self.highlighted = position
                return True
        return False

    async def _on_click(self, event: events.Click) -> None:
        clicked = event.style.meta.get("option")
        if clicked is not None and clicked in self._refs:
            self.highlighted = clicked
            x = event.x - self.gutter.left
            if 0 <= x < MARK_CELLS:
                event.stop()
                self.post_message(self.TickRequested(self._refs[clicked]))
                return
        await super()._on_click(event)

"""The browse screen's actions on items: tick and untick (an override on an agent item,
todo↔done on the person's own), add, edit and drop own items, and undo — each kept on
the screen's undo stack with a sentence saying what it did. The screen's keys call
these with itself; writes go up to the app as messages (`OverrideRequested`,
`ToolRequested`: browse_model.py), and the screen repaints when the app says the
session or the store changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from planwatch.core.checklist import toggle_agent, toggle_own
from planwatch.core.text import quoted
from planwatch.tui.screens.browse_model import OverrideRequested, ToolRequested
from planwatch.tui.widgets.item_editor import ItemEditor

if TYPE_CHECKING:
    from planwatch.tui.screens.browse import BrowseScreen
    from planwatch.tui.widgets.checklist import RowRef


@dataclass(frozen=True)
class Undo:
    """One step the person can take back with `u` (memory only, like the plan text)."""

    session_id: str
    kind: Literal["override", "status", "title"]
    target: str  # item key or task id
    before: Any
    done: str = ""  # what was done, for the toast: "ticked “Write tests”"


def select_added_item(screen: BrowseScreen) -> None:
    """After `a`, put the cursor on the new item, in the checklist focused, once the
    store read brings it (items are matched by task id: the store may list it anywhere
    among the others)."""
    awaited = screen.awaited_item
    if awaited is None:
        return
    session_id, before = awaited
    if session_id != screen.selected_id:
        screen.awaited_item = None
        return
    checklist = screen.checklist_view()
    new = [own.task_id for own in checklist.checklist.own if own.task_id not in before]
    if new:
        screen.awaited_item = None
        checklist.select_own(new[-1])
        checklist.focus()  # the keys for items (space, e, d) act on it next


def tick_current(screen: BrowseScreen) -> None:
    """`space`: tick the item under the cursor."""
    ref = screen.checklist_view().current_ref()
    if ref is None:
        screen.notify("Nothing to tick here: move to an item first.", markup=False)
        return
    tick(screen, ref)


def tick(screen: BrowseScreen, ref: RowRef) -> None:
    """Tick or untick one item: an override on an agent item, todo↔done on an own one.
    The item is the session's as the model holds it now, found by its key: what the
    widget shows may be a paint behind."""
    session_id = screen.selected_id
    if session_id is None:
        return
    checklist = screen.model.checklist_for(session_id)
    if ref.kind == "agent":
        row = next((row for row in checklist.agent_rows if row.key == ref.key), None)
        if row is None:
            screen.notify("That item is no longer in the agent's plan.", markup=False)
            return
        new = toggle_agent(row)
        what = "ticked" if (new or row.agent_status) == "completed" else "unticked"
        screen.undo_stack.append(Undo(session_id, "override", row.key, row.override, f"{what} {quoted(row.text)}"))
        screen.post_message(OverrideRequested(session_id, row.key, new))
    else:
        own = next((own for own in checklist.own if own.task_id == ref.key), None)
        if own is None:
            screen.notify("That item is no longer in your items.", markup=False)
            return
        new_status = toggle_own(own.status)
        what = "ticked" if new_status == "done" else "unticked"
        screen.undo_stack.append(Undo(session_id, "status", own.task_id, own.status, f"{what} {quoted(own.title)}"))
        screen.post_message(ToolRequested("task_set", {"task": own.task_id, "status": new_status}))


def undo(screen: BrowseScreen) -> None:
    """Take back the last step made in the session on screen, and say what it was."""
    steps = [i for i, step in enumerate(screen.undo_stack) if step.session_id == screen.selected_id]
    if not steps:
        elsewhere = " in this session" if screen.undo_stack else ""
        screen.notify(f"Nothing to undo{elsewhere}.", markup=False)
        return
    step = screen.undo_stack.pop(steps[-1])
    screen.notify(f"Undid: {step.done}" if step.done else "Undid the last change.", markup=False)
    if step.kind == "override":
        screen.post_message(OverrideRequested(step.session_id, step.target, step.before))
    elif step.kind == "status":
        screen.post_message(ToolRequested("task_set", {"task": step.target, "status": step.before}))
    elif step.kind == "title":
        screen.post_message(ToolRequested("task_set", {"task": step.target, "title": step.before}))


def add_item(screen: BrowseScreen) -> None:
    if screen.selected_id is None:
        screen.notify("Select a session first.", markup=False)
        return
    screen.run_worker(_add_item(screen, screen.selected_id), exclusive=True, group="editor")


async def _add_item(screen: BrowseScreen, session_id: str) -> None:
    title = await screen.app.push_screen_wait(ItemEditor(heading="New item for this session"))
    if title:
        # When the store read brings the new item, the cursor moves onto it.
        screen.awaited_item = (session_id, {own.task_id for own in screen.model.checklist_for(session_id).own})
        payload: dict[str, Any] = {"title": title, "session": session_id}
        entry = screen.model.entry(session_id)
        if entry is not None and entry.session.cwd:
            payload["folder"] = entry.session.cwd
        screen.post_message(ToolRequested("task_add", payload))


def edit_item(screen: BrowseScreen) -> None:
    own = screen.checklist_view().current_own_row()
    if own is None or screen.selected_id is None:
        screen.notify("Only your own items can be edited: move to one under My items.", markup=False)
        return
    screen.run_worker(_edit_item(screen, screen.selected_id, own.task_id, own.title), exclusive=True, group="editor")


async def _edit_item(screen: BrowseScreen, session_id: str, task_id: str, title: str) -> None:
    new = await screen.app.push_screen_wait(ItemEditor(title, heading=f"Edit {quoted(title, 50)}"))
    if new and new != title:
        screen.undo_stack.append(Undo(session_id, "title", task_id, title, f"renamed {quoted(title)}"))
        screen.post_message(ToolRequested("task_set", {"task": task_id, "title": new}))


def drop_item(screen: BrowseScreen) -> None:
    own = screen.checklist_view().current_own_row()
    if own is None or screen.selected_id is None:
        screen.notify("Only your own items can be dropped: move to one under My items.", markup=False)
        return
    if own.status == "dropped":
        return
    screen.undo_stack.append(
        Undo(screen.selected_id, "status", own.task_id, own.status, f"dropped {quoted(own.title)}")
    )
    screen.post_message(ToolRequested("task_set", {"task": own.task_id, "status": "dropped"}))

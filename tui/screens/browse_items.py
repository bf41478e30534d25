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


def select_added_item(view: BrowseScreen) -> None:
    """After `a`, put the cursor on the new item, in the checklist focused, once the
    store read brings it (items are matched by task id: the store may list it anywhere
    among the others)."""
    awaited = view.awaited_item
    if awaited is None:
        return
    session_id, before = awaited
    if session_id != view.selected_id:
        view.awaited_item = None
        return
    checklist = view.checklist_view()
    new = [own.task_id for own in checklist.checklist.own if own.task_id not in before]
    if new:
        view.awaited_item = None
        checklist.select_own(new[-1])
        checklist.focus()  # the keys for items (space, e, d) act on it next


def tick_current(view: BrowseScreen) -> None:
    """`space`: tick the item under the cursor."""
    ref = view.checklist_view().current_ref()
    if ref is None:
        view.notify("Nothing to tick here: move to an item first.", markup=False)
        return
    tick(view, ref)


def tick(view: BrowseScreen, ref: RowRef) -> None:
    """Tick or untick one row: an override on an agent item, todo↔done on an own one."""
    session_id = view.selected_id
    if session_id is None:
        return
    checklist = view.checklist_view().checklist
    if ref.kind == "agent":
        row = checklist.agent_rows[ref.index]
        new = toggle_agent(row)
        what = "ticked" if (new or row.agent_status) == "completed" else "unticked"
        view.undo_stack.append(Undo(session_id, "override", row.key, row.override, f"{what} {quoted(row.text)}"))
        view.post_message(OverrideRequested(session_id, row.key, new))
    else:
        own = checklist.own[ref.index]
        new_status = toggle_own(own.status)
        what = "ticked" if new_status == "done" else "unticked"
        view.undo_stack.append(Undo(session_id, "status", own.task_id, own.status, f"{what} {quoted(own.title)}"))
        view.post_message(ToolRequested("task_set", {"task": own.task_id, "status": new_status}))


def undo(view: BrowseScreen) -> None:
    """Take back the last step made in the session on screen, and say what it was."""
    steps = [i for i, step in enumerate(view.undo_stack) if step.session_id == view.selected_id]
    if not steps:
        elsewhere = " in this session" if view.undo_stack else ""
        view.notify(f"Nothing to undo{elsewhere}.", markup=False)
        return
    step = view.undo_stack.pop(steps[-1])
    view.notify(f"Undid: {step.done}" if step.done else "Undid the last change.", markup=False)
    if step.kind == "override":
        view.post_message(OverrideRequested(step.session_id, step.target, step.before))
    elif step.kind == "status":
        view.post_message(ToolRequested("task_set", {"task": step.target, "status": step.before}))
    elif step.kind == "title":
        view.post_message(ToolRequested("task_set", {"task": step.target, "title": step.before}))


def add_item(view: BrowseScreen) -> None:
    if view.selected_id is None:
        view.notify("Select a session first.", markup=False)
        return
    view.run_worker(_add_item(view, view.selected_id), exclusive=True, group="editor")


async def _add_item(view: BrowseScreen, session_id: str) -> None:
    title = await view.app.push_screen_wait(ItemEditor(heading="New item for this session"))
    if title:
        # When the store read brings the new item, the cursor moves onto it.
        view.awaited_item = (session_id, {own.task_id for own in view.model.checklist_for(session_id).own})
        payload: dict[str, Any] = {"title": title, "session": session_id}
        entry = view.model.entry(session_id)
        if entry is not None and entry.session.cwd:
            payload["folder"] = entry.session.cwd
        view.post_message(ToolRequested("task_add", payload))


def edit_item(view: BrowseScreen) -> None:
    own = view.checklist_view().current_own_row()
    if own is None or view.selected_id is None:
        view.notify("Only your own items can be edited: move to one under My items.", markup=False)
        return
    view.run_worker(_edit_item(view, view.selected_id, own.task_id, own.title), exclusive=True, group="editor")


async def _edit_item(view: BrowseScreen, session_id: str, task_id: str, title: str) -> None:
    new = await view.app.push_screen_wait(ItemEditor(title, heading=f"Edit {quoted(title, 50)}"))
    if new and new != title:
        view.undo_stack.append(Undo(session_id, "title", task_id, title, f"renamed {quoted(title)}"))
        view.post_message(ToolRequested("task_set", {"task": task_id, "title": new}))


def drop_item(view: BrowseScreen) -> None:
    own = view.checklist_view().current_own_row()
    if own is None or view.selected_id is None:
        view.notify("Only your own items can be dropped: move to one under My items.", markup=False)
        return
    if own.status == "dropped":
        return
    view.undo_stack.append(Undo(view.selected_id, "status", own.task_id, own.status, f"dropped {quoted(own.title)}"))
    view.post_message(ToolRequested("task_set", {"task": own.task_id, "status": "dropped"}))

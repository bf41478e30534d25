"""The browse screen's actions on items: tick and untick (an override on an agent item,
todo↔done on the person's own), add, edit and drop own items, and undo — each kept on
the screen's undo stack with a sentence saying what it did. The screen's keys call
these with itself; writes go up to the app as messages (`OverrideRequested`,
`ToolRequested`: browse_model.py), and the screen repaints when the app says the
session or the store changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from planwatch.core.checklist import OverrideStatus, OwnRow, toggle_agent, toggle_own
from planwatch.core.text import quoted
from planwatch.tui.screens.browse_model import OverrideRequested, ToolRequested
from planwatch.tui.widgets.item_editor import ItemEditor

if TYPE_CHECKING:
    from planwatch.tui.screens.browse import BrowseScreen
    from planwatch.tui.widgets.checklist import RowRef


@dataclass(frozen=True)
class OverrideUndo:
    """A tick or untick of an agent's item the person can take back with `u`: the item's
    override before it (none: the agent's own status). Kept in memory only, like the
    plan text."""

    session_id: str
    key: str  # the agent item's key
    before: OverrideStatus | None
    done: str  # what was done, for the toast: "ticked “Write tests”"


@dataclass(frozen=True)
class OwnUndo:
    """A change to one of the person's own items the person can take back with `u`: its
    status or its title as the store held it before. Kept in memory only."""

    session_id: str
    task_id: str
    field: Literal["status", "title"]
    before: str
    done: str  # what was done, for the toast: "renamed “Write tests”"


# One step on the screen's undo stack.
Undo = OverrideUndo | OwnUndo


def select_added_item(screen: BrowseScreen) -> None:
    """After `a`, put the cursor on the new item, in the checklist focused, once the
    store read brings it (items are matched by task id: the store may list it anywhere
    among the others). The new item is found in the model's checklist, not in the one
    the widget shows."""
    awaited = screen.awaited_item
    if awaited is None:
        return
    session_id, before = awaited
    if session_id != screen.selected_id:
        screen.awaited_item = None
        return
    new = [own.task_id for own in screen.model.checklist_for(session_id).own if own.task_id not in before]
    checklist = screen.checklist_view()
    if new and checklist.select_own(new[-1]):
        screen.awaited_item = None
        checklist.focus()  # the keys for items (space, e, d) act on it next


def model_own(screen: BrowseScreen, session_id: str, task_id: str) -> OwnRow | None:
    """The person's own item `task_id` as the model holds it now, or None, said to the
    person, when it is gone (dropped from the store, moved to another session): what the
    widget shows may be a paint behind."""
    own = next((own for own in screen.model.checklist_for(session_id).own if own.task_id == task_id), None)
    if own is None:
        screen.notify("That item is no longer in your items.", markup=False)
    return own


def own_under_cursor(screen: BrowseScreen, verb: str) -> tuple[str, OwnRow] | None:
    """The session on screen and the own item under the checklist's cursor, as the model
    holds it now (found by its task id), for `e` and `d`; None, said to the person, when
    the cursor is not on an own item or the item is gone."""
    ref = screen.checklist_view().current_ref()
    session_id = screen.selected_id
    if ref is None or ref.kind != "own" or session_id is None:
        screen.notify(f"Only your own items can be {verb}: move to one under My items.", markup=False)
        return None
    own = model_own(screen, session_id, ref.key)
    return None if own is None else (session_id, own)


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
    if ref.kind == "agent":
        checklist = screen.model.checklist_for(session_id)
        row = next((row for row in checklist.agent_rows if row.key == ref.key), None)
        if row is None:
            screen.notify("That item is no longer in the agent's plan.", markup=False)
            return
        new = toggle_agent(row)
        what = "ticked" if (new or row.agent_status) == "completed" else "unticked"
        screen.undo_stack.append(OverrideUndo(session_id, row.key, row.override, f"{what} {quoted(row.text)}"))
        screen.post_message(OverrideRequested(session_id, row.key, new))
    else:
        own = model_own(screen, session_id, ref.key)
        if own is None:
            return
        new_status = toggle_own(own.status)
        what = "ticked" if new_status == "done" else "unticked"
        screen.undo_stack.append(OwnUndo(session_id, own.task_id, "status", own.status, f"{what} {quoted(own.title)}"))
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
    if isinstance(step, OverrideUndo):
        screen.post_message(OverrideRequested(step.session_id, step.key, step.before))
    else:
        screen.post_message(ToolRequested("task_set", {"task": step.task_id, step.field: step.before}))


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
    """`e`: rename the own item under the cursor, as the model holds it."""
    found = own_under_cursor(screen, "edited")
    if found is not None:
        session_id, own = found
        screen.run_worker(_edit_item(screen, session_id, own.task_id, own.title), exclusive=True, group="editor")


async def _edit_item(screen: BrowseScreen, session_id: str, task_id: str, title: str) -> None:
    new = await screen.app.push_screen_wait(ItemEditor(title, heading=f"Edit {quoted(title, 50)}"))
    if new and new != title:
        screen.undo_stack.append(OwnUndo(session_id, task_id, "title", title, f"renamed {quoted(title)}"))
        screen.post_message(ToolRequested("task_set", {"task": task_id, "title": new}))


def drop_item(screen: BrowseScreen) -> None:
    """`d`: drop the own item under the cursor, as the model holds it (one already
    dropped stays as it is)."""
    found = own_under_cursor(screen, "dropped")
    if found is None:
        return
    session_id, own = found
    if own.status == "dropped":
        return
    screen.undo_stack.append(OwnUndo(session_id, own.task_id, "status", own.status, f"dropped {quoted(own.title)}"))
    screen.post_message(ToolRequested("task_set", {"task": own.task_id, "status": "dropped"}))

"""The Claude desktop app's task-list tools (`mcp__ccd_turn__*`).

docs/reading.md, The Claude desktop app's task list, describes them.

Their argument schema is not published, so every bit of shape knowledge lives here and
nowhere else: when the app changes it, this is the one module to follow it. A shape not
described below is unrecognised and yields no event (it changes nothing).
"""

from __future__ import annotations

from typing import Any

from planwatch.core.model import LIST_STATUSES, PlanItem, read_status
from planwatch.core.transcripts.events import (
    FullList,
    PlanEvent,
    StepAdvance,
    StepDoneStart,
    StepWrapUp,
)

UPDATE_PLAN = "mcp__ccd_turn__update_plan"
WRAP_UP = "mcp__ccd_turn__wrap_up"
TOOL_NAMES: tuple[str, ...] = (UPDATE_PLAN, WRAP_UP)

# Where an item object may keep its text, in the order they are looked at.
_TEXT_KEYS = ("text", "content", "title", "step")


def parse_call(name: str, tool_input: Any, group: str) -> PlanEvent | None:
    """The event a ccd call states, or None when the name or the shape is unknown."""
    if not isinstance(tool_input, dict):
        return None
    if name == WRAP_UP:
        return StepWrapUp(group=group)
    if name != UPDATE_PLAN:
        return None
    has_done = "done" in tool_input
    has_start = "start" in tool_input
    if "items" in tool_input:
        # A full list together with a step operation is two operations at once: ambiguous.
        if "advance" in tool_input or has_done or has_start:
            return None
        items = parse_items(tool_input["items"])
        return None if items is None else FullList(group, "claude_desktop", items)
    if "advance" in tool_input:
        # advance together with done/start would be two operations at once: ambiguous.
        if tool_input["advance"] is True and not (has_done or has_start):
            return StepAdvance(group=group)
        return None
    if has_done or has_start:
        done_raw = tool_input.get("done", [])
        start = tool_input.get("start")
        if not isinstance(done_raw, list) or not all(_is_ref(r) for r in done_raw):
            return None
        if start is not None and not _is_ref(start):
            return None
        if not done_raw and start is None:
            return None
        return StepDoneStart(group=group, done=tuple(done_raw), start=start)
    return None


def is_full_list(name: str, tool_input: Any) -> bool:
    return isinstance(parse_call(name, tool_input, ""), FullList)


def parse_items(raw: Any) -> tuple[PlanItem, ...] | None:
    """`items` as a tuple of plan items; None when any item has an unknown shape."""
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for entry in raw:
        if isinstance(entry, str):
            items.append(PlanItem(text=entry))
            continue
        if not isinstance(entry, dict):
            return None
        text = next((entry[k] for k in _TEXT_KEYS if isinstance(entry.get(k), str)), None)
        if text is None:
            return None
        items.append(PlanItem(text=text, status=read_status(entry.get("status"), LIST_STATUSES)))
    return tuple(items)


def _is_ref(ref: Any) -> bool:
    # bool is an int in Python; `true` is not a position.
    return isinstance(ref, str) or (isinstance(ref, int) and not isinstance(ref, bool))

"""OpenCode's JSON, read: a todowrite part's list, a todo list, a text part as a prompt.

Why a module of its own: the shapes OpenCode writes inside its rows and files (docs/reading.md,
OpenCode) — a tool part's `state`, a todo's `status` words, a message's text part — change
with OpenCode's versions, apart from how the database is queried
(core/transcripts/opencode_sql.py) and how sessions become results
(core/transcripts/opencode.py). The database's parts and the older storage/ files
(core/transcripts/opencode_storage.py) hold the same shapes.
"""

from __future__ import annotations

import json
from typing import Any

from planwatch.core.model import (
    TODO_STATUSES,
    AgentPlan,
    PlanGroup,
    PlanItem,
    Source,
    Status,
    read_priority,
    read_status,
)
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title

__all__ = [
    "MAX_TITLE_CHARS",
    "SOURCE",
    "TODOWRITE",
    "TODO_STATUS",
    "part_text",
    "plan_of",
    "todo_items",
    "todowrite_list",
]

SOURCE: Source = "opencode_todos"
TODOWRITE = "todowrite"
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS
# A todo row's status word → ours (docs/reading.md, Statuses and priorities: anything else reads as pending).
TODO_STATUS: dict[object, Status] = {status: read_status(status, TODO_STATUSES) for status in TODO_STATUSES}


def plan_of(items: tuple[PlanItem, ...], source: Source = SOURCE) -> AgentPlan:
    """A session's own list as its plan: one group, OpenCode's source (or a fork's own,
    Kilo's `kilo_todos`)."""
    return AgentPlan(groups=(PlanGroup(key="", source=source, items=items),))


def todowrite_list(data: Any) -> tuple[PlanItem, ...] | None:
    """The list a todowrite part applied: only a `completed` call of the tool itself
    (an `error` part or a `tool: "invalid"` part changed nothing); None otherwise."""
    try:
        part = json.loads(data) if isinstance(data, str | bytes) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(part, dict) or part.get("type") != "tool" or part.get("tool") != TODOWRITE:
        return None
    state = part.get("state")
    if not isinstance(state, dict) or state.get("status") != "completed":
        return None
    call = state.get("input")
    return todo_items(call.get("todos") if isinstance(call, dict) else None)


def todo_items(raw: Any) -> tuple[PlanItem, ...] | None:
    """A todo list (`[{content, status, priority, …}]`, as todowrite's input and the
    storage/ todo files hold it) as plan items; None for an unrecognised shape."""
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for todo in raw:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None  # an unrecognised shape gives no list rather than a wrong one
        items.append(
            PlanItem(
                text=todo["content"],
                # A JSON value, not always a word (a list or an object is no key).
                status=read_status(todo.get("status"), TODO_STATUSES),
                priority=read_priority(todo.get("priority")),
            )
        )
    return tuple(items)


def part_text(part: Any) -> str | None:
    """A user message's text part as a prompt title; None for any other part."""
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        text = part["text"].strip()
        if text:
            return prompt_title(text, MAX_TITLE_CHARS)
    return None

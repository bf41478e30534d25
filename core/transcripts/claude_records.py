"""What Claude Code's records hold (docs/reading.md, Claude Code): a record's message and content blocks,
the planning calls an assistant record makes (TodoWrite lists, ExitPlanMode documents,
the desktop app's calls via claude_desktop.py), whether a tool result is an error, and the text a
person typed. Pure functions over one parsed record; the reader that keeps the state
across records is claude.py.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from planwatch.core.model import LIST_STATUSES, PlanItem, read_priority, read_status
from planwatch.core.transcripts import claude_desktop
from planwatch.core.transcripts.events import DocumentSet, FullList, PlanEvent

TODO_WRITE = "TodoWrite"
EXIT_PLAN_MODE = "ExitPlanMode"

# User text that is a harness wrapper, not something the person typed.
WRAPPER_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<system-reminder>",
    "<user-prompt-submit-hook>",
    "<ide_",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: The messages below were generated",
    "[Request interrupted",
)


def message(record: dict[str, Any]) -> dict[str, Any]:
    """A record's `message` object ({} where it has none)."""
    found = record.get("message")
    return found if isinstance(found, dict) else {}


def blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = message(record).get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


def full_list_calls(record: dict[str, Any], *, non_empty: bool = False) -> list[str]:
    """The call ids of the full-list calls an assistant record holds (TodoWrite, ccd
    update_plan with items), each of a recognised shape; `non_empty`: only the lists
    holding a step (an empty one may keep the finished list before it)."""
    if record.get("type") != "assistant":
        return []
    calls: list[str] = []
    for block in blocks(record):
        if block.get("type") != "tool_use":
            continue
        call_id, name, tool_input = block.get("id"), block.get("name"), block.get("input")
        if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
            continue
        if name == TODO_WRITE:
            todos = todo_list(tool_input)
            if todos is not None and (todos or not non_empty):
                calls.append(call_id)
        elif (
            claude_desktop.is_full_list(name, tool_input)
            and isinstance(tool_input, dict)
            and (tool_input.get("items") or not non_empty)
        ):
            calls.append(call_id)
    return calls


def call_event(name: str, tool_input: Any, group: str) -> PlanEvent | None:
    """The event a (non-task) planning call states, or None for any unknown shape."""
    if name == TODO_WRITE:
        todos = todo_list(tool_input)
        if todos is None:
            return None
        # Items are made only if the replay ever reads this list (FullList.build).
        return (
            FullList(group, "claude_todos", (), partial(_items, todos))
            if todos
            else FullList(group, "claude_todos", ())
        )
    if name in claude_desktop.TOOL_NAMES:
        return claude_desktop.parse_call(name, tool_input, group)
    if name == EXIT_PLAN_MODE and isinstance(tool_input, dict):
        plan = tool_input.get("plan")
        if isinstance(plan, str) and plan.strip():
            return DocumentSet(key=group, source="claude_plan_mode", text=plan)
    return None


def todo_items(tool_input: Any) -> tuple[PlanItem, ...] | None:
    """A TodoWrite call's items, or None for a shape it does not have."""
    todos = todo_list(tool_input)
    return None if todos is None else _items(todos)


def todo_list(tool_input: Any) -> list[dict[str, Any]] | None:
    """A TodoWrite call's `todos` when every one of them is of a known shape, else None:
    what decides whether the call states a list, without making its items."""
    if not isinstance(tool_input, dict):
        return None
    todos = tool_input.get("todos")
    if not isinstance(todos, list):
        return None
    for todo in todos:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None  # one unknown item makes the call unrecognised: no wrong plan
    return todos


def _items(todos: list[dict[str, Any]]) -> tuple[PlanItem, ...]:
    items: list[PlanItem] = []
    for todo in todos:
        active = todo.get("activeForm")
        items.append(
            PlanItem(
                text=todo["content"],
                status=read_status(todo.get("status"), LIST_STATUSES),
                active_form=active if isinstance(active, str) and active else None,
                priority=read_priority(todo.get("priority")),
            )
        )
    return tuple(items)


def is_error(block: dict[str, Any]) -> bool:
    if block.get("is_error") is True:
        return True
    content = block.get("content")
    if isinstance(content, list):
        content = next(
            (c.get("text") for c in content if isinstance(c, dict) and c.get("type") == "text"),
            None,
        )
    return isinstance(content, str) and content.lstrip().startswith("<tool_use_error>")


def prompt_text(content: Any) -> str | None:
    """The text a person typed, or None for tool results, images and harness wrappers."""
    if isinstance(content, str):
        texts = [content]
    elif isinstance(content, list):
        texts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    else:
        return None
    for text in texts:
        stripped = text.strip()
        if stripped and not stripped.startswith(WRAPPER_PREFIXES):
            return stripped
    return None

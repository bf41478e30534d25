"""Writing Claude Code transcripts in the real on-disk shape, for the app's tests.

The records copy the field sets of fixtures/samples/claude-code-todowrite.jsonl
(user prompt, assistant TodoWrite tool_use, the user tool_result with toolUseResult).
A test grows a transcript on disk by appending lines, like the harness does.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

VERSION = "2.1.328"


def slug(folder: str) -> str:
    """docs/reading.md, Claude Code: every character other than a letter or digit becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", folder)


@dataclass
class ClaudeTranscript:
    """One Claude Code session file under `<claude>/projects/<slug>/<id>.jsonl`."""

    claude_dir: Path
    cwd: str
    session_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    at: datetime = field(default_factory=lambda: datetime.now(UTC) - timedelta(minutes=30))
    branch: str = "main"
    _parent: str | None = None

    @property
    def path(self) -> Path:
        return self.claude_dir / "projects" / slug(self.cwd) / f"{self.session_id}.jsonl"

    def _base(self, kind: str) -> dict[str, Any]:
        self.at += timedelta(seconds=2)
        record_id = str(uuid.uuid4())
        record = {
            "parentUuid": self._parent,
            "isSidechain": False,
            "type": kind,
            "uuid": record_id,
            "timestamp": self.at.isoformat().replace("+00:00", "Z"),
            "userType": "external",
            "entrypoint": "cli",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": self.branch,
        }
        self._parent = record_id
        return record

    def _append(self, *records: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    def prompt(self, text: str) -> ClaudeTranscript:
        record = self._base("user")
        record["message"] = {"role": "user", "content": text}
        self._append(record)
        return self

    def custom_title(self, title: str) -> ClaudeTranscript:
        self._append({"type": "custom-title", "customTitle": title, "sessionId": self.session_id})
        return self

    def todo_write(self, todos: list[tuple[str, str]] | list[dict[str, str]]) -> ClaudeTranscript:
        """Append a TodoWrite call and its successful result (a full list)."""
        items = [
            t if isinstance(t, dict) else {"content": t[0], "status": t[1], "activeForm": f"Working on {t[0]}"}
            for t in todos
        ]
        call_id = f"toolu_{uuid.uuid4().hex[:24]}"
        call = self._base("assistant")
        call["message"] = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "tool_use", "id": call_id, "name": "TodoWrite", "input": {"todos": items}}],
            "stop_reason": "tool_use",
        }
        result = self._base("user")
        result["message"] = {
            "role": "user",
            "content": [
                {
                    "tool_use_id": call_id,
                    "type": "tool_result",
                    "content": "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
                }
            ],
        }
        result["toolUseResult"] = {"oldTodos": [], "newTodos": items}
        self._append(call, result)
        return self

    def exit_plan_mode(self, plan: str) -> ClaudeTranscript:
        """Append a plan-mode ExitPlanMode call and the person's approval (a plan document)."""
        call_id = f"toolu_{uuid.uuid4().hex[:24]}"
        plan_file = f"/home/dev/.claude/plans/{self.session_id}.md"
        call = self._base("assistant")
        call["message"] = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {
                    "type": "tool_use",
                    "id": call_id,
                    "name": "ExitPlanMode",
                    "input": {"plan": plan, "planFilePath": plan_file},
                }
            ],
            "stop_reason": "tool_use",
        }
        result = self._base("user")
        result["message"] = {
            "role": "user",
            "content": [
                {
                    "tool_use_id": call_id,
                    "type": "tool_result",
                    "content": "User has approved your plan. You can now start coding.",
                }
            ],
        }
        result["toolUseResult"] = {"plan": plan, "isAgent": False, "filePath": plan_file}
        self._append(call, result)
        return self


async def until(pilot: Any, condition: Any, timeout: float = 30.0, what: str = "condition") -> None:
    """Let the app run until `condition()` holds; fail after `timeout` seconds.

    The timeout only bounds a failure (a passing test returns as soon as the state
    holds), so it is generous: a scan on a 2-core machine running two suites at once
    takes several times what it takes alone. It also waits for the browse screen to have
    taken its list's selection (`_selection_taken`).
    """
    import time

    deadline = time.monotonic() + timeout
    while not (condition() and _selection_taken(pilot.app)):
        if time.monotonic() > deadline:
            if condition():
                raise AssertionError(f"{what} held, but the browse screen never took its list's selection")
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


def _selection_taken(app: Any) -> bool:
    """Whether the browse screen (when it is the one shown) has taken its session
    list's selection. The list posts the session under its cursor as a message and the
    screen takes it one message later (the one place the selection is set), so right
    after a scan or a refresh the checklist may still show the session before: `until`
    returns only once the two agree, so what a test reads next is one consistent state."""
    from planwatch.tui.screens.browse import BrowseScreen
    from planwatch.tui.widgets.session_list import SessionList

    screen = app.screen
    if not isinstance(screen, BrowseScreen) or not screen.list_selects:
        return True
    lists = screen.query(SessionList)
    return not lists or screen.selected_id == lists.first().selected_id


def option_texts(widget: Any) -> list[str]:
    """The plain text of every row of an OptionList (what a person reads)."""
    return [option.prompt.plain for option in widget.options]


def current_agent_row(checklist: Any) -> Any:
    """The agent row under a ChecklistView's cursor (None on a header, note or own item)."""
    ref = checklist.current_ref()
    if ref is None or ref.kind != "agent":
        return None
    return checklist.checklist.agent_rows[ref.index]


def select_own(checklist: Any, task_id: str) -> None:
    """Move a ChecklistView's cursor to the own item of `task_id`."""
    for position in range(checklist.option_count):
        if checklist.get_option_at_index(position).disabled:
            continue
        checklist.highlighted = position
        ref = checklist.current_ref()
        if ref is not None and ref.kind == "own" and checklist.checklist.own[ref.index].task_id == task_id:
            return
    raise AssertionError(f"no own item {task_id} in the checklist")


def files_holding(marker: str, *folders: Path) -> list[Path]:
    """Files under `folders` whose bytes hold `marker` (privacy: plan text on disk)."""
    return [
        path
        for folder in folders
        if folder.exists()
        for path in folder.rglob("*")
        if path.is_file() and marker.encode() in path.read_bytes()
    ]

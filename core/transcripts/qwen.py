"""Qwen Code chats (docs/reading.md, Qwen Code).

A session file (`projects/<slug>/chats/<session id>.jsonl`) is append-only JSON Lines:
records `{uuid, parentUuid, sessionId, timestamp, type, provenance, cwd, version,
message}` with `type` `user` (`message.parts[{text}]`), `assistant` (`parts` with
`functionCall {id, name, args}`), `tool_result` (`parts[{functionResponse}]` and
`toolCallResult {callId, status, resultDisplay}`) and `system`. `--resume` appends to
the same file; `--fork-session` writes a new file repeating the history under a new
session id: a session of its own.

Plan (source "qwen_todos"): `todo_write` is a full list each call, and what holds is the
**result's** list, `toolCallResult.resultDisplay.todos` of a result whose `status` is
"success" — never the call's `args`. The harness merges into its list fields a call left
out (an earlier `blockedBy`), and stores a call cut off mid-JSON with repaired partial
arguments before refusing it (`status: "error"`): the call's arguments are not what the
harness kept. So the reader looks at `tool_result` records only. Statuses `pending`,
`in_progress`, `completed` (any other word reads as pending); `blockedBy` (ids of steps
in the same list) becomes what a step waits for (`PlanItem.waits_for`).

Facts: the session id is the file's name when it is one (the records' `sessionId`
otherwise; a record naming another session is lineage); the folder is the records'
`cwd`; the title is the person's first prompt (the first `user` record's text);
activity is the last record's `timestamp`.

A successful result whose list is of no known shape leaves no plan (the list the harness
holds is then unknown) until the next readable one. What the reader holds of plan text
is the last accepted list, in memory only.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from planwatch.core.model import LIST_STATUSES, AgentPlan, PlanItem, read_status
from planwatch.core.replay import PlanReplay
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.events import FullList, Gap, PlanEvent
from planwatch.core.transcripts.reader import (
    SessionFacts,
    SessionResult,
    TranscriptReader,
    json_record,
    json_value_needles,
    line_time,
    parse_timestamp,
    time_pattern,
)

TODO_WRITE = "todo_write"
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS

_TIME = time_pattern("timestamp")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# A record of the person's (the title) and the first record's facts.
_USER = (b'"type":"user"', b'"type": "user"')
_SESSION = (b'"sessionId"',)


class QwenReader(TranscriptReader):
    """Reads one Qwen Code chat file."""

    harness = "qwen"
    # The planning tool's name: its `tool_result` records (and the calls and telemetry,
    # which are read and set aside).
    needles: tuple[bytes, ...] = (f'"{TODO_WRITE}"'.encode(),)
    scan_needles: tuple[bytes, ...] = (f'"{TODO_WRITE}"'.encode(),)
    # A result names its tool in `functionResponse.name`.
    full_list_needles: tuple[bytes, ...] = json_value_needles(TODO_WRITE)

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.facts: SessionFacts = SessionFacts()
        stem = path.name.removesuffix(".jsonl")
        if _UUID.fullmatch(stem):
            self.facts.id = stem
        # Plan text (memory only): the last accepted list, and whether it came after a
        # part of the file IO skipped.
        self._list: FullList | None = None
        # The list before it, when the last is empty: a list cleared after every step
        # was done leaves the finished list, marked cleared (the replay's rule).
        self._before: FullList | None = None
        self._gap = False
        self._list_after_gap = False
        self._seen_record = False

    # -- the contract ------------------------------------------------------------------

    def dynamic_needles(self) -> tuple[bytes, ...]:
        needles: tuple[bytes, ...] = ()
        if not self._seen_record:
            needles += _SESSION
        if self.facts.first_prompt is None:
            needles += _USER
        return needles

    def note_gap(self) -> None:
        self._gap = True
        self._list_after_gap = False

    def feed_line(self, line: bytes) -> None:
        record = self._load(line)
        if record is None:
            return
        self._facts(record)
        kind = record.get("type")
        if kind == "tool_result":
            found = _result_list(record)
            if found is not None:
                # A successful result whose list is not of a known shape: the list the
                # harness holds is not known, so no plan is shown rather than a wrong one.
                self._before = self._list
                self._list = found if isinstance(found, FullList) else None
                self._list_after_gap = self._gap
        elif kind == "user":
            self._title(record)
        self.facts.last_record(parse_timestamp(record.get("timestamp")))

    def touch_line(self, line: bytes) -> bool:
        moment = line_time(line, _TIME)
        self.facts.last_record(moment)
        return moment is not None

    def is_full_list(self, line: bytes) -> bool:
        assert self.full_list_pattern is not None
        if not self.full_list_pattern.occurs(line):
            return False
        record = json_record(line)
        return record is not None and record.get("type") == "tool_result" and isinstance(_result_list(record), FullList)

    def results(self) -> list[SessionResult]:
        return [SessionResult(facts=self.facts.copy(), plan=self._plan())]

    # -- records -----------------------------------------------------------------------

    def _facts(self, record: dict[str, Any]) -> None:
        facts = self.facts
        session_id = record.get("sessionId")
        if isinstance(session_id, str) and session_id:
            if facts.id is None:
                facts.id = session_id
            elif session_id != facts.id and facts.parent_id is None and not self._seen_record:
                # The file's name is the session; its first record naming another one
                # says where it came from.
                facts.parent_id = session_id
        if facts.cwd is None and isinstance(record.get("cwd"), str) and record["cwd"]:
            facts.cwd = record["cwd"]
        branch = record.get("gitBranch")
        if isinstance(branch, str) and branch:
            facts.git_branch = branch
        self._seen_record = True

    def _title(self, record: dict[str, Any]) -> None:
        if self.facts.first_prompt is not None:
            return
        provenance = record.get("provenance")
        if provenance is not None and provenance != "real_user":
            return  # text the harness put in the person's place
        message = record.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(parts, list):
            return
        texts = [
            part["text"]
            for part in parts
            if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
        ]
        text = "".join(texts)
        if text.strip():
            self.facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)

    def _plan(self) -> AgentPlan:
        events: list[PlanEvent] = []
        if self._list is not None:
            if not self._list.items and self._before is not None:
                events.append(self._before)  # cleared: finished, it stays (PlanReplay)
            events.append(self._list)
        if self._gap and not self._list_after_gap:
            # No list after the part IO skipped: what is shown may be outdated.
            events.append(Gap())
        replay = PlanReplay()
        replay.apply_all(events)
        return replay.snapshot()


# A successful todo_write result whose list is not of a known shape.
_UNKNOWN = object()


# How Qwen Code's todo tool words a write it refused without an error (`todoWrite.ts`):
# the list merged with the kept `blockedBy` failed validation, or a TodoCreated or
# TodoCompleted hook blocked the write (`createBlockedTodoResult`).
_REFUSED_DISPLAYS = ("Error writing todos", "Todo creation blocked", "Todo completion blocked")


def _result_list(record: dict[str, Any]) -> FullList | object | None:
    """The list a `todo_write` result says the harness holds, when the call succeeded;
    `_UNKNOWN` when it succeeded with a list of no known shape; None for any other
    result or a refused call (it changed nothing)."""
    outcome = record.get("toolCallResult")
    if not isinstance(outcome, dict) or outcome.get("status") != "success":
        return None
    if not _names_todo_write(record, outcome.get("callId")):
        return None
    display = outcome.get("resultDisplay")
    if isinstance(display, str) and display.startswith(_REFUSED_DISPLAYS):
        # Refused by the tool itself, recorded as a success all the same (no `error`):
        # the list merged with the kept `blockedBy` failed validation ("Error writing
        # todos: …"), or a todo hook blocked the write ("Todo creation blocked: …",
        # "Todo completion blocked: …"). Its display is the refusal's text; nothing
        # changed.
        return None
    items = _todos(display.get("todos")) if isinstance(display, dict) else None
    if items is None:
        return _UNKNOWN
    return FullList(group="", source="qwen_todos", items=items)


def _names_todo_write(record: dict[str, Any], call_id: object) -> bool:
    """The result answers a `todo_write` call: its `functionResponse` for `call_id`
    names the tool."""
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(parts, list):
        return False
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and response.get("name") == TODO_WRITE:
            if call_id is None or response.get("id") in (None, call_id):
                return True
    return False


def _todos(raw: Any) -> tuple[PlanItem, ...] | None:
    """`resultDisplay.todos` as plan items; None for an unrecognised shape."""
    if not isinstance(raw, list):
        return None
    positions: dict[str, int] = {}
    for at, todo in enumerate(raw):
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None
        todo_id = todo.get("id")
        if isinstance(todo_id, str | int) and str(todo_id) not in positions:
            positions[str(todo_id)] = at
    items: list[PlanItem] = []
    for at, todo in enumerate(raw):
        blocked_by = todo.get("blockedBy")
        waits: list[int] = []
        if isinstance(blocked_by, list):
            for ref in blocked_by:
                # An id the list does not hold (or the step itself) names nothing shown.
                where = positions.get(str(ref)) if isinstance(ref, str | int) else None
                if where is not None and where != at and where not in waits:
                    waits.append(where)
        items.append(
            PlanItem(
                text=todo["content"],
                status=read_status(todo.get("status"), LIST_STATUSES),
                waits_for=tuple(waits),
            )
        )
    return tuple(items)

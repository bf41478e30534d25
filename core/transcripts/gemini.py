"""Gemini CLI chat recordings (docs/reading.md, Gemini CLI).

A session file (`tmp/<slug>/chats/session-…jsonl`) is an append-only log in which a
message may be written several times:
- line 1: metadata `{sessionId, projectHash, startTime, lastUpdated, kind}` (`kind`
  "subagent" for a subagent's file, `chats/<parent id>/<id>.jsonl`);
- message records `{id, timestamp, type, content, toolCalls?, …}`: the last line with an
  id wins, in the place the id first took;
- `{"$set": {…}}` patches: `$set.messages` replaces the harness's message list (line 2
  sets the `<session_context>` message; a resume rebuilds the list without the earlier
  turns' `toolCalls`), other keys are metadata;
- `{"$rewindTo": id}`: that message and every later one are gone. A target the log
  never named empties the list, as Gemini CLI's own loader does.
Releases before 0.60 wrote `session-*.json`: one object `{…metadata, messages: […]}`
rewritten in place (IO hands it over whole: `feed_document`).

Plan (source "gemini_todos"): `write_todos` calls in a model message's `toolCalls`, each
a full list (`args.todos: [{description, status}]`), counted only with `status:
"success"` (a refused call did not happen). The plan is the last such list among the
messages still there, so a rewind takes back the lists it removed. Because a resume's
`$set.messages` carries earlier turns without their calls, plan calls come from the
record lines only: `$set.messages` neither adds nor removes them.

Facts: the session id from the metadata; the title from the first `user` message after
the `<session_context>` one; activity from the records' `timestamp`s. The folder is not
in the file: discovery finds it beside the chats (`TranscriptFile.folder_hint`).

What the reader holds is split by kind: `_order` (message ids, in order) and
`_gap_index` are ids and positions; `_lists` (message id → its full list) is the only
plan text, kept in memory only.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from planwatch.core.model import TODO_STATUSES, AgentPlan, PlanItem, read_status
from planwatch.core.replay import PlanReplay
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.events import FullList, Gap, PlanEvent
from planwatch.core.transcripts.reader import (
    SessionFacts,
    SessionResult,
    TranscriptReader,
    is_json_object,
    json_record,
    json_value_needles,
    line_time,
    parse_timestamp,
    time_pattern,
)

WRITE_TODOS = "write_todos"
SESSION_CONTEXT = "<session_context>"
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS

# A message record as Gemini CLI writes it: `{"id":"…","timestamp":"…",…` (compact JSON,
# id first). Lines that carry nothing else the reader needs are read this far only.
_MESSAGE_HEAD = re.compile(rb'^\s*\{\s*"id"\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*"timestamp"\s*:\s*"([^"\\]*)"')
_USER = (b'"type":"user"', b'"type": "user"')

# A record's time in raw bytes (`touch_line`).
_TIME = time_pattern("timestamp")


class GeminiReader(TranscriptReader):
    """Reads one Gemini CLI session file (JSONL, or a legacy whole `.json`)."""

    harness = "gemini"
    # Every message record (its id orders the rewinds), `$set.messages` (an array of
    # messages), rewinds, and the metadata line. `{"id":` only matches JSON structure:
    # inside a string its quotes would be escaped.
    needles: tuple[bytes, ...] = (
        b'{"id":',
        b'{"id" :',
        b'{ "id":',
        b'"$rewindTo"',
        b'"sessionId"',
    )
    scan_needles: tuple[bytes, ...] = (f'"{WRITE_TODOS}"'.encode(),)
    full_list_needles: tuple[bytes, ...] = json_value_needles(WRITE_TODOS)

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.facts: SessionFacts = SessionFacts()
        # Ids and positions (no text): every message id in the order it first came.
        self._order: dict[str, None] = {}
        # Where IO skipped part of the file: the number of messages seen before the gap.
        self._gap_index: int | None = None
        # Plan text (memory only): each message's last successful write_todos list.
        self._lists: dict[str, FullList] = {}

    # -- the contract ------------------------------------------------------------------

    def note_gap(self) -> None:
        self._gap_index = len(self._order)

    def feed_line(self, line: bytes) -> None:
        head = _MESSAGE_HEAD.match(line)
        if (
            head is not None
            and b"write_todos" not in line
            and not (self.facts.first_prompt is None and any(n in line for n in _USER))
        ):
            # A message naming no plan call and holding no title: only its id and time
            # matter. Its earlier copy's plan call (if any) is replaced by this copy's: none.
            message_id = _unescape(head.group(1))
            if message_id is not None and is_json_object(line):
                self._message_seen(message_id, None)
                self.facts.touch(parse_timestamp(head.group(2).decode("ascii", "replace")))
                return
        record = self._load(line)
        if record is not None:
            self._record(record)

    def touch_line(self, line: bytes) -> bool:
        """A message's time from its raw bytes. Kept as the latest seen, not the last:
        Gemini CLI writes a message again (with its first time) after later ones."""
        moment = line_time(line, _TIME)
        self.facts.touch(moment)
        return moment is not None

    def feed_document(self, data: bytes, *, plans: bool = True) -> None:
        """A legacy `session-*.json`: one object, the metadata and its `messages`."""
        record = self._load(data)
        if record is None:
            return
        self._metadata(record)
        messages = record.get("messages")
        if isinstance(messages, list):
            for message in messages:
                if isinstance(message, dict):
                    if not plans:  # the privacy switch: no plan call is looked at
                        message = {k: v for k, v in message.items() if k != "toolCalls"}
                    self._message(message)

    def is_full_list(self, line: bytes) -> bool:
        assert self.full_list_pattern is not None
        if not self.full_list_pattern.occurs(line):
            return False
        record = json_record(line)
        return record is not None and _message_list(record) is not None

    def results(self) -> list[SessionResult]:
        return [SessionResult(facts=self.facts.copy(), plan=self._plan())]

    # -- records -----------------------------------------------------------------------

    def _record(self, record: dict[str, Any]) -> None:
        target = record.get("$rewindTo")
        if isinstance(target, str):
            self._rewind(target)
            return
        patch = record.get("$set")
        if isinstance(patch, dict):
            self._patch(patch)
            return
        if isinstance(record.get("id"), str):
            self._message(record)
            return
        self._metadata(record)

    def _metadata(self, record: dict[str, Any]) -> None:
        session_id = record.get("sessionId")
        if not isinstance(session_id, str) or not session_id:
            return
        facts = self.facts
        if facts.id is None:
            facts.id = session_id
        if record.get("kind") == "subagent":
            facts.is_subagent = True
            # chats/<parent session id>/<session id>.jsonl
            if self.path.parent.parent.name == "chats":
                facts.parent_id = self.path.parent.name
        facts.touch(parse_timestamp(record.get("startTime")))
        facts.touch(parse_timestamp(record.get("lastUpdated")))

    def _patch(self, patch: dict[str, Any]) -> None:
        """`$set`: a rebuilt message list only names messages (their order, the title);
        it neither adds nor removes plan calls."""
        messages = patch.get("messages")
        if not isinstance(messages, list):
            return
        for message in messages:
            if not isinstance(message, dict):
                continue
            message_id = message.get("id")
            if isinstance(message_id, str) and message_id not in self._order:
                self._order[message_id] = None
            self._title(message)
            self.facts.touch(parse_timestamp(message.get("timestamp")))

    def _message(self, message: dict[str, Any]) -> None:
        message_id = message.get("id")
        if not isinstance(message_id, str):
            return
        self._message_seen(message_id, _message_list(message))
        self._title(message)
        self.facts.touch(parse_timestamp(message.get("timestamp")))

    def _message_seen(self, message_id: str, plan: FullList | None) -> None:
        """A copy of message `message_id`: it keeps the place its first copy took, and
        this copy's plan call (or none) replaces the earlier copy's."""
        if message_id not in self._order:
            self._order[message_id] = None
        if plan is None:
            self._lists.pop(message_id, None)
        else:
            self._lists[message_id] = plan

    def _rewind(self, target: str) -> None:
        ids = list(self._order)
        if target in self._order:
            cut = ids.index(target)
        elif self._gap_index is not None:
            # The target lies in the part IO skipped: every message after the gap is
            # later than it, and the plan may have lost lists we never saw.
            cut = self._gap_index
        else:
            cut = 0  # a target the log never named: Gemini CLI empties the list
        for message_id in ids[cut:]:
            del self._order[message_id]
            self._lists.pop(message_id, None)
        if self._gap_index is not None:
            self._gap_index = min(self._gap_index, len(self._order))

    def _title(self, message: dict[str, Any]) -> None:
        if self.facts.first_prompt is not None or message.get("type") != "user":
            return
        text = _text_of(message.get("content"))
        if text is None or not text.strip() or text.lstrip().startswith(SESSION_CONTEXT):
            return
        self.facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)

    def _plan(self) -> AgentPlan:
        events: list[PlanEvent] = []
        position = len(self._order)
        for message_id in reversed(self._order):
            position -= 1
            found = self._lists.get(message_id)
            if found is not None:
                events.append(found)
                break
        else:
            position = -1
        if self._gap_index is not None and position < self._gap_index:
            # No list after the part IO skipped: what is shown may be outdated.
            events.append(Gap())
        replay = PlanReplay()
        replay.apply_all(events)
        return replay.snapshot()


def _message_list(message: dict[str, Any]) -> FullList | None:
    """The last successful `write_todos` list of a message's tool calls, or None."""
    calls = message.get("toolCalls")
    if not isinstance(calls, list):
        return None
    found: FullList | None = None
    for call in calls:
        if not isinstance(call, dict) or call.get("name") != WRITE_TODOS or call.get("status") != "success":
            continue
        args = call.get("args")
        todos = args.get("todos") if isinstance(args, dict) else None
        items = _todos(todos)
        if items is not None:
            found = FullList(group="", source="gemini_todos", items=items)
    return found


def _todos(raw: Any) -> tuple[PlanItem, ...] | None:
    """`args.todos` as plan items; None for an unrecognised shape (it changes nothing)."""
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for todo in raw:
        if not isinstance(todo, dict) or not isinstance(todo.get("description"), str):
            return None
        items.append(PlanItem(text=todo["description"], status=read_status(todo.get("status"), TODO_STATUSES)))
    return tuple(items)


def _text_of(content: Any) -> str | None:
    """A message's text: a string, or the `text` parts of a part list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return None
    texts = [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "".join(texts) if texts else None


def _unescape(raw: bytes) -> str | None:
    """A JSON string's body (as matched, escapes included) as text."""
    if b"\\" not in raw:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    record = json_record(b'{"s":"' + raw + b'"}')
    value = record.get("s") if record is not None else None
    return value if isinstance(value, str) else None

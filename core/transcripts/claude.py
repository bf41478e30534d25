"""Claude Code transcripts: the CLI, the IDE extensions and the desktop app's code sessions.

The format and its rules are described in docs/reading.md, Claude Code and The Claude
desktop app's task list.

Records → plan events and session facts. What is read:
- `TodoWrite` (claude_todos): `input.todos` is the full list; `[]` clears it. Items are
  `{content, status, activeForm}`, or `{id, content, status, priority}` before 1.0.x.
- `mcp__ccd_turn__*` (claude_desktop): shapes in `claude_desktop.py`.
- `TaskCreate` / `TaskUpdate` (claude_tasks): correlated in `claude_tasks.py`.
- `ExitPlanMode`: `input.plan` is a plan-mode document.

When a call applies: a call is held until its `tool_result` arrives and applies then,
unless the result is an error — the block's `is_error: true`, content starting with
`<tool_use_error>`, or a `toolUseResult` that is a plain string (what Claude Code writes
when a call is refused or fails). The same rule holds for Codex (`codex.py`) and ccd. A
call without a result (interrupted session, result beyond what IO read) never applies.

Groups: the main transcript's records go to "", inline sidechain records
(`isSidechain: true` + `agentId`) to "agent-<agentId>" (without an `agentId`, as older
versions wrote them, to "agent-sidechain": never to the main plan), and every record of
a subagent file `agent-<agentId>.jsonl` to "agent-<agentId>".

Facts: the id is the file name; a record carrying another `sessionId` is lineage
(`parent_id`; for a subagent file, the session it belongs to). A file whose name is not
a session id (renamed by a person) takes the first record's `sessionId` instead.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

import msgspec

from planwatch.core.replay import PlanReplay
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts import claude_desktop
from planwatch.core.transcripts.claude_records import (
    EXIT_PLAN_MODE,
    TODO_WRITE,
    blocks,
    call_event,
    full_list_calls,
    is_error,
    message,
    prompt_text,
    todo_list,
)
from planwatch.core.transcripts.claude_tasks import TOOL_NAMES as TASK_TOOLS
from planwatch.core.transcripts.claude_tasks import TaskCorrelator
from planwatch.core.transcripts.events import Gap, PlanEvent
from planwatch.core.transcripts.reader import (
    SessionFacts,
    SessionResult,
    TranscriptReader,
    find_first,
    hold,
    json_needles,
    json_record,
    json_value_needles,
    line_time,
    parse_timestamp,
    quoted_needles,
    time_pattern,
)
from planwatch.core.transcripts.superseded import Superseding, Unproven, line_around

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")

# A record's own time in raw bytes (`touch_line`).
_TIME = time_pattern("timestamp")

PLAN_TOOLS: tuple[str, ...] = (TODO_WRITE, EXIT_PLAN_MODE, *TASK_TOOLS, *claude_desktop.TOOL_NAMES)
FULL_LIST_TOOLS: tuple[str, ...] = (TODO_WRITE, claude_desktop.UPDATE_PLAN)
TITLE_TYPES: tuple[str, ...] = ("custom-title", "ai-title", "summary")
# Each title record type and its fact, in title priority order (docs/reading.md, Claude Code).
_TITLE_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("custom-title", "customTitle", "custom_title"),
    ("ai-title", "aiTitle", "ai_title"),
    ("summary", "summary", "summary"),
)
MAX_PENDING = 100
# The group of inline sidechain records that name no agent (versions before agentId).
SIDECHAIN_GROUP = "agent-sidechain"
# A first prompt is kept only to make a title; the widgets shorten it further.
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS

# A prompt the person typed: a user message whose content is a string, or a list that
# starts with a text block or a pasted image before its text (tool results start with a
# tool_result block instead).
_PROMPT_MARKERS = (
    b'"role":"user","content":"',
    b'"role": "user", "content": "',
    b'"role":"user","content":[{"type":"text"',
    b'"role": "user", "content": [{"type": "text"',
    b'"role":"user","content":[{"type":"image"',
    b'"role": "user", "content": [{"type": "image"',
)
# The first user record, prompt or not: it carries the session's cwd, branch and id
# (and, when it is torn, it is counted as a skipped line).
_USER_RECORD = json_needles("type", "user")


# What a superseded line is decoded to (superseded.py): the record's facts and its
# blocks' kinds, ids and names; a call's input stays raw bytes (decoded only for a
# TodoWrite, to the shape that decides whether it is held), a result's text unread.
class _Todo(msgspec.Struct):
    content: str


class _TodoInput(msgspec.Struct):
    todos: list[_Todo] | None = None


class _Block(msgspec.Struct):
    type: Any = None
    id: Any = None
    name: Any = None
    tool_use_id: Any = None
    # Read as a TodoWrite input whatever the tool: `todos` is None for any other tool's
    # (and a tool's `todos` of another shape gives up: a TodoWrite's decides the hold).
    input: _TodoInput | None = None


class _Message(msgspec.Struct):
    content: list[_Block] | str | None = None


class _Record(msgspec.Struct):
    type: Any = None
    timestamp: Any = None
    sessionId: Any = None  # noqa: N815 (the record's own key)
    cwd: Any = None
    gitBranch: Any = None  # noqa: N815
    isSidechain: Any = None  # noqa: N815
    agentId: Any = None  # noqa: N815
    message: _Message | None = None


_RECORD = msgspec.json.Decoder(_Record).decode


def _decoded(line: bytes) -> _Record:
    """A superseded line's record, decoded as far as the facts and ids; a line the typed
    decode does not read as the full one would (not JSON, another shape) is `Unproven`."""
    try:
        return _RECORD(line)
    except Exception as exc:
        raise Unproven("a record the typed decode does not read") from exc


# The planning tools a skipped stretch may not hold (superseded.py): only TodoWrite.
_NOT_SKIPPED = frozenset(PLAN_TOOLS) - {TODO_WRITE}


class ClaudeReader(Superseding, TranscriptReader):
    """Reads one Claude Code transcript: a session file or a subagent file."""

    harness = "claude"
    # A planning call names its tool as a value (`"name":"TodoWrite"`): value needles,
    # which `needle_pattern` anchors on the colon (several times faster to scan for
    # than the quote `"TodoWrite"` starts with). The scan needles keep the broad form:
    # with plan reading off, no line naming a planning tool anywhere is parsed.
    needles: tuple[bytes, ...] = (
        *(needle for name in PLAN_TOOLS for needle in json_value_needles(name)),
        *(needle for kind in TITLE_TYPES for needle in json_needles("type", kind)),
    )
    scan_needles: tuple[bytes, ...] = (
        *(f'"{name}"'.encode() for name in PLAN_TOOLS),
        b'"toolUseResult"',
    )
    # A full list is a call, which names its tool as a value (`"name":"TodoWrite"`):
    # value needles are anchored on their colon, which the backward scan finds faster.
    full_list_needles: tuple[bytes, ...] = tuple(
        needle for name in FULL_LIST_TOOLS for needle in json_value_needles(name)
    )

    def __init__(self, path: Path, *, every_list: bool = False) -> None:
        """`every_list`: make every list into items as it applies (PlanReplay)."""
        super().__init__(path)
        self._every_list = every_list
        self._anchor_branch = False  # the anchor names a branch (superseded.py)
        stem = path.name.removesuffix(".jsonl")
        self._subagent_group = stem if stem.startswith("agent-") else None
        self.facts: SessionFacts = SessionFacts(id=stem, is_subagent=self._subagent_group is not None)
        # Claude Code names every transcript `<sessionId>.jsonl`, and that name is the
        # identity. A file renamed by a person (a copy, an attachment to a bug report)
        # has lost it: the first record's sessionId stands in for it then.
        self._id_from_records = self._subagent_group is None and not _UUID.fullmatch(stem)
        self._replay = PlanReplay(every_list=every_list)
        self._tasks = TaskCorrelator()
        # Accepted-on-result calls other than tasks: call id → the event it states.
        self._pending: OrderedDict[str, PlanEvent] = OrderedDict()
        self._seen_user = False  # a line holding the first user record was fed
        # Title facts read after IO's last gap (None: no gap). Titles may be anywhere
        # in a file (docs/reading.md, Claude Code): a kind not restated after the gap may have a later
        # record in the skipped middle than the one the head gave.
        self._titles_after_gap: set[str] | None = None

    # -- the contract ------------------------------------------------------------------

    def dynamic_needles(self) -> list[bytes]:
        # Only positive byte tests (no "and not"), so that IO may test a block of lines,
        # or a piece of a long line, and it passes whenever one of its lines would.
        # Results can be tens of MB (file reads, images): only those answering a call we
        # hold pass. Quoted, so one id is never found inside a longer one.
        needles = [needle for call_id in self._waiting_ids() for needle in quoted_needles(call_id)]
        if self.facts.first_prompt is None:
            # Until the first real prompt: it names the session, and its record carries
            # the cwd, branch and session id.
            needles += _PROMPT_MARKERS
            if not self._seen_user:
                needles += _USER_RECORD
        return needles

    def note_gap(self) -> None:
        self._replay.apply(Gap())
        self._titles_after_gap = set()

    def middle_needles(self) -> tuple[bytes, ...]:
        # Only the kinds that could still change the title: those ranked above the best
        # kind read after the gap (its own last record is already the latest).
        settled = self._titles_after_gap
        if settled is None:
            return ()
        needles: list[bytes] = []
        for kind, _key, field in _TITLE_FIELDS:
            if field in settled:
                break
            needles += json_needles("type", kind)
        return tuple(needles)

    def feed_middle_line(self, line: bytes) -> None:
        settled = self._titles_after_gap
        record = self._load(line)
        if record is None or settled is None:
            return
        for kind, key, field in _TITLE_FIELDS:
            if record.get("type") == kind and field not in settled:
                self._title(field, record.get(key))

    def feed_line(self, line: bytes) -> None:
        if not self._seen_user and any(needle in line for needle in _USER_RECORD):
            self._seen_user = True
        record = self._load(line)
        if record is None:
            return
        kind = record.get("type")
        if kind == "assistant":
            self._touch(record)
            self._assistant(record)
        elif kind == "user":
            self._touch(record)
            self._user(record)
        elif kind in TITLE_TYPES:
            _kind, key, field = next(t for t in _TITLE_FIELDS if t[0] == kind)
            self._title(field, record.get(key))
        # Every other record type (attachment, api-request, …) is skipped, even when a
        # tool name in it passed the byte prefilter.

    def is_full_list(self, line: bytes) -> bool:
        assert self.full_list_pattern is not None
        if not self.full_list_pattern.occurs(line):
            return False
        record = json_record(line)
        # Only a list of the transcript's own plan ends the recovery: an inline
        # subagent's list (isSidechain) replaces nothing of the session's own. An empty
        # list does not end it either: after a finished list it keeps that list, shown
        # finished (the replay), so the recovery goes on to the list before it.
        return (
            record is not None
            and self._group(record) == (self._subagent_group or "")
            and bool(full_list_calls(record, non_empty=True))
        )

    def full_list_result_needles(self, line: bytes) -> tuple[bytes, ...]:
        record = json_record(line)
        calls = full_list_calls(record) if record is not None else []
        return tuple(needle for call_id in calls for needle in quoted_needles(call_id))

    def full_list_result(self, line: bytes, later: bytes) -> bool | None:
        record, result = json_record(line), json_record(later)
        if record is None or result is None or result.get("type") != "user":
            return None
        calls = set(full_list_calls(record))
        content = message(result).get("content")
        answers = [
            b
            for b in (content if isinstance(content, list) else [])
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in calls
        ]
        if not answers:
            return None  # another record naming the id (progress, hooks): look further
        # The same rule as `_user`: an error block or a string toolUseResult failed.
        envelope = result.get("toolUseResult")
        return any(not is_error(b) and not isinstance(envelope, str) for b in answers)

    def results(self) -> list[SessionResult]:
        return [SessionResult(facts=self.facts.copy(), plan=self._replay.snapshot())]

    def result_facts(self) -> list[SessionFacts]:
        return [self.facts.copy()]

    # -- reading less (superseded.py) ----------------------------------------------------

    def can_supersede(self) -> bool:
        return not self._every_list and not self._id_from_records

    def _fresh(self) -> None:
        self.__init__(self.path)  # type: ignore[misc]

    def anchor(self, line: bytes) -> tuple[str, tuple[bytes, ...]] | None:
        if not any(needle in line for needle in self.full_list_needles):
            return None
        record = json_record(line)
        if record is None or record.get("type") != "assistant":
            return None
        self._decoded = (line, record)  # read once: `feed_line` takes it from here
        group = self._group(record)
        if group != (self._subagent_group or ""):
            return None
        ids: list[Any] = [
            block.get("id")
            for block in blocks(record)
            if block.get("type") == "tool_use" and block.get("name") == TODO_WRITE and todo_list(block.get("input"))
        ]
        if not ids or not all(isinstance(call_id, str) and call_id for call_id in ids):
            return None
        # The anchor's branch is the latest of every line before it: a skipped line's is
        # then never the last (a branch is the latest a record names).
        branch = record.get("gitBranch")
        self._anchor_branch = isinstance(branch, str) and bool(branch)
        return group, tuple(needle for call_id in ids for needle in quoted_needles(call_id))

    def skip_superseded(self, line: bytes, end: int, data: bytes, anchor: int, max_line: int) -> bool:
        record = _decoded(line)
        if record.type != "assistant":
            return False  # no call: fed as always
        content = record.message.content if record.message is not None else None
        calls: list[str] = []
        for block in content if isinstance(content, list) else ():
            if block.type != "tool_use":
                continue
            call_id, name = block.id, block.name
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
                continue
            if name in _NOT_SKIPPED:
                raise Unproven("a planning call other than a full list")
            if name == TODO_WRITE and block.input is not None and block.input.todos is not None:
                calls.append(call_id)  # `todo_list` would read it: the full read holds it
        if not calls:
            return False  # no list the full read would hold: fed as always
        self._settled(record)
        for call_id in calls:
            at = find_first(data, quoted_needles(call_id), end)
            span = line_around(data, at) if 0 <= at < anchor else None
            if span is None or span[1] - span[0] > max_line:
                raise Unproven("a call answered after the anchor, or never")
            result = _decoded(data[span[0] : span[1]])
            answered = result.message.content if result.type == "user" and result.message is not None else None
            if not isinstance(answered, list) or not any(
                b.type == "tool_result" and b.tool_use_id == call_id for b in answered
            ):
                raise Unproven("a call's first later mention is not its result")
            self._settled(result)
            self._waiting_answer(end, at, len(self._pending), MAX_PENDING)
        self.skipped_any = True
        return True

    def _settled(self, record: _Record) -> None:
        """Raise unless feeding `record` would change no fact but the last activity."""
        facts = self.facts
        if not self._seen_user or facts.cwd is None:
            raise Unproven("the first user record or the folder not read yet")
        if self._subagent_group is None and record.isSidechain is True:
            raise Unproven("a sidechain record")
        session_id = record.sessionId
        if isinstance(session_id, str) and session_id and session_id != facts.id and facts.parent_id is None:
            raise Unproven("another session id")
        branch = record.gitBranch
        if isinstance(branch, str) and branch and not self._anchor_branch:
            raise Unproven("a branch the anchor does not restate")

    def _apply(self, event: PlanEvent) -> None:
        if self._covering is not None:
            self._check_event(event)
        self._replay.apply(event)

    # -- records -----------------------------------------------------------------------

    def _group(self, record: dict[str, Any]) -> str:
        if self._subagent_group is not None:
            return self._subagent_group
        if record.get("isSidechain") is not True:
            return ""
        agent = record.get("agentId")
        if isinstance(agent, str) and agent:
            return f"agent-{agent}"
        # Older versions wrote a subagent's records inline with no agentId: they are
        # still not the session's own, so they never touch the main plan.
        return SIDECHAIN_GROUP

    def touch_line(self, line: bytes) -> bool:
        moment = line_time(line, _TIME)
        self.facts.last_record(moment)
        return moment is not None

    def _touch(self, record: dict[str, Any]) -> None:
        facts = self.facts
        facts.touch(parse_timestamp(record.get("timestamp")))
        session_id = record.get("sessionId")
        if isinstance(session_id, str) and session_id and self._id_from_records:
            self._id_from_records = False
            facts.id = session_id
        elif isinstance(session_id, str) and session_id and session_id != facts.id:
            if facts.parent_id is None:
                facts.parent_id = session_id
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and facts.cwd is None:
            facts.cwd = cwd
        branch = record.get("gitBranch")
        if isinstance(branch, str) and branch:
            facts.git_branch = branch  # the latest: a session may switch branches

    def _title(self, field: str, value: Any) -> None:
        if isinstance(value, str) and value.strip():
            setattr(self.facts, field, value[:MAX_TITLE_CHARS])
            if self._titles_after_gap is not None:
                self._titles_after_gap.add(field)

    def _assistant(self, record: dict[str, Any]) -> None:
        group = self._group(record)
        for block in blocks(record):
            if block.get("type") != "tool_use":
                continue
            call_id, name = block.get("id"), block.get("name")
            if not isinstance(call_id, str) or not call_id or not isinstance(name, str):
                continue
            tool_input = block.get("input")
            if name in TASK_TOOLS:
                self._tasks.on_call(call_id, name, tool_input, group)
                continue
            event = call_event(name, tool_input, group)
            if event is not None:
                self._hold(call_id, event)

    def _user(self, record: dict[str, Any]) -> None:
        content = message(record).get("content")
        results = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        if not results:
            self._maybe_first_prompt(record, content)
            return
        # `toolUseResult` belongs to the record; with several results in one record it
        # cannot be told whose it is.
        envelope = record.get("toolUseResult", None)
        ambiguous = len(results) > 1 and "toolUseResult" in record
        for block in results:
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                continue
            # A string envelope says a call was refused or failed; in a batched record
            # it cannot be told which one, so none of them applies (no guessing).
            failed = is_error(block) or isinstance(envelope, str)
            event = self._pending.pop(call_id, None)
            if event is not None:
                if not failed:
                    self._apply(event)
                continue
            if call_id in self._tasks:
                for task_event in self._tasks.on_result(call_id, is_error=failed, result=envelope, ambiguous=ambiguous):
                    self._apply(task_event)

    def _maybe_first_prompt(self, record: dict[str, Any], content: Any) -> None:
        if self.facts.first_prompt is not None or record.get("isMeta") is True:
            return
        if record.get("isCompactSummary") is True:
            return
        if self._subagent_group is None and record.get("isSidechain") is True:
            return  # an inline subagent's prompt does not name the session
        text = prompt_text(content)
        if text:
            self.facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)

    # -- pending calls -----------------------------------------------------------------

    def _hold(self, call_id: str, event: PlanEvent) -> None:
        if self._answers:
            self._room(len(self._pending), MAX_PENDING)
        hold(self._pending, call_id, event, MAX_PENDING)

    def _waiting_ids(self) -> list[str]:
        return [*self._pending, *self._tasks.pending_ids]

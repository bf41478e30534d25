"""pi sessions with the todo extension (docs/reading.md, pi).

A session file (`sessions/--<folder>--/<time>_<id>.jsonl`) is a JSON Lines **tree**:
line 1 is the header `{"type":"session","version":3,"id","timestamp","cwd"}` (a fork
made with `--fork` adds `parentSession`, the path of the file it came from: shown as
lineage); every later line is an entry `{type, id, parentId, timestamp, …}`. Branching
appends entries whose `parentId` is an older entry, so the session's current state is
the path from the **last entry** back to the root, not the file's last lines.

Plan (source "pi_todos"): pi has no todo tool of its own; the todo extension its
package ships answers every call (`add`, `toggle`, `clear`, `list`) with the whole list
in `details.todos` (`[{id, text, done}]`). The plan is the list of the last `todo`
result on the current path that succeeded: a result with `isError: true` (pi's own
validation) or with `details.error` (the extension's refusals, sent with `isError:
false`) changed nothing. `done: true` is completed, anything else pending (docs/reading.md, Statuses and priorities).

Bad trees: an entry whose `parentId` the file does not hold cuts the path. What the path
holds below the cut is certain; when no list was found there, the session is shown
without a plan and `problem` names the file and the entry (the index says it once).
Where IO skipped part of a long file the cut is expected (`note_gap`): the plan is then
marked partial instead. A reader fed only the fact lines (a warm `planwatch sessions`)
holds part of the tree and never judges it (`result_facts`).

Facts: the session id from the header; the folder is the header's `cwd`; the title is
the first `user` message; activity is the last entry's `timestamp`.

What the reader holds: every entry's id and parent (ids only, no text), and the list of
each successful todo result (plan text, in memory only: a branch may go back to any).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from planwatch.core.model import AgentPlan, PlanItem
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

TODO = "todo"
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS

_TIME = time_pattern("timestamp")
# An entry as pi writes it: `{"type":"…","id":"…","parentId":null|"…",…` (compact, in
# that order). Lines that carry nothing else the reader needs are read this far only.
_ENTRY_HEAD = re.compile(
    rb'^\s*\{"type":"([A-Za-z_]+)","id":"((?:[^"\\]|\\.)*)","parentId":(?:null|"((?:[^"\\]|\\.)*)")'
)
_USER = (b'"role":"user"', b'"role": "user"')
_TODO_RESULT = json_value_needles(TODO)  # `"toolName":"todo"`, and a call's `"name":"todo"`
_UUID_TAIL = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")

# What an entry left on the path: a successful todo list, an unreadable successful
# result (the list is not known), or nothing the plan needs.
_UNKNOWN = object()


class PiReader(TranscriptReader):
    """Reads one pi session file."""

    harness = "pi"
    # Every entry (its id and parent make the tree) and the header.
    needles: tuple[bytes, ...] = (b'"parentId"', b'"type":"session"', b'"type": "session"')
    # Lines naming the todo tool (its calls and results): what the privacy switch keeps
    # from the reader, and where the backward scan looks.
    scan_needles: tuple[bytes, ...] = _TODO_RESULT
    full_list_needles: tuple[bytes, ...] = (b'"toolName":"todo"', b'"toolName": "todo"')

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.facts: SessionFacts = SessionFacts()
        # The tree, ids only: each entry's parent (None for a root).
        self._parents: dict[str, str | None] = {}
        self._leaf: str | None = None
        # Plan text (memory only): per successful todo result, its list (or _UNKNOWN).
        self._lists: dict[str, FullList | object] = {}
        self._gap = False
        # What is wrong with the tree, for the index to say once (None: nothing).
        self.problem: str | None = None

    # -- the contract ------------------------------------------------------------------

    def note_gap(self) -> None:
        self._gap = True

    def feed_line(self, line: bytes) -> None:
        head = _ENTRY_HEAD.match(line)
        if (
            head is not None
            and is_json_object(line)
            and not (
                any(n in line for n in _TODO_RESULT)
                or (self.facts.first_prompt is None and any(n in line for n in _USER))
            )
        ):
            # An entry naming no todo call and holding no title: only its place matters.
            self._entry(_text(head.group(2)), _text(head.group(3)) if head.group(3) is not None else None)
            self.facts.last_record(line_time(line, _TIME))
            return
        record = self._load(line)
        if record is not None:
            self._record(record)

    def touch_line(self, line: bytes) -> bool:
        """A record's time, and (for a line the privacy switch keeps from `feed_line`)
        its place in the tree: ids only, from the raw bytes."""
        head = _ENTRY_HEAD.match(line) if is_json_object(line) else None  # a torn line is no entry
        if head is not None:
            entry_id = _text(head.group(2))
            if entry_id is not None and entry_id not in self._parents:
                self._entry(entry_id, _text(head.group(3)) if head.group(3) is not None else None)
        moment = line_time(line, _TIME)
        self.facts.last_record(moment)
        return moment is not None

    def is_full_list(self, line: bytes) -> bool:
        """Never: a todo result is the plan only when it lies on the path from the last
        entry back to the root, which a line alone cannot tell (a later result may sit on
        a branch the session left, and the list that holds before it). So a long file's
        tail and backward scan stop at no result: the replay reads forward from as far
        back as the bound allows (docs/reading.md, Bounded reading), and the path walked
        from the last entry either reaches its list or leaves what was read (no plan,
        the part skipped said)."""
        return False

    def results(self) -> list[SessionResult]:
        plan = self._plan()
        return [SessionResult(facts=self.facts.copy(), plan=plan)]

    def result_facts(self) -> list[SessionFacts]:
        """The facts alone, the tree not walked: a start that takes the plan from the
        warm-start cache fed this reader only the lines that carry facts, so the tree
        it holds is partial and its cuts say nothing. A file with a real cut is never
        remembered (the index keeps no trace of a reader with a problem): every start
        reads it whole and names the cut."""
        return [self.facts.copy()]

    # -- records -----------------------------------------------------------------------

    def _record(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if kind == "session":
            self._header(record)
            return
        entry_id = record.get("id")
        if not isinstance(entry_id, str):
            return
        parent = record.get("parentId")
        # null is the root; anything but a string or null names no entry: the path is cut there.
        self._entry(entry_id, parent if isinstance(parent, str) or parent is None else _NOT_AN_ID)
        self.facts.last_record(parse_timestamp(record.get("timestamp")))
        if kind != "message":
            return
        message = record.get("message")
        found = _result_list(message)
        if found is not None:
            self._lists[entry_id] = found
        elif isinstance(message, dict) and message.get("role") == "user":
            self._title(message)

    def _header(self, record: dict[str, Any]) -> None:
        facts = self.facts
        if facts.id is None and isinstance(record.get("id"), str) and record["id"]:
            facts.id = record["id"]
        if facts.cwd is None and isinstance(record.get("cwd"), str) and record["cwd"]:
            facts.cwd = record["cwd"]
        origin = record.get("parentSession")
        if isinstance(origin, str) and origin:
            # The file it was forked from: its session id is the id its name ends in.
            stem = Path(origin).name.removesuffix(".jsonl")
            match = _UUID_TAIL.search(stem)
            facts.parent_id = match.group(1) if match else stem or None
        facts.last_record(parse_timestamp(record.get("timestamp")))

    def _entry(self, entry_id: str | None, parent: str | None) -> None:
        if entry_id is None:
            return
        if entry_id not in self._parents:
            self._parents[entry_id] = parent
        self._leaf = entry_id

    def _title(self, message: dict[str, Any]) -> None:
        if self.facts.first_prompt is not None:
            return
        content = message.get("content")
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = "".join(
                part["text"]
                for part in content
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
            )
        else:
            return
        if text.strip():
            self.facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)

    def _plan(self) -> AgentPlan:
        """The list of the last successful todo result on the path from the last entry
        back to the root (ids walked, at most once each: a loop ends the walk)."""
        self.problem = None
        events: list[PlanEvent] = []
        found: FullList | object | None = None
        seen: set[str] = set()
        at = self._leaf
        while at is not None and at not in seen:
            seen.add(at)
            if at is _NOT_AN_ID:
                self.problem = (
                    f"{self.path}: an entry's parentId is neither null nor an entry's id; "
                    "the session is shown without the plan that branch may hold"
                )
                found = _UNKNOWN
                break
            if at not in self._parents:
                # The path leaves what was read: an entry names a parent the file does
                # not hold (or one in a part IO skipped).
                if not self._gap:
                    self.problem = (
                        f"{self.path}: an entry names the parent {at[:40]!r}, which the file does not hold; "
                        "the session is shown without the plan that branch may hold"
                    )
                found = _UNKNOWN
                break
            found = self._lists.get(at)
            if found is not None:
                break
            at = self._parents[at]
        else:
            if at is not None:  # a loop in the tree: the walk came back to an entry
                self.problem = f"{self.path}: its entries' parents make a loop at {at[:40]!r}; no plan is shown"
                found = _UNKNOWN
        cleared = self._before_cleared(found, at, seen)
        if isinstance(found, FullList):
            if cleared is not None:
                events.append(cleared)  # cleared after every step was done: it stays (PlanReplay)
            events.append(found)
        elif found is _UNKNOWN and self._gap:
            events.append(Gap())
        replay = PlanReplay()
        replay.apply_all(events)
        return replay.snapshot()

    def _before_cleared(self, found: object, at: str | None, seen: set[str]) -> FullList | None:
        """When the list found is empty (the agent cleared it), the list of the
        successful todo result before it on the path, if one is there: the replay keeps
        it, marked cleared, when every step of it was done."""
        if not (isinstance(found, FullList) and not found.items and at is not None):
            return None
        at = self._parents.get(at)
        while at is not None and at not in seen and at is not _NOT_AN_ID and at in self._parents:
            seen.add(at)
            earlier = self._lists.get(at)
            if earlier is not None:
                return earlier if isinstance(earlier, FullList) else None
            at = self._parents[at]
        return None


class _NotAnId(str):
    """The parent of an entry whose `parentId` is neither null nor a string (a number, a
    list): a str for the tree's types, told apart by identity, never equal to an id."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return id(self)


_NOT_AN_ID = _NotAnId("")


def _result_list(message: Any) -> FullList | object | None:
    """What a message says of the todo list: the whole list of a successful `todo`
    result, `_UNKNOWN` for a successful one whose list is not of a known shape, None
    for a refused call or any other message."""
    if not isinstance(message, dict) or message.get("role") != "toolResult" or message.get("toolName") != TODO:
        return None
    if message.get("isError") is not False:
        return None  # pi's own validation refused it (or the result does not say)
    details = message.get("details")
    if isinstance(details, dict) and details.get("error"):
        return None  # the extension refused it: it changed nothing
    raw = details.get("todos") if isinstance(details, dict) else None
    if not isinstance(raw, list):  # a success of no known shape: the list is not known
        return _UNKNOWN
    items: list[PlanItem] = []
    for todo in raw:
        if not isinstance(todo, dict) or not isinstance(todo.get("text"), str):
            return _UNKNOWN
        items.append(PlanItem(text=todo["text"], status="completed" if todo.get("done") is True else "pending"))
    return FullList(group="", source="pi_todos", items=tuple(items))


def _text(raw: bytes | None) -> str | None:
    """A JSON string's body (as matched, escapes included) as text."""
    if raw is None:
        return None
    if b"\\" not in raw:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    record = json_record(b'{"s":"' + raw + b'"}')
    value = record.get("s") if record is not None else None
    return value if isinstance(value, str) else None

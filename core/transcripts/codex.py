"""Codex CLI rollouts (docs/reading.md, Codex CLI).

Two line shapes:
- enveloped (September 2025 on): `{timestamp, type, payload}`, `type` one of
  `session_meta`, `response_item`, `turn_context`, `event_msg`, …;
- bare (before): the first line is the session meta `{id, timestamp, git, …}` and later
  lines are bare response items `{type: "message" | "function_call" | …}`.

Plan: `update_plan` function calls (source "codex"), `arguments` a JSON string
`{explanation?, plan: [{step, status}]}`; each is a full list.

When a call applies (the same rule as Claude's): when its `function_call_output` with the
same `call_id` arrives and is not an error. Codex has no error flag on plain outputs, and
its failures read in many ways ("unsupported call: update_plan", "failed to parse
function arguments: …", a refusal in plan mode, …), so success is recognised, not error:
the output is the text Codex has always answered, "Plan updated", or an object with
`success: true`. Any other answer leaves the plan as it was — a reworded success shows no
plan (safe) rather than a failed call showing a wrong one.

Facts: the first session_meta is the file's identity (a fork repeats its parent's later);
`forked_from_id` → `parent_id`; a subagent thread's `source.subagent.thread_spawn.
parent_thread_id` → `parent_id` with `is_subagent`. The title is the first user prompt,
skipping the harness's context messages.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from planwatch.core.model import LIST_STATUSES, PlanItem, read_status
from planwatch.core.replay import PlanReplay
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.events import FullList, Gap
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
    load_json_text,
    parse_timestamp,
    quoted_needles,
    time_pattern,
)
from planwatch.core.transcripts.superseded import Superseding, Unproven, line_around

# A record's own time in raw bytes (`touch_line`).
_TIME = time_pattern("timestamp")

UPDATE_PLAN = "update_plan"
SUCCESS_OUTPUT = "Plan updated"
MAX_PENDING = 100
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS

_ENVELOPE_KINDS = frozenset(
    {
        "session_meta",
        "response_item",
        "turn_context",
        "event_msg",
        "world_state",
        "token_usage_record",
        "compacted",
    }
)
# User-role messages the harness writes itself: context, instructions, shell echoes.
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<skills_instructions>",
    "# AGENTS.md instructions",
)
_CWD_IN_CONTEXT = re.compile(r"<cwd>([^<\n]+)</cwd>")
_USER_MESSAGE = json_needles("role", "user")
_BARE_META = (b'{"id":', b'{"id" :', b'{ "id":')


# What a superseded line is decoded to (superseded.py): the envelope's time and the
# item's kind, name and call id; an output's text unread, a plan's steps only as far as
# the shape that decides whether the call is held.
class _Item(msgspec.Struct):
    type: Any = None
    name: Any = None
    call_id: Any = None
    arguments: Any = None


class _Line(msgspec.Struct):
    type: Any = None
    timestamp: Any = None
    payload: _Item | None = None


class _Step(msgspec.Struct):
    step: str


class _Arguments(msgspec.Struct):
    plan: list[_Step] | None = None


_LINE = msgspec.json.Decoder(_Line).decode
_ARGUMENTS = msgspec.json.Decoder(_Arguments).decode


def _decoded(line: bytes) -> _Line:
    """A superseded line, decoded as far as its kind and ids; a line the typed decode
    does not read as the full one would (not JSON, another shape) is `Unproven`."""
    try:
        return _LINE(line)
    except Exception as exc:
        raise Unproven("a record the typed decode does not read") from exc


class CodexReader(Superseding, TranscriptReader):
    """Reads one Codex rollout (plain JSONL; IO decompresses `.jsonl.zst`)."""

    harness = "codex"
    # The call names its function as a value (`"name":"update_plan"`); the scan needle
    # is broader (privacy: never parse a line naming it).
    needles: tuple[bytes, ...] = (
        *json_value_needles(UPDATE_PLAN),
        *json_needles("type", "session_meta"),
    )
    scan_needles: tuple[bytes, ...] = (f'"{UPDATE_PLAN}"'.encode(),)
    full_list_needles: tuple[bytes, ...] = json_value_needles(UPDATE_PLAN)

    def __init__(self, path: Path, *, every_list: bool = False) -> None:
        """`every_list`: make every list into items as it applies (PlanReplay)."""
        super().__init__(path)
        self._every_list = every_list
        self.facts: SessionFacts = SessionFacts()
        self._replay = PlanReplay(every_list=every_list)
        self._pending: OrderedDict[str, FullList] = OrderedDict()
        # A rollout from before September 2025 (no envelopes, docs/reading.md, Codex CLI).
        self._bare = False

    # -- the contract ------------------------------------------------------------------

    def dynamic_needles(self) -> list[bytes]:
        # Only positive byte tests (no "and not"), so that IO may test a block of lines,
        # or a piece of a long line, and it passes whenever one of its lines would.
        # Outputs can be huge (command output): only those answering a held call pass.
        needles = [needle for call_id in self._pending for needle in quoted_needles(call_id)]
        if self.facts.id is None:
            needles += _BARE_META  # a bare rollout's meta line: `{"id":…, "timestamp":…, "git":…}`
        if self.facts.first_prompt is None or self.facts.cwd is None:
            needles += _USER_MESSAGE
        return needles

    def note_gap(self) -> None:
        self._replay.apply(Gap())

    def feed_line(self, line: bytes) -> None:
        record = self._load(line)
        if record is None:
            return
        kind = record.get("type")
        payload = record.get("payload")
        if kind in _ENVELOPE_KINDS and isinstance(payload, dict):
            self._touch(record.get("timestamp"))
        elif "id" in record and "timestamp" in record and "type" not in record:
            kind, payload = "session_meta", record  # bare rollout: its meta line
            # Its time is the session's start, and no later record carries one: the
            # file's mtime tells the last activity (sessions.py), not this.
            self._bare = True
        elif isinstance(kind, str) and "payload" not in record:
            kind, payload = "response_item", record  # bare rollout: a response item
        else:
            return
        if kind == "session_meta":
            self._meta(payload)
        elif kind == "turn_context":
            cwd = payload.get("cwd")
            if self.facts.cwd is None and isinstance(cwd, str) and cwd:
                self.facts.cwd = cwd
        elif kind == "response_item":
            self._response_item(payload)

    def is_full_list(self, line: bytes) -> bool:
        assert self.full_list_pattern is not None
        if not self.full_list_pattern.occurs(line):
            return False
        return _plan_call(_payload(line)) is not None

    def full_list_result_needles(self, line: bytes) -> tuple[bytes, ...]:
        call_id = _payload(line).get("call_id")
        return quoted_needles(call_id) if isinstance(call_id, str) and call_id else ()

    def full_list_result(self, line: bytes, later: bytes) -> bool | None:
        call_id = _payload(line).get("call_id")
        output = _payload(later)
        if output.get("type") != "function_call_output" or output.get("call_id") != call_id:
            return None
        return _succeeded(output.get("output"))

    def results(self) -> list[SessionResult]:
        return [SessionResult(facts=self.facts.copy(), plan=self._replay.snapshot())]

    def result_facts(self) -> list[SessionFacts]:
        return [self.facts.copy()]

    # -- reading less (superseded.py) ----------------------------------------------------

    def can_supersede(self) -> bool:
        return not self._every_list

    def _fresh(self) -> None:
        self.__init__(self.path)  # type: ignore[misc]

    def anchor(self, line: bytes) -> tuple[str, tuple[bytes, ...]] | None:
        if not any(needle in line for needle in self.full_list_needles):
            return None
        record = json_record(line)
        if record is None:
            return None
        self._decoded = (line, record)  # read once: `feed_line` takes it from here
        item = record.get("payload") if "payload" in record else record
        if not isinstance(item, dict):
            return None
        event = _plan_call(item)
        call_id = item.get("call_id")
        if event is None or event.build is None or not isinstance(call_id, str) or not call_id:
            return None
        return "", quoted_needles(call_id)

    def skip_superseded(self, line: bytes, end: int, data: bytes, anchor: int, max_line: int) -> bool:
        record = _decoded(line)
        item = record.payload
        if record.type != "response_item" or item is None or item.type != "function_call":
            return False  # a bare rollout's line, another record: fed as always
        call_id = item.call_id
        if item.name != UPDATE_PLAN or not isinstance(call_id, str) or not call_id:
            return False
        raw = item.arguments
        if not isinstance(raw, str):
            raise Unproven("arguments of another shape")
        try:
            plan = _ARGUMENTS(raw).plan
        except Exception as exc:  # torn or of another shape: the full decode decides
            raise Unproven("arguments the typed decode does not read") from exc
        if plan is None:
            return False  # no list the full read would hold: fed as always
        at = find_first(data, quoted_needles(call_id), end)
        span = line_around(data, at) if 0 <= at < anchor else None
        if span is None or span[1] - span[0] > max_line:
            raise Unproven("a call answered after the anchor, or never")
        output = _decoded(data[span[0] : span[1]])
        answer = output.payload
        if output.type != "response_item" or answer is None or answer.type != "function_call_output":
            raise Unproven("a call's first later mention is not its output")
        if answer.call_id != call_id:
            raise Unproven("a call's first later mention is not its output")
        self._waiting_answer(end, at, len(self._pending), MAX_PENDING)
        self.skipped_any = True
        return True

    # -- records -----------------------------------------------------------------------

    def touch_line(self, line: bytes) -> bool:
        if self._bare:
            return True  # no record of a bare rollout has a time of its own
        moment = line_time(line, _TIME)
        self.facts.last_record(moment)
        return moment is not None

    def _touch(self, raw: Any) -> None:
        self.facts.touch(parse_timestamp(raw))

    def _meta(self, payload: dict[str, Any]) -> None:
        facts = self.facts
        if facts.id is not None:
            return  # a fork repeats its parent's meta after its own
        meta_id = payload.get("id")
        if not isinstance(meta_id, str) or not meta_id:
            return
        facts.id = meta_id
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            facts.cwd = cwd
        git = payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str) and git["branch"]:
            facts.git_branch = git["branch"]
        forked = payload.get("forked_from_id")
        if isinstance(forked, str) and forked:
            facts.parent_id = forked
        parent = _spawning_thread(payload.get("source"))
        if parent is not None:
            facts.parent_id = parent
            facts.is_subagent = True

    def _response_item(self, item: dict[str, Any]) -> None:
        item_type = item.get("type")
        if item_type == "function_call":
            call_id = item.get("call_id")
            event = _plan_call(item)
            if event is not None and isinstance(call_id, str) and call_id:
                if self._answers:
                    self._room(len(self._pending), MAX_PENDING)
                hold(self._pending, call_id, event, MAX_PENDING)
        elif item_type == "function_call_output":
            call_id = item.get("call_id")
            event = self._pending.pop(call_id, None) if isinstance(call_id, str) else None
            if event is not None and _succeeded(item.get("output")):
                if self._covering is not None:
                    self._check_event(event)
                self._replay.apply(event)
        elif item_type == "message" and item.get("role") == "user":
            self._user_message(item.get("content"))

    def _user_message(self, content: Any) -> None:
        if not isinstance(content, list):
            return
        for part in content:
            if not isinstance(part, dict) or not isinstance(part.get("text"), str):
                continue
            text = part["text"].strip()
            if text.startswith("<environment_context>") and self.facts.cwd is None:
                # Bare rollouts name their folder only here.
                found = _CWD_IN_CONTEXT.search(text)
                if found:
                    self.facts.cwd = found.group(1).strip()
            if self.facts.first_prompt is None and text and not text.startswith(_CONTEXT_PREFIXES):
                self.facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)


def _payload(line: bytes) -> dict[str, Any]:
    """A line's response item (enveloped or bare); {} for anything else."""
    record = json_record(line)
    if record is None:
        return {}
    payload = record.get("payload") if "payload" in record else record
    return payload if isinstance(payload, dict) else {}


def _plan_call(item: dict[str, Any]) -> FullList | None:
    """The full list an `update_plan` function call states, or None (unknown shape)."""
    if item.get("type") != "function_call" or item.get("name") != UPDATE_PLAN:
        return None
    raw = item.get("arguments")
    try:
        arguments = load_json_text(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):
        return None
    if not isinstance(arguments, dict) or not isinstance(arguments.get("plan"), list):
        return None
    plan = arguments["plan"]
    for step in plan:
        if not isinstance(step, dict) or not isinstance(step.get("step"), str):
            return None
    if not plan:
        return FullList(group="", source="codex", items=())
    # Items are made only if the replay ever reads this list (FullList.build).
    return FullList(group="", source="codex", items=(), build=partial(_items, plan))


def _items(plan: list[dict[str, Any]]) -> tuple[PlanItem, ...]:
    return tuple(PlanItem(text=step["step"], status=read_status(step.get("status"), LIST_STATUSES)) for step in plan)


def _succeeded(output: Any) -> bool:
    if isinstance(output, dict):
        if output.get("success") is True:
            return True
        if output.get("success") is False:
            return False
        output = output.get("content")
    if isinstance(output, list):  # content items: [{type: input_text, text}]
        output = next((p.get("text") for p in output if isinstance(p, dict) and "text" in p), None)
    return isinstance(output, str) and output.strip() == SUCCESS_OUTPUT


def _spawning_thread(source: Any) -> str | None:
    if not isinstance(source, dict):
        return None
    subagent = source.get("subagent")
    spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) and parent else None

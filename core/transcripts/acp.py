"""ACP logs, as `planwatch acp-tap` records them (docs/reading.md, ACP agents).

One JSON-RPC message per line, bare (`{"jsonrpc":"2.0",…}`) or wrapped as
`{ts, from: "agent"|"client", msg}`. One log may hold several sessions: each gets its own
`SessionResult`, in the order the log first names them.

Plan (source "acp"), from `session/update` notifications; each update is a full list:
- `plan` with `entries`: the session's default plan (group ""), or group
  "acp:<planId>" when the update carries a `planId`;
- `plan_update` with `plan {type, planId, entries}`: type `items` is a checklist; any
  other type (`markdown`, `file`, a custom `_…` one, a future one) is a document, not a
  checklist, never dropped: a type planwatch does not know is kept generically (its
  fields as text);
- `plan_removed` with `planId`: that plan goes.
`plan_update` and `plan_removed` require their `planId`: one without it is malformed and
changes nothing (it never touches the default plan). Entries keep their `priority`.
Notifications have no result, so they apply as they come.

Facts: the session id from `session/update` params and the `session/new` result (its
request, matched by JSON-RPC id, gives the cwd); `session/load` / `session/resume` name
both. Title: the first `session/prompt` text, else "".
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

from planwatch.core.model import PlanItem, read_priority, read_status
from planwatch.core.replay import PlanReplay
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.events import DocumentSet, FullList, Gap, PlanEvent, PlanRemoved
from planwatch.core.transcripts.reader import (
    SessionFacts,
    SessionResult,
    TranscriptReader,
    facts_key,
    hold,
    json_needles,
    json_record,
    line_time,
    parse_timestamp,
    time_pattern,
)

MAX_PENDING = 100
# The wrapper's time and the session a message names, in raw bytes (`touch_line`).
_TIME = time_pattern("ts")
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS
_SESSION_METHODS = ("session/new", "session/load", "session/resume", "session/prompt")
_PLAN_UPDATES = ("plan", "plan_update", "plan_removed")
_NEW_SESSION_RESULT = (b'"result":{"sessionId"', b'"result": {"sessionId"')
# The document plan types ACP names, and where such a plan may keep its text, in the
# order they are looked at. Any other type (custom `_…`, future) is shown generically.
_DOCUMENT_TYPES = ("markdown", "file")
_DOCUMENT_KEYS = ("content", "markdown", "text", "path", "uri")


class AcpReader(TranscriptReader):
    """Reads one ACP log, holding any number of sessions."""

    harness = "acp"
    needles: tuple[bytes, ...] = (
        *(needle for kind in _PLAN_UPDATES for needle in json_needles("sessionUpdate", kind)),
        *(needle for method in _SESSION_METHODS for needle in json_needles("method", method)),
        # The session/new result names the session. The adapters write `sessionId` first
        # in that result (a result missed here loses only the cwd: updates name the
        # session). A positive test, as every needle is, so a block of lines passes
        # whenever one of its lines would.
        *_NEW_SESSION_RESULT,
    )
    scan_needles: tuple[bytes, ...] = tuple(
        needle for kind in _PLAN_UPDATES for needle in json_needles("sessionUpdate", kind)
    )

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._sessions: dict[str, tuple[SessionFacts, PlanReplay]] = {}
        # session/new requests waiting for their result: JSON-RPC id → cwd.
        self._new_requests: OrderedDict[str, str | None] = OrderedDict()

    # -- the contract ------------------------------------------------------------------

    def note_gap(self) -> None:
        for _, replay in self._sessions.values():
            replay.apply(Gap())

    def feed_line(self, line: bytes) -> None:
        record = self._load(line)
        if record is None:
            return
        msg = record.get("msg")
        if isinstance(msg, dict):
            moment = parse_timestamp(record.get("ts"))
            sender = record.get("from")
        else:
            msg, moment, sender = record, None, None
        method = msg.get("method")
        params = msg.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "session/update":
            self._update(params, moment)
        elif method == "session/new" and "id" in msg and sender in (None, "client"):
            cwd = params.get("cwd")
            hold(self._new_requests, _rpc_id(msg["id"]), cwd if isinstance(cwd, str) else None, MAX_PENDING)
        elif method in ("session/load", "session/resume"):
            facts = self._session(params.get("sessionId"), moment)
            cwd = params.get("cwd")
            if facts is not None and isinstance(cwd, str) and cwd:
                facts.cwd = cwd
        elif method == "session/prompt":
            self._prompt(params, moment)
        elif method is None and isinstance(msg.get("result"), dict) and sender != "client":
            self._response(msg, moment)

    def is_full_list(self, line: bytes) -> bool:
        if b'"plan' not in line:
            return False
        record = json_record(line)
        if record is None:
            return False
        msg = record.get("msg", record)
        if not isinstance(msg, dict) or msg.get("method") != "session/update":
            return False
        params = msg.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        return isinstance(update, dict) and isinstance(_plan_event(update), FullList)

    def touch_line(self, line: bytes) -> bool:
        """A wrapped record's `ts`, kept as the activity of the session it names (only a
        session already known: a line read for its time never makes one)."""
        moment = line_time(line, _TIME)
        named = _SESSION_ID.search(line)
        if moment is None or named is None:
            return False
        entry = self._sessions.get(named.group(1).decode("utf-8", "replace"))
        if entry is None:
            return False
        entry[0].last_record(moment)
        return True

    def fact_state(self) -> tuple[object, object]:
        # Several sessions: each one's last activity counts as a fact (a line changing
        # any is a fact line), and a session first named by a plan line is one too.
        # The session/new requests waiting for their result hold a cwd to come.
        sessions = tuple((facts_key(f), f.last_timestamp) for f, _ in self._sessions.values())
        return (sessions, tuple(self._new_requests.items())), None

    def results(self) -> list[SessionResult]:
        return [SessionResult(facts=facts.copy(), plan=replay.snapshot()) for facts, replay in self._sessions.values()]

    # -- messages ----------------------------------------------------------------------

    def _session(self, session_id: Any, moment: Any) -> SessionFacts | None:
        if not isinstance(session_id, str) or not session_id:
            return None
        entry = self._sessions.get(session_id)
        if entry is None:
            entry = self._sessions[session_id] = (SessionFacts(id=session_id), PlanReplay())
        facts = entry[0]
        facts.touch(moment)
        return facts

    def _update(self, params: dict[str, Any], moment: Any) -> None:
        update = params.get("update")
        if not isinstance(update, dict) or update.get("sessionUpdate") not in _PLAN_UPDATES:
            return
        session_id = params.get("sessionId")
        if not isinstance(session_id, str) or self._session(session_id, moment) is None:
            return
        event = _plan_event(update)
        if event is not None:
            self._sessions[session_id][1].apply(event)

    def _prompt(self, params: dict[str, Any], moment: Any) -> None:
        facts = self._session(params.get("sessionId"), moment)
        if facts is None or facts.first_prompt is not None:
            return
        prompt = params.get("prompt")
        if not isinstance(prompt, list):
            return
        for block in prompt:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    facts.first_prompt = prompt_title(text, MAX_TITLE_CHARS)
                    return

    def _response(self, msg: dict[str, Any], moment: Any) -> None:
        result = msg["result"]
        facts = self._session(result.get("sessionId"), moment)
        if facts is None:
            return
        request_id = _rpc_id(msg.get("id"))
        if request_id in self._new_requests:
            cwd = self._new_requests.pop(request_id)
            if cwd:
                facts.cwd = cwd


def _rpc_id(raw: Any) -> str:
    # JSON-RPC ids are numbers or strings; 2 and "2" are different ids.
    return json.dumps(raw)


def _group_key(plan_id: Any) -> str | None:
    """ "" for no plan id, "acp:<planId>" for a string one, None for anything else."""
    if plan_id is None:
        return ""
    if isinstance(plan_id, str) and plan_id:
        return f"acp:{plan_id}"
    return None


def _required_key(plan_id: Any) -> str | None:
    """ "acp:<planId>" for the planId `plan_update` and `plan_removed` require; None
    (a malformed update, which changes nothing) when it is missing or not a string."""
    if isinstance(plan_id, str) and plan_id:
        return f"acp:{plan_id}"
    return None


def _plan_event(update: dict[str, Any]) -> PlanEvent | None:
    """The event a plan update states, or None for an unknown or malformed shape."""
    kind = update.get("sessionUpdate")
    if kind == "plan":
        key = _group_key(update.get("planId"))
        items = _entries(update.get("entries"))
        return None if key is None or items is None else FullList(key, "acp", items)
    if kind == "plan_update":
        plan = update.get("plan")
        if not isinstance(plan, dict):
            return None
        key = _required_key(plan.get("planId"))
        plan_type = plan.get("type")
        if key is None or not isinstance(plan_type, str) or not plan_type:
            return None
        if plan_type == "items":
            items = _entries(plan.get("entries"))
            return None if items is None else FullList(key, "acp", items)
        return DocumentSet(key=key, source="acp", text=_document_text(plan), replaces_group=True, plan_type=plan_type)
    if kind == "plan_removed":
        key = _required_key(update.get("planId"))
        return None if key is None else PlanRemoved(group=key)
    return None


def _document_text(plan: dict[str, Any]) -> str:
    """A plan that is not a checklist, as text: a markdown/file plan's own text field;
    any other (a custom `_…` type, a future variant) generically, each field but `type`
    and `planId` as `name: value` (values that are not strings as JSON). Never dropped:
    a plan with nothing but its type says so. Made safe where it is shown."""
    if plan.get("type") in _DOCUMENT_TYPES:
        text = next((plan[k] for k in _DOCUMENT_KEYS if isinstance(plan.get(k), str)), None)
        if text is not None:
            return text
    lines = []
    for name, value in plan.items():
        if name in ("type", "planId"):
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{name}: {shown}")
    return "\n".join(lines) if lines else "(no content)"


def _entries(raw: Any) -> tuple[PlanItem, ...] | None:
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for entry in raw:
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
            return None  # one unknown entry makes the update unrecognised
        items.append(
            PlanItem(
                text=entry["content"],
                status=read_status(entry.get("status")),
                priority=read_priority(entry.get("priority")),
            )
        )
    return tuple(items)

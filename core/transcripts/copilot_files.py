"""What a GitHub Copilot CLI session folder's text files say: `workspace.yaml` and the
opening and closing events of `events.jsonl`.

Why a module of its own: the shapes of these two files (the YAML Copilot CLI writes, its
event envelope) change with its releases, apart from the plan's table
(core/transcripts/copilot_sql.py) and how a folder becomes a session
(core/transcripts/copilot.py).

- `workspace.yaml`: flat `key: value` lines (`id`, `cwd`, `name` = the person's first
  prompt, or the name they gave, `created_at`, `updated_at`, …). Read by a small parser
  of the scalars that file holds (plain, quoted, block), not by a YAML library: a list
  of a thousand sessions reads a thousand of them, and ruamel.yaml's import alone costs
  more than all of that. A value it cannot read is no value (the events stand in).
- `events.jsonl`: one event per line, `{"type","data","id","timestamp","parentId"}`.
  Only its head is read for facts (`session.start`: the session id and `context.cwd`;
  the first `user.message`: the first prompt) and its last complete line for the last
  activity — never the whole log, which grows with every tool call. A last line still
  without its newline is not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

# The readers' helpers (core/transcripts/reader.py) are imported where they are used: a
# warm listing reads workspaces only, and loads no reading code.

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

__all__ = ["EventFacts", "Workspace", "event_facts", "is_copilot_start", "parse_workspace"]

# The first events (session.start, then the first prompt) sit in the first lines; a
# system message between them can be tens of KB.
# A session folder's files.
EVENTS = "events.jsonl"
DATABASE = "session.db"
WORKSPACE = "workspace.yaml"
DATABASE_FILES = (DATABASE, DATABASE + "-wal", DATABASE + "-journal")
# The files of a session folder whose change is the session's change.
SESSION_FILES = (EVENTS, WORKSPACE, *DATABASE_FILES)
HEAD_BYTES = 256 << 10
# The last line is looked for in this much of the end (an event is ~1 KB), then in four
# times as much, up to TAIL_MAX (a tool result of several MB can be the last line).
TAIL_BYTES = 4 << 10
TAIL_MAX = 16 << 20
WORKSPACE_MAX = 1 << 20  # a workspace.yaml larger than this is not Copilot CLI's

_START = (b'"type":"session.start"', b'"type": "session.start"')
_PROMPT = (b'"type":"user.message"', b'"type": "user.message"')
_TIME: list[Any] = []  # the pattern of a line's time, made at its first use


# Two small records of this module's own, made without `dataclass` (which compiles their
# methods when the module loads: about 1 ms of a warm listing's start).


class Workspace:
    """The scalars of a `workspace.yaml` that planwatch uses (None where absent)."""

    __slots__ = ("cwd", "id", "name", "updated_at")

    def __init__(self) -> None:
        self.id: str | None = None
        self.cwd: str | None = None
        self.name: str | None = None
        self.updated_at: datetime | None = None

    def __repr__(self) -> str:
        return f"Workspace(id={self.id!r}, cwd={self.cwd!r}, name={self.name!r}, updated_at={self.updated_at!r})"


class EventFacts:
    """What the head and the last line of `events.jsonl` say."""

    __slots__ = ("bad_lines", "cwd", "first_prompt", "last_time", "session_id")

    def __init__(self) -> None:
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.first_prompt: str | None = None
        self.last_time: datetime | None = None
        self.bad_lines = 0  # lines in the head that are not JSON

    def __repr__(self) -> str:
        return (
            f"EventFacts(session_id={self.session_id!r}, cwd={self.cwd!r}, first_prompt={self.first_prompt!r}, "
            f"last_time={self.last_time!r}, bad_lines={self.bad_lines!r})"
        )


def parse_workspace(data: bytes, *, titles_only: bool = False) -> Workspace:
    """The keys planwatch uses of a `workspace.yaml`; anything it cannot read is left out.
    `titles_only`: only `cwd` and `name` (a warm start, which has the id and the last
    activity from its cache: the time is not parsed)."""
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    values = _scalars(text, _TITLE_KEY if titles_only else _TOP_KEY)
    found = Workspace()
    for key in ("id", "cwd", "name"):
        value = values.get(key)
        if value is not None and value.strip():
            setattr(found, key, value)
    if not titles_only:
        from planwatch.core.transcripts.reader import parse_timestamp

        found.updated_at = parse_timestamp(values.get("updated_at"))
    return found


# A plain scalar's first character when it is none of the forms `_scalar` tells apart
# (block, flow collection, anchor, alias, tag, quoted).
_NOT_PLAIN = frozenset("|>{[&*!@`'\"")
# The plain scalars YAML reads as null (`name: ~`): no value, as if the key were absent
# (quoted, `"~"` is the text itself).
_NULLS = frozenset(("~", "null", "Null", "NULL"))


def _scalars(text: str, keys: re.Pattern[str]) -> dict[str, str]:
    """Top-level `key: value` pairs of a flat YAML mapping, for the keys `keys` matches
    (`_TOP_KEY`, `_TITLE_KEY`): plain scalars (with continuation lines), single- and
    double-quoted ones, and `|`/`>` block scalars. Nested mappings, lists and anything
    else are skipped."""
    out: dict[str, str] = {}
    for match in keys.finditer(text):
        key, rest = match.group(1), match.group(2)
        if key in out or (rest and rest[0] not in " \t"):
            continue
        at = match.end() + 1
        if at >= len(text) or text[at] not in " \t\n":
            # No continuation lines (the common case: one line): a plain scalar is the
            # line's rest as `_scalar` would give it, without building its parts.
            head = rest.strip()
            if not head or (head[0] not in _NOT_PLAIN and " #" not in head):
                if head not in _NULLS:
                    out[key] = head
                continue
        # Continuation lines: indented ones (and blank ones between them).
        more: list[str] = []
        at = match.end() + 1
        while at < len(text) and text[at] in " \t\n":
            end = text.find("\n", at)
            line = text[at:] if end < 0 else text[at:end]
            if line.strip() and line[0] not in " \t":
                break
            more.append(line)
            at = len(text) if end < 0 else end + 1
        while more and not more[-1].strip():
            more.pop()
        value = _scalar(rest.strip(), more)
        if value is not None:
            out[key] = value
    return out


# A top-level key planwatch reads (no indent, no list dash) and what follows its colon.
_TOP_KEY = re.compile(r"^(id|cwd|name|updated_at):(.*)$", re.MULTILINE)
# Those a warm start reads again (the title and the folder): only their lines are matched.
_TITLE_KEY = re.compile(r"^(cwd|name):(.*)$", re.MULTILINE)


def _scalar(head: str, more: list[str]) -> str | None:
    if head[:1] in ("|", ">"):
        if not all(c in "|>-+0123456789" for c in head.split(" #", 1)[0].strip()):
            return None
        body = [line.strip() for line in more]
        return ("\n" if head[0] == "|" else " ").join(body)
    if head.startswith(("{", "[", "&", "*", "!", "@", "`")):
        return None  # a flow collection, an anchor, an alias, a tag: not a scalar we read
    joined = " ".join([head, *(line.strip() for line in more)]).strip()
    if joined.startswith("'"):
        if len(joined) < 2 or not joined.endswith("'"):
            return None
        return joined[1:-1].replace("''", "'")
    if joined.startswith('"'):
        try:
            import json  # loaded here: a warm listing's workspaces are plain scalars

            value = json.loads(joined)  # YAML's double-quoted escapes are JSON's, mostly
        except (ValueError, RecursionError):
            return None
        return value if isinstance(value, str) else None
    if " #" in joined:
        joined = joined.split(" #", 1)[0].rstrip()  # a comment after a plain scalar
    return None if joined in _NULLS else joined


def is_copilot_start(line: bytes) -> bool:
    """Whether a line is Copilot CLI's `session.start` event (the first of its log)."""
    if not any(needle in line for needle in _START):
        return False
    from planwatch.core.transcripts.reader import json_record_of_few

    record = json_record_of_few(line)
    data = record.get("data") if record is not None else None
    return (
        isinstance(data, dict)
        and record is not None
        and record.get("type") == "session.start"
        and (isinstance(data.get("copilotVersion"), str) or data.get("producer") == "copilot-agent")
    )


def event_facts(fd: int, size: int, *, prompt: bool = True) -> EventFacts:
    """The facts of an open `events.jsonl` of `size` bytes: its head's session.start
    (and, with `prompt`, its first user.message), and its last complete line's time."""
    found = EventFacts()
    for line in _head_lines(fd, size):
        starts = found.session_id is None and any(needle in line for needle in _START)
        asked = prompt and found.first_prompt is None and any(needle in line for needle in _PROMPT)
        if starts or asked:
            _take(found, line)
        if found.session_id is not None and (found.first_prompt is not None or not prompt):
            break
    found.last_time = _last_time(fd, size)
    return found


def _head_lines(fd: int, size: int) -> Iterator[bytes]:
    """The complete lines of the first HEAD_BYTES, read a little at a time (the first
    two lines are usually all that is needed)."""
    at, rest, window = 0, b"", 2048
    limit = min(size, HEAD_BYTES)
    while at < limit:
        chunk = os.pread(fd, min(window, limit - at), at)
        if not chunk:
            return
        at += len(chunk)
        window *= 4
        data = rest + chunk
        begin = 0
        while (end := data.find(b"\n", begin)) >= 0:
            if end > begin:
                yield data[begin:end]
            begin = end + 1
        rest = data[begin:]


def _take(found: EventFacts, line: bytes) -> None:
    from planwatch.core.transcripts.reader import json_record_of_few

    record = json_record_of_few(line)
    if record is None:
        found.bad_lines += 1
        return
    data = record.get("data")
    if not isinstance(data, dict):
        return
    kind = record.get("type")
    if kind == "session.start" and found.session_id is None:
        sid = data.get("sessionId")
        found.session_id = sid if isinstance(sid, str) and sid else None
        context = data.get("context")
        cwd = context.get("cwd") if isinstance(context, dict) else None
        found.cwd = cwd if isinstance(cwd, str) and cwd else None
    elif kind == "user.message" and found.first_prompt is None:
        content = data.get("content")
        if isinstance(content, str) and content.strip():
            found.first_prompt = content


def _last_time(fd: int, size: int) -> datetime | None:
    """The time of the last complete line (one ending in a newline)."""
    window = TAIL_BYTES
    while True:
        start = max(0, size - window)
        tail = os.pread(fd, size - start, start)
        end = tail.rfind(b"\n")
        if end < 0:
            if start == 0 or window >= TAIL_MAX:
                return None
            window *= 4
            continue
        begin = tail.rfind(b"\n", 0, end) + 1
        if begin == 0 and start > 0:
            if window >= TAIL_MAX:
                return None  # a last line longer than the bound: no time from it
            window *= 4
            continue
        line = tail[begin:end]
        if line.strip():
            from planwatch.core.transcripts.reader import line_time, time_pattern

            if not _TIME:
                _TIME.append(time_pattern("timestamp"))
            return line_time(line, _TIME[0])
        # A blank last line: the one before it (its newline ends the bytes looked at).
        if begin == 0:
            return None
        size = start + begin
        window = TAIL_BYTES

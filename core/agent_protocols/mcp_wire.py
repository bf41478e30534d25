"""`planwatch mcp`'s stdio wire: every line a client sends gets a JSON-RPC answer.

The SDK's stdio reader hands a line it cannot validate to the session as an exception,
which answers nothing, and it takes a request whose id is neither an integer nor a
string (a float, `true`) for a notification: its client would wait for ever. Lines pass
through `WireReader` first, which answers here, on the same serialised stdout, what the
SDK would not, and logs each problem:

- a line that is not JSON, or nested deeper than `MAX_DEPTH`: -32700 (parse error);
- a string holding a lone surrogate (`"\\ud800"`, not Unicode text): -32700;
- a request whose id is not an integer or a string: -32600 (invalid request);
- any other message the SDK's models refuse: -32600.

An answer carries the id the line sent when JSON-RPC 2.0 allows it as an id (a string
or a number: `1.5` is answered as `1.5`, so the client can match it), else `null`
(`true`, an object, an array, a line that could not be parsed): JSON-RPC answers an id
it cannot detect as null.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import anyio
import mcp_types as types

from planwatch.core.text import shorten

log = logging.getLogger(__name__)

MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (the SDK's parser gives up
near 200, and no MCP message comes close)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

_SURROGATE = re.compile("[\ud800-\udfff]")


class LockedWriter:
    """stdout shared by the SDK's writer and the wire's own answers: one line at a time."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._lock = anyio.Lock()

    async def write(self, text: str) -> int:
        async with self._lock:
            return int(await self._stream.write(text))

    async def flush(self) -> None:
        async with self._lock:
            await self._stream.flush()

    async def write_line(self, text: str) -> None:
        async with self._lock:
            await self._stream.write(text + "\n")
            await self._stream.flush()


def _depth_over(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest deeper than `limit` (no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def problem(line: str) -> tuple[int, Any, str] | None:
    """(code, id to answer with, what is wrong) for a line the SDK would leave
    unanswered, or None when it may pass. A line the SDK's models take costs one
    validation (in Rust); only a refused one is looked at further."""
    if not line.strip():
        return None  # a blank line is no message (the SDK skips it too)
    try:
        valid = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError as exc:
        refusal: str | None = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    else:
        if not isinstance(valid, types.JSONRPCNotification) or '"id"' not in line:
            return None
        refusal = None  # a notification with an id: a request whose id the SDK dropped
    try:
        message = json.loads(line)
    except RecursionError:
        return PARSE_ERROR, None, f"Parse error: JSON nested deeper than {MAX_DEPTH} levels"
    except ValueError as exc:
        return PARSE_ERROR, None, f"Parse error: {exc}"
    given = message.get("id") if isinstance(message, dict) else None
    answer_id = given if isinstance(given, int | float | str) and not isinstance(given, bool) else None
    if _depth_over(message, MAX_DEPTH):
        return PARSE_ERROR, answer_id, f"Parse error: JSON nested deeper than {MAX_DEPTH} levels"
    if _has_lone_surrogate(message):
        return PARSE_ERROR, answer_id, "Parse error: a string holds a lone surrogate, which is not Unicode text"
    if isinstance(message, dict) and "method" in message and "id" in message and not _valid_id(message["id"]):
        return INVALID_REQUEST, answer_id, "Invalid request: an id must be a string or an integer"
    if refusal is None:
        return None  # a notification that merely mentions "id" in its params
    return INVALID_REQUEST, answer_id, f"Invalid request: not a JSON-RPC 2.0 message ({refusal})"


class WireReader:
    """stdin's lines for the SDK's reader, those it would leave unanswered answered here."""

    def __init__(self, lines: Any, out: LockedWriter) -> None:
        self._lines = lines
        self._out = out

    def __aiter__(self) -> WireReader:
        return self

    async def __anext__(self) -> str:
        async for line in self._lines:
            found = problem(line)
            if found is None:
                return str(line)
            code, answer_id, message = found
            log.warning("answered %s to a line it cannot serve: %s (%s)", code, message, shorten(line, 120))
            answer = {"jsonrpc": "2.0", "id": answer_id, "error": {"code": code, "message": message}}
            await self._out.write_line(json.dumps(answer))
        raise StopAsyncIteration

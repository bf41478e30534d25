"""What a file's first bytes say: which harness wrote it, whether it is a database.

Why a module of its own: sniffing reads a few KB of each file (decompressed for `.zst`,
past a huge first line when one is there) and judges records by their keys; those
signs change with each harness's record shapes, apart from where transcripts live and
how files are named and classified (core/transcripts/discover.py).

- `sniff_harness(path)`: the harness whose records open the file, or None (a Qwen Code
  chat is told from a Claude transcript by its records' `provenance` and `parts`);
  lines that are not JSON before the first records are looked past.
- `first_lines(path)`: the complete lines in the first `SNIFF_BYTES` (for the Gemini
  session check).
- `is_database_file(path)`: a regular file with SQLite's header.
- `read_small(path, limit)`: a small regular file's bytes, or None.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from planwatch.core.logs import get_logger
from planwatch.core.regular_files import open_regular, read_regular

# `typing` is not loaded at run time: a quick command's start (docs/performance.md)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from planwatch.core.model import Harness  # annotations only: a listing need not load the model

__all__ = ["FIRST_LINE_BOUND", "SNIFF_BYTES", "first_lines", "is_database_file", "read_small", "sniff_harness"]

log = get_logger(__name__)  # logging imported at the first record

SNIFF_BYTES = 64 << 10
FIRST_LINE_BOUND = 64 << 20
"""How far past a huge first line (a pasted prompt) the sniff looks for the next lines."""

_UUID_NAME = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl")
_SQLITE_HEADER = b"SQLite format 3\x00"


def read_small(path: Path, limit: int = 1 << 20) -> bytes | None:
    """A small regular file's bytes (None when missing, not a regular file, or larger)."""
    try:
        data = read_regular(path, limit)
    except OSError:
        return None
    return data if len(data) <= limit else None


def is_database_file(path: Path) -> bool:
    """An SQLite database file (OpenCode's): a regular file with SQLite's header."""
    try:
        return read_regular(path, len(_SQLITE_HEADER) - 1) == _SQLITE_HEADER
    except OSError:
        return False


def _open_bytes(path: Path) -> BinaryIO:
    if path.name.endswith(".zst"):
        import zstandard

        fh = os.fdopen(open_regular(path), "rb")
        return zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True, closefd=True)  # type: ignore[no-any-return]
    return os.fdopen(open_regular(path), "rb")


def first_lines(path: Path) -> list[bytes]:
    """The complete lines in the first SNIFF_BYTES of a file (decompressed for .zst).

    A first line longer than that (a pasted multi-megabyte prompt) is judged by its
    opening bytes, and the lines after it (within FIRST_LINE_BOUND) are read too.
    """
    try:
        with _open_bytes(path) as fh:
            data = fh.read(SNIFF_BYTES)
            cut = data.rfind(b"\n")
            if cut != -1 or len(data) < SNIFF_BYTES:
                after = b""
            else:
                after = _after_first_line(fh, len(data))
    except Exception as exc:  # unreadable or corrupt: not a transcript we can use
        log.debug("cannot sniff %s: %s", path, exc)
        return []
    if cut == -1:
        # One huge first line: its opening bytes, then the lines that follow it.
        lines = [data] if data else []
        end = after.rfind(b"\n")
        return lines + [line for line in after[: end if end != -1 else len(after)].split(b"\n") if line.strip()]
    return [line for line in data[:cut].split(b"\n") if line.strip()]


def _after_first_line(fh: BinaryIO, read: int) -> bytes:
    """The SNIFF_BYTES after the end of a first line that did not fit the sniff window."""
    while read < FIRST_LINE_BOUND:
        chunk = fh.read(1 << 20)
        if not chunk:
            return b""
        read += len(chunk)
        newline = chunk.find(b"\n")
        if newline != -1:
            rest = chunk[newline + 1 :]
            if len(rest) < SNIFF_BYTES:
                rest += fh.read(SNIFF_BYTES - len(rest))
            return rest[:SNIFF_BYTES]
    return b""


def sniff_harness(path: Path) -> Harness | None:
    """Which harness wrote a file, from its first lines (None when none did); a file
    whose first lines say nothing but that sits where Claude Code keeps sessions
    (`projects/<folder>/<session uuid>.jsonl`) is Claude's."""
    judged = 0
    for n, line in enumerate(first_lines(path)):
        harness = _harness_of_line(line)
        if harness is not None:
            return harness
        # Twenty records say enough; lines that are no JSON at all (garbage before the
        # first record, another tool's output) are looked past, within the window.
        judged += n == 0 or _is_json(line)
        if judged >= 20:
            break
    if _UUID_NAME.fullmatch(path.name) and path.parent.parent.name == "projects":
        return "claude"
    return None


def _is_json(line: bytes) -> bool:
    try:
        json_loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return True


def _harness_of_line(line: bytes) -> Harness | None:
    try:
        record = json_loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        record = None
    if isinstance(record, dict):
        if "jsonrpc" in record or (isinstance(record.get("msg"), dict) and "from" in record):
            return "acp"
        if all(isinstance(record.get(key), str) for key in ("sessionId", "projectHash", "startTime")):
            return "gemini"  # a Gemini CLI session's metadata line, wherever the file is
        kind = record.get("type")
        if "provenance" in record:
            # Qwen Code (docs/reading.md, Qwen Code): its records carry `provenance`; a chat record's
            # `message` holds Gemini-like `parts` (Claude Code's hold `content`, and no
            # record of Claude's has `provenance`). A system record says no more: the
            # next lines tell.
            message = record.get("message")
            if isinstance(message, dict) and isinstance(message.get("parts"), list):
                return "qwen"
            return None
        data = record.get("data")
        if kind == "session.start" and isinstance(data, dict) and isinstance(data.get("copilotVersion"), str):
            return "copilot"  # Copilot CLI's event log opens with it (the session is its folder)
        if kind == "session" and isinstance(record.get("version"), int) and isinstance(record.get("cwd"), str):
            return "pi"  # pi's session header (docs/reading.md, pi): `{"type":"session","version":3,…}`
        if "payload" in record and isinstance(kind, str) and "timestamp" in record:
            return "codex"
        if kind == "session_meta":
            return "codex"
        if "sessionId" in record or "parentUuid" in record:
            return "claude"
        if kind in ("summary", "custom-title", "ai-title") and "leafUuid" in record:
            return "claude"
        if "id" in record and "timestamp" in record and "git" in record and "type" not in record:
            return "codex"  # a rollout from before the envelope
        return None
    # A first line longer than the sniff window: judge by its opening bytes.
    head = line[:4096]
    if b'"jsonrpc"' in head:
        return "acp"
    if b'"provenance"' in head and b'"parts"' in head:
        return "qwen"
    if b'"sessionId"' in head or b'"parentUuid"' in head:
        return "claude"
    if b'"payload"' in head:
        return "codex"
    return None


def json_loads(data: str | bytes) -> Any:
    """`json.loads`, the module loaded at its first use: a warm listing decodes no JSON
    in discovery or a workspace, and the `json` package (its decoder and scanner) costs
    its start about 2 ms."""
    import json

    return json.loads(data)

"""The contract between the byte-level IO (lines.py, follow.py, discover.py, index.py)
and the per-harness record readers (claude.py, codex.py, acp.py).

IO decides *which* lines to read (head, tail, backward scan, appended bytes) and hands
the reader raw lines in transcript order; the reader decides what they mean. A reader
never opens a file.

Flow for one transcript file:
    reader = reader_for(harness)(path)
    for line in lines:                      # raw bytes, one complete JSON line each
        if reader.wants(line):              # cheap byte prefilter, before json.loads
            reader.feed_line(line)          # parses, updates facts and the replay
    reader.results()                        # -> list[SessionResult]
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from core.model import AgentPlan, Harness


class SessionFacts(BaseModel):
    """What a reader learnt about a session from its records (mutable while reading)."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    # Title candidates in FORMATS §1 priority order; the reader keeps the *last* of each.
    custom_title: str | None = None
    ai_title: str | None = None
    summary: str | None = None
    first_prompt: str | None = None
    parent_id: str | None = None
    # True when this transcript is a subagent's (Claude `agent-<id>.jsonl`, a Codex
    # thread spawned by another): `parent_id` then names the session it belongs to,
    # rather than the one it was forked from.
    is_subagent: bool = False
    last_timestamp: datetime | None = None

    def title(self) -> str:
        for candidate in (self.custom_title, self.ai_title, self.summary, self.first_prompt):
            if candidate and candidate.strip():
                return candidate
        return ""


class SessionResult(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    facts: SessionFacts
    plan: AgentPlan


class TranscriptReader(ABC):
    harness: Harness
    # Lines containing none of these bytes carry no plan event and no session fact the
    # reader still needs; IO skips them without json.loads.
    needles: tuple[bytes, ...] = ()

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped_lines = 0  # lines that were not valid JSON (FORMATS: count them)

    # Raw bytes for IO's backward scan prefilter (SPEC §2, Long transcripts): the
    # planning tool names and, for Claude, the structured tool-result envelope.
    scan_needles: tuple[bytes, ...] = ()

    def wants(self, line: bytes) -> bool:
        """Cheap raw-byte prefilter. Readers with pending tool calls extend it so the
        calls' results (which carry the call id) pass too."""
        return any(needle in line for needle in self.needles)

    def note_gap(self) -> None:
        """IO skipped lines here (head/tail windows, bounded backward scan): plans not
        restated by a full list after this point are marked partial."""

    def _load(self, line: bytes) -> dict[str, Any] | None:
        """One line as a JSON object; invalid JSON is counted in `skipped_lines`, and a
        valid line that is not an object is an unknown record (None, not counted)."""
        try:
            value = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            self.skipped_lines += 1
            return None
        return value if isinstance(value, dict) else None

    @abstractmethod
    def feed_line(self, line: bytes) -> None:
        """Parse one complete line and apply it. Invalid JSON is counted, not raised."""

    @abstractmethod
    def is_full_list(self, line: bytes) -> bool:
        """True when this line is a call that states a whole list (TodoWrite, update_plan
        items, Codex update_plan, ACP plan). The backward scan stops at one."""

    @abstractmethod
    def results(self) -> list[SessionResult]:
        """One result per session the lines held (ACP logs may hold several)."""


def parse_timestamp(raw: object) -> datetime | None:
    """An ISO 8601 time as harnesses write it (`…Z` included); None when it is not one."""
    if not isinstance(raw, str) or not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw)  # 3.11+ reads a trailing "Z"
    except ValueError:
        return None
    # A naive time is taken as UTC so every timestamp compares with every other.
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def json_needles(key: str, value: str) -> tuple[bytes, ...]:
    """`"key":"value"` as raw bytes, compact and with a space. A quoted pair like this
    only matches JSON structure: inside a JSON string its quotes would be escaped."""
    return (f'"{key}":"{value}"'.encode(), f'"{key}": "{value}"'.encode())

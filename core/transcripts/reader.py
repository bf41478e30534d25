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

from abc import ABC, abstractmethod
from datetime import datetime
from pathlib import Path

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

    def wants(self, line: bytes) -> bool:
        """Cheap raw-byte prefilter. Readers with pending tool calls extend it so the
        calls' results (which carry the call id) pass too."""
        return any(needle in line for needle in self.needles)

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

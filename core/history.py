"""A session's plan history rebuilt from its transcript: the timeline of a session whose
changes happened before planwatch ran (docs/app.md, Details and the timeline).

The transcript is read again from the start with a fresh reader of its harness, through
the same raw-byte prefilter as the index, and the session's plan is taken after every
line fed: each time it differs from the one before, that is a change, stamped with the
time of the line that caused it where the format carries one (Claude Code's and
Codex's `timestamp`, ACP's `{ts, …}` wrapper, Gemini CLI's message times; a bare ACP
log has none: None). The replay is the reader's own, so the rules of docs/reading.md hold here
too (a refused call changes nothing, a Gemini CLI rewind takes calls back).

Bounded: a transcript larger than `HISTORY_BOUND` is read from that many bytes before
its end (the latest changes), and the history says how many bytes it left unread.
Whole-document formats (Gemini CLI's legacy `.json`, rewritten in place) keep no order
of changes: their history is empty. Plan text lives in the returned objects only, in
memory: nothing is written anywhere. Blocking: call it from a worker thread.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from planwatch.core.model import EMPTY_PLAN, AgentPlan, Harness
from planwatch.core.regular_files import open_regular
from planwatch.core.replay import merge_plans
from planwatch.core.sessions import as_agent
from planwatch.core.transcripts.backward import next_line_start
from planwatch.core.transcripts.discover import is_whole_document
from planwatch.core.transcripts.linescan import CHUNK, MAX_LINE, LineScan, Prefilter, fd_scan
from planwatch.core.transcripts.reader import SessionResult, TranscriptReader
from planwatch.core.transcripts.registry import reader_for
from planwatch.core.transcripts.zst import is_zst, zst_reread, zst_stream

log = logging.getLogger(__name__)

# How many bytes of a transcript's end the rebuild reads at most (the latest changes).
HISTORY_BOUND = 64 << 20
# How many of a file's latest changes the rebuild keeps (a timeline shows fewer): a
# transcript of many plan calls holds one plan per change only this many times.
KEPT_CHANGES = 200

Change = tuple[datetime | None, AgentPlan]
# Which part of a transcript over the bound was left unread ("" none).
Unread = Literal["", "start", "end"]
# Where a file's changes without a time sort before its first timed one.
_NO_TIME = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class PlanHistory:
    """The session's plan after each change, oldest first, and what was left unread."""

    changes: tuple[Change, ...] = ()
    # The plan before the first change kept, when older changes were let go (only the
    # last `KEPT_CHANGES` are kept); None when `changes` starts from no plan.
    base: AgentPlan | None = None
    # Which part of a transcript over the bound was left unread: its start (a plain
    # file, read from `bound` bytes before its end) or its end (a compressed rollout,
    # read as a stream from its start); "" when it was read whole.
    unread: Unread = ""
    # The bytes read (decompressed, for a compressed rollout).
    read: int = 0


def replay_history(path: Path, harness: Harness, session_id: str, *, bound: int = HISTORY_BOUND) -> PlanHistory:
    """The plan history of session `session_id` in the transcript at `path`."""
    if is_whole_document(path):
        return PlanHistory()
    reader = reader_for(harness)(path)
    prefilter = Prefilter.of(reader)
    if is_zst(path):
        stream = zst_stream(path)
        try:
            scan = LineScan(stream, 0, prefilter, reread=zst_reread(path), chunk=CHUNK, max_line=MAX_LINE)
            # A compressed rollout's size is not known before it is read: the bound
            # counts the decompressed bytes, read from the start.
            return _replay(reader, session_id, scan, 0, bound)
        finally:
            stream.close()  # type: ignore[attr-defined]
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        start = 0 if size <= bound else next_line_start(fd, size - bound, size, CHUNK)
        if start:
            reader.note_gap()
        return _replay(reader, session_id, fd_scan(fd, start, prefilter, chunk=CHUNK, max_line=MAX_LINE), start, None)
    finally:
        os.close(fd)


def with_agents(main: PlanHistory, agents: Sequence[tuple[str, PlanHistory]]) -> PlanHistory:
    """A session's history with its subagents' (each as its group `agent-<id>`, as the
    session's plan shows them, sessions.py): every change of any file, in time order
    (a change without a time keeps its place after the ones before it in its file)."""
    if not agents:
        return main
    # (when it sorts, which file, the change's own time or None, the file's key, its plan)
    events: list[tuple[datetime, int, datetime | None, str, AgentPlan]] = []
    current: dict[str, AgentPlan] = {}
    for order, (key, history) in enumerate([("", main), *agents]):
        if history.base is not None:
            current[key] = history.base
        moment = _NO_TIME
        for at, plan in history.changes:
            moment = at or moment
            events.append((moment, order, at, key, plan))
    events.sort(key=lambda event: (event[0], event[1]))  # stable: a file's order holds

    def merged() -> AgentPlan:
        kids = (as_agent(current[k], k) for k in sorted(current) if k)
        return merge_plans(current.get("", EMPTY_PLAN), *kids)

    base = merged() if current else None
    changes: deque[Change] = deque(maxlen=KEPT_CHANGES)
    for _moment, _order, at, key, plan in events:
        current[key] = plan
        if len(changes) == KEPT_CHANGES:
            base = changes[0][1]
        changes.append((at, merged()))
    unread: Unread = ""
    for history in (main, *(h for _, h in agents)):
        unread = unread or history.unread
    return PlanHistory(tuple(changes), base, unread=unread, read=main.read + sum(h.read for _, h in agents))


def _replay(reader: TranscriptReader, session_id: str, scan: LineScan, start: int, bound: int | None) -> PlanHistory:
    """Feed `scan`'s lines from `start`; `bound`: stop at a line starting beyond it."""
    changes: deque[Change] = deque(maxlen=KEPT_CHANGES)
    base: AgentPlan | None = None
    before: AgentPlan = EMPTY_PLAN
    several = reader.harness == "acp"
    for offset, line in scan:
        if bound is not None and offset >= bound:
            return PlanHistory(tuple(changes), base, unread="end", read=offset)
        try:
            reader.feed_line(line)
            result = _session(reader.results(), session_id, several)
        except Exception:  # a reader's bug on odd input must not stop the rebuild
            log.debug("reader failed on a line of %s", reader.path, exc_info=True)
            continue
        if result is None or result.plan == before:
            continue
        before = result.plan
        if len(changes) == KEPT_CHANGES:
            base = changes[0][1]  # let go: the next kept change is told against it
        changes.append((result.facts.last_timestamp, result.plan))
    return PlanHistory(tuple(changes), base, unread="start" if start else "", read=scan.offset - start)


def _session(results: list[SessionResult], session_id: str, several: bool) -> SessionResult | None:
    """The result of `session_id`: found by its id in a file that may hold several
    sessions (an ACP log), else the file's one session (whatever id it read so far)."""
    if several:
        return next((r for r in results if r.facts.id == session_id), None)
    return results[0] if results else None

"""OpenCode's SQLite database (docs/reading.md, OpenCode).

One database holds every session (`core.paths.opencode_db()`); OpenCode writes it in WAL
mode while we read. So it is opened through SQLite itself, read-only
(`file:…?mode=ro`, `uri=True`, `PRAGMA query_only`), never copied and never written;
each read is one short read transaction on a fresh connection (a consistent snapshot,
nothing held open between reads), with a busy timeout and a few retries on
`SQLITE_BUSY`.

- Each row of `session` is a session: `title` (until OpenCode names it, `New session -
  <ISO time>`: then the first user prompt stands in), `directory`, `time_updated`
  (epoch ms) as activity. A row with `parent_id` is a subagent's session: its plan is a
  group "agent-<session id>" of its top ancestor's plan, as Claude's subagents are, and
  its activity counts as the ancestor's; one whose parent is not in the database is
  shown on its own.
- Plan (source "opencode_todos"): the `todo` rows of the session `ORDER BY position`,
  the current list OpenCode rewrites on every `todowrite`. Statuses pending,
  in_progress, completed, cancelled and blocked (any other string reads as pending).
- The `todowrite` tool parts are the list's history (`history()`, the session's
  timeline, read on demand): only a part whose `state.status` is `completed` changed
  it (`error` parts and `tool: "invalid"` parts did not). A session with no `todo` rows
  takes its list from the last such part: `[]` there is a list the agent cleared (an
  empty plan), no part at all is no plan.
- Live: `refresh()` looks at each session's `time_updated` and its todo rows' stamp
  and count, and reads again only the sessions where one moved.
- A database that cannot be read (missing, locked for long, corrupt, or a schema
  without the tables and columns above) gives no sessions and a `problem` sentence
  naming the file; the index reports it once.

The pieces: the SQL and the read-only connection are core/transcripts/opencode_sql.py;
the JSON shapes inside rows (a todowrite part, a todo list, a text part) are
core/transcripts/opencode_parts.py; the older storage/ files are read by
core/transcripts/opencode_storage.py. This module turns sessions into results.

State is kept by kind, for a cache that must hold no text: `_signatures` (ids, stamps,
counts) is text-free; `_rows` and `_plans` hold the titles, folders and items, in memory
only.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from planwatch.core.model import (
    EMPTY_PLAN,
    AgentPlan,
    Harness,
    PlanItem,
    Source,
    read_priority,
)
from planwatch.core.replay import merge_plans
from planwatch.core.titles import prompt_title
from planwatch.core.transcripts.opencode_parts import MAX_TITLE_CHARS, SOURCE, TODO_STATUS, plan_of
from planwatch.core.transcripts.opencode_sql import (
    DatabaseProblem,
    check_schema,
    chunks,
    first_prompt,
    has_column,
    last_lists,
    lists_of_parts,
    moment_of,
    prompt_of_part,
    read_transaction,
    todowrite_calls,
    user_prompts,
)
from planwatch.core.transcripts.reader import SessionFacts, SessionResult, SourceReader

log = logging.getLogger(__name__)

UNNAMED_TITLE = "New session - "


@dataclass(frozen=True)
class SessionRow:
    """One `session` row: text (title, folder) and ids."""

    id: str
    parent_id: str | None
    title: str
    directory: str | None
    updated_ms: int


# (session time_updated, todo rows' newest time_updated, todo row count): when any
# moves, the session is read again. Ids and numbers only.
Signature = tuple[int, int, int]


class OpenCodeReader(SourceReader):
    """Every session of one OpenCode database. Not a line reader: IO calls `read()`
    (the first scan) and `refresh()` (when the database or its -wal changed).

    Parameterised by `harness` and `source` so a fork of OpenCode with a database of the
    same tables (Kilo CLI: core/transcripts/kilo.py) is read by this very code."""

    harness: Harness = "opencode"
    source: Source = SOURCE

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.problem: str | None = None
        self._plans_on = True
        # Text-free: what each session looked like when last read.
        self._signatures: dict[str, Signature] = {}
        # Text (memory only): rows and each session's own plan (None: it has none).
        self._rows: dict[str, SessionRow] = {}
        self._plans: dict[str, AgentPlan] = {}
        self._prompts: dict[str, str] = {}
        # What `results()` hands out, by top-level session: rebuilt only where it moved.
        self._results: dict[str, SessionResult] = {}
        self._top_of: dict[str, str] = {}  # session id → the session it is shown under
        # Text-free, for the warm-start cache (`warm_state`): the part that held each
        # session's list when it has no todo rows, and its first prompt when unnamed.
        self._list_parts: dict[str, str] = {}
        self._prompt_parts: dict[str, str] = {}
        # What the cache remembered (`read(remembered=…)`), during that read only.
        self._remembered: dict[str, _Remembered] = {}

    # -- the line contract does not apply ------------------------------------------------

    def feed_line(self, line: bytes) -> None:
        raise NotImplementedError("an OpenCode database is read with read()/refresh(), not line by line")

    def is_full_list(self, line: bytes) -> bool:
        return False

    # -- reading -----------------------------------------------------------------------

    def read(self, *, plans: bool = True, remembered: object = None) -> list[SessionResult]:
        """Read every session from scratch; never raises (a problem is kept in `problem`).

        `remembered`: what `warm_state()` gave at an earlier start (the warm-start
        cache). A session whose signature (`time_updated`, its todo rows' stamp and
        count) is still the one remembered has its list and its first prompt read from
        the parts the cache names, by id, instead of searching its parts; anything else
        in it (a wrong shape, an unknown id) is ignored: that session is searched."""
        self._plans_on = plans
        self._signatures.clear()
        self._rows.clear()
        self._plans.clear()
        self._prompts.clear()
        self._results.clear()
        self._top_of.clear()
        self._list_parts.clear()
        self._prompt_parts.clear()
        self._remembered = _remembered_sessions(remembered) if plans else {}
        try:
            self.refresh()
        finally:
            self._remembered = {}
        return self.results()

    def warm_state(self) -> dict[str, Any]:
        """What lets the next start skip searching parts, holding no text: per session
        its signature (times and a count) and the ids of the parts that held its list
        and its first prompt (warmcache.py)."""
        return {
            "sessions": {
                sid: [*signature, self._list_parts.get(sid), self._prompt_parts.get(sid)]
                for sid, signature in self._signatures.items()
            }
        }

    def refresh(self) -> set[str]:
        """Read again the sessions whose row or todo rows moved since the last read;
        returns the ids of the results that changed (a subagent's change is its top
        session's). Never raises: a problem is kept in `problem`."""
        try:
            moved = self.read_changes()
        except DatabaseProblem as exc:
            self.problem = str(exc)
            return set()
        self.problem = None
        if not moved:
            return set()
        old, self._top_of = self._top_of, {sid: self._top(sid) for sid in self._rows}
        affected = {old.get(sid, sid) for sid in moved} | {self._top_of[sid] for sid in moved if sid in self._rows}
        # A session shown under another one since (its parent appeared) or no longer.
        for sid, top in self._top_of.items():
            if old.get(sid, top) != top:
                affected |= {old[sid], top}
        members: dict[str, list[str]] = {}
        for sid, top in self._top_of.items():
            if top in affected:
                members.setdefault(top, []).append(sid)
        for top in affected:
            self._results.pop(top, None)
            if top in members:
                self._results[top] = self._result(top, members[top])
        return affected

    def results(self) -> list[SessionResult]:
        """One result per session shown: top-level sessions (and subagents whose parent
        is not in the database), each with its subagents' plans as groups."""
        return list(self._results.values())

    def _result(self, top: str, members: list[str]) -> SessionResult:
        row = self._rows[top]
        facts = SessionFacts(id=row.id, cwd=row.directory)
        facts.first_prompt = self._title(row)
        if row.parent_id is not None:
            facts.parent_id = row.parent_id  # lineage: its parent is not here
        for sid in members:
            facts.touch(moment_of(self._rows[sid].updated_ms))
        plan = self._plans.get(top, EMPTY_PLAN)
        kids = sorted(sid for sid in members if sid != top)
        facts.subagent_ids = kids
        if kids:
            plan = merge_plans(plan, *(_as_agent(self._plans.get(k, EMPTY_PLAN), k) for k in kids))
        return SessionResult(facts=facts, plan=plan)

    def session_ids(self) -> set[str]:
        return set(self._rows)

    # -- history (the timeline) ----------------------------------------------------------

    def history(self, session_id: str) -> list[tuple[datetime, AgentPlan]]:
        """The session's list after each completed `todowrite` call, oldest first, with
        the call's time: its timeline (read on demand: it reads the session's parts).
        Subagent sessions' calls change their own group. Never raises ([] when the
        database cannot be read)."""
        members = [sid for sid, top in self._top_of.items() if top == session_id]
        if not members:
            return []
        try:
            calls = read_transaction(self.path, lambda db: todowrite_calls(db, members))
        except DatabaseProblem:
            return []
        plans: dict[str, AgentPlan] = {}
        out: list[tuple[datetime, AgentPlan]] = []
        for sid, moment, items in calls:
            plans[sid] = plan_of(items, self.source)
            plan = plans.get(session_id, EMPTY_PLAN)
            kids = sorted(k for k in plans if k != session_id)
            if kids:
                plan = merge_plans(plan, *(_as_agent(plans[k], k) for k in kids))
            if moment is not None:
                out.append((moment, plan))
        return out

    # -- queries -----------------------------------------------------------------------

    def read_changes(self) -> set[str]:
        """Read the sessions whose stamps moved; the ids read, added or gone. Raises
        `DatabaseProblem` when the source cannot be read. A reader of another layout
        of the same sessions (opencode_storage.py) reads its own way and hands what it
        read to `keep_changes`."""
        return read_transaction(self.path, self._refresh)

    def keep_changes(
        self,
        rows: dict[str, SessionRow],
        signatures: dict[str, Signature],
        read: Callable[[SessionRow, bool], tuple[AgentPlan | None, str | None]],
    ) -> set[str]:
        """Keep what a reader of another layout found (every session there now, its row
        and signature); returns the ids read, added or gone. For each session whose
        signature moved, `read(row, wants_prompt)` gives its plan (None: it has none)
        and, when `wants_prompt` (it is still unnamed and no prompt is known), the
        first prompt that stands in for its title."""
        moved = {sid for sid, sig in signatures.items() if self._signatures.get(sid) != sig}
        gone = set(self._signatures) - set(signatures)
        self._forget(gone)
        for sid in moved:
            row = rows[sid]
            self._rows[sid] = row
            self._signatures[sid] = signatures[sid]
            wants_prompt = (row.title.startswith(UNNAMED_TITLE) or not row.title.strip()) and sid not in self._prompts
            plan, prompt = read(row, wants_prompt)
            if prompt:
                self._prompts[sid] = prompt
            self._plans.pop(sid, None)
            if plan is not None:
                self._plans[sid] = plan
        return moved | gone

    @property
    def reads_plans(self) -> bool:
        """Whether the read in progress reads plans (`read(plans=…)`)."""
        return self._plans_on

    def _forget(self, gone: set[str]) -> None:
        for sid in gone:
            self._rows.pop(sid, None)
            self._plans.pop(sid, None)
            self._prompts.pop(sid, None)
            self._signatures.pop(sid, None)
            self._list_parts.pop(sid, None)
            self._prompt_parts.pop(sid, None)

    def _refresh(self, db: sqlite3.Connection) -> set[str]:
        check_schema(db)
        rows = {
            str(r[0]): SessionRow(
                id=str(r[0]),
                parent_id=r[1] if isinstance(r[1], str) and r[1] else None,
                title=r[2] if isinstance(r[2], str) else "",
                directory=r[3] if isinstance(r[3], str) and r[3] else None,
                updated_ms=int(r[4]) if isinstance(r[4], int | float) else 0,
            )
            for r in db.execute("SELECT id, parent_id, title, directory, time_updated FROM session")
        }
        stamps = {
            str(r[0]): (int(r[1] or 0), int(r[2]))
            for r in db.execute("SELECT session_id, MAX(time_updated), COUNT(*) FROM todo GROUP BY session_id")
        }
        signatures = {sid: (row.updated_ms, *stamps.get(sid, (0, 0))) for sid, row in rows.items()}
        moved = {sid for sid, sig in signatures.items() if self._signatures.get(sid) != sig}
        gone = set(self._signatures) - set(signatures)
        self._forget(gone)
        if moved:
            without = {sid for sid in moved if stamps.get(sid, (0, 0))[1] == 0}
            self._read_sessions(db, rows, moved, without, signatures)
            for sid in moved:
                self._rows[sid] = rows[sid]
                self._signatures[sid] = signatures[sid]
        return moved | gone

    def _read_sessions(
        self,
        db: sqlite3.Connection,
        rows: dict[str, SessionRow],
        ids: set[str],
        without_todos: set[str],
        signatures: dict[str, Signature] | None = None,
    ) -> None:
        """Read the plans (and stand-in titles) of sessions `ids`."""
        # Sessions unchanged since the warm-start cache was written: their parts by id.
        same = {
            sid
            for sid in ids
            if signatures is not None and sid in self._remembered and self._remembered[sid][0] == signatures.get(sid)
        }
        unnamed = {sid for sid in ids if rows[sid].title.startswith(UNNAMED_TITLE) or not rows[sid].title.strip()}
        for sid in unnamed - set(self._prompts):
            remembered = self._remembered[sid][2] if sid in same else None
            prompt, part = (prompt_of_part(db, sid, remembered), remembered) if remembered else (None, None)
            if prompt is None and (sid not in same or remembered):
                prompt, part = first_prompt(db, sid)  # not remembered, or not there any more
            if prompt and part is not None:
                self._prompts[sid] = prompt
                self._prompt_parts[sid] = part
        if not self._plans_on:
            for sid in ids:
                self._plans.pop(sid, None)
            return
        items: dict[str, list[PlanItem]] = {}
        with_todos = ids - without_todos
        for chunk in chunks(sorted(with_todos)):
            marks = ",".join("?" * len(chunk))
            # The todo's priority where the table has the column (docs/reading.md, OpenCode).
            priority = "priority" if has_column(db, "todo", "priority") else "NULL"
            query = (
                f"SELECT session_id, content, status, {priority} FROM todo WHERE session_id IN ({marks}) "
                "ORDER BY session_id, position"
            )
            for sid, content, status, level in db.execute(query, chunk):
                if isinstance(content, str):
                    item = PlanItem(
                        text=content, status=TODO_STATUS.get(status, "pending"), priority=read_priority(level)
                    )
                    items.setdefault(sid, []).append(item)
        for sid in ids:
            self._plans.pop(sid, None)
        for sid, listed in items.items():
            self._plans[sid] = plan_of(tuple(listed), self.source)
        # No todo rows: the last completed todowrite part says whether there is a list.
        for sid in without_todos:
            self._list_parts.pop(sid, None)
        known = {sid: self._remembered[sid][1] for sid in without_todos & same}
        found = lists_of_parts(db, {sid: part for sid, part in known.items() if part is not None})
        # Not remembered, or a remembered part that is not there (or not a list) any more:
        # searched as on a first read.
        lost = {sid for sid, part in known.items() if part is not None and sid not in found}
        found.update(last_lists(db, (without_todos - set(known)) | lost))
        for sid, (last, part) in found.items():
            self._plans[sid] = plan_of(last, self.source)
            self._list_parts[sid] = part

    # -- facts -------------------------------------------------------------------------

    def _top(self, sid: str) -> str:
        """The session whose row `sid` belongs under: its furthest ancestor here."""
        seen = {sid}
        row = self._rows[sid]
        while row.parent_id is not None and row.parent_id in self._rows and row.parent_id not in seen:
            seen.add(row.parent_id)
            row = self._rows[row.parent_id]
        return row.id

    def _title(self, row: SessionRow) -> str:
        if row.title.strip() and not row.title.startswith(UNNAMED_TITLE):
            return prompt_title(row.title, MAX_TITLE_CHARS)
        prompt = self._prompts.get(row.id)
        return prompt if prompt else prompt_title(row.title, MAX_TITLE_CHARS)


def _as_agent(plan: AgentPlan, sid: str) -> AgentPlan:
    key = f"agent-{sid}"
    return AgentPlan(groups=tuple(replace(g, key=key) for g in plan.groups if g.key == ""))


# A session as the warm-start cache remembers it: its signature, the part holding its
# list, the part holding its first prompt.
_Remembered = tuple[Signature, str | None, str | None]


def _remembered_sessions(state: object) -> dict[str, _Remembered]:
    """`warm_state()`'s shape checked; anything else is nothing remembered."""
    sessions = state.get("sessions") if isinstance(state, dict) else None
    if not isinstance(sessions, dict):
        return {}
    found: dict[str, _Remembered] = {}
    for sid, raw in sessions.items():
        if not (isinstance(raw, list) and len(raw) == 5):
            continue
        *numbers, list_part, prompt_part = raw
        if not all(type(n) is int for n in numbers):
            continue
        if not all(p is None or isinstance(p, str) for p in (list_part, prompt_part)):
            continue
        found[str(sid)] = ((numbers[0], numbers[1], numbers[2]), list_part, prompt_part)
    return found


def session_prompts(path: Path, session_id: str) -> list[tuple[datetime | None, str]]:
    """What the person typed in one session of the database at `path`, oldest first, with
    each message's time (what `o` pages for an OpenCode session, whose "transcript" is a
    database no pager can show). Raises `DatabaseProblem` when it cannot be read."""
    return read_transaction(path, lambda db: user_prompts(db, session_id))

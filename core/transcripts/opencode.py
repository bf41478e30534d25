"""OpenCode's SQLite database, FORMATS §6.

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

State is kept by kind, for a cache that must hold no text: `_signatures` (ids, stamps,
counts) is text-free; `_rows` and `_plans` hold the titles, folders and items, in memory
only.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from planwatch.core.model import (
    EMPTY_PLAN,
    TODO_STATUSES,
    AgentPlan,
    PlanGroup,
    PlanItem,
    Source,
    Status,
    read_priority,
    read_status,
)
from planwatch.core.replay import merge_plans
from planwatch.core.transcripts.discover import read_small
from planwatch.core.transcripts.reader import SessionFacts, SessionResult, TranscriptReader, prompt_title

log = logging.getLogger(__name__)

SOURCE: Source = "opencode_todos"
TODOWRITE = "todowrite"
BUSY_TIMEOUT = 1.0  # seconds SQLite waits on a lock before answering SQLITE_BUSY
RETRIES = 3  # reads tried again after SQLITE_BUSY, with a short pause between
RETRY_PAUSE = 0.2
MAX_TITLE_CHARS = 1000
UNNAMED_TITLE = "New session - "
# The tables and columns read; a database without them is of a schema we do not know.
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "session": ("id", "parent_id", "directory", "title", "time_updated"),
    "todo": ("session_id", "content", "status", "position", "time_updated"),
    "part": ("session_id", "message_id", "time_created", "data"),
    "message": ("id", "session_id", "time_created", "data"),
}
# Text in a part's data JSON that any todowrite part holds: a cheap SQL filter before
# the JSON is parsed (and confirmed) here.
_TODOWRITE_LIKE = '%"todowrite"%'

T = TypeVar("T")
# A todo row's status word → ours (FORMATS §7: anything else reads as pending).
_STATUS: dict[object, Status] = {status: read_status(status, TODO_STATUSES) for status in TODO_STATUSES}


class DatabaseProblem(Exception):
    """The database cannot be read; the message says why (shown with the file)."""


@dataclass(frozen=True)
class _Row:
    """One `session` row: text (title, folder) and ids."""

    id: str
    parent_id: str | None
    title: str
    directory: str | None
    updated_ms: int


# (session time_updated, todo rows' newest time_updated, todo row count): when any
# moves, the session is read again. Ids and numbers only.
Signature = tuple[int, int, int]


class OpenCodeReader(TranscriptReader):
    """Every session of one OpenCode database. Not a line reader: IO calls `read()`
    (the first scan) and `refresh()` (when the database or its -wal changed)."""

    harness = "opencode"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.problem: str | None = None
        self._plans_on = True
        # Text-free: what each session looked like when last read.
        self._signatures: dict[str, Signature] = {}
        # Text (memory only): rows and each session's own plan (None: it has none).
        self._rows: dict[str, _Row] = {}
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

    def read(self, *, plans: bool = True, remembered: Any = None) -> list[SessionResult]:
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
            moved = self._read_changes()
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
            facts.touch(_moment(self._rows[sid].updated_ms))
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
            calls = self._with_connection(lambda db: _todowrite_calls(db, members))
        except DatabaseProblem:
            return []
        plans: dict[str, AgentPlan] = {}
        out: list[tuple[datetime, AgentPlan]] = []
        for sid, moment, items in calls:
            plans[sid] = _plan(items)
            plan = plans.get(session_id, EMPTY_PLAN)
            kids = sorted(k for k in plans if k != session_id)
            if kids:
                plan = merge_plans(plan, *(_as_agent(plans[k], k) for k in kids))
            if moment is not None:
                out.append((moment, plan))
        return out

    # -- queries -----------------------------------------------------------------------

    def _read_changes(self) -> set[str]:
        """Read the sessions whose stamps moved; the ids read, added or gone."""
        return self._with_connection(self._refresh)

    def _forget(self, gone: set[str]) -> None:
        for sid in gone:
            self._rows.pop(sid, None)
            self._plans.pop(sid, None)
            self._prompts.pop(sid, None)
            self._signatures.pop(sid, None)
            self._list_parts.pop(sid, None)
            self._prompt_parts.pop(sid, None)

    def _with_connection(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in one short read transaction on a fresh read-only connection,
        trying again on SQLITE_BUSY; any failure becomes a DatabaseProblem."""
        if not self.path.is_file():
            raise DatabaseProblem(f"{self.path}: no database there")
        uri = f"file:{quote(str(self.path))}?mode=ro"
        last: Exception | None = None
        for attempt in range(RETRIES + 1):
            try:
                connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False)
            except sqlite3.Error as exc:
                raise DatabaseProblem(f"{self.path}: cannot be opened ({exc})") from exc
            try:
                connection.execute("PRAGMA query_only = 1")
                connection.execute("BEGIN")  # one snapshot; closing the connection ends it
                return work(connection)
            except DatabaseProblem as exc:
                raise DatabaseProblem(f"{self.path}: {exc}") from exc
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    last = exc
                    time.sleep(RETRY_PAUSE * (attempt + 1))
                    continue
                raise DatabaseProblem(f"{self.path}: {_wording(exc)}") from exc
            except sqlite3.DatabaseError as exc:  # not a database, malformed
                raise DatabaseProblem(f"{self.path}: {_wording(exc)}") from exc
            finally:
                connection.close()
        raise DatabaseProblem(f"{self.path}: locked by another program for too long ({last})")

    def _refresh(self, db: sqlite3.Connection) -> set[str]:
        _check_schema(db)
        rows = {
            str(r[0]): _Row(
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
        rows: dict[str, _Row],
        ids: set[str],
        without_todos: set[str],
        signatures: dict[str, Signature] | None = None,
    ) -> None:
        """Read the plans (and stand-in titles) of sessions `ids`."""
        # Sessions unchanged since the warm-start cache was written: their parts by id.
        same = {
            sid for sid in ids
            if signatures is not None and sid in self._remembered and self._remembered[sid][0] == signatures.get(sid)
        }
        unnamed = {sid for sid in ids if rows[sid].title.startswith(UNNAMED_TITLE) or not rows[sid].title.strip()}
        for sid in unnamed - set(self._prompts):
            remembered = self._remembered[sid][2] if sid in same else None
            prompt, part = (_prompt_of_part(db, sid, remembered), remembered) if remembered else (None, None)
            if prompt is None and (sid not in same or remembered):
                prompt, part = _first_prompt(db, sid)  # not remembered, or not there any more
            if prompt and part is not None:
                self._prompts[sid] = prompt
                self._prompt_parts[sid] = part
        if not self._plans_on:
            for sid in ids:
                self._plans.pop(sid, None)
            return
        items: dict[str, list[PlanItem]] = {}
        with_todos = ids - without_todos
        for chunk in _chunks(sorted(with_todos)):
            marks = ",".join("?" * len(chunk))
            # The todo's priority where the table has the column (FORMATS §6 lists it).
            priority = "priority" if _has_column(db, "todo", "priority") else "NULL"
            query = (f"SELECT session_id, content, status, {priority} FROM todo WHERE session_id IN ({marks}) "
                     "ORDER BY session_id, position")
            for sid, content, status, level in db.execute(query, chunk):
                if isinstance(content, str):
                    item = PlanItem(text=content, status=_STATUS.get(status, "pending"), priority=read_priority(level))
                    items.setdefault(sid, []).append(item)
        for sid in ids:
            self._plans.pop(sid, None)
        for sid, listed in items.items():
            self._plans[sid] = _plan(tuple(listed))
        # No todo rows: the last completed todowrite part says whether there is a list.
        for sid in without_todos:
            self._list_parts.pop(sid, None)
        known = {sid: self._remembered[sid][1] for sid in without_todos & same}
        found = _lists_of_parts(db, {sid: part for sid, part in known.items() if part is not None})
        # Not remembered, or a remembered part that is not there (or not a list) any more:
        # searched as on a first read.
        lost = {sid for sid, part in known.items() if part is not None and sid not in found}
        found.update(_last_lists(db, (without_todos - set(known)) | lost))
        for sid, (last, part) in found.items():
            self._plans[sid] = _plan(last)
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

    def _title(self, row: _Row) -> str:
        if row.title.strip() and not row.title.startswith(UNNAMED_TITLE):
            return prompt_title(row.title, MAX_TITLE_CHARS)
        prompt = self._prompts.get(row.id)
        return prompt if prompt else prompt_title(row.title, MAX_TITLE_CHARS)


def _plan(items: tuple[PlanItem, ...]) -> AgentPlan:
    return AgentPlan(groups=(PlanGroup(key="", source=SOURCE, items=items),))


def _as_agent(plan: AgentPlan, sid: str) -> AgentPlan:
    key = f"agent-{sid}"
    return AgentPlan(groups=tuple(replace(g, key=key) for g in plan.groups if g.key == ""))


def _moment(ms: int) -> datetime | None:
    if ms <= 0:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _chunks(ids: Sequence[str], size: int = 500) -> Iterable[list[str]]:
    """Ids in chunks under SQLite's bound-parameter limit."""
    for at in range(0, len(ids), size):
        yield list(ids[at : at + size])


def _has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(str(r[1]) == column for r in db.execute(f"PRAGMA table_info({table})"))


def _check_schema(db: sqlite3.Connection) -> None:
    for table, columns in REQUIRED_COLUMNS.items():
        have = {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in columns if c not in have]
        if not have:
            raise DatabaseProblem(f"an unknown schema version (no `{table}` table)")
        if missing:
            raise DatabaseProblem(f"an unknown schema version (`{table}` has no {', '.join(missing)})")


def _todowrite_list(data: Any) -> tuple[PlanItem, ...] | None:
    """The list a todowrite part applied: only a `completed` call of the tool itself
    (an `error` part or a `tool: "invalid"` part changed nothing); None otherwise."""
    try:
        part = json.loads(data) if isinstance(data, str | bytes) else None
    except (ValueError, RecursionError):
        return None
    if not isinstance(part, dict) or part.get("type") != "tool" or part.get("tool") != TODOWRITE:
        return None
    state = part.get("state")
    if not isinstance(state, dict) or state.get("status") != "completed":
        return None
    call = state.get("input")
    return _todo_items(call.get("todos") if isinstance(call, dict) else None)


def _todowrite_calls(db: sqlite3.Connection, ids: list[str]) -> list[tuple[str, datetime | None, tuple[PlanItem, ...]]]:
    """Each completed todowrite call of sessions `ids`: (session, time, list), in order."""
    found: list[tuple[int, str, datetime | None, tuple[PlanItem, ...]]] = []
    for chunk in _chunks(sorted(ids)):
        marks = ",".join("?" * len(chunk))
        query = f"SELECT session_id, time_created, data FROM part WHERE session_id IN ({marks}) AND data LIKE ?"
        for sid, created, data in db.execute(query, (*chunk, _TODOWRITE_LIKE)):
            listed = _todowrite_list(data)
            if listed is not None:
                ms = int(created) if isinstance(created, int | float) else 0
                found.append((ms, sid, _moment(ms), listed))
    found.sort(key=lambda call: call[0])
    return [(sid, moment, listed) for _ms, sid, moment, listed in found]


def _last_lists(db: sqlite3.Connection, ids: set[str]) -> dict[str, tuple[tuple[PlanItem, ...], str]]:
    """For sessions without todo rows: the list of each one's last completed todowrite,
    and the id of the part holding it."""
    found: dict[str, tuple[tuple[PlanItem, ...], str]] = {}
    for chunk in _chunks(sorted(ids)):
        marks = ",".join("?" * len(chunk))
        query = (
            f"SELECT session_id, data, id FROM part WHERE session_id IN ({marks}) AND data LIKE ? "
            "ORDER BY session_id, time_created, id"
        )
        for sid, data, part in db.execute(query, (*chunk, _TODOWRITE_LIKE)):
            listed = _todowrite_list(data)
            if listed is not None:
                found[sid] = (listed, str(part))
    return found


def _lists_of_parts(db: sqlite3.Connection, parts: dict[str, str]) -> dict[str, tuple[tuple[PlanItem, ...], str]]:
    """The lists the named parts hold (session id → part id, as the warm-start cache
    remembered them): one lookup by id instead of a search of every part."""
    found: dict[str, tuple[tuple[PlanItem, ...], str]] = {}
    wanted = {part: sid for sid, part in parts.items()}
    for chunk in _chunks(sorted(wanted)):
        marks = ",".join("?" * len(chunk))
        for part, owner, data in db.execute(f"SELECT id, session_id, data FROM part WHERE id IN ({marks})", chunk):
            sid = wanted.get(str(part))
            listed = _todowrite_list(data) if sid is not None and owner == sid else None
            if sid is not None and listed is not None:
                found[sid] = (listed, str(part))
    return found


def _first_prompt(db: sqlite3.Connection, sid: str) -> tuple[str | None, str | None]:
    """The text of the first user message's text part (the title until OpenCode names
    the session), and the id of that part."""
    query = (
        "SELECT p.data, m.data, p.id FROM message m JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? ORDER BY m.time_created, m.id, p.time_created, p.id LIMIT 50"
    )
    for part_data, message_data, part_id in db.execute(query, (sid,)):
        try:
            message = json.loads(message_data)
            part = json.loads(part_data)
        except (ValueError, TypeError, RecursionError):
            continue
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        text = _part_text(part)
        if text:
            return text, str(part_id)
    return None, None


def _part_text(part: Any) -> str | None:
    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
        text = part["text"].strip()
        if text:
            return prompt_title(text, MAX_TITLE_CHARS)
    return None


def _prompt_of_part(db: sqlite3.Connection, sid: str, part_id: str) -> str | None:
    """The prompt a part of session `sid` remembered by the warm-start cache holds."""
    for (data,) in db.execute("SELECT data FROM part WHERE id = ? AND session_id = ?", (part_id, sid)):
        try:
            return _part_text(json.loads(data))
        except (ValueError, TypeError, RecursionError):
            return None
    return None


# A session as the warm-start cache remembers it: its signature, the part holding its
# list, the part holding its first prompt.
_Remembered = tuple[Signature, str | None, str | None]


def _remembered_sessions(state: Any) -> dict[str, _Remembered]:
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


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _wording(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "not a database" in text or "malformed" in text:
        return f"corrupt or not an SQLite database ({text})"
    return text


class OpenCodeStorageReader(OpenCodeReader):
    """OpenCode before its database: JSON files under `<data>/opencode/storage/`, as its
    public source wrote them (`Storage.write(["session", projectID, sessionID], info)`,
    `Storage.write(["todo", sessionID], todos)`):
    - `session/<projectID>/<sessionID>.json`: `{id, projectID, directory, parentID?,
      title, version, time: {created, updated}}`;
    - `todo/<sessionID>.json`: the current list, `[{content, status, priority, id}]`;
    - `message/<sessionID>/<messageID>.json` (`role`, `time.created`) and
      `part/<messageID>/<partID>.json` (`{type: "text", text}`): the first prompt, read
      only for a session still titled `New session - …`.
    The same rules as the database; `path` is the storage folder. Read only when no
    database sits beside it (a database holds what was migrated from here)."""

    def _read_changes(self) -> set[str]:
        sessions = self.path / "session"
        if not sessions.is_dir():
            raise DatabaseProblem(f"{self.path}: no session folder (not OpenCode's storage)")
        rows: dict[str, _Row] = {}
        signatures: dict[str, Signature] = {}
        for project in _entries(sessions):
            if not project.is_dir():
                continue
            for file in _entries(project):
                info = _read_json(file) if file.name.endswith(".json") else None
                row = _storage_row(info)
                if row is None:
                    continue
                rows[row.id] = row
                todo = self.path / "todo" / f"{row.id}.json"
                try:
                    st = todo.stat()
                    stamp = (st.st_mtime_ns, st.st_size)
                except OSError:
                    stamp = (0, 0)
                signatures[row.id] = (row.updated_ms, *stamp)
        moved = {sid for sid, sig in signatures.items() if self._signatures.get(sid) != sig}
        gone = set(self._signatures) - set(signatures)
        self._forget(gone)
        for sid in moved:
            row = rows[sid]
            self._rows[sid] = row
            self._signatures[sid] = signatures[sid]
            if (row.title.startswith(UNNAMED_TITLE) or not row.title.strip()) and sid not in self._prompts:
                prompt = self._stored_prompt(sid)
                if prompt:
                    self._prompts[sid] = prompt
            self._plans.pop(sid, None)
            if not self._plans_on or signatures[sid][1] == 0:
                continue
            listed = _todo_items(_read_json(self.path / "todo" / f"{sid}.json"))
            if listed is not None:
                self._plans[sid] = _plan(listed)
        return moved | gone

    def _stored_prompt(self, sid: str) -> str | None:
        users: list[tuple[float, str]] = []
        for file in _entries(self.path / "message" / sid):
            message = _read_json(file)
            if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("id"), str):
                created = message.get("time", {}).get("created") if isinstance(message.get("time"), dict) else None
                users.append((created if isinstance(created, int | float) else 0, message["id"]))
        for _created, mid in sorted(users):
            for file in sorted(_entries(self.path / "part" / mid), key=lambda f: f.name):
                part = _read_json(file)
                if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    text = part["text"].strip()
                    if text:
                        return prompt_title(text, MAX_TITLE_CHARS)
        return None


MAX_JSON = 4 << 20  # a storage file larger than this is not read


def _entries(folder: Path) -> list[Path]:
    try:
        return [Path(entry.path) for entry in os.scandir(folder)]
    except OSError:
        return []


def _read_json(path: Path) -> Any:
    """A small regular JSON file's value; None when missing, too large or not JSON."""
    data = read_small(path, MAX_JSON)
    if data is None:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _storage_row(info: Any) -> _Row | None:
    if not isinstance(info, dict) or not isinstance(info.get("id"), str) or not info["id"]:
        return None
    times = info.get("time")
    times = times if isinstance(times, dict) else {}
    updated = times.get("updated", times.get("created", 0))
    parent = info.get("parentID")
    title = info.get("title")
    directory = info.get("directory")
    return _Row(
        id=info["id"],
        parent_id=parent if isinstance(parent, str) and parent else None,
        title=title if isinstance(title, str) else "",
        directory=directory if isinstance(directory, str) and directory else None,
        updated_ms=int(updated) if isinstance(updated, int | float) else 0,
    )


def _todo_items(raw: Any) -> tuple[PlanItem, ...] | None:
    """A todo list (`[{content, status, priority, …}]`, as todowrite's input and the
    storage/ todo files hold it) as plan items; None for an unrecognised shape."""
    if not isinstance(raw, list):
        return None
    items: list[PlanItem] = []
    for todo in raw:
        if not isinstance(todo, dict) or not isinstance(todo.get("content"), str):
            return None  # an unrecognised shape gives no list rather than a wrong one
        items.append(PlanItem(
            text=todo["content"],
            status=_STATUS.get(todo.get("status"), "pending"),
            priority=read_priority(todo.get("priority")),
        ))
    return tuple(items)

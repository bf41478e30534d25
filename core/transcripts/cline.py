"""Cline CLI's sessions: a data folder of rewritten JSON files and a task board in SQLite.

Where (core.paths.cline_data_dir()): `$CLINE_DATA_DIR`, else `$CLINE_DIR/data` (default
`~/.cline/data`). Each session is a folder `sessions/<id>/` holding
- `<id>.json`, its metadata, rewritten: `session_id`, `cwd`, `prompt`, `started_at`,
  `ended_at`, `metadata.title`;
- `<id>.messages.json`, its messages: ONE JSON document rewritten whole
  (`{"version","sessionId","updated_at","messages":[…]}`), not JSON Lines, so it is read
  whole and never followed by offsets. A document that does not parse was caught
  half-written (or is broken): it is named (which file, what is wrong), that session is
  shown without a plan, and it is read again when it next changes.

The plan is a board: Cline 3 keeps its `team_task` calls' effect in `db/teams.db`, table
`team_tasks`, whose `team_name` is the session's id. A session's plan (source
`cline_tasks`) is its rows in `task_id` order, `title` the text; statuses pending,
in_progress, blocked and completed (any other word reads as pending); `depends_on_json`
(task ids) is what a step waits for. A refused call (a `tool_result` with `is_error`)
changed no row, and the table, never the calls, is what holds. A row without a title is
a shape we do not know: that session has no plan and the row is named.

The database is opened as OpenCode's is (opencode_sql.read_transaction: `mode=ro`,
`PRAGMA query_only`, one short read transaction per read, a busy timeout and retries,
never written). One that is missing, locked for long, corrupt or of an unknown schema is
named once; every session is still listed, without a plan.

The timeline (`history`, read when the details ask): the rows keep no past, so it is the
board after each `team_task` result the messages hold that is not `is_error` and names
the `taskId` and `status` the task took, at that message's `ts` (`board_history`).

Live: `refresh()` stats each session's two files and asks the board for each session's
row count, newest `updated_at` and summed `version`; only the sessions where one moved are
read again. Activity is the latest of the metadata's times, the messages' `updated_at` and
the session's rows' `updated_at`.

Warm start: `warm_state()` remembers, per session, its files' stats, its rows' count and
version, and a text-free hint of what its messages document gave besides text (its
`updated_at`). A start handed that state (`read(remembered=…)`) leaves the messages
document of a session whose two files kept their stats unread — it holds every message
and can be megabytes — and reads the small metadata file for the title and folder (text:
never cached) and the board for the plan. A session titled from its messages alone, or
one with a problem, has no hint and is read whole.

State kept by kind, for a cache that must hold no text: `_signatures` (ids, sizes, times,
counts) and the hints are text-free; `_sessions` holds titles, folders and items, in
memory only.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from planwatch.core.model import EMPTY_PLAN, AgentPlan, Harness, PlanGroup, PlanItem, Source, Status, read_status
from planwatch.core.regular_files import read_regular
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.opencode_sql import DatabaseProblem, chunks, read_transaction
from planwatch.core.transcripts.reader import (
    SessionFacts,
    SessionResult,
    SourceReader,
    parse_timestamp,
)

log = logging.getLogger(__name__)

SOURCE: Source = "cline_tasks"
BOARD = Path("db") / "teams.db"
SESSIONS = "sessions"
# How the sessions are shown while the board cannot be read (said with what is wrong).
BOARD_SHOWN = "every session of the folder is listed without a plan"
# The board's statuses, as Cline writes them (docs/reading.md, Cline CLI).
BOARD_STATUSES: tuple[Status, ...] = ("pending", "in_progress", "blocked", "completed")
REQUIRED_COLUMNS = ("team_name", "task_id", "title", "status", "depends_on_json", "updated_at", "version")
# A session's JSON is read whole: past this it is named as too large, not read.
MAX_DOCUMENT = 64 << 20
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS
# Cline wraps the typed prompt in `<user_input mode="…">…</user_input>`.
_USER_INPUT_OPEN = "<user_input"
_USER_INPUT_CLOSE = "</user_input>"

# A file's stat as compared between reads: (inode, size, mtime and ctime in ns); () when
# absent. The ctime too: a file rewritten in place with its size kept and its mtime put
# back still has a new one, which no one can set.
FileSig = tuple[int, ...]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class _Session:
    """What one session folder gave: facts and (None: none) its own plan."""

    facts: SessionFacts
    plan: AgentPlan | None
    problem: str | None
    # Text-free, for the warm-start cache: what the messages document gave besides text
    # (its `updated_at` in microseconds since the epoch, or None); None when the session
    # had a problem or its title came from the messages (then it is read whole again).
    hint: dict[str, Any] | None = None


def is_cline_data(folder: Path) -> bool:
    """A Cline data folder: `sessions/` beside the board `db/teams.db`."""
    return (folder / SESSIONS).is_dir() and (folder / BOARD).is_file()


def session_files(folder: Path, sid: str) -> tuple[Path, Path]:
    return folder / f"{sid}.json", folder / f"{sid}.messages.json"


class ClineReader(SourceReader):
    """Every session of one Cline data folder. Not a line reader: IO calls `read()` (the
    first scan) and `refresh()` (when a session's files or the board changed)."""

    harness: Harness = "cline"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._plans_on = True
        self._board_problem: str | None = None
        self._file_problems: dict[str, str] = {}
        # Text-free: what each session's files and rows looked like when last read.
        self._signatures: dict[str, tuple[FileSig, FileSig, tuple[int, int]]] = {}
        self._stamps: dict[str, str] = {}  # the newest updated_at of each session's rows
        self._board_stamps: dict[str, str] = {}  # the same, as the board has it now
        # Text-free: an earlier start's signatures and hints (`read(remembered=…)`), used
        # by that read only.
        self._remembered: dict[str, tuple[list[Any], dict[str, Any]]] = {}
        # Text (memory only).
        self._sessions: dict[str, _Session] = {}

    # -- the line contract does not apply ------------------------------------------------

    def feed_line(self, line: bytes) -> None:
        raise NotImplementedError("a Cline data folder is read with read()/refresh(), not line by line")

    def is_full_list(self, line: bytes) -> bool:
        return False

    # -- reading -------------------------------------------------------------------------

    def _say_problems(self) -> None:
        """`problem`: what could not be read (the board, a session's file), each naming
        its file, one a line (said one a line: a folder of many broken files is not one
        sentence cut short); None when everything was read."""
        found = [p for p in (self._board_problem, *sorted(self._file_problems.values())) if p]
        self.problem = "\n".join(found) if found else None

    def read(self, *, plans: bool = True, remembered: object = None) -> list[SessionResult]:
        """Read every session; never raises. `remembered` (an earlier `warm_state()`):
        a session whose two files and rows kept the stats and counts it remembers has
        its messages document left unread (it can be megabytes): its metadata file gives
        the facts, the remembered hint the messages' time, the board its plan."""
        self._plans_on = plans
        self._signatures.clear()
        self._stamps.clear()
        self._sessions.clear()
        self._file_problems.clear()
        self._remembered = _remembered(remembered) if plans else {}
        try:
            self.refresh()
        finally:
            self._remembered = {}
        return self.results()

    def warm_state(self) -> dict[str, Any]:
        """Text-free: per session the stats of its files, its rows' count and version,
        and the hint of what its messages gave (`_Session.hint`; absent: none)."""
        sessions: dict[str, list[Any]] = {}
        for sid, (a, b, c) in self._signatures.items():
            hint = self._sessions[sid].hint if sid in self._sessions else None
            sessions[sid] = [list(a), list(b), list(c)] if hint is None else [list(a), list(b), list(c), hint]
        return {"sessions": sessions}

    def results(self) -> list[SessionResult]:
        return [
            SessionResult(facts=s.facts.copy(), plan=(s.plan if s.plan is not None else EMPTY_PLAN))
            for s in self._sessions.values()
        ]

    def session_ids(self) -> set[str]:
        return set(self._sessions)

    def history(self, session_id: str) -> list[tuple[datetime, AgentPlan]]:
        """The session's board after each change its messages confirm, oldest first, with
        the time of the message that confirmed it: its timeline (read on demand: it reads
        the messages document). Never raises ([] when it cannot be read)."""
        session = self._sessions.get(session_id)
        folder = self.path / SESSIONS / session_id
        if session is None or not self._plans_on:
            return []
        titles = {i.task_id: i.text for g in (session.plan or EMPTY_PLAN).groups for i in g.items if i.task_id}
        messages, _problem = _document(session_files(folder, session_id)[1])
        found = messages.get("messages") if isinstance(messages, dict) else None
        return board_history(found, titles) if isinstance(found, list) else []

    def refresh(self) -> set[str]:
        """Read again the sessions whose files or rows moved; returns the ids that changed
        or went. Never raises."""
        try:
            return self._refresh()
        finally:
            self._say_problems()

    def _refresh(self) -> set[str]:
        folders = self._folders()
        board = self._board_signatures() if self._plans_on else {}
        signatures: dict[str, tuple[FileSig, FileSig, tuple[int, int]]] = {}
        for sid, folder in folders.items():
            meta, messages = session_files(folder, sid)
            signatures[sid] = (_stat(meta), _stat(messages), board.get(sid, (0, 0)))
        moved = {
            sid
            for sid, sig in signatures.items()
            if self._signatures.get(sid) != sig
            or (sid in board and self._stamps.get(sid) != self._board_stamps.get(sid))
        }
        gone = set(self._sessions) - set(folders)
        for sid in gone:
            self._sessions.pop(sid, None)
            self._signatures.pop(sid, None)
            self._stamps.pop(sid, None)
            self._file_problems.pop(sid, None)
        if not moved:
            return gone
        rows: dict[str, list[tuple[Any, ...]]] = {}
        unread = False  # the board refused the rows after giving their counts (locked meanwhile)
        if self._plans_on and self._board_problem is None:
            rows = self._board_rows(moved)
            unread = self._board_problem is not None
        for sid in moved:
            known = self._remembered.get(sid)
            # Its two files as remembered: the messages need no read (its rows are read
            # whenever the session moved).
            files = [list(part) for part in signatures[sid][:2]]
            hint = known[1] if known is not None and known[0][:2] == files else None
            session = self._read_session(folders[sid], sid, rows.get(sid), hint)
            self._sessions[sid] = session
            # Rows not read are remembered as not read: the next refresh reads them, even
            # when nothing on the board changed meanwhile.
            self._signatures[sid] = (*signatures[sid][:2], (-1, -1)) if unread else signatures[sid]
            self._stamps[sid] = self._board_stamps.get(sid, "")
            if session.problem is None:
                self._file_problems.pop(sid, None)
            else:
                self._file_problems[sid] = session.problem
        return moved | gone

    # -- the session folders -------------------------------------------------------------

    def _folders(self) -> dict[str, Path]:
        found: dict[str, Path] = {}
        try:
            with os.scandir(self.path / SESSIONS) as it:
                for entry in it:
                    if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                        folder = Path(entry.path)
                        if any(f.is_file() for f in session_files(folder, entry.name)):
                            found[entry.name] = folder
        except OSError as exc:
            log.debug("cannot list %s: %s", self.path / SESSIONS, exc)
        return found

    def _read_session(
        self, folder: Path, sid: str, rows: list[tuple[Any, ...]] | None, hint: dict[str, Any] | None = None
    ) -> _Session:
        """One session from its files and rows; with `hint` (its files unchanged since a
        start that remembered it), its messages document is not read."""
        meta_path, messages_path = session_files(folder, sid)
        facts = SessionFacts(id=sid)
        meta, meta_problem = _document(meta_path)
        if isinstance(meta, dict):
            cwd = meta.get("cwd") or meta.get("workspace_root")
            facts.cwd = cwd if isinstance(cwd, str) and cwd else None
            title = (meta.get("metadata") or {}).get("title") if isinstance(meta.get("metadata"), dict) else None
            if isinstance(title, str) and title.strip():
                facts.custom_title = prompt_title(title, MAX_TITLE_CHARS)
            prompt = meta.get("prompt")
            if isinstance(prompt, str) and prompt.strip():
                facts.first_prompt = prompt_title(prompt, MAX_TITLE_CHARS)
            for key in ("started_at", "ended_at"):
                facts.touch(parse_timestamp(meta.get(key)))
        messages_problem: str | None = None
        messages: Any = None
        if hint is not None and meta_problem is None and facts.first_prompt is not None:
            updated = hint["updated"]
            facts.touch(None if updated is None else _EPOCH + timedelta(microseconds=updated))
        else:
            hint = None
            messages, messages_problem = _document(messages_path)
            if isinstance(messages, dict):
                moment = parse_timestamp(messages.get("updated_at"))
                facts.touch(moment)
                from_messages = facts.first_prompt is None
                if from_messages:
                    facts.first_prompt = _first_prompt(messages.get("messages"))
                if not from_messages:
                    hint = {"updated": None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)}
            elif messages_problem is None and messages_path.exists():
                messages_problem = f"{messages_path}: not a Cline messages document (no object)"
        # Each sentence says how the session is shown (it is listed all the same).
        if meta_problem is not None:
            meta_problem += "; that session is shown with what its other files and the board hold"
        # Only a document caught half-written takes the plan away (until it reads whole
        # again); one too large or unreadable says nothing of the board, the plan.
        torn = messages is _TORN
        if messages_problem is not None:
            messages_problem += "; that session is shown without a plan" if torn else "; its plan is the board's"
        problem = "; ".join(p for p in (meta_problem, messages_problem) if p) or None
        plan: AgentPlan | None = None
        if rows is not None and self._plans_on:
            plan, row_problem = _plan_of(rows, self.path / BOARD, sid)
            problem = "; ".join(p for p in (problem, row_problem) if p) or None
            for row in rows:
                facts.touch(parse_timestamp(row[3]))  # (task_id, title, status, updated_at, depends_on_json)
        if torn:
            plan = None  # caught half-written: no plan until it reads whole again
        return _Session(facts=facts, plan=plan, problem=problem, hint=hint if problem is None else None)

    # -- the board -------------------------------------------------------------------------

    def _board_signatures(self) -> dict[str, tuple[int, int]]:
        """Per session on the board: (rows, summed version); the newest `updated_at` of
        each goes to `_board_stamps`. A board that cannot be read is `_board_problem`."""
        board = self.path / BOARD
        self._board_stamps = {}
        if not board.exists():
            self._board_problem = None  # no board yet: Cline made no task
            return {}

        def work(db: sqlite3.Connection) -> dict[str, tuple[int, int, str]]:
            if _no_tables(db):
                return {}  # made, its schema not written yet: no board yet, nothing to say
            _check_schema(db)
            query = "SELECT team_name, COUNT(*), TOTAL(version), MAX(updated_at) FROM team_tasks GROUP BY team_name"
            return {str(r[0]): (int(r[1]), int(r[2] or 0), str(r[3] or "")) for r in db.execute(query)}

        try:
            found = read_transaction(board, work)
        except DatabaseProblem as exc:
            self._board_problem = f"{exc}; {BOARD_SHOWN}"
            return {}
        self._board_problem = None
        self._board_stamps = {sid: stamp for sid, (_n, _v, stamp) in found.items()}
        return {sid: (n, v) for sid, (n, v, _stamp) in found.items()}

    def _board_rows(self, ids: set[str]) -> dict[str, list[tuple[Any, ...]]]:
        """The rows of sessions `ids`, in `task_id` order."""
        board = self.path / BOARD
        if not board.exists():
            return {}

        def work(db: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
            rows: dict[str, list[tuple[Any, ...]]] = {}
            if _no_tables(db):
                return rows
            for chunk in chunks(sorted(ids)):
                marks = ",".join("?" * len(chunk))
                query = (
                    "SELECT team_name, task_id, title, status, updated_at, depends_on_json FROM team_tasks "
                    f"WHERE team_name IN ({marks}) ORDER BY team_name, task_id"
                )
                for row in db.execute(query, chunk):
                    rows.setdefault(str(row[0]), []).append(tuple(row[1:]))
            return rows

        try:
            return read_transaction(board, work)
        except DatabaseProblem as exc:
            self._board_problem = f"{exc}; {BOARD_SHOWN}"
            return {}


def _remembered(state: object) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """Per session of an earlier `warm_state()`, its signatures and hint, where both are
    what `warm_state` writes (anything else is read as a change: read whole)."""
    sessions = state.get("sessions") if isinstance(state, dict) else None
    if not isinstance(sessions, dict):
        return {}
    found: dict[str, tuple[list[Any], dict[str, Any]]] = {}
    for sid, remembered in sessions.items():
        if not (isinstance(remembered, list) and len(remembered) == 4 and isinstance(remembered[3], dict)):
            continue
        hint = remembered[3]
        updated = hint.get("updated", False)
        if set(hint) != {"updated"} or not (updated is None or type(updated) is int):
            continue
        parts = remembered[:3]
        if all(isinstance(part, list) and all(type(n) is int for n in part) for part in parts):
            found[sid] = (parts, hint)
    return found


# The latest changes a timeline keeps (as history.py's).
HISTORY_MAX = 200


def board_history(messages: list[Any], titles: dict[str, str]) -> list[tuple[datetime, AgentPlan]]:
    """The board after each `team_task` call its result confirms, at that result's `ts`
    (milliseconds). A result confirms a change when it is not `is_error` and its content
    is a JSON object naming the `taskId` and the `status` the task took: a `create` adds
    the task, the other actions set its status; a refused call, a `list`, or a task never
    seen created change nothing. A step's text is the board's title of its task (`titles`,
    by task id), else its create call's `title`; the steps are in task id order, as the
    board's. A change without a time is shown with the next one that has one."""
    called: dict[str, Any] = {}
    tasks: dict[str, tuple[str, Status]] = {}
    out: list[tuple[datetime, AgentPlan]] = []
    pending = False
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        moment = _ms_time(message.get("ts"))
        for block in message["content"]:
            if not isinstance(block, dict) or block.get("name") != "team_task":
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                called[block["id"]] = block.get("input")
            elif block.get("type") == "tool_result" and block.get("is_error") is not True:
                answered = block.get("tool_use_id")  # only a string id was ever called
                call = called.get(answered) if isinstance(answered, str) else None
                pending = _apply(tasks, _result(block.get("content")), call, titles) or pending
        if pending and moment is not None:
            items = tuple(
                PlanItem(text=text, status=status, task_id=tid) for tid, (text, status) in sorted(tasks.items())
            )
            out.append((moment, AgentPlan(groups=(PlanGroup(key="", source=SOURCE, items=items),))))
            pending = False
    return out[-HISTORY_MAX:]


def _apply(tasks: dict[str, tuple[str, Status]], result: Any, call: Any, titles: dict[str, str]) -> bool:
    """One confirmed result applied to `tasks`; whether it changed them."""
    if not isinstance(result, dict):
        return False
    tid, status, action = result.get("taskId"), result.get("status"), result.get("action")
    if not (isinstance(tid, str) and isinstance(status, str)):
        return False
    mapped = read_status(status, BOARD_STATUSES)
    if action == "create" and tid not in tasks:
        title = titles.get(tid) or (call.get("title") if isinstance(call, dict) else None)
        if not isinstance(title, str) or not title.strip():
            return False
        tasks[tid] = (title, mapped)
        return True
    if tid in tasks and tasks[tid][1] != mapped:
        tasks[tid] = (tasks[tid][0], mapped)
        return True
    return False


def _result(content: Any) -> Any:
    """A tool result's content as JSON: a string, or text blocks holding one."""
    if isinstance(content, list):
        content = "".join(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))
    if not isinstance(content, str) or not content.startswith("{"):
        return None
    try:
        return json.loads(content)
    except (ValueError, RecursionError):
        return None


def _ms_time(raw: Any) -> datetime | None:
    if type(raw) is not int or raw <= 0:
        return None
    try:
        return _EPOCH + timedelta(milliseconds=raw)
    except OverflowError:
        return None


def _no_tables(db: sqlite3.Connection) -> bool:
    """The database holds no table yet (Cline made the file and has not written its schema)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").fetchone() is None


def _check_schema(db: sqlite3.Connection) -> None:
    have = {str(r[1]) for r in db.execute("PRAGMA table_info(team_tasks)")}
    if not have:
        raise DatabaseProblem("an unknown schema version (no `team_tasks` table)")
    missing = [c for c in REQUIRED_COLUMNS if c not in have]
    if missing:
        raise DatabaseProblem(f"an unknown schema version (`team_tasks` has no {', '.join(missing)})")


def _plan_of(rows: list[tuple[Any, ...]], board: Path, sid: str) -> tuple[AgentPlan | None, str | None]:
    """A session's rows as its plan: (plan, None), or (None, what is wrong)."""
    order = {str(row[0]): at for at, row in enumerate(rows)}
    items: list[PlanItem] = []
    for task_id, title, status, _updated, depends in rows:
        if not isinstance(title, str) or not title.strip():
            return None, f"{board}: task {task_id} of session {sid} has no title; that session is shown without a plan"
        items.append(
            PlanItem(
                text=title,
                status=read_status(status, BOARD_STATUSES),
                task_id=str(task_id),
                waits_for=_depends(depends, order),
            )
        )
    return AgentPlan(groups=(PlanGroup(key="", source=SOURCE, items=tuple(items)),)), None


def _depends(raw: Any, order: dict[str, int]) -> tuple[int, ...]:
    """`depends_on_json` (task ids) as the places of those tasks in the list."""
    try:
        ids = json.loads(raw) if isinstance(raw, str) else None
    except (ValueError, RecursionError):
        return ()
    if not isinstance(ids, list):
        return ()
    return tuple(order[i] for i in ids if isinstance(i, str) and i in order)


def _stat(path: Path) -> FileSig:
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# What `_document` gives for a document that is not whole JSON (caught half-written).
_TORN = object()


def _document(path: Path) -> tuple[Any, str | None]:
    """A JSON document read whole: (value, None), (None, None) when the file is not
    there, or (None, what is wrong, naming the file); (_TORN, what is wrong) when it is
    not whole JSON."""
    try:
        data = read_regular(path, MAX_DOCUMENT)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc.strerror or exc})"
    if len(data) > MAX_DOCUMENT:
        return None, f"{path}: over {MAX_DOCUMENT >> 20} MB, not read"
    try:
        return json.loads(data), None
    except (ValueError, RecursionError) as exc:
        return _TORN, f"{path}: not whole JSON (caught half-written, or broken: {exc}); read again when it changes"


def _first_prompt(messages: Any) -> str | None:
    """The first user text block, without Cline's `<user_input>` wrapper."""
    if not isinstance(messages, list):
        return None
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            continue
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                text = block["text"].strip()
                if text.startswith(_USER_INPUT_OPEN) and text.endswith(_USER_INPUT_CLOSE):
                    text = text[text.find(">") + 1 : -len(_USER_INPUT_CLOSE)].strip()
                if text:
                    return prompt_title(text, MAX_TITLE_CHARS)
    return None

"""GitHub Copilot CLI's sessions: one folder per session, its plan a table.

`$COPILOT_HOME/session-state/<session id>/` (`core.paths.copilot_sessions_dir()`) holds
`events.jsonl` (the event log), `workspace.yaml` and, once the agent has used its `sql`
tool, `session.db` (SQLite). The folder is the session, read by `CopilotReader`: not a
line reader (IO calls `read()` on the first scan and `refresh()` when one of its files
changed), because the plan is not in the log at all.

- The plan (source "copilot_todos"): the rows of the `todos` table of the session's own
  `session.db`, in the order they were made (core/transcripts/copilot_sql.py). The
  `sql` calls in the log are never replayed: a batch is no transaction, so a call
  answered `success: false` may still have changed rows; only the table says what
  holds. Copilot CLI does not log its change signal either: a change is seen as
  `session.db` (or its `-wal` / `-journal`) changing.
- Facts (core/transcripts/copilot_files.py): the title is `workspace.yaml`'s `name` (the
  person's first prompt, or the name they gave), else the first `user.message`; the
  folder is `session.start`'s `context.cwd`, else `workspace.yaml`'s `cwd`; the id is
  the folder's name (Copilot CLI names the folder by the session's id). A
  `session.start` `sessionId` (else a `workspace.yaml` `id`) that differs, as in a
  folder copied whole or forked with its log, names the session it came from: lineage
  (`parent_id`), so two folders sharing a log are two sessions;
  the last activity is the last event's time, later the time a change of the database
  was seen while following (a row changed by the agent, or by anyone).
- `--resume` / `--continue` append to the same folder: the same session.
- A database that cannot be read (locked for long, corrupt, of a schema we do not know,
  rows we cannot take as Copilot CLI's) leaves the session without a plan and says why
  in `problem` (naming the file); its title, folder and activity are still shown. A
  folder without `session.db` is a session that has no plan yet.

What is remembered for the warm-start cache (`warm_state`) is text-free: the identity
(device, inode, size, mtime, ctime) of each of the session's files. A start that shows
only facts and counts (`planwatch sessions`) reads, for a session whose files all kept
their identity, `workspace.yaml` and the ends of `events.jsonl` only — its database is
not opened — and takes the plan's statuses from the cache's summary.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from planwatch.core.logs import get_logger
from planwatch.core.model import EMPTY_PLAN, AgentPlan
from planwatch.core.regular_files import NotRegularFile, open_regular_stat, read_regular
from planwatch.core.titles import PROMPT_TITLE_CHARS, prompt_title
from planwatch.core.transcripts.copilot_files import (  # the folder's file names too, as ever imported from here
    DATABASE,
    DATABASE_FILES,
    EVENTS,
    SESSION_FILES,
    WORKSPACE,
    WORKSPACE_MAX,
    event_facts,
    is_copilot_start,
    parse_workspace,
)
from planwatch.core.transcripts.reader import SessionFacts, SessionResult, TranscriptReader
from planwatch.core.transcripts.warmcache import Identity

log = get_logger(__name__)  # logging imported at the first record

_FACT_FILES = frozenset((EVENTS, WORKSPACE))
_RARE = frozenset(DATABASE_FILES[1:])  # the -wal and -journal, there only while written
_S_ISREG = stat.S_ISREG
MAX_TITLE_CHARS = PROMPT_TITLE_CHARS
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def is_copilot_session(folder: Path) -> bool:
    """A folder that is a Copilot CLI session: its `events.jsonl` holds Copilot's
    `session.start` among its first lines (a torn or foreign line before it is read past,
    as the listing reads past it), or it holds a `workspace.yaml` naming an `id` (no
    log yet, or a log whose head says nothing)."""
    try:
        fd, st = open_regular_stat(folder / EVENTS)
    except OSError:
        fd = -1
    if fd >= 0:
        try:
            head = os.pread(fd, 64 << 10, 0)
        except OSError:
            head = b""
        finally:
            os.close(fd)
        if any(is_copilot_start(line) for line in head.split(b"\n")):
            return True
    try:
        data = read_regular(folder / WORKSPACE, WORKSPACE_MAX)
    except OSError:
        return False
    return parse_workspace(data).id is not None


class CopilotReader(TranscriptReader):
    """One Copilot CLI session folder. Not a line reader: IO calls `read()` and
    `refresh()`."""

    harness = "copilot"
    # The warm-start cache keeps a summary of its results (statuses, no text): a start
    # that shows counts only takes the plan from it instead of opening the database.
    warm_summary = True

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.problem: str | None = None
        self._plans_on = True
        # Text-free: each file's identity when last read (None: not there).
        self._seen: dict[str, Identity | None] = {}
        # Text (memory only).
        self._facts = SessionFacts(id=path.name)
        self._plan: AgentPlan = EMPTY_PLAN
        self._problem_db: str | None = None  # what is wrong with the database, if anything
        self._looked: dict[str, Identity | None] | None = None  # by `unchanged()`, for the read after it
        self._results: list[SessionResult] | None = None  # what results() hands out, until a read
        self._hint: dict[str, Any] = {}  # where the facts came from, for the cache (no text)

    # -- the line contract does not apply ------------------------------------------------

    def feed_line(self, line: bytes) -> None:
        raise NotImplementedError("a Copilot CLI session is read with read()/refresh(), not line by line")

    def is_full_list(self, line: bytes) -> bool:
        return False

    # -- reading -----------------------------------------------------------------------

    def read(self, *, plans: bool = True, log: Identity | None = None) -> list[SessionResult]:
        """Read the session from scratch; never raises (a problem is kept in `problem`).
        `plans` False: the database is not opened (the privacy switch, or a start that
        takes the plan's counts from the warm-start cache). `log`: the log's identity as
        this scan's discovery found it (not asked again; a log changed since then is
        remembered as it was, so the next start reads it again)."""
        if log is not None:
            self._looked = self._look(log)
        self._plans_on = plans
        self._seen = {}
        self._facts = SessionFacts(id=self.path.name)
        self._plan = EMPTY_PLAN
        self._problem_db = None
        self._update(live=False)
        return self.results()

    def read_plan(self, *, texts: bool = True) -> None:
        """After `read(plans=False)`: the plan too, as `read()` would have read it;
        `texts` False: its items' statuses only (copilot_sql.read_plan)."""
        self._plans_on, self._results = True, None
        self._read_plan(self._seen, texts=texts)
        self.problem = self._problem_db

    def refresh(self) -> bool:
        """Read again what moved since the last read (the log, the workspace, the
        database); True when the session's result changed. Never raises."""
        before = self.results()
        self._update(live=True)
        return self.results() != before

    def results(self) -> list[SessionResult]:
        if self._results is None:
            self._results = [SessionResult(facts=self._facts.copy(), plan=self._plan)]
        return list(self._results)

    def session_ids(self) -> set[str]:
        return {self._facts.id or self.path.name}

    def history(self, session_id: str) -> list[tuple[datetime, AgentPlan]]:
        """No earlier lists: the table holds only the current one, and the calls that
        wrote it are not replayed (the timeline shows the changes seen while running)."""
        return []

    def present(self) -> bool:
        """Whether the folder still holds any of the session's files."""
        return any(self._seen.get(name) is not None for name in (EVENTS, WORKSPACE, DATABASE))

    def warm_state(self) -> dict[str, Any]:
        """The identity of each of the session's files, and where its facts came from
        (its id, flags and the last activity as a number; no text): the next start knows
        from it which sessions did not change, and reads no more of them than their
        workspace."""
        files = {name: list(ident) if ident is not None else None for name, ident in self._seen.items()}
        return {"files": files, "facts": self._hint}

    def read_remembered(self, state: object) -> list[SessionResult] | None:
        """After `unchanged(state)`: the session's facts from its workspace and what
        `state` remembers (its id, the last activity), its log not opened, its database
        neither (no plan: the caller takes the counts from the cache's summary). None
        when the workspace alone cannot give them (then `read(plans=False)`)."""
        hint = state.get("facts") if isinstance(state, dict) else None
        if not (
            isinstance(hint, dict)
            and isinstance(hint.get("id"), str)
            and hint.get("workspace") is True
            and (hint.get("last") is None or type(hint.get("last")) is int)
            and type(hint.get("skipped")) is int
        ):
            return None
        now, self._looked = self._looked or self._look(), None
        if now[WORKSPACE] is None:
            return None
        try:
            workspace = parse_workspace(_read_small(f"{self.path}/{WORKSPACE}"), titles_only=True)
        except OSError:
            return None
        if not (workspace.cwd and workspace.name):
            return None
        self._plans_on, self._seen, self._results = False, now, None
        self._plan, self._problem_db, self.problem = EMPTY_PLAN, None, None
        self._hint = hint
        self.skipped_lines = hint["skipped"]
        last = hint["last"]
        self._facts = SessionFacts(
            id=self.path.name,
            parent_id=_origin(self.path.name, hint["id"]),
            cwd=workspace.cwd,
            first_prompt=prompt_title(workspace.name, MAX_TITLE_CHARS),
            last_timestamp=None if last is None else _EPOCH + timedelta(microseconds=last),
        )
        return self.results()

    def unchanged(self, state: object, log: Identity | None = None) -> bool:
        """Whether every file of the session still has the identity `state` (an earlier
        `warm_state()`) remembers; anything malformed is a change. What it saw is kept
        for the `read()` that follows (no file is looked at twice). `log`: the log's
        identity as this scan's discovery found it (not asked again)."""
        files = state.get("files") if isinstance(state, dict) else None
        if not isinstance(files, dict) or len(files) != len(SESSION_FILES):
            return False
        folder = os.fspath(self.path) + "/"
        now: dict[str, Identity | None] = {}
        for name in SESSION_FILES:
            remembered = files.get(name, False)
            if remembered is None:
                # Remembered as not there (usually the -wal and -journal): whether
                # anything is there now, asked without a stat or an exception. Anything
                # there, even a file that is not regular, is a change (the full look).
                if os.access(folder + name, os.F_OK):
                    self._looked = None
                    return False
                now[name] = None
                continue
            ident = log if log is not None and name == EVENTS else _identity(folder + name)
            if ident is None or not isinstance(remembered, list) or tuple(remembered) != ident:
                self._looked = None
                return False
            now[name] = ident
        self._looked = now
        return True

    def _look(self, log: Identity | None = None) -> dict[str, Identity | None]:
        """Each file's identity now (None: not there, or not a regular file); `log`: the
        log's, known already."""
        folder = os.fspath(self.path) + "/"
        # The -wal and -journal are usually not there: asked for by `access()` first, a
        # missing one costs no failed `stat` and its exception (about 1.7 µs each).
        seen = {
            name: _identity(folder + name) if name not in _RARE or os.access(folder + name, os.F_OK) else None
            for name in SESSION_FILES
            if name != EVENTS or log is None
        }
        if log is not None:
            seen[EVENTS] = log
        return seen

    # -- the files ---------------------------------------------------------------------

    def _update(self, *, live: bool) -> None:
        now, self._looked = self._looked or self._look(), None
        self._results = None
        seen = self._seen
        moved = {name for name in SESSION_FILES if name not in seen or seen[name] != now[name]}
        self._seen = now
        if not moved.isdisjoint(_FACT_FILES):
            self._read_facts(now)
        if not moved.isdisjoint(DATABASE_FILES):
            before = self._plan
            self._read_plan(now)
            if live and self._plan != before:
                # The database changing is activity (the agent, or anyone, changed rows).
                moments = [ident[3] for name in DATABASE_FILES if (ident := now[name]) is not None]
                if moments:
                    self._facts.touch(datetime.fromtimestamp(max(moments) / 1e9, tz=UTC))
        self.problem = self._problem_db

    def _read_facts(self, now: dict[str, Identity | None]) -> None:
        touched = self._facts.last_timestamp if self._facts.last_timestamp is not None else None
        facts = SessionFacts(id=self.path.name)
        workspace = None
        if now[WORKSPACE] is not None:
            try:
                workspace = parse_workspace(_read_small(f"{self.path}/{WORKSPACE}"))
            except OSError as exc:
                log.info("cannot read %s: %s", self.path / WORKSPACE, exc)
        events = None
        if now[EVENTS] is not None:
            try:
                fd, st = _open_regular(f"{self.path}/{EVENTS}")
                try:
                    events = event_facts(fd, st.st_size, prompt=not (workspace and workspace.name))
                finally:
                    os.close(fd)
            except OSError as exc:
                log.info("cannot read %s: %s", self.path / EVENTS, exc)
        self.skipped_lines = events.bad_lines if events is not None else 0
        # The folder is the session; an id its files name that differs (a folder copied
        # or forked, its log with it) is the session it came from.
        named = (events and events.session_id) or (workspace and workspace.id) or self.path.name
        facts.parent_id = _origin(self.path.name, named)
        facts.cwd = (events and events.cwd) or (workspace and workspace.cwd) or None
        name = (workspace and workspace.name) or (events and events.first_prompt)
        facts.first_prompt = prompt_title(name, MAX_TITLE_CHARS) if name else None
        facts.last_timestamp = (events and events.last_time) or (workspace and workspace.updated_at) or None
        if touched is not None and self._seen_db_change(touched, facts.last_timestamp):
            facts.touch(touched)
        self._facts = facts
        # Text-free: whether the workspace alone gives these facts again (the folder as
        # the log's session.start names it, the title its name), the id the files name,
        # the activity.
        last = facts.last_timestamp
        self._hint = {
            "id": named,
            "workspace": bool(workspace and workspace.name and workspace.cwd and workspace.cwd == facts.cwd),
            "last": None if last is None else (last - _EPOCH) // timedelta(microseconds=1),
            "skipped": self.skipped_lines,
        }

    def _seen_db_change(self, held: datetime, read: datetime | None) -> bool:
        # A database change seen while following stays the activity until a later event.
        return read is None or held > read

    def _read_plan(self, now: dict[str, Identity | None], *, texts: bool = True) -> None:
        self._plan, self._problem_db = EMPTY_PLAN, None
        if not self._plans_on or now[DATABASE] is None:
            return  # no plan yet (the agent has not used its sql tool), or not read
        from planwatch.core.transcripts.copilot_sql import DatabaseProblem, read_plan  # sqlite3: only when read

        try:
            self._plan = read_plan(f"{self.path}/{DATABASE}", texts=texts)
        except DatabaseProblem as exc:
            self._problem_db = f"{exc}; the session is shown without a plan"


def _origin(folder: str, named: str) -> str | None:
    """The session a folder came from: the id its files name, when not the folder's."""
    return named if named != folder else None


def read_folders(
    paths: list[Path],
    *,
    plans: bool = True,
    texts: bool = True,
    logs: Sequence[Identity | None] | None = None,
) -> list[CopilotReader]:
    """Read several session folders from scratch, as `CopilotReader.read` does each:
    every folder's facts first, then every database. Reading the databases one after
    another is about a seventh faster than reading each beside its facts (SQLite's
    working set and the facts' stop pushing each other out of the CPU's caches).
    `texts` False: the plans' statuses only (a listing of counts). `logs`: each log's
    identity as discovery found it (`CopilotReader.read`)."""
    readers = [CopilotReader(path) for path in paths]
    for reader, log in zip(readers, logs or [None] * len(readers), strict=True):
        reader.read(plans=False, log=log)
    if plans:
        for reader in readers:
            reader.read_plan(texts=texts)
    return readers


def remembered_facts(folder: str, state: object, log: Identity | None) -> SessionFacts | None:
    """A listing's warm start of one session folder (`folder`, a path string), in one
    pass: when every file of the session still has the identity `state` (an earlier
    `warm_state()`) remembers — its log's as this scan's discovery found it (`log`),
    the others asked here, the -wal and -journal remembered as not there only asked
    whether they are — and the workspace alone gives the facts, the session's facts
    from its workspace (read now: text is never cached) and what `state` remembers (its
    id, its last activity). What `unchanged()` and `read_remembered()` give together,
    without a reader: None for anything else (a change, a malformed state, a workspace
    that does not give the title and the folder, skipped lines to count), and the
    caller reads the folder as ever."""
    if type(state) is not dict:
        return None
    files, hint = state.get("files"), state.get("facts")
    if not (
        type(files) is dict
        and len(files) == 5
        and type(hint) is dict
        and hint.get("workspace") is True
        and hint.get("skipped") == 0
        and type(hint.get("skipped")) is int
        and type(named := hint.get("id")) is str
        and ((last := hint.get("last")) is None or type(last) is int)
    ):
        return None
    base = folder + "/"
    for name in SESSION_FILES:
        remembered = files.get(name, False)
        if remembered is None:
            if os.access(base + name, os.F_OK):
                return None
            continue
        if type(remembered) is not list:
            return None
        if name == WORKSPACE:
            continue  # its identity is asked of the descriptor it is read from (below)
        if name == EVENTS and log is not None:
            ident = log
        else:
            try:
                st = os.stat(base + name)
            except OSError:
                return None
            if not _S_ISREG(st.st_mode):
                return None
            ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if tuple(remembered) != ident:
            return None
    remembered = files[WORKSPACE]
    if remembered is None:
        return None
    try:
        fd, st = _open_regular(base + WORKSPACE)
        try:
            if tuple(remembered) != (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
                return None
            data = os.read(fd, min(st.st_size, WORKSPACE_MAX) + 1)
        finally:
            os.close(fd)
    except OSError:
        return None
    workspace = parse_workspace(data, titles_only=True)
    if not (workspace.cwd and workspace.name):
        return None
    name = folder.rpartition("/")[2]
    return SessionFacts(
        id=name,
        parent_id=named if named != name else None,
        cwd=workspace.cwd,
        first_prompt=prompt_title(workspace.name, MAX_TITLE_CHARS),
        last_timestamp=None if last is None else _EPOCH + timedelta(microseconds=last),
    )


def _identity(path: str) -> Identity | None:
    """A file's identity as warmcache.identity makes it, inline (a thousand folders);
    None when it is not there or not a regular file (a FIFO is never opened: it could
    block a read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) if _S_ISREG(st.st_mode) else None


def _open_regular(path: str) -> tuple[int, os.stat_result]:
    """A file `_look` found regular, opened without waiting (O_NONBLOCK: a FIFO swapped
    in since is never waited on) and checked again on the descriptor."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegularFile(errno.EINVAL, "not a regular file", path)
    return fd, st


def _read_small(path: str) -> bytes:
    """A small regular file whole (at most WORKSPACE_MAX bytes: a larger one is not
    Copilot CLI's and is read no further)."""
    fd, st = _open_regular(path)
    try:
        return os.read(fd, min(st.st_size, WORKSPACE_MAX) + 1)
    finally:
        os.close(fd)


def session_folder(path: Path) -> Path | None:
    """The Copilot CLI session folder a path names: the folder itself, or one of its
    files (`events.jsonl`, `session.db` and its -wal/-journal, `workspace.yaml`)."""
    folder = path.parent if path.name in SESSION_FILES else path
    return folder if folder.is_dir() and is_copilot_session(folder) else None

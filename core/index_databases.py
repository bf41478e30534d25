"""The session index's database-backed sources (OpenCode's SQLite database and its older
storage/ folder; Kilo CLI's database; each Copilot CLI session folder with its
`session.db`): which changed file belongs to which source, refreshing the sessions that
moved when the database or its -wal changes, and reporting a database that cannot be
read or is not there. The readers themselves are core/transcripts/opencode.py
(Kilo's too: core/transcripts/kilo.py) and core/transcripts/copilot.py; the index that
holds the state is core/index.py.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from planwatch.core import paths
from planwatch.core.index_state import IndexState
from planwatch.core.logs import get_logger
from planwatch.core.sessions import ids_of
from planwatch.core.transcripts.discover import (
    CLINE_BOARD_NAME,
    DATABASE_HARNESSES,
    TranscriptFile,
    classify_cline,
    classify_database,
    classify_storage,
)
from planwatch.core.transcripts.reader import SourceReader

log = get_logger(__name__)  # logging imported at the first record


class DatabaseSources:
    """The index's database-backed sources: each refresh reads again what moved in one
    source and returns the session ids it touched. Built with the index's shared state
    (index_state.py) and three callbacks into the index: read a file from scratch
    (`load`), forget one that went (`forget`), and note what keeps a source from being
    read (`note_problem`, None when it reads again)."""

    def __init__(
        self,
        state: IndexState,
        *,
        load: Callable[[TranscriptFile], set[str]],
        forget: Callable[[Path], set[str]],
        note_problem: Callable[[Path, str | None], None],
    ) -> None:
        self._state = state
        self._load = load
        self._forget = forget
        self._note_problem = note_problem

    def sources(self, roots: list[Path]) -> set[Path]:
        """Database sources read or named as roots (they may appear later): OpenCode's
        and Kilo's database files, OpenCode's storage folders."""
        with self._state.lock:
            found = {path for path, state in self._state.files.items() if state.file.harness in DATABASE_HARNESSES}
        named = {root for root in roots if is_database_root(root)}
        # Cline's own data folder, even before Cline made it: its sessions/ and db/ are
        # watched from the start, so a first session shows without a restart.
        named |= {root for root in roots if root == paths.cline_data_dir()}
        storage = paths.opencode_storage_dir()
        if storage in roots and not (storage.parent / "opencode.db").exists():
            named.add(storage)
        return found | named

    def refresh_database(self, path: Path) -> set[str]:
        """The database or its -wal changed: read again the sessions that moved; returns
        the ids touched."""
        index = self._state
        with index.io_lock:
            state = index.get(path)
            reader = state.reader if state is not None else None
            if state is None or not isinstance(reader, SourceReader) or state.file.harness not in DATABASE_HARNESSES:
                if path.name == "storage":
                    item = classify_storage(path)
                elif path.is_dir():
                    item = classify_cline(path)
                else:
                    item = classify_database(path)
                if item is None:
                    return self._forget(path)
                return self._load(item)
            with index.lock:
                before = {sid for sid in ids_of(state)}
            changed = reader.refresh()
            self._note_problem(path, reader.problem)
            if changed and state.trace is not None and state.trace.state is not None:
                state.trace.state = reader.warm_state()  # under the IO lock
                index.cache_behind = True
            results = reader.results()
            with index.lock:
                state.results = results
                ids: set[str] = changed | (before - ids_of(state))
                return ids

    def copilot_folder(self, path: Path) -> Path | None:
        """The Copilot CLI session a changed file belongs to, when the index holds it:
        its log, workspace, database or the database's -wal / -journal."""
        from planwatch.core.transcripts.copilot import SESSION_FILES  # a small module, no sqlite3

        if path.name not in SESSION_FILES:
            return None
        state = self._state.get(path.parent)
        return path.parent if state is not None and state.file.harness == "copilot" else None

    def refresh_copilot(self, folder: Path) -> set[str]:
        """A file of a Copilot CLI session changed: read again what moved (its database
        only when the database or its -wal / -journal did), read-only; returns the ids
        touched."""
        from planwatch.core.transcripts.copilot import CopilotReader
        from planwatch.core.transcripts.discover import classify_copilot
        from planwatch.core.transcripts.warmcache import Trace, identity

        index = self._state
        with index.io_lock:
            state = index.get(folder)
            reader = state.reader if state is not None else None
            if state is None or not isinstance(reader, CopilotReader):
                item = classify_copilot(folder)
                return self._forget(folder) if item is None else self._load(item)
            with index.lock:
                before = ids_of(state)
            changed = reader.refresh()
            if not reader.present():
                return self._forget(folder)
            self._note_problem(folder, reader.problem)
            if state.trace is not None and reader.warm_state() != state.trace.state:
                try:
                    state.trace = Trace(ident=identity(folder.stat()), state=reader.warm_state())
                except OSError:
                    state.trace = None
                index.cache_behind = True
            results = reader.results()
            with index.lock:
                state.results = results
                return (before | ids_of(state)) if changed else set()


def database_problems(roots: list[Path], noted: dict[Path, str], read: set[Path]) -> dict[Path, str]:
    """What is wrong with databases that cannot be read (`noted`: which file, what),
    plus databases named among `roots` that are not there or are not databases (none
    of the files `read`), each under the file it names; the other harnesses are read."""
    found = dict(noted)
    for root in roots:
        if not is_database_root(root) or root in found or root in read:
            continue
        if root.exists():
            found[root] = f"{root}: corrupt or not an SQLite database"
        elif _named(root):
            found[root] = f"{root}: no database there"
    return found


def is_database_root(root: Path) -> bool:
    """A root naming an OpenCode database file (`opencode.db`, or any `.db` given but a
    Copilot CLI session's own `session.db`)."""
    return root.suffix == ".db" and not root.is_dir() and not _copilot_database(root) and not _cline_board(root)


def _cline_board(path: Path) -> bool:
    """Cline's task board (`<data>/db/teams.db`): its source is the data folder."""
    return path.name == CLINE_BOARD_NAME and path.parent.name == "db"


def _copilot_database(path: Path) -> bool:
    from planwatch.core.transcripts.copilot import DATABASE, EVENTS, WORKSPACE

    return path.name == DATABASE and ((path.parent / EVENTS).exists() or (path.parent / WORKSPACE).exists())


def database_of(path: Path) -> Path | None:
    """The database source a changed file belongs to: a database (itself, `….db`, or its
    `….db-wal`), an OpenCode storage folder (`storage/session/<project>/<id>.json`,
    `storage/todo/<id>.json`), or a Cline data folder (its board `db/teams.db`, a
    session's `sessions/<id>/<id>.json` or `<id>.messages.json`)."""
    if path.name.endswith(".db-wal"):
        return database_of(path.with_name(path.name[: -len("-wal")]))
    if _cline_board(path):
        return path.parent.parent  # Cline's board: the data folder is the source
    if path.suffix == ".db":
        return path
    if path.suffix == ".json" and path.parent.parent.name == "sessions":
        # A Cline session's rewritten `<id>.json` or `<id>.messages.json`.
        if path.name in (f"{path.parent.name}.json", f"{path.parent.name}.messages.json"):
            return path.parent.parent.parent
    if path.suffix == ".json":
        if path.parent.name == "todo" and path.parent.parent.name == "storage":
            return path.parent.parent
        if path.parent.parent.name == "session" and path.parent.parent.parent.name == "storage":
            return path.parent.parent.parent
    return None


def _named(database: Path) -> bool:
    """A database someone named (OPENCODE_DB, KILO_DB, --root, the settings), not the
    default place OpenCode or Kilo may simply not be installed at: only then is its
    absence reported."""
    if database == paths.opencode_db():
        return paths.opencode_db_named()
    if database == paths.kilo_db():
        return paths.kilo_db_named()
    return True


def opencode_root(root: Path, sources: set[Path]) -> bool:
    """A root that is a database source or its data folder (OpenCode's, Kilo's): watched
    through the source's own folders only, never recursively (their snapshot folders are
    large)."""
    return root in sources or any(root / name in sources for name in ("opencode.db", "kilo.db", "storage", "data"))
